"""The typed records of the data files (docs/output.md): what a run holds, as the JSON files write it.

Types only, for the checker: at run time every record is a plain dict or list (read from JSON, or built by the
capture in figsite.data.format's form). Keys are the files' own; those with spaces ("layer norm") use TypedDict's
functional syntax; a key a record may lack sits in its `total=False` part.

- a text's data file, format gpt2-figures/1 (`ShortTextData`) or /3 (`LongTextData`): `TextData`, with its
  model (`ModelRecord`), tokens (`Token`), read-out (`ReadoutCell`, `Guess`) and tracked target (`TargetTrack`);
  a long text's head file (`HeadFile`);
- the run record, data/run.json (`RunRecord`): its `Environment`, `Parameters` (`WeightCounts`), each text's entry
  (`TextEntry`: its `Shapes`, its `LensEntry`) and the `Comparison`s. The model layer writes `ModelRecord`,
  `Parameters` and `Environment` (figsite.records: the model's code writes them; named here with the rest);
- data/parts.json's records are figsite.data.part_records'.
"""

from __future__ import annotations

from typing import Literal, TypedDict, Union

# The model's own records, written by the model's code (figsite.records): the model's identity and size, its
# weights by part, the software it ran on.
from figsite.records import Environment as Environment, ModelBase as ModelBase, ModelRecord as ModelRecord
from figsite.records import Parameters as Parameters, WeightCounts as WeightCounts, WeightPart as WeightPart


# ---------------------------------------------------------------------------------------------- a text's data


class TokenRef(TypedDict):
    """A token as the data name it: its id and its text decoded alone (" animal"; part of a character: "<E2 80>")."""

    id: int
    text: str


class Token(TokenRef, total=False):
    """A token of a text, or one a part names; the start token a tokenizer puts in front of every text (a Llama's
    <s>) has "start": true (figsite.data.format.token)."""

    start: bool


class TargetTrack(TokenRef):
    """The token a text's data track at every stage: p[stage][position], None where a long text is not read out."""

    p: list[list[float | None]]


# [token id, probability]: one of the read-out's top tokens. A JSON pair, a list at run time: read it by unpacking.
Guess = tuple[int, float]


class ReadoutCell(TypedDict):
    """The read-out at one stage and position: the TOP_K most likely next tokens, highest first."""

    top: list[Guess]


class LongAttention(TypedDict):
    """Format 3's "attention": the names of its head files the site holds, their unit and the least share kept."""

    files: list[str]
    unit: float
    min_share: float


class _TextDataBase(TypedDict):
    model: ModelRecord
    text: str
    tokens: list[Token]
    readout: list[list[ReadoutCell | None]]  # [stage][position]; None: a long text's position no figure reads


class _ShortTextData(_TextDataBase):
    format: Literal["gpt2-figures/1"]
    attention: list[list[list[list[float]]]]  # [layer][head][query] -> shares over keys 0..query


class ShortTextData(_ShortTextData, total=False):
    """A text's data file in format gpt2-figures/1: every share in it."""

    target: TargetTrack


class _LongTextData(_TextDataBase):
    format: Literal["gpt2-figures/3"]
    attention: LongAttention


class LongTextData(_LongTextData, total=False):
    """A long text's data file, format gpt2-figures/3: its shares in head files (HeadFile), one per head."""

    target: TargetTrack


TextData = Union[ShortTextData, LongTextData]  # told apart by "format"


class _HeadFileBase(TypedDict):
    format: str  # gpt2-figures-attention/2
    keys: list[list[int]]  # [query] -> the keys whose share is kept
    shares: list[list[int]]  # [query] -> those shares, in units of SHARE_UNIT


class HeadFile(_HeadFileBase, total=False):
    """A long text's head file's payload (the average's has no layer and head), 0-based."""

    layer: int
    head: int


# ---------------------------------------------------------------------------------------------- the run record

# The shape measured at each step of a text's pass, batch dropped: "token ids", "embedding", "layer 1".."layer N"
# (after each layer), "scores". Its keys depend on the model's layers: a mapping, not a TypedDict.
Shapes = dict[str, list[int]]


class LensEntry(TypedDict):
    """A lens figure's text: the tokens it follows, and each one's probability and rank (1 = most likely),
    [stage][position][i], i the token's index in `tokens`."""

    tokens: list[int]
    p: list[list[list[float]]]
    rank: list[list[list[int]]]


class Comparison(TypedDict):
    """Two compared texts: the tokens they share at the start, and how far their residual streams lie apart,
    distance[stage][position] (for the positions both have)."""

    texts: list[str]  # [a, b]
    shared: int
    distance: list[list[float]]


class _TextEntryBase(TypedDict):
    text: str
    data: str  # its data file's path in the site
    shapes: Shapes


class TextEntry(_TextEntryBase, total=False):
    """A text in the run record."""

    lens: LensEntry


class _RunRecordBase(TypedDict):
    format: str  # gpt2-figures-run/1
    model: ModelRecord
    environment: Environment
    parameters: Parameters
    vocab: dict[str, str]  # token id, as JSON writes a key -> text
    texts: list[TextEntry]
    comparisons: list[Comparison]


class RunRecord(_RunRecordBase, total=False):
    """data/run.json: everything but the texts' data files; `parts` names data/parts.json where it is written."""

    parts: str
