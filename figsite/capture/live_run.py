"""The live page's export (figsite.capture.live_export) run with onnxruntime on the CPU, as a page runs it: its
inputs and outputs by name, a session of it, and one run. No torch here: the light weights' measure
(figsite.capture.live_light) and the tests run the export through it.

    session(folder) -> onnxruntime.InferenceSession
    run(folder_or_session, ids, follow, kept=None, stages=None) -> {output name: array}
        kept: the whole model by default; stages: the stages read out, every one by default
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from figsite.capture.live_files import GRAPH_FILE

if TYPE_CHECKING:
    import numpy
    import onnxruntime
    from numpy.typing import NDArray

INPUTS = ("input_ids", "follow", "keep_attention", "keep_feed_forward", "keep_heads", "read_stages")
OUTPUTS = ("shares", "top_ids", "top_probs", "follow_probs", "follow_ranks", "residuals")


@dataclass(frozen=True)
class Kept:
    """What a run keeps of the model (figsite.capture.live_export's `keep_` inputs): 1 keeps a part, 0 takes it
    out. The model as it is: Kept.whole(n_layer, n_head)."""

    attention: Sequence[float]  # (n_layer,)
    feed_forward: Sequence[float]  # (n_layer,)
    heads: Sequence[Sequence[float]]  # (n_layer, n_head)

    @classmethod
    def whole(cls, n_layer: int, n_head: int) -> Kept:
        return cls([1.0] * n_layer, [1.0] * n_layer, [[1.0] * n_head for _ in range(n_layer)])


def session(folder: Path, threads: int = 0) -> onnxruntime.InferenceSession:
    """An onnxruntime session (CPU) of the export in `folder`, with onnxruntime's default optimisations, as a page
    gets; threads: 0 for onnxruntime's choice."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    return onnxruntime.InferenceSession(str(Path(folder) / GRAPH_FILE), options, providers=["CPUExecutionProvider"])


def run(
    folder_or_session: Path | onnxruntime.InferenceSession,
    ids: Sequence[int],
    follow: Sequence[int],
    kept: Kept | None = None,
    stages: Sequence[int] | None = None,
) -> dict[str, NDArray[numpy.float32] | NDArray[numpy.int64]]:
    """The export's outputs for one text's token ids and the followed tokens, with the parts `kept` keeps (all, by
    default), reading out `stages` (all, by default): {name: numpy array}."""
    import numpy

    live = session(folder_or_session) if isinstance(folder_or_session, Path) else folder_or_session
    n_layer, n_head = {value.name: value.shape for value in live.get_inputs()}["keep_heads"]
    kept = kept or Kept.whole(n_layer, n_head)
    stages = range(n_layer + 1) if stages is None else stages
    arrays = live.run(
        list(OUTPUTS),
        {
            "input_ids": numpy.asarray([ids], dtype=numpy.int64),
            "follow": numpy.asarray(follow, dtype=numpy.int64),
            "keep_attention": numpy.asarray(kept.attention, dtype=numpy.float32),
            "keep_feed_forward": numpy.asarray(kept.feed_forward, dtype=numpy.float32),
            "keep_heads": numpy.asarray(kept.heads, dtype=numpy.float32),
            "read_stages": numpy.asarray(stages, dtype=numpy.int64),
        },
    )
    return dict(zip(OUTPUTS, arrays))
