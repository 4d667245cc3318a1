"""The model in numbers and the software it ran on: what the run record says of the loaded model, counted from
its parameters rather than taken from its config."""

from __future__ import annotations

import torch

from figsite.model.load import Loaded


def parameter_counts(loaded: Loaded) -> dict:
    """The model's weights counted by the part of the model they belong to (tied weights counted once)."""
    model = loaded.model
    counts = {"embedding": 0, "attention": 0, "feed-forward": 0, "layer norm": 0, "other": 0}
    for name, param in model.named_parameters():  # named_parameters() lists a tied weight once
        counts[_part_of(name)] += param.numel()
    block = model.transformer.h[0]
    return {
        "parts": counts,
        "total": sum(counts.values()),
        "feed_forward_in": list(block.mlp.c_fc.weight.shape),  # Conv1D stores (in, out)
        "feed_forward_out": list(block.mlp.c_proj.weight.shape),
        "head_width": model.config.n_embd // model.config.n_head,
    }


def _part_of(name: str) -> str:
    """The part of the model a parameter belongs to, by its name (transformer.h.3.attn.c_attn.weight: attention)."""
    if ".attn." in name:
        return "attention"
    if ".mlp." in name:
        return "feed-forward"
    if ".ln_" in name:
        return "layer norm"
    if name.startswith(("transformer.wte", "transformer.wpe")):
        return "embedding"
    return "other"


def environment(loaded: Loaded) -> dict:
    """The software and device the run used, for the record on every page."""
    import tokenizers

    return {"torch": torch.__version__, "tokenizers": tokenizers.__version__,
            "device": loaded.device, "dtype": str(next(loaded.model.parameters()).dtype).replace("torch.", "")}
