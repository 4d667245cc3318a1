"""The print edition's drawings (the config's [print] table): each figure as a vector PDF and SVG at the book's column
width, in the book's font, embedded, and byte-identical from build to build. Worked out in a drawing process
(sitegen.site.drawing's "print" job) from the chart's spec, as the site's drawings are.

Sizes: Vega lays a chart out in pixels, and svg2pdf (vl-convert's) makes a PDF page a point per pixel. The chart is
laid out `font_size_pt / BASE_SIZE` times narrower than the column, so that its words of Vega-Lite's usual
size (BASE_SIZE px) come out `font_size_pt` points high once the drawing is scaled to the column. A chart of a fixed
width wider than that is scaled down to fit the column.

One face: the drawings' words are all in the one font the config names, at its own weight (bold and italic are
set as the plain face): a second face would be taken from the system, and svg2pdf numbers the fonts of a PDF in an
order that changes from run to run.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import textwrap
from pathlib import Path
from xml.sax.saxutils import escape

BASE_SIZE = 10  # Vega-Lite's size for an axis's labels, in pixels: the size that becomes font_size_pt
MM_PER_PT = 25.4 / 72
_REGISTERED: dict = {}  # font file -> the folder it was registered from, in this drawing process


def register_font(vl_convert, font: str) -> None:
    """Makes the font file `font` known to vl-convert, once per process (a folder of its own, so that no other file
    beside it is registered too)."""
    if font in _REGISTERED:
        return
    folder = tempfile.mkdtemp(prefix="gpt2-print-font-")
    shutil.copyfile(font, Path(folder) / Path(font).name)
    vl_convert.register_font_directory(folder)
    _REGISTERED[font] = folder


def plain_face(node):
    """A copy of a spec with every font weight and style the plain face's."""
    if isinstance(node, dict):
        return {key: ("normal" if re.search(r"(^f|F)ont(Weight|Style)$", key) else plain_face(value))
                for key, value in node.items()}
    if isinstance(node, list):
        return [plain_face(value) for value in node]
    return node


def print_config(theme: dict, family: str) -> dict:
    """The chart's config for print: the theme's colours on white, every word in `family`'s plain face."""
    plain = {"fontWeight": "normal"}
    return {**theme, "background": "white", "font": family,
            "title": {**theme.get("title", {}), **plain, "subtitleFontWeight": "normal"},
            "axis": {**theme.get("axis", {}), "titleFontWeight": "normal", "labelFontWeight": "normal"},
            "legend": {**theme.get("legend", {}), "titleFontWeight": "normal", "labelFontWeight": "normal"},
            "header": {"titleFontWeight": "normal", "labelFontWeight": "normal"}}


CAPTION_SIZE = BASE_SIZE + 1
EM = 0.6  # a character's width, on average, in ems: what a caption's lines are broken at


def with_caption(spec: dict, caption: str | None, width: int) -> dict:
    """The spec with the figure's number and title above it, as the book sets them (None: without), in lines that
    fit a chart laid out `width` px wide (a title's words are not wrapped by Vega, and would be cut at its edge)."""
    if not caption:
        return spec
    per_line = max(20, int(width / (CAPTION_SIZE * EM)))
    lines = textwrap.wrap(caption, per_line, break_long_words=True) or [caption]
    return {**spec, "title": {"text": lines, "anchor": "start", "fontSize": CAPTION_SIZE, "offset": 8}}


SIZE = re.compile(r'(<svg\b[^>]*?)\swidth="([\d.]+)(?:mm)?" height="([\d.]+)(?:mm)?"')


def svg_size(svg: str) -> tuple[float, float]:
    found = SIZE.search(svg)
    return float(found.group(2)), float(found.group(3))


def layout_width(width_pt: float, font_size_pt: float) -> int:
    """The width in pixels a chart is laid out at for print: the column's, as many times wider as BASE_SIZE px
    words are larger than font_size_pt."""
    return round(width_pt * BASE_SIZE / font_size_pt)


def scale_for(svg: str, width_pt: float, laid_out: int) -> float:
    """How much the drawing is scaled for print: a chart laid out `laid_out` px wide to the column's width (its words
    of BASE_SIZE px to about font_size_pt), and one wider than that to the column too."""
    width, _ = svg_size(svg)
    return width_pt / max(width, laid_out)


def sized(svg: str, width: float, height: float, unit: str = "") -> str:
    """The SVG with its outer size `width` x `height` (in `unit`), its viewBox (what it draws) as it was."""
    return SIZE.sub(lambda m: f'{m.group(1)} width="{width:.2f}{unit}" height="{height:.2f}{unit}"', svg, count=1)


REFERENCE = re.compile(rb"^ +/[A-Za-z0-9]+ \d+ 0 R$")


def canonical_pdf(pdf: bytes) -> bytes:
    """svg2pdf's PDF with the entries of its resource dictionaries (one `/name N 0 R` a line) in one order: it writes
    them in an order that changes from run to run. Lines trade places within their dictionary, so every object keeps
    its length and the cross-reference table its offsets."""
    lines, out, run = pdf.split(b"\n"), [], []
    for line in lines:
        if REFERENCE.match(line):
            run.append(line)
            continue
        out += sorted(run)
        run = []
        out.append(line)
    return b"\n".join(out + sorted(run))


# ---------------------------------------------------------------------------------------------- the contact sheet

PAGE = (595.28, 841.89)  # A4, in points
MARGIN = 42.5  # 15 mm
SHEET_SIZE = 9  # the header's words, in points


def sheet_header(lines: list[str], family: str) -> tuple[str, float]:
    """The top of one page of the contact sheet as SVG, a point a unit: `lines` (the figure's number and title, its
    label, its data's checksum), wrapped to the page; and where below them the figure may start, in points."""
    per_line = int((PAGE[0] - 2 * MARGIN) / (SHEET_SIZE * EM))
    lines = [part for line in lines for part in textwrap.wrap(line, per_line, break_long_words=True)]
    words = "".join(f'<text x="{MARGIN}" y="{MARGIN + SHEET_SIZE * (1 + 1.5 * i):.2f}">{escape(line)}</text>'
                    for i, line in enumerate(lines))
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{PAGE[0]}" height="{PAGE[1]}" '
           f'viewBox="0 0 {PAGE[0]} {PAGE[1]}"><rect width="{PAGE[0]}" height="{PAGE[1]}" fill="white"/>'
           f'<g font-family="{escape(family)}" font-size="{SHEET_SIZE}" fill="#000">{words}</g></svg>')
    return svg, MARGIN + SHEET_SIZE * 1.5 * len(lines) + SHEET_SIZE


def placement(figure_size: tuple[float, float], top: float):
    """Where a figure's PDF page (`figure_size`, in points) goes on a contact sheet's page whose header ends at `top`:
    pypdf's Transformation, at its printed size or smaller where it would not fit the page."""
    from pypdf import Transformation

    width, height = figure_size
    fit = min(1.0, (PAGE[0] - 2 * MARGIN) / width, (PAGE[1] - top - MARGIN) / height)
    # A PDF page counts from its bottom left corner.
    return Transformation().scale(fit, fit).translate(MARGIN, PAGE[1] - top - height * fit)


def contact_sheet(pages: list[tuple[list[str], bytes]], font: str, family: str) -> bytes:
    """print/figures.pdf: one page a figure (`pages`: each its header's lines and its print PDF), its header in the
    config's font (a PDF of vl-convert's svg2pdf), the figure's own PDF page laid over it by pypdf (as it is, not
    drawn again: its vectors and fonts are the figure file's), with no date or id."""
    import io

    import vl_convert
    from pypdf import PdfReader, PdfWriter

    register_font(vl_convert, font)
    writer = PdfWriter()
    for lines, pdf in pages:
        header, top = sheet_header(lines, family)
        page = writer.add_page(PdfReader(io.BytesIO(canonical_pdf(vl_convert.svg_to_pdf(header)))).pages[0])
        figure = PdfReader(io.BytesIO(pdf)).pages[0]
        size = (float(figure.mediabox.width), float(figure.mediabox.height))
        page.merge_transformed_page(figure, placement(size, top))
    writer.add_metadata({"/Producer": "build.py (vl-convert, pypdf)", "/Title": "The figures, one a page"})
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


# ---------------------------------------------------------------------------------------------- in greys

HEX = re.compile(r"#[0-9A-Fa-f]{3,8}\b")


def in_greys(spec: dict) -> dict:
    """The spec with each meaning's colour its grey (figures.toolkit.colours.GREYS), wherever it is spelt (a mark's
    colour, a scale's range, an expression's string), the sequential scale in greys, and the key to what is out of
    reach naming its hatch."""
    from figures.toolkit.colours import GREY_SCHEME, GREYS, MASKED_KEY, MASKED_KEY_IN_GREYS, SEQUENTIAL

    greys = {colour.lower(): grey for colour, grey in GREYS.items()}
    text = json.dumps(spec, ensure_ascii=False)
    text = HEX.sub(lambda found: greys.get(found.group().lower(), found.group()), text)
    text = text.replace(f'"scheme": "{SEQUENTIAL}"', f'"scheme": "{GREY_SCHEME}"')
    text = text.replace(MASKED_KEY, MASKED_KEY_IN_GREYS)  # drawn hatched (sitegen.site.vector_pictures)
    return json.loads(text)
