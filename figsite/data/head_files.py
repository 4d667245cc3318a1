"""A long text's head files (data format gpt2-figures/3, docs/output.md): each head's shares in a file of its own,
a script that hands its payload to JS_CALLBACK, so that a page loads it on demand with <script src> from file://;
the shares kept as integers in units of SHARE_UNIT. Written (head_file_text) and read back (read_head_file,
dense_rows) here, in the one compact JSON every data file is written in (to_json); figsite.data.run reads them,
remembering every file it read (Remembered).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping

from figsite.data.records import HeadFile

HEAD_FORMAT = "gpt2-figures-attention/2"
SHARE_UNIT = 1e-4  # gpt2-figures/3 keeps shares as integers in this unit: within 5e-5 of the model's
JS_CALLBACK = "gpt2Attention"  # the function a head file calls: works with <script src> from file://


def head_file_text(payload: Mapping[str, object]) -> str:
    """A head file as written: a script that hands its payload to JS_CALLBACK (works with <script src>)."""
    return f"{JS_CALLBACK}({to_json(payload)});\n"


def read_head_file(content: str) -> HeadFile:
    prefix, suffix = f"{JS_CALLBACK}(", ");\n"
    if not (content.startswith(prefix) and content.endswith(suffix)):
        raise ValueError("not a head file")
    payload: HeadFile = json.loads(content[len(prefix) : -len(suffix)])  # as head_file_text wrote it
    return payload


def dense_rows(payload: HeadFile) -> list[list[float]]:
    """A head file's kept shares spread back over every key (left-out shares as 0)."""
    rows: list[list[float]] = []
    for query, (keys, shares) in enumerate(zip(payload["keys"], payload["shares"])):
        row = [0.0] * (query + 1)
        for key, units in zip(keys, shares):
            row[key] = units * SHARE_UNIT
        rows.append(row)
    return rows


def to_json(content: object) -> str:
    # Compact, in the order the dicts were built: the same run gives the same bytes, and diffs stay small.
    return json.dumps(content, ensure_ascii=False, separators=(",", ":"))


class Remembered:
    """A reader of a run's files (Run.from_files) that remembers each text it returned, which the run then hands back
    as it was read rather than writing it again (Run._read)."""

    def __init__(self, read: Callable[[str], str]):
        self.read = read
        self.texts: dict[str, str] = {}

    def __call__(self, path: str) -> str:
        text = self.texts[path] = self.read(path)
        return text
