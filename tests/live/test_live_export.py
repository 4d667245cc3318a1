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
# A patched run's logit difference against the build's: within 1e-5 of the scores' own size where they are over 1
# (the Llama-style model's reach 17; float32's step there is 2e-6)
PATCH_TOLERANCE = 1e-5
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


def run(live, ids, follow=(13,), kept=None, stages=None, patched=None):
    from figsite.capture.live_export import run as run_live

    return run_live(live, ids, list(follow), kept, stages, patched)


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
        {"name": "patch_residual", "dtype": "float32", "shape": [4, "T", 64]},
        {"name": "patch_residual_at", "dtype": "float32", "shape": [4, "T"]},
        {"name": "patch_attention", "dtype": "float32", "shape": [3, "T", 64]},
        {"name": "patch_attention_at", "dtype": "float32", "shape": [3, "T"]},
        {"name": "patch_feed_forward", "dtype": "float32", "shape": [3, "T", 64]},
        {"name": "patch_feed_forward_at", "dtype": "float32", "shape": [3, "T"]},
        {"name": "patch_heads", "dtype": "float32", "shape": [3, "T", 4, 16]},
        {"name": "patch_heads_at", "dtype": "float32", "shape": [3, 4]},
    ]
    assert [(o["name"], o["dtype"], o["shape"]) for o in manifest["outputs"]] == [
        ("shares", "float32", [3, 4, "T", "T"]),
        ("top_ids", "int64", ["R", "T", 10]),
        ("top_probs", "float32", ["R", "T", 10]),
        ("follow_probs", "float32", ["R", "T", "K"]),
        ("follow_ranks", "int64", ["R", "T", "K"]),
        ("residuals", "float32", [4, "T", 64]),
        ("follow_scores", "float32", ["R", "T", "K"]),
        ("attention_outputs", "float32", [3, "T", 64]),
        ("feed_forward_outputs", "float32", [3, "T", 64]),
        ("mixed_values", "float32", [3, "T", 4, 16]),
    ]
    assert manifest["format"] == "live-model/5"


def test_the_graph_has_exactly_those_inputs_and_outputs_and_no_other_scores(exported, live):
    manifest = exported[1]
    assert [(i.name, i.shape) for i in live.get_inputs()] == [(i["name"], i["shape"]) for i in manifest["inputs"]]
    assert [(o.name, o.shape) for o in live.get_outputs()] == [(o["name"], o["shape"]) for o in manifest["outputs"]]
    outputs = run(live, list(range(7)), [5, 6])
    assert {name: array.shape for name, array in outputs.items()} == {
        "shares": (3, 4, 7, 7),
        "top_ids": (4, 7, 10),
        "top_probs": (4, 7, 10),
        "follow_probs": (4, 7, 2),
        "follow_ranks": (4, 7, 2),
        "residuals": (4, 7, 64),
        "follow_scores": (4, 7, 2),
        "attention_outputs": (3, 7, 64),
        "feed_forward_outputs": (3, 7, 64),
        "mixed_values": (3, 7, 4, 16),
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


# ---------------------------------------------------------------------------------------------- activation patching

CLEAN, CORRUPTED = (
    "When Mary and John went to the store, John gave a drink to",
    "When Mary and John went to the store, Mary gave a drink to",
)
# The build's grids' sites -> the live_run.Patched field that puts one back, and the output that gives it
SITES = {
    "resid_pre": ("residual", "residuals"),
    "attn_out": ("attention", "attention_outputs"),
    "mlp_out": ("feed_forward", "feed_forward_outputs"),
    "z": ("heads", "mixed_values"),
}
LAYER_OUTPUTS = ("attention_outputs", "feed_forward_outputs", "mixed_values")


def put_back(clean, cells):
    """The live_run.Patched that puts the clean run's activations (its outputs) back at `cells`, [(site, layer,
    index)] as the build's grids name them: a stage's stream, a layer's attention or feed-forward output at one
    position, or a head's mixed values at every position."""
    from figsite.capture.live_run import Patched

    n_layer, n, n_head, d_head = clean["mixed_values"].shape
    patched = Patched.none(n_layer, n_head, clean["residuals"].shape[-1], d_head, n)
    for site, layer, index in cells:
        field, output = SITES[site]
        at = (layer, slice(None), index) if site == "z" else (layer, index)
        getattr(patched, field)[at] = clean[output][at]
        getattr(patched, f"{field}_at")[layer, index] = 1.0
    return patched


def assert_the_builds_patchings(loaded, live, clean_ids, corrupted_ids, position, target, versus) -> None:
    """Every run of the build's patchings (figsite.capture.parts.patchings), each cell of its four grids, made by the
    corrupted text's run with the clean run's activation put back through the patch_ inputs (taken from the clean
    run's own outputs): the logit difference (from follow_scores) within PATCH_TOLERANCE, the target's probability
    within 1e-5. The grids' cells that the build leaves the corrupted run's (nothing to put back, or out of the read
    position's reach) are checked too, and each grid has cells that the patch moves well past the tolerance."""
    from figsite.capture.parts.patchings import patchings

    found = patchings(loaded, clean_ids, corrupted_ids, position, target, versus)
    last, follow = loaded.model.config.n_layer, [target, versus]

    def read(outputs) -> tuple[float, float, float]:  # the last stage's, as patchings' _read reads it; the tolerance
        scores = outputs["follow_scores"][-1, position]
        tolerance = PATCH_TOLERANCE * max(1.0, float(abs(scores).max()))
        return float(scores[0] - scores[1]), float(outputs["follow_probs"][-1, position, 0]), tolerance

    clean = run(live, clean_ids, follow)
    for name, outputs in (("clean", clean), ("corrupted", run(live, corrupted_ids, follow, stages=[last]))):
        diff, p, tolerance = read(outputs)
        assert abs(diff - found[name]["diff"]) < tolerance and abs(p - found[name]["p"]) < PROBABILITY_TOLERANCE
    for site, grid in found["grids"].items():
        moved = 0  # the cells where putting back moves the corrupted run's difference well past the tolerance
        for layer, row in enumerate(grid["diff"]):
            for index, expected in enumerate(row):
                outputs = run(
                    live, corrupted_ids, follow, stages=[last], patched=put_back(clean, [(site, layer, index)])
                )
                diff, p, tolerance = read(outputs)
                assert abs(diff - expected) < tolerance, (site, layer, index, diff, expected)
                assert abs(p - grid["p"][layer][index]) < PROBABILITY_TOLERANCE, (site, layer, index)
                moved += abs(expected - found["corrupted"]["diff"]) > 10 * tolerance
        assert moved, site


@pytest.mark.parametrize("position", [-1, -4])
def test_every_patched_run_of_the_builds_patchings_is_made_by_the_patch_inputs(loaded, live, position):
    from figsite.capture.api import token_ids
    from figsite.model.tokens import one_token_id

    clean_ids, corrupted_ids = token_ids(loaded, CLEAN), token_ids(loaded, CORRUPTED)
    assert len(clean_ids) == len(corrupted_ids) and sum(a != b for a, b in zip(clean_ids, corrupted_ids)) == 1
    target, versus = one_token_id(loaded, " Mary"), one_token_id(loaded, " John")
    position %= len(clean_ids)
    assert_the_builds_patchings(loaded, live, clean_ids, corrupted_ids, position, target, versus)


def assert_the_layers_outputs_are_the_builds_activations(loaded, live, ids, follow) -> None:
    """Without a patch, each layer's attention output, feed-forward output and mixed values are the build's
    (figsite.capture.hooks.run_with_cache: hook_attn_out, hook_mlp_out, attn.hook_z) within 1e-5 (of their own
    size where it is over 1), the residual stream is the build's hook_resid_pre of each layer and hook_resid_post of
    the last, and the followed tokens' scores at every stage are the model's read-out of it within 1e-4."""
    from figsite.capture.hooks import point, run_with_cache

    n_layer = loaded.model.config.n_layer
    outputs = run(live, ids, follow)
    names = {
        "attention_outputs": "hook_attn_out",
        "feed_forward_outputs": "hook_mlp_out",
        "mixed_values": "attn.hook_z",
    }
    stream = [point(layer, "hook_resid_pre") for layer in range(n_layer)] + [point(n_layer - 1, "hook_resid_post")]
    cache = run_with_cache(
        loaded, ids, [point(layer, name) for layer in range(n_layer) for name in names.values()] + stream
    )
    for output, name in names.items():
        expected = torch.stack([cache[point(layer, name)] for layer in range(n_layer)])
        got = torch.from_numpy(outputs[output])
        assert got.shape == expected.shape
        assert (got - expected).abs().max() < 1e-5 * max(1.0, expected.abs().max().item()), output
    stages = torch.stack([cache[name] for name in stream])
    assert (torch.from_numpy(outputs["residuals"]) - stages).abs().max() < 1e-5 * stages.abs().max()
    with torch.no_grad():
        scores = loaded.model.read_out(stages)[..., follow]  # (stages, position, K)
    assert (torch.from_numpy(outputs["follow_scores"]) - scores).abs().max() < 1e-4


def test_the_layers_outputs_and_the_followed_scores_are_the_builds_activations_and_logits(loaded, live):
    ids = ids_of(loaded, "German")
    assert_the_layers_outputs_are_the_builds_activations(loaded, live, ids, followed(ids))


def test_values_under_zero_masks_change_nothing_and_a_runs_own_activations_put_back_everywhere_neither(loaded, live):
    """Bit for bit: torch.where keeps the run's own number wherever the mask is 0, whatever the value."""
    import numpy

    from figsite.capture.live_run import Patched

    ids = ids_of(loaded, "German")
    follow = followed(ids)
    whole = run(live, ids, follow)
    n_layer, _, n_head, _ = whole["mixed_values"].shape
    own = {field: whole[output] for field, output in SITES.values()}  # residual: the residuals, ...
    masks = {field: array.shape[:2] for field, array in own.items()} | {"heads": (n_layer, n_head)}
    everywhere = Patched(**own, **{f"{field}_at": numpy.ones(shape) for field, shape in masks.items()})
    noise = Patched(
        **{field: numpy.full_like(array, 7.5) for field, array in own.items()},
        **{f"{field}_at": numpy.zeros(shape) for field, shape in masks.items()},
    )
    for patched in (everywhere, noise):
        outputs = run(live, ids, follow, patched=patched)
        assert all(numpy.array_equal(outputs[name], whole[name]) for name in whole)


# Each site patched in layer 1 (at the position where the texts part, or head 2): how many layers (stages, for the
# residuals) of each output come before it and are the same
BEFORE = {
    "resid_pre": {"residuals": 1, "shares": 1, "attention_outputs": 1, "feed_forward_outputs": 1, "mixed_values": 1},
    "attn_out": {"residuals": 2, "shares": 2, "attention_outputs": 1, "feed_forward_outputs": 1, "mixed_values": 2},
    "mlp_out": {"residuals": 2, "shares": 2, "attention_outputs": 2, "feed_forward_outputs": 1, "mixed_values": 2},
    "z": {"residuals": 2, "shares": 2, "attention_outputs": 1, "feed_forward_outputs": 1, "mixed_values": 1},
}


@pytest.mark.parametrize("site", BEFORE)
def test_a_patch_changes_nothing_before_it_and_its_value_is_what_the_run_goes_on_with(loaded, live, site):
    """The layers before the patched hook point (their shares exactly), the positions before the patched one, and
    the patched activation is the clean run's, bit for bit; the stream after the last layer differs."""
    import numpy

    from figsite.capture.api import token_ids

    clean_ids, corrupted_ids = token_ids(loaded, CLEAN), token_ids(loaded, CORRUPTED)
    clean, corrupted = run(live, clean_ids), run(live, corrupted_ids)
    start = next(q for q, (a, b) in enumerate(zip(clean_ids, corrupted_ids)) if a != b)  # where they part
    index = 2 if site == "z" else start
    patched = run(live, corrupted_ids, patched=put_back(clean, [(site, 1, index)]))
    for output, layers in BEFORE[site].items():
        assert numpy.array_equal(patched[output][:layers], corrupted[output][:layers]), output
        if site != "z":  # no position after the patched one looks at it
            before = (
                (slice(None), slice(None), slice(0, index)) if output == "shares" else (slice(None), slice(0, index))
            )
            assert numpy.array_equal(patched[output][before], corrupted[output][before]), output
    field_output = SITES[site][1]
    at = (1, slice(None), index) if site == "z" else (1, index)
    assert numpy.array_equal(patched[field_output][at], clean[field_output][at])
    assert not numpy.array_equal(patched["residuals"][-1], corrupted["residuals"][-1])


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


def test_a_llama_style_export_makes_the_builds_patchings_and_gives_its_activations(llama_loaded, llama_exported):
    """Grouped-query heads (mixed values of every query head), rotary positions, a start token: every cell of the
    build's patchings between a text and the same text with one token in the middle changed, and the layers'
    outputs of an unpatched run against the build's hooks."""
    from figsite.capture.api import token_ids
    from figsite.capture.live_export import session

    live_llama, vocab = session(llama_exported[0]), llama_loaded.model.config.vocab_size
    clean_ids = token_ids(llama_loaded, "Maya lives in Paris, the capital of France.")
    middle = len(clean_ids) // 2
    corrupted_ids = [*clean_ids[:middle], (clean_ids[middle] + 1) % vocab, *clean_ids[middle + 1 :]]
    target, versus = clean_ids[middle], corrupted_ids[middle]
    assert_the_builds_patchings(llama_loaded, live_llama, clean_ids, corrupted_ids, len(clean_ids) - 2, target, versus)
    assert_the_layers_outputs_are_the_builds_activations(llama_loaded, live_llama, clean_ids, clean_ids)
