"""The Llama-style family (figsite.model.llama) against transformers' own classes, run in float64 with eager
attention: seeded random models saved with save_pretrained (grouped-query attention, 8 query heads sharing 2
key/value heads; Qwen2's q/k/v biases; Qwen3's norms of the query and key, tied unembedding), loaded by the build's
loader and run in float32 as the build runs them. The reference is transformers, never our own code.
"""

from __future__ import annotations

import json

import pytest
import torch

from conftest import LLAMA_SHAPE, llama_dir
from figsite.capture.hooks import point
from figsite.capture.parts.knockouts import knockouts
from figsite.capture.parts.ledgers import ledger
from figsite.capture.parts.scores import scores
from figsite.errors import BuildError
from figsite.model.load import load
from figsite.model.tokens import decoded, token_ids, token_text, tokenized

TEXT = "The animal didn’t cross the street because it was too tired, 猫 said"
FAMILIES = {
    "llama": ("LlamaForCausalLM", {}),
    "qwen2": ("Qwen2ForCausalLM", {}),
    "qwen3": ("Qwen3ForCausalLM", {"tie_word_embeddings": True, "head_dim": 12}),
    "mistral": ("MistralForCausalLM", {"sliding_window": 6}),
}  # keys further back than 6 go unseen
TOLERANCE = 1e-5


@pytest.fixture(scope="module", params=sorted(FAMILIES))
def pair(request, tmp_path_factory):
    """(ours as the build loads it, transformers' model of the same directory in float64, the text's ids)."""
    import transformers

    family = request.param
    class_name, shape = FAMILIES[family]
    directory = llama_dir(tmp_path_factory.mktemp(f"small-{family}"), family, **shape)
    loaded = load(str(directory), None, 0, "cpu")
    theirs = (
        getattr(transformers, class_name)
        .from_pretrained(str(directory), dtype=torch.float64, attn_implementation="eager")
        .eval()
    )
    return loaded, theirs, token_ids(loaded, TEXT)


def reference(theirs, ids: list[int]):
    with torch.no_grad():
        return theirs(torch.tensor([ids]), output_attentions=True, output_hidden_states=True)


def test_every_share_every_probability_and_the_stream_after_each_layer_match_transformers(pair):
    loaded, theirs, ids = pair
    out = reference(theirs, ids)
    n_layer = loaded.model.config.n_layer
    names = [point(layer, name) for layer in range(n_layer) for name in ("hook_resid_post", "attn.hook_pattern")]
    with torch.no_grad():
        cache = loaded.model.run_with_cache(torch.tensor([ids]), names)
        probabilities = loaded.model(torch.tensor([ids])).double().softmax(-1)
    assert next(loaded.model.parameters()).dtype == torch.float32
    assert len(out.attentions) == n_layer == LLAMA_SHAPE["num_hidden_layers"]
    for layer in range(n_layer):
        shares = cache[point(layer, "attn.hook_pattern")].double()
        assert shares.shape == out.attentions[layer].shape == (1, 8, len(ids), len(ids))
        assert (shares - out.attentions[layer]).abs().max() < TOLERANCE
    for layer in range(n_layer - 1):  # transformers' last hidden state has the final norm applied
        stream = cache[point(layer, "hook_resid_post")].double()
        # float32's rounding against float64's: within 1e-5 of the stream's size
        assert (stream - out.hidden_states[layer + 1]).abs().max() < TOLERANCE * stream.abs().max()
    assert (probabilities - out.logits.softmax(-1)).abs().max() < TOLERANCE
    assert out.logits.softmax(-1).max() > 0.2  # far from flat: a wrong model would show


def test_it_has_gpt2s_hook_points_but_the_position_embedding_and_the_rotations_too(pair, small_model_dir):
    from figsite.model.load import load as load_any

    gpt2 = set(load_any(str(small_model_dir), None, 0, "cpu").model.hook_points)
    ours = set(pair[0].model.hook_points)
    assert gpt2 - ours == {"hook_pos_embed"}
    assert {"blocks.0.attn.hook_rot_q", "blocks.3.attn.hook_rot_k", "blocks.0.mlp.hook_pre_linear"} <= ours - gpt2


def test_keys_and_values_are_the_shared_heads_and_the_rotation_has_its_own_hook_points(pair):
    loaded, _, ids = pair
    config = loaded.model.config
    names = ["attn.hook_q", "attn.hook_k", "attn.hook_v", "attn.hook_rot_q", "attn.hook_rot_k"]
    cache = loaded.model.run_with_cache(torch.tensor([ids]), [point(0, name) for name in names])
    shapes = {name: tuple(cache[point(0, name)].shape) for name in names}
    assert shapes["attn.hook_q"] == shapes["attn.hook_rot_q"] == (1, len(ids), 8, config.d_head)
    assert (
        shapes["attn.hook_k"] == shapes["attn.hook_v"] == shapes["attn.hook_rot_k"] == (1, len(ids), 2, config.d_head)
    )
    assert torch.equal(cache[point(0, "attn.hook_q")][:, 0], cache[point(0, "attn.hook_rot_q")][:, 0])  # position 0
    assert not torch.allclose(cache[point(0, "attn.hook_k")][:, 1:], cache[point(0, "attn.hook_rot_k")][:, 1:])
    assert "hook_pos_embed" not in loaded.model.hook_points and "hook_embed" in loaded.model.hook_points


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


def test_the_scores_part_gives_back_the_shares_from_the_rotated_query_and_shared_keys(pair):
    loaded, theirs, ids = pair
    out = reference(theirs, ids)
    for layer, head, query in ((0, 0, 6), (2, 7, len(ids) - 1), (3, 3, 9)):
        entry = scores(loaded, ids, layer, head, query)
        q, k = torch.tensor(entry["q"], dtype=torch.float64), torch.tensor(entry["k"], dtype=torch.float64)
        fits = k @ q / len(entry["q"]) ** 0.5
        window = loaded.model.config.sliding_window  # Mistral's: the keys further back are not seen
        if window is not None:  # the scores figure does not know this yet: it works the shares out over all keys
            fits[: max(0, query - window + 1)] = float("-inf")
        theirs_shares = out.attentions[layer][0, head, query, : query + 1]
        assert (torch.softmax(fits, dim=0) - theirs_shares).abs().max() < TOLERANCE
        assert (torch.tensor(entry["shares"], dtype=torch.float64) - theirs_shares).abs().max() < TOLERANCE


def their_parts(theirs, ids: list[int]) -> list:
    """Transformers' own activations, by its own hooks: the token embedding and each layer's attention and
    feed-forward outputs, (position, d_model) each, in float64."""
    parts, handles = [], []
    model = theirs.model
    handles.append(model.embed_tokens.register_forward_hook(lambda _m, _i, out: parts.append(out[0])))
    for block in model.layers:
        handles.append(block.self_attn.register_forward_hook(lambda _m, _i, out: parts.append(out[0][0])))
        handles.append(block.mlp.register_forward_hook(lambda _m, _i, out: parts.append(out[0])))
    try:
        reference(theirs, ids)
    finally:
        for handle in handles:
            handle.remove()
    return parts


def test_the_ledgers_parts_are_transformers_parts_through_the_rmsnorm_and_sum_to_the_score(pair):
    loaded, theirs, ids = pair
    position, target = len(ids) - 1, ids[3]
    entry = ledger(loaded, ids, position, target, None)
    names = [row["part"] for row in entry["parts"]]
    assert names[0] == "token embedding" and "position embedding" not in names
    assert "final layer norm bias" not in names  # RMSNorm adds no bias: no row of 0
    out = reference(theirs, ids)
    assert abs(entry["score"]["target"] - out.logits[0, position, target].item()) < TOLERANCE * 10
    assert abs(sum(row["target"] for row in entry["parts"]) - entry["score"]["target"]) < TOLERANCE * 10
    assert abs(sum(row["versus"] for row in entry["parts"]) - entry["score"]["versus"]) < TOLERANCE * 10
    # Each part as transformers computes it, through its own final norm's gain and the stream's RMS, not centred.
    vectors = [part[position] for part in their_parts(theirs, ids)]
    final = torch.stack(vectors).sum(dim=0)
    norm = theirs.model.norm
    sigma = torch.sqrt(final.pow(2).mean() + norm.variance_epsilon)
    reader = norm.weight * theirs.lm_head.weight[target]
    expected = [(vector @ reader / sigma).item() for vector in vectors]
    assert abs(entry["sigma"] - sigma.item()) < TOLERANCE
    assert max(abs(row["target"] - want) for row, want in zip(entry["parts"], expected)) < TOLERANCE
    for layer, split in enumerate(entry["heads"]):  # the heads and the bias add up to the layer's attention
        whole = next(row["target"] for row in entry["parts"] if row["part"] == "attention" and row["layer"] == layer)
        assert abs(sum(head[0] for head in split["heads"]) + split["bias"][0] - whole) < TOLERANCE


def test_knocking_out_a_layers_attention_matches_transformers_with_its_own_hook(pair):
    loaded, theirs, ids = pair
    position = len(ids) - 1
    target = int(reference(theirs, ids).logits[0, position].argmax())  # the top guess: a knockout moves it
    ours = knockouts(loaded, ids, position, target, None)
    handle = theirs.model.layers[1].self_attn.register_forward_hook(
        lambda _m, _i, out: (torch.zeros_like(out[0]), *out[1:])
    )
    try:
        p = reference(theirs, ids).logits[0, position].softmax(-1)[target].item()
    finally:
        handle.remove()
    row = next(r for r in ours["runs"] if r["part"] == "attention" and r["layer"] == 1)
    assert abs(row["p"] - p) < TOLERANCE and abs(row["p"] - ours["intact"]["p"]) > 1e-3


def test_the_start_token_is_a_token_of_its_own_and_byte_pieces_show_their_bytes(pair):
    loaded, _, ids = pair
    start = loaded.tokenizer.start_id
    assert start is not None and ids[0] == start and token_text(loaded, start) == "<s>"
    assert start not in ids[1:] and tokenized(loaded.tokenizer, [" tired"])[" tired"][0] != "<s>"
    texts = [token_text(loaded, i) for i in ids]
    assert not any("\ufffd" in text for text in texts)
    assert "<E7>" in texts  # 猫 is three bytes the toy tokenizer has no piece for: each shown as its byte
    assert texts[1] == " The" and decoded(loaded.tokenizer, ids[2]).startswith(" ")


def test_an_unknown_family_and_an_unsupported_rotation_are_one_line(tmp_path, llama_model_dir):
    config = json.loads((llama_model_dir / "config.json").read_text(encoding="utf-8"))
    for change, words in (
        (
            {"model_type": "falcon"},
            "a 'falcon' model, a family not supported; allowed: model_type gpt2, llama, mistral, qwen2, qwen3",
        ),
        ({"rope_parameters": {"rope_type": "yarn", "rope_theta": 1e4}}, "of type 'yarn'"),
    ):
        folder = tmp_path / change.get("model_type", "yarn")
        folder.mkdir()
        for file in llama_model_dir.iterdir():
            (folder / file.name).write_bytes(file.read_bytes())
        (folder / "config.json").write_text(json.dumps({**config, **change}), encoding="utf-8")
        with pytest.raises(BuildError) as caught:
            load(str(folder), None, 0, "cpu")
        assert words in str(caught.value) and "\n" not in str(caught.value)
