"""The words readers read in figure (i) and the comparison of two texts: what they say agrees with what is drawn,
and they say "after layer" where the code says "stage". On conftest's small seeded model (3 layers), where _France
is far from the top 3; the guides of every kind are read from the kinds themselves."""

from __future__ import annotations

import json
import re

import pytest

import figures
from conftest import built

TIRED = "The animal didn't cross the street because it was too tired"
WIDE = "The animal didn't cross the street because it was too wide"
MAYA = "Maya lives in Paris, the capital of"
N_LAYER = 3  # the small model's
CONFIG = f'''\
[[figure]]
kind = "readout"
label = "i"
text = "{MAYA}"
target = " France"

[[figure]]
kind = "compare"
label = "pair"
texts = ["{TIRED}", "{WIDE}"]

[[figure]]
kind = "compare"
label = "asked"
texts = ["{TIRED}", "{WIDE}"]
focus = 12

[[figure]]
kind = "lens"
label = "lens"
text = "A cat sat on the mat"
'''


@pytest.fixture(scope="module")
def site(small_model_dir, tmp_path_factory):
    return built(small_model_dir, CONFIG, tmp_path_factory.mktemp("reader-words"))


def spec(site, label: str) -> dict:
    return json.loads((site / "downloads" / f"figure-{label}.vega-lite.json").read_text(encoding="utf-8"))


def tables(site, label: str) -> dict:
    return json.loads((site / "downloads" / f"figure-{label}.json").read_text(encoding="utf-8"))["tables"]


def page(site, label: str) -> str:
    return (site / f"figure-{label}.html").read_text(encoding="utf-8").replace("&#39;", "'")


def printed(site, label: str) -> str:
    text = (site / "figures.txt").read_text(encoding="utf-8")
    return text[text.index(f"({label}) ") :].split("\n\n")[0]


def views(chart: dict) -> list:
    inner = chart.get("layer", []) + chart.get("vconcat", [])
    return [chart] + [view for part in inner for view in views(part)]


# ---------------------------------------------------------------------------------------------- figure (i)


def test_the_top_3_title_names_the_target_wherever_its_bar_is_drawn_below_them(site):
    """The upper chart draws the top 3 and, where it is not among them, the target: its title says so there."""
    chart = spec(site, "i")
    top = chart["datasets"]["top"]
    below = sorted({row["stage"] for row in top if row["target"] and row["rank"] > 3})
    assert below, "on the small model _France should be out of the top 3 somewhere"
    params = {p["name"]: p for p in chart["params"]}
    assert params["outside"]["value"] == below
    [title] = [view["title"]["text"]["expr"] for view in chart["vconcat"] if "The top 3" in str(view.get("title"))]
    assert "(indexof(outside, stage) >= 0 ? ', and _France' : '')" in title
    for stage in range(N_LAYER + 1):  # four bars exactly where the title names a fourth
        drawn = [row for row in top if row["stage"] == stage]
        assert len(drawn) == (4 if stage in below else 3)


def test_figure_i_says_after_layer_where_the_code_says_stage(site):
    chart = spec(site, "i")
    slider = next(p for p in chart["params"] if p["name"] == "stage")  # the address keeps its name
    assert slider["bind"]["name"].startswith("After layer")
    downloads = tables(site, "i")
    assert "stage" not in json.dumps(downloads) and all("after_layer" in row for row in downloads["line"])
    titles = [
        view["encoding"][c].get("title") for view in views(chart) for c in ("x", "y") if c in view.get("encoding", {})
    ]
    tips = [tip.get("title", "") for view in views(chart) for tip in view.get("encoding", {}).get("tooltip", [])]
    assert not [words for words in map(str, titles + tips) if "stage" in words], (titles, tips)


# ---------------------------------------------------------------------------------------------- the comparison


def test_the_guide_says_a_cell_that_reads_0_is_exactly_zero_and_the_chart_writes_0_there_only(site):
    assert "A cell that reads 0 is exactly zero" in page(site, "pair") and "blank" not in page(site, "pair")
    chart = spec(site, "pair")
    [zeros] = [view for view in views(chart) if view.get("encoding", {}).get("text") == {"value": "0"}]
    assert [step for step in zeros["transform"] if "filter" in step] == [{"filter": "datum.distance == 0"}]


def test_the_row_the_question_asks_about_is_marked_it_by_default_else_the_configs_focus(site):
    for label, row, token in (("pair", "9: _it", "_it"), ("asked", "12: _tired / _wide", "_tired")):
        axis = spec(site, label)["layer"][0]["encoding"]["y"]["axis"]
        assert f"datum.value == '{row}'" in axis["labelExpr"] and "\u25b6" in axis["labelExpr"]
        assert f"datum.value == '{row}'" in axis["labelFontWeight"]["expr"]
        assert f"does the word at the end change the numbers of {token}?" in page(site, label)
    assert "Not at all, in any layer: _it (token 9) comes before the words that differ." in page(site, "pair")
    assert "Yes: _tired (token 12) comes where the texts differ, or after." in page(site, "asked")


def test_the_comparison_says_after_layer_in_its_text_figure_and_downloads(site):
    text = printed(site, "pair")
    assert "after each layer (columns; 0: before any layer)" in text and "stage" not in text
    cells = tables(site, "pair")["cells"]
    assert "stage" not in json.dumps(cells) and {row["after_layer"] for row in cells} == set(range(N_LAYER + 1))


# ---------------------------------------------------------------------------------------------- every kind


@pytest.mark.parametrize("label", ["i", "pair", "lens"])
def test_no_download_names_a_column_stage_it_says_after_layer(site, label):
    """The data files count stages as the code does; a reader's download says "after_layer" (0: before any layer)."""
    found = tables(site, label)
    columns = {key for rows in found.values() for row in rows for key in row}
    assert "stage" not in columns and "after_layer" in columns, columns
    with open(site / "downloads" / f"figure-{label}-{next(iter(found))}.csv", encoding="utf-8") as csv_file:
        assert "stage" not in csv_file.readline().split(",")


@pytest.mark.parametrize("kind", sorted(figures.KINDS))
def test_a_guide_reads_right_with_a_mouse_and_on_a_touch_screen(kind):
    """A guide never tells the reader to "Click or tap" as its only way: it says what to choose, "(click or tap)"
    after it; and it names no "column" where a phone's chart draws rows."""
    guide = figures.KINDS[kind].GUIDE
    assert not re.search(r"(^|[.;] )Click or tap\b", guide), guide
    assert "column, to look" not in guide and "any token's column" not in guide, guide


def guide_as_read(guide: str, touch: bool) -> str:
    """The guide's words as a page shows them with a mouse or on a touch screen (Page.guide_parts)."""
    from sitegen.site.render import BY_DEVICE_PATTERN, by_device

    pieces = BY_DEVICE_PATTERN.split(guide)
    return "".join(piece if n % 2 == 0 else by_device(piece)[touch] for n, piece in enumerate(pieces))


def test_head_roles_guide_promises_a_tap_on_a_square_and_none_on_a_patterns_small_cells():
    """On a phone a pattern's cells are under a finger's width (10 to 18 px): with a mouse the guide points to one
    as before, and on touch it says only to tap a square (charts.TAP px)."""
    guide = figures.KINDS["head-roles"].GUIDE
    mouse, touch = guide_as_read(guide, touch=False), guide_as_read(guide, touch=True)
    assert "Hover or tap a square for its habits, or a cell of a pattern for its share." in mouse
    assert touch.endswith("Tap a square for its habits.") and "cell of a pattern" not in touch, touch
    assert "{" not in mouse + touch


@pytest.mark.parametrize("kind", sorted(figures.KINDS))
def test_every_guide_reads_with_no_braces_left_on_either_device(kind):
    guide = figures.KINDS[kind].GUIDE
    assert "{" not in guide_as_read(guide, touch=False) + guide_as_read(guide, touch=True), guide
