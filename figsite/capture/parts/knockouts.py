"""The part "knockouts": [[text, position, target, layer or None], ...], what the answer does when one part of the
model is taken out. Each entry of data/parts.json's "knockouts" gives the target's probability and rank at one
position with each layer's attention, each layer's feed-forward step and (for the layer asked) each of its
heads taken out in turn (its output set to zero at every position), beside the intact model's.

The model is run through its interface (figsite.model.interface): the embedding, then one layer at a time. A part
is taken out by a hook that returns its output with that run's row zeroed: blocks.L.hook_attn_out and
blocks.L.hook_mlp_out, (runs, position, d_model), and one head's slice of blocks.L.attn.hook_z,
(runs, position, heads, d_head).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import torch

from figsite.capture.hooks import point
from figsite.capture.parts import EntryPart
from figsite.data.part_records import KnockoutAnswer
from figsite.capture.readout import log_softmax_total
from figsite.data.format import probability, token
from figsite.data.part_records import Ask, Chance, KnockoutEntry, KnockoutRun
from figsite.model.interface import HookFunction
from figsite.model.load import Loaded
from figsite.model.memory import FLOAT, Shape
from figsite.model.tokens import one_token_id, token_ids, token_text

# A run of the plan: (part taken out, the layer it starts at, the head), ("intact", None, None) first
Planned = tuple[str, int | None, int | None]


class _Measured(Chance):
    """A run of the plan measured: as part_records.KnockoutRun, but the intact run's layer is None."""

    part: str
    layer: int | None
    head: int | None


class Knockouts(EntryPart[KnockoutEntry]):
    name = "knockouts"

    def compute(self, loaded: Loaded, ask: Ask) -> KnockoutAnswer:
        # as figures.knockout asks: the target is one token (its check)
        text, position, target, heads_of = cast("tuple[str, int, str, int | None]", ask)
        target_id = cast(int, one_token_id(loaded, target))  # a string's id (None only for None)
        return knockouts(loaded, token_ids(loaded, text), position, target_id, heads_of)

    def entry_mentions(self, entry: KnockoutEntry) -> set[int]:
        return {entry["target"]["id"]}

    def memory(self, shape: Shape, n: int) -> int:
        """The batch of runs: every part of every layer taken out, each a copy through a feed-forward step."""
        copies = 1 + 2 * shape.n_layer + shape.n_head
        return copies * n * (shape.d_inner + 3 * shape.d_model) * FLOAT


def _knockout_plan(n_layer: int, n_head: int, heads_of: int | None) -> list[Planned]:
    """The runs, intact first: (part, layer, head), each taking one part's output out at every position."""
    plan: list[Planned] = [("intact", None, None)]
    plan += [("attention", layer, None) for layer in range(n_layer)]
    plan += [("feed-forward", layer, None) for layer in range(n_layer)]
    if heads_of is not None:
        plan += [("head", heads_of, h) for h in range(n_head)]
    return plan


@torch.no_grad()
def knockouts(
    loaded: Loaded, ids: Sequence[int], position: int, target_id: int, heads_of: int | None
) -> KnockoutAnswer:
    """The target's probability and rank at `position` with each part taken out in turn (its output set to zero
    at every position), beside the intact model's.

    A part taken out at layer l changes nothing before layer l: each run starts from the intact model's
    residual stream before its layer, so the layers before it are computed once, not once per run. The runs go
    through the layers side by side as one batch that grows as they join; a hook per part zeroes its output in
    its own row only.
    """
    model = loaded.model
    plan = _knockout_plan(model.config.n_layer, model.config.n_head, heads_of)
    stream = model.embed(torch.tensor([ids], device=loaded.device))  # (1, position, d_model)
    batch = stream[:0]  # the runs under way, (runs, position, d_model)
    members: list[int] = []  # their index in the plan
    for layer in range(model.config.n_layer):
        joining = [index for index, (_, start, _) in enumerate(plan) if start == layer]
        batch = torch.cat([batch, stream.expand(len(joining), -1, -1)])  # they start from the intact stream here
        members += joining
        at = {index: row for row, index in enumerate(members)}  # a run's row in the batch
        stream = model.run_layers(stream, layer, layer + 1)  # the intact model, layer by layer
        with model.hooks(_knockout_hooks(layer, [(plan[index], at[index]) for index in joining])):
            batch = model.run_layers(batch, layer, layer + 1)
    final = torch.cat([stream, batch])[:, position]  # (runs, d_model): the intact model first
    logits = model.read_out(final)  # (runs, vocab): the scores at the one position read
    log_total = log_softmax_total(logits)[:, 0]  # (runs,)
    p = torch.exp(logits[:, target_id].double() - log_total).tolist()
    rank = ((logits > logits[:, target_id : target_id + 1]).sum(dim=-1) + 1).tolist()
    found = {index: (p_run, rank_run) for index, p_run, rank_run in zip([0] + members, p, rank)}  # plan index -> ...
    runs: list[_Measured] = [
        {"part": part, "layer": layer, "head": head, "p": probability(found[i][0]), "rank": found[i][1]}
        for i, (part, layer, head) in enumerate(plan)
    ]
    return {
        "position": position,
        "target": token(target_id, token_text(loaded, target_id)),
        "heads_of": heads_of,
        "intact": {"p": runs[0]["p"], "rank": runs[0]["rank"]},
        "runs": cast("list[KnockoutRun]", runs[1:]),
    }  # past the intact run, each starts at a layer


def _knockout_hooks(layer: int, runs: list[tuple[Planned, int]]) -> dict[str, HookFunction]:
    """Hooks at one layer's hook points that take each joining run's part out in that run's row: runs is
    [((part, layer, head), row)]."""
    rows = {part: [row for (kind, _, _), row in runs if kind == part] for part in ("attention", "feed-forward")}
    heads = [(row, head) for (kind, _, head), row in runs if kind == "head"]
    hooks = {
        point(layer, name): _zero_rows(rows[part])
        for part, name in (("attention", "hook_attn_out"), ("feed-forward", "hook_mlp_out"))
        if rows[part]
    }
    if heads:
        hooks[point(layer, "attn.hook_z")] = _zero_heads(heads)
    return hooks


def _zero_rows(rows: list[int]) -> HookFunction:
    """A hook that returns a part's output, (runs, position, d_model), with these runs' rows zeroed."""

    def hook(output: torch.Tensor, _name: str) -> torch.Tensor:
        output = output.clone()
        output[rows] = 0.0
        return output

    return hook


def _zero_heads(heads: list[tuple[int, int | None]]) -> HookFunction:
    """A hook that returns the heads' mixed values, (runs, position, heads, d_head), with each (row, head)'s
    slice zeroed: that head's output taken out in that run."""

    def hook(z: torch.Tensor, _name: str) -> torch.Tensor:
        z = z.clone()
        for row, head in heads:
            z[row, :, head] = 0.0
        return z

    return hook


PART = Knockouts()
