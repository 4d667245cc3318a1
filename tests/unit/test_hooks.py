"""The model's named hook points (figsite.model.gpt2) and the one helper the capture reads them through
(figsite.capture.hooks), which runs the model through its interface: each point passes the shape its name promises; a function that returns a tensor replaces
the activation; functions are always taken off again; a name the model lacks is refused by name."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from figsite.capture.hooks import at_each_layer, keep_into, point, run_with_hooks, together  # noqa: E402
from figsite.model.load import Loaded, random_gpt2  # noqa: E402

BATCH, N, D_MODEL, N_HEAD, N_LAYER, VOCAB = 2, 5, 12, 3, 2, 40
D_HEAD, D_MLP = D_MODEL // N_HEAD, 4 * D_MODEL


def expected_shapes() -> dict:
    """Every hook point's name -> the shape that passes there for a batch of BATCH texts of N tokens."""
    stream, heads = (BATCH, N, D_MODEL), (BATCH, N, N_HEAD, D_HEAD)
    shapes = {"hook_embed": stream, "hook_pos_embed": (1, N, D_MODEL), "ln_final.hook_scale": (BATCH, N, 1)}
    for layer in range(N_LAYER):
        per_layer = {
            "hook_resid_pre": stream,
            "hook_resid_mid": stream,
            "hook_resid_post": stream,
            "hook_attn_out": stream,
            "hook_mlp_out": stream,
            "attn.hook_q": heads,
            "attn.hook_k": heads,
            "attn.hook_v": heads,
            "attn.hook_z": heads,
            "attn.hook_attn_scores": (BATCH, N_HEAD, N, N),
            "attn.hook_pattern": (BATCH, N_HEAD, N, N),
            "mlp.hook_pre": (BATCH, N, D_MLP),
            "mlp.hook_post": (BATCH, N, D_MLP),
        }
        shapes.update({point(layer, name): shape for name, shape in per_layer.items()})
    return shapes


@pytest.fixture(scope="module")
def model():
    """A tiny GPT-2 with every weight drawn, biases and layer norms too."""
    return random_gpt2(seed=3, n_layer=N_LAYER, n_head=N_HEAD, n_embd=D_MODEL, vocab_size=VOCAB, n_positions=8)


@pytest.fixture(scope="module")
def ids():
    return torch.randint(0, VOCAB, (BATCH, N), generator=torch.Generator().manual_seed(0))


def no_functions_left(model) -> bool:
    return all(not hook_point.functions for hook_point in model.hook_points.values())


def test_every_hook_point_exists_and_passes_the_shape_its_name_promises(model, ids):
    seen = {}
    record = {
        name: (lambda activation, name: seen.__setitem__(name, tuple(activation.shape))) for name in model.hook_points
    }
    with model.hooks(record):
        model(ids)
    assert set(model.hook_points) == set(expected_shapes())
    assert seen == expected_shapes()


def test_a_function_that_returns_a_tensor_replaces_the_activation(model, ids):
    """Zeroing layer 0's attention output leaves layer 0 only its feed-forward step: worked out here by hand,
    through the same modules in the same order, it gives the same scores to the last bit."""
    zeroed = {point(0, "hook_attn_out"): lambda out, _name: torch.zeros_like(out)}
    with model.hooks(zeroed):
        got = model(ids)
    with torch.no_grad():
        t = model.transformer
        x = t.wte(ids) + t.wpe(torch.arange(N))[None]  # (batch, position, d_model)
        block = t.h[0]
        resid_mid = torch.zeros_like(x) + x  # the attention's correction taken out
        x = resid_mid + block.mlp(block.ln_2(resid_mid))
        x = t.h[1](x)
        by_hand = model.lm_head(t.ln_f(x))  # (batch, position, vocab)
    assert torch.equal(got, by_hand)
    assert not torch.equal(got, model(ids)), "zeroing the attention's output changed nothing"


def test_functions_are_taken_off_again_even_when_one_raises(model, ids):
    before = model(ids)

    def fails(activation, name):
        raise RuntimeError(f"stopped at {name}")

    hooks = {point(1, "attn.hook_pattern"): fails, "hook_embed": lambda a, _n: a * 0}
    with pytest.raises(RuntimeError, match="stopped at blocks.1.attn.hook_pattern"):
        with model.hooks(hooks):
            model(ids)
    assert no_functions_left(model)
    with pytest.raises(RuntimeError):
        run_with_hooks(Loaded(model, None, "tiny", None, "cpu"), ids[0].tolist(), hooks)
    assert no_functions_left(model)
    assert torch.equal(model(ids), before)


def test_a_hook_point_the_model_lacks_is_refused_by_its_name_and_nothing_is_added(model):
    with pytest.raises(KeyError, match="blocks.0.attn.hook_nothing"):
        with model.hooks({"hook_embed": lambda a, _n: None, point(0, "attn.hook_nothing"): lambda a, _n: None}):
            pass
    assert no_functions_left(model)


def test_the_helper_keeps_what_its_hooks_read_and_runs_the_layers_only_where_asked(model, ids):
    loaded = Loaded(model, None, "tiny", None, "cpu")
    kept, order = {}, []
    hooks = together(
        at_each_layer(N_LAYER, "hook_resid_post", lambda layer: keep_into(kept, layer)),
        {point(1, "hook_resid_post"): lambda a, name: order.append(name)},
        {point(1, "hook_resid_post"): lambda a, name: order.append("second")},
    )
    out = run_with_hooks(loaded, ids[0].tolist(), hooks, layers_only=True)
    assert order == [point(1, "hook_resid_post"), "second"]  # both functions at one point, in the order given
    assert sorted(kept) == [0, 1] and kept[1].shape == (N, D_MODEL)  # the batch dimension dropped
    assert torch.equal(out[0], kept[1])  # the stream after the last layer, raw: no final layer norm
    scores = run_with_hooks(loaded, ids[0].tolist(), {})
    assert scores.shape == (1, N, VOCAB) and no_functions_left(model)
