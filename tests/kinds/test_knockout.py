"""The knockout figure (figures/knockout.py): take one part out and watch the answer.

A site is built over the small seeded model with the kind registered here (monkeypatch), and read as files:
every run's probability and rank in the downloads against the float64 reference (tests/reference.py), the
intact model against the read-out figure of the same text and target (or against the reference where none
tracks it), the sentence naming the costliest removal, the heads of one layer, the printed figure, the spec.
Bad keys end with one line naming the figure and the field. tests/browser/test_knockout_page.py opens the
page in Chromium.
"""

from __future__ import annotations

import html
import json
import re

import pytest
from click.testing import CliRunner

import figures
import reference as ref_lib
from build import cli
from figsite.model.tokens import gpt2_tokenizer
from figsite.config import Figure
from figsite.data.run import Run
from figures import knockout

TEXT = "Maya lives in Paris, the capital of"
CONFIG = f'''\
[[figure]]
kind = "readout"
label = "i"
text = "{TEXT}"
target = " France"

[[figure]]
kind = "knockout"
label = "k"
text = "{TEXT}"
target = " France"
heads_of = 2

[[figure]]
kind = "knockout"
label = "k2"
text = "{TEXT}"
target = " Paris"
position = "Paris"

[[figure]]
kind = "knockout"
label = "k3"
text = "{TEXT}"
target = " of"
heads_of = 2
'''
SMALL = {"n_layer": 3, "n_head": 4}
PROBABILITY = 1e-5
# k3 reads the small model's own first guess (" of" again, 4.6%), which every part moves: a part taken out again at
# every later layer moves it by 10 times PROBABILITY or more, so the comparison with the reference cannot miss that.
# (" France" is so unlikely there, 2e-5, that such a slip moved it by about PROBABILITY only.)
MARGIN = 10


@pytest.fixture(scope="module", autouse=True)
def registered():
    """The knockout kind in the registry for this module's builds only."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(figures.KINDS, "knockout", knockout.Knockout())
        yield


def build(model_dir, folder, config_text: str):
    config = folder / "chapter.toml"
    config.write_text(config_text, encoding="utf-8")
    return CliRunner().invoke(
        cli, ["--model", str(model_dir), "--config", str(config), "--out", str(folder / "site"), "--no-cache"]
    )


@pytest.fixture(scope="module")
def site(small_model_dir, tmp_path_factory):
    folder = tmp_path_factory.mktemp("knockout")
    result = build(small_model_dir, folder, CONFIG)
    assert result.exit_code == 0, f"{result.output}\n{result.exception!r}"
    return folder / "site"


@pytest.fixture(scope="module")
def ids():
    return gpt2_tokenizer().encode(TEXT)


def table(site, label: str) -> list:
    return json.loads((site / f"downloads/figure-{label}.json").read_text(encoding="utf-8"))["tables"]["knockouts"]


def page(site, label: str) -> str:
    return html.unescape((site / f"figure-{label}.html").read_text(encoding="utf-8"))


def spec(site, label: str) -> dict:
    """The figure's chart as its Vega-Lite spec (the site offers it as a download; the page carries it compiled)."""
    return json.loads((site / "downloads" / f"figure-{label}.vega-lite.json").read_text(encoding="utf-8"))


def printed_block(site, label: str) -> list:
    printed = (site / "figures.txt").read_text(encoding="utf-8")
    start = printed.index(f"({label}) ")
    return printed[start:].split("\n\n")[0].rstrip("\n").splitlines()


# figure, read position (0-based: 'Maya' is two tokens, so ' Paris' is token 5), target
FIGURES = [("k", 8, " France"), ("k2", 4, " Paris"), ("k3", 8, " of")]
HEADS = {"k": 4, "k2": 0, "k3": 4}  # the runs of one layer's heads (heads_of)


@pytest.mark.parametrize("label, position, target", FIGURES)
def test_every_run_is_the_references_probability_and_rank(site, weights, ids, label, position, target):
    target_id = gpt2_tokenizer().encode(target)[0]
    rows = table(site, label)[1:]
    assert len(rows) == 3 + 3 + HEADS[label]
    for row in rows:
        part, layer = row["taken_out"], row["layer"] - 1
        head = None if row["head"] is None else row["head"] - 1
        p, rank = ref_lib.knockout(weights, ids, position, target_id, part, layer, head)
        assert abs(row["probability"] - p) < PROBABILITY, row
        assert abs(row["rank"] - rank) <= 1, row  # float32 against float64: a near tie may swap


def test_a_part_taken_out_again_at_every_later_layer_would_move_k3s_target_by_10_times_the_tolerance(
    site, weights, ids
):
    """The margin the comparison above stands on, for every run whose part has a later layer to be taken out of
    again: each kind of part (attention, feed-forward, head) taken out twice is told from once."""
    target_id = gpt2_tokenizer().encode(" of")[0]
    runs = [row for row in table(site, "k3")[1:] if row["layer"] < SMALL["n_layer"]]
    assert {row["taken_out"] for row in runs} == {"attention", "feed-forward", "head"}
    for row in runs:
        part, layer, head = row["taken_out"], row["layer"] - 1, None if row["head"] is None else row["head"] - 1
        once = ref_lib.knockout(weights, ids, 8, target_id, part, layer, head)[0]
        again = ref_lib.knockout(weights, ids, 8, target_id, part, layer, head, again=True)[0]
        assert abs(again - once) >= MARGIN * PROBABILITY, (row, once, again)


def test_the_intact_model_is_the_readout_of_the_same_text_and_target(site):
    slug = json.loads((site / "data/run.json").read_text(encoding="utf-8"))["texts"][0]["data"]
    data = json.loads((site / slug).read_text(encoding="utf-8"))
    assert data["target"]["text"] == " France"
    intact = table(site, "k")[0]
    assert intact["taken_out"] == "nothing"
    assert intact["probability"] == data["target"]["p"][-1][-1]


def test_the_intact_model_without_a_readout_is_the_references(site, small_model_dir, ids):
    target_id = gpt2_tokenizer().encode(" Paris")[0]
    probs = ref_lib.reference(small_model_dir, ids).probs[-1, 4]
    intact = table(site, "k2")[0]
    assert intact["taken_out"] == "nothing"
    assert abs(intact["probability"] - probs[target_id].item()) < PROBABILITY
    assert abs(intact["rank"] - (int((probs > probs[target_id]).sum()) + 1)) <= 1


def removal_name(row: dict) -> str:
    """The part of a download row as the page's sentences name it, written again here from the row."""
    if row["taken_out"] == "head":
        return f"head {row['head']} of layer {row['layer']}"
    step = "attention" if row["taken_out"] == "attention" else "feed-forward step"
    return f"layer {row['layer']}'s {step}"


@pytest.mark.parametrize("label, target", [("k", "_France"), ("k2", "_Paris")])
def test_the_page_names_the_costliest_removal_with_both_percentages(site, label, target):
    """The run with the lowest probability in the data, named with the intact model's probability and its own;
    where no run is lower than the intact model (on this seeded model, ' Paris' after ' Paris'), that is said."""
    intact, *rows = table(site, label)
    lowest = min(rows, key=lambda row: row["probability"])
    before, after = knockout.percent(intact["probability"]), knockout.percent(lowest["probability"])
    assert re.fullmatch(r"\d+\.\d+%", after)
    if lowest["probability"] < intact["probability"]:
        said = f"Without {removal_name(lowest)}, {target} falls from {before} to {after}"
    else:
        said = (
            f"No part taken out alone lowers {target} ({before} with every part in place): the lowest, "
            f"without {removal_name(lowest)}, is {after}"
        )
    text = page(site, label)
    summary = re.search(r'id="description-[^"]+"[^>]*>(.*?)</p>', text, re.S).group(1)
    assert said in summary
    assert said in "\n".join(printed_block(site, label))


def test_the_two_figures_cover_a_removal_that_lowers_the_target_and_none_that_does(site):
    for label, lowers in (("k", True), ("k2", False)):
        intact, *rows = table(site, label)
        assert (min(row["probability"] for row in rows) < intact["probability"]) is lowers, label


def test_a_removal_that_lowers_nothing_is_said_so():
    runs = [
        {"part": part, "layer": 0, "head": None, "p": p, "rank": 1}
        for part, p in [("attention", 0.4), ("feed-forward", 0.5)]
    ]
    entry = {
        "ask": [TEXT, 0, " France", None],
        "position": 0,
        "target": {"id": 4881, "text": " France"},
        "heads_of": None,
        "intact": {"p": 0.3, "rank": 1},
        "runs": runs,
    }
    run = Run(
        model={"name": "test", "n_layer": 1, "n_head": 1},
        texts={TEXT: {"tokens": [{"id": 1, "text": "Maya"}]}},
        parts={"knockouts": [entry]},
    )
    fig = Figure("x.toml", 1, "knockout", "k", None, {"text": TEXT, "target": " France"}).with_resolved({"opening": 0})
    words = knockout.Knockout().context(fig, run)
    assert (
        "No part taken out alone lowers _France (30.00% with every part in place): the lowest, without layer 1's "
        "attention, is 40.00%."
    ) in words["summary"]
    assert words["reveals"][0]["answer"].startswith("Yes: 2 of the 2 parts")


def test_the_heads_of_the_chosen_layer_are_numbered_from_1(site):
    heads = [row for row in table(site, "k") if row["taken_out"] == "head"]
    assert [(row["layer"], row["head"]) for row in heads] == [(2, h) for h in range(1, 5)]
    assert "Each head of layer 2 taken out alone" in json.dumps(spec(site, "k"))
    part = next(p for p in spec(site, "k")["params"] if p["name"] == "part")
    assert part["bind"]["options"][-4:] == [f"head-2-{h}" for h in range(1, 5)]
    assert part["bind"]["labels"][-4:] == [f"layer 2, head {h}" for h in range(1, 5)]
    assert not [row for row in table(site, "k2") if row["taken_out"] == "head"]


def test_the_printed_figure_lists_the_intact_model_then_one_line_per_run(site):
    lines = printed_block(site, "k")
    assert lines[0] == f"(k) {knockout.Knockout.TITLE}"
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["taken", "out"])
    rows = lines[header + 1 : header + 1 + 1 + 10]
    assert rows[0].strip().startswith("nothing (the intact model)")
    names = [f"layer {l}, attention" for l in (1, 2, 3)] + [f"layer {l}, feed-forward step" for l in (1, 2, 3)]
    names += [f"layer 2, head {h}" for h in range(1, 5)]
    for line, name, row in zip(rows[1:], names, table(site, "k")[1:]):
        assert line.strip().startswith(name + " "), line
        assert line.split()[-2] == knockout.percent(row["probability"]) and line.split()[-1] == f"{row['rank']:,}"
    assert len(lines) == header + 1 + 11 + 1  # and the sentence on the costliest removal


def test_the_chart_is_valid_vega_lite_with_keyboard_controls_and_words_for_every_part(site):
    import altair as alt
    import jsonschema

    chart = spec(site, "k")
    jsonschema.validate(chart, alt.vegalite.v6.schema.core.load_schema())
    params = {p["name"]: p for p in chart["params"]}
    assert params["show"]["bind"]["input"] == "radio" and params["show"]["bind"]["options"] == ["probability", "rank"]
    assert params["part"]["bind"]["input"] == "select"
    words = params["descriptions"]["value"]
    assert set(words) == set(params["part"]["bind"]["options"])
    assert params["description"]["expr"] == "descriptions[part]"
    assert len(chart["datasets"]["runs"]) == 10


@pytest.mark.parametrize("label, position, target", FIGURES)
def test_each_bar_is_the_change_from_the_intact_model_below_zero_where_the_target_got_less_likely(
    site, weights, ids, small_model_dir, label, position, target
):
    """The chart's bars, against the float64 reference: the chance with the part out less the intact model's, and
    the places the target moved up the ranking; both below zero where the removal made the target less likely."""
    target_id = gpt2_tokenizer().encode(target)[0]
    probs = ref_lib.reference(small_model_dir, ids).probs[-1, position]
    whole_p, whole_rank = probs[target_id].item(), int((probs > probs[target_id]).sum()) + 1
    bars = spec(site, label)["datasets"]["runs"]
    assert len(bars) == len(table(site, label)) - 1
    for bar in bars:
        part, layer, head = re.fullmatch(r"(attention|feed-forward|head)-(\d+)(?:-(\d+))?", bar["key"]).groups()
        layer, head = int(layer) - 1, None if head is None else int(head) - 1
        p, rank = ref_lib.knockout(weights, ids, position, target_id, part, layer, head)
        assert abs(bar["dp"] - (p - whole_p)) < PROBABILITY, bar
        if abs(p - whole_p) > PROBABILITY:
            assert (bar["dp"] < 0) == (p < whole_p), bar
        assert abs(bar["dr"] - (whole_rank - rank)) <= 2, bar  # float32 against float64: a near tie may swap


def test_the_words_and_the_legend_say_the_bars_direction(site):
    """Below the line means the target got less likely without the part: the part helps the answer, in the guide
    and in the legend, whose side is drawn in the colour of what helps the answer (as the ledger's part that raises
    the target's score and the patching's piece that brings the answer back); above it, what works against it."""
    from figures.toolkit.colours import HELPS, HELPS_NAME, HURTS, HURTS_NAME

    text = page(site, "k")
    assert (
        f"Bars below the line, in {HELPS_NAME}: without that part the token got less likely, so the part helps "
        "the answer."
    ) in text
    assert f"Bars above it, in {HURTS_NAME}: without that part the token got more likely" in text
    assert "helped" not in text
    legend = next(
        layer["encoding"]["color"]
        for panel in spec(site, "k")["vconcat"]
        for layer in panel["layer"]
        if "condition" in layer["encoding"].get("color", {})
    )
    sides = dict(zip(legend["scale"]["domain"], legend["scale"]["range"]))
    assert sides == {
        "helps the answer: less likely without it": HELPS,
        "works against the answer: likelier without it": HURTS,
    }


def test_the_reveal_links_to_a_state_of_the_chart(site):
    text = page(site, "k")
    link = re.search(r'<details class="reveal[^>]*>.*?<a [^>]*?href="#part=([^"]+)"', text, re.S).group(1)
    assert link in spec(site, "k")["params"][1]["bind"]["options"]


def assert_one_line_error(result, *names):
    output = result.output.strip()
    assert result.exit_code == 2, output
    assert len(output.splitlines()) == 1 and output.startswith("error: "), output
    for name in names:
        assert name in output, f"{name!r} not named in: {output}"


KNOCKOUT = f'[[figure]]\nkind = "knockout"\nlabel = "bad"\ntext = "{TEXT}"\n'


@pytest.mark.parametrize(
    "keys, field",
    [
        ('target = " France"\nheads_of = 9\n', "heads_of"),
        ('target = " France"\nheads_of = 0\n', "heads_of"),
        ('target = " New York"\n', "target"),
        ('target = " France"\nposition = 10\n', "position"),
        ('target = " France"\nposition = "London"\n', "position"),
    ],
)
def test_bad_keys_end_with_one_line_naming_the_figure_and_field(small_model_dir, tmp_path, keys, field):
    result = build(small_model_dir, tmp_path, KNOCKOUT + keys)
    assert_one_line_error(result, "label 'bad'", f"field '{field}'")


def test_the_title_is_short_and_what_the_line_means_is_a_subtitle_of_normal_weight_in_lines_a_phone_holds(site):
    """The bold title says what the bars are; the subtitle, in normal weight, what the line and the side below it
    mean, with the intact model's chance and rank, each line short enough for a 360 px phone's column."""
    title = spec(site, "k")["title"]
    said = title["text"]["expr"]
    assert "'Places _France moves'" in said and "'How _France\\'s chance changes'" in said
    assert "' without each part'" in said and "Below" not in said
    intact = table(site, "k")[0]
    subtitle = " ".join(title["subtitle"])
    assert subtitle.startswith(
        "As the next token after _of (token 9). Below the line: without that part, _France got less likely."
    )
    rank = intact["rank"]
    said = f"{rank:,}" + ("th" if rank % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(rank % 10, "th"))
    assert f"({knockout.percent(intact['probability'])}; it is the {said} most likely next token)" in subtitle
    assert title["subtitleFontWeight"] == "normal" and all(len(line) <= 88 for line in title["subtitle"])
    assert max(len(line) for line in title["subtitle"]) > 44, "a wide column's subtitle should use its width"
    # A phone's column (the narrow chart, carried by the page as changes to the chart) holds lines of 44 characters.
    narrow = json.loads(
        re.search(
            r'<script type="application/json" id="narrow-k">(.*?)</script>',
            (site / "figure-k.html").read_text(encoding="utf-8"),
            re.S,
        ).group(1)
    )
    [lines] = [value for path, *value in narrow if path == ["title", "subtitle"]][0]
    assert " ".join(lines) == subtitle and all(len(line) <= 44 for line in lines)


def test_the_printed_figure_says_chance_not_probability(site):
    header = next(line for line in printed_block(site, "k") if line.split()[:2] == ["taken", "out"])
    assert header.split() == ["taken", "out", "chance", "rank"]
    assert not knockout.Knockout.PRINTED_IN_BOOK  # the book prints no such figure: its words are ours to choose
