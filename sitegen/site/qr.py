"""A figure's QR code, for the author to print beside the figure in the book: it opens the figure's page.

Pure functions: they return bytes and write nothing (the site code does every file write). Made with segno:
a regular QR code (never a Micro QR, which phones do not read), error correction M (15% of the code may be
smudged), a quiet zone of 4 modules, black on white. Sized for print by its module (one small square):
0.5 mm in the SVG (its width and height in mm), 6 pixels at 300 dpi (0.51 mm) in the PNG (its pHYs chunk says
300 dpi). An address of up to 42 characters (`https://example.org/book/figure-l.html`) makes a code of 29
modules, 37 with the quiet zone: 18.5 mm wide, 222 pixels; of 43 to 62 characters, 41 modules: 20.5 mm, 246
pixels; each further version adds 4 modules (2 mm). `qr_size_mm` says the width of a given address's code.
The same address gives the same bytes in every build (no dates, no ids; the PNG's zlib at a fixed level).
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING
from urllib.parse import quote

if TYPE_CHECKING:
    import segno

ERROR = "m"
BORDER = 4  # modules of quiet zone on each side, as the standard asks
MODULE_MM = 0.5  # one module in the SVG, in mm
PNG_DPI, PNG_SCALE = 300, 6  # the PNG: 6 pixels a module at 300 dpi (0.508 mm)


def figure_address(base_url: str, page_file: str) -> str:
    """The public address of a page of the site: `base_url` (an http(s) address; '/' is added if it lacks one)
    and the page's file name relative to the site (`figure-l.html`, also with `#token=7`), percent-encoded."""
    if not base_url.lower().startswith(("http://", "https://")):
        raise ValueError(f"base_url {base_url!r} is not an http(s) address")
    if page_file.startswith("/") or "://" in page_file:
        raise ValueError(f"page_file {page_file!r} is not a path relative to the site")
    base = base_url if base_url.endswith("/") else base_url + "/"
    return base + quote(page_file, safe="/#=&?")


def _code(address: str) -> segno.QRCode:
    """The QR code of `address`: regular QR, error correction M exactly (not raised), the smallest version."""
    if not address:
        raise ValueError("an empty address has no QR code")
    import segno  # here, not above: it brings http and ssl with it, and a site without base_url has no QR code

    return segno.make_qr(address, error=ERROR, boost_error=False)


def qr_svg(address: str) -> bytes:
    """The QR code of `address` as an SVG file (UTF-8, with an XML declaration), MODULE_MM mm a module, its width
    and height in mm, a white background, the address as its <title>."""
    out = io.BytesIO()
    _code(address).save(out, kind="svg", scale=MODULE_MM, unit="mm", border=BORDER, dark="#000", light="#fff",
                        title=address, svgclass=None, lineclass=None, xmldecl=True, nl=True)
    return out.getvalue()


def qr_png(address: str) -> bytes:
    """The QR code of `address` as a PNG file: PNG_SCALE pixels a module, PNG_DPI dpi, black on white."""
    out = io.BytesIO()
    _code(address).save(out, kind="png", scale=PNG_SCALE, border=BORDER, dark="#000", light="#fff", dpi=PNG_DPI,
                        compresslevel=9)
    return out.getvalue()


def qr_size_mm(address: str) -> float:
    """The printed width (and height) of `address`'s code in mm, quiet zone included, as the SVG sets it."""
    width, _ = _code(address).symbol_size(scale=1, border=BORDER)
    return width * MODULE_MM
