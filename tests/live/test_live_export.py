"""A model exported to ONNX for the live page (figsite.capture.live_export), run with onnxruntime on the CPU and
checked against the independent float64 reference (tests/reference.py) and against the build's own capture.

The model is the small seeded GPT-2 of conftest (3 layers, 4 heads, width 64, GPT-2's vocabulary); its token
embedding (12.9 MB) is made to need splitting by a file limit of 5 MB. A Llama-style model (conftest's: rotary,
grouped-query attention, RMSNorm, a start token) is exported through the same interface and checked against the
build's numbers too.
"""

from __future__ import annotations

import hashlib
import json

import pytest

onnxruntime = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxscript")  # torch's ONNX exporter needs it

import torch  # noqa: E402

import reference as ref_lib  # noqa: E402
from model_state import changes, model_state  # noqa: E402
from conftest import SMALL_SHAPE  # noqa: E402

MAX_TOKENS = 16
FILE_BYTES = 5_000_000
SHARE_TOLERANCE = PROBABILITY_TOLERANCE = 1e-5
TIE_TOLERANCE = 1e-6  # top tokens whose reference probabilities are closer than this may come in either order
NEAR = 1e-5  # scores (log probabilities) this close to a followed token's may fall on either side in float32

TEXTS = {
    "German": "Der Hund bellte laut, weil er hungrig war.",
    "digits": "3.14159 is pi; 2.71828 is e",
    "one token": "Hello",
}


@pytest.fixture(scope="module")
def before_export(loaded):
    """The caller's model as it was before the export (tests/model_state.py)."""
    return model_state(loaded.model)


@pytest.fixture(scope="module")
def exported(loaded, before_export, tmp_path_factory):
    """(the folder, the manifest) of one export of the small model."""
    from figsite.capture.live_export import export

    folder = tmp_path_factory.mktemp("live")
    return folder, export(loaded, folder, MAX_TOKENS, file_bytes=FILE_BYTES, texts=list(TEXTS.values()))


@pytest.fixture(scope="module")
def live(exported):
    from figsite.capture.live_export import session

    return session(exported[0])


@pytest.fixture(scope="module")
def weights(small_model_dir):
    return ref_lib.load_weights(small_model_dir)


def ids_of(loaded, name: str) -> list[int]:
    """The token ids of one of TEXTS, or for "longest" MAX_TOKENS ids of a long text."""
    from figsite.capture.api import token_ids

    if name == "longest":
        return token_ids(
            loaded,
            "Quantum chromodynamics describes quarks; a bakery in Lyon sold 1,204 croissants "
            "before noon, and nobody knew why.",
        )[:MAX_TOKENS]
    return token_ids(loaded, TEXTS[name])


def followed(ids: list[int]) -> list[int]:
    """The tokens a test follows: the text's own (repeats too), the end of text, and a spread over the vocabulary."""
    return ids + [50256, 0] + list(range(13, 50257, 4999))


def run(live, ids, follow=(13,), kept=None, stages=None):
    from figsite.capture.live_export import run as run_live

    return run_live(live, ids, list(follow), kept, stages)


# ---------------------------------------------------------------------------------------------- the files


def test_the_manifest_lists_every_file_with_its_size_and_digest_and_each_is_under_the_limit(exported):
    folder, manifest = exported
    names = [entry["name"] for entry in manifest["files"]]
    light = [entry["name"] for entry in manifest["light"]["files"]]
    assert sorted(path.name for path in folder.iterdir()) == sorted([*names, *light, manifest["tokenizer"]["name"]])
    assert names[0] == manifest["graph"] == "model.onnx" and len(names) >= 3
    assert light[0] == manifest["light"]["graph"] == "light-model.onnx" and len(light) >= 2
    assert manifest["tokenizer"]["name"] == "tokenizer.json" and manifest["start_id"] is None
    for entry in [*manifest["files"], *manifest["light"]["files"], manifest["tokenizer"]]:
        data = (folder / entry["name"]).read_bytes()
        assert len(data) == entry["bytes"] < FILE_BYTES
        assert hashlib.sha256(data).hexdigest() == entry["sha256"]
    assert json.loads(json.dumps(manifest)) == manifest


def test_the_manifest_names_the_inputs_and_outputs_with_their_shapes(exported):
    manifest = exported[1]
    assert (manifest["n_layer"], manifest["n_head"], manifest["stages"]) == (3, 4, 4)
    assert (manifest["max_tokens"], manifest["top_k"], manifest["vocab_size"]) == (MAX_TOKENS, 10, 50257)
    assert manifest["inputs"] == [
        {"name": "input_ids", "dtype": "int64", "shape": [1, "T"]},
        {"name": "follow", "dtype": "int64", "shape": ["K"]},
        {"name": "keep_attention", "dtype": "float32", "shape": [3]},
        {"name": "keep_feed_forward", "dtype": "float32", "shape": [3]},
        {"name": "keep_heads", "dtype": "float32", "shape": [3, 4]},
        {"name": "read_stages", "dtype": "int64", "shape": ["R"]},
    ]
    assert {o["name"]: (o["dtype"], o["shape"]) for o in manifest["outputs"]} == {
        "shares": ("float32", [3, 4, "T", "T"]),
        "top_ids": ("int64", ["R", "T", 10]),
        "top_probs": ("float32", ["R", "T", 10]),
        "follow_probs": ("float32", ["R", "T", "K"]),
        "follow_ranks": ("int64", ["R", "T", "K"]),
        "residuals": ("float32", [4, "T", 64]),
    }


def test_the_graph_has_exactly_those_inputs_and_outputs_and_no_scores(exported, live):
    manifest = exported[1]
    assert [i.name for i in live.get_inputs()] == [i["name"] for i in manifest["inputs"]]
    assert [o.name for o in live.get_outputs()] == [o["name"] for o in manifest["outputs"]]
    outputs = run(live, list(range(7)), [5, 6])
    assert {name: array.shape for name, array in outputs.items()} == {
        "shares": (3, 4, 7, 7),
        "top_ids": (4, 7, 10),
        "top_probs": (4, 7, 10),
        "follow_probs": (4, 7, 2),
        "follow_ranks": (4, 7, 2),
        "residuals": (4, 7, 64),
    }


def test_the_token_embedding_is_stored_once_in_row_blocks_that_the_graph_joins(exported, weights):
    folder = exported[0]
    graph = onnx.load(str(folder / "model.onnx"), load_external_data=False).graph
    blocks = [t for t in graph.initializer if t.name.startswith("transformer.wte.weight")]
    assert len(blocks) >= 3 and sum(t.dims[0] for t in blocks) == 50257
    assert not [t for t in graph.initializer if "lm_head" in t.name]
    (join,) = [node for node in graph.node if node.output == ["transformer.wte.weight"]]
    assert join.op_type == "Concat" and list(join.input) == [t.name for t in blocks]
    stored = sum(
        int(next(e.value for e in t.external_data if e.key == "length"))
        for t in graph.initializer
        if t.data_location == onnx.TensorProto.EXTERNAL
    )
    expected = sum(tensor.numel() * 4 for name, tensor in weights.tensors.items() if name != "lm_head.weight")
    expected -= (1024 - MAX_TOKENS) * SMALL_SHAPE["n_embd"] * 4  # only MAX_TOKENS positions are kept
    assert expected - 20_000 < stored <= expected  # the few smallest tensors stay in the graph itself


def test_two_exports_of_the_same_model_are_byte_identical(loaded, exported, tmp_path):
    from figsite.capture.live_export import export

    again = export(loaded, tmp_path, MAX_TOKENS, file_bytes=FILE_BYTES, texts=list(TEXTS.values()))
    assert again == exported[1]
    for entry in [*again["files"], *again["light"]["files"]]:
        assert (tmp_path / entry["name"]).read_bytes() == (exported[0] / entry["name"]).read_bytes()


def test_the_export_leaves_the_callers_model_as_it_was(loaded, before_export, exported):
    """Every weight's values, storage, shape, dtype, device and requires_grad, every module's mode, no function
    at a hook point and no torch hook left (the position embedding still holds all 1024 positions)."""
    model = loaded.model
    assert model.transformer.wpe.weight.shape[0] == 1024
    assert all(not point.functions for point in model.hook_points.values())
    assert changes(before_export, model) == []


def test_max_tokens_beyond_the_models_positions_is_refused(loaded, tmp_path):
    from figsite.capture.live_export import export

    with pytest.raises(ValueError, match="max_tokens 1025"):
        export(loaded, tmp_path, 1025)


def test_a_text_longer_than_max_tokens_is_an_error_not_a_wrong_answer(live):
    with pytest.raises(Exception):  # noqa: B017 - onnxruntime's own error type
        run(live, list(range(MAX_TOKENS + 1)))


# ---------------------------------------------------------------------------------------------- the numbers


@pytest.mark.parametrize("name", [*TEXTS, "longest"])
def test_every_share_is_the_references_within_1e_5_and_0_right_of_the_diagonal(loaded, live, weights, name):
    ids = ids_of(loaded, name)
    shares = torch.from_numpy(run(live, ids)["shares"]).double()
    expected = ref_lib.forward(weights, ids).attention
    assert shares.shape == expected.shape
    assert (shares - expected).abs().max().item() < SHARE_TOLERANCE
    assert (shares[..., torch.ones(len(ids), len(ids), dtype=torch.bool).triu(1)] == 0).all()


@pytest.mark.parametrize("name", [*TEXTS, "longest"])
def test_top_tokens_and_their_probabilities_are_the_references(loaded, live, weights, name):
    ids = ids_of(loaded, name)
    outputs = run(live, ids)
    probs = ref_lib.forward(weights, ids).probs  # (stages, position, vocab), float64
    expected_p, expected_ids = probs.topk(11, dim=-1)
    assert outputs["top_ids"].shape == tuple(expected_ids[..., :10].shape)
    for stage in range(probs.shape[0]):
        for position in range(len(ids)):
            got_ids = outputs["top_ids"][stage, position].tolist()
            got_p = torch.from_numpy(outputs["top_probs"][stage, position]).double()
            assert (got_p - expected_p[stage, position, :10]).abs().max() < PROBABILITY_TOLERANCE
            assert (got_p - probs[stage, position, got_ids]).abs().max() < PROBABILITY_TOLERANCE
            if (expected_p[stage, position, :-1] - expected_p[stage, position, 1:]).min() > TIE_TOLERANCE:
                assert got_ids == expected_ids[stage, position, :10].tolist()


@pytest.mark.parametrize("name", [*TEXTS, "longest"])
def test_followed_tokens_probabilities_and_ranks_are_the_references(loaded, live, weights, name):
    ids = ids_of(loaded, name)
    follow = followed(ids)
    outputs = run(live, ids, follow)
    probs = ref_lib.forward(weights, ids).probs  # (stages, position, vocab)
    chosen = probs[..., follow]  # (stages, position, K)
    assert (torch.from_numpy(outputs["follow_probs"]).double() - chosen).abs().max() < PROBABILITY_TOLERANCE
    # The reference's rank, 1 + how many are more likely, where no other score lies within NEAR of the followed
    # token's: float32 may put such a one on either side of it, and the rank may then be any in between.
    scores, chosen_scores = probs.log()[..., None, :], chosen.log()[..., None]  # (stages, position, 1 or K, vocab)
    higher = (scores > chosen_scores + NEAR).sum(dim=-1) + 1
    not_lower = (scores > chosen_scores - NEAR).sum(dim=-1)  # the token itself counted
    ranks = torch.from_numpy(outputs["follow_ranks"])
    assert ((higher <= ranks) & (ranks <= not_lower)).all()
    exact = higher == not_lower
    assert exact.float().mean() > 0.8 and exact[higher <= 100].all()
    assert (ranks[exact] == higher[exact]).all()


def test_the_export_gives_the_builds_own_numbers(loaded, live):
    """The build's capture of the same text (its data file's shares and read-out, the lens's p and rank)."""
    assert_the_builds_numbers(loaded, live, TEXTS["German"], lambda ids: followed(ids))


def assert_the_builds_numbers(loaded, live, text: str, following) -> None:
    """The export's outputs for `text` (read with the start token where the model has one, as the build reads it)
    are the build's capture's within 1e-5; following(ids) -> the tokens to follow."""
    from figsite.capture.api import run_text
    from figsite.capture.parts.lens import lens

    capture = run_text(loaded, text, keep_stages=True)
    ids = [token["id"] for token in capture.data["tokens"]]
    follow = following(ids)
    outputs = run(live, ids, follow)
    for layer, heads in enumerate(capture.data["attention"]):
        for head, rows in enumerate(heads):
            for query, row in enumerate(rows):
                got = outputs["shares"][layer, head, query, : query + 1]
                assert max(abs(a - b) for a, b in zip(got.tolist(), row)) < SHARE_TOLERANCE
    for stage, cells in enumerate(capture.data["readout"]):
        for position, cell in enumerate(cells):
            top_p = [p for _, p in cell["top"]]
            assert max(abs(a - b) for a, b in zip(outputs["top_probs"][stage, position].tolist(), top_p)) < 1e-5
            if min(a - b for a, b in zip(top_p, top_p[1:])) > TIE_TOLERANCE:
                assert outputs["top_ids"][stage, position].tolist() == [i for i, _ in cell["top"]]
    kept = lens(loaded.model, capture.stages, capture.data["readout"], follow)
    columns = [kept["tokens"].index(token) for token in follow]
    p = torch.tensor(kept["p"], dtype=torch.float64)[..., columns]
    rank = torch.tensor(kept["rank"])[..., columns]
    assert (torch.from_numpy(outputs["follow_probs"]).double() - p).abs().max() < PROBABILITY_TOLERANCE
    got = torch.from_numpy(outputs["follow_ranks"])
    assert (got[rank <= 100] == rank[rank <= 100]).all()
    assert (got - rank).abs().max() <= 2  # past 100: float32's near-ties, in the build's and the export's scores


@pytest.mark.parametrize("name", [*TEXTS, "longest"])
def test_the_residual_stream_of_every_stage_is_the_references(loaded, live, weights, name):
    """What two compared texts' distances are taken from: within 1e-5 of the stream's own size."""
    ids = ids_of(loaded, name)
    residuals = torch.from_numpy(run(live, ids)["residuals"]).double()
    expected = ref_lib.forward(weights, ids).residual  # (stages, position, d_model)
    assert residuals.shape == expected.shape
    assert (residuals - expected).abs().max() < 1e-5 * expected.abs().max()


def kept_without(config, part: str, layer: int | None, head: int | None):
    """The live_run.Kept that takes out one part, as a run of the build's knockouts names it (None: the whole model)."""
    from figsite.capture.live_run import Kept

    whole = Kept.whole(config.n_layer, config.n_head)
    attention, feed_forward, heads = list(whole.attention), list(whole.feed_forward), [list(h) for h in whole.heads]
    if part == "attention":
        attention[layer] = 0.0
    elif part == "feed-forward":
        feed_forward[layer] = 0.0
    elif part == "head":
        heads[layer][head] = 0.0
    return Kept(attention, feed_forward, heads)


@pytest.mark.parametrize(("name", "position", "heads_of"), [("German", -1, 1), ("digits", 4, 0), ("one token", 0, 2)])
def test_parts_taken_out_through_the_keep_inputs_give_the_builds_knockouts(loaded, live, name, position, heads_of):
    """Every run of the build's knockouts (each layer's attention, feed-forward, each head of one layer taken out),
    made by zeros in the graph's keep_ inputs: the target's probability within 1e-5, its rank the same."""
    from figsite.capture.parts.knockouts import knockouts

    ids = ids_of(loaded, name)
    position %= len(ids)
    target = ids[-1] if len(ids) > 1 else 13
    found = knockouts(loaded, ids, position, target, heads_of)
    config = loaded.model.config
    runs = [{"part": "intact", "layer": None, "head": None, **found["intact"]}, *found["runs"]]
    assert len(runs) == 1 + 2 * config.n_layer + config.n_head
    for expected in runs:  # the last stage read out alone, as the page reads them
        kept = kept_without(config, expected["part"], expected["layer"], expected["head"])
        outputs = run(live, ids, [target], kept, [config.n_layer])
        assert outputs["follow_probs"].shape == (1, len(ids), 1)
        assert abs(outputs["follow_probs"][0, position, 0] - expected["p"]) < PROBABILITY_TOLERANCE, expected
        assert outputs["follow_ranks"][0, position, 0] == expected["rank"], expected


@pytest.mark.parametrize("stages", [[3], [0], [2, 0], [1, 1, 3]])
def test_the_stages_asked_are_read_out_in_the_order_asked_as_in_the_whole_read_out(loaded, live, stages):
    ids = ids_of(loaded, "German")
    follow = followed(ids)
    whole, some = run(live, ids, follow), run(live, ids, follow, stages=stages)
    for name in ("top_ids", "top_probs", "follow_probs", "follow_ranks"):
        assert some[name].shape == (len(stages), *whole[name].shape[1:])
        assert (some[name] == whole[name][stages]).all(), name
    assert (some["shares"] == whole["shares"]).all() and (some["residuals"] == whole["residuals"]).all()


def test_a_head_taken_out_changes_nothing_before_its_layer(loaded, live):
    ids = ids_of(loaded, "German")
    config = loaded.model.config
    whole, without = run(live, ids), run(live, ids, kept=kept_without(config, "head", 1, 2))
    assert (whole["shares"][:2] == without["shares"][:2]).all()  # the layers up to and including its own
    assert (whole["residuals"][:2] == without["residuals"][:2]).all()  # the stream entering its layer
    assert not (whole["residuals"][2] == without["residuals"][2]).all()


def test_the_export_carries_the_models_own_tokenizer(loaded, exported):
    from tokenizers import Tokenizer

    folder, manifest = exported
    written = Tokenizer.from_file(str(folder / manifest["tokenizer"]["name"]))
    for text in [*TEXTS.values(), "日本語 😀<|endoftext|>x"]:
        assert written.encode(text, add_special_tokens=False).ids == loaded.tokenizer.encode(text)
    assert written.to_str() == loaded.tokenizer.backend.to_str()


# ---------------------------------------------------------------------------------------------- a Llama-style model


@pytest.fixture(scope="module")
def llama_loaded(llama_model_dir):
    from figsite.capture.api import load

    return load(str(llama_model_dir), None, 0, "cpu")


@pytest.fixture(scope="module")
def llama_exported(llama_loaded, tmp_path_factory):
    from figsite.capture.live_export import export

    folder = tmp_path_factory.mktemp("live-llama")
    return folder, export(llama_loaded, folder, MAX_TOKENS)


def test_a_llama_style_model_exports_through_the_interface_with_its_start_token(llama_loaded, llama_exported):
    folder, manifest = llama_exported
    config = llama_loaded.model.config
    assert manifest["start_id"] == llama_loaded.tokenizer.start_id is not None
    assert (manifest["n_layer"], manifest["n_head"], manifest["vocab_size"]) == (
        config.n_layer,
        config.n_head,
        config.vocab_size,
    )
    assert config.n_head > getattr(config, "n_kv_head", config.n_head)  # query heads share key heads
    from figsite.capture.live_export import session

    outputs = run(session(folder), [manifest["start_id"], 5, 6], [7])
    assert outputs["shares"].shape == (config.n_layer, config.n_head, 3, 3)


@pytest.mark.parametrize("text", ["Maya lives in Paris, the capital of France.", "The animal didn't cross €"])
def test_a_llama_style_export_gives_the_builds_own_numbers(llama_loaded, llama_exported, text):
    from figsite.capture.live_export import session

    vocab = llama_loaded.model.config.vocab_size
    live_llama = session(llama_exported[0])
    assert_the_builds_numbers(llama_loaded, live_llama, text, lambda ids: ids + list(range(3, vocab, 37)))


def test_a_llama_style_export_gives_transformers_own_shares_and_output(llama_model_dir, llama_loaded, llama_exported):
    """Against transformers' LlamaForCausalLM itself, float64, eager attention (not our code): every query head's
    shares, and the last stage's chances (the model's output), within 1e-5."""
    from transformers import AutoModelForCausalLM

    from figsite.capture.api import token_ids
    from figsite.capture.live_export import session

    reference = AutoModelForCausalLM.from_pretrained(
        llama_model_dir, torch_dtype=torch.float64, attn_implementation="eager"
    ).eval()
    ids = token_ids(llama_loaded, "When Mary and John went to the store, John gave €")
    with torch.no_grad():
        out = reference(torch.tensor([ids]), output_attentions=True)
    outputs = run(session(llama_exported[0]), ids, list(range(llama_loaded.model.config.vocab_size)))
    shares = torch.from_numpy(outputs["shares"]).double()
    assert (shares - torch.cat(out.attentions)).abs().max() < SHARE_TOLERANCE
    chances = out.logits[0].softmax(dim=-1)  # (position, vocab)
    assert (torch.from_numpy(outputs["follow_probs"][-1]).double() - chances).abs().max() < PROBABILITY_TOLERANCE


def test_a_llama_style_export_takes_parts_out_as_the_builds_knockouts_and_gives_its_residual_stream(
    llama_loaded, llama_exported
):
    """Grouped-query heads, rotary positions, RMSNorm, a start token: each run of the build's knockouts (a head of
    layer 1 among them) through the keep_ inputs, the last stage read alone, and every stage's stream, against the
    build's capture."""
    from figsite.capture.api import run_text, token_ids
    from figsite.capture.live_export import session
    from figsite.capture.parts.knockouts import knockouts

    live_llama, config = session(llama_exported[0]), llama_loaded.model.config
    ids = token_ids(llama_loaded, "Maya lives in Paris, the capital of")
    target = ids[3]
    found = knockouts(llama_loaded, ids, len(ids) - 1, target, 1)
    runs = [{"part": "intact", "layer": None, "head": None, **found["intact"]}, *found["runs"]]
    assert len(runs) == 1 + 2 * config.n_layer + config.n_head
    for expected in runs:
        kept = kept_without(config, expected["part"], expected["layer"], expected["head"])
        outputs = run(live_llama, ids, [target], kept, [config.n_layer])
        assert abs(outputs["follow_probs"][0, -1, 0] - expected["p"]) < PROBABILITY_TOLERANCE, expected
        assert outputs["follow_ranks"][0, -1, 0] == expected["rank"], expected
    capture = run_text(llama_loaded, "Maya lives in Paris, the capital of", keep_stages=True)
    stages = torch.stack([stage[0] if stage.dim() == 3 else stage for stage in capture.stages]).double()
    residuals = torch.from_numpy(run(live_llama, ids)["residuals"]).double()
    assert residuals.shape == stages.shape
    assert (residuals - stages).abs().max() < 1e-5 * stages.abs().max()
