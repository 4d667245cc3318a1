"""The part "patchings": [[clean, corrupted, position, target, versus], ...], activation patching between two texts
of the same length (causal tracing). The model reads the corrupted text with one piece of the clean text's run put
back, and the part measures how much of the clean answer comes back: the logit difference, score(target) -
score(versus) at `position`, and the target's probability there.

Each entry of data/parts.json's "patchings" holds the clean and corrupted runs' {diff, p} and four grids, each
{"diff": rows, "p": rows}, layers and positions from 0:
- "resid_pre": the residual stream entering each layer at one position (blocks.L.hook_resid_pre), and a last row
  for the stream after the last layer (blocks.<last>.hook_resid_post): (layers + 1) x positions;
- "attn_out" and "mlp_out": one layer's attention or feed-forward output at one position (blocks.L.hook_attn_out,
  blocks.L.hook_mlp_out): layers x positions;
- "z": one head's mixed values at every position at once (its slice of blocks.L.attn.hook_z): layers x heads.

A patch at layer l changes nothing before layer l: each run starts from the corrupted run's stream entering its
layer, and only the layers from there on run again, for a batch of runs at once, CHUNK_BYTES at most, and only at
the positions from the first where the texts differ (the earlier ones read as the corrupted run's keys and values). Where the
clean activation equals the corrupted one (the two texts' shared start, or a shared token at the embedding), or
where the patch cannot reach the read position (a position after it; the last layer's outputs elsewhere), the
patched run is the corrupted run itself, and takes its numbers; after the last layer, only the stream at
`position` reaches its scores, so its row is the clean run's there and the corrupted run's elsewhere. Both make the exact
equalities that the tests check hold by construction, and save runs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol, TypeVar, cast

import torch

from figsite.capture.hooks import point, run_with_cache
from figsite.capture.parts import EntryPart
from figsite.data.part_records import PatchingAnswer
from figsite.capture.readout import READOUT_ROWS, log_softmax_total
from figsite.data.format import number, probability, token
from figsite.data.part_records import Ask, PatchingEntry
from figsite.model.interface import HookFunction, LanguageModel, Past
from figsite.model.load import Loaded
from figsite.model.memory import FLOAT, Shape
from figsite.model.tokens import one_token_id, token_ids, token_text

CHUNK_BYTES = 256 * 2**20  # the most one batch of patched runs holds in a layer, at a moment
MAX_CHUNK = 256  # runs of one batch, at most
SITES = ("resid_pre", "attn_out", "mlp_out")  # the grids patched at one position, in the entry's order
# One text's run as the patches take from it, by site ("resid_pre", "attn_out", "mlp_out", "z", "k", "v"): each
# layer's activation stacked (layers, ...), see _recorded
Recorded = dict[str, torch.Tensor]
PatchRun = tuple[str, int]  # a patched run: (site, the position patched, or for "z" the head)
Slice = TypeVar("Slice", covariant=True)


class Sliceable(Protocol[Slice]):
    """What _chunks cuts: a list, or a tensor along its first axis."""

    def __len__(self) -> int: ...

    def __getitem__(self, part: slice, /) -> Slice: ...


class Patchings(EntryPart[PatchingEntry]):
    name = "patchings"

    def compute(self, loaded: Loaded, ask: Ask) -> PatchingAnswer:
        # as figures.patching asks: the target and versus are one token each (its check)
        clean, corrupted, position, target, versus = cast("tuple[str, str, int, str, str]", ask)
        # a string's id (None only for None)
        target_id, versus_id = cast(int, one_token_id(loaded, target)), cast(int, one_token_id(loaded, versus))
        return patchings(loaded, token_ids(loaded, clean), token_ids(loaded, corrupted), position, target_id, versus_id)

    def entry_mentions(self, entry: PatchingEntry) -> set[int]:
        return {entry["target"]["id"], entry["versus"]["id"]}

    def memory(self, shape: Shape, n: int) -> int:
        """One batch of patched runs through a layer (CHUNK_BYTES at most), and the two runs' kept activations."""
        kept = 2 * shape.n_layer * n * (4 * shape.d_model) * FLOAT
        batch = runs_per_batch(shape.d_model, shape.d_inner, shape.n_head, n)
        return batch * _run_bytes(shape.d_model, shape.d_inner, shape.n_head, n) + kept


def _run_bytes(d_model: int, d_inner: int, n_head: int, n: int) -> int:
    """What one patched run holds at a moment while it goes through a layer."""
    return (n * (d_inner + 4 * d_model) + 3 * n_head * n * n) * FLOAT


def runs_per_batch(d_model: int, d_inner: int, n_head: int, n: int) -> int:
    """How many patched runs go through a layer at once: as many as CHUNK_BYTES holds, MAX_CHUNK at most."""
    return max(1, min(MAX_CHUNK, CHUNK_BYTES // _run_bytes(d_model, d_inner, n_head, n)))


# ---------------------------------------------------------------------------------------------- the two runs


def _recorded(loaded: Loaded, ids: Sequence[int]) -> Recorded:
    """One text's run with what the patches take from it kept: the stream entering each layer and after the last
    (layers + 1, position, d_model), each layer's attention and feed-forward outputs (layers, position, d_model),
    mixed values, keys and values (layers, position, heads, d_head)."""
    n_layer = loaded.model.config.n_layer
    names = {
        "resid_pre": "hook_resid_pre",
        "attn_out": "hook_attn_out",
        "mlp_out": "hook_mlp_out",
        "z": "attn.hook_z",
        "k": "attn.hook_k",
        "v": "attn.hook_v",
    }
    last = point(n_layer - 1, "hook_resid_post")
    kept = run_with_cache(
        loaded, ids, [point(layer, name) for layer in range(n_layer) for name in names.values()] + [last]
    )
    recorded = {
        site: torch.stack([kept[point(layer, name)] for layer in range(n_layer)]) for site, name in names.items()
    }
    recorded["resid_pre"] = torch.cat([recorded["resid_pre"], kept[last][None]])  # the stream after the last layer
    return recorded


def _read(model: LanguageModel, final: torch.Tensor, target_id: int, versus_id: int) -> tuple[list[float], list[float]]:
    """The logit difference and the target's probability of each run from its stream after the last layer at the
    read position, (runs, d_model)."""
    logits = model.read_out(final)  # (runs, vocab)
    diff = (logits[:, target_id] - logits[:, versus_id]).tolist()
    p = torch.exp(logits[:, target_id].double() - log_softmax_total(logits)[:, 0]).tolist()
    return diff, p


# ---------------------------------------------------------------------------------------------- the patched runs


def _reaches(site: str, layer: int, q: int, position: int, n_layer: int) -> bool:
    """Whether a patch at position q can change the scores read at `position`: not after it (a token never looks
    right), and not elsewhere when it is a last layer's output (no attention after it carries it over)."""
    return q <= position and (q == position or site == "resid_pre" or layer < n_layer - 1)


def _plan(clean: Recorded, corrupted: Recorded, layer: int, position: int) -> list[PatchRun]:
    """The runs that start at `layer`: (site, index) for each position's stream, attention and feed-forward output
    and for each head, leaving out those whose clean activation is the corrupted one, or that cannot reach the read
    position (they are the corrupted run)."""
    n_layer, n, n_head = clean["z"].shape[0], clean["resid_pre"].shape[1], clean["z"].shape[2]
    runs = [
        (site, q)
        for site in SITES
        for q in range(n)
        if _reaches(site, layer, q, position, n_layer)
        and not torch.equal(clean[site][layer, q], corrupted[site][layer, q])
    ]
    return runs + [
        ("z", h) for h in range(n_head) if not torch.equal(clean["z"][layer, :, h], corrupted["z"][layer, :, h])
    ]


def _patch_hooks(clean: Recorded, layer: int, runs: Sequence[PatchRun], start: int) -> dict[str, HookFunction]:
    """Hooks at the layer's hook points that put the clean activation back in each run's row (the runs hold the
    positions from `start` on)."""

    def put_back(site: str) -> HookFunction | None:
        rows = [(row, index) for row, (kind, index) in enumerate(runs) if kind == site]

        def hook(activation: torch.Tensor, _name: str) -> torch.Tensor:
            activation = activation.clone()
            for row, index in rows:
                if site == "z":  # (runs, position, heads, d_head): one head at every position
                    activation[row, :, index] = clean["z"][layer, start:, index]
                else:  # (runs, position, d_model): one position
                    activation[row, index - start] = clean[site][layer, index]
            return activation

        return hook if rows else None

    hooks = {
        point(layer, "hook_attn_out"): put_back("attn_out"),
        point(layer, "hook_mlp_out"): put_back("mlp_out"),
        point(layer, "attn.hook_z"): put_back("z"),
    }
    return {name: hook for name, hook in hooks.items() if hook is not None}


def _patched_runs(
    loaded: Loaded,
    clean: Recorded,
    corrupted: Recorded,
    layer: int,
    runs: Sequence[PatchRun],
    position: int,
    start: int,
) -> torch.Tensor:
    """The stream after the last layer at `position` of each run that starts at `layer`, (runs, d_model).

    Only the positions from `start` (the first where the texts differ) go through the layers: before it, every run
    is the corrupted run, whose keys and values the later positions read (past)."""
    model = loaded.model
    batch = corrupted["resid_pre"][layer, start:].expand(len(runs), -1, -1).clone()  # (runs, position - start, d_model)
    for row, (site, index) in enumerate(runs):
        if site == "resid_pre":
            batch[row, index - start] = clean["resid_pre"][layer, index]
    with model.hooks(_patch_hooks(clean, layer, runs, start)):  # at `layer`'s hook points only
        batch = model.run_layers(batch, layer, model.config.n_layer, past=_past(corrupted, layer, start))
    return batch[:, position - start]


def _past(run: Recorded, first: int, start: int) -> Past:
    """The run's keys and values of the positions before `start` in each layer from `first` on: {layer: (keys,
    values)}, each (1, start, heads, d_head) as hook_k and hook_v pass them."""
    return {
        layer: (run["k"][layer, :start][None], run["v"][layer, :start][None])
        for layer in range(first, run["k"].shape[0])
    }


def _chunks(runs: Sliceable[Slice], size: int) -> Iterator[Slice]:
    for first in range(0, len(runs), size):
        yield runs[first : first + size]


@torch.no_grad()
def patchings(
    loaded: Loaded,
    clean_ids: Sequence[int],
    corrupted_ids: Sequence[int],
    position: int,
    target_id: int,
    versus_id: int,
) -> PatchingAnswer:
    """The clean and corrupted runs' logit difference and target probability at `position`, and the four grids of
    patched runs (see the module's docstring)."""
    model, config = loaded.model, loaded.model.config
    n_layer, n = config.n_layer, len(clean_ids)
    clean, corrupted = _recorded(loaded, clean_ids), _recorded(loaded, corrupted_ids)
    ends = torch.stack([clean["resid_pre"][n_layer, position], corrupted["resid_pre"][n_layer, position]])
    (clean_diff, corrupted_diff), (clean_p, corrupted_p) = _read(model, ends, target_id, versus_id)
    shapes = {
        "resid_pre": (n_layer + 1, n),
        "attn_out": (n_layer, n),
        "mlp_out": (n_layer, n),
        "z": (n_layer, config.n_head),
    }
    grids = {
        site: {"diff": [[corrupted_diff] * cols for _ in range(rows)], "p": [[corrupted_p] * cols for _ in range(rows)]}
        for site, (rows, cols) in shapes.items()
    }
    grids["resid_pre"]["diff"][n_layer][position], grids["resid_pre"]["p"][n_layer][position] = clean_diff, clean_p
    size = runs_per_batch(config.n_embd, config.n_inner or 4 * config.n_embd, config.n_head, n)
    # Before the first token where the texts differ, both runs are the same: no patch there changes anything.
    start = next((q for q, (a, b) in enumerate(zip(clean_ids, corrupted_ids)) if a != b), n)
    done: list[tuple[str, int, int]] = []  # (site, layer, index) of each patched run
    finals: list[torch.Tensor] = []  # and its stream after the last layer
    for layer in range(n_layer if start <= position else 0):
        for runs in _chunks(_plan(clean, corrupted, layer, position), size):
            finals.append(_patched_runs(loaded, clean, corrupted, layer, runs, position, start))  # (runs, d_model)
            done += [(site, layer, index) for site, index in runs]
    # Read out together: the unembedding's 50,257 rows cost more to go through than the rows of a product.
    if finals:  # none where no patch reaches the position read
        for first, rows in zip(range(0, len(done), READOUT_ROWS), _chunks(torch.cat(finals), READOUT_ROWS)):
            for (site, layer, index), diff, p in zip(done[first:], *_read(model, rows, target_id, versus_id)):
                grids[site]["diff"][layer][index], grids[site]["p"][layer][index] = diff, p
    return {
        "position": position,
        "target": token(target_id, token_text(loaded, target_id)),
        "versus": token(versus_id, token_text(loaded, versus_id)),
        "clean": {"diff": number(clean_diff), "p": probability(clean_p)},
        "corrupted": {"diff": number(corrupted_diff), "p": probability(corrupted_p)},
        "grids": {
            site: {
                "diff": [[number(v) for v in row] for row in grid["diff"]],
                "p": [[probability(v) for v in row] for row in grid["p"]],
            }
            for site, grid in grids.items()
        },
    }


PART = Patchings()
