"""The hooks of the live page's export (figsite.capture.live_export): at each hook point that a `keep_` input scales
or a `patch_` input replaces, one function that does both and keeps what the graph gives out of it.

    hooks(n_layer, keeps, patches, recorded) -> {hook point name: [function]}    for one run of LiveModel

A part's output is first multiplied by its `keep_` value (1: the part as it is; 0: taken out at every position, as
the build's knockouts take it out), then replaced where its `patch_..._at` mask is nonzero by the `patch_` value
(torch.where: an all-zero mask gives the numbers of the graph without it, bit for bit), as the build's activation
patching puts a clean run's activation back into a corrupted run (figsite.capture.parts.patchings):

    patch_residual      (S, T, d_model)            stage s < n_layer: the stream entering layer s
                                                   (blocks.s.hook_resid_pre); stage n_layer: the stream after the
                                                   last layer (blocks.<last>.hook_resid_post); mask (S, T)
    patch_attention     (n_layer, T, d_model)      each layer's attention output (blocks.L.hook_attn_out); mask
                                                   (n_layer, T)
    patch_feed_forward  (n_layer, T, d_model)      each layer's feed-forward output (blocks.L.hook_mlp_out); mask
                                                   (n_layer, T)
    patch_heads         (n_layer, T, n_head, d_head)  each query head's mixed values (its slice of
                                                   blocks.L.attn.hook_z), at every position; mask (n_layer, n_head)

What is recorded is the activation as the run goes on with it (kept, then patched): the residual stream of each
stage, each layer's shares, attention and feed-forward outputs and mixed values.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from figsite.capture.hooks import point
from figsite.model.interface import HookFunction


@dataclass(frozen=True)
class Keeps:
    """The graph's `keep_` inputs: keep_attention (n_layer,), keep_feed_forward (n_layer,), keep_heads (n_layer,
    n_head)."""

    attention: torch.Tensor
    feed_forward: torch.Tensor
    heads: torch.Tensor


@dataclass(frozen=True)
class Patches:
    """The graph's `patch_` inputs, each value with its mask (see the module's docstring)."""

    residual: torch.Tensor  # (S, T, d_model)
    residual_at: torch.Tensor  # (S, T)
    attention: torch.Tensor  # (n_layer, T, d_model)
    attention_at: torch.Tensor  # (n_layer, T)
    feed_forward: torch.Tensor  # (n_layer, T, d_model)
    feed_forward_at: torch.Tensor  # (n_layer, T)
    heads: torch.Tensor  # (n_layer, T, n_head, d_head)
    heads_at: torch.Tensor  # (n_layer, n_head)


@dataclass
class Recorded:
    """What one run's hooks keep, in the order the hook points fire, the batch dimension dropped: the residual
    stream of each stage (T, d_model), and each layer's shares (1, heads, T, T), attention and feed-forward outputs
    (T, d_model) and mixed values (T, n_head, d_head)."""

    stages: list[torch.Tensor] = field(default_factory=list)
    shares: list[torch.Tensor] = field(default_factory=list)
    attention: list[torch.Tensor] = field(default_factory=list)
    feed_forward: list[torch.Tensor] = field(default_factory=list)
    mixed: list[torch.Tensor] = field(default_factory=list)


def _replaced(
    into: list[torch.Tensor], at: torch.Tensor, value: torch.Tensor, keep: torch.Tensor | None = None
) -> HookFunction:
    """A hook that multiplies the activation (1, T, ...) by `keep` (broadcast; None: no `keep_` input there), puts
    `value` (T, ...) where `at` (broadcast to it, after the batch dimension) is nonzero, and keeps the result in
    `into`."""

    def hook(activation: torch.Tensor, _name: str) -> torch.Tensor:
        kept = activation if keep is None else activation * keep
        patched = torch.where(at[None] != 0, value[None], kept)
        into.append(patched[0])
        return patched

    return hook


def hooks(n_layer: int, keeps: Keeps, patches: Patches, recorded: Recorded) -> dict[str, list[HookFunction]]:
    """{hook point name: [function]} for one run: each layer's stream entering it and the stream after the last
    (patched), its shares (read), attention and feed-forward outputs and mixed values (kept, then patched); each
    recorded into `recorded`. A position's mask (T,) is given as (T, 1), a head's (n_head,) as (1, n_head, 1)."""
    stages, residual, residual_at = recorded.stages, patches.residual, patches.residual_at
    made = {
        point(n_layer - 1, "hook_resid_post"): [_replaced(stages, residual_at[n_layer][:, None], residual[n_layer])]
    }
    for layer in range(n_layer):
        attention_at, feed_forward_at = patches.attention_at[layer][:, None], patches.feed_forward_at[layer][:, None]
        heads_at, keep_heads = patches.heads_at[layer][None, :, None], keeps.heads[layer][None, None, :, None]
        made |= {
            point(layer, "hook_resid_pre"): [_replaced(stages, residual_at[layer][:, None], residual[layer])],
            point(layer, "attn.hook_pattern"): [lambda pattern, _name: recorded.shares.append(pattern)],
            point(layer, "hook_attn_out"): [
                _replaced(recorded.attention, attention_at, patches.attention[layer], keeps.attention[layer])
            ],
            point(layer, "hook_mlp_out"): [
                _replaced(
                    recorded.feed_forward, feed_forward_at, patches.feed_forward[layer], keeps.feed_forward[layer]
                )
            ],
            point(layer, "attn.hook_z"): [_replaced(recorded.mixed, heads_at, patches.heads[layer], keep_heads)],
        }
    return made
