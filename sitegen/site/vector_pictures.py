"""The print edition's pictures as vectors: a chart's PNG picture (the heads grid's, figures.heads.grid_picture: one
picture in a page, as thousands of marks would take a browser seconds to draw) redrawn as rectangles in the print
drawing's SVG, so that the PDF made from it holds no pixels at all and prints sharp at any size.

In greys ([print] greyscale = true), a colour of the sequential scale (viridis) becomes the colour the grey scale
gives the same share (the legend beside it is drawn in greys too: sitegen.site.printing.in_greys), and what is out
of reach (colours.MASKED) is hatched: no grey of the scale can be taken for it once printed in black ink.
"""

from __future__ import annotations

import base64
import functools
import re
import struct
import zlib

from figures.picture import VIRIDIS_STOPS, stops_colour
from figures.toolkit.colours import MASKED

# Vega's "greys" scheme (vega-scale), interpolated as its viridis is: the sequential scale in print's greys.
GREYS_STOPS = "e2e2e2d4d4d4c4c4c4b1b1b19d9d9d8888887575756262624d4d4d3535351e1e1e"
NEAR = 3  # a palette colour this close (each channel) to the sequential scale's at some share is that share's
HATCH_ID = "out-of-reach"
# A hatch of dark lines on white: neither a grey of the scale nor white (a share of nothing) once printed.
HATCH = (f'<defs><pattern id="{HATCH_ID}" patternUnits="userSpaceOnUse" width="4" height="4">'
         '<rect width="4" height="4" fill="#ffffff"/>'
         '<path d="M-1,1 l2,-2 M0,4 l4,-4 M3,5 l2,-2" stroke="#000000" stroke-width="0.7"/></pattern></defs>')
IMAGE = re.compile(r'<image xlink:href="data:image/png;base64,([A-Za-z0-9+/=]+)"([^>]*?)/>')
ATTRIBUTE = re.compile(r'\b(transform|width|height)="([^"]*)"')


def decoded(png: bytes):
    """A palette PNG of 8 bits per pixel with unfiltered rows (as figures.picture.png writes them) as (width,
    height, palette [(r, g, b)], transparent indices, rows of indices); None for any other PNG."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    chunks, at = {}, 8
    while at < len(png):
        length, tag = struct.unpack(">I4s", png[at:at + 8])
        chunks[tag] = chunks.get(tag, b"") + png[at + 8:at + 8 + length]
        at += 12 + length
    width, height, depth, colour_type = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    if (depth, colour_type) != (8, 3):
        return None
    raw = zlib.decompress(chunks[b"IDAT"])
    rows = [raw[y * (width + 1) + 1:(y + 1) * (width + 1)] for y in range(height)]
    if any(raw[y * (width + 1)] != 0 for y in range(height)):
        return None  # a filtered row: not one of ours
    plte = chunks[b"PLTE"]
    palette = [tuple(plte[i:i + 3]) for i in range(0, len(plte), 3)]
    clear = {i for i, alpha in enumerate(chunks.get(b"tRNS", b"")) if alpha == 0}
    return width, height, palette, clear, rows


def rectangles(rows: list, clear: set) -> list:
    """The picture's pixels as rectangles (x, y, width, height, index): each row's runs of one index, a run
    carried down while the rows below repeat it (a cell of the grid is one rectangle); transparent ones left out."""
    done, open_runs = [], {}  # (x, end, index) -> top row
    for y, row in enumerate(rows + [b""]):
        runs, x = set(), 0
        while x < len(row):
            end = x
            while end < len(row) and row[end] == row[x]:
                end += 1
            if row[x] not in clear:
                runs.add((x, end, row[x]))
            x = end
        for run in [run for run in open_runs if run not in runs]:
            top = open_runs.pop(run)
            done.append((run[0], top, run[1] - run[0], y - top, run[2]))
        for run in runs - open_runs.keys():
            open_runs[run] = y
    return sorted(done, key=lambda rect: (rect[1], rect[0]))


def hex_of(rgb: tuple) -> str:
    return "#" + "".join(f"{c:02x}" for c in rgb)


def grey_of(rgb: tuple) -> str:
    """A picture's colour in print's greys: a colour of the sequential scale that scale's grey for the same share,
    out of reach the hatch, any other colour as it is."""
    if hex_of(rgb) == MASKED.lower():
        return f"url(#{HATCH_ID})"
    distance, share = min((max(abs(a - b) for a, b in zip(rgb, colour)), share) for share, colour in _scale())
    return hex_of(stops_colour(GREYS_STOPS, share)) if distance <= NEAR else hex_of(rgb)


@functools.cache
def _scale(levels: int = 1000) -> tuple:
    """The sequential scale's colours at `levels` + 1 shares: (share, (r, g, b))."""
    return tuple((i / levels, stops_colour(VIRIDIS_STOPS, i / levels)) for i in range(levels + 1))


def as_vectors(found: re.Match, greys: bool) -> str:
    """One <image> of the SVG as a group of rectangles drawn where the picture was (its transform, scaled from its
    pixels to its width and height); the <image> as it was where its PNG is not one of ours."""
    picture = decoded(base64.b64decode(found.group(1)))
    if picture is None:
        return found.group(0)
    width, height, palette, clear, rows = picture
    attributes = dict(ATTRIBUTE.findall(found.group(2)))
    scale = f"scale({float(attributes['width']) / width:.6g},{float(attributes['height']) / height:.6g})"
    fill = grey_of if greys else hex_of
    fills = {index: fill(colour) for index, colour in enumerate(palette)}
    rects = "".join(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{fills[index]}"/>'
                    for x, y, w, h, index in rectangles(rows, clear))
    return f'<g transform="{attributes.get("transform", "")} {scale}" shape-rendering="crispEdges">{rects}</g>'


def vector_pictures(svg: str, greys: bool = False) -> str:
    """The print drawing's SVG with each PNG picture drawn as rectangles (as_vectors); in greys, also every mark
    out of reach hatched (their colour is no grey of the scale), the hatch defined once at the drawing's top."""
    svg = IMAGE.sub(lambda found: as_vectors(found, greys), svg)
    if not greys:
        return svg
    svg = re.sub(rf'fill="{MASKED}"', f'fill="url(#{HATCH_ID})"', svg, flags=re.IGNORECASE)
    return re.sub(r"(<svg\b[^>]*>)", lambda top: top.group(1) + HATCH, svg, count=1) if HATCH_ID in svg else svg
