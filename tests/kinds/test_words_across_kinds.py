"""One way of saying a thing on every kind's page: a chance in a tooltip is titled "chance" (never "p"), a stage in a
tooltip is said in words (stage 0 "before any layer", never "after layer 0"), patching's tooltips say how much of the
original answer comes back (its "lead" only under More detail), and the keys after a token are "out of reach".

Built from tests/every_kind.toml on conftest's small seeded model; the lens's words from a text with a comma."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
import vl_convert

from conftest import built
from figsite.data.shared_names import DESCRIPTION
from sitegen.site.render import notice as _notice
from figures.toolkit.words import STAGE_0, percent

EVERY_KIND = Path(__file__).resolve().parents[1] / "every_kind.toml"
COMMA_TEXT = "Maya lives in Paris, the capital of"  # token 6 is ","
LENS = f'''\
[[figure]]
kind = "lens"
label = "comma"
text = "{COMMA_TEXT}"
track = " France"
position = 6
'''


@pytest.fixture(scope="module")
def every_kind(small_model_dir, tmp_path_factory):
    return built(small_model_dir, EVERY_KIND.read_text(encoding="utf-8"), tmp_path_factory.mktemp("every-kind-words"))


@pytest.fixture(scope="module")
def comma_lens(small_model_dir, tmp_path_factory):
    site = built(small_model_dir, LENS, tmp_path_factory.mktemp("comma-lens"))
    return json.loads((site / "downloads" / "figure-comma.vega-lite.json").read_text(encoding="utf-8"))


def tooltips(node):
    """Every tooltip field of a spec, wherever its views sit."""
    if isinstance(node, dict):
        tips = node.get("encoding", {}).get("tooltip", [])
        yield from (tips if isinstance(tips, list) else [tips])
        for value in node.values():
            yield from tooltips(value)
    elif isinstance(node, list):
        for value in node:
            yield from tooltips(value)


def specs(site: Path) -> dict:
    return {
        path.name: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted((site / "downloads").glob("*.vega-lite.json"))
    }


def test_no_tooltip_of_any_kind_is_titled_p_and_no_stage_tooltip_says_after_layer_0(every_kind):
    found = specs(every_kind)
    assert len(found) >= 14
    for name, spec in found.items():
        tips = [tip for tip in tooltips(spec) if isinstance(tip, dict) and "field" in tip]
        assert tips, name
        titles = [tip.get("title", tip["field"]) for tip in tips]
        assert "p" not in titles, name
        assert "after layer" not in titles, name  # a stage's number: 'after layer 0'
        stage_tips = [tip for tip in tips if tip["field"] == "stage"]
        assert not stage_tips, (name, stage_tips)


def test_patching_tooltips_say_how_much_comes_back_never_the_lead(every_kind):
    spec = json.loads((every_kind / "downloads" / "figure-put-back.vega-lite.json").read_text(encoding="utf-8"))
    titles = [str(tip.get("title", tip.get("field"))) for tip in tooltips(spec) if isinstance(tip, dict)]
    assert any("chance" in title for title in titles)
    assert not [title for title in titles if "lead" in title]


def test_the_keys_after_a_token_are_out_of_reach_in_every_spec(every_kind):
    for name, spec in specs(every_kind).items():
        assert "not read yet" not in json.dumps(spec), name
    assert "out of reach" in json.dumps(specs(every_kind)["figure-att.vega-lite.json"])


def test_the_head_roles_count_list_starts_its_own_sentence(every_kind):
    text = (every_kind / "figure-habits.html").read_text(encoding="utf-8")
    assert "heads. the" not in text and "Heads per habit: " in text


def stage_words(spec: dict, stage: int) -> str:
    """What the chart's stage field "layer" says for `stage`, by its own Vega expression."""
    calc = next(step["calculate"] for step in spec_steps(spec) if step.get("as") == "layer")
    svg = vl_convert.vegalite_to_svg(
        {
            "data": {"values": [{}]},
            "mark": "text",
            "encoding": {"text": {"value": {"expr": calc.replace("datum.stage", str(stage))}}},
        }
    )
    return re.search(r"<text[^>]*>([^<]*)</text>", svg).group(1)


def spec_steps(node):
    if isinstance(node, dict):
        yield from node.get("transform", [])
        for value in node.values():
            yield from spec_steps(value)
    elif isinstance(node, list):
        for value in node:
            yield from spec_steps(value)


def test_a_stage_tooltip_names_stage_0_before_any_layer(every_kind):
    spec = specs(every_kind)["figure-ice-lens.vega-lite.json"]
    assert [t for t in tooltips(spec) if isinstance(t, dict) and t.get("field") == "layer"]
    assert stage_words(spec, 0) == STAGE_0 and stage_words(spec, 3) == "after layer 3"


def described(spec: dict, **values) -> str:
    params = {p["name"]: p["value"] for p in spec["params"] if "value" in p} | values
    expr = next(p["expr"] for p in spec["params"] if p["name"] == DESCRIPTION)
    svg = vl_convert.vegalite_to_svg(
        {
            "params": [{"name": k, "value": v} for k, v in params.items()],
            "data": {"values": [{}]},
            "mark": "text",
            "encoding": {"text": {"value": {"expr": expr}}},
        }
    )
    return re.search(r"<text[^>]*>([^<]*)</text>", svg).group(1).replace("&#39;", "'").replace("&quot;", '"')


def test_the_lens_quotes_a_comma_and_writes_small_chances_with_three_digits(comma_lens):
    words = described(comma_lens, position=6)
    assert 'position 6 (","): the top guess is ' in words and "(6: ,)" not in words
    cells = {f"{row['stage']}|{row['q'] + 1}": row["p"] for row in comma_lens["datasets"]["cells"]}
    said = next(p["value"] for p in comma_lens["params"] if p["name"] == "cells_said")
    for key, sentence in said.items():
        shown = float(re.search(r"with ([0-9.]+)%$", sentence).group(1))
        assert shown > 0 and "with 0.0%" not in sentence
        assert abs(shown / 100 - cells[key]) <= 5e-6 + 0.005 * cells[key]  # the data keep 5 decimals
        assert sentence.endswith(f"with {percent(shown / 100)}") or shown >= 1


def test_the_random_model_notice_names_it_as_every_page_does_and_says_random_once():
    notice = _notice(SimpleNamespace(is_random=True, model={"name": "random (seed 0)", "revision": None}))
    assert notice == "A model of GPT-2 small's shape with random weights: its numbers say nothing about GPT-2."


def test_patching_names_a_comma_in_quotes_in_its_menu_and_tooltips(every_kind):
    spec = json.loads((every_kind / "downloads" / "figure-put-back.vega-lite.json").read_text(encoding="utf-8"))
    names = [row["name"] for row in spec["datasets"]["runs"]]
    assert [name for name in names if '"," (token ' in name]  # the text has a comma (", so the cook")
    assert not [name for name in names if " , (token " in name]
    labels = [label for p in spec["params"] for label in p.get("bind", {}).get("labels", [])]
    assert not [label for label in labels if " , (token " in label]


def test_figure_i_writes_a_chance_below_1_percent_with_three_significant_digits(every_kind):
    text = (every_kind / "figure-read.html").read_text(encoding="utf-8")
    guesses = [part.split(";")[0] for part in text.split("the top 3 guesses are ")[1:]]
    chances = [c for part in guesses for c in re.findall(r" ([0-9.]+)%", part)]
    assert len(chances) >= 3 * 4  # 3 guesses at each of the small model's 4 stages
    small = [c for c in chances if float(c) < 1]
    assert small and all(re.fullmatch(r"0\.0*[1-9][0-9]{2}", c) for c in small), small  # '0.837', never '0.8'
