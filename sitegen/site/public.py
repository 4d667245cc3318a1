"""What the site's public address (`base_url` in the config's [site] table) adds to the site: each page's
absolute address, the tags of a link preview (the canonical link, og:url, og:title, og:description, og:image),
a QR code per figure that opens its page, and each figure's address under its printed figure in figures.txt.

Without a base_url the site holds none of these: every link in it stays relative, and no page names an address
that would be a guess. All but write_qr_codes are pure; the site's writers (writers.py) call that one as they
write.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from figsite.config import SiteInfo
from figsite.data import paths
from sitegen.site.qr import figure_address, qr_png, qr_size_mm, qr_svg

DESCRIPTION_LENGTH = 200  # characters of og:description at most: about what a link preview shows
ADDRESS_LINE = "Interactive version: "  # before a figure's address in figures.txt, on a line of its own


@dataclass(frozen=True)
class LinkPreview:
    """What a page tells a link preview and a search engine about itself, every address absolute."""

    url: str  # the page's own address: og:url and the canonical link
    title: str
    description: str
    image: str  # the address of a figure's small picture (its PNG drawing)
    site_name: str


@dataclass(frozen=True)
class QrCode:
    """A figure's QR code in the site: its file without the extension (.svg, .png) and its printed width."""

    file: str
    size_mm: float


def address(site: SiteInfo, file: str) -> str | None:
    """The public address of a file of the site (the index: the site's address itself), or None without a
    base_url."""
    if site.base_url is None:
        return None
    return figure_address(site.base_url, "" if file == paths.INDEX else file)


def link_preview(site: SiteInfo, file: str, title: str, description: str, image_file: str) -> LinkPreview | None:
    """The link preview of the page `file`, showing the PNG `image_file` of the site; None without a base_url."""
    if site.base_url is None:
        return None
    return LinkPreview(address(site, file), title, shortened(description), address(site, image_file), site.title)


def shortened(text: str, limit: int = DESCRIPTION_LENGTH) -> str:
    """`text` on one line, and where it is longer than `limit` characters cut after a word, with '…'."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[:limit].rsplit(" ", 1)[0].rstrip(",;:.") + "…"


def qr_code(label: str, address: str | None) -> QrCode | None:
    """The QR code of the figure `label`, whose page has the public address `address`; None without an address."""
    return None if address is None else QrCode(paths.qr_image(label), qr_size_mm(address))


def write_qr_codes(folder: Path, pages: list) -> None:
    """Writes each figure's QR code, as SVG and PNG, into the site being written in `folder` (img/ exists)."""
    for page in pages:
        if page.qr is not None:
            (folder / f"{page.qr.file}.svg").write_bytes(qr_svg(page.address))
            (folder / f"{page.qr.file}.png").write_bytes(qr_png(page.address))


def figures_text(pages: list) -> str:
    """figures.txt: every printed figure in config order, each followed by its public address where it has one,
    on a line that is not indented (so that --check-book reads the figure as ending before it)."""
    return "\n".join(page.text_figure + (f"{ADDRESS_LINE}{page.address}\n" if page.address else "")
                     for page in pages)
