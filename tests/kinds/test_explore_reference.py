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
# Two texts of different lengths: their shared beginning is run at other lengths, where float32 may round otherwise.
BARKED, TIRED_DOG = "Der Hund bellte laut, weil er hungrig war.", "Der Hund bellte laut, weil er müde war."
PAIRS = [(TIRED, WIDE), (BARKED, TIRED_DOG)]
CONFIG = f'''
[[figure]]
kind = "lens"
label = "lens"
text = "{MAYA}"

[[figure]]
kind = "compare"
label = "cmp"
texts = ["{TIRED}", "{WIDE}"]

[[figure]]
kind = "compare"
label = "cmp-lengths"
texts = ["{BARKED}", "{TIRED_DOG}"]
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


@pytest.mark.parametrize("pair", [0, 1])
def test_compare_is_exactly_zero_on_the_shared_beginning_and_not_after(run_record, small_model_dir, tokenizer, pair):
    """Exactly, for texts of the same length and of different lengths: no token looks to the right."""
    found, texts = run_record["comparisons"][pair], PAIRS[pair]
    ids_a, ids_b = (tokenizer(text)["input_ids"] for text in texts)
    assert len(ids_a) != len(ids_b) if pair else len(ids_a) == len(ids_b)
    shared = next(i for i, (a, b) in enumerate(zip(ids_a, ids_b)) if a != b)
    assert found["texts"] == list(texts) and found["shared"] == shared == (11 if pair == 0 else shared)
    for row in found["distance"]:
        assert all(d == 0.0 for d in row[:shared])
        assert all(d > 0 for d in row[shared:])


@pytest.mark.parametrize("pair", [0, 1])
def test_compare_distances_are_the_references(run_record, small_model_dir, tokenizer, pair):
    found, texts = run_record["comparisons"][pair], PAIRS[pair]
    a, b = (ref_lib.reference(small_model_dir, tokenizer(text)["input_ids"]).residual for text in texts)
    n = min(a.shape[1], b.shape[1])
    expected = (a[:, :n] - b[:, :n]).norm(dim=-1)  # (stages, position)
    for s, row in enumerate(found["distance"]):
        for q, d in enumerate(row):
            assert abs(d - float(expected[s, q])) <= 1e-4 + 1e-3 * float(expected[s, q]), (s, q)
