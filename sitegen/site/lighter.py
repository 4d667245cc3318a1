"""A page's drawings made light (sitegen.site.drawing): what a page shows until its live chart is drawn must come at
once, and a browser reads, lays out and paints every element of an SVG before it shows any of it.

Two things make vl-convert's SVG heavy, and neither is seen:

- the words for screen readers of every mark (aria-label, role, aria-roledescription): an SVG shown as an image
  has no marks a screen reader reaches, and the page names the image by the chart's description instead;
- a dense grid of cells (head-roles' pattern over 80 random tokens: 3,240 cells, 550 KB): its cells become one
  picture, drawn here PIXELS times finer than the page's px (sharp on a phone's screen), while every word of the
  drawing stays a vector. A picture of the grid's own colours, a pixel block per cell as Vega places it, is
  a few KB where its cells as marks were hundreds.
"""

from __future__ import annotations

import base64
import math
import re

from figures.picture import png, truecolour_png

DENSE = 300  # a group of more rectangles than this is drawn as a picture: a heatmap's, not a bar chart's
PIXELS = 2  # the picture's pixels per px of the page: a phone's screen (2 or 3 per px) keeps the cells' edges
UNSEEN = re.compile(r' (?:aria-label|aria-roledescription|role)="[^"]*"')
GROUP = re.compile(r'(<g class="mark-rect role-mark[^"]*"[^>]*>)((?:<path [^>]*/>)+)(</g>)')
NUMBER = r"(-?[0-9.]+(?:e-?[0-9]+)?)"
# A rectangle as Vega writes it: a path from its corner, along its width, down its height and back; filled, no more.
RECTANGLE = re.compile(rf'<path d="M{NUMBER},{NUMBER}h{NUMBER}v{NUMBER}h-?[0-9.e-]+Z" fill="([^"]+)"/>')
RGB = re.compile(r"rgb\((\d+), ?(\d+), ?(\d+)\)")


def lighter(svg: str) -> str:
    """A page's drawing with the same look and fewer bytes: no words for screen readers in it, each dense grid of
    rectangles one picture."""
    return GROUP.sub(_as_picture, UNSEEN.sub("", svg))


def colour(fill: str) -> tuple | None:
    """A fill as (r, g, b): "#rrggbb", "#rgb" or "rgb(r, g, b)" (what Vega writes); None for anything else (a name,
    a gradient, none)."""
    if found := RGB.fullmatch(fill):
        return tuple(int(c) for c in found.groups())
    if re.fullmatch(r"#[0-9a-fA-F]{6}", fill):
        return tuple(int(fill[i:i + 2], 16) for i in (1, 3, 5))
    if re.fullmatch(r"#[0-9a-fA-F]{3}", fill):
        return tuple(int(c * 2, 16) for c in fill[1:])
    return None


def rectangles(body: str) -> list | None:
    """A group's marks as (left, top, right, bottom in the picture's pixels, (r, g, b)), in drawing order; None
    where any mark is not a plain filled rectangle (a stroke, an opacity, a rounded corner: drawn as it was)."""
    found = RECTANGLE.findall(body)
    if len(found) != body.count("<path "):
        return None
    out = []
    for x, y, w, h, fill in found:
        rgb = colour(fill)
        if rgb is None:
            return None
        x, y, w, h = (float(v) for v in (x, y, w, h))
        left, right = sorted((edge(x), edge(x + w)))
        top, bottom = sorted((edge(y), edge(y + h)))
        out.append((left, top, right, bottom, rgb))
    return out


def edge(px: float) -> int:
    """A rectangle's edge in the picture's pixels, the nearest one. Vega places a band's cells one after the other,
    one's edge at the sum of the one before's: both are rounded alike from the same few digits, so that no pixel
    is left out between two cells (or given to both) where the sum's last bits differ."""
    return math.floor(round(px * PIXELS, 3) + 0.5)


def _as_picture(group: re.Match) -> str:
    """One mark group, as it was or, where it is a dense grid of plain rectangles, as one <image> in its place."""
    rects = None if group.group(2).count("<path ") <= DENSE else rectangles(group.group(2))
    if not rects:
        return group.group(0)
    return group.group(1) + picture(rects) + group.group(3)


def picture(rects: list) -> str:
    """Rectangles (as `rectangles` gives them) as an SVG <image> of a PNG data URL, placed and sized in px: a palette
    PNG where the colours are few enough (up to 255; 0 is transparent), else one of 8-bit RGBA."""
    x0, y0 = min(r[0] for r in rects), min(r[1] for r in rects)
    width, height = max(r[2] for r in rects) - x0, max(r[3] for r in rects) - y0
    colours = list(dict.fromkeys(r[4] for r in rects))
    few = len(colours) < 256
    # Each colour's pixel: its palette index, or its RGBA; a pixel no rectangle covers stays 0, see-through.
    pixel = {rgb: bytes([i + 1]) if few else bytes([*rgb, 255]) for i, rgb in enumerate(colours)}
    size = 1 if few else 4
    rows = [bytearray(width * size) for _ in range(height)]
    for left, top, right, bottom, rgb in rects:  # in drawing order: a later one over an earlier
        run = pixel[rgb] * (right - left)
        for row in rows[top - y0:bottom - y0]:
            row[(left - x0) * size:(right - x0) * size] = run
    raw = filtered(rows)
    data = png(width, height, raw, [(0, 0, 0), *colours]) if few else truecolour_png(width, height, raw)
    return (f'<image x="{x0 / PIXELS:g}" y="{y0 / PIXELS:g}" width="{width / PIXELS:g}" height="{height / PIXELS:g}" '
            f'preserveAspectRatio="none" xlink:href="data:image/png;base64,{base64.b64encode(data).decode()}"/>')


def filtered(rows: list) -> bytes:
    """A picture's rows as a PNG's data: a row the same as the one above as PNG's filter "up" (all zeros, which
    compress to nearly nothing: a cell is many rows of one colour), any other as it is."""
    out, above = bytearray(), None
    for row in rows:
        out += b"\x02" + bytes(len(row)) if row == above else b"\x00" + row
        above = row
    return bytes(out)
