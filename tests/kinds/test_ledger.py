"""The ledger figure (figures/ledger.py): the target's score split into the parts that add up to it.

A site with two ledger figures is built over the small seeded model (random layer norms and biases), and what it
writes (the downloads, the words of the page, the spec embedded in it, figures.txt) is checked against the
independent float64 reference (tests/reference.py `ledger`). The kind is registered for this module only.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
import reference as ref_lib
from click.testing import CliRunner
from conftest import gpt2_tokenizer

import figures
from build import cli
from figsite.config import Figure
from figures import ledger

TEXT = "Maya lives in Paris, the capital of"
TOLERANCE = {"score": 1e-4, "probability": 1e-5}
N_LAYER, N_HEAD = 3, 4  # conftest's small model
N_PARTS = 2 + 2 * N_LAYER + 1  # the two embeddings, each layer's attention and feed-forward, the bias
FIXED = "the fixed part"  # the page's words for a bias (the caption's: "...and a fixed part, the same for every text")
SAID = {"final layer norm bias": FIXED}  # the reference's names of the parts, as the page says them

CONFIG = f'''\
[[figure]]
kind = "ledger"
label = "who"
text = "{TEXT}"
target = " France"

[[figure]]
kind = "ledger"
label = "vs"
text = "{TEXT}"
target = " France"
versus = " Germany"
position = "Paris"
'''


def figure(**fields) -> str:
    """One [[figure]] table in TOML."""
    return "[[figure]]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in fields.items())


@pytest.fixture(scope="module")
def registered():
    """The ledger kind in the registry for this module's builds, and out of it afterwards."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(figures.KINDS, "ledger", ledger.Ledger())
        yield


def build(small_model_dir, folder: Path, config: str):
    path = folder / "ledger.toml"
    path.write_text(config, encoding="utf-8")
    return CliRunner().invoke(
        cli, ["--model", str(small_model_dir), "--config", str(path), "--out", str(folder / "site"), "--no-cache"]
    )


@pytest.fixture(scope="module")
def site(registered, small_model_dir, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("ledger")
    result = build(small_model_dir, folder, CONFIG)
    assert result.exit_code == 0, f"{result.output}\n{result.exception!r}"
    return folder / "site"


def one_token(text: str) -> int:
    ids = gpt2_tokenizer().encode(text)
    assert len(ids) == 1, text
    return ids[0]


def ids_of(site: Path) -> list:
    record = json.loads((site / "data/run.json").read_text(encoding="utf-8"))
    entry = next(t for t in record["texts"] if t["text"] == TEXT)
    return [t["id"] for t in json.loads((site / entry["data"]).read_text(encoding="utf-8"))["tokens"]]


def tables(site: Path, label: str) -> dict:
    return json.loads((site / f"downloads/figure-{label}.json").read_text(encoding="utf-8"))["tables"]


def page(site: Path, label: str) -> str:
    return (site / f"figure-{label}.html").read_text(encoding="utf-8")


def spec(site: Path, label: str) -> dict:
    """The figure's chart as its Vega-Lite spec (the site offers it as a download; the page carries it compiled)."""
    return json.loads((site / "downloads" / f"figure-{label}.vega-lite.json").read_text(encoding="utf-8"))


def versus_id(site: Path, label: str) -> int:
    parts = json.loads((site / "data/parts.json").read_text(encoding="utf-8"))
    return next(
        e
        for e in parts["ledgers"]
        if e["ask"][0] == TEXT and e["position"] == POSITIONS[label] and (e["ask"][3] is not None) == (label == "vs")
    )["versus"]["id"]


POSITIONS = {"who": 8, "vs": 4}  # 0-based: the last token, and "Paris" ("Maya" is two tokens)


@pytest.fixture(scope="module")
def references(site, weights) -> dict:
    """label -> the reference's ledger for that figure's position, target and versus token."""
    ids = ids_of(site)
    return {
        label: ref_lib.ledger(weights, ids, POSITIONS[label], one_token(" France"), versus_id(site, label))
        for label in POSITIONS
    }


# ---------------------------------------------------------------------------------------------- the parts


@pytest.mark.parametrize("label", ["who", "vs"])
def test_every_part_in_the_downloads_is_the_references(site, references, label):
    want = references[label]
    rows = tables(site, label)["parts"]
    assert [row["n"] for row in rows] == list(range(1, N_PARTS + 1))
    assert len(rows) == len(want.parts) == N_PARTS
    for row, (name, layer, t, v) in zip(rows, want.parts):
        assert row["layer"] == (None if layer is None else layer + 1)
        assert SAID.get(name, name) in row["part"]
        assert abs(row["target"] - t) < TOLERANCE["score"], row
        assert abs(row["versus"] - v) < TOLERANCE["score"], row
        assert abs(row["difference"] - (t - v)) < TOLERANCE["score"], row


@pytest.mark.parametrize("label", ["who", "vs"])
def test_the_page_says_the_parts_add_up_to_the_models_score_with_numbers_that_agree(site, references, label):
    words = html.unescape(page(site, label))
    said = re.findall(r"the parts add up to (-?\d+\.\d+); the model's score is (-?\d+\.\d+)", words)
    assert len(said) == 3, said  # the target, the versus token, the difference
    want = references[label].score
    for (total, score), model in zip(said, (want[0], want[1], want[0] - want[1])):
        assert abs(float(total) - float(score)) <= TOLERANCE["score"] + 1e-9  # both rounded: one step apart at most
        assert abs(float(score) - model) < TOLERANCE["score"] + 5e-5  # the page rounds to 4 decimals


def test_the_waterfall_in_the_spec_is_the_references_and_ends_on_the_models_score(site, references):
    want = references["who"]
    rows = spec(site, "who")["datasets"]["parts"]
    assert len(rows) == N_PARTS + 1
    running = 0.0
    for row, (_, _, t, _) in zip(rows, want.parts):
        assert abs(row["t"] - t) < TOLERANCE["score"] and abs(row["t0"] - running) < TOLERANCE["score"]
        running += t
    assert abs(rows[-1]["t"] - want.score[0]) < TOLERANCE["score"]
    assert abs(rows[-1]["d"] - (want.score[0] - want.score[1])) < TOLERANCE["score"]


# ---------------------------------------------------------------------------------------------- inside a part


@pytest.mark.parametrize("label", ["who", "vs"])
def test_each_layers_heads_in_the_downloads_and_the_page_are_the_references(site, references, label):
    want = references[label]
    rows = tables(site, label)["heads"]
    assert len(rows) == N_LAYER * (N_HEAD + 1)
    inside = spec(site, label)["datasets"]["inside"]
    for layer, (heads, bias) in enumerate(want.heads, start=1):
        mine = [r for r in rows if r["layer"] == layer]
        assert [r["head"] for r in mine] == [*range(1, N_HEAD + 1), None]
        for row, pair in zip(mine, [*heads.tolist(), bias.tolist()]):
            assert abs(row["target"] - pair[0]) < TOLERANCE["score"], row
            assert abs(row["versus"] - pair[1]) < TOLERANCE["score"], row
        shown = [r for r in inside if r["key"] == f"attention-{layer}" and r["score"] == "difference"]
        assert [r["item"] for r in shown] == [f"head {h}" for h in range(1, N_HEAD + 1)] + [FIXED]
        for row, pair in zip(shown, [*heads.tolist(), bias.tolist()]):
            assert abs(row["v"] - (pair[0] - pair[1])) < TOLERANCE["score"], row


@pytest.mark.parametrize("label", ["who", "vs"])
def test_each_layers_neurons_are_the_references_largest_and_the_rest_adds_up(site, references, label):
    want = references[label]
    rows = tables(site, label)["neurons"]
    for layer, (each, bias) in enumerate(want.neurons, start=1):
        sizes = {"target": each[:, 0].abs(), "difference": (each[:, 0] - each[:, 1]).abs()}
        for by, size in sizes.items():
            mine = [r for r in rows if r["layer"] == layer and r["by"] == by]
            top = [r for r in mine if r["neuron"] is not None]
            largest = sorted(range(each.shape[0]), key=lambda n, size=size: -size[n].item())[:10]
            assert {r["neuron"] for r in top} == {n + 1 for n in largest}, (layer, by)  # numbered from 1
            for row in top:
                assert abs(row["target"] - each[row["neuron"] - 1, 0].item()) < TOLERANCE["score"], row
                assert abs(row["versus"] - each[row["neuron"] - 1, 1].item()) < TOLERANCE["score"], row
            others, bias_row = mine[-2], mine[-1]
            rest = [n for n in range(each.shape[0]) if n not in largest]
            assert abs(others["target"] - sum(each[n, 0].item() for n in rest)) < TOLERANCE["score"]
            assert abs(others["versus"] - sum(each[n, 1].item() for n in rest)) < TOLERANCE["score"]
            assert abs(bias_row["target"] - bias[0].item()) < TOLERANCE["score"]


def test_the_drilldown_names_the_neurons_from_1_and_counts_the_others(site, references):
    each, _ = references["who"].neurons[0]
    inside = [
        r for r in spec(site, "who")["datasets"]["inside"] if r["key"] == "feed-forward-1" and r["score"] == "target"
    ]
    largest = sorted(range(each.shape[0]), key=lambda n: -abs(each[n, 0].item()))[:10]
    assert {r["item"] for r in inside[:10]} == {f"neuron {n + 1}" for n in largest}
    assert inside[10]["item"] == f"the other {each.shape[0] - 10:,} neurons" and inside[11]["item"] == FIXED


# ---------------------------------------------------------------------------------------------- the curves


@pytest.mark.parametrize("label", ["who", "vs"])
def test_the_probability_after_every_half_layer_is_the_references(site, references, label):
    want = references[label].stages
    rows = tables(site, label)["layers"]
    drawn = spec(site, label)["datasets"]["layers"]
    assert len(rows) == len(drawn) == len(want) == 1 + 2 * N_LAYER
    for row, point, (name, layer, p, correction, residual) in zip(rows, drawn, want):
        assert abs(row["p"] - p) < TOLERANCE["probability"] and abs(point["p"] - p) < TOLERANCE["probability"]
        assert (row["correction"] is None) == (correction is None)
        assert abs(row["residual"] - residual) < 1e-4 * max(1.0, residual)
        assert row["after"] == ("before any layer" if layer is None else f"after layer {layer + 1}'s {name}")
        assert row["after_layer"] == point["x"] == (0 if layer is None else layer + (0.5 if name == "attention" else 1))


# ---------------------------------------------------------------------------------------------- the config


def test_a_versus_given_in_the_config_is_used(site):
    assert versus_id(site, "vs") == one_token(" Germany")
    assert versus_id(site, "who") != one_token(" Germany")
    assert "_Germany" in page(site, "vs")
    printed = (site / "figures.txt").read_text(encoding="utf-8")
    block = printed[printed.index("(vs)") :]
    assert "_France" in block.splitlines()[3] and "_Germany" in block.splitlines()[3]
    assert "_Paris (token 5)" in block


@pytest.mark.parametrize(
    "fields, field, words",
    [
        ({"versus": " France"}, "versus", "target itself"),
        ({"versus": " United States"}, "versus", "2 tokens"),
        ({"target": " United States"}, "target", "2 tokens"),
        ({"position": 99}, "position", "outside the text"),
        ({"position": "Berlin"}, "position", "no token"),
    ],
)
def test_bad_input_ends_with_one_line_naming_the_label_and_field(
    registered, small_model_dir, tmp_path, fields, field, words
):
    values = {"kind": "ledger", "label": "bad", "text": TEXT, "target": " France", **fields}
    result = build(small_model_dir, tmp_path, figure(**values))
    output = result.output.strip()
    assert result.exit_code == 2, output
    assert len(output.splitlines()) == 1 and output.startswith("error: ") and "Traceback" not in output, output
    assert "label 'bad'" in output and f"field '{field}'" in output and words in output, output


# ---------------------------------------------------------------------------------------------- print and page


def test_the_printed_figure_has_one_line_per_part_numbered_from_1_and_a_last_line_of_sums(site, references):
    printed = (site / "figures.txt").read_text(encoding="utf-8")
    lines = printed[printed.index("(who)") : printed.index("(vs)")].rstrip("\n").splitlines()
    assert lines[0] == f"(who) {ledger.Ledger.TITLE}"
    numbered = [line for line in lines if re.match(r"^\s+\d+\s", line)]
    assert [int(line.split()[0]) for line in numbered] == list(range(1, N_PARTS + 1))
    assert [line.split()[1:-3] for line in numbered] == [
        SAID.get(name, name).split() if layer is None else ["layer", str(layer + 1), name]
        for name, layer, _, _ in references["who"].parts
    ]
    for line, (_, _, t, v) in zip(numbered, references["who"].parts):
        assert abs(float(line.split()[-3]) - t) < TOLERANCE["score"] + 5e-5
        assert abs(float(line.split()[-1]) - (t - v)) < TOLERANCE["score"] + 5e-5
    assert lines.index(numbered[-1]) == len(lines) - 2
    sums = re.findall(r"(-?\d+\.\d+) \((-?\d+\.\d+)\)", lines[-1])
    assert len(sums) == 3
    score = references["who"].score
    for (total, model), want in zip(sums, (score[0], score[1], score[0] - score[1])):
        assert abs(float(total) - want) < TOLERANCE["score"] + 5e-5
        assert abs(float(model) - want) < TOLERANCE["score"] + 5e-5


def test_the_part_select_and_score_radio_are_bound_and_the_guess_links_to_a_state_they_allow(site):
    chart = spec(site, "who")
    params = {p["name"]: p for p in chart["params"]}
    assert params["score"]["bind"]["options"] == ["target", "difference"]
    keys = [f"{part}-{layer}" for layer in range(1, N_LAYER + 1) for part in ("attention", "feed-forward")]
    assert params["part"]["bind"]["input"] == "select" and params["part"]["bind"]["options"] == keys
    assert params["part"]["bind"]["labels"][0] == "layer 1 attention"
    assert params["part"]["value"] in keys and "description" in params
    links = re.findall(r'<a [^>]*?href="#score=(\w+)&amp;part=([\w-]+)">', page(site, "who"))
    assert len(links) == 2 and all(score in ("target", "difference") and part in keys for score, part in links)


def test_the_guess_names_the_layer_part_that_adds_most(site, references):
    want = references["who"]
    layer_parts = [(name, layer, t) for name, layer, t, _ in want.parts if layer is not None]
    name, layer, t = max(layer_parts, key=lambda p: p[2])
    words = html.unescape(page(site, "who"))
    assert f'href="#score=target&part={name}-{layer + 1}"' in words
    if t > 0:
        assert f"Layer {layer + 1} {name}: it adds {t:+.4f}" in words


def test_the_kind_follows_the_contract():
    kind = ledger.Ledger()
    assert kind.KIND == "ledger" and kind.TITLE and kind.CAPTION and kind.GUIDE and kind.EXPLORE
    fig = Figure("t.toml", 1, "ledger", "x", None, {"text": "A b", "target": " c", "versus": " d", "position": 2})
    assert kind.asks(fig).config == (["ledger", {"text": "A b", "target": " c", "position": 2, "versus": " d"}],)
    assert kind.DATA_FILES == ("parts.json",)
    assert set(kind.FIELDS) == {"text", "target", "position", "versus"}


def test_the_page_says_the_bias_in_the_captions_words_and_the_downloads_speak_of_layers_not_stages(site):
    words = html.unescape(page(site, "who"))
    assert "bias" not in json.dumps(spec(site, "who")["datasets"]) and "stage" not in json.dumps(tables(site, "who"))
    assert "a fixed part, the same for every text" in words and FIXED in words and "layer norm bias" not in words
    assert list(tables(site, "who")) == ["parts", "heads", "neurons", "layers"]
    sizes = next(
        view
        for view in spec(site, "who")["vconcat"][1]["vconcat"][1]["layer"]
        if view["encoding"]["y"]["field"] == "size"
    )
    assert sizes["encoding"]["y"]["title"] == "size: how large its numbers are, overall"
    assert sizes["encoding"]["color"]["legend"]["orient"] == "top"  # above the curves it names, which alone
    assert spec(site, "who")["vconcat"][1]["resolve"] == {"scale": {"color": "independent"}}  # take that legend
