"""The print edition's pictures as vectors (sitegen.site.vector_pictures): a PNG picture in a drawing's SVG redrawn
as rectangles that cover exactly its pixels, in its colours (or print's greys), and nothing else changed. The
rectangles are checked by painting them back into pixels here and comparing with the picture's own pixels."""

from __future__ import annotations

import base64
import random
import re

import pytest

from figures.picture import png, stops_colour, viridis
from figures.toolkit.colours import MASKED
from sitegen.site.vector_pictures import GREYS_STOPS, HATCH_ID, vector_pictures

PALETTE = [(0, 0, 0), tuple(int(MASKED[i : i + 2], 16) for i in (1, 3, 5)), viridis(0.0), viridis(0.5), viridis(1.0)]
RECT = re.compile(r'<rect x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)" fill="([^"]+)"/>')


def picture(rows: list[list[int]], pixels: int = 1) -> str:
    """An SVG holding the rows (palette indices; 0 transparent) as a palette PNG, each index `pixels` x `pixels`."""
    wide = [bytes(i for i in row for _ in range(pixels)) for row in rows]
    raw = b"".join(b"\x00" + row for row in wide for _ in range(pixels))
    data = base64.b64encode(png(len(wide[0]), len(wide) * pixels, raw, PALETTE)).decode()
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="100" height="80"><g><image xlink:href="data:image/png;'
        f'base64,{data}" transform="translate(3,4)" width="50" height="40" preserveAspectRatio="none"/></g></svg>'
    )


def painted(svg: str, width: int, height: int) -> list[list[str | None]]:
    """The rectangles of the SVG painted into a width x height grid of fills (None where none is)."""
    grid = [[None] * width for _ in range(height)]
    for x, y, w, h, fill in RECT.findall(svg):
        for row in range(int(y), int(y) + int(h)):
            for column in range(int(x), int(x) + int(w)):
                assert grid[row][column] is None, "two rectangles over one pixel"
                grid[row][column] = fill
    return grid


def hex_of(rgb) -> str:
    return "#" + "".join(f"{c:02x}" for c in rgb)


@pytest.mark.parametrize("pixels", [1, 3])
def test_the_rectangles_cover_every_pixel_of_the_picture_in_its_colour_and_no_transparent_one(pixels):
    chance = random.Random(7)
    rows = [[chance.choice([0, 1, 2, 3, 4, 4]) for _ in range(9)] for _ in range(6)]
    svg = vector_pictures(picture(rows, pixels))
    assert "<image" not in svg
    grid = painted(svg, 9 * pixels, 6 * pixels)
    for y, row in enumerate(rows):
        for x, index in enumerate(row):
            want = None if index == 0 else hex_of(PALETTE[index])
            assert {grid[y * pixels + dy][x * pixels + dx] for dy in range(pixels) for dx in range(pixels)} == {want}


def test_a_cell_of_many_pixels_is_one_rectangle():
    svg = vector_pictures(picture([[2, 3], [4, 1]], pixels=5))
    assert len(RECT.findall(svg)) == 4


def test_the_rectangles_are_drawn_where_the_picture_was_at_its_size():
    svg = vector_pictures(picture([[2, 3], [4, 1]], pixels=5))  # 10 x 10 pixels shown 50 x 40
    assert '<g transform="translate(3,4) scale(5,4)"' in svg


def test_in_greys_the_scale_s_colours_are_its_greys_and_out_of_reach_is_hatched():
    svg = vector_pictures(picture([[1, 2, 3, 4]]), greys=True)
    fills = [fill for *_, fill in RECT.findall(svg)]
    assert fills == [f"url(#{HATCH_ID})"] + [hex_of(stops_colour(GREYS_STOPS, t)) for t in (0.0, 0.5, 1.0)]
    assert svg.count(f'<pattern id="{HATCH_ID}"') == 1


def test_in_greys_a_mark_out_of_reach_is_hatched_too_and_other_colours_stay():
    svg = f'<svg width="1" height="1"><path fill="{MASKED.upper()}"/><path fill="#123456"/></svg>'
    out = vector_pictures(svg, greys=True)
    assert f'fill="url(#{HATCH_ID})"' in out and 'fill="#123456"' in out and f'<pattern id="{HATCH_ID}"' in out


def test_in_colour_a_drawing_without_a_picture_is_unchanged():
    svg = f'<svg width="1" height="1"><path fill="{MASKED}"/></svg>'
    assert vector_pictures(svg) == svg
    assert vector_pictures(svg.replace(MASKED, "#123456"), greys=True) == svg.replace(MASKED, "#123456")


def test_a_png_that_is_not_a_palette_picture_is_left_as_it_is():
    other = base64.b64encode(
        b"\x89PNG\r\n\x1a\n"
        + b"\x00\x00\x00\x0dIHDR"
        + b"\x00\x00\x00\x01" * 2
        + bytes([8, 2, 0, 0, 0])
        + b"\x00" * 4
        + b"\x00\x00\x00\x00IEND\xaeB`\x82"
    ).decode()
    svg = f'<svg><image xlink:href="data:image/png;base64,{other}" width="1" height="1"/></svg>'
    assert vector_pictures(svg) == svg
