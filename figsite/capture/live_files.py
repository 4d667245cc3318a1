"""The live export's weights laid out in files (figsite.capture.live_export, figsite.capture.live_light): each weight
of 1 KiB or more moved out of the graph into files under a size a browser fetches and keeps well, a weight larger than
a file as blocks of rows that the graph joins; and each file described as the manifest lists it. No torch here."""

from __future__ import annotations

import math
from pathlib import Path
from typing import IO, TYPE_CHECKING

from figsite.capture.live_records import DescribedFile
from figsite.data.cache import file_sha256

if TYPE_CHECKING:
    import onnx

FILE_BYTES = 100_000_000  # each file of weights is smaller than this
ALIGN = 4096  # each tensor starts at a multiple of this in its file (a page: onnxruntime can map it)
WEIGHTS_FILE = "model-weights-{}.bin"  # the exact export's files, numbered from 0
GRAPH_FILE = "model.onnx"  # the exact export's graph


def described_file(folder: Path, name: str) -> DescribedFile:
    return {"name": name, "bytes": (folder / name).stat().st_size, "sha256": file_sha256(folder / name)}


def split_large(graph: onnx.GraphProto, weights: set[str], limit: int) -> None:
    """Each weight of more than `limit` bytes becomes blocks of rows, as many as it needs and of equal size (the
    last smaller), named NAME.0, NAME.1, ..., that a Concat at the start of the graph joins under NAME again."""
    from onnx import helper

    for index, tensor in reversed(list(enumerate(graph.initializer))):
        if tensor.name not in weights or len(tensor.raw_data) <= limit:
            continue
        rows, row_bytes = tensor.dims[0], len(tensor.raw_data) // tensor.dims[0]
        if row_bytes > limit:
            raise ValueError(f"{tensor.name}: one row is {row_bytes} bytes, more than a file holds ({limit})")
        per_block = math.ceil(rows / math.ceil(len(tensor.raw_data) / limit))
        blocks = []
        for number, first in enumerate(range(0, rows, per_block)):
            block = helper.make_tensor(
                f"{tensor.name}.{number}",
                tensor.data_type,
                [min(per_block, rows - first), *tensor.dims[1:]],
                tensor.raw_data[first * row_bytes : (first + per_block) * row_bytes],
                raw=True,
            )
            blocks.append(block)
        del graph.initializer[index]
        for offset, block in enumerate(blocks):
            graph.initializer.insert(index + offset, block)
        graph.node.insert(
            0,
            helper.make_node(
                "Concat", [block.name for block in blocks], [tensor.name], name=f"join_{tensor.name}", axis=0
            ),
        )


def write_external(graph: onnx.GraphProto, folder: Path, file_bytes: int, pattern: str = WEIGHTS_FILE) -> list[str]:
    """Moves each weight (an initializer of 1 KiB or more) into the weights' files (`pattern`, numbered from 0), in
    the graph's order, a new file where the next would not fit under file_bytes; returns the files' names."""
    from onnx import TensorProto
    from onnx.external_data_helper import set_external_data

    names: list[str] = []
    handle: IO[bytes] | None = None
    used = 0
    try:
        for tensor in graph.initializer:
            size = len(tensor.raw_data)
            if size < 1024:
                continue
            start = math.ceil(used / ALIGN) * ALIGN
            if handle is None or start + size >= file_bytes:
                if handle is not None:
                    handle.close()
                names.append(pattern.format(len(names)))
                handle, used, start = open(folder / names[-1], "wb"), 0, 0
            handle.write(b"\0" * (start - used))
            handle.write(tensor.raw_data)
            used = start + size
            set_external_data(tensor, names[-1], offset=start, length=size)
            tensor.ClearField("raw_data")
            tensor.data_location = TensorProto.EXTERNAL
    finally:
        if handle is not None:
            handle.close()
    return names
