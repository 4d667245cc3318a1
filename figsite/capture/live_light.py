"""The live page's light weights: the export's graph (figsite.capture.live_export) with every weight matrix stored as
4-bit integers in blocks of BLOCK along its rows, each block with its own scale, for readers on a phone or a slow
network. It is about a sixth of the exact float32 files (GPT-2 small: 78 MB against 495 MB).

    lighten(folder, manifest) -> LightSet     writes LIGHT_GRAPH and its weights' files beside the exact export
    measure(folder, manifest, light, texts)   the light set's largest differences from the exact one on `texts`

A weight W (float32, 2-D, 1 KiB or more; the token embedding's blocks of rows each on its own) becomes an INT4
initializer and its scales, (rows, ceil(columns / BLOCK)) float32, and a DequantizeLinear (opset 21, blocked:
`axis` 1, `block_size` BLOCK) at the graph's start makes W again, under its own name, so that the rest of the
graph is the exact one's. Quantised symmetrically: each block's scale is its largest magnitude / 7, its values
round(w / scale) in -8..7, so a block's largest weight is kept exactly and the others within half a step.

The page starts a session of the light set with onnxruntime's `session.disable_quant_qdq` (LIGHT_SESSION), which
lets its constant folding turn those DequantizeLinear nodes into float32 weights once, when the session starts:
each run is then as quick as the exact set's, and only the download is lighter. `measure` runs both as the page
does, so that the error the page states is the one the reader gets.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from figsite.capture.live_records import LightError, LightSet, Manifest

if TYPE_CHECKING:
    import numpy
    import onnx
    import onnxruntime
    from numpy.typing import NDArray

BITS = 4
BLOCK = 32  # weights per block, along a weight's rows
LIGHT_GRAPH = "light-model.onnx"
LIGHT_WEIGHTS = "light-weights-{}.bin"
LIGHT_OPSET = 21  # DequantizeLinear's blocks and INT4 came in opset 21
LIGHT_SESSION = {"session.disable_quant_qdq": "1"}  # the session options the page gives the light set (see above)


def lighten(folder: Path, manifest: Manifest, *, file_bytes: int | None = None) -> LightSet:
    """Writes the light set of the export in `folder` (its manifest `manifest`) beside it: LIGHT_GRAPH and
    LIGHT_WEIGHTS files (an earlier light set's weights' files removed first). Returns its entry, error None."""
    import onnx

    from figsite.capture import live_files

    folder = Path(folder)
    proto = onnx.load(str(folder / manifest["graph"]))  # with its external data, from the exact files
    _quantised(proto.graph)
    for opset in proto.opset_import:
        if opset.domain in ("", "ai.onnx"):
            opset.version = LIGHT_OPSET
    for stale in folder.glob(LIGHT_WEIGHTS.format("*")):
        stale.unlink()
    names = live_files.write_external(proto.graph, folder, file_bytes or live_files.FILE_BYTES, LIGHT_WEIGHTS)
    (folder / LIGHT_GRAPH).write_bytes(proto.SerializeToString(deterministic=True))
    onnx.checker.check_model(str(folder / LIGHT_GRAPH))
    files = [live_files.described_file(folder, name) for name in [LIGHT_GRAPH, *names]]
    return {"graph": LIGHT_GRAPH, "files": files, "options": LIGHT_SESSION, "bits": BITS, "block": BLOCK, "error": None}


def _quantised(graph: onnx.GraphProto) -> None:
    """Each float32 weight matrix of `graph` (1 KiB or more) replaced by its INT4 blocks, its scales and a
    DequantizeLinear that gives it back under its name, placed just before the first node that reads it."""
    from onnx import TensorProto, helper, numpy_helper

    first_reader: dict[str, int] = {}
    for index, node in enumerate(graph.node):
        for name in node.input:
            first_reader.setdefault(name, index)
    kept, made = [], []
    for tensor in graph.initializer:
        if tensor.data_type != TensorProto.FLOAT or len(tensor.dims) != 2 or tensor.dims[0] * tensor.dims[1] < 256:
            kept.append(tensor)
            continue
        packed, scales = quantise(numpy_helper.to_array(tensor))
        rows, columns = tensor.dims
        blocks = helper.make_tensor(f"{tensor.name}.q4", TensorProto.INT4, [rows, columns], packed, raw=True)
        scale = numpy_helper.from_array(scales, f"{tensor.name}.scale")
        kept += [blocks, scale]
        node = helper.make_node(
            "DequantizeLinear",
            [blocks.name, scale.name],
            [tensor.name],
            name=f"light_{tensor.name}",
            axis=1,
            block_size=BLOCK,
        )
        made.append((first_reader.get(tensor.name, 0), node))
    del graph.initializer[:]
    graph.initializer.extend(kept)
    for index, node in sorted(made, key=lambda item: -item[0]):  # from the last: each index still the reader's
        graph.node.insert(index, node)


def quantise(weight: NDArray[numpy.float32]) -> tuple[bytes, NDArray[numpy.float32]]:
    """A (rows, columns) float32 matrix as INT4 (two to a byte, the first in the low half, row after row) and its
    scales (rows, ceil(columns / BLOCK)): each block of BLOCK along a row scaled by its largest magnitude / 7."""
    import numpy

    rows, columns = weight.shape
    count = math.ceil(columns / BLOCK)
    padded = numpy.zeros((rows, count * BLOCK), dtype=numpy.float32)
    padded[:, :columns] = weight
    blocks = padded.reshape(rows, count, BLOCK)
    scales = numpy.abs(blocks).max(axis=-1) / 7.0  # (rows, count)
    scales[scales == 0] = 1.0  # a block of zeros: any scale gives zeros back
    values = numpy.clip(numpy.rint(blocks / scales[..., None]), -8, 7).astype(numpy.int8)
    nibbles = values.reshape(rows, count * BLOCK)[:, :columns].reshape(-1).astype(numpy.uint8) & 0x0F
    if nibbles.size % 2:
        nibbles = numpy.append(nibbles, numpy.uint8(0))
    return (nibbles[0::2] | (nibbles[1::2] << 4)).astype(numpy.uint8).tobytes(), scales.astype(numpy.float32)


def session(folder: Path, graph: str = LIGHT_GRAPH, threads: int = 0) -> onnxruntime.InferenceSession:
    """An onnxruntime session (CPU) of the light set in `folder`, with the options the page gives it."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    for key, value in LIGHT_SESSION.items():
        options.add_session_config_entry(key, value)
    return onnxruntime.InferenceSession(str(Path(folder) / graph), options, providers=["CPUExecutionProvider"])


def measured(folder: Path, manifest: Manifest, texts: Sequence[str]) -> LightError:
    """`measure` on `texts`, cut into tokens by the export's own tokenizer (TOKENIZER_FILE beside it, the start
    token first where it has one), as the page cuts them: no model is loaded."""
    from figsite.model.tokens import Tokenizer, token_ids

    class _Reads:  # what token_ids reads of a loaded model: its tokenizer
        tokenizer = Tokenizer.from_directory(folder)

    light = manifest["light"]
    if light is None:
        raise ValueError(f"{folder}: the export has no light weights to measure")
    return measure(folder, manifest, light, [token_ids(_Reads(), text) for text in texts])


def measure(folder: Path, manifest: Manifest, light: LightSet, texts: Sequence[Sequence[int]]) -> LightError:
    """The light set's largest differences from the exact set over `texts` (token ids as the page gives them, the
    start token first where the model has one; each cut to the export's max_tokens), in percentage points."""
    import numpy

    from figsite.capture import live_run

    exact_session, light_session = live_run.session(folder), session(folder, light["graph"])
    shares = chances = 0.0
    measured = [list(ids)[: manifest["max_tokens"]] for ids in texts if ids]
    for ids in measured:
        exact = live_run.run(exact_session, ids, ids[:3])
        lighter = live_run.run(light_session, ids, ids[:3])
        shares = max(shares, float(numpy.abs(exact["shares"] - lighter["shares"]).max()) * 100)
        for name in ("top_probs", "follow_probs"):  # the top chances, and those of the text's first tokens
            chances = max(chances, float(numpy.abs(exact[name] - lighter[name]).max()) * 100)
    return {"texts": len(measured), "shares": shares, "chances": chances}
