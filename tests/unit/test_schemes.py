"""A chart as a dark page draws it (sitegen.site.schemes): the colours that are the page's own (colours.IN_DARK) put
in wherever the chart spells them, and in the heads grid's picture, the key to what is out of reach saying what it is
in the dark, the chart's data and every other colour left as they are; and the build's dark chart and dark first
drawing made from it (sitegen.site.drawing)."""

from __future__ import annotations

import base64
import json

import pytest
import vl_convert

from sitegen.site.drawing import Drawer, differences, vl_version
from sitegen.site.render import CHART_THEMES
from sitegen.site.schemes import PALETTE, in_dark, rgb
from sitegen.site.vector_pictures import decoded
from figures.picture import png, repaletted
from figures.toolkit import colours

DARK = colours.IN_DARK
GRID = {
    "data": {"values": [{"k": "a", "s": 0.5, "token": colours.MASKED}]},
    "layer": [
        {"mark": {"type": "rect", "color": colours.MASKED}},
        {
            "mark": "rect",
            "encoding": {
                "color": {
                    "field": "s",
                    "type": "quantitative",
                    "scale": {"domainMid": 0, "range": [colours.HURTS, colours.ZERO, colours.HELPS]},
                }
            },
        },
        {"mark": {"type": "rect", "color": colours.OUT_OF_REACH.upper()}},
        {
            "mark": "text",
            "encoding": {
                "text": {"value": f"{colours.MASKED_KEY} (a token cannot see)"},
                "color": {"condition": {"test": "datum.s > 0", "value": colours.ZERO}, "value": colours.DATA},
            },
        },
    ],
    "params": [{"name": "tint", "expr": f"width > 0 ? '{colours.MASKED}' : '{colours.CHOSEN}'"}],
}


def picture(palette: list) -> str:
    """A 2 x 1 palette PNG as a data URL: index 0 transparent, 1 and 2 the palette's next colours."""
    return "data:image/png;base64," + base64.b64encode(png(2, 1, b"\x00\x01\x02", palette)).decode("ascii")


def test_a_dark_page_draws_out_of_reach_black_and_a_diverging_scales_middle_in_its_own_background():
    dark = in_dark(GRID)
    assert dark["layer"][0]["mark"]["color"] == DARK[colours.MASKED] == "#000000"
    assert dark["layer"][1]["encoding"]["color"]["scale"]["range"] == [
        colours.HURTS,
        colours.PAPER["dark"],
        colours.HELPS,
    ]
    assert dark["layer"][2]["mark"]["color"] == DARK[colours.OUT_OF_REACH]  # spelt in capitals: the same colour
    text = dark["layer"][3]["encoding"]
    assert text["text"]["value"] == f"{colours.MASKED_KEY_IN_DARK} (a token cannot see)"
    assert text["color"]["condition"]["value"] == colours.PAPER["dark"] and text["color"]["value"] == colours.DATA
    assert dark["params"][0]["expr"] == f"width > 0 ? '#000000' : '{colours.CHOSEN}'"  # in an expression too
    assert dark["data"] == GRID["data"]  # a token spelt like a colour is the reader's text
    assert GRID["layer"][0]["mark"]["color"] == colours.MASKED  # the light spec is left as it was


def test_a_picture_in_the_dark_has_its_palette_changed_and_its_pixels_kept():
    light = [(0, 0, 0), rgb(colours.MASKED), (68, 1, 84)]
    url = picture(light)
    dark = in_dark({"mark": {"type": "image", "url": url}})["mark"]["url"]
    width, height, palette, clear, rows = decoded(base64.b64decode(dark.split(",", 1)[1]))
    assert palette == [(0, 0, 0), (0, 0, 0), (68, 1, 84)] and clear == {0}
    assert (width, height) == (2, 1) and rows == decoded(base64.b64decode(url.split(",", 1)[1]))[4] == [b"\x01\x02"]
    assert PALETTE == {rgb(colours.MASKED): rgb(DARK[colours.MASKED]), rgb(colours.ZERO): rgb(colours.PAPER["dark"])}


def test_a_png_that_is_not_a_palette_png_of_ours_comes_back_as_it_was():
    assert repaletted(b"not a png", PALETTE) == b"not a png"
    url = picture([(0, 0, 0), (1, 2, 3), (4, 5, 6)])
    assert in_dark(url) == url  # no colour of its palette is one a dark page draws otherwise


def test_rgb_reads_short_and_long_colours():
    assert rgb("#ddd") == (221, 221, 221) and rgb("#1b6ca8") == (27, 108, 168)


@pytest.fixture
def drawer():
    with Drawer() as drawer:
        yield drawer


def test_the_builds_dark_chart_and_dark_drawing_are_made_from_the_dark_pages_spec(drawer):
    """The page's changes for a dark page put in the dark page's own colours as well as the dark theme's, and a dark
    first drawing draws them; the light chart keeps its own."""
    vega, changes = (json.loads(raw) for raw in drawer.compiled(GRID, CHART_THEMES).result(timeout=120))
    expected = vl_convert.vegalite_to_vega({**in_dark(GRID), "config": CHART_THEMES["dark"]}, vl_version=vl_version())
    light = vl_convert.vegalite_to_vega({**GRID, "config": CHART_THEMES["light"]}, vl_version=vl_version())
    assert vega == light and changes == differences(light, expected)
    assert colours.PAPER["dark"] in json.dumps(changes) and colours.MASKED not in json.dumps(expected["marks"])
    (svg,) = drawer.drawings(GRID, CHART_THEMES["dark"], png=False, dark=True).result(timeout=120)
    (plain,) = drawer.drawings(GRID, CHART_THEMES["dark"], png=False).result(timeout=120)
    assert 'fill="#000000"' in svg.decode("utf-8") and f'fill="{colours.MASKED}"' in plain.decode("utf-8")
