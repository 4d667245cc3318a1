"""The charts for a phone's column (figures.kind narrow_chart) of figure (l), the heads figure and the lens, and the
lens's rank axis, on conftest's small seeded model (GPT-2's vocabulary and tokenizer, 3 layers of 4 heads).

A narrow chart is the same figure: the same params (names, values, inputs), the same clicks, the same words for
screen readers and the same data as the chart for wider columns. Figure (l)'s lies sideways, one row and one label
per token, and so do the heads figure's bars. The heads figure's pattern of more than 12 rows and the lens's table
keep cells in which every label and every guess fits, and the heads figure's grid squares a finger can tap, and are
wider than a phone's column (their box scrolls). The numbers they show are checked against the independent reference (tests/reference.py); the
tokens, as the chapter writes them, are written out here. tests/browser/test_every_label_on_a_phone.py reads the
drawn SVG at 360 px.
"""

from __future__ import annotations

import json
import re

import pytest

import reference as ref_lib
from conftest import built, gpt2_tokenizer
from figsite.config import load_config
from figsite.data.run import Run
from figsite.data.shared_names import BACKDROP
from figures import KINDS
from figures.toolkit.charts import spec

ANIMAL = "The animal didn't cross the street because it was too tired"
ANIMAL_TOKENS = "The _animal _didn 't _cross _the _street _because _it _was _too _tired".split()
MAYA = "Maya lives in Paris, the capital of"
MAYA_TOKENS = "May a _lives _in _Paris , _the _capital _of".split()
RIVER = (
    "The river runs slowly through the old town, past the mill and the market square, and every morning the "
    "old baker sings"
)
RIVER_TOKENS = (
    "The _river _runs _slowly _through _the _old _town , _past _the _mill _and _the _market _square , _and "
    "_every _morning _the _old _baker _sings"
).split()  # 24: the most rows a square of the heads figure has
PHONE_COLUMN = 340  # px: about the column a 360 px phone gives a chart
GPT2_VOCABULARY = 50_257  # tokens GPT-2 knows (its tokenizer's vocabulary; the small model keeps it)
TOLERANCE = 1e-4  # a share in a chart: within 1e-4 of the reference

CONFIG = f'''\
[[figure]]
kind = "compare"
label = "warm-or-hot"
texts = ["Ice melts into water when it gets warm", "Ice melts into water when it gets hot"]

[[figure]]
kind = "attention"
label = "l"
text = "{ANIMAL}"
focus = "it"
views = [[2, 3]]

[[figure]]
kind = "heads"
label = "grid"
text = "{ANIMAL}"
focus = "it"
head = [2, 3]

[[figure]]
kind = "heads"
label = "river"
text = "{RIVER}"

[[figure]]
kind = "lens"
label = "lens"
text = "{MAYA}"
track = " France"
'''


@pytest.fixture(scope="module")
def site(small_model_dir, tmp_path_factory):
    return built(small_model_dir, CONFIG, tmp_path_factory.mktemp("phone-charts"))


@pytest.fixture(scope="module")
def run(site) -> Run:
    return Run.from_files(lambda path: (site / "data" / path).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def tokenizer():
    return gpt2_tokenizer()


@pytest.fixture(scope="module")
def charts_of(site, run, tokenizer):
    """label -> (the chart's Vega-Lite spec, the narrow chart's or None), each figure resolved as the build does."""

    def tokens(text):
        return [tokenizer.decode([i]) for i in tokenizer.encode(text)]

    out = {}
    for fig in load_config(site.parent / "chapter.toml", KINDS):
        kind = KINDS[fig.kind]
        fig = fig.with_resolved(kind.check(fig, tokens, run.model))
        narrow = kind.narrow_chart(fig, run)
        out[fig.label] = (spec(kind.chart(fig, run)), None if narrow is None else spec(narrow))
    return out


def params(chart: dict) -> dict:
    """name -> the param as the chart declares it (its value or expression, and its input)."""
    return {p["name"]: p for p in chart["params"]}


def views(chart: dict) -> list:
    """Every single view of a chart, its layers' and its stacked views' too."""
    inner = chart.get("layer", []) + chart.get("vconcat", [])
    return [chart] + [view for part in inner for view in views(part)] if inner else [chart]


def words_of(expr: str) -> list:
    """The words a Vega expression writes: its string literals, in order (the regular expressions of a wrapped
    title's line breaks left out)."""
    literals = [re.sub(r"\\(.)", r"\1", text) for text in re.findall(r"'((?:[^'\\]|\\.)*)'", expr)]
    return [text for text in literals if text.strip() and not set(text) & set("[]{}$\\")]


def layers(chart: dict, mark: str) -> list:
    """The views of a chart drawn with `mark` ('bar', 'rect', 'text')."""
    return [view for view in views(chart) if (view.get("mark") or {}).get("type") == mark]


def test_figure_l_on_a_phone_is_the_same_figure_with_the_same_params_clicks_words_and_data(charts_of):
    wide, narrow = charts_of["l"]
    assert params(narrow) == params(wide)
    assert params(narrow)["names"]["value"] == ANIMAL_TOKENS
    assert params(narrow)["description"]["expr"] == "descriptions[token + '|' + view]"
    assert narrow["usermeta"] == wide["usermeta"] and narrow["usermeta"]["clicks"][0]["param"] == "token"
    assert narrow["datasets"] == wide["datasets"]


def test_figure_l_on_a_phone_lies_sideways_one_row_and_one_label_per_token(charts_of, small_model_dir, tokenizer):
    _, narrow = charts_of["l"]
    n = len(ANIMAL_TOKENS)
    [bars] = layers(narrow, "bar")
    key, share = bars["encoding"]["y"], bars["encoding"]["x"]
    assert (key["field"], key["type"], share["field"], share["type"]) == ("k", "ordinal", "s", "quantitative")
    assert key["scale"]["domain"] == list(range(n))  # a row for every token, those out of reach too
    axis = key["axis"]
    assert axis["labelExpr"] == "names[datum.value]" and axis["labelOverlap"] is False and axis["labelLimit"] == 0
    assert narrow["width"] == "container" and narrow["height"] == 24 * n  # fits any column; a row of 24 px each
    # The chosen token's bar in the chosen colour; the tokens after it shaded: as in the upright chart.
    assert bars["encoding"]["color"]["condition"]["test"] == "datum.k == token - 1"
    assert any(view.get("transform", [{}])[0].get("filter") == "datum.k > token - 1" for view in layers(narrow, "rect"))

    # It opens on _it (token 9) in layer 2, head 3: its bars are the reference's shares from _it.
    attention = ref_lib.reference(small_model_dir, tokenizer.encode(ANIMAL)).attention
    shown = {row["k"]: row["s"] for row in narrow["datasets"]["shares"] if row["v"] == "2-3" and row["q"] == 8}
    assert sorted(shown) == list(range(9))
    for k, share in shown.items():
        assert abs(share - float(attention[1, 2, 8, k])) < TOLERANCE, (k, share)


def pattern_axes(chart: dict) -> list:
    """The axes that name the tokens (or blocks): the larger pattern's two and the bars'."""
    return [
        view["encoding"][channel]["axis"]
        for view in views(chart)
        for channel in ("x", "y")
        if view.get("encoding", {}).get(channel, {}).get("axis", {}).get("labelExpr") == "names[datum.value]"
    ]


def sideways_bars(chart: dict) -> dict:
    """The heads figure's bars of the chosen token's shares, lying sideways: the keys down y, the shares along x."""
    [bars] = [view for view in layers(chart, "bar") if view["encoding"]["y"].get("field") == "k"]
    return bars


def test_the_heads_figure_on_a_phone_keeps_squares_to_tap_its_bars_lie_sideways_and_no_room_is_left_under_the_grid(
    charts_of,
):
    """On a phone the grid's squares are charts.TAP px, which a finger can tap, wider than the column for GPT-2's 12
    heads (the chart scrolls in its own box); every label of the pattern shown; the chosen token's bars lie
    sideways, one row and one label per token, as in figure (l); the grid's view ends just under the grid and its
    note."""
    from figures.heads_chart import NOTE_ROOM
    from figures.toolkit.charts import TAP

    wide, narrow = charts_of["grid"]
    assert params(narrow) == params(wide) and narrow["usermeta"] == wide["usermeta"]
    assert narrow["datasets"] == wide["datasets"]
    assert wide["autosize"] == {"type": "fit-x", "contains": "padding"} and "autosize" not in narrow
    assert params(narrow)["names"]["value"] == ANIMAL_TOKENS
    assert all(axis["labelOverlap"] is False for axis in pattern_axes(narrow))
    bars = sideways_bars(narrow)
    key, share = bars["encoding"]["y"], bars["encoding"]["x"]
    assert (share["field"], key["scale"]["domain"]) == ("s", list(range(len(ANIMAL_TOKENS))))
    assert key["axis"]["labelLimit"] == 0 and key["axis"]["labelExpr"] == "names[datum.value]"
    assert not [view for view in layers(wide, "bar") if view["encoding"]["y"].get("field") == "k"]  # upright there
    grid = narrow["vconcat"][0]
    n_layer, n_head = 3, 4  # the small model's; a square of 12 rows and a gap of 3 between squares
    units_x, units_y = (n_head + 1) * 15, n_layer * 15 - 3
    width = -(-TAP * units_x // 12)  # px: 12 rows of a square drawn TAP px wide
    assert grid["width"] == width and grid["height"] == -(-width * units_y // units_x) + NOTE_ROOM
    assert width * 12 / units_x >= TAP and wide["vconcat"][0]["height"] > 0
    assert (12 * 12 + 13 * 3) * TAP / 12 > PHONE_COLUMN  # GPT-2's 13 columns of squares: wider than a phone's column


def test_the_heads_pattern_of_24_rows_on_a_phone_keeps_cells_its_labels_fit_and_scrolls(charts_of):
    """24 rows of charts.TAP px (cells a finger can tap) do not fit a phone's column: its chart keeps the cells and
    is wider than the column (its box scrolls); the same params, clicks and data as the chart for wider columns, the bars lying sideways."""
    from figures.toolkit.charts import TAP

    wide, narrow = charts_of["river"]
    assert params(narrow) == params(wide) and narrow["usermeta"] == wide["usermeta"]
    assert narrow["datasets"] == wide["datasets"]
    for chart in (wide, narrow):
        axes = pattern_axes(chart)
        assert len(axes) >= 3 and all(axis["labelOverlap"] is False for axis in axes), axes
    pattern = next(view for view in narrow["vconcat"] if "larger" in str(view.get("title", "")))
    assert pattern["width"] == pattern["height"] == {"step": TAP}
    assert params(narrow)["names"]["value"] == RIVER_TOKENS and 24 * TAP > PHONE_COLUMN
    assert sideways_bars(narrow)["encoding"]["y"]["axis"]["labelLimit"] == 0
    assert "autosize" not in narrow  # drawn at its size: a column narrower than it scrolls


def test_the_lens_rank_axis_ends_at_the_vocabularys_size_and_every_title_names_the_token(charts_of, small_model_dir):
    weights = ref_lib.load_weights(small_model_dir)
    vocabulary = weights["transformer.wte.weight"].shape[0]
    assert vocabulary == GPT2_VOCABULARY
    for chart in charts_of["lens"]:
        [rank] = [view["encoding"]["y"] for view in layers(chart, "line") if view["encoding"]["y"]["field"] == "rank"]
        assert rank["scale"] == {"type": "log", "reverse": True, "domain": [1, vocabulary], "nice": False}
        assert rank["axis"]["values"] == [1, 10, 100, 1_000, 10_000, vocabulary] and rank["axis"]["format"] == ","
        titles = [view["title"]["text"]["expr"] for view in views(chart) if isinstance(view.get("title"), dict)]
        follows = [title for title in titles if title.startswith("split(replace(vocab[track + ''] + ")]
        assert [words_of(title)[0] for title in follows] == ["'s chance", "'s rank among all 50,257 tokens"], titles
        said = [word for expr in titles + [params(chart)["description"]["expr"]] for word in words_of(expr)]
        said += [
            view["encoding"][c].get("title") or ""
            for view in views(chart)
            for c in ("x", "y", "color")
            if c in view.get("encoding", {})
        ]
        assert not [words for words in said if re.search(r"\b(its|probability|stage)\b", words, re.I)], said
        assert params(chart)["vocab"]["value"][str(params(chart)["track"]["value"])] == "_France"


def test_the_lens_on_a_phone_keeps_each_guess_whole_in_a_cell_as_wide_as_the_longest(
    charts_of, small_model_dir, tokenizer
):
    wide, narrow = charts_of["lens"]
    assert params(narrow) == params(wide) and narrow["usermeta"] == wide["usermeta"]
    assert narrow["datasets"] == wide["datasets"]
    # Every cell's guess is the reference's most likely token at that stage and position.
    probs = ref_lib.reference(small_model_dir, tokenizer.encode(MAYA)).probs
    top = probs.argmax(dim=-1)
    for cell in narrow["datasets"]["cells"]:
        guess = tokenizer.decode([int(top[cell["stage"], cell["q"]])])
        assert cell["top"] == ("_" + guess[1:] if guess.startswith(" ") else guess), cell
        assert cell["pos"] == f"{cell['q'] + 1}: {MAYA_TOKENS[cell['q']]}"
    table = narrow["vconcat"][0]
    [words] = layers(table, "text")
    assert "limit" not in words["mark"] and "opacity" not in words["mark"]  # never cut short, never left out
    longest = max(len(cell["top"]) for cell in narrow["datasets"]["cells"])
    assert table["width"]["step"] >= 6 * longest  # a 10 px word takes about 6 px a character
    assert words["encoding"]["x"]["axis"]["labelOverlap"] is False  # every position labelled


def test_the_lens_legend_of_chances_sits_with_its_table_in_percent_and_a_phones_table_keeps_its_axis_in_view(charts_of):
    """The table's colours are its own (resolved apart from the charts below): its legend, "chance" from 0% to 100%,
    is drawn with the table rather than under the whole stack: under it on a desktop, where its title is anchored at
    the left; above it on a phone, its title beside it, where the table has no title (the heading and the key just
    above say what it is) and the first screen of the chart holds the legend with the table's first rows. There the
    table, wider than the column, scrolls under its layer numbers: a backdrop lies behind that axis and over the
    positions' labels, which are drawn under it (zindex 0), and it reaches the drawing's left edge (no padding)."""
    wide, narrow = charts_of["lens"]
    for chart, orient in ((wide, "bottom"), (narrow, "top")):
        assert chart["resolve"] == {"scale": {"color": "independent"}}
        table = chart["vconcat"][0]
        [legend] = [
            view["encoding"]["color"]
            for view in views(table)
            if view.get("encoding", {}).get("color", {}).get("field") == "p"
        ]
        assert legend["title"] == "chance" and legend["legend"]["format"] == "%"
        assert legend["legend"]["values"] == [0, 0.5, 1] and legend["scale"]["domain"] == [0, 1]
        assert legend["legend"]["orient"] == orient
    assert wide["vconcat"][0]["title"]["anchor"] == "start" and "title" not in narrow["vconcat"][0]

    def backdrops(chart):  # Altair numbers a view's name: "backdrop_0"
        return [view for view in views(chart) if str(view.get("name", "")).startswith(BACKDROP)]

    [backdrop] = backdrops(narrow)
    assert narrow["vconcat"][0]["layer"][-1] is backdrop and narrow["padding"]["left"] == 0 and backdrops(wide) == []
    assert backdrop["encoding"]["x"]["value"] < 0 and backdrop["encoding"]["x2"]["value"] == 0
    assert backdrop["encoding"]["y"]["value"] < 0 and backdrop["encoding"]["y2"]["value"] == "height"
    [words] = layers(narrow["vconcat"][0], "text")
    assert words["encoding"]["x"]["axis"]["zindex"] == 0 and words["encoding"]["x"]["axis"]["orient"] == "top"


@pytest.mark.parametrize("label", ["l", "grid"])
def test_each_bar_is_said_in_words_to_a_screen_reader_in_the_wide_and_the_narrow_chart(charts_of, label):
    """A bar's description is "_because: 11% of the attention", not the fields Vega would list ("k: 6; share...")."""
    for chart in charts_of[label]:
        [bars] = [view for view in layers(chart, "bar") if "description" in view["encoding"]]
        assert bars["encoding"]["description"] == {"field": "said", "type": "nominal"}
        [said] = [step["calculate"] for step in bars["transform"] if step.get("as") == "said"]
        assert said.endswith("+ ': ' + format(datum.s, '.0%') + ' of the attention'"), said


@pytest.mark.parametrize("label", ["l", "grid"])
def test_a_screen_reader_hears_the_bars_words_and_not_the_shades_and_labels_beside_them(charts_of, label):
    """The shade over the tokens out of reach and the numbers written by the bars say nothing of their own ("k: 9"):
    the bars and the chart's description say it in words."""
    for chart in charts_of[label]:
        after = [
            view
            for view in layers(chart, "rect") + layers(chart, "text")
            if re.search(r"datum\.k > (floor\()?\(?token - 1", json.dumps(view.get("transform", [])))
        ]
        numbers = [view for view in layers(chart, "text") if view["encoding"].get("text", {}).get("format") == ".0%"]
        quiet = after + numbers
        assert after and numbers
        assert len(quiet) >= 2 and all(view["mark"].get("aria") is False for view in quiet), quiet


def test_the_compare_grid_on_a_phone_keeps_cells_a_finger_can_tap_and_scrolls_where_wider(charts_of):
    """The guide says to tap a cell: on a phone each is charts.TAP px wide and at least as tall, drawn at its size (a
    column narrower than the grid scrolls it in its box); the same params and data as the chart for wider columns."""
    from figures.toolkit.charts import TAP

    wide, narrow = charts_of["warm-or-hot"]
    assert params(narrow) == params(wide) and narrow["datasets"] == wide["datasets"]
    assert wide["width"] == "container" and narrow["width"] == {"step": TAP}
    rows = {row["name"] for row in narrow["datasets"]["cells"]}
    assert narrow["height"] / len(rows) >= TAP, (narrow["height"], rows)
    assert "autosize" not in narrow
