"""notebooks/ (--notebooks, or the config's [notebooks] table): for each figure whose kind offers one
(figures.kind notebook), figure-<label>.ipynb, written with nbformat from figures.notebook's cells, and the same text
as figure-<label>.js, a script that hands it to the page, which saves it with the figure's state. It reads the
page's data download by its SHA-256, which it takes from the file the Downloads writer wrote just before. The same
site gives byte-identical notebooks: no outputs, no execution counts, and each cell's id its place ("cell-3").
"""

from __future__ import annotations

import hashlib
import json
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from figsite.data import paths, shared_names
from figsite.data.versions import version
from figures.notebook import STATE_LINE, Notebook, Recipe, cells

if TYPE_CHECKING:
    from sitegen.site.render import Page
    from sitegen.site.writers import Site

KERNEL = {"name": "python3", "display_name": "Python 3", "language": "python"}


class Notebooks:
    """notebooks/figure-<label>.ipynb for each figure that offers one, where the build was asked for them."""

    def write(self, folder: Path, site: Site) -> None:
        if not site.notebooks:
            return
        for page in site.gathered:
            if page.notebook is None:
                continue
            files = [paths.notebook(page.label), paths.notebook_script(page.label)]
            (folder / paths.NOTEBOOKS).mkdir(exist_ok=True)
            book = self.book(folder, site, page)

            def made(book: Notebook = book) -> list[bytes]:
                text = notebook_json(cells(book))
                # the same text for the page's script, which saves it with the figure's state in its STATE cell
                script = f"{shared_names.NOTEBOOK_CALLBACK}({json.dumps(text, ensure_ascii=False)});\n"
                return [text.encode("utf-8"), script.encode("utf-8")]

            # made from the page's content, its models and its data download: kept in the cache with them
            key = ["notebooks", version("notebooks"), page.kept_as, book.data_sha256, metadata.version("nbformat")]
            for file, raw in zip(files, made() if page.kept_as is None else site.kept(key, files, made)):
                (folder / file).write_bytes(raw)

    @staticmethod
    def book(folder: Path, site: Site, page: Page) -> Notebook:
        """What the page's notebook says, its data download's SHA-256 read from the file just written."""
        assert page.notebook is not None
        data = paths.download(page.label)
        return Notebook(
            label=page.label,
            title=page.title,
            kind=page.kind,
            models=[site.runs[run].model for run in page.runs],  # a side-by-side figure's: each
            text=page.notebook["text"],
            ids=page.notebook["ids"],
            data_file=Path(data).name,
            data_sha256=hashlib.sha256((folder / data).read_bytes()).hexdigest(),
            spec_file=Path(paths.spec_download(page.label)).name,
            recipe=Recipe(page.notebook["code"], page.notebook["params"]),
        )


def notebook_json(made: list[tuple[str, str]]) -> str:
    """The notebook of these cells as nbformat writes it (version 4), checked against its schema."""
    import nbformat

    new = {"markdown": nbformat.v4.new_markdown_cell, "code": nbformat.v4.new_code_cell}

    def cell(i: int, kind: str, source: str):  # the STATE cell is the notebook's parameters (papermill's tag)
        tags = {"tags": ["parameters"]} if source.startswith(STATE_LINE) else {}
        return new[kind](source, id=f"cell-{i}", metadata=tags)

    notebook = nbformat.v4.new_notebook(
        cells=[cell(i, kind, source) for i, (kind, source) in enumerate(made, start=1)],
        metadata={"kernelspec": KERNEL, "language_info": {"name": "python"}},
    )
    nbformat.validate(notebook)
    return nbformat.writes(notebook) + "\n"


def notebook_files(folder: Path) -> list[tuple[str, str]]:
    """The notebooks written into the site's `folder`, (path in the site, SHA-256), for the About page."""
    return [
        (path.relative_to(folder).as_posix(), hashlib.sha256(path.read_bytes()).hexdigest())
        for path in sorted((folder / paths.NOTEBOOKS).glob("*.ipynb"))
    ]
