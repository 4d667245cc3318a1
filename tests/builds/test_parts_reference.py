"""The numbers of data/parts.json (figsite/capture/parts.py) against the float64 reference (tests/reference.py),
on the small seeded model whose layer norms and biases are random."""

from __future__ import annotations

import math

import pytest

import reference as ref_lib
from figsite.capture import api as capture
from figsite.capture import api as capture_parts

TEXT = "Maya lives in Paris, the capital of"
TOLERANCE = {"share": 1e-6, "vector": 1e-5, "score": 1e-4, "probability": 1e-5}


@pytest.fixture(scope="module")
def ids(loaded):
    return capture.token_ids(loaded, TEXT)


@pytest.fixture(scope="module")
def target(loaded):
    return capture.token_ids(loaded, " France")[0]


@pytest.mark.parametrize("layer, head, query", [(0, 0, 8), (2, 3, 8), (1, 2, 3)])
def test_a_heads_query_keys_and_shares_are_the_references(loaded, weights, ids, layer, head, query):
    got = capture_parts.scores(loaded, ids, layer, head, query)
    q, k, shares = ref_lib.head_query_keys(weights, ids, layer, head, query)
    assert max(abs(a - b) for a, b in zip(got["q"], q.tolist())) < TOLERANCE["vector"]
    assert len(got["k"]) == query + 1
    assert max(abs(a - b) for row, want in zip(got["k"], k.tolist()) for a, b in zip(row, want)) < TOLERANCE["vector"]
    assert max(abs(a - b) for a, b in zip(got["shares"], shares.tolist())) < TOLERANCE["share"]


@pytest.fixture(scope="module")
def ledgers(loaded, weights, ids, target):
    got = capture_parts.ledger(loaded, ids, len(ids) - 1, target, None)
    return got, ref_lib.ledger(weights, ids, len(ids) - 1, target, got["versus"]["id"])


def test_every_part_of_the_score_is_the_references_and_the_parts_add_up_to_the_models_score(ledgers):
    got, want = ledgers
    assert [(r["part"], r["layer"]) for r in got["parts"]] == [(name, layer) for name, layer, _, _ in want.parts]
    for row, (_, _, t, v) in zip(got["parts"], want.parts):
        assert abs(row["target"] - t) < TOLERANCE["score"] and abs(row["versus"] - v) < TOLERANCE["score"], row
    for key, index in (("target", 0), ("versus", 1)):
        total = sum(row[key] for row in got["parts"])
        assert abs(total - got["score"][key]) < TOLERANCE["score"]
        assert abs(got["score"][key] - want.score[index]) < TOLERANCE["score"]


def test_the_versus_token_is_the_top_guess_other_than_the_target(loaded, ledgers, target):
    got, _ = ledgers
    top = capture.run_text(loaded, TEXT, " France").data["readout"][-1][-1]["top"]
    assert got["versus"]["id"] == next(token for token, _ in top if token != target)


def test_each_layers_heads_and_neurons_are_the_references_and_add_up_to_its_part(ledgers):
    got, want = ledgers
    for layer, (heads, _bias) in enumerate(want.heads):
        split = got["heads"][layer]
        for head, pair in enumerate(split["heads"]):
            assert max(abs(a - b) for a, b in zip(pair, heads[head].tolist())) < TOLERANCE["score"]
        part = next(r for r in got["parts"] if r["part"] == "attention" and r["layer"] == layer)
        assert abs(sum(p[0] for p in split["heads"]) + split["bias"][0] - part["target"]) < TOLERANCE["score"]
    for layer, (rows, _bias) in enumerate(want.neurons):
        split = got["neurons"][layer]
        for neuron in split["target"]["top"]:
            assert abs(neuron["target"] - rows[neuron["neuron"], 0].item()) < TOLERANCE["score"]
            assert abs(neuron["versus"] - rows[neuron["neuron"], 1].item()) < TOLERANCE["score"]
        largest = sorted(range(rows.shape[0]), key=lambda n: -abs(rows[n, 0].item()))[: capture_parts.NEURONS_SHOWN]
        assert {n["neuron"] for n in split["target"]["top"]} == set(largest)
        part = next(r for r in got["parts"] if r["part"] == "feed-forward" and r["layer"] == layer)
        added = sum(n["target"] for n in split["target"]["top"]) + split["target"]["others"][0] + split["bias"][0]
        assert abs(added - part["target"]) < TOLERANCE["score"]


def test_the_probability_after_every_half_layer_and_the_sizes_are_the_references(ledgers):
    got, want = ledgers
    assert len(got["stages"]) == len(want.stages) == 1 + 2 * 3
    for stage, (name, layer, p, correction, residual) in zip(got["stages"], want.stages):
        assert (stage["part"], stage["layer"]) == (name, layer)
        assert abs(stage["p"] - p) < TOLERANCE["probability"]
        assert abs(stage["residual"] - residual) < TOLERANCE["vector"] * max(1.0, residual)
        assert (stage["correction"] is None) == (correction is None)
        if correction is not None:
            assert abs(stage["correction"] - correction) < TOLERANCE["vector"] * max(1.0, correction)


def test_the_last_half_layer_reads_what_the_model_outputs(loaded, ledgers):
    got, _ = ledgers
    data = capture.run_text(loaded, TEXT, " France").data
    assert abs(got["stages"][-1]["p"] - data["target"]["p"][-1][-1]) < TOLERANCE["probability"]


def test_every_knockout_is_the_references_and_the_intact_run_is_the_model(loaded, weights, ids, target):
    got = capture_parts.knockouts(loaded, ids, 5, target, 1)
    data = capture.run_text(loaded, TEXT, " France").data
    assert abs(got["intact"]["p"] - data["target"]["p"][-1][5]) < TOLERANCE["probability"]
    assert len(got["runs"]) == 3 + 3 + 4
    for run in got["runs"]:
        p, rank = ref_lib.knockout(weights, ids, 5, target, run["part"], run["layer"], run["head"])
        assert abs(run["p"] - p) < TOLERANCE["probability"], run
        assert abs(run["rank"] - rank) <= 1, run  # float32 against float64: a near tie may swap


def test_a_knockout_removes_something(loaded, ids, target):
    got = capture_parts.knockouts(loaded, ids, 5, target, None)
    assert any(not math.isclose(run["p"], got["intact"]["p"], rel_tol=1e-3) for run in got["runs"])
