"""The one way the capture reads the model: functions added at its named hook points (TransformerLens's names,
see figsite.model.interface and the README's table), for one pass, and always taken off again; or the activations
there kept, in one pass (run_with_cache). The model is run through its interface only.

A function is called as function(activation, name) as the model computes that activation: it reads it (and
returns None) or returns a tensor of the same shape that the model goes on with (a knockout's zeros).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping, Sequence
from typing import TypeVar

import torch

from figsite.model.interface import HookFunction, HookFunctions
from figsite.model.load import Loaded

H = TypeVar("H")  # what at_each_layer's function makes for one layer: a hook function, or a list of them
K = TypeVar("K")  # the key keep_into keeps an activation under


def point(layer: int, name: str) -> str:
    """The name of a layer's hook point: point(3, "attn.hook_pattern") == "blocks.3.attn.hook_pattern"."""
    return f"blocks.{layer}.{name}"


def at_each_layer(n_layer: int, name: str, function_of_layer: Callable[[int], H]) -> dict[str, H]:
    """{hook point name: function} for the same hook point in every layer; function_of_layer(layer) makes each."""
    return {point(layer, name): function_of_layer(layer) for layer in range(n_layer)}


def keep_into(kept: MutableMapping[K, torch.Tensor], key: K) -> HookFunction:
    """A hook that keeps the first text's activation under `key` (the batch dimension dropped)."""

    def hook(activation: torch.Tensor, _name: str) -> None:
        kept[key] = activation[0]

    return hook


def together(*hook_sets: Mapping[str, HookFunction]) -> dict[str, list[HookFunction]]:
    """Several {name: function} merged into {name: [functions]}: each runs, in the order given."""
    merged: dict[str, list[HookFunction]] = {}
    for hooks in hook_sets:
        for name, function in hooks.items():
            merged.setdefault(name, []).append(function)
    return merged


@torch.no_grad()
def run_with_hooks(loaded: Loaded, ids: Sequence[int], hooks: HookFunctions, layers_only: bool = False) -> torch.Tensor:
    """Runs the model over one text's token ids with `hooks` ({hook point name: function or [functions]}) added,
    and takes them off again whatever happens. layers_only: the embedding and the layers, without the read-out,
    whose scores the capture works out where it reads them: the stream after the last layer (1, position,
    d_model), raw; else the scores, (1, position, vocab)."""
    model = loaded.model
    tokens = torch.tensor([ids], device=loaded.device)  # (1, position)
    with model.hooks(hooks):
        stream = model.run_layers(model.embed(tokens), 0, model.config.n_layer)  # (1, position, d_model)
        return stream if layers_only else model.read_out(stream)


def run_with_cache(loaded: Loaded, ids: Sequence[int], names: Sequence[str]) -> dict[str, torch.Tensor]:
    """One pass over one text's token ids: {hook point name: its activation, the batch dimension dropped}
    (the model interface's run_with_cache)."""
    tokens = torch.tensor([ids], device=loaded.device)  # (1, position)
    return {name: activation[0] for name, activation in loaded.model.run_with_cache(tokens, names).items()}
