"""The model run: --model random is GPT-2 small's shape with every weight drawn, and the run is one pass."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from figsite.capture import api as capture  # noqa: E402
from figsite.data.asks import Asks  # noqa: E402


@pytest.fixture(scope="module")
def random_model():
    return capture.random_gpt2(seed=0)


def test_random_model_has_gpt2_smalls_shape(random_model):
    c = random_model.config
    assert (c.n_layer, c.n_head, c.n_embd, c.n_positions, c.vocab_size) == (12, 12, 768, 1024, 50257)
    assert sum(p.numel() for p in random_model.parameters()) == 124_439_808


def test_random_model_draws_layer_norms_and_biases_too(random_model):
    for name, param in random_model.named_parameters():
        if ".ln_" in name and name.endswith(".weight"):
            assert not torch.allclose(param, torch.ones_like(param)), name
        if name.endswith(".bias"):
            assert param.abs().sum() > 0, name


def test_same_seed_same_weights_other_seed_other_weights():
    a, b, c = (capture.random_gpt2(seed=s, n_layer=1, n_embd=32, n_head=2) for s in (7, 7, 8))
    first = a.transformer.h[0].ln_1.weight
    assert torch.equal(first, b.transformer.h[0].ln_1.weight)
    assert not torch.equal(first, c.transformer.h[0].ln_1.weight)


def test_random_tokenizer_is_gpt2s_bpe():
    tokenizer = capture.gpt2_tokenizer()
    ids = tokenizer("The animal didn't cross the street because it was too tired")["input_ids"]
    # Ids from GPT-2's published vocabulary: "The"=464, " animal"=5044, " it"=340.
    assert ids[:2] == [464, 5044] and ids[8] == 340 and len(ids) == 12
    assert tokenizer(" France")["input_ids"] == [4881]


def test_the_model_runs_once_per_distinct_text(monkeypatch):
    loaded = capture.Loaded(
        capture.random_gpt2(seed=0, n_layer=2, n_embd=32, n_head=2),
        capture.gpt2_tokenizer(),
        "random (seed 0)",
        None,
        "cpu",
    )
    calls = []
    # The model interface's embedding runs once per text (then its layers); the read-out applies the unembedding
    # to their output itself.
    original = loaded.model.embed
    monkeypatch.setattr(loaded.model, "embed", lambda *a, **k: calls.append(1) or original(*a, **k))
    run = capture.capture_run(loaded, Asks(texts={"Maya lives in Paris": " France", "The animal": None}))
    assert len(calls) == 2 and set(run.texts) == {"Maya lives in Paris", "The animal"}


def differences_between_devices(first: str, second: str, model: str = "random") -> tuple[float, float]:
    """The largest difference of any attention share, and of the target's probability at any stage and position,
    between runs of the same model on two devices (by default GPT-2 small's shape with seed 0's weights)."""
    text = "Maya lives in Paris, the capital of"
    loaded = {device: capture.load(model, None, 0, device) for device in {first, second}}
    cpu, other = (capture.run_text(loaded[device], text, " France").data for device in (first, second))
    shares = max(
        abs(a - b)
        for layer_a, layer_b in zip(cpu["attention"], other["attention"])
        for head_a, head_b in zip(layer_a, layer_b)
        for row_a, row_b in zip(head_a, head_b)
        for a, b in zip(row_a, row_b)
    )
    target = max(
        abs(a - b)
        for stage_a, stage_b in zip(cpu["target"]["p"], other["target"]["p"])
        for a, b in zip(stage_a, stage_b)
    )
    return shares, target


def test_two_runs_on_the_cpu_are_identical_in_every_number_the_device_comparison_reads(small_model_dir):
    """The run is deterministic: the same model run twice over the same text on the CPU gives the same attention
    shares and target probabilities to the last bit. This also runs the comparison the CUDA test below uses
    where no GPU is, so that it reads the captured data as it now is (a changed format fails here, not only on
    a GPU). It says nothing about CUDA: that is the next test's."""
    assert differences_between_devices("cpu", "cpu", str(small_model_dir)) == (0.0, 0.0)


@pytest.mark.skipif(
    not torch.cuda.is_available(),
    reason="no CUDA device here (torch.cuda.is_available() is False): CPU and CUDA not compared",
)
def test_cuda_gives_the_same_numbers_as_cpu():
    shares, target = differences_between_devices("cpu", "cuda")
    assert shares < 1e-4 and target < 1e-5
