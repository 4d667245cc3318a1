"""The model interface (figsite.model.interface): the capture sees a model only through it and its hook points.

No module of figsite/capture/ names a module or a weight of GPT-2 (read from the files, every one of them); GPT-2
implements every method, each giving what the whole model computes to the last bit (run in pieces, with the
earlier positions' keys and values, read out, cached); a family that lacks a method cannot be made; and every part
of the capture leaves the caller's model as it was.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from conftest import read_doc  # noqa: E402
from model_state import changes, model_state  # noqa: E402

from figsite.capture.hooks import point  # noqa: E402
from figsite.model.interface import LanguageModel  # noqa: E402
from figsite.model.load import Loaded, random_gpt2  # noqa: E402
from figsite.model.tokens import gpt2_tokenizer  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CAPTURE = sorted((ROOT / "figsite" / "capture").rglob("*.py"))
# GPT-2's modules and weights as its checkpoints name them (transformer.h.3.attn.c_proj.weight, lm_head, ...), and
# the module of the family itself: what only figsite/model/gpt2.py may name.
GPT2_NAMES = re.compile(
    r"\btransformer\b|\blm_head\b|\bwte\b|\bwpe\b|\bln_f\b|\bln_[12]\b|\bc_attn\b|\bc_proj\b"
    r"|\bc_fc\b|\.h\[|\.h\.|\bh\.\d|\bGPT2LMHeadModel\b|\bGPT2Config\b|figsite\.model\.gpt2\b"
)
N_LAYER, N_HEAD, D_MODEL = 3, 2, 16


def gpt2_names_in(source: str) -> list[str]:
    """'line: the name' for each name of GPT-2's modules or weights in a module's source (comments too)."""
    return [
        f"{number}: {found.group(0)}"
        for number, line in enumerate(source.splitlines(), start=1)
        for found in GPT2_NAMES.finditer(line)
    ]


def test_no_module_of_the_capture_names_the_models_modules_or_weights():
    assert {path.parent.name for path in CAPTURE} >= {"capture", "parts"} and len(CAPTURE) >= 16
    named = {str(path.relative_to(ROOT)): gpt2_names_in(path.read_text(encoding="utf-8")) for path in CAPTURE}
    assert not {path: names for path, names in named.items() if names}


@pytest.mark.parametrize(
    "line",
    [
        "logits = model.lm_head(model.transformer.ln_f(final))",
        "for layer, block in enumerate(model.transformer.h):",
        "stream = model.transformer.wte(ids) + model.transformer.wpe(positions)",
        "batch = blocks.h[layer](batch, past=past)",
        "weight = block.attn.c_proj.weight",
        "from figsite.model.gpt2 import causal_mask",
    ],
)
def test_the_check_finds_each_way_the_old_capture_named_the_model(line):
    assert gpt2_names_in(line)


def test_the_check_passes_the_hook_points_words_and_the_interface():
    assert not gpt2_names_in(
        'run_with_cache(ids, ["hook_embed", "blocks.0.attn.hook_z", "ln_final.hook_scale"])'
        "  # TransformerLens's names; model.read_out(stream), model.final_norm_weights()"
    )


@pytest.fixture(scope="module")
def model():
    return random_gpt2(seed=5, n_layer=N_LAYER, n_head=N_HEAD, n_embd=D_MODEL, vocab_size=60, n_positions=12)


@pytest.fixture(scope="module")
def ids():
    return torch.randint(0, 60, (2, 9), generator=torch.Generator().manual_seed(1))  # (batch, position)


def test_gpt2_is_a_language_model_and_a_family_lacking_a_method_cannot_be_made(model):
    assert isinstance(model, LanguageModel)

    class Half(LanguageModel):
        def embed(self, ids):
            return ids

    with pytest.raises(TypeError, match="abstract"):
        Half()


@torch.no_grad()
def test_embedding_then_the_layers_in_pieces_then_the_read_out_give_the_models_scores_to_the_last_bit(model, ids):
    fired = []
    with model.hooks({name: lambda a, name: fired.append(name) for name in ("hook_embed", "hook_pos_embed")}):
        stream = model.embed(ids)  # (batch, position, d_model)
    assert fired == ["hook_embed", "hook_pos_embed"]
    for start, stop in ((0, 1), (1, 3)):
        stream = model.run_layers(stream, start, stop)
    assert torch.equal(model.read_out(stream), model(ids))
    assert torch.equal(model.read_out(stream), model.unembed(model.final_norm(stream)))


@torch.no_grad()
def test_the_later_positions_with_the_earlier_ones_keys_and_values_give_what_the_whole_text_gives(model, ids):
    start = 4
    names = [point(layer, name) for layer in range(N_LAYER) for name in ("attn.hook_k", "attn.hook_v")]
    cache = model.run_with_cache(ids[:1], names + [point(0, "hook_resid_pre"), point(N_LAYER - 1, "hook_resid_post")])
    past = {
        layer: (cache[point(layer, "attn.hook_k")][:, :start], cache[point(layer, "attn.hook_v")][:, :start])
        for layer in range(N_LAYER)
    }
    later = model.run_layers(cache[point(0, "hook_resid_pre")][:, start:].expand(3, -1, -1), 0, N_LAYER, past=past)
    whole = cache[point(N_LAYER - 1, "hook_resid_post")][:, start:]  # (1, later position, d_model)
    assert later.shape == (3, 9 - start, D_MODEL)
    assert (later - whole).abs().max().item() < 1e-5


@torch.no_grad()
def test_run_with_cache_keeps_what_passed_at_each_named_point_in_one_pass(model, ids):
    seen = {}
    names = ["hook_embed", point(1, "attn.hook_pattern"), point(2, "mlp.hook_post"), "ln_final.hook_scale"]
    with model.hooks({name: lambda a, name: seen.__setitem__(name, a) for name in names}):
        model(ids)
    cache = model.run_with_cache(ids, names)
    assert sorted(cache) == sorted(names)
    assert all(torch.equal(cache[name], seen[name]) for name in names)
    assert not model.run_with_cache(ids, [point(0, "hook_resid_pre")]).keys() - {point(0, "hook_resid_pre")}
    assert all(not hook_point.functions for hook_point in model.hook_points.values())


@torch.no_grad()
def test_what_the_ledger_reads_splits_the_models_own_scores(model, ids):
    """The final norm's weights and the unembedding's rows give the scores; each layer's W_O splits its
    attention output by head, and W_out its feed-forward output by neuron."""
    names = [
        point(N_LAYER - 1, "hook_resid_post"),
        point(1, "attn.hook_z"),
        point(1, "hook_attn_out"),
        point(1, "mlp.hook_post"),
        point(1, "hook_mlp_out"),
    ]
    cache = model.run_with_cache(ids, names)
    final = cache[names[0]]  # (batch, position, d_model)
    norm = model.final_norm_weights()
    centred = final - final.mean(dim=-1, keepdim=True)
    normed = norm.gain * centred / torch.sqrt(final.var(dim=-1, unbiased=False, keepdim=True) + norm.eps) + norm.bias
    rows = model.unembedding_rows([3, 7])  # (2, d_model)
    assert torch.allclose(normed @ rows.T, model(ids)[..., [3, 7]], atol=1e-5)
    weights = model.layer_weights(1)
    assert weights.W_O.shape == (N_HEAD, D_MODEL // N_HEAD, D_MODEL) and weights.W_in.shape == (D_MODEL, 4 * D_MODEL)
    by_head = torch.einsum("bphd,hdm->bpm", cache[names[1]], weights.W_O) + weights.b_O
    assert torch.allclose(by_head, cache[names[2]], atol=1e-5)
    assert torch.allclose(cache[names[3]] @ weights.W_out + weights.b_out, cache[names[4]], atol=1e-5)


def test_the_counts_and_the_export_read_the_model_through_it(model):
    parts = {model.part_of(name) for name, _ in model.named_parameters()}
    assert parts == {"embedding", "attention", "feed-forward", "layer norm"}
    names = model.checkpoint_names()
    assert set(names) == set(model.state_dict()) and len(set(names.values())) == len(names) - 1  # tied, stored once
    copy = model.export_copy(5)
    assert copy.config.n_positions == 5 and copy.config.n_layer == N_LAYER and model.config.n_positions == 12
    ids = torch.tensor([[1, 2, 3, 4, 5]])
    assert torch.equal(copy(ids), model(ids))


# ---------------------------------------------------------------------------------------------- left as it was


@pytest.fixture(scope="module")
def loaded():
    model = random_gpt2(seed=2, n_layer=N_LAYER, n_head=N_HEAD, n_embd=D_MODEL)
    return Loaded(model, gpt2_tokenizer(), "random (seed 2)", None, "cpu")


def each_part(loaded):
    """Every part's computation of the capture, and the text's pass, on short texts."""
    from figsite.capture import api
    from figsite.capture.parts.lens import lens
    from figsite.capture.parts.roles import repeated, roles

    ids = api.token_ids(loaded, "The cat sat on the mat")
    other = api.token_ids(loaded, "The dog sat on the mat")
    return {
        "text pass": lambda: api.run_text(loaded, "The cat sat on the mat", " mat", keep_stages=True),
        "lens": lambda: lens(
            loaded.model,
            api.run_text(loaded, "The cat", keep_stages=True).stages,
            api.run_text(loaded, "The cat").data["readout"],
            [5],
        ),
        "scores": lambda: api.scores(loaded, ids, 1, 1, 3),
        "ledgers": lambda: api.ledger(loaded, ids, 4, ids[5], None),
        "knockouts": lambda: api.knockouts(loaded, ids, 4, ids[5], 1),
        "patchings": lambda: api.patchings(loaded, ids, other, 4, ids[5], 7),
        "roles": lambda: roles(loaded, ids, repeated(loaded, 4, 0), 4),
    }


PARTS = ("text pass", "lens", "scores", "ledgers", "knockouts", "patchings", "roles")


@pytest.mark.parametrize("part", PARTS)
def test_each_part_leaves_the_callers_model_as_it_was(loaded, part):
    loaded.model.train().requires_grad_(True)  # a caller's model in any state: the part must leave it so
    try:
        before = model_state(loaded.model)
        each_part(loaded)[part]()
        assert changes(before, loaded.model) == []
    finally:
        loaded.model.eval().requires_grad_(False)


def test_the_comparison_sees_a_hook_left_behind_a_changed_weight_and_a_changed_mode(loaded):
    model = loaded.model
    before = model_state(model)
    with model.hooks({point(0, "hook_attn_out"): lambda a, _n: None}):
        assert changes(before, model) == [
            f"hook functions of {point(0, 'hook_attn_out')}: [] -> "
            f"{model.hook_points[point(0, 'hook_attn_out')].functions}"
        ]
    handle = model.transformer.h[0].register_forward_hook(lambda *_: None)
    assert any(line.startswith("torch hooks of transformer.h.0") for line in changes(before, model))
    handle.remove()
    weight = model.transformer.h[1].mlp.c_fc.bias
    kept = weight[0].item()
    with torch.no_grad():
        weight[0] = kept + 1.0
        assert "transformer.h.1.mlp.c_fc.bias: its values changed" in changes(before, model)
        weight[0] = kept
    model.train()
    assert "training of transformer.h.2: False -> True" in changes(before, model)
    model.eval().requires_grad_(True)
    assert any("requires_grad False -> True" in line for line in changes(before, model))
    model.requires_grad_(False)
    assert changes(before, model) == []


def test_the_readme_says_what_a_second_family_implements():
    """docs/model.md: "Adding a model family" names every method of the interface, and "Hook points and words" its
    pieces."""
    page = read_doc("model.md")
    family = page[page.index("## Adding a model family") :]
    words = page[page.index("## Hook points and words") : page.index("## Adding a model family")]
    methods = sorted(LanguageModel.__abstractmethods__ | {"hooks", "read_out", "run_with_cache"})
    assert [name for name in methods if f"`{name}" not in family] == []
    assert all(f"`{call}" in words for call in ("embed(ids)", "run_layers(", "read_out(", "run_with_cache("))
