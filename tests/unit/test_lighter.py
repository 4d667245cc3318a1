"""A page's drawing made light (sitegen.site.lighter): the same picture in fewer bytes, its words still vectors."""

from __future__ import annotations

import io
import re

import pytest
import vl_convert
from PIL import Image

from sitegen.site.drawing import fixed_width, vl_version
from sitegen.site.lighter import DENSE, PIXELS, lighter

WIDTH = 791  # head-roles' pattern in a desktop's column: 80 columns of 9.8875 px, edges at sums with odd last bits


def heatmap(rows: int, cols: int, colours: int, **mark) -> str:
    """vl-convert's SVG of a heatmap of rows x cols cells, WIDTH wide, its shares in `colours` steps of viridis."""
    cells = [
        {"q": q, "k": k, "s": (q * 7 + k * 13) % colours / (colours - 1)} for q in range(rows) for k in range(cols)
    ]
    spec = {
        "data": {"values": cells},
        "mark": {"type": "rect", **mark},
        "width": WIDTH,
        "height": 10 * rows,
        "encoding": {
            "x": {"field": "k", "type": "ordinal"},
            "y": {"field": "q", "type": "ordinal"},
            "color": {"field": "s", "type": "quantitative", "scale": {"scheme": "viridis"}},
            "tooltip": [{"field": "s"}],
        },
        "config": {"background": "transparent"},
    }
    return vl_convert.vegalite_to_svg(fixed_width(spec), vl_version=vl_version())


def pixels(svg: str) -> Image.Image:
    return Image.open(io.BytesIO(vl_convert.svg_to_png(svg, scale=PIXELS))).convert("RGBA")


def plot_box(svg: str, rows: int) -> tuple:
    """The cells' box in the drawing's pixels: the view's, where the drawing's padding puts it, WIDTH by 10 px a row."""
    x, y = (
        float(v) for v in re.search(r'<g fill="none"[^>]* transform="translate\(([0-9.]+),([0-9.]+)\)"', svg).groups()
    )
    return round(x * PIXELS), round(y * PIXELS), round((x + WIDTH) * PIXELS), round((y + 10 * rows) * PIXELS)


@pytest.mark.parametrize("colours", [40, 600], ids=["a palette", "more colours than a palette holds"])
def test_a_dense_grid_becomes_one_picture_that_looks_the_same_with_no_gap_between_its_cells(colours):
    svg = heatmap(40, 80, colours)  # 3,200 cells, as head-roles' pattern over 80 random tokens has
    light = lighter(svg)
    assert svg.count("<path") > DENSE > light.count("<path")
    assert light.count("<image") == 1 and len(light) < len(svg) / 5
    # Its words are still vectors: every axis label, as many as before.
    assert re.findall(r"<text[^>]*>([^<]*)</text>", light) == re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    before, after = pixels(svg), pixels(light)
    assert before.size == after.size
    # The same colour at every cell's middle; inside the cells' box no pixel left see-through (a gap where two cells'
    # rounded edges missed each other), as the marks cover it whole.
    left, top, right, bottom = plot_box(svg, 40)
    for q in range(40):
        for k in range(80):
            middle = (round(left + (k + 0.5) * (right - left) / 80), round(top + (q + 0.5) * (bottom - top) / 40))
            assert before.getpixel(middle) == after.getpixel(middle), (q, k)
    alpha = after.crop((left, top, right, bottom)).getchannel("A")
    assert alpha.getextrema() == (255, 255)


def test_every_word_for_screen_readers_goes_and_a_few_marks_stay_vectors():
    svg = heatmap(3, 4, 5)  # 12 cells: a bar chart's few marks, not a grid
    assert 'aria-label="' in svg and 'role="graphics-symbol"' in svg
    light = lighter(svg)
    assert not re.search(r'\s(aria-label|aria-roledescription|role)="', light)
    assert light.count("<path") == svg.count("<path") and "<image" not in light
    assert pixels(svg).tobytes() == pixels(light).tobytes()


def test_a_dense_grid_of_cells_with_an_outline_stays_vectors():
    """Only plain filled rectangles become a picture: an outline (or an opacity, a rounded corner) is drawn as it was
    rather than drawn otherwise."""
    light = lighter(heatmap(40, 80, 40, stroke="#ffffff", strokeWidth=0.5))
    assert "<image" not in light and light.count("<path") > DENSE
