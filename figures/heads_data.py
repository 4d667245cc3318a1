"""The heads figure's data (figures.heads): a text of more than MAX_BLOCKS tokens in blocks of consecutive tokens,
each head's square of shares (a cell: the attention a block's tokens give, on average, to another block's), each
layer's average, and the page's panels (panel_rows: the shares in units of 1e-4 and each row's largest). Reads the
text's tokens and every head's shares (run.n_tokens, run.kept_rows).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TypedDict

from figsite.config import Figure
from figsite.data.run import PER_SHARE, Run
from figures.heads_grid import Grid
from figures.toolkit.words import shown, whole_percent

MAX_BLOCKS = 24  # a text of more tokens is shown in blocks of tokens: at most this many rows per square


Look = tuple[int | None, float]  # (key, share): where a token looks hardest in a head; key None: no share kept
Squares = dict[tuple[int, int], list[list[float]]]  # (layer, head), 0-based -> a square's rows (head n_head: average)


class Panel(TypedDict):
    """One square of the page's data (panel_rows), 0-based (h n_head: the layer's average): its shares in units,
    row after row (u), and each row's three largest as [key, whole percent] x 3, -1 where none (t)."""

    l: int
    h: int
    u: list[int]
    t: list[int]


def strongest(pairs: Iterable[tuple[int, float]]) -> Look:
    """The (key, share) with the largest share (the first such key on a tie), or (None, 0) if none is kept."""
    best: Look = (None, 0.0)
    for k, s in pairs:
        if s > best[1]:
            best = (k, s)
    return best


def blocking(n: int) -> tuple[int, int]:
    """(tokens per block, number of blocks): single tokens for a text of up to MAX_BLOCKS tokens."""
    size = math.ceil(n / MAX_BLOCKS)
    return size, math.ceil(n / size)


def block_names(tokens: Sequence[str], size: int) -> list[str]:
    """What each row and column of a square is called: the token ('_it'), or a block ('tokens 25-48')."""
    if size == 1:
        return [shown(t) for t in tokens]
    n, first = len(tokens), 1 - getattr(tokens, "start", 0)  # readers number a start token 0
    return [f"tokens {start + first}-{min(n, start + size) - 1 + first}" for start in range(0, n, size)]


def square(head_rows: Sequence[Sequence[tuple[int, float]]], n: int, size: int) -> list[list[float]]:
    """One head's square, row by row: cell (Q, K) is the share block Q's tokens give block K's, on average."""
    if size == 1:
        return [[s for _, s in sorted(r)] if len(r) == q + 1 else _spread(r, q + 1) for q, r in enumerate(head_rows)]
    blocks = math.ceil(n / size)
    out = [[0.0] * (Q + 1) for Q in range(blocks)]
    for q, pairs in enumerate(head_rows):
        cells = out[q // size]
        for k, s in pairs:
            cells[k // size] += s
    for Q, cells in enumerate(out):
        count = min(n, (Q + 1) * size) - Q * size
        out[Q] = [s / count for s in cells]
    return out


def _spread(pairs: Iterable[tuple[int, float]], length: int) -> list[float]:
    cells = [0.0] * length
    for k, s in pairs:
        cells[k] = s
    return cells


def squares(fig: Figure, run: Run) -> Squares:
    """Every square of the grid: (layer, head) -> rows, 0-based; head n_head is the layer's average."""
    text = fig["text"]
    n = run.n_tokens(text)
    size, _ = blocking(n)
    n_layer, n_head = run.n_layer, run.n_head
    out: Squares = {}
    for layer in range(n_layer):
        for head in range(n_head):
            out[(layer, head)] = square(run.kept_rows(text, layer, head), n, size)
        out[(layer, n_head)] = [
            [sum(out[(layer, h)][q][k] for h in range(n_head)) / n_head for k in range(q + 1)]
            for q in range(len(out[(layer, 0)]))
        ]
    return out


def top_looks(cells: Sequence[float], count: int = 3) -> list[int]:
    """The `count` largest shares of one row as [key, whole percent, ...], those under 1% left out, padded
    with -1 so that every row takes the same room."""
    ranked = sorted(range(len(cells)), key=lambda k: (-cells[k], k))[:count]
    out: list[int] = []
    for k in ranked:
        if whole_percent(cells[k]) >= 1:
            out += [k, whole_percent(cells[k])]
    return out + [-1, -1] * (count - len(out) // 2)


def panel_rows(grid: Grid, all_squares: Squares) -> list[Panel]:
    """The page's data: each square's shares in units (u), row after row, and its rows' largest shares (t)."""
    return [
        {
            "l": layer,
            "h": head,
            "u": [round(s * PER_SHARE) for cells in all_squares[(layer, head)] for s in cells],
            "t": [v for cells in all_squares[(layer, head)] for v in top_looks(cells)],
        }
        for layer in range(grid.n_layer)
        for head in range(grid.n_head + 1)
    ]
