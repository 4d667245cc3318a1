"""The figures: each kind turns the run's plain data into a printed figure, an Altair chart and the words beside
it, with pure functions. The contract every kind follows is figures.kind.Kind; a new kind is a module with a
Kind subclass and one line in this registry (see docs/kinds.md).
"""

from figures import (
    attention,
    compare,
    cost,
    findhead,
    habits,
    heads,
    knockout,
    ledger,
    lens,
    numbers,
    patching,
    readout,
    roles,
    scores,
    shapes,
    side_by_side,
)
from figures.kind import AnyKind

REGISTRY: list[AnyKind] = [
    attention.Attention(),
    readout.Readout(),
    shapes.Shapes(),
    numbers.Numbers(),
    cost.Cost(),
    heads.Heads(),
    lens.Lens(),
    findhead.FindHead(),
    compare.Compare(),
    scores.Scores(),
    ledger.Ledger(),
    knockout.Knockout(),
    patching.Patching(),
    roles.Roles(),
    side_by_side.SideBySide(),
    habits.HabitSideBySide(),
]

KINDS: dict[str, AnyKind] = {kind.KIND: kind for kind in REGISTRY}

# The kinds whose charts the live page draws for the reader's text (Kind.LIVE), in the page's order.
LIVE_KINDS: tuple[str, ...] = tuple(
    kind.KIND for kind in sorted((kind for kind in REGISTRY if kind.LIVE), key=lambda k: k.LIVE)
)
