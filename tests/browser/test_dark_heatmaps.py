"""The grids' colours as a reader sees them, in pixels (issue 44): every heatmap kind of tests/every_kind.toml drawn on
a dark page in Chromium, and head roles' grid on a light one too.

The chart's marks are found in Vega's scene (their data, and where they lie) and read back from a screenshot of the
page: a cell's pixel, a legend's swatch or gradient, what is out of reach. On a dark page every cell of a share is a
colour its legend shows (no cell faded into a colour of its own), what is out of reach is darker than every cell of a
share and than the legend's darkest, and the chart says in words what it is; a diverging scale passes through the
page's own background and is brightest at its ends (no white glare in its middle). Head roles' legend swatches are
the pixels of the squares drawn in their colours, light and dark; with one habit chosen, the key above the chart
says how that colouring reads, and the grid stays where it was, its legend right above it.
"""

from __future__ import annotations

import io
import re

import pytest

from figures.roles import ROLES, Roles
from figures.toolkit.colours import MASKED_KEY, MASKED_KEY_IN_DARK, ROLE_COLOURS

from .browsing import Opener, chart_texts, choose_in_select, wait_for_signal

Image = pytest.importorskip("PIL.Image")

TALL = {"width": 1280, "height": 3200}  # every chart of a figure in one screen: its pixels read from one screenshot
# Each heatmap kind's figure in tests/every_kind.toml, and what tells a cell of a share from its chart's other marks:
# the field of its datum that the colour shows.
HEATMAPS = {
    "heads": ("grid", "s"),
    "head-roles": ("habits", "s"),
    "lens": ("ice-lens", "p"),
    "compare": ("warm-or-hot", "distance"),
    "scores": ("fit", "v"),
    "patching": ("put-back", "v"),
}
DIVERGING = ("scores", "patching")
REACH = ("heads", "head-roles")  # the kinds whose patterns have cells out of reach
NEAR = 6  # per channel: a cell's pixel this close to a legend's pixel is that colour (antialiasing, rounding)

# Every mark of the chart in Vega's scene, with where the page draws it (px, the document's top left at 0, 0: the box of
# its SVG element): its role ("mark", "legend-symbol", "legend-gradient"...), its data, its fill, how opaque its fill
# is (0: not seen), and whether it is an outline (a frame: a stroke with no fill at all, not a transparent one).
SCENE = """el => {
  const out = [];
  function walk(mark) {
    (mark.items || []).forEach(item => {
      if (mark.marktype === 'group') { (item.items || []).forEach(walk); return; }
      const box = item._svg && item._svg.getBoundingClientRect();
      if (!box || box.width <= 0 || box.height <= 0) return;
      out.push({role: mark.role, type: mark.marktype, name: mark.name || '',
        datum: item.datum && typeof item.datum === 'object' ? Object.fromEntries(Object.entries(item.datum).filter(
          e => ['string', 'number', 'boolean'].includes(typeof e[1]))) : null,
        fill: typeof item.fill === 'string' ? item.fill : null,
        opacity: (item.opacity === undefined ? 1 : item.opacity) * (item.fillOpacity === undefined ? 1 : item.fillOpacity),
        outline: !!item.stroke && item.strokeWidth !== 0 && item.fill == null,
        x1: box.left + scrollX, y1: box.top + scrollY, x2: box.right + scrollX, y2: box.bottom + scrollY});
    });
  }
  walk(el.vegaView.scenegraph().root);
  return out;
}"""
PAGE_BACKGROUND = "() => getComputedStyle(document.documentElement).backgroundColor"


def screenshot(page):
    """The whole page as the reader sees it, as an RGB picture."""
    return Image.open(io.BytesIO(page.screenshot(full_page=True))).convert("RGB")


def pixel(picture, item: dict, at: tuple = (0.5, 0.5)) -> tuple:
    """The colour of the picture at a point of a mark's box (`at`: the fraction of its width and height)."""
    x = item["x1"] + (item["x2"] - item["x1"]) * at[0]
    y = item["y1"] + (item["y2"] - item["y1"]) * at[1]
    return picture.getpixel((int(x), int(y)))


def fill_of(picture, item: dict) -> tuple:
    """The colour a mark is filled with as drawn: the commonest of five points of its box, its middle and four near
    its corners (words written in a cell, the lens's, cover its middle only)."""
    seen = [pixel(picture, item, at) for at in ((0.5, 0.5), (0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75))]
    return max(seen, key=seen.count)


def luminance(rgb: tuple) -> float:
    """WCAG's relative luminance of an sRGB colour."""
    linear = [c / 255 / 12.92 if c <= 10 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def near(a: tuple, b: tuple, by: int = NEAR) -> bool:
    return max(abs(x - y) for x, y in zip(a, b)) <= by


def cells(scene: list, field: str) -> list:
    """The marks that draw a share (or a number) in a scale's colour: rects whose data carry `field`, filled by a
    scale (Vega writes its colours as rgb(...), a colour given as such as it is spelt: a bar of the data's blue), and
    that no outline overlaps (the chosen row's frame, the copies outlined in head roles' pattern)."""
    lines = [item for item in scene if item["outline"]]
    return [
        item
        for item in scene
        if item["type"] == "rect"
        and item["role"] == "mark"
        and item["datum"]
        and field in item["datum"]
        and (item["fill"] or "").startswith("rgb")
        and item["opacity"] > 0
        and item["x2"] - item["x1"] >= 4
        and item["y2"] - item["y1"] >= 4
        and not any(overlap(item, line) for line in lines)
    ]


def overlap(a: dict, b: dict, by: float = 2) -> bool:
    """Whether two boxes overlap, or come within `by` px of each other (a line's width, its antialiasing)."""
    return a["x1"] < b["x2"] + by and b["x1"] < a["x2"] + by and a["y1"] < b["y2"] + by and b["y1"] < a["y2"] + by


def legend_colours(picture, scene: list) -> list:
    """Every colour the chart's legends show: their swatches' middles, and their gradients' every pixel along."""
    swatches = [pixel(picture, item) for item in scene if item["role"] == "legend-symbol" and item["opacity"] > 0]
    return swatches + [colour for gradient in gradients(picture, scene) for colour in gradient]


def gradients(picture, scene: list) -> list:
    """Each legend gradient's pixels, a pixel inside either end, one per pixel from one end to the other."""
    out = []
    for item in scene:
        if item["role"] == "legend-gradient" and item["opacity"] > 0:
            along = item["x2"] - item["x1"] > item["y2"] - item["y1"]
            start, end = (item["x1"], item["x2"]) if along else (item["y1"], item["y2"])
            middle = (item["y1"] + item["y2"]) / 2 if along else (item["x1"] + item["x2"]) / 2
            steps = range(int(start) + 1, int(end) - 1)
            out.append([picture.getpixel((at, int(middle)) if along else (int(middle), at)) for at in steps])
    return out


@pytest.fixture(scope="module")
def opener(browser, every_kind_site):
    opener = Opener(browser, every_kind_site)
    yield opener
    opener.close()


def drawn(opener, kind: str, scheme: str, address: str = ""):
    """The kind's figure page, open in the scheme: (visit, the chart's scene, the page's screenshot)."""
    label, _ = HEATMAPS[kind]
    visit = opener.open(f"figure-{label}.html{address}", context=opener.context(viewport=TALL, color_scheme=scheme))
    page = visit.page
    page.wait_for_timeout(200)  # the last data loaded on demand drawn
    scene = page.eval_on_selector(f"#chart-{label}", SCENE)
    return visit, scene, screenshot(page)


@pytest.mark.parametrize("kind", sorted(HEATMAPS))
def test_on_a_dark_page_every_cell_is_a_colour_its_legend_shows(opener, kind):
    visit, scene, picture = drawn(opener, kind, "dark")
    shown = legend_colours(picture, scene)
    drawn_cells = cells(scene, HEATMAPS[kind][1])
    assert len(drawn_cells) >= 3 and len(shown) >= 50, (len(drawn_cells), len(shown))
    strays = {fill_of(picture, cell) for cell in drawn_cells if not any(near(fill_of(picture, cell), c) for c in shown)}
    assert not strays, f"{kind}: cells in colours no legend shows on a dark page: {sorted(strays)[:8]}"
    visit.assert_clean()


def out_of_reach_points(kind: str, scene: list) -> list:
    """Points of the page that are out of reach: in each pattern, the middle of the cell of the first row and the
    last column (a token cannot see the tokens after it), worked out from the cells of the first column and last
    row; in the heads grid's picture, the top right corner of each square."""
    points = []
    patterns = {}
    for cell in cells(scene, "s"):
        if "q" in cell["datum"] and "k" in cell["datum"]:
            patterns.setdefault(cell["name"], []).append(cell)
    for found in patterns.values():
        first_row = min(found, key=lambda cell: (cell["datum"]["q"], cell["datum"]["k"]))
        last_column = max(found, key=lambda cell: (cell["datum"]["k"], cell["datum"]["q"]))
        if last_column["datum"]["k"] > first_row["datum"]["q"]:
            points.append(((last_column["x1"] + last_column["x2"]) / 2, (first_row["y1"] + first_row["y2"]) / 2))
    if kind == "heads":
        squares = [item for item in scene if item["datum"] and {"l", "h", "gx"} <= set(item["datum"])]
        points += [
            (item["x1"] + 0.9 * (item["x2"] - item["x1"]), item["y1"] + 0.1 * (item["y2"] - item["y1"]))
            for item in squares
        ]
    return points


@pytest.mark.parametrize("kind", REACH)
def test_on_a_dark_page_what_is_out_of_reach_is_darker_than_any_share_and_the_chart_says_so(opener, kind):
    visit, scene, picture = drawn(opener, kind, "dark")
    reach = [picture.getpixel((int(x), int(y))) for x, y in out_of_reach_points(kind, scene)]
    data = [fill_of(picture, cell) for cell in cells(scene, "s")]
    if kind == "heads":  # the grid's picture: the bottom left corner of each square, a share
        data += [
            pixel(picture, item, (0.1, 0.9))
            for item in scene
            if item["datum"] and {"l", "h", "gx"} <= set(item["datum"])
        ]
    darkest = min(luminance(c) for gradient in gradients(picture, scene) for c in gradient)
    assert reach and data, (len(reach), len(data))
    assert max(luminance(c) for c in reach) < min(min(luminance(c) for c in data), darkest), (
        sorted(set(reach))[:5],
        min(data, key=luminance),
    )
    words = " ".join(chart_texts(visit.page, HEATMAPS[kind][0]))
    assert MASKED_KEY_IN_DARK in words and MASKED_KEY not in words.replace(MASKED_KEY_IN_DARK, ""), words[:300]
    visit.assert_clean()


@pytest.mark.parametrize("kind", DIVERGING)
def test_on_a_dark_page_a_diverging_scale_is_centred_on_the_pages_background_with_no_glare(opener, kind):
    visit, scene, picture = drawn(opener, kind, "dark")
    background = tuple(int(c) for c in re.findall(r"\d+", visit.page.evaluate(PAGE_BACKGROUND))[:3])
    (gradient,) = gradients(picture, scene)
    assert any(near(c, background, 3) for c in gradient), (background, gradient[::10])
    brightest = max(luminance(c) for c in gradient)
    assert brightest <= max(luminance(gradient[0]), luminance(gradient[-1])) + 1e-3, (gradient[0], gradient[-1])
    assert luminance(background) < 0.02  # a dark page's: the test could tell a white middle from it
    visit.assert_clean()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_head_roles_legend_swatches_are_the_pixels_of_the_squares_in_their_colours(opener, scheme):
    visit, scene, picture = drawn(opener, "head-roles", scheme)
    habits = {name for name, _ in ROLES.values()}
    swatches = {
        item["datum"]["value"]: pixel(picture, item)
        for item in scene
        if item["role"] == "legend-symbol"
        and item["opacity"] > 0
        and item["datum"]
        and item["datum"].get("value") in habits
    }
    squares = [
        item
        for item in scene
        if item["role"] == "mark"
        and item["datum"]
        and item["datum"].get("best")
        and item["fill"] in {colour.lower() for colour in ROLE_COLOURS.values()}
    ]
    assert set(swatches) == habits, swatches
    assert squares, "no square of the grid found"
    wrong = [
        (item["datum"]["name"], fill_of(picture, item), swatches[item["datum"]["name"]])
        for item in squares
        if not near(fill_of(picture, item), swatches[item["datum"]["name"]], 2)
    ]
    assert not wrong, wrong
    visit.assert_clean()


def top_of_grid(visit) -> tuple:
    """The grid's top (the highest square), and the bottom of the legend shown above it, in px."""
    scene = visit.page.eval_on_selector("#chart-habits", SCENE)
    squares = [
        item
        for item in scene
        if item["role"] == "mark"
        and item["datum"]
        and "best" in item["datum"]
        and item["opacity"] > 0
        and item["fill"] not in (None, "transparent")
    ]
    legend = [item for item in scene if item["role"] in ("legend-symbol", "legend-label") and item["opacity"] > 0]
    grid_top = min(item["y1"] for item in squares)
    return grid_top, max(item["y2"] for item in legend if item["y2"] <= grid_top)


def test_head_roles_colouring_by_one_habit_changes_the_keys_words_and_opens_no_gap_above_the_grid(opener):
    visit = opener.open("figure-habits.html", context=opener.context(viewport=TALL))
    page = visit.page
    assert page.text_content("#key-habits").strip() == Roles.KEY
    before = top_of_grid(visit)
    choose_in_select(page, "habits", "show", "first")
    wait_for_signal(page, "habits", "show", "first")
    page.wait_for_timeout(100)
    assert page.text_content("#key-habits").strip() == Roles.KEY_ONE
    after = top_of_grid(visit)
    assert abs(after[0] - before[0]) < 1, (before, after)  # the grid did not move
    assert after[0] - after[1] < 10 and before[0] - before[1] < 10, (before, after)  # its legend right above it
    choose_in_select(page, "habits", "show", "strongest")
    wait_for_signal(page, "habits", "show", "strongest")
    assert page.text_content("#key-habits").strip() == Roles.KEY
    visit.assert_clean()
