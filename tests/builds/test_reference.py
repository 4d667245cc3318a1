"""The build's data files checked number by number against an independent reference forward pass.

The reference (tests/reference.py) is GPT-2 in plain float64 tensor math from the saved weights; it
shares no code with the build. Every attention share, at every layer, head, query and key, must be within
1e-4 of it, and every probability the data files list, at every stage and position, within 1e-5.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

import reference as ref_lib
from conftest import SMALL_SHAPE

DATA_FORMAT = "gpt2-figures/1"
ATTENTION_TOLERANCE = 1e-4
PROBABILITY_TOLERANCE = 1e-5
TIE_TOLERANCE = 1e-6

ANIMAL = "The animal didn't cross the street because it was too tired"
MAYA = "Maya lives in Paris, the capital of"
TARGET = " France"

TOP_KEYS = {"format", "model", "text", "tokens", "attention", "readout"}
MODEL_KEYS = {"name", "revision", "n_layer", "n_head", "d_model", "vocab_size", "n_ctx"}


# ---------------------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def data_files(small_build) -> dict[str, list[dict]]:
    """text -> the figure data files under data/ written for that text (normally exactly one)."""
    found: dict[str, list[dict]] = {}
    for path in sorted((Path(small_build) / "data").glob("*.json")):
        content = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(content, dict) or content.get("format") != DATA_FORMAT or "attention" not in content:
            continue  # some other JSON (an index, a manifest, ...)
        found.setdefault(content["text"], []).append(content)
    return found


@pytest.fixture(scope="session")
def data(data_files):
    """The one data file for each of the two texts, by text."""
    return {text: files[0] for text, files in data_files.items() if files}


@pytest.fixture(scope="session")
def tokenizer(small_model_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(small_model_dir))


@pytest.fixture(scope="session")
def references(data, tokenizer, weights) -> dict[str, ref_lib.Reference]:
    """text -> the reference forward pass over the tokenizer's ids for that text."""
    return {text: ref_lib.forward(weights, tokenizer(text)["input_ids"]) for text in (ANIMAL, MAYA)}


@pytest.fixture(scope="session")
def transformers_model(small_model_dir):
    from transformers import GPT2LMHeadModel

    return GPT2LMHeadModel.from_pretrained(
        str(small_model_dir), attn_implementation="eager", dtype=torch.float32
    ).eval()


# ---------------------------------------------------------------------------------------------- comparisons


def attention_deviation(data: dict, attention: torch.Tensor) -> float:
    """The largest |share - reference| over every layer, head, query and key 0..query of a data file.

    `attention` is the reference's (layers, heads, query, key). Fails if the shapes differ.
    """
    n_layer, n_head, n_pos, _ = attention.shape
    listed = data["attention"]
    assert len(listed) == n_layer, f"{len(listed)} layers of attention, the model has {n_layer}"
    worst = 0.0
    for layer in range(n_layer):
        assert len(listed[layer]) == n_head, f"layer {layer + 1}: {len(listed[layer])} heads, expected {n_head}"
        for head in range(n_head):
            rows = listed[layer][head]
            assert len(rows) == n_pos, f"layer {layer + 1} head {head + 1}: {len(rows)} query rows, expected {n_pos}"
            for query, row in enumerate(rows):
                assert len(row) == query + 1, (
                    f"layer {layer + 1} head {head + 1} query {query}: {len(row)} shares, expected {query + 1}"
                )
                expected = attention[layer, head, query, : query + 1]
                got = torch.tensor(row, dtype=torch.float64)
                worst = max(worst, (got - expected).abs().max().item())
    return worst


def readout_deviation(data: dict, probs: torch.Tensor) -> float:
    """The largest |p - reference p of that id| over every listed top token at every stage and position.

    `probs` is the reference's (stages, position, vocab). Fails if the shapes differ.
    """
    n_stage, n_pos, _ = probs.shape
    listed = data["readout"]
    assert len(listed) == n_stage, f"{len(listed)} read-out stages, expected {n_stage} (embedding + each layer)"
    worst = 0.0
    for stage in range(n_stage):
        assert len(listed[stage]) == n_pos, f"stage {stage}: {len(listed[stage])} positions, expected {n_pos}"
        for position, entry in enumerate(listed[stage]):
            for token_id, p in entry["top"]:
                worst = max(worst, abs(p - probs[stage, position, token_id].item()))
    return worst


def target_deviation(data: dict, probs: torch.Tensor, target_id: int) -> float:
    """The largest |target p - reference p| at every stage and position."""
    n_stage, n_pos, _ = probs.shape
    listed = data["target"]["p"]
    assert len(listed) == n_stage, f"{len(listed)} target stages, expected {n_stage}"
    got = torch.tensor(listed, dtype=torch.float64)
    assert got.shape == (n_stage, n_pos), f"target p has shape {tuple(got.shape)}, expected {(n_stage, n_pos)}"
    return (got - probs[:, :, target_id]).abs().max().item()


def both(data):
    """The two data files, in a fixed order, failing clearly if one is missing."""
    for text in (ANIMAL, MAYA):
        assert text in data, f"no data file for {text!r}; found texts: {sorted(data)}"
    return [(text, data[text]) for text in (ANIMAL, MAYA)]


# ---------------------------------------------------------------------------------------------- the files


def test_there_is_exactly_one_data_file_per_distinct_text(data_files):
    assert sorted(data_files) == sorted([ANIMAL, MAYA])
    for text, files in data_files.items():
        assert len(files) == 1, f"{len(files)} data files for {text!r}"


def test_data_file_has_exactly_the_contract_keys(data):
    for text, content in both(data):
        # Only the Maya text has a figure that names a target.
        expected = TOP_KEYS | ({"target"} if text == MAYA else set())
        assert set(content) == expected, f"{text!r}: keys {sorted(content)}, expected {sorted(expected)}"
        assert content["format"] == DATA_FORMAT
        assert content["text"] == text
        assert set(content["model"]) == MODEL_KEYS
        if text == MAYA:
            assert set(content["target"]) == {"id", "text", "p"}


def test_model_block_states_the_models_size(data, small_model_dir):
    for _, content in both(data):
        model = content["model"]
        assert isinstance(model["name"], str) and model["name"]
        assert model["revision"] is None or isinstance(model["revision"], str)
        assert model["n_layer"] == SMALL_SHAPE["n_layer"]
        assert model["n_head"] == SMALL_SHAPE["n_head"]
        assert model["d_model"] == SMALL_SHAPE["n_embd"]
        assert model["vocab_size"] == SMALL_SHAPE["vocab_size"]
        assert model["n_ctx"] == SMALL_SHAPE["n_positions"]
        for key in ("n_layer", "n_head", "d_model", "vocab_size", "n_ctx"):
            assert type(model[key]) is int, f"model.{key} is {type(model[key]).__name__}, not int"


def test_tokens_are_the_tokenizers_ids_for_the_text(data, tokenizer):
    for text, content in both(data):
        assert [t["id"] for t in content["tokens"]] == tokenizer(text)["input_ids"]
        for token in content["tokens"]:
            assert set(token) == {"id", "text"}
            assert type(token["id"]) is int and isinstance(token["text"], str)


def test_tokens_are_decoded_alone(data, tokenizer):
    for _, content in both(data):
        for token in content["tokens"]:
            assert token["text"] == tokenizer.decode([token["id"]])
    # GPT-2's tokens carry their leading space: " animal", not "animal" nor "Ġanimal".
    assert [t["text"] for t in data[ANIMAL]["tokens"]][:3] == ["The", " animal", " didn"]


# ---------------------------------------------------------------------------------------------- attention


def test_attention_rows_add_up_to_one(data):
    for text, content in both(data):
        for layer, heads in enumerate(content["attention"]):
            for head, rows in enumerate(heads):
                for query, row in enumerate(rows):
                    assert all(share >= 0 for share in row), f"{text!r} L{layer + 1} H{head + 1} q{query}: negative"
                    assert sum(row) == pytest.approx(1.0, abs=ATTENTION_TOLERANCE), (
                        f"{text!r} L{layer + 1} H{head + 1} q{query}: the shares add up to {sum(row)}"
                    )


def test_every_attention_share_matches_the_reference_within_1e_4(data, references):
    for text, content in both(data):
        worst = attention_deviation(content, references[text].attention)
        assert worst <= ATTENTION_TOLERANCE, f"{text!r}: an attention share is off by {worst:.3g}"


# ---------------------------------------------------------------------------------------------- read-out


def test_readout_has_a_stage_for_the_embedding_and_each_layer_and_an_entry_per_position(data):
    for _, content in both(data):
        assert len(content["readout"]) == SMALL_SHAPE["n_layer"] + 1
        for stage in content["readout"]:
            assert len(stage) == len(content["tokens"])
            for entry in stage:
                assert set(entry) == {"top"}


def test_top_tokens_are_sorted_highest_first_and_at_least_ten(data):
    for text, content in both(data):
        for stage, positions in enumerate(content["readout"]):
            for position, entry in enumerate(positions):
                top = entry["top"]
                where = f"{text!r} stage {stage} position {position}"
                assert len(top) >= 10, f"{where}: {len(top)} top tokens"
                for pair in top:
                    assert len(pair) == 2 and type(pair[0]) is int and isinstance(pair[1], float), f"{where}: {pair}"
                ids = [token_id for token_id, _ in top]
                assert len(set(ids)) == len(ids), f"{where}: a token is listed twice"
                ps = [p for _, p in top]
                assert ps == sorted(ps, reverse=True), f"{where}: not highest first: {ps}"
                assert all(0.0 <= p <= 1.0 for p in ps)


def test_every_readout_probability_matches_the_reference_within_1e_5(data, references):
    for text, content in both(data):
        worst = readout_deviation(content, references[text].probs)
        assert worst <= PROBABILITY_TOLERANCE, f"{text!r}: a read-out probability is off by {worst:.3g}"


def test_top_tokens_are_the_references_most_likely_tokens(data, references):
    for text, content in both(data):
        probs = references[text].probs  # (stages, position, vocab)
        for stage, positions in enumerate(content["readout"]):
            for position, entry in enumerate(positions):
                ids = [token_id for token_id, _ in entry["top"]]
                expected = probs[stage, position].topk(len(ids)).values  # highest first
                got = probs[stage, position, ids]  # the reference's p of the listed ids, in listed order
                # The same tokens in the same order, up to ties: rank by rank, the listed token's reference p
                # is the reference's p at that rank.
                worst = (got - expected).abs().max().item()
                assert worst <= TIE_TOLERANCE, (
                    f"{text!r} stage {stage} position {position}: listed {ids}, the reference's top are "
                    f"{probs[stage, position].topk(len(ids)).indices.tolist()}"
                )


def test_read_out_after_last_layer_equals_softmax_of_transformers_logits(
    data, references, transformers_model, tokenizer
):
    for text, content in both(data):
        ids = tokenizer(text)["input_ids"]
        with torch.no_grad():
            logits = transformers_model(torch.tensor([ids])).logits[0]  # (position, vocab)
        model_probs = torch.softmax(logits.double(), dim=-1)
        last = references[text].probs[-1]
        assert (last - model_probs).abs().max().item() <= 1e-6, (
            "the reference's last read-out is not the model's output"
        )
        # The build's last stage, every listed token, against the model's own output.
        for position, entry in enumerate(content["readout"][-1]):
            for token_id, p in entry["top"]:
                assert abs(p - model_probs[position, token_id].item()) <= PROBABILITY_TOLERANCE, (
                    f"{text!r} last stage position {position} token {token_id}: {p} vs {model_probs[position, token_id]}"
                )


def test_target_probability_matches_reference(data, references, tokenizer):
    content = data[MAYA]
    target_id = tokenizer(TARGET)["input_ids"][0]
    assert content["target"]["id"] == target_id
    assert content["target"]["text"] == TARGET
    probs = references[MAYA].probs
    worst = target_deviation(content, probs, target_id)
    assert worst <= PROBABILITY_TOLERANCE, f"the target's probability is off by {worst:.3g}"
    # The target's p is small in this model, so 1e-5 alone would pass nearly anything: also within 1 %.
    got = torch.tensor(content["target"]["p"], dtype=torch.float64)
    expected = probs[:, :, target_id]
    assert torch.allclose(got, expected, rtol=1e-2, atol=1e-8), "the target's probability is off by more than 1 %"
    # Where the target is among the listed top tokens, the two numbers are the same number.
    for stage, positions in enumerate(content["readout"]):
        for position, entry in enumerate(positions):
            for token_id, p in entry["top"]:
                if token_id == target_id:
                    assert p == pytest.approx(content["target"]["p"][stage][position], abs=1e-7)


# ---------------------------------------------------------------------------------------------- the reference


def test_reference_matches_transformers_attention_and_residual_stream(weights, transformers_model, tokenizer):
    ids = tokenizer(ANIMAL)["input_ids"]
    ours = ref_lib.forward(weights, ids)
    with torch.no_grad():
        out = transformers_model(torch.tensor([ids]), output_attentions=True, output_hidden_states=True)
    attention = torch.stack(out.attentions)[:, 0].double()  # (layers, heads, query, key)
    hidden = torch.stack(out.hidden_states)[:, 0].double()  # (stages, position, d_model)
    assert (attention - ours.attention).abs().max().item() <= 1e-6
    # transformers' last hidden state already has ln_f applied; the stages before it are the raw stream.
    assert (hidden[:-1] - ours.residual[:-1]).abs().max().item() <= 1e-5
    ln_f = ref_lib.layer_norm(
        ours.residual[-1], weights["transformer.ln_f.weight"], weights["transformer.ln_f.bias"], weights.eps
    )
    assert (hidden[-1] - ln_f).abs().max().item() <= 1e-5


def test_the_comparison_catches_a_final_layer_norm_applied_twice(data, references, weights):
    for text, content in both(data):
        residual = references[text].residual
        once = ref_lib.layer_norm(
            residual, weights["transformer.ln_f.weight"], weights["transformer.ln_f.bias"], weights.eps
        )
        twice = ref_lib.readout(once, weights)  # ln_f, then ln_f again inside readout
        assert readout_deviation(content, twice) > 100 * PROBABILITY_TOLERANCE


def test_the_comparison_catches_one_changed_weight(data, weights, tokenizer):
    # One number of one layer's query weights, and one bias of the last feed-forward layer.
    changed = ref_lib.Weights(dict(weights.tensors), weights.n_layer, weights.n_head, weights.eps)
    w = changed["transformer.h.1.attn.c_attn.weight"].clone()
    w[0, 0] += 1.0
    changed.tensors["transformer.h.1.attn.c_attn.weight"] = w
    b = changed["transformer.h.2.mlp.c_proj.bias"].clone()
    b[0] += 0.5
    changed.tensors["transformer.h.2.mlp.c_proj.bias"] = b
    for text, content in both(data):
        wrong = ref_lib.forward(changed, tokenizer(text)["input_ids"])
        assert attention_deviation(content, wrong.attention) > ATTENTION_TOLERANCE
        assert readout_deviation(content, wrong.probs) > PROBABILITY_TOLERANCE
