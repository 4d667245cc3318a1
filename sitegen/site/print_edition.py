"""The print edition's writer: print/, written only where the config has a [print] table (figsite.print_config)."""

from __future__ import annotations

import hashlib
from importlib import metadata
from pathlib import Path

from figsite.config import figure_name
from figsite.data import paths
from figsite.errors import BuildError, one_line


class PrintEdition:
    """print/ (with a [print] table only): each figure drawn for the book as PDF and SVG (sitegen.site.printing), and
    the contact sheet for the editor, figures.pdf: every figure one a page, headed by its number and title as the book
    sets them, its label, and the SHA-256 of its data (its download, every table of it). After Downloads."""

    def write(self, folder: Path, site) -> None:
        info = site.print_info
        if info is None:
            return
        (folder / paths.PRINT).mkdir()
        sheet = []
        for page in site.gathered:
            svg, pdf = site.built[page.label].printed()
            (folder / paths.printed(page.label, "svg")).write_bytes(svg)
            (folder / paths.printed(page.label, "pdf")).write_bytes(pdf)
            data = hashlib.sha256((folder / page.download()).read_bytes()).hexdigest()
            sheet.append(([f"{figure_name(page.label, page.number)} {page.title}",
                           f"label: {page.label} (page {page.file})",
                           f"data: {page.download()}, its SHA-256:", data], pdf))

        def made() -> list[bytes]:
            from sitegen.site.printing import contact_sheet  # vl-convert and pypdf: imported only for [print]

            try:
                return [contact_sheet(sheet, str(info.font), info.font_family)]
            except Exception as exc:  # noqa: BLE001 - vl-convert's or pypdf's fault: one line, the last site kept
                raise BuildError(f"{paths.CONTACT_SHEET} (the contact sheet): cannot be made: "
                                 f"{one_line(exc)}") from None

        parts = [[lines, hashlib.sha256(pdf).hexdigest()] for lines, pdf in sheet]
        tools = [metadata.version(name) for name in ("vl-convert-python", "pypdf")]
        kept = site.kept(["contact sheet", 2, *tools, info.key(), parts], ["pdf"], made)
        (folder / paths.CONTACT_SHEET).write_bytes(kept[0])


def print_files(folder: Path, labels: list[str]) -> list[tuple[str, str]]:
    """The print edition's files as written in `folder`, each with its SHA-256, by path in the site (the About page
    lists them): the contact sheet, then each figure's PDF and SVG, figures in the order of `labels` (the config's)."""
    written = [paths.CONTACT_SHEET] + [paths.printed(label, suffix) for label in labels for suffix in ("pdf", "svg")]
    return [(name, hashlib.sha256((folder / name).read_bytes()).hexdigest()) for name in written]
