"""What each part's capture computes of one ask: its entry of data/parts.json (figsite.data.part_records) but the
`ask` itself, which EntryPart.answer puts in front (`{"ask": ask, **answer}`). Types only, for the checker: at run
time each is the plain dict its function builds. Not a part (not in NAMES): the registry never imports it.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from figsite.data.part_records import (
    Chance,
    KnockoutRun,
    LedgerHeads,
    LedgerNeurons,
    LedgerPart,
    LedgerStage,
    Outcome,
    PatchGrid,
    RoleScores,
    RolesPattern,
    ScorePair,
)
from figsite.data.records import Token


class _ScoresAnswer(TypedDict):
    layer: int
    head: int
    query: int
    q: list[float]  # [d_head]
    k: list[list[float]]  # [key][d_head]
    shares: list[float]  # [key]


class ScoresAnswer(_ScoresAnswer, total=False):
    """figsite.capture.parts.scores.scores: part_records.ScoresEntry but its ask."""

    scores: list[float | None]  # [key]: the model's own, where they are not q . k / sqrt(d_head)


class LedgerAnswer(TypedDict):
    """figsite.capture.parts.ledgers.ledger: part_records.LedgerEntry but its ask."""

    position: int
    target: Token
    versus: Token
    sigma: float
    score: ScorePair
    parts: list[LedgerPart]
    heads: list[LedgerHeads]  # [layer]
    neurons: list[LedgerNeurons]  # [layer]
    stages: list[LedgerStage]


class KnockoutAnswer(TypedDict):
    """figsite.capture.parts.knockouts.knockouts: part_records.KnockoutEntry but its ask."""

    position: int
    target: Token
    heads_of: int | None
    intact: Chance
    runs: list[KnockoutRun]


class PatchingAnswer(TypedDict):
    """figsite.capture.parts.patchings.patchings: part_records.PatchingEntry but its ask."""

    position: int
    target: Token
    versus: Token
    clean: Outcome
    corrupted: Outcome
    grids: dict[str, PatchGrid]


class RolesAnswer(TypedDict):
    """figsite.capture.parts.roles.roles: part_records.RolesEntry but its ask."""

    repeat_length: int
    sequence: list[int]
    pattern: RolesPattern
    scores: RoleScores
    measured_on: dict[str, Literal["text", "repeated"]]
