"""The part "roles": [[text, repeat_length, seed], ...], what each head habitually does, scored. Each entry of
data/parts.json's "roles" holds, for every head, the mean share of attention that fits each role, layers and heads
from 0: [layer][head] floats per role.

Two runs with the attention only (blocks.L.attn.hook_pattern, (batch, heads, query, key)), the unembedding left out:
- over `text`: "previous" (mean of A[i, i-1] over i >= 1), "first" (mean of A[i, 0] over i >= 1), "self" (mean
  of A[i, i] over every i), and "duplicate_text" (see below) where the text repeats a token, else None;
- over a sequence of `repeat_length` tokens drawn with `seed` from the vocabulary, special tokens left out, then
  repeated once (the standard test for induction heads): "duplicate" (the sum of A[i, j] over the earlier j that
  hold the same token as i, averaged over the i that have such a j) and "induction" (mean of A[i, i - L + 1] over
  the i of the second copy: the token after the earlier copy of the current one); and, for the page, every
  head's pattern over it ("pattern": {"size": tokens per block, "blocks": B, "shares": [layer][head][cells]}, the
  cells of the lower triangle row after row, (query block Q, key block K <= Q): the share Q's tokens give K's
  tokens, on average over Q's tokens, in units of 1e-4; single tokens up to MAX_PATTERN tokens).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import cast

import torch

from figsite.capture.hooks import point, run_with_hooks
from figsite.capture.parts import EntryPart
from figsite.data.part_records import RolesAnswer
from figsite.data.format import number
from figsite.data.part_records import Ask, RoleScores, RolesEntry
from figsite.data.run import PER_SHARE
from figsite.model.interface import HookFunction
from figsite.model.load import Loaded
from figsite.model.memory import Shape
from figsite.model.tokens import special_ids, token_ids

ON_TEXT = ("previous", "first", "self", "duplicate_text")
ON_REPEATS = ("duplicate", "induction")
MAX_PATTERN = 96  # a longer repeated sequence's pattern is kept in blocks of tokens, at most this many a side
# What a run over a sequence gives of each layer (heads, ...), by name; None: the score has no meaning there (a text
# that repeats no token has no duplicate_text)
Reduced = dict[str, "torch.Tensor | None"]


class Roles(EntryPart[RolesEntry]):
    name = "roles"

    def compute(self, loaded: Loaded, ask: Ask) -> RolesAnswer:
        text, repeat_length, seed = cast("tuple[str, int, int]", ask)  # as figures.roles asks
        return roles(loaded, token_ids(loaded, text), repeated(loaded, repeat_length, seed), repeat_length)

    def entry_mentions(self, entry: RolesEntry) -> set[int]:
        return set(entry["sequence"])

    def memory(self, shape: Shape, n: int) -> int:
        """One layer's shares of the repeated sequence as float64, reduced as the model computes them: at most the
        model's context long, whatever `repeat_length` is (the estimate's n is the text's length)."""
        return shape.n_head * shape.n_ctx**2 * 8


def repeated(loaded: Loaded, length: int, seed: int) -> list[int]:
    """`length` token ids drawn at random with `seed` (special tokens left out), then the same again."""
    vocab = loaded.model.config.vocab_size
    allowed = torch.tensor(sorted(set(range(vocab)) - special_ids(loaded)))
    drawn = allowed[torch.randint(len(allowed), (length,), generator=torch.Generator().manual_seed(seed))].tolist()
    return drawn + drawn


def _per_layer(loaded: Loaded, ids: Sequence[int], reduce: Callable[[torch.Tensor], Reduced]) -> Reduced:
    """One run over `ids` in which each layer's shares, (heads, query, key) as float64, are reduced as the model
    computes them: reduce(shares) -> {name: tensor of the heads}; returns {name: (layers, heads, ...)}. Only one
    layer's shares are held at a time, whatever the length."""
    n_layer = loaded.model.config.n_layer
    found: dict[int, Reduced] = {}

    def hook_of(layer: int) -> HookFunction:
        def hook(shares: torch.Tensor, _name: str) -> None:
            found[layer] = reduce(shares[0].double().cpu())

        return hook

    run_with_hooks(
        loaded, ids, {point(layer, "attn.hook_pattern"): hook_of(layer) for layer in range(n_layer)}, layers_only=True
    )
    # None in the first layer, None in every layer (it depends on the ids only)
    return {
        name: None
        if found[0][name] is None
        else torch.stack([cast(torch.Tensor, found[layer][name]) for layer in range(n_layer)])
        for name in found[0]
    }


def duplicate_scores(shares: torch.Tensor, ids: Sequence[int]) -> torch.Tensor | None:
    """Per head (..., heads): the shares each token gives the earlier tokens that hold the same token, summed,
    averaged over the tokens that have one; None where no token repeats an earlier one."""
    t = torch.tensor(ids)
    same = (t[:, None] == t[None, :]).tril(-1).double()  # (query, key): an earlier copy of the query's token
    having = same.sum(dim=-1) > 0  # (query,)
    if not having.any():
        return None
    return (shares * same).sum(dim=-1)[..., having].mean(dim=-1)


def roles(loaded: Loaded, ids: Sequence[int], sequence: list[int], length: int) -> RolesAnswer:
    """Every head's score for each role (see the module's docstring) and the first copy of the sequence."""
    rows, second = torch.arange(1, len(ids)), torch.arange(length, 2 * length)
    on_text = _per_layer(
        loaded,
        ids,
        lambda a: {  # a: one layer's shares, (heads, query, key)
            "previous": a[..., rows, rows - 1].mean(dim=-1),
            "first": a[..., rows, 0].mean(dim=-1),
            "self": a.diagonal(dim1=-2, dim2=-1).mean(dim=-1),
            "duplicate_text": duplicate_scores(a, ids),
        },
    )
    size = math.ceil(2 * length / MAX_PATTERN)
    on_repeats = _per_layer(
        loaded,
        sequence,
        lambda a: {
            "duplicate": duplicate_scores(a, sequence),
            "induction": a[..., second, second - length + 1].mean(dim=-1),
            "pattern": blocked_pattern(a, size),
        },
    )
    scores = {**on_text, **{role: on_repeats[role] for role in ON_REPEATS}}
    pattern = cast(torch.Tensor, on_repeats["pattern"])  # blocked_pattern's: never None
    return {
        "repeat_length": length,
        "sequence": sequence[:length],
        "pattern": {
            "size": size,
            "blocks": math.ceil(2 * length / size),
            "shares": torch.round(pattern * PER_SHARE).long().tolist(),
        },
        # a key per role, ON_TEXT's then ON_REPEATS's: RoleScores's
        "scores": cast(
            RoleScores,
            {
                role: None if value is None else [[number(v) for v in row] for row in value.tolist()]
                for role, value in scores.items()
            },
        ),
        "measured_on": {**{role: "text" for role in ON_TEXT}, **{role: "repeated" for role in ON_REPEATS}},
    }


def blocked_pattern(shares: torch.Tensor, size: int) -> torch.Tensor:
    """Each head's pattern (heads, query, key) in blocks of `size` tokens: cell (Q, K) is the share block Q's tokens
    give block K's, on average over Q's tokens; (heads, cells), the lower triangle's cells row after row."""
    n_head, n = shares.shape[0], shares.shape[-1]
    blocks = math.ceil(n / size)
    padded = torch.zeros(n_head, blocks * size, blocks * size, dtype=shares.dtype)
    padded[:, :n, :n] = shares
    summed = padded.reshape(n_head, blocks, size, blocks, size).sum(dim=(2, 4))  # (heads, Q, K): over Q's and K's
    counts = torch.tensor([min(n, (q + 1) * size) - q * size for q in range(blocks)], dtype=shares.dtype)
    rows, cols = torch.tril_indices(blocks, blocks)
    return (summed / counts[:, None])[:, rows, cols]


PART = Roles()
