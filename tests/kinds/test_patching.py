"""The patching figure (figures/patching.py): put one piece of the original text's run back into the changed text's.

A site is built over the small seeded model with texts unlike the chapter's, the read token given by number, and
read as files: the downloads' "back" against the score differences of the same run (worked out here from the
formula), the words naming the strongest runs against the downloads, the page's texts, choice and clicks. Bad
keys end with one line naming the figure and the field, and the previous site stays. The numbers of every grid
against the float64 reference are tests/kinds/test_patching_capture.py's.
"""

from __future__ import annotations

import html
import json

import pytest
from conftest import assert_bad_config_keeps_the_site, built
from figures import patching, patching_chart

CLEAN = "The keys to the cabinet were on the table, so the cook took"
CORRUPTED = "The key to the cabinet was on the table, so the cook took"
CONFIG = f'''\
[[figure]]
kind = "patching"
label = "put"
clean = "{CLEAN}"
corrupted = "{CORRUPTED}"
target = " them"
versus = " it"
position = 14
'''
N_LAYER, N_HEAD, N = 3, 4, 14  # the small model's layers and heads; the texts' tokens


@pytest.fixture(scope="module")
def site(small_model_dir, tmp_path_factory):
    return built(small_model_dir, CONFIG, tmp_path_factory.mktemp("patching"))


def runs(site) -> list:
    return json.loads((site / "downloads/figure-put.json").read_text(encoding="utf-8"))["tables"]["runs"]


def entry(site) -> dict:
    [found] = json.loads((site / "data/parts.json").read_text(encoding="utf-8"))["patchings"]
    return found


def page(site) -> str:
    return html.unescape((site / "figure-put.html").read_text(encoding="utf-8"))


def test_the_downloads_hold_every_run_of_the_four_grids(site):
    pieces = [row["piece"] for row in runs(site)]
    assert pieces.count("resid_pre") == (N_LAYER + 1) * N
    assert pieces.count("attn_out") == pieces.count("mlp_out") == N_LAYER * N
    assert pieces.count("z") == N_LAYER * N_HEAD


def test_back_is_how_far_each_run_went_from_the_changed_texts_difference_to_the_originals(site):
    found = entry(site)
    clean, corrupted = found["clean"]["diff"], found["corrupted"]["diff"]
    assert abs(clean - corrupted) >= patching.NEAR, "the test's texts must differ on the metric"
    for row in runs(site):
        assert row["back"] == pytest.approx((row["score_difference"] - corrupted) / (clean - corrupted), abs=1e-9)


def test_the_stream_after_the_last_layer_at_the_read_token_brings_all_of_it_back_and_elsewhere_none(site):
    last = [row for row in runs(site) if row["piece"] == "resid_pre" and row["after_layer"] == N_LAYER]
    assert [row["back"] for row in last] == [0.0] * (N - 1) + [1.0]


def test_the_tokens_before_the_first_difference_change_nothing_in_any_layer(site):
    """'The' is token 1 of both texts; ' keys' and ' key' differ at token 2: token 1's runs are the changed text's."""
    first = [row for row in runs(site) if row.get("position") == 1]
    assert first and all(row["back"] == 0.0 for row in first)


def test_the_summary_names_the_run_that_brings_back_the_most_or_where_the_answer_travels(site):
    stream = [row for row in runs(site) if row["piece"] == "resid_pre"]
    best = max(stream, key=lambda row: row["back"])
    said = page(site)
    words = "carry the answer" if "carry the answer" in said else html.escape(patching.comes_back(best["back"]))
    assert words in said


def test_the_guess_first_answer_is_the_head_that_brings_back_the_most(site):
    heads = [row for row in runs(site) if row["piece"] == "z"]
    best = max(heads, key=lambda row: row["back"])
    assert f"Head {best['head']} of layer {best['layer']}: {patching.comes_back(best['back'])}." in page(site)
    assert f"#cell=head-{best['layer']}-{best['head']}" in page(site)


def test_the_page_names_both_texts_and_its_choice_names_every_run(site):
    said = page(site)
    assert "The original text, token by token" in said and "The changed text, token by token" in said
    spec = json.loads((site / "downloads/figure-put.vega-lite.json").read_text(encoding="utf-8"))
    [cell] = [p for p in spec["params"] if p["name"] == "cell"]
    assert cell["bind"]["name"] == "Put back " and len(cell["bind"]["options"]) == len(runs(site))
    assert "stream-0-2" in cell["bind"]["options"] and "head-3-4" in cell["bind"]["options"]
    assert spec["usermeta"]["clicks"] == [{"field": "pick_cell", "param": "cell"}]


def test_the_axis_names_both_tokens_where_the_texts_differ(site):
    names = [
        row["x"]
        for row in json.loads((site / "downloads/figure-put.vega-lite.json").read_text(encoding="utf-8"))["datasets"][
            "runs"
        ]
        if row["piece"] == "resid_pre"
    ]
    assert "2: _keys / _key" in names and "6: _were / _was" in names and "1: The" in names


def test_the_printed_figure_gives_both_texts_and_the_first_grid(site):
    printed = (site / "figures.txt").read_text(encoding="utf-8")
    block = printed[printed.index("(put) ") :].split("\n\n")[0]
    assert f'original: "{CLEAN}"' in block and f'changed:  "{CORRUPTED}"' in block
    assert "the score of _them minus the score of _it" in block
    assert len([line for line in block.splitlines() if line.strip().split(" ")[0].isdigit()]) == N_LAYER + 1


def test_texts_that_do_not_differ_on_the_answer_show_the_differences_themselves():
    grids = {piece: {"diff": [[1.0] * 2] * 2, "p": [[0.5] * 2] * 2} for piece in patching.PIECES}
    o = patching.Patched(
        ["a", "b"], ["a", "c"], 1, "_x", "_y", {"diff": 1.0, "p": 0.5}, {"diff": 1.0004, "p": 0.5}, grids
    )
    assert not o.differs and o.back(2.0) is None
    assert "the two texts answer nearly alike" in patching.summary(o)
    assert patching_chart.colour(o, [{"v": 1.0}]).to_dict()["title"] == ["score difference", "of the run"]


# ---------------------------------------------------------------------------------------------- bad keys

GOOD = {"clean": CLEAN, "corrupted": CORRUPTED, "target": " them", "versus": " it"}


def config_with(**changed) -> str:
    keys = {**GOOD, **changed}
    return '[[figure]]\nkind = "patching"\nlabel = "bad"\n' + "".join(
        f"{key} = {json.dumps(value)}\n" for key, value in keys.items()
    )


@pytest.mark.parametrize(
    "changed, field, words",
    [
        (
            {"corrupted": "The keys to the cabinet were on the big table, so the cook took"},
            "corrupted",
            ["15 tokens", "14", "_big", "_keys"],
        ),
        ({"corrupted": CLEAN}, "corrupted", ["the same text"]),
        ({"target": " New York"}, "target", ["2 tokens"]),
        ({"versus": " them"}, "versus", ["the target itself"]),
        ({"position": 15}, "position", ["outside the text"]),
    ],
)
def test_bad_keys_end_with_one_line_naming_the_field_and_keep_the_previous_site(
    small_model_dir, tmp_path, changed, field, words
):
    assert_bad_config_keeps_the_site(small_model_dir, tmp_path, config_with(), config_with(**changed), field, words)


# ---------------------------------------------------------------------------------------------- the chapter's words


def test_how_much_comes_back_is_said_in_words_past_either_end():
    assert patching.comes_back(0.85) == "85% of the original answer comes back"
    assert patching.comes_back(1.22) == "more than all of the original answer comes back (122%)"
    assert patching.comes_back(-0.2) == "it pushes the answer further away (-20%)"


def test_the_legend_reaches_the_datas_ends_and_says_past_100_and_below_0_in_words(site):
    rows = [
        row
        for row in json.loads((site / "downloads/figure-put.vega-lite.json").read_text(encoding="utf-8"))["datasets"][
            "runs"
        ]
    ]
    low, high = min(row["v"] for row in rows), max(row["v"] for row in rows)
    spec = json.loads((site / "downloads/figure-put.vega-lite.json").read_text(encoding="utf-8"))
    colour = spec["vconcat"][1]["layer"][0]["encoding"]["color"]
    reach = max(abs(low), abs(high), 1.0)
    assert colour["scale"]["domain"] == [-reach, reach]
    legend = colour["legend"]
    assert min(legend["values"]) == min(round(low, 4), 0) and max(legend["values"]) == max(round(high, 4), 1)
    assert patching_chart.AWAY in legend["labelExpr"] and patching_chart.PAST_ALL in legend["labelExpr"]
    assert colour["title"] == patching_chart.BACK_TITLE


def test_a_legend_past_both_ends_keeps_its_labels_apart():
    values = patching_chart.back_legend(-0.38, 1.22, 1.22)["values"]
    assert values == [-0.38, 0, 1, 1.22]
    close = patching_chart.back_legend(-0.02, 1.05, 1.05)["values"]  # 0% and 100% would touch the data's ends
    assert close == [-0.02, 1.05]


def test_score_lead_and_logit_are_in_more_detail_one_sentence_each_and_the_guide_names_the_colours(site):
    from figures.toolkit.colours import HELPS_NAME, HURTS_NAME

    text = page(site)
    detail = text[text.index('<details class="more-detail">') :].split("</details>")[0]
    for words in ("the higher the score, the more likely the token", "Logit:", "Lead:"):
        assert detail.count(words) == 1, words
    summary = text[text.index('class="chart-description') :].split("</p>")[0]
    assert "lead" not in summary and "score" not in summary
    assert "the model gives _them a chance of" in summary
    assert f"{HELPS_NAME.capitalize()}: that piece brings the original answer back" in text
    assert f"{HURTS_NAME}: it pushes the answer further away" in text
