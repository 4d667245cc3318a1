"""The result of one model run, as plain data: what every figure reads.

It holds the data files' contents (one per distinct text) and the run record (the model in numbers, the
shapes measured on the way, the software that ran it). Nothing here imports torch: a run can be written to
files, read back from them (the cache does), and rendered again.

Two data formats (see docs/output.md):
- gpt2-figures/1 keeps every attention share in the text's JSON file: `attention[layer][head][query]`.
- gpt2-figures/3 is for long texts, whose shares would not fit in one file a page can load: each head's
  shares lie in a file of their own (`<slug>/layer-LL-head-HH.js`, plus `<slug>/average.js`), loaded on
  demand with <script src>; shares are kept in units of 1e-4 and those below 0.5% are left out. The read-out
  is kept only at the positions a figure reads (null elsewhere): at every stage and position it would cost
  thirteen times the model's own unembedding.

The figures read a run only through the accessors below (tokens, shares, read-out, target, lens, shapes,
weights, comparisons, part entries): this module owns the data format, and the kinds never index its dicts.
Layers, heads, stages and positions are 0-based here, as in the data files; stage 0 is after the embedding,
stage s after layer s.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, Protocol, cast, overload

from figsite.data import paths
from figsite.data.asks import Asks
from figsite.data.head_files import (
    HEAD_FORMAT as HEAD_FORMAT,
    JS_CALLBACK as JS_CALLBACK,
    Remembered,
    SHARE_UNIT as SHARE_UNIT,
    dense_rows,
    head_file_text as head_file_text,
    read_head_file as read_head_file,
    to_json,
)
from figsite.data.paths import AVERAGE_FILE, head_file
from figsite.data.model_numbers import ModelNumbers
from figsite.data.part_records import (
    KnockoutEntry,
    LedgerEntry,
    PartEntry,
    PartName,
    PartsFile,
    PatchingEntry,
    RolesEntry,
    ScoresEntry,
)
from figsite.data.records import (
    Comparison,
    Environment,
    Guess,
    HeadFile,
    LensEntry,
    ModelRecord,
    Parameters,
    RunRecord,
    Shapes,
    TextData,
    TextEntry,
    Token,
    TokenRef,
)
from figsite.data.token_texts import TokenTexts

RUN_FORMAT = "gpt2-figures-run/1"
DATA_FORMAT: Final = "gpt2-figures/1"  # records.ShortTextData's "format"
LONG_DATA_FORMAT: Final = "gpt2-figures/3"  # records.LongTextData's "format"
PARTS_FORMAT = "gpt2-figures-parts/1"  # data/parts.json: how a share is worked out, score ledgers, knockouts
PER_SHARE = round(1 / SHARE_UNIT)  # 10,000 units make a share of 1; pages carry shares in the same unit
MIN_SHARE = 0.005  # gpt2-figures/3 leaves out shares below this
LEFT_OUT = f"{MIN_SHARE:.1%}"  # the same, as the words of every page say it: "0.5%"


class CapturedPart(Protocol):
    """A captured part as the data layer reads it (figsite.capture.parts.Part; the layer sits below the capture):
    its name, and whether a run holds its answer to what is asked of it."""

    @property
    def name(self) -> str: ...

    # asks: the part's own shape of PartAsks, which each part narrows
    def answered(self, run: Run, asks: Any) -> bool: ...


@dataclass
class Run(ModelNumbers):
    """The records' shapes: figsite.data.records and part_records (docs/output.md); the model in numbers (n_layer,
    n_head, weights, ...): ModelNumbers."""

    model: ModelRecord  # name, revision, n_layer, n_head, d_model, vocab_size, n_ctx
    texts: dict[str, TextData] = field(default_factory=dict)  # text -> data file content (format 1 or 3)
    slugs: dict[str, str] = field(default_factory=dict)  # text -> slug of its data file
    shapes: dict[str, Shapes] = field(default_factory=dict)  # text -> {"token ids": [...], "embedding": [...], ...}
    # weights by part, feed-forward shapes (the capture counts them). Every run the capture makes or the cache reads
    # has both records; one made by hand without them (a test's) holds {} and is never asked for them.
    parameters: Parameters = field(default_factory=lambda: cast("Parameters", {}))
    environment: Environment = field(
        default_factory=lambda: cast("Environment", {})
    )  # torch, tokenizers, device, dtype
    vocab: dict[int, str] = field(default_factory=dict)  # token id -> text, for every id a read-out mentions
    # (text, file name) -> a long text's head file, as written (text)
    heads: dict[tuple[str, str], str] = field(default_factory=dict)
    lens: dict[str, LensEntry] = field(default_factory=dict)  # text -> {"tokens", "p", "rank": [stage][position][k]}
    comparisons: list[Comparison] = field(default_factory=list)  # {"texts": [a, b], "shared", "distance"} per pair
    parts: PartsFile = field(default_factory=PartsFile)  # data/parts.json: part name -> [entry, ...]; {}: none asked
    # where its files lie under the site's data/: "" for the site's main model, "models/<slug>/" for another's
    folder: str = ""
    # head_payload's parsed files
    _parsed: dict[tuple[str, str], HeadFile] = field(default_factory=dict, repr=False, compare=False)
    # A run read back (from_files): path under data/ -> the text it was read from, which files() hands back as it
    # is rather than writing the same content again (the cache's entries are files() of the run, byte for byte)
    _read: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    # ------------------------------------------------------------------------------------------ a text's data

    def data(self, text: str) -> TextData:
        """A text's data file, as written (for the build's own writers; a figure reads the accessors)."""
        return self.texts[text]

    def is_long(self, text: str) -> bool:
        """Whether the text's data keep only shares of MIN_SHARE or more (data format 3)."""
        return self.texts[text]["format"] == LONG_DATA_FORMAT

    def tokens(self, text: str) -> list[Token]:
        """The text's tokens as records, {"id": int, "text": str}, in order."""
        return self.texts[text]["tokens"]

    def token_texts(self, text: str) -> TokenTexts:
        """Each token of the text decoded alone, e.g. ["The", " animal", ...], knowing whether the first is the
        model's start token (TokenTexts.start)."""
        tokens = self.texts[text]["tokens"]
        return TokenTexts([token["text"] for token in tokens], int(bool(tokens and tokens[0].get("start"))))

    def n_tokens(self, text: str) -> int:
        return len(self.texts[text]["tokens"])

    def shape(self, text: str, step: str) -> list[int]:
        """The shape measured at one step while the model read the text: "token ids", "embedding", "layer 3"
        (after layer 3, counted from 1) or "scores"."""
        return self.shapes[text][step]

    def token_text(self, token_id: int) -> str:
        """A token decoded alone, e.g. ' France'; the data files only decode the text's own tokens."""
        return self.vocab[token_id]

    # ------------------------------------------------------------------------------------------ the read-out

    def readout(self, text: str, stage: int, position: int) -> list[Guess]:
        """The read-out at one stage and position: the 10 most likely next tokens as [token id, probability],
        highest first. A long text is read out only at the positions its figures read."""
        cell = self.texts[text]["readout"][stage][position]
        if cell is None:
            raise ValueError(f"{text[:40]!r} is not read out at position {position}: no figure of the config reads it")
        return cell["top"]

    def top_guess(self, text: str, stage: int, position: int) -> Guess:
        """The most likely next token at one stage and position, as [token id, probability]."""
        return self.readout(text, stage, position)[0]

    def target(self, text: str) -> TokenRef | None:
        """The token the text's data track at every stage (a read-out figure's target) as a token record,
        {"id", "text"}; None where no figure names one."""
        tracked = self.texts[text].get("target")
        return None if tracked is None else {"id": tracked["id"], "text": tracked["text"]}

    def target_p(self, text: str, stage: int, position: int) -> float:
        """The target's probability of being the next token, at one stage and position."""
        p = self.texts[text]["target"]["p"][stage][position]
        if p is None:
            raise ValueError(f"{text[:40]!r} is not read out at position {position}: no figure of the config reads it")
        return p

    def followed(self, text: str) -> list[int]:
        """The token ids the lens of a text follows at every stage and position (its table's most frequent
        guesses, then the tokens a figure names)."""
        return self.lens[text]["tokens"]

    def lens_cell(self, text: str, stage: int, position: int, token_id: int) -> tuple[float, int]:
        """A followed token's probability and rank (1 = most likely) at one stage and position."""
        lens = self.lens[text]
        k = lens["tokens"].index(token_id)
        return lens["p"][stage][position][k], lens["rank"][stage][position][k]

    # ------------------------------------------------------------------------------------------ beyond the texts

    def comparison(self, a: str, b: str) -> Comparison:
        return next(c for c in self.comparisons if c["texts"] == [a, b])

    def distances(self, a: str, b: str) -> list[list[float]]:
        """How far the residual stream differs between two compared texts: [stage][position], for the positions
        both texts have (exactly 0 where no difference can reach)."""
        return self.comparison(a, b)["distance"]

    def shared_tokens(self, a: str, b: str) -> int:
        """How many tokens two compared texts share at their beginning."""
        return self.comparison(a, b)["shared"]

    @overload
    def part(self, name: Literal["scores"], ask: Sequence[object]) -> ScoresEntry: ...
    @overload
    def part(self, name: Literal["ledgers"], ask: Sequence[object]) -> LedgerEntry: ...
    @overload
    def part(self, name: Literal["knockouts"], ask: Sequence[object]) -> KnockoutEntry: ...
    @overload
    def part(self, name: Literal["patchings"], ask: Sequence[object]) -> PatchingEntry: ...
    @overload
    def part(self, name: Literal["roles"], ask: Sequence[object]) -> RolesEntry: ...
    @overload
    def part(self, name: PartName, ask: Sequence[object]) -> PartEntry: ...

    def part(self, name: PartName, ask: Sequence[object]) -> PartEntry:
        """The entry of data/parts.json that answers a figure's ask (figures.kind.PartKind): name is the part
        ("scores", "ledgers", "knockouts", "patchings", "roles"), the entry the plain dict its part's capture computed
        (records.PartEntry: its type follows from the name)."""
        entries: Sequence[PartEntry] = self.parts[name]
        return next(entry for entry in entries if entry["ask"] == list(ask))

    def holds(self, asks: Asks, parts: Iterable[CapturedPart]) -> bool:
        """Whether the run holds everything a figure asks (figures.kind.Kind.asks): its texts' data, and the answer
        to what it asks of each part, as that part says (Part.answered). `parts`: the registry of captured parts
        (figsite.capture.parts.registered()), handed in, since the data layer sits below the capture. A run that the
        model is still filling may not hold it yet."""
        by_name = {part.name: part for part in parts}
        return all(text in self.texts for text in asks.texts) and all(
            by_name[name].answered(self, asked) for name, asked in asks.parts.items()
        )

    # ------------------------------------------------------------------------------------------ attention

    def head_rows(self, text: str, layer: int, head: int) -> list[list[float]]:
        """One head's shares, 0-based layer and head: rows[query] -> shares over keys 0..query."""
        data = self.texts[text]
        if data["format"] == DATA_FORMAT:
            return data["attention"][layer][head]
        return dense_rows(self.head_payload(text, head_file(layer, head)))

    def average_rows(self, text: str) -> list[list[float]]:
        """The mean over every layer and head of each query's shares."""
        data = self.texts[text]
        if data["format"] == LONG_DATA_FORMAT:
            return dense_rows(self.head_payload(text, AVERAGE_FILE))
        heads = [head for layer in data["attention"] for head in layer]
        n_query = len(heads[0])
        return [[sum(h[q][k] for h in heads) / len(heads) for k in range(q + 1)] for q in range(n_query)]

    def kept_row(self, text: str, layer: int, head: int, query: int) -> list[tuple[int, float]]:
        """One query's shares in one head (0-based) as (key, share) pairs: every key up to the query, or for a
        long text only the shares it keeps (those of MIN_SHARE or more)."""
        data = self.texts[text]
        if data["format"] != LONG_DATA_FORMAT:  # not is_long(text)
            return list(enumerate(data["attention"][layer][head][query]))
        payload = self.head_payload(text, head_file(layer, head))
        return [(k, u * SHARE_UNIT) for k, u in zip(payload["keys"][query], payload["shares"][query])]

    def kept_rows(self, text: str, layer: int, head: int) -> list[list[tuple[int, float]]]:
        """Every query's (key, share) pairs in one head, as kept_row gives them."""
        data = self.texts[text]
        if data["format"] != LONG_DATA_FORMAT:  # not is_long(text)
            return [list(enumerate(r)) for r in data["attention"][layer][head]]
        payload = self.head_payload(text, head_file(layer, head))
        return [
            [(k, u * SHARE_UNIT) for k, u in zip(keys, shares)]
            for keys, shares in zip(payload["keys"], payload["shares"])
        ]

    def share(self, text: str, layer: int, head: int, query: int, key: int) -> float:
        """One share, 0-based; 0 where a long text's file left it out (below 0.5%)."""
        data = self.texts[text]
        if data["format"] == DATA_FORMAT:
            return data["attention"][layer][head][query][key]
        payload = self.head_payload(text, head_file(layer, head))
        keys = payload["keys"][query]
        return payload["shares"][query][keys.index(key)] * SHARE_UNIT if key in keys else 0.0

    def head_payload(self, text: str, name: str) -> HeadFile:
        """A long text's head file read (parsed once, when a figure first asks): {"keys", "shares", ...}.

        The run holds head files as their text: a model of 1,200 heads at 1,024 tokens keeps some 30 million
        shares, which as Python numbers would take gigabytes, and most builds read only the heads they show."""
        parsed = self._parsed.get((text, name))
        if parsed is None:
            parsed = self._parsed[(text, name)] = read_head_file(self.heads[(text, name)])
        return parsed

    def head_files(self, text: str) -> dict[str, str]:
        """For a long text: each head file's path in the site, by view ('5-4' is layer 5, head 4; 'all')."""
        slug = self.slugs[text]
        files = {
            f"{l + 1}-{h + 1}": self.in_data(paths.head_data(slug, head_file(l, h)))
            for l in range(self.model["n_layer"])
            for h in range(self.model["n_head"])
        }
        files["all"] = self.in_data(paths.head_data(slug, AVERAGE_FILE))
        return files

    def in_data(self, path: str) -> str:
        """A file of this run (a path of `files`) as the site holds it: under data/, in the run's folder."""
        return paths.in_data(self.folder + path)

    # ------------------------------------------------------------------------------------------ files

    def record(self) -> RunRecord:
        """The run record written to data/run.json: everything but the per-text data files."""
        record: RunRecord = {
            "format": RUN_FORMAT,
            "model": self.model,
            "environment": self.environment,
            "parameters": self.parameters,
            "vocab": {str(i): t for i, t in sorted(self.vocab.items())},
            "texts": [self._text_entry(t) for t in self.texts],
            "comparisons": self.comparisons,
        }
        if self.parts:  # last, as its key always was
            record["parts"] = self.in_data(paths.PARTS)
        return record

    def _text_entry(self, text: str) -> TextEntry:
        """A text in the run record: its data file, its shapes, and a lens figure's text its lens (last)."""
        entry: TextEntry = {
            "text": text,
            "data": self.in_data(paths.text_data(self.slugs[text])),
            "shapes": self.shapes[text],
        }
        if text in self.lens:
            entry["lens"] = self.lens[text]
        return entry

    def files(self, heads: Set[str] | None = None) -> dict[str, str]:
        """Every data file of the run, path under data/ -> text, in a fixed order with fixed formatting.

        heads: the head files (paths under data/) to write of a long text, where not all: a site holds only
        those its pages load, and its text's data file lists only those."""
        # a record read back names the files where they lay then: in another folder, they are named anew
        out = {paths.RUN_RECORD: (None if self.folder else self._read.get(paths.RUN_RECORD)) or to_json(self.record())}
        for text, content in self.texts.items():
            path = paths.text_data(self.slugs[text])
            if heads is not None and content["format"] == LONG_DATA_FORMAT:
                slug = self.slugs[text]
                kept = [name for name in content["attention"]["files"] if paths.head_data(slug, name) in heads]
                content = {**content, "attention": {**content["attention"], "files": kept}}
                out[path] = to_json(content)
            else:
                out[path] = self._read.get(path) or to_json(content)
        if self.parts:
            out[paths.PARTS] = self._read.get(paths.PARTS) or to_json(self.parts)
        for (text, name), payload in sorted(self.heads.items(), key=lambda item: (self.slugs[item[0][0]], item[0][1])):
            path = paths.head_data(self.slugs[text], name)
            if heads is None or path in heads:
                out[path] = payload
        return out

    def write_files(self, folder: Path, heads: Set[str] | None = None) -> dict[str, str]:
        """Writes the data files of the run under `folder` (the site's or a cache entry's data/): all, or of a
        long text's head files only `heads` (see files). Returns path under data/ -> SHA-256 of the bytes."""
        checksums = {}
        for path, content in self.files(heads).items():
            target = folder / path
            target.parent.mkdir(parents=True, exist_ok=True)
            raw = content.encode("utf-8")
            target.write_bytes(raw)
            checksums[path] = hashlib.sha256(raw).hexdigest()
        return checksums

    @classmethod
    def from_files(cls, read: Callable[[str], str]) -> Run:
        """A run read back from its data files; `read(path under data/)` returns a file's text."""
        remembered = Remembered(read)
        record: RunRecord = json.loads(remembered(paths.RUN_RECORD))  # the record as `record()` wrote it
        run = cls(
            model=record["model"],
            parameters=record["parameters"],
            environment=record["environment"],
            vocab={int(i): t for i, t in record["vocab"].items()},
            comparisons=record["comparisons"],
            _read=remembered.texts,
        )
        if "parts" in record:
            run.parts = json.loads(remembered(paths.PARTS))
        for entry in record["texts"]:
            text, path = entry["text"], entry["data"].removeprefix(paths.in_data(""))
            slug = path.removesuffix(".json")
            run.slugs[text], run.shapes[text] = slug, entry["shapes"]
            if "lens" in entry:
                run.lens[text] = entry["lens"]
            data: TextData = json.loads(remembered(path))  # as files() wrote it
            run.texts[text] = data
            if data["format"] == LONG_DATA_FORMAT:
                for name in data["attention"]["files"]:
                    run.heads[(text, name)] = remembered(paths.head_data(slug, name))
        return run
