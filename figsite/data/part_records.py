"""The typed records of data/parts.json (format gpt2-figures-parts/1, docs/output.md): one entry per ask of a captured
part (figsite.capture.parts), each carrying its `ask`: `ScoresEntry`, `LedgerEntry`, `KnockoutEntry`, `PatchingEntry`,
`RolesEntry` (`PartEntry`: any of them), gathered in `PartsFile`. Each is its part's answer (`ScoresAnswer`...: what
the part computes of one ask, and returns) with the ask it answers.

Types only, for the checker, as figsite.data.records: at run time every entry is the plain dict its part computed.
"""

from __future__ import annotations

from typing import Literal, TypedDict, Union

from figsite.data.records import Token

# What a figure asks of a part, the text first (see its part's module): [text, layer, head, query] (scores), [text,
# position, target, versus or None] (ledgers), [text, position, target, layer or None] (knockouts), [clean,
# corrupted, position, target, versus] (patchings), [text, repeat_length, seed] (roles).
Ask = list[Union[str, int, None]]


class _ScoresBase(TypedDict):
    layer: int
    head: int
    query: int
    q: list[float]  # [d_head]
    k: list[list[float]]  # [key][d_head]
    shares: list[float]  # [key]


class ScoresAnswer(_ScoresBase, total=False):
    """How one head's share is worked out (figsite.capture.parts.scores): the query of one token, the keys of every
    token up to it, the shares the model gave; "scores", the model's own scores (None: a key it hides), only where
    they are not q . k / sqrt(d_head)."""

    scores: list[float | None]  # [key]


class ScoresEntry(ScoresAnswer):
    ask: Ask


class ScorePair(TypedDict):
    """What a token and the token it is weighed against get."""

    target: float
    versus: float


class LedgerPart(ScorePair):
    """One part of the residual stream and what it adds to the two scores: "token embedding", "position
    embedding", each layer's "attention" and "feed-forward", "final layer norm bias" (layer None)."""

    part: str
    layer: int | None


class LedgerHeads(TypedDict):
    """One layer's attention split: heads[head] -> [target, versus], and the output projection's bias."""

    heads: list[list[float]]
    bias: list[float]


class NeuronRow(ScorePair):
    neuron: int  # 0-based


class NeuronPick(TypedDict):
    """The NEURONS_SHOWN neurons that add most, each with what it adds to both scores; the others' sum."""

    top: list[NeuronRow]
    others: list[float]  # [target, versus]


class LedgerNeurons(TypedDict):
    """One layer's feed-forward split: the neurons that add most to the target's score, and to the difference."""

    target: NeuronPick
    difference: NeuronPick
    bias: list[float]  # [target, versus]


class LedgerStage(TypedDict):
    """The target's probability after the embedding and after each half-layer; correction: the length of the part
    added there (None at the embedding), residual: the length of the stream it was added to."""

    part: str
    layer: int | None
    p: float
    correction: float | None
    residual: float


class LedgerAnswer(TypedDict):
    """Which part of the model wrote a score (figsite.capture.parts.ledgers)."""

    position: int
    target: Token
    versus: Token
    sigma: float  # the final norm's standard deviation (root mean square) at the position
    score: ScorePair  # the model's own scores
    parts: list[LedgerPart]  # they add up to the scores
    heads: list[LedgerHeads]  # [layer]
    neurons: list[LedgerNeurons]  # [layer]
    stages: list[LedgerStage]  # 2 * layers + 1


class LedgerEntry(LedgerAnswer):
    ask: Ask


class Chance(TypedDict):
    p: float
    rank: int  # 1 = most likely


class KnockoutRun(Chance):
    """One run with a part taken out: "attention" or "feed-forward" (head None), or "head"."""

    part: str
    layer: int
    head: int | None


class KnockoutAnswer(TypedDict):
    """The target's chance with each part taken out in turn (figsite.capture.parts.knockouts)."""

    position: int
    target: Token
    heads_of: int | None  # the layer whose heads are taken out one by one, if any
    intact: Chance
    runs: list[KnockoutRun]


class KnockoutEntry(KnockoutAnswer):
    ask: Ask


class Outcome(TypedDict):
    diff: float  # score(target) - score(versus)
    p: float


class PatchGrid(TypedDict):
    """One grid of patched runs: [row][column], rows layers (resid_pre: layers + 1), columns positions (z: heads)."""

    diff: list[list[float]]
    p: list[list[float]]


PatchPiece = Literal["resid_pre", "attn_out", "mlp_out", "z"]


class PatchingAnswer(TypedDict):
    """Activation patching between two texts (figsite.capture.parts.patchings)."""

    position: int
    target: Token
    versus: Token
    clean: Outcome
    corrupted: Outcome
    grids: dict[str, PatchGrid]  # by PatchPiece, in its order


class PatchingEntry(PatchingAnswer):
    ask: Ask


Role = Literal["previous", "first", "self", "duplicate", "induction"]
RoleGrid = list[list[float]]  # [layer][head]


class RoleScores(TypedDict):
    """Every head's score in each role, [layer][head]; duplicate_text: None where the text repeats no token."""

    previous: RoleGrid
    first: RoleGrid
    self: RoleGrid
    duplicate: RoleGrid
    induction: RoleGrid
    duplicate_text: RoleGrid | None


class RolesPattern(TypedDict):
    """Every head's pattern over the sequence said twice, in blocks of `size` tokens: shares[layer][head][cell],
    the lower triangle row after row, in units of SHARE_UNIT."""

    size: int
    blocks: int
    shares: list[list[list[int]]]


class RolesAnswer(TypedDict):
    """What each head habitually does, scored (figsite.capture.parts.roles)."""

    repeat_length: int
    sequence: list[int]  # the first copy of the random tokens
    pattern: RolesPattern
    scores: RoleScores
    measured_on: dict[str, Literal["text", "repeated"]]  # by role (duplicate_text too)


class RolesEntry(RolesAnswer):
    ask: Ask


# The keys of PartsFile's lists: the data format's words, each the name of the captured part that writes it (the
# registry, figsite.capture.parts.NAMES, is where code takes them from).
PartName = Union[Literal["scores"], Literal["ledgers"], Literal["knockouts"], Literal["patchings"], Literal["roles"]]
PartEntry = Union[ScoresEntry, LedgerEntry, KnockoutEntry, PatchingEntry, RolesEntry]


class PartsFile(TypedDict, total=False):
    """data/parts.json (format gpt2-figures-parts/1): one list per part asked, in the registry's order; {} in a run
    where no part was asked."""

    format: str
    scores: list[ScoresEntry]
    ledgers: list[LedgerEntry]
    knockouts: list[KnockoutEntry]
    patchings: list[PatchingEntry]
    roles: list[RolesEntry]


# What is asked of one part, merged over the figures (figsite.data.asks.Asks.parts): a list of asks, or the lens's
# {text: [followed token, ...]}.
PartAsks = Union[list[Ask], dict[str, list[str]]]
