"""The figures' own records: what a kind builds from a run's data for its words and its chart, the rows of its
page's data (each written as a plain dict) and the keyword bundles its charts hand to Altair, typed for the checker.
Kept here rather than beside their kinds, which would otherwise pass the modules' size cap; the run's records are
figsite.data.records' and figsite.data.part_records'.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypedDict, cast

from figsite.data import live_data
from figsite.data.part_records import Chance, KnockoutRun, PatchGrid, PatchPiece, Role
from figsite.data.part_records import Outcome as Scored  # a patching run's {diff, p}
from figsite.data.records import Guess

if TYPE_CHECKING:
    from figures.toolkit.charts import alt

# ---------------------------------------------------------------------------------------------- knockout


@dataclass(frozen=True)
class Outcome:
    """A figure's knockouts as its words and chart read them."""

    target: str  # the target as shown, '_France'
    whole: Chance  # the intact model: {p, rank}
    runs: list[KnockoutRun]  # each run with one part taken out, as the data give them: each layer's attention, each
    # layer's feed-forward step, then the heads: {part, layer, head, p, rank}

    @property
    def costliest(self) -> KnockoutRun:
        """The run with the lowest probability (the first of equals, in the data's order)."""
        return min(self.runs, key=lambda r: r["p"])

    @property
    def most_raised(self) -> KnockoutRun:
        """The run with the highest probability (the first of equals)."""
        return max(self.runs, key=lambda r: r["p"])


class BarRow(TypedDict):
    """A bar as the page's data hold it (chart_rows)."""

    key: str  # part_key
    group: str  # the run's part: "attention", "feed-forward" or "head"
    x: int  # its layer or head, from 1
    name: str
    p: float
    rank: int
    change: str  # in words: "+1.2%", "none"
    dp: float
    dr: int
    said: str


# ---------------------------------------------------------------------------------------------- ledger

Score = Literal["target", "difference"]  # whose score a ledger splits: the target's, or its lead over the versus token


class LedgerRow(TypedDict):
    """A part of a ledger as its words and chart read it (figures.ledger_parts.rows): numbered from 1, its name in
    words ("layer 5 attention"), its key in the page's "part" choice ("" where none), its kind and layer (from 1) as
    the data name them, and what it adds to each score."""

    n: int
    part: str
    key: str
    kind: str
    layer: int | None
    target: float
    versus: float
    difference: float


# ---------------------------------------------------------------------------------------------- head roles


class HeadRow(TypedDict):
    """One head of the head-roles figure (figures.roles.head_rows), layer and head from 0: its score in each role of
    figures.roles.ROLES, and its strongest role."""

    layer: int
    head: int
    previous: float
    first: float
    self: float
    duplicate: float
    induction: float
    best: Role


class PatternRow(TypedDict):
    """One head's pattern as a page's data carry it, layer and head from 0: "u", its cells (figures.heads)."""

    l: int  # noqa: E741 (the page's short name)
    h: int
    u: list[int]


# The head-roles chart's keyword bundles, as Altair takes them (figures.roles).


class OutlineBox(TypedDict):
    """An outline of the pattern over the random tokens: its rectangle's share of its cell, unfilled."""

    fill: None
    aria: bool
    width: dict[str, float]  # {"band": share}
    height: dict[str, float]


class CopyLines(TypedDict):
    """The outlines' dash and colour by role."""

    strokeDash: alt.StrokeDash
    stroke: alt.Stroke


class ShownWhen(TypedDict):
    """A legend's properties that show it only while a Vega expression holds."""

    titleOpacity: alt.ExprRef
    labelOpacity: alt.ExprRef
    symbolOpacity: alt.ExprRef
    aria: alt.ExprRef


class LegendPlace(TypedDict):
    """Where the grid's two legends lie, one in the other's place, and their swatches."""

    orient: Literal["none"]
    legendX: int
    legendY: int
    direction: Literal["horizontal"]
    columns: int
    symbolType: str
    symbolSize: int
    symbolStrokeWidth: int
    labelLimit: int


# ---------------------------------------------------------------------------------------------- scores


class _KeyRowBase(TypedDict):
    key: int  # the key's token, 0-based
    fit: float  # q . k
    scaled: float | None  # the fit scaled; None: a key the model hides
    share: float
    running: float  # the running total of the shares


class KeyRow(_KeyRowBase, total=False):
    """One key as the scores figure works it out (figures.scores.worked_out): "hidden" where the model hides it,
    and the model's own share beside the one worked out (rows_of)."""

    hidden: bool
    model_share: float


# ---------------------------------------------------------------------------------------------- patching

NEAR = live_data.NEAR  # score differences closer than this: the texts do not differ on the metric
PIECES: tuple[PatchPiece, ...] = ("resid_pre", "attn_out", "mlp_out", "z")  # the grids, in the page's order


class Cell(TypedDict):
    """One patched run (Patched.cells): row a layer (for resid_pre: after that many layers), col a position (for z: a
    head); "back" None where the texts do not differ on the metric."""

    piece: PatchPiece
    row: int
    col: int
    diff: float
    p: float
    back: float | None


@dataclass(frozen=True)
class Patched:
    """A figure's patching runs as its words and charts read them."""

    clean: list[str]  # the original text's tokens, as sentences name them ('_Paris', '","')
    corrupted: list[str]  # the changed text's
    position: int  # the read token, 0-based
    target: str  # as shown, '_France'
    versus: str
    original: Scored  # {diff, p} of the original (clean) text
    changed: Scored  # {diff, p} of the changed (corrupted) text
    grids: dict[str, PatchGrid]  # piece -> {"diff": rows, "p": rows}
    start: int = 0  # 1 where the model's start token leads both texts: readers count their tokens after it

    @property
    def differs(self) -> bool:
        """Whether the two texts differ on the metric enough for "back" to mean anything."""
        return abs(self.original["diff"] - self.changed["diff"]) >= NEAR

    def back(self, diff: float) -> float | None:
        """How far a run's score difference went from the changed text's towards the original's (1: all the way)."""
        if not self.differs:
            return None
        return (diff - self.changed["diff"]) / (self.original["diff"] - self.changed["diff"])

    @property
    def different(self) -> list[int]:
        """The positions where the two texts hold different tokens (0-based)."""
        return [q for q, (a, b) in enumerate(zip(self.clean, self.corrupted)) if a != b]

    def cells(self) -> list[Cell]:
        """Every patched run: {piece, row, col, diff, p, back}; row a layer (for resid_pre: after that many layers),
        col a position (for z: a head)."""
        return [
            {
                "piece": piece,
                "row": r,
                "col": c,
                "diff": diff,
                "p": self.grids[piece]["p"][r][c],
                "back": self.back(diff),
            }
            for piece in PIECES
            for r, row in enumerate(self.grids[piece]["diff"])
            for c, diff in enumerate(row)
        ]

    def strongest(self, piece: str) -> Cell:
        """The run of one grid that brings back the most (the first of equals); where the texts do not differ
        on the metric, the one whose difference is farthest from the changed text's."""
        runs = [cell for cell in self.cells() if cell["piece"] == piece]
        # Where the texts differ, every run's "back" is a number (Patched.back).
        return max(
            runs,
            key=lambda cell: cast(float, cell["back"]) if self.differs else abs(cell["diff"] - self.changed["diff"]),
        )


# ---------------------------------------------------------------------------------------------- readout


class Stage(TypedDict):
    """The read-out figure at one stage (figures.readout.stages): the target's chance and the top tokens."""

    p: float
    top: list[Guess]


class TopRow(TypedDict):
    """One bar of the read-out's top tokens (figures.readout.top_rows): rank OUTSIDE for the target below them."""

    stage: int
    rank: int
    token: str  # as shown
    p: float
    target: bool


# ---------------------------------------------------------------------------------------------- lens


class TopWord(TypedDict):
    """A cell's top guess, as shown: what a narrow table's cell must hold (figures.lens.cell_width)."""

    top: str


class CellRow(TopWord):
    """A cell of the lens's table (figures.lens.lens_rows): its stage and position, and its top guess's chance."""

    stage: int
    q: int
    pos: str  # the position as the axis names it
    p: float


class TopGuess(TypedDict):
    """One of a cell's top 10."""

    stage: int
    q: int
    rank: int
    token: str  # as shown
    p: float


class FollowRow(TypedDict):
    """A followed token's chance and rank at one cell."""

    stage: int
    q: int
    pos: str
    t: int  # its id
    p: float
    rank: int


@dataclass(frozen=True)
class Reads:
    """What the lens's parts read the chosen cell and the followed token by: the build's datasets and params, or
    (TEXTLESS) those of the chart with no text, which the live page fills (figsite.data.live_data)."""

    tops: str = "tops"  # the dataset of each cell's top 10
    q: str = "position - 1"  # the chosen position, from 0
    position: str = "names[position - 1]"  # the chosen position in words: "9: _it"
    followed: str = "vocab[track + '']"  # the followed token's name
    follows: str = "datum.t == track && "  # the followed token's rows of `follow`, and...

    @property
    def textless(self) -> bool:
        return self.tops != "tops"
