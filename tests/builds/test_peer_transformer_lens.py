"""A peer's check, where it runs offline: TransformerLens's TransformerBridge, run on the same local model of each
family (a narrow GPT-2, a Llama-style model with grouped-query attention and a start token, a Pythia-style one with
parallel layers), gives the shares and the read-out the site's data files hold. TransformerLens is no dependency of
ours: the test runs where it is installed (`pip install transformer-lens`), and is skipped elsewhere."""

from __future__ import annotations

import json

import pytest

from conftest import built, llama_dir, neox_dir

bridge_module = pytest.importorskip("transformer_lens.model_bridge", reason="TransformerLens is not installed")

TEXT = "The animal didn't cross the street because it was too tired"
CONFIG = f'[[figure]]\nkind = "attention"\nlabel = "l"\ntext = "{TEXT}"\nviews = [[1, 1]]\n'
TOLERANCE = 1e-5  # the data files keep shares to 6 decimals and chances to 8: the rest is float32's


@pytest.fixture(scope="module", params=["gpt2", "llama", "neox"])
def model_and_site(request, small_model_dir, tmp_path_factory):
    folder = tmp_path_factory.mktemp(f"peer-{request.param}")
    model = {
        "gpt2": lambda: small_model_dir,
        "llama": lambda: llama_dir(folder / "model"),
        "neox": lambda: neox_dir(folder / "model"),
    }[request.param]()
    return model, built(model, CONFIG, folder, "--no-cache")


def bridge_cache(model_dir, ids: list[int]):
    """TransformerLens's bridge over the model transformers loads from the folder, its hook points under their
    HookedTransformer names, without folding or centring any weight (the model's own numbers)."""
    import torch
    from transformers import AutoModelForCausalLM

    hf_model = AutoModelForCausalLM.from_pretrained(model_dir, attn_implementation="eager")
    bridge = bridge_module.TransformerBridge.boot_transformers(str(model_dir), hf_model=hf_model)
    bridge.enable_compatibility_mode(no_processing=True)
    with torch.no_grad():
        logits, cache = bridge.run_with_cache(torch.tensor([ids]))
    return logits, cache


def test_the_bridge_gives_every_share_and_the_last_read_out_the_site_holds(model_and_site):
    import torch

    model_dir, site = model_and_site
    record = json.loads((site / "data" / "run.json").read_text(encoding="utf-8"))
    [entry] = record["texts"]
    data = json.loads((site / entry["data"]).read_text(encoding="utf-8"))
    ids = [token["id"] for token in data["tokens"]]
    logits, cache = bridge_cache(model_dir, ids)
    for layer, heads in enumerate(data["attention"]):
        theirs = cache[f"blocks.{layer}.attn.hook_pattern"][0]  # (heads, query, key)
        for head, rows in enumerate(heads):
            for query, shares in enumerate(rows):
                gap = (torch.tensor(shares) - theirs[head, query, : query + 1].double()).abs().max().item()
                assert gap < TOLERANCE, (layer, head, query, gap)
    chances = torch.softmax(logits[0, -1].double(), -1)
    top = data["readout"][-1][-1]["top"]  # after the last layer, at the last token: [[id, chance], ...]
    assert len(top) >= 3
    for token, p in top:
        assert abs(p - chances[token].item()) < TOLERANCE, (token, p, chances[token].item())
