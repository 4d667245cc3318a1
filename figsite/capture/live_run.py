"""The live page's export (figsite.capture.live_export) run with onnxruntime on the CPU, as a page runs it: its
inputs and outputs by name, a session of it, and one run. No torch here: the light weights' measure
(figsite.capture.live_light) and the tests run the export through it.

    session(folder) -> onnxruntime.InferenceSession
    run(folder_or_session, ids, follow) -> {output name: array}
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from figsite.capture.live_files import GRAPH_FILE

if TYPE_CHECKING:
    import numpy
    import onnxruntime
    from numpy.typing import NDArray

INPUTS = ("input_ids", "follow")
OUTPUTS = ("shares", "top_ids", "top_probs", "follow_probs", "follow_ranks")


def session(folder: Path, threads: int = 0) -> onnxruntime.InferenceSession:
    """An onnxruntime session (CPU) of the export in `folder`, with onnxruntime's default optimisations, as a page
    gets; threads: 0 for onnxruntime's choice."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    return onnxruntime.InferenceSession(str(Path(folder) / GRAPH_FILE), options, providers=["CPUExecutionProvider"])


def run(
    folder_or_session: Path | onnxruntime.InferenceSession, ids: Sequence[int], follow: Sequence[int]
) -> dict[str, NDArray[numpy.float32] | NDArray[numpy.int64]]:
    """The export's outputs for one text's token ids and the followed tokens: {name: numpy array}."""
    import numpy

    live = folder_or_session if hasattr(folder_or_session, "run") else session(folder_or_session)
    arrays = live.run(
        list(OUTPUTS),
        {"input_ids": numpy.asarray([ids], dtype=numpy.int64), "follow": numpy.asarray(follow, dtype=numpy.int64)},
    )
    return dict(zip(OUTPUTS, arrays))
