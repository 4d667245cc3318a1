"""The GPT-NeoX family (figsite.model.neox, Pythia's design) against transformers' own GPTNeoXForCausalLM, run in
float64 with eager attention: seeded random models saved with save_pretrained (4 layers, 8 heads, a quarter of each
head turned; parallel layers as Pythia's, and sequential ones), a byte-level tokenizer with no start token, loaded
by the build's loader and run in float32 as the build runs them. The reference is transformers, never our own code.
"""

from __future__ import annotations

import json

import pytest
import torch

from conftest import NEOX_SHAPE, neox_dir
from figsite.capture.hooks import point
from figsite.capture.parts.knockouts import knockouts
from figsite.capture.parts.ledgers import ledger
from figsite.capture.parts.scores import scores
from figsite.errors import BuildError
from figsite.model.load import load
from figsite.model.tokens import token_ids, token_text

TEXT = "The animal didn’t cross the street because it was too tired, 猫 said"
TOLERANCE = 1e-5


@pytest.fixture(scope="module", params=[True, False], ids=["parallel", "sequential"])
def pair(request, tmp_path_factory):
    """(ours as the build loads it, transformers' model of the same directory in float64, the text's ids)."""
    import transformers

    directory = neox_dir(tmp_path_factory.mktemp("small-neox"), use_parallel_residual=request.param)
    loaded = load(str(directory), None, 0, "cpu")
    theirs = transformers.GPTNeoXForCausalLM.from_pretrained(
        str(directory), dtype=torch.float64, attn_implementation="eager"
    ).eval()
    return loaded, theirs, token_ids(loaded, TEXT)


def reference(theirs, ids: list[int]):
    with torch.no_grad():
        return theirs(torch.tensor([ids]), output_attentions=True, output_hidden_states=True)


def test_the_config_is_pythias_shape(pair):
    config = pair[0].model.config
    assert (config.n_layer, config.n_head, config.d_head, config.rotary_dim) == (4, 8, 8, 2)
    assert config.parallel == pair[1].config.use_parallel_residual and not config.tie_word_embeddings


def test_every_share_every_probability_and_the_stream_after_each_layer_match_transformers(pair):
    loaded, theirs, ids = pair
    out = reference(theirs, ids)
    n_layer = loaded.model.config.n_layer
    names = [point(layer, name) for layer in range(n_layer) for name in ("hook_resid_post", "attn.hook_pattern")]
    with torch.no_grad():
        cache = loaded.model.run_with_cache(torch.tensor([ids]), names)
        probabilities = loaded.model(torch.tensor([ids])).double().softmax(-1)
    assert len(out.attentions) == n_layer == NEOX_SHAPE["num_hidden_layers"]
    for layer in range(n_layer):
        shares = cache[point(layer, "attn.hook_pattern")].double()
        assert shares.shape == out.attentions[layer].shape == (1, 8, len(ids), len(ids))
        assert (shares - out.attentions[layer]).abs().max() < TOLERANCE
    for layer in range(n_layer - 1):  # transformers' last hidden state has the final norm applied
        stream = cache[point(layer, "hook_resid_post")].double()
        assert (stream - out.hidden_states[layer + 1]).abs().max() < TOLERANCE * stream.abs().max()
    assert (probabilities - out.logits.softmax(-1)).abs().max() < TOLERANCE
    assert out.logits.softmax(-1).max() > 0.2  # far from flat: a wrong model would show


def test_it_has_gpt2s_hook_points_but_the_position_embedding_and_the_rotations_too(pair, small_model_dir):
    gpt2 = set(load(str(small_model_dir), None, 0, "cpu").model.hook_points)
    ours = set(pair[0].model.hook_points)
    assert gpt2 - ours == {"hook_pos_embed"}
    assert {"blocks.0.attn.hook_rot_q", "blocks.3.attn.hook_rot_k", "blocks.0.ln2.hook_scale"} <= ours - gpt2


def test_only_the_first_quarter_of_each_head_is_turned(pair):
    loaded, _, ids = pair
    names = [point(1, name) for name in ("attn.hook_q", "attn.hook_rot_q", "attn.hook_k", "attn.hook_rot_k")]
    cache = loaded.model.run_with_cache(torch.tensor([ids]), names)
    rotary = loaded.model.config.rotary_dim
    for before, after in ((names[0], names[1]), (names[2], names[3])):
        assert cache[before].shape == (1, len(ids), 8, 8)
        assert torch.equal(cache[before][..., rotary:], cache[after][..., rotary:])
        assert not torch.allclose(cache[before][:, 1:, :, :rotary], cache[after][:, 1:, :, :rotary])


def test_the_later_positions_run_with_the_earlier_keys_and_values_as_the_whole_text(pair):
    loaded, _, ids = pair
    model, start = loaded.model, 5
    n_layer = model.config.n_layer
    kept = [point(layer, name) for layer in range(n_layer) for name in ("attn.hook_k", "attn.hook_v")]
    whole = model.run_with_cache(torch.tensor([ids]), kept + [point(n_layer - 1, "hook_resid_post")])
    past = {
        layer: (whole[point(layer, "attn.hook_k")][:, :start], whole[point(layer, "attn.hook_v")][:, :start])
        for layer in range(n_layer)
    }
    with torch.no_grad():
        later = model.run_layers(model.embed(torch.tensor([ids[start:]])), 0, n_layer, past=past)
    assert torch.allclose(later, whole[point(n_layer - 1, "hook_resid_post")][:, start:], atol=1e-5)


def test_the_scores_part_gives_back_the_shares_from_the_rotated_query_and_key(pair):
    loaded, theirs, ids = pair
    out = reference(theirs, ids)
    for layer, head, query in ((0, 0, 6), (2, 7, len(ids) - 1), (3, 3, 9)):
        entry = scores(loaded, ids, layer, head, query)
        q, k = torch.tensor(entry["q"], dtype=torch.float64), torch.tensor(entry["k"], dtype=torch.float64)
        theirs_shares = out.attentions[layer][0, head, query, : query + 1]
        assert (torch.softmax(k @ q / len(entry["q"]) ** 0.5, dim=0) - theirs_shares).abs().max() < TOLERANCE
        assert (torch.tensor(entry["shares"], dtype=torch.float64) - theirs_shares).abs().max() < TOLERANCE


def their_parts(theirs, ids: list[int]) -> list:
    """Transformers' own activations, by its own hooks: the token embedding and each layer's attention and
    feed-forward outputs, (position, d_model) each, in float64."""
    parts, handles = [], []
    model = theirs.gpt_neox
    handles.append(model.embed_in.register_forward_hook(lambda _m, _i, out: parts.append(out[0])))
    for block in model.layers:
        handles.append(block.attention.register_forward_hook(lambda _m, _i, out: parts.append(out[0][0])))
        handles.append(block.mlp.register_forward_hook(lambda _m, _i, out: parts.append(out[0])))
    try:
        reference(theirs, ids)
    finally:
        for handle in handles:
            handle.remove()
    return parts


def test_the_ledgers_parts_are_transformers_parts_through_the_layer_norm_and_sum_to_the_score(pair):
    loaded, theirs, ids = pair
    position, target = len(ids) - 1, ids[3]
    entry = ledger(loaded, ids, position, target, None)
    names = [row["part"] for row in entry["parts"]]
    assert names[0] == "token embedding" and "position embedding" not in names
    out = reference(theirs, ids)
    assert abs(entry["score"]["target"] - out.logits[0, position, target].item()) < TOLERANCE * 10
    for side in ("target", "versus"):
        assert abs(sum(row[side] for row in entry["parts"]) - entry["score"][side]) < TOLERANCE * 10
    # Each part as transformers computes it, through its own final layer norm: centred, over the stream's spread.
    vectors = [part[position] for part in their_parts(theirs, ids)]
    final = torch.stack(vectors).sum(dim=0)
    norm, unembedding = theirs.gpt_neox.final_layer_norm, theirs.lm_head.weight[target]
    sigma = torch.sqrt(final.var(unbiased=False) + norm.eps)
    expected = [((vector - vector.mean()) @ (norm.weight * unembedding) / sigma).item() for vector in vectors]
    expected.append((norm.bias @ unembedding).item())
    assert abs(entry["sigma"] - sigma.item()) < TOLERANCE
    assert max(abs(row["target"] - want) for row, want in zip(entry["parts"], expected, strict=True)) < TOLERANCE


def test_knocking_out_a_layers_attention_matches_transformers_with_its_own_hook(pair):
    loaded, theirs, ids = pair
    position = len(ids) - 1
    target = int(reference(theirs, ids).logits[0, position].argmax())  # the top guess: a knockout moves it
    ours = knockouts(loaded, ids, position, target, None)
    layers = theirs.gpt_neox.layers
    for part, module in (("attention", layers[1].attention), ("feed-forward", layers[2].mlp)):
        zero = (
            (lambda _m, _i, out: (torch.zeros_like(out[0]), *out[1:]))
            if part == "attention"
            else (lambda _m, _i, out: torch.zeros_like(out))
        )
        handle = module.register_forward_hook(zero)
        try:
            p = reference(theirs, ids).logits[0, position].softmax(-1)[target].item()
        finally:
            handle.remove()
        row = next(r for r in ours["runs"] if r["part"] == part and r["layer"] == (1 if part == "attention" else 2))
        assert abs(row["p"] - p) < TOLERANCE and abs(row["p"] - ours["intact"]["p"]) > 1e-4


def test_there_is_no_start_token_and_no_piece_is_a_replacement_character(pair):
    loaded, _, ids = pair
    assert loaded.tokenizer.start_id is None
    assert loaded.tokenizer.encode(TEXT) == ids  # nothing put in front
    texts = [token_text(loaded, i) for i in ids]
    assert not any("\ufffd" in text for text in texts)
    assert any(text.startswith("<E7") for text in texts)  # 猫's three bytes, none a piece with the others


def test_a_config_of_another_rotation_or_shape_is_one_line(tmp_path, pair):
    directory = tmp_path / "bad"
    source = neox_dir(tmp_path / "source", num_hidden_layers=1)
    for change, words in (
        ({"rope_parameters": {"rope_type": "yarn", "rope_theta": 1e4}}, "of type 'yarn'"),
        ({"hidden_size": 60}, "hidden_size 60 is not a multiple of num_attention_heads 8"),
    ):
        directory.mkdir(exist_ok=True)
        for file in source.iterdir():
            (directory / file.name).write_bytes(file.read_bytes())
        config = json.loads((source / "config.json").read_text(encoding="utf-8"))
        (directory / "config.json").write_text(json.dumps({**config, **change}), encoding="utf-8")
        with pytest.raises(BuildError) as caught:
            load(str(directory), None, 0, "cpu")
        assert words in str(caught.value) and "\n" not in str(caught.value)


def test_the_live_pages_export_runs_a_gpt_neox_model_as_the_build_does(tmp_path):
    # figsite.capture.live_export goes through the model interface only: a GPT-NeoX model's ONNX graph gives the
    # shares and the read-outs the build's model gives.
    from figsite.capture import live_export

    loaded = load(str(neox_dir(tmp_path / "model", num_hidden_layers=2)), None, 0, "cpu")
    manifest = live_export.export(loaded, tmp_path / "export", max_tokens=24)
    ids = token_ids(loaded, TEXT)[:20]
    out = live_export.run(tmp_path / "export", ids, [ids[2]])
    names = [point(layer, "attn.hook_pattern") for layer in range(2)]
    cache = loaded.model.run_with_cache(torch.tensor([ids]), names)
    with torch.no_grad():
        top = loaded.model(torch.tensor([ids]))[0].softmax(-1).max(-1).values
    assert manifest["n_layer"] == 2 and manifest["n_head"] == 8
    assert (torch.from_numpy(out["shares"]) - torch.stack([cache[name][0] for name in names])).abs().max() < TOLERANCE
    assert (torch.from_numpy(out["top_probs"][-1][:, 0]) - top).abs().max() < TOLERANCE
