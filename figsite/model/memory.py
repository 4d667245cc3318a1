"""How much memory a build will take, worked out before the model's weights load, so that a build that would
not fit stops at once with one line instead of being killed by the kernel halfway through.

Pure Python: the model's shape comes from its config (each family counts its own weights: the config's n_weights),
the texts' lengths from its tokenizer. The estimate is the sum of what the build holds at its peak
(figsite.capture.text_pass runs the model layer by layer):

- the libraries (torch, tokenizers, Altair...) once imported: BASE;
- the weights, 4 bytes each (float32);
- the largest of what one step holds for a moment: one layer's attention as the pass computes it and as
  the capture copies it, `ATTENTION_COPIES` arrays of (heads, query, key); one product of the read-out,
  (rows, vocabulary) a few times over; and each step that a part the figures ask for declares as its share
  (figsite.capture.parts: Part.memory, e.g. the knockouts' batch of copies through a feed-forward step);
- what the run keeps: a long text's head files, about `KEPT_PER_ROW` shares of `SHARE_BYTES` each per head
  and query (a row keeps at most 200, the shares of 0.5% or more; GPT-2's attention keeps few).

tests/unit/test_memory.py holds the estimate against the peak of measured builds.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the interface loads torch, which a build that checks its memory has not loaded yet
    from figsite.model.interface import ModelConfig

GIB = 1024**3
BASE = int(0.35 * GIB)  # resident after importing torch, tokenizers, Altair and the build's own code, with room
FLOAT = 4  # bytes: the model runs in float32
ATTENTION_COPIES = 5  # scores, mask added, softmax, the capture's copy and its 0.5% mask, at one time
READOUT_COPIES = 3  # scores, their exponentials, a top-k's scratch
READOUT_ROWS = 512  # figsite.capture.readout.READOUT_ROWS: rows of one read-out product
KEPT_PER_ROW = 32  # shares a long text's head file keeps per query, on average (random weights: about 22)
SHARE_BYTES = 9  # a kept share as the file's text: "key,units," in the JSON of its head file
DENSE_LIMIT = 1_000_000  # figsite.data.format.DENSE_LIMIT: above it a text is long (one file per head)


@dataclass(frozen=True)
class Shape:
    """What the estimate needs of a model's config (any family's: the interface's names)."""

    n_layer: int
    n_head: int
    d_model: int
    vocab: int
    n_ctx: int
    d_inner: int
    n_weights: int | None = None  # the family's own count (its config's n_weights); None: GPT-2's, tied

    @classmethod
    def of(cls, config: ModelConfig) -> Shape:
        return cls(
            config.n_layer,
            config.n_head,
            config.n_embd,
            config.vocab_size,
            config.n_positions,
            getattr(config, "n_inner", None) or 4 * config.n_embd,
            config.n_weights,
        )

    @property
    def weights(self) -> int:
        """The family's count where the config gave it (each family counts its own: gated feed-forward steps,
        key/value heads, untied unembeddings, no position table); else GPT-2's weights: token and position
        embeddings (the unembedding is the same matrix), each layer's attention (4 d x d and biases),
        feed-forward (2 d x d_inner and biases) and two layer norms, and the final layer norm."""
        if self.n_weights is not None:
            return self.n_weights
        d = self.d_model
        per_layer = 4 * d * d + 4 * d + 2 * d * self.d_inner + self.d_inner + d + 4 * d
        return self.vocab * d + self.n_ctx * d + self.n_layer * per_layer + 2 * d


# A part's memory share (figsite.capture.parts.Part.memory): (shape, tokens) -> the bytes its largest step holds.
StepMemory = Callable[[Shape, int], int]


def estimate(shape: Shape, lengths: Sequence[int], steps: Collection[StepMemory] = ()) -> int:
    """Peak resident bytes of a build that reads texts of these lengths (in tokens) with this model.

    steps: the memory shares of the parts the figures ask for, each a function (shape, tokens) -> the bytes its
    largest step holds for a moment (figsite.capture.parts.Part.memory); one step runs at a time."""
    if not lengths:
        return BASE + shape.weights * FLOAT
    n = max(lengths)
    attention = ATTENTION_COPIES * shape.n_head * n * n * FLOAT
    readout = READOUT_COPIES * min(n * (shape.n_layer + 1), READOUT_ROWS) * shape.vocab * FLOAT
    step = max(attention, readout, *(share(shape, n) for share in steps))
    kept = sum(
        shape.n_layer * shape.n_head * m * KEPT_PER_ROW * SHARE_BYTES
        for m in lengths
        if shape.n_layer * shape.n_head * m * (m + 1) // 2 > DENSE_LIMIT
    )
    return BASE + shape.weights * FLOAT + step + kept


def available() -> int | None:
    """Bytes this process may still take: the memory the system has available, or the room left under this
    process's cgroup limit where that is less. None where neither can be read (not Linux)."""
    found = []
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                found.append(int(line.split()[1]) * 1024)
    except OSError:
        pass
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = int(Path("/sys/fs/cgroup/memory.current").read_text().strip())
        if limit != "max":
            found.append(int(limit) - used)
    except (OSError, ValueError):
        pass
    if not found and hasattr(os, "sysconf"):
        try:
            found.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES"))
        except (OSError, ValueError):
            pass
    return min(found) if found else None


def gib(n: int) -> str:
    return f"{n / GIB:.1f} GiB"


def check(
    name: str, shape: Shape, lengths: Mapping[str, int], steps: Collection[StepMemory] = (), room: int | None = None
) -> None:
    """Raises a BuildError where the build would not fit: `lengths` is text -> its length in tokens, `steps` the
    asked parts' memory shares (see estimate)."""
    from figsite.errors import BuildError

    room = available() if room is None else room
    needed = estimate(shape, list(lengths.values()), steps)
    if room is None or needed <= room:
        return
    weights = shape.weights * FLOAT
    text, n = max(lengths.items(), key=lambda item: item[1]) if lengths else ("", 0)
    start = " ".join(text.split())
    start = start if len(start) <= 40 else start[:37].rstrip() + "..."
    fits = [m for m in range(1, n) if estimate(shape, [m], steps) <= room]
    ways = (
        f"a shorter text (at most {max(fits):,} tokens fit), a smaller model"
        if fits
        else f"a smaller model (the weights and the libraries alone take {gib(BASE + weights)})"
    )
    raise BuildError(
        f'--model: {name} ({gib(weights)} of weights) reading a text of {n:,} tokens ("{start}") '
        f"needs about {gib(needed)} of memory, and {gib(room)} is available; ways out: {ways}, "
        "or more free memory"
    )
