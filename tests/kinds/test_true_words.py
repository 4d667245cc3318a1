"""Words true for every value: a count and its noun agree (n = 1 too), a token that never wins is said to never win,
knockouts where no part helps are counted right, punctuation and control characters stay visible in sentences,
stage 0 has one name, and the lens's chance chart opens on the whole 0-100% scale with a switch to zoom in.

Built on conftest's small seeded model (3 layers, 4 heads), on which _France is never the top guess after "of"
(checked here against the page's own data, not assumed)."""

from __future__ import annotations

import json
import re

import pytest
import vl_convert

from conftest import built
from figures import attention
from figures.cost import looks
from figures.knockout import Outcome, raise_reveal, tally, verdict
from figures.toolkit.words import STAGE_0, after_layer, agrees, count, escaped, said, shown

MAYA = "Maya lives in Paris, the capital of"
FRANCE = 4881  # " France" in GPT-2's vocabulary
N_HEADS = 12  # the small model's 3 layers x 4 heads
CONFIG = f'''\
[[figure]]
kind = "lens"
label = "never"
text = "{MAYA}"
track = " France"

[[figure]]
kind = "cost"
label = "one"
lengths = [1, 9]

[[figure]]
kind = "readout"
label = "i"
text = "{MAYA}"
target = " France"
'''


@pytest.fixture(scope="module")
def site(small_model_dir, tmp_path_factory):
    return built(small_model_dir, CONFIG, tmp_path_factory.mktemp("true-words"))


def page(site, label: str) -> str:
    return (site / f"figure-{label}.html").read_text(encoding="utf-8").replace("&#39;", "'")


def spec(site, label: str) -> dict:
    return json.loads((site / "downloads" / f"figure-{label}.vega-lite.json").read_text(encoding="utf-8"))


def drawn(chart: dict, **values) -> str:
    """The chart drawn by vl-convert with its params set to `values`, every view 500 px wide."""
    chart = json.loads(json.dumps(chart))
    chart.pop("autosize", None)

    def fixed(node):
        if isinstance(node, dict):
            if node.get("width") == "container":
                node["width"] = 500
            for value in node.values():
                fixed(value)
        elif isinstance(node, list):
            for value in node:
                fixed(value)

    fixed(chart)
    for param in chart["params"]:
        param.update({"value": values[param["name"]]} if param["name"] in values else {})
    return vl_convert.vegalite_to_svg(chart)


def said_by(chart: dict, expr: str, **values) -> str:
    """What a Vega expression of the chart's params says with the params set to `values`."""
    params = [{"name": name, "value": value} for name, value in values.items()]
    svg = vl_convert.vegalite_to_svg(
        {"params": params, "data": {"values": [{}]}, "mark": "text", "encoding": {"text": {"value": {"expr": expr}}}}
    )
    return re.search(r"<text[^>]*>([^<]*)</text>", svg).group(1).replace("&#39;", "'")


# ---------------------------------------------------------------------------------------------- the lens


def test_a_followed_token_that_is_never_the_top_guess_is_said_never_to_be(site):
    rows = json.loads((site / "downloads" / "figure-never.json").read_text(encoding="utf-8"))["tables"]["follow"]
    at_of = [row for row in rows if row["t"] == FRANCE and row["q"] == 8]
    assert len(at_of) == 4 and all(row["rank"] > 1 for row in at_of)  # the model's fact, from the page's data
    text = page(site, "never")
    assert "_France is never the most likely guess after _of, at any layer." in text
    assert "after no layer" not in text


def test_the_lens_chance_chart_opens_on_0_to_100_percent_and_its_switch_zooms_in(site):
    chart = spec(site, "never")
    switch = next(p for p in chart["params"] if p["name"] == "chance_scale")
    assert switch["value"] == "whole" and switch["bind"]["input"] == "radio"
    assert switch["bind"]["labels"] == ["0 to 100%", "zoomed in"]
    axis = r"Y-axis titled 'chance' for a linear scale with values from 0% to ([0-9.]+)%"
    assert re.findall(axis, drawn(chart).replace("&#39;", "'")) == ["100"]
    largest = max(row["p"] for row in chart["datasets"]["follow"] if row["t"] == FRANCE and row["q"] == 8)
    assert 0 < largest < 0.01
    (top,) = re.findall(axis, drawn(chart, chance_scale="zoom").replace("&#39;", "'"))
    # The axis ends at (its label: 2 significant digits) or just above the largest chance drawn.
    assert 0.98 * largest * 100 <= float(top) < 3 * largest * 100


def test_figure_i_has_the_same_chance_switch_with_the_same_words(site):
    switches = [next(p for p in spec(site, label)["params"] if p["name"] == "chance_scale") for label in ("never", "i")]
    assert switches[0] == switches[1]
    axis = r"Y-axis titled 'chance of _France' for a linear scale with values from 0% to ([0-9.]+)%"
    assert re.findall(axis, drawn(spec(site, "i")).replace("&#39;", "'")) == ["100"]
    line = spec(site, "i")["datasets"]["line"]
    (top,) = re.findall(axis, drawn(spec(site, "i"), chance_scale="zoom").replace("&#39;", "'"))
    assert 0.98 * max(row["p"] for row in line) * 100 <= float(top) < 100


@pytest.mark.parametrize(
    "label, title, rows", [("i", "chance of being the next token", "top"), ("never", "chance", "tops")]
)
def test_the_switch_zooms_the_top_guesses_bars_too(site, label, title, rows):
    """Every chance axis of the page follows the one switch: the bars of the top guesses too, zoomed in to the
    largest bar of the chosen stage (and position), that it stays whole."""
    chart = spec(site, label)
    axis = rf"X-axis titled '{title}' for a linear scale with values from 0% to ([0-9.]+)%"
    assert re.findall(axis, drawn(chart).replace("&#39;", "'")) == ["100"]
    params = {p["name"]: p["value"] for p in chart["params"] if "value" in p}
    stage, q = 1, params.get("position", 1) - 1
    drawn_rows = [row for row in chart["datasets"][rows] if row["stage"] == stage and row.get("q", q) == q]
    largest = max(row["p"] for row in drawn_rows)
    assert 0 < largest < 0.5, drawn_rows  # the small model's fact: the zoom has room to show
    assert all(row["p"] > 0 for row in drawn_rows)  # kept to 3 significant digits, not rounded to 0
    (top,) = re.findall(axis, drawn(chart, chance_scale="zoom", stage=stage).replace("&#39;", "'"))
    # At or above the largest bar (its label: 2 significant digits), with room for the words past it.
    assert 0.98 * largest * 100 <= float(top) < 100


def test_the_lens_names_stage_0_as_every_page_does(site):
    text = page(site, "never")
    assert "after the embedding" not in text.lower()
    printed = re.search(r"<pre[^>]*>(.*?)</pre>", text, re.S).group(1)
    assert re.search(rf"^  {STAGE_0} +", printed, re.M)


# ---------------------------------------------------------------------------------------------- the cost at n = 1


def test_the_cost_of_a_text_of_one_token_is_said_in_the_singular_with_no_ratio_below_one(site):
    printed = re.search(r"<pre[^>]*>(.*?)</pre>", page(site, "one"), re.S).group(1)
    assert re.search(r"a text of +1 token +1 x 2 / 2 += +1 looks", printed)  # "looks" the column's unit
    assert "1 tokens" not in printed
    chart = spec(site, "one")
    description = next(p for p in chart["params"] if p["name"] == "description")["expr"]
    assert said_by(chart, description, n=1, shorter=9) == (
        f"1 token takes 1 look in one head and {N_HEADS} in all {N_HEADS} heads. A text of 9 tokens is 9 times as "
        f"long, with {looks(9)} times the looks."
    )
    assert said_by(chart, description, n=9, shorter=1) == (
        f"9 tokens take {looks(9)} looks in one head and {looks(9) * N_HEADS} in all {N_HEADS} heads. That is 9 times "
        f"the length of a text of 1 token, and {looks(9)} times the looks."
    )
    assert said_by(chart, description, n=9, shorter=9).endswith("That is the length of the text it is compared with.")


# ---------------------------------------------------------------------------------------------- knockout counts


def outcome(changes: list) -> Outcome:
    """Knockouts of one part per layer whose chances are the intact 0.3 plus each change."""
    runs = [
        {"part": "attention", "layer": layer, "head": None, "p": 0.3 + change, "rank": 2}
        for layer, change in enumerate(changes)
    ]
    return Outcome("_France", {"p": 0.3, "rank": 2}, runs)


def test_knockouts_where_no_part_helps_are_counted_and_said_so():
    o = outcome([0.1, 0.2, 0.0])
    assert tally(o) == (
        "Taken out alone, of the 3 parts, none lower _France's chance, 2 raise it and 1 leaves it as it is."
    )
    assert verdict(o).startswith("No part taken out alone lowers _France")
    assert raise_reveal(o)["answer"].startswith("Yes: 2 of the 3 parts work against _France here.")


def test_each_knockout_count_agrees_with_its_verb_and_the_counts_add_up():
    o = outcome([-0.1, -0.2, 0.1, 0.0])
    assert tally(o) == (
        "Taken out alone, of the 4 parts, 2 lower _France's chance, 1 raises it and 1 leaves it as it is."
    )
    assert raise_reveal(o)["answer"].startswith("Yes: 1 of the 4 parts works against _France here.")
    o = outcome([-0.1, -0.2])
    assert (
        tally(o)
        == "Taken out alone, of the 2 parts, 2 lower _France's chance, none raise it and none leave it as it is."
    )
    assert raise_reveal(o)["answer"].startswith("No: each of the 2 parts")


# ---------------------------------------------------------------------------------------------- tokens and words


def test_punctuation_and_space_tokens_are_quoted_in_a_sentence():
    tokens = ["The", ",", " ", " report", "\n"]
    words = attention.describe(tokens, 4, "head 1", [0.1, 0.48, 0.15, 0.14, 0.13])
    assert words.startswith('Looking from "\\n" (token 5), head 1: "," 48%, "_" 15%, _report 14%, "\\n" 13%, The 10%.')
    assert said(" France") == "_France" and said("'t") == "'t" and said(" ,") == '"_,"'
    words = attention.describe(tokens, 3, "head 1", [0.5, 0.3, 0.1, 0.1, 0.0])
    assert words.endswith("The 1 token after it is out of its reach.")
    assert attention.describe(tokens, 2, "head 1", [0.5, 0.3, 0.2, 0, 0]).endswith(
        "The 2 tokens after it are out of its reach."
    )


def test_control_characters_show_as_visible_escapes_everywhere_a_token_is_shown():
    assert shown("\x0b") == "\\v" and shown(" \x0b") == "_\\v" and shown("a\x1bb") == "a\\x1bb"
    assert shown("\u2028") == "\\u2028" and shown("\n\t\r\f\0") == "\\n\\t\\r\\f\\0"
    assert shown(" Paris") == "_Paris" and shown("日本") == "日本" and shown("😀") == "😀"
    assert escaped("a\x0bb") == "a\\vb" and said("\x0b") == '"\\v"'


def test_counts_and_their_words_agree_for_one_and_for_more():
    assert (
        count(1, "token") == "1 token" and count(2, "token") == "2 tokens" and count(3062, "neuron") == "3,062 neurons"
    )
    assert (
        count(1, "part works", "parts work") == "1 part works"
        and count(0, "part works", "parts work") == "0 parts work"
    )
    assert agrees(1, "moves", "move") == "moves" and agrees(2, "moves", "move") == "move"


def test_stage_0_has_one_name():
    assert after_layer(0) == STAGE_0 == "before any layer" and after_layer(0, capital=True) == "Before any layer"
    assert after_layer(3) == "after layer 3"
