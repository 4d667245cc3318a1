"""The lens and the comparison against the independent reference (plain tensor math from the weights)."""

from __future__ import annotations

import json

import pytest
import reference as ref_lib
from click.testing import CliRunner

from build import cli
from conftest import gpt2_tokenizer

TIRED = "The animal didn't cross the street because it was too tired"
WIDE = "The animal didn't cross the street because it was too wide"
MAYA = "Maya lives in Paris, the capital of"
CONFIG = f'''
[[figure]]
kind = "lens"
label = "lens"
text = "{MAYA}"

[[figure]]
kind = "compare"
label = "cmp"
texts = ["{TIRED}", "{WIDE}"]
'''


@pytest.fixture(scope="module")
def run_record(small_model_dir, tmp_path_factory):
    work = tmp_path_factory.mktemp("explore")
    (work / "c.toml").write_text(CONFIG, encoding="utf-8")
    result = CliRunner().invoke(
        cli,
        ["--model", str(small_model_dir), "--config", str(work / "c.toml"), "--out", str(work / "site"), "--no-cache"],
    )
    assert result.exit_code == 0, result.output
    return json.loads((work / "site" / "data" / "run.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def tokenizer():
    return gpt2_tokenizer()


def test_lens_probabilities_and_ranks_are_the_references(run_record, small_model_dir, tokenizer):
    lens = next(t["lens"] for t in run_record["texts"] if t["text"] == MAYA)
    probs = ref_lib.reference(small_model_dir, tokenizer(MAYA)["input_ids"]).probs  # (stages, position, vocab)
    assert len(lens["tokens"]) > 3
    for s in range(probs.shape[0]):
        for q in range(probs.shape[1]):
            for i, token in enumerate(lens["tokens"]):
                p = probs[s, q, token]
                assert abs(lens["p"][s][q][i] - float(p)) < 1e-5
                # Rank 1 is the most likely; ties within float noise may swap neighbours.
                above = int((probs[s, q] > p + 1e-9).sum())
                level = int((probs[s, q] >= p - 1e-9).sum())
                assert above + 1 <= lens["rank"][s][q][i] <= level, (s, q, token)


def test_compare_is_exactly_zero_on_the_shared_beginning_and_not_after(run_record, small_model_dir, tokenizer):
    found = run_record["comparisons"][0]
    ids_a, ids_b = tokenizer(TIRED)["input_ids"], tokenizer(WIDE)["input_ids"]
    shared = next(i for i, (a, b) in enumerate(zip(ids_a, ids_b)) if a != b)
    assert found["texts"] == [TIRED, WIDE] and found["shared"] == shared == 11
    for row in found["distance"]:
        assert all(d == 0.0 for d in row[:shared])  # exactly: no token looks to the right
        assert all(d > 0 for d in row[shared:])


def test_compare_distances_are_the_references(run_record, small_model_dir, tokenizer):
    found = run_record["comparisons"][0]
    a = ref_lib.reference(small_model_dir, tokenizer(TIRED)["input_ids"]).residual
    b = ref_lib.reference(small_model_dir, tokenizer(WIDE)["input_ids"]).residual
    expected = (a - b).norm(dim=-1)  # (stages, position)
    for s, row in enumerate(found["distance"]):
        for q, d in enumerate(row):
            assert abs(d - float(expected[s, q])) <= 1e-4 + 1e-3 * float(expected[s, q]), (s, q)
