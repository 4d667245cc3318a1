"""The registry of captured parts: everything a figure can ask of the run beyond its texts' data.

A kind asks for parts by name in the `parts` of its figure's asks (figures.kind.Kind.asks, figsite.data.asks.Asks):
{"lens": ..., "knockouts": [...]}. Each name is one module of this package, named after it, that declares `PART`, a
`Part`: how the figures' asks merge, what the text's pass must do for it (its `PassPlan`), how it is computed (on the
model's named hook points, figsite.capture.hooks), whether a run holds its answer, the token ids it adds to the
run's vocabulary, its share of the memory estimate, and, derived from its source, its cache version. Adding a part is
one module here and one line in NAMES; figsite.capture.gather, sitegen.pipeline and figsite.data.run take every part
from here and name none.

This module imports no torch (the parts' modules do, when `registered()` first imports them): a cached rebuild
reads `versions()` for the cache key without it.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypedDict, TypeVar, cast

from figsite.data.asks import Asks
from figsite.data.format import CONSTANTS
from figsite.data.part_records import Ask, PartAsks

if TYPE_CHECKING:  # no torch at import: the loaded model and the text's capture are only named here
    from figsite.capture.text_pass import TextCapture
    from figsite.data.run import Run
    from figsite.model.load import Loaded
    from figsite.model.memory import Shape

AskT = TypeVar("AskT")  # what a figure asks of a part, in the part's own form (see Part)

# One line per part, in the order the data hold them (data/parts.json's lists: scores, ledgers, knockouts,
# patchings, roles).
NAMES = (
    "readout",  # the positions a long text is read out at
    "lens",  # the read-out of every stage and position, for the tokens a lens figure follows
    "pairs",  # two texts' residual streams compared
    "scores",  # how one head's share is worked out: a query, its keys, the shares
    "ledgers",  # a token's score split into the parts of the residual stream that wrote it
    "knockouts",  # the answer with each layer's attention, feed-forward step or head taken out
    "patchings",  # the corrupted text's answer with one piece of the clean text's run put back
    "roles",  # every head's habits scored: previous token, first token, self, duplicate token, induction
)


@dataclass(frozen=True)
class PassPlan:
    """What one text's pass must do for the parts: read out these positions of a long text (None: all of them)
    and keep each stage's residual stream for a part that reads it again.

    Not what a figure asks (that is `Asks`, in the figures' words: texts, parts and what is asked of them) but how
    the capture goes about one text to answer it: each part turns its asks into a plan for the pass (`Part.plan`),
    and the plans of every part are joined with `|`."""

    positions: frozenset[int] | None = frozenset()
    keep_stages: bool = False

    def __or__(self, other: PassPlan) -> PassPlan:
        return PassPlan(
            None if self.positions is None or other.positions is None else self.positions | other.positions,
            self.keep_stages or other.keep_stages,
        )

    @property
    def read(self) -> list[int] | None:
        """The positions as figsite.capture.text_pass.run_text takes them."""
        return None if self.positions is None else sorted(self.positions)


@dataclass
class Reading:
    """What the parts see while the model reads the texts: the loaded model, the run so far, what every figure asks,
    merged (`asked`), and what a part holds from one text for a later one (part name -> its own)."""

    loaded: Loaded
    run: Run
    asked: Asks
    held: dict[str, Any] = field(default_factory=dict)  # Any: each part holds its own form (pairs: residuals)

    def asks(self, part: Part[AskT]) -> AskT:
        """The part's asks merged over every figure (none: its empty form)."""
        # what merge() put under the part's name: part.merge's form
        return cast("AskT | None", self.asked.parts.get(part.name)) or part.merge([])


class Part(Generic[AskT]):
    """One thing a figure can ask of the run beyond its texts' data; a subclass in this package's module of the
    same name overrides what its part does. The defaults: asks are lists merged each once, nothing asked of
    the pass, nothing computed, no tokens named, no memory of its own.

    AskT: what a figure asks of it, and every figure's merged, in the part's own form: a list of asks
    (figsite.data.part_records.Ask, the text first), which the defaults take; a part asked in another form (the
    lens's {text: followed}) overrides merge."""

    name: str = ""  # its key in `Asks.parts` (figures.kind.Kind.asks)
    in_parts_file: bool = False  # its answers are the entries of data/parts.json's list `name`

    def merge(self, each: Sequence[AskT | None]) -> AskT:
        """Every figure's asks (None where a figure asks none) -> the run's: each ask once, in the order asked."""
        merged: list[Ask] = []
        for asks in each:  # the default's AskT is a list of asks (see the class)
            merged += [
                list(ask) for ask in cast("Iterable[Iterable[str | int | None]]", asks or []) if list(ask) not in merged
            ]
        return cast(AskT, merged)

    def plan(self, asks: AskT, text: str) -> PassPlan:
        """What the pass over `text` must read out or keep for this part."""
        return PassPlan()

    def answered(self, run: Run, asks: AskT) -> bool:
        """Whether `run` (figsite.data.run.Run) holds this part's answer to `asks` (one figure's, or merged). The
        default: the part needs nothing beyond the texts' data (which Run.holds checks)."""
        return True

    def answer(self, reading: Reading, text: str, capture: TextCapture) -> Iterator[None]:
        """Computes what the part is asked of `text` into reading.run, once its pass is done (capture: its
        figsite.capture.text_pass.TextCapture); yields after each piece, so the figures it completes are built."""
        return iter(())

    def mentions(self, run: Run, text: str) -> set[int]:
        """The token ids the part's data of `text` name, for the run's vocabulary."""
        return set()

    def memory(self, shape: Shape, n: int) -> int:
        """Bytes its largest step holds for a moment, for a model of `shape` (figsite.model.memory.Shape) and a
        text of n tokens: its share of the memory estimate."""
        return 0

    def finish(self, run: Run, asks: AskT) -> None:
        """Puts the part's data in the run in the order asked, whatever the order the texts were read."""

    @property
    def version(self) -> str:
        """Derived from the source of its module and of the code it rests on (see versions)."""
        return versions()[self.name]


class Asked(TypedDict):
    """What every entry of data/parts.json holds first: the ask it answers (part_records.ScoresEntry and the
    others)."""

    ask: Ask


EntryT = TypeVar("EntryT", bound=Asked)  # one entry of the part's list in data/parts.json (part_records.PartEntry)


class EntryPart(Part[list[Ask]], Generic[EntryT]):
    """A part answered ask by ask, each answer an entry of data/parts.json's list `name`: {"ask": ask, ...}.
    The ask's first item is its text; `compute` makes the rest of the entry."""

    in_parts_file = True

    def compute(self, loaded: Loaded, ask: Ask) -> Mapping[str, object]:
        raise NotImplementedError(f"{type(self).__name__} (part {self.name!r}) lacks compute(loaded, ask)")

    def entry_mentions(self, entry: EntryT) -> set[int]:
        """The token ids one entry names (targets, versus tokens)."""
        return set()

    def _lists(self, run: Run) -> dict[str, list[EntryT]]:
        """run.parts (data/parts.json) as what this part reads there: its list, `name`, holds its entries. (The
        record's type names the parts known to the data layer; the registry may hold more: docs/kinds.md.)"""
        return cast("dict[str, list[EntryT]]", run.parts)

    def answer(self, reading: Reading, text: str, capture: TextCapture) -> Iterator[None]:
        for ask in reading.asks(self):
            if ask[0] == text:
                # the ask, then what compute made of it: the entry (EntryT)
                entry = cast(EntryT, {"ask": ask, **self.compute(reading.loaded, ask)})
                self._lists(reading.run)[self.name].append(entry)
                yield

    def mentions(self, run: Run, text: str) -> set[int]:
        return {
            token_id
            for entry in self._lists(run).get(self.name, [])
            if entry["ask"][0] == text
            for token_id in self.entry_mentions(entry)
        }

    def answered(self, run: Run, asks: list[Ask]) -> bool:
        return all(any(entry["ask"] == list(ask) for entry in self._lists(run).get(self.name, [])) for ask in asks)

    def finish(self, run: Run, asks: list[Ask]) -> None:
        lists = self._lists(run)
        if self.name in lists:
            entries = lists[self.name]
            lists[self.name] = [next(entry for entry in entries if entry["ask"] == list(ask)) for ask in asks]


# ---------------------------------------------------------------------------------------------- the registry


@functools.cache
def registered() -> tuple[Part[Any], ...]:
    """Every part, in NAMES's order (importing their modules imports torch)."""
    # Any: each part is asked in its own form (a list of asks, the lens's {text: followed})
    parts: tuple[Part[Any], ...] = tuple(importlib.import_module(f"{__name__}.{name}").PART for name in NAMES)
    for name, part in zip(NAMES, parts):
        if part.name != name:
            raise TypeError(f"figsite/capture/parts/{name}.py declares the part {part.name!r}; it must be {name!r}")
    return parts


def merge(each: Sequence[Asks]) -> dict[str, PartAsks]:
    """What each figure asks of the parts (`Asks.parts`, figures.kind.Kind.asks) merged into the run's `parts`, part
    by part. A name no part declares is refused: it would be asked and never computed."""
    unknown = sorted({name for asks in each for name in asks.parts} - set(NAMES))
    if unknown:
        raise KeyError(f"no captured part {unknown[0]!r}; declared: {', '.join(NAMES)} (figsite/capture/parts)")
    return {part.name: part.merge([asks.parts.get(part.name) for asks in each]) for part in registered()}


def asked(asks: Asks) -> list[Part[Any]]:
    """The parts `asks` (merged) asks anything of."""
    return [part for part in registered() if asks.parts.get(part.name)]


# ---------------------------------------------------------------------------------------------- versions

FIGSITE = Path(__file__).resolve().parents[2]
# The code every part's numbers rest on besides its own module: the model, its loading and tokens, the hook
# helper, the text pass and the read-out, the orchestration, this registry, and the data format's writers.
FOUNDATION = ("model/*.py", "capture/*.py", "capture/parts/__init__.py", "data/format.py")


@functools.cache
def versions() -> dict[str, str]:
    """The cache versions of what a run computes, derived from source (never bumped by hand): "texts" (the text
    pass: a digest of FOUNDATION's files and of the data format's constants) and each part (the same, and its
    own module's source). Read from the files, not imported: no torch."""
    foundation = _digest(b"", sorted(path for pattern in FOUNDATION for path in FIGSITE.glob(pattern)))
    foundation = _digest(foundation.encode() + json.dumps(CONSTANTS, sort_keys=True).encode(), [])
    return {"texts": foundation, **{name: _digest(foundation.encode(), [_source_of(name)]) for name in NAMES}}


def _source_of(name: str) -> Path:
    """The file of the part's module, found without running it (so without torch)."""
    spec = importlib.util.find_spec(f"{__name__}.{name}")
    assert spec is not None and spec.origin is not None, name  # a name of NAMES: a module of this package
    return Path(spec.origin)


def _shown(path: Path) -> str:
    """A file's name in the digest: its path under figsite/ (the same on every machine), else its name."""
    return str(path.relative_to(FIGSITE)) if path.is_relative_to(FIGSITE) else path.name


def _digest(start: bytes, files: Iterable[Path]) -> str:
    digest = hashlib.sha256(start)
    for path in files:
        digest.update(_shown(path).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()
