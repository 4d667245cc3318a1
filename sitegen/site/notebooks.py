"""notebooks/ (--notebooks, or the config's [notebooks] table): for each figure whose kind offers one
(figures.kind notebook), figure-<label>.ipynb, written with nbformat from figures.notebook's cells, and the same text
as figure-<label>.js, a script that hands it to the page, which saves it with the figure's state. It reads the
page's data download by its SHA-256, which it takes from the file the Downloads writer wrote just before. The same
site gives byte-identical notebooks: no outputs, no execution counts, and each cell's id its place ("cell-3").
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from figsite.data import paths, shared_names
from figures.notebook import STATE_LINE, Notebook, Recipe, cells

if TYPE_CHECKING:
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
            data = paths.download(page.label)
            book = Notebook(
                label=page.label,
                title=page.title,
                kind=page.kind,
                models=[site.runs[folder].model for folder in page.runs],  # a side-by-side figure's: each
                text=page.notebook["text"],
                ids=page.notebook["ids"],
                data_file=Path(data).name,
                data_sha256=hashlib.sha256((folder / data).read_bytes()).hexdigest(),
                spec_file=Path(paths.spec_download(page.label)).name,
                recipe=Recipe(page.notebook["code"], page.notebook["params"]),
            )
            path = folder / paths.notebook(page.label)
            path.parent.mkdir(exist_ok=True)
            text = notebook_json(cells(book))
            path.write_text(text, encoding="utf-8")
            # The same text for the page's script, which saves it with the figure's state in its STATE cell
            script = f"{shared_names.NOTEBOOK_CALLBACK}({json.dumps(text, ensure_ascii=False)});\n"
            (folder / paths.notebook_script(page.label)).write_text(script, encoding="utf-8")


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
