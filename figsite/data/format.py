"""The writers of the data files' form: what the capture hands over as plain lists and numbers, put in the shape
and rounding the formats promise (docs/output.md). No torch here: the capture does the tensor
work and hands lists over; figsite.data.run reads what these write.

- a text's data file (gpt2-figures/1, or /3 for a long text): `text_file`, with format 1's attention lists
  (`attention_lists`) or format 3's head files (`head_files`), and the read-out's cells (`readout_cell`);
- the comparisons of the run record (`comparison`);
- data/parts.json (`parts_file`), whose entries write their numbers with `number` and `numbers`.

`CONSTANTS` holds every constant that decides what the data say; `version()` derives the data format's version
from them, so that a changed constant never reuses a cached run (figsite.data.cache).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import cast

from figsite.data.part_records import PartsFile
from figsite.data.records import (
    Comparison,
    Guess,
    HeadFile,
    ModelRecord,
    ReadoutCell,
    Shapes,
    TargetTrack,
    TextData,
    Token,
)
from figsite.data.run import (
    DATA_FORMAT,
    HEAD_FORMAT,
    JS_CALLBACK,
    LONG_DATA_FORMAT,
    MIN_SHARE,
    PARTS_FORMAT,
    RUN_FORMAT,
    SHARE_UNIT,
    head_file_text,
)

TOP_K = 10  # read-out tokens kept per stage and position
ATTENTION_DECIMALS = 6  # rounding error 5e-7, well inside the promised 1e-4
PROBABILITY_DECIMALS = 8  # rounding error 5e-9, well inside the promised 1e-5
DIGITS = 9  # significant digits of a float32 value in data/parts.json: enough to give back the same float32
DISTANCE_DIGITS = 6  # significant digits of a comparison's distance: a tiny one stays visible, 0 stays 0
DENSE_LIMIT = 1_000_000  # shares in all heads; a text with more is written in format 3 (one file per head)

CONSTANTS = {
    "formats": [DATA_FORMAT, LONG_DATA_FORMAT, HEAD_FORMAT, RUN_FORMAT, PARTS_FORMAT],
    "share unit": SHARE_UNIT,
    "min share": MIN_SHARE,
    "callback": JS_CALLBACK,
    "top": TOP_K,
    "attention decimals": ATTENTION_DECIMALS,
    "probability decimals": PROBABILITY_DECIMALS,
    "digits": DIGITS,
    "distance digits": DISTANCE_DIGITS,
    "dense limit": DENSE_LIMIT,
}


def version() -> int:
    """The data format's version, derived from CONSTANTS (never bumped by hand), as a number."""
    digest = hashlib.sha256(json.dumps(CONSTANTS, sort_keys=True).encode()).hexdigest()
    return int(digest[:16], 16)


# ---------------------------------------------------------------------------------------------- a text's data


def is_long(n_layer: int, n_head: int, n: int) -> bool:
    """Whether a text of n tokens is written in format 3: its shares over all heads would exceed DENSE_LIMIT."""
    return n_layer * n_head * n * (n + 1) // 2 > DENSE_LIMIT


def text_file(
    model: ModelRecord,
    text: str,
    tokens: list[Token],
    attention: list[list[list[list[float]]]] | list[str],
    readout: list[list[ReadoutCell | None]],
    target: TargetTrack | None,
    long: bool,
) -> TextData:
    """A text's data file. attention: format 1's [layer][head][query] lists, or for a long text (format 3) the
    names of its head files; tokens: [{"id", "text"}]; target: {"id", "text", "p"} or None."""
    data: TextData
    if long:  # `long` says which attention was handed: the head files' names
        files = cast("list[str]", attention)
        data = {
            "format": LONG_DATA_FORMAT,
            "model": model,
            "text": text,
            "tokens": tokens,
            "attention": {"files": files, "unit": SHARE_UNIT, "min_share": MIN_SHARE},
            "readout": readout,
        }
    else:  # the shares, [layer][head][query]
        shares = cast("list[list[list[list[float]]]]", attention)
        data = {
            "format": DATA_FORMAT,
            "model": model,
            "text": text,
            "tokens": tokens,
            "attention": shares,
            "readout": readout,
        }
    if target is not None:
        data["target"] = target
    return data


def token(token_id: int, text: str, start: bool = False) -> Token:
    """A token as the data name it: {"id", "text"} (text: the token decoded alone); the start token a model's
    tokenizer puts in front of every text (a Llama's <s>, no word of the reader's) with "start": true."""
    record: Token = {"id": token_id, "text": text}
    if start:
        record["start"] = True
    return record


def attention_lists(heads: Sequence[Sequence[Sequence[float]]]) -> list[list[list[float]]]:
    """One layer's shares, [head][query][key] over every key -> format 1's [head][query] -> the shares over keys
    0..query, rounded (the rest is masked: a token never looks right)."""
    return [
        [[round(share, ATTENTION_DECIMALS) for share in row[: query + 1]] for query, row in enumerate(head)]
        for head in heads
    ]


def head_files(
    names: list[str], layer: int | None, keys: list[int], units: list[int], counts: list[list[int]]
) -> dict[str, str]:
    """Format 3's head files (file name -> the file's text): each head's shares of MIN_SHARE or more, as integers
    in SHARE_UNIT, per query.

    The heads are those named by `names` (of `layer`; None for the average's file). keys and units list the kept
    shares in (head, query, key) order, flat; counts[head][query] says how many each query keeps."""
    files: dict[str, str] = {}
    at = 0
    for index, name in enumerate(names):
        payload: HeadFile = {"format": HEAD_FORMAT, "keys": [], "shares": []}
        if layer is not None:
            payload["layer"], payload["head"] = layer, index
        for count in counts[index]:
            payload["keys"].append(keys[at : at + count])
            payload["shares"].append(units[at : at + count])
            at += count
        files[name] = head_file_text(payload)  # as text: a long text's heads would take gigabytes as numbers
    return files


def named_tokens(data: TextData) -> set[int]:
    """The token ids a text's data file names besides its own tokens: the read-out's top tokens and the target."""
    named = {token_id for stage in data["readout"] for cell in stage if cell is not None for token_id, _ in cell["top"]}
    return named | ({data["target"]["id"]} if "target" in data else set())


def probability(p: float) -> float:
    """A probability as the data write it."""
    return round(p, PROBABILITY_DECIMALS)


def readout_cell(token_ids: list[int], probabilities: list[float]) -> ReadoutCell:
    """The read-out at one stage and position: the TOP_K most likely tokens, highest first, with their p."""
    # Each [id, p] a list, as a run read back from its JSON holds it: typed as the pair (records.Guess) it is read as.
    return {"top": [cast("Guess", [i, probability(p)]) for i, p in zip(token_ids, probabilities)]}


# ---------------------------------------------------------------------------------------------- the run record


def shapes_record(n: int, measured: Mapping[str, list[int]], vocab_size: int) -> Shapes:
    """The shapes of a text's numbers as the run record writes them: its token ids, what the pass measured
    ("embedding", "layer 1", ...) and the scores, which have the model's own output's shape (position, vocab)."""
    return {"token ids": [n], **measured, "scores": [n, vocab_size]}


def comparison(a: str, b: str, shared: int, distance: Sequence[Sequence[float]]) -> Comparison:
    """A comparison of two texts: the tokens they share at the start, and distance[stage][position]."""
    return {
        "texts": [a, b],
        "shared": shared,
        "distance": [[float(f"{d:.{DISTANCE_DIGITS}g}") for d in row] for row in distance],
    }


# ---------------------------------------------------------------------------------------------- data/parts.json


def parts_file(names: list[str]) -> PartsFile:
    """data/parts.json before its entries: one list per part that writes there, in the registry's order."""
    # names: the registered parts that write there (figsite.capture.parts), each a list of PartsFile
    return cast("PartsFile", {"format": PARTS_FORMAT, **{name: [] for name in names}})


def number(value: float) -> float:
    """A float32 value with DIGITS significant digits."""
    return float(f"{value:.{DIGITS}g}")


def numbers(values: Iterable[float]) -> list[float]:
    return [number(v) for v in values]
