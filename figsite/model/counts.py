"""The model in numbers and the software it ran on: what the run record says of the loaded model, counted from
its parameters rather than taken from its config."""

from __future__ import annotations

import torch

from figsite.model.load import Loaded
from figsite.records import Environment, Parameters, WeightCounts


def parameter_counts(loaded: Loaded) -> Parameters:
    """The model's weights counted by the part of the model they belong to (tied weights counted once), through
    the model interface (figsite.model.interface): its part_of names each weight's part, its first layer's
    feed-forward matrices give their shapes."""
    model = loaded.model
    counts: WeightCounts = {"embedding": 0, "attention": 0, "feed-forward": 0, "layer norm": 0, "other": 0}
    total = 0
    for name, param in model.named_parameters():  # named_parameters() lists a tied weight once
        counts[model.part_of(name)] += param.numel()
        total += param.numel()
    weights = model.layer_weights(0)
    return {
        "parts": counts,
        "total": total,
        "feed_forward_in": list(weights.W_in.shape),  # (d_model, d_mlp)
        "feed_forward_out": list(weights.W_out.shape),  # (d_mlp, d_model)
        "head_width": model.config.d_head,
    }


def environment(loaded: Loaded) -> Environment:
    """The software and device the run used, for the record on every page."""
    import tokenizers

    return {
        "torch": torch.__version__,
        "tokenizers": tokenizers.__version__,
        "device": loaded.device,
        "dtype": str(next(loaded.model.parameters()).dtype).replace("torch.", ""),
    }
