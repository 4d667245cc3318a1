"""The `scores` kind: how one share is worked out from a head's query and keys, checked against the model's own
attention and the float64 reference, on the small seeded model (random layer norms and biases)."""

from __future__ import annotations

import html
import json
import math
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import reference as ref_lib
from build import cli
from figsite.capture import api as capture

TEXT = "The animal didn't cross the street because it was too tired"
CONFIG = f'''
[[figure]]
kind = "scores"
label = "qk"
text = "{TEXT}"
focus = "it"
head = [2, 3]

[[figure]]
kind = "scores"
label = "first"
text = "{TEXT}"
focus = 1
head = [3, 4]
'''


@pytest.fixture(scope="module")
def site(small_model_dir, tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("scores")
    (work / "scores.toml").write_text(CONFIG, encoding="utf-8")
    result = CliRunner().invoke(
        cli,
        [
            "--model",
            str(small_model_dir),
            "--config",
            str(work / "scores.toml"),
            "--out",
            str(work / "site"),
            "--no-cache",
        ],
    )
    assert result.exit_code == 0, result.output
    return work / "site"


@pytest.fixture(scope="module")
def ids(small_model_dir) -> list:
    return capture.token_ids(capture.Loaded(None, capture.gpt2_tokenizer(), "", None, "cpu"), TEXT)


def shares_table(site: Path, label: str) -> list:
    return json.loads((site / "downloads" / f"figure-{label}.json").read_text(encoding="utf-8"))["tables"]["shares"]


def attention_row(site: Path, layer: int, head: int, query: int) -> list:
    data = json.loads(
        next(p for p in (site / "data").glob("*.json") if p.name not in {"run.json", "parts.json"}).read_text(
            encoding="utf-8"
        )
    )
    return data["attention"][layer][head][query]


@pytest.mark.parametrize("label, layer, head, query", [("qk", 1, 2, 8), ("first", 2, 3, 0)])
def test_the_shares_worked_out_from_query_and_keys_are_the_models_attention(site, label, layer, head, query):
    rows = shares_table(site, label)
    assert [row["token"] for row in rows] == list(range(1, query + 2))
    model = attention_row(site, layer, head, query)  # rounded to 6 decimals in the data file
    assert max(abs(row["share"] - m) for row, m in zip(rows, model)) <= 5e-7 + 1e-9
    assert max(abs(row["share"] - row["model_share"]) for row in rows) < 1e-6
    assert abs(rows[-1]["running_total"] - 1) < 1e-9


@pytest.mark.parametrize("label, layer, head, query", [("qk", 1, 2, 8), ("first", 2, 3, 0)])
def test_fits_scaled_fits_and_shares_are_the_references(site, small_model_dir, ids, label, layer, head, query):
    q, k, pattern = ref_lib.head_query_keys(ref_lib.load_weights(small_model_dir), ids, layer, head, query)
    fits = (k @ q).tolist()
    rows = shares_table(site, label)
    root = math.sqrt(q.shape[0])
    for row, fit, share in zip(rows, fits, pattern.tolist()):
        assert abs(row["fit"] - fit) < 1e-4 and abs(row["scaled"] - fit / root) < 1e-4
        assert abs(row["share"] - share) < 1e-6


def test_the_page_carries_the_query_and_keys_whose_products_add_up_to_each_fit(site):
    spec = json.loads((site / "downloads" / "figure-qk.vega-lite.json").read_text(encoding="utf-8"))
    products, bars = spec["datasets"]["products"], spec["datasets"]["bars"]
    for bar in bars:
        if bar["masked"]:
            assert "fit" not in bar and bar["j"] > 9
            continue
        added = sum(p["v"] for p in products if p["j"] == bar["j"])
        assert abs(added - bar["fit"]) < 1e-3, bar  # the page's products are rounded to 5 decimals
    temperature = next(p for p in spec["params"] if p["name"] == "T")
    assert temperature["value"] == 1 and temperature["bind"]["min"] < 1 < temperature["bind"]["max"]


def test_the_printed_table_lists_every_token_and_says_those_after_the_asking_one_are_out_of_reach(site):
    printed = (site / "figures.txt").read_text(encoding="utf-8")
    block = printed[printed.index("(qk) ") : printed.index("(first) ")].splitlines()
    assert block[3].split() == ["token", "fit", "fit", "/", "4", "share"]  # width 16: divided by 4
    rows = [row for row in block[4:] if row.strip()]
    assert len(rows) == 12 and all("out of reach" in row for row in rows[9:])
    assert not any("out of reach" in row for row in rows[:9])
    shares = [float(row.split()[-1].rstrip("%")) for row in rows[:9]]
    assert abs(sum(shares) - 100) < 0.05


def test_the_page_names_the_largest_share_and_its_check_against_the_model(site):
    rows = shares_table(site, "qk")
    best = max(rows, key=lambda row: row["share"])
    html = (site / "figure-qk.html").read_text(encoding="utf-8")
    assert f"takes {best['share'] * 100:.2f}% of its attention" in html
    assert "agree with the model&#39;s own attention to within" in html
    assert f"#key={best['token']}" in html  # the guess-first answer opens the page on that key


@pytest.mark.parametrize(
    "change, field, allowed",
    [
        ("head = [2, 3]", "head = [4, 1]", "layers 1 to 3"),
        ("head = [2, 3]", "head = [2, 5]", "heads 1 to 4"),
        ("head = [2, 3]", "head = [2]", "[layer, head]"),
        ('focus = "it"', "focus = 13", "a token number from 1 to 12"),
    ],
)
def test_a_head_or_focus_outside_the_model_or_text_is_refused_in_one_line(
    small_model_dir, tmp_path, change, field, allowed
):
    config = tmp_path / "bad.toml"
    config.write_text(CONFIG.replace(change, field), encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["--model", str(small_model_dir), "--config", str(config), "--out", str(tmp_path / "site"), "--no-cache"]
    )
    assert result.exit_code == 2
    line = result.output.strip()
    assert len(line.splitlines()) == 1 and "label 'qk'" in line and allowed in line, line


def views(chart: dict) -> list:
    """Every single view of a chart, its layers' and its stacked views' too."""
    inner = chart.get("layer", []) + chart.get("vconcat", [])
    return [chart] + [view for part in inner for view in views(part)]


def test_the_guide_names_the_colours_the_strips_are_drawn_in(site):
    """Below zero and above, in the words of figures/toolkit/colours.py's names for the scale's two ends."""
    from figures.toolkit.colours import ABOVE_ZERO as POSITIVE, BELOW_ZERO as NEGATIVE, NAMES

    html = (site / "figure-qk.html").read_text(encoding="utf-8")
    assert f"{NAMES[NEGATIVE]} below zero, {NAMES[POSITIVE]} above" in html
    spec = json.loads((site / "downloads" / "figure-qk.vega-lite.json").read_text(encoding="utf-8"))
    scales = [
        view["encoding"]["color"]["scale"]
        for view in views(spec)
        if view.get("encoding", {}).get("color", {}).get("field") == "v"
    ]
    assert len(scales) == 2 and all(
        scale["range"][0] == NEGATIVE and scale["range"][-1] == POSITIVE for scale in scales
    )


def test_the_chart_speaks_of_questions_and_descriptions_not_queries_and_keys(site):
    spec = json.loads((site / "downloads" / "figure-qk.vega-lite.json").read_text(encoding="utf-8"))
    titles = [
        view["encoding"][c].get("title") for view in views(spec) for c in ("x", "y") if c in view.get("encoding", {})
    ]
    lines = [" ".join(title) if isinstance(title, list) else title for title in titles]
    width = len(spec["datasets"]["strips"]) // len({row["row"] for row in spec["datasets"]["strips"]})
    assert {
        "fit (question \u00b7 description)",
        f"fit \u00f7 {math.sqrt(width):g}",
        "share of attention",
        "a number of the question times a number of the description",
    } <= set(lines), titles
    said = json.dumps(
        [lines, [p.get("bind", {}).get("name") for p in spec["params"]], spec["datasets"]["strips"][0]["row"]]
    )
    assert not re.search(r"\b(query|key|softmax)\b|q \. k|fit / ", said), said
    names = {p["name"]: p.get("bind", {}).get("name", "") for p in spec["params"]}
    assert names["key"].startswith("Chosen token")  # orange is what the reader chose
    assert names["T"].startswith("Spread the shares (1: the model's)")
    html = (site / "figure-qk.html").read_text(encoding="utf-8")
    assert "The &#34;Spread the shares&#34; slider sets the temperature T" in html


def test_tokens_out_of_reach_are_said_in_words_that_read_on_a_light_and_a_dark_page(site):
    """The words take the theme's colour for words (none of their own), faded only as far as colours.ASIDE allows
    (tests/unit/test_palette.py checks its contrast on both pages)."""
    from figures.toolkit.colours import ASIDE

    spec = json.loads((site / "downloads" / "figure-qk.vega-lite.json").read_text(encoding="utf-8"))
    marks = [
        view
        for view in views(spec)
        if view.get("encoding", {}).get("text", {}).get("value", "").startswith("out of reach")
    ]
    assert len(marks) == 3 and marks[0]["encoding"]["text"]["value"] == "out of reach: comes after"
    for view in marks:
        assert "color" not in view["mark"] and "color" not in view["encoding"] and view["mark"]["opacity"] == ASIDE


def test_the_orange_marks_only_the_followed_description_the_readers_choice_which_is_marked_in_words_too(site):
    """Every mark in the chosen colour is the followed description's (the `key` the reader chose): its bars and its
    rows' frames; its name is marked in every chart, for readers who see the orange otherwise."""
    from figures.toolkit.colours import CHOSEN, CHOSEN_NAME

    spec = json.loads((site / "downloads" / "figure-qk.vega-lite.json").read_text(encoding="utf-8"))
    orange = [
        view
        for view in views(spec)
        if CHOSEN in json.dumps({k: v for k, v in view.items() if k not in ("layer", "vconcat")})
    ]
    assert len(orange) == 5  # two frames, three kinds of bars
    for view in orange:
        colour = view["encoding"].get("color", {})
        assert colour.get("condition", {}).get("test") == "datum.j == key" or (
            view["mark"]["stroke"] == CHOSEN and view["transform"][0]["filter"].startswith("datum.j == key")
        )
    for chart in spec["vconcat"]:  # the strips, the products and the three bar charts: each marks its rows
        axes = [
            view["encoding"]["y"]["axis"] for view in views(chart) if "axis" in view.get("encoding", {}).get("y", {})
        ]
        assert axes and all("key + ':'" in axis["labelExpr"] and "\u25b6" in axis["labelExpr"] for axis in axes)
    assert f"see its description: drawn in {CHOSEN_NAME}" in (site / "figure-qk.html").read_text(encoding="utf-8")


def test_where_the_fits_are_divided_the_chart_says_why_by_the_root_of_the_heads_width(site, small_model_dir, ids):
    """The small model's heads have 16 numbers (width 64, 4 heads): the title divides by 4 and its subtitle says
    that 4 is the square root of those 16 numbers, and why the fits are divided."""
    q, _, _ = ref_lib.head_query_keys(ref_lib.load_weights(small_model_dir), ids, 1, 2, 8)
    width = q.shape[0]
    spec = json.loads((site / "downloads" / "figure-qk.vega-lite.json").read_text(encoding="utf-8"))
    (divided,) = [
        view["title"]
        for view in views(spec)
        if isinstance(view.get("title"), dict) and str(view["title"].get("text", "")).startswith("Fit divided by")
    ]
    assert divided["text"] == f"Fit divided by {math.sqrt(width):g}", divided
    why = " ".join(divided["subtitle"])
    assert f"square root of the head's {width} numbers" in why, why
    assert "nearly everything to one token" in why, why
    assert max(len(line) for line in divided["subtitle"]) <= 48, divided["subtitle"]  # a phone's column


def test_the_reading_key_says_what_a_cell_of_a_strip_is_above_the_chart(site, small_model_dir, ids):
    q, _, _ = ref_lib.head_query_keys(ref_lib.load_weights(small_model_dir), ids, 1, 2, 8)
    page = (site / "figure-qk.html").read_text(encoding="utf-8")
    key = re.search(r'<p class="reading-key" id="key-qk">([^<]*)</p>\s*<div class="chart', page)
    assert key, "no reading key just above the chart"
    assert f"Each cell of a strip is one of the head's {q.shape[0]} numbers." in html.unescape(key.group(1)), key.group(
        1
    )
