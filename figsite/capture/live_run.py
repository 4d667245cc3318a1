"""The live page's export (figsite.capture.live_export) run with onnxruntime on the CPU, as a page runs it: its
inputs and outputs by name (and their shapes, as the manifest lists them), a session of it, and one run. No torch
here: the light weights' measure (figsite.capture.live_light) and the tests run the export through it.

    described_values(config) -> [{"name", "dtype", "shape"}]    INPUTS then OUTPUTS, for a model of that shape
    session(folder) -> onnxruntime.InferenceSession
    run(folder_or_session, ids, follow, kept=None, stages=None, patched=None) -> {output name: array}
        kept: the whole model by default; stages: the stages read out, every one by default; patched: the
        activations put back (Patched), none by default
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from figsite.capture.live_files import GRAPH_FILE
from figsite.capture.live_records import DescribedValue
from figsite.data.format import TOP_K

if TYPE_CHECKING:
    import numpy
    import onnxruntime
    from numpy.typing import ArrayLike, NDArray

    from figsite.model.interface import ModelConfig

INPUTS = (
    "input_ids",
    "follow",
    "keep_attention",
    "keep_feed_forward",
    "keep_heads",
    "read_stages",
    "patch_residual",
    "patch_residual_at",
    "patch_attention",
    "patch_attention_at",
    "patch_feed_forward",
    "patch_feed_forward_at",
    "patch_heads",
    "patch_heads_at",
)
OUTPUTS = (
    "shares",
    "top_ids",
    "top_probs",
    "follow_probs",
    "follow_ranks",
    "residuals",
    "follow_scores",
    "attention_outputs",
    "feed_forward_outputs",
    "mixed_values",
)


def described_values(config: ModelConfig) -> list[DescribedValue]:
    """The graph's inputs and outputs for a model of `config`'s shape, [{"name", "dtype", "shape"}], INPUTS then
    OUTPUTS, as the manifest lists them: a shape's "T", "K" and "R" vary by run (figsite.capture.live_export's
    docstring says what each holds)."""
    layers, stages, heads, width = config.n_layer, config.n_layer + 1, config.n_head, config.n_embd
    mixed: list[int | str] = [layers, "T", heads, config.d_head]  # hook_z's: the query heads, each d_head wide
    shapes: dict[str, tuple[str, list[int | str]]] = {
        "input_ids": ("int64", [1, "T"]),
        "follow": ("int64", ["K"]),
        "keep_attention": ("float32", [layers]),
        "keep_feed_forward": ("float32", [layers]),
        "keep_heads": ("float32", [layers, heads]),
        "read_stages": ("int64", ["R"]),
        "patch_residual": ("float32", [stages, "T", width]),
        "patch_residual_at": ("float32", [stages, "T"]),
        "patch_attention": ("float32", [layers, "T", width]),
        "patch_attention_at": ("float32", [layers, "T"]),
        "patch_feed_forward": ("float32", [layers, "T", width]),
        "patch_feed_forward_at": ("float32", [layers, "T"]),
        "patch_heads": ("float32", mixed),
        "patch_heads_at": ("float32", [layers, heads]),
        "shares": ("float32", [layers, heads, "T", "T"]),
        "top_ids": ("int64", ["R", "T", TOP_K]),
        "top_probs": ("float32", ["R", "T", TOP_K]),
        "follow_probs": ("float32", ["R", "T", "K"]),
        "follow_ranks": ("int64", ["R", "T", "K"]),
        "residuals": ("float32", [stages, "T", width]),
        "follow_scores": ("float32", ["R", "T", "K"]),
        "attention_outputs": ("float32", [layers, "T", width]),
        "feed_forward_outputs": ("float32", [layers, "T", width]),
        "mixed_values": ("float32", mixed),
    }
    return [{"name": name, "dtype": shapes[name][0], "shape": shapes[name][1]} for name in INPUTS + OUTPUTS]


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


@dataclass(frozen=True)
class Patched:
    """What a run puts back in place of its own activations (figsite.capture.live_export's `patch_` inputs, in
    their order): each value where its mask (`_at`) is nonzero; numpy arrays or nested sequences, T the text's
    tokens, S = n_layer + 1. Nothing put back: Patched.none(n_layer, n_head, d_model, d_head, T)."""

    residual: ArrayLike  # (S, T, d_model): the stream entering layer s (s < n_layer), after the last (n_layer)
    residual_at: ArrayLike  # (S, T)
    attention: ArrayLike  # (n_layer, T, d_model): each layer's attention output
    attention_at: ArrayLike  # (n_layer, T)
    feed_forward: ArrayLike  # (n_layer, T, d_model): each layer's feed-forward output
    feed_forward_at: ArrayLike  # (n_layer, T)
    heads: ArrayLike  # (n_layer, T, n_head, d_head): each query head's mixed values
    heads_at: ArrayLike  # (n_layer, n_head): a head's at every position

    @classmethod
    def none(cls, n_layer: int, n_head: int, d_model: int, d_head: int, n: int) -> Patched:
        """Zeros of every shape, for a text of n tokens: the model's own run."""
        import numpy

        def zeros(*shape: int) -> NDArray[numpy.float32]:
            return numpy.zeros(shape, dtype=numpy.float32)

        layers, width = (n_layer, n), (n_layer, n, d_model)
        return cls(
            zeros(n_layer + 1, n, d_model),
            zeros(n_layer + 1, n),
            zeros(*width),
            zeros(*layers),
            zeros(*width),
            zeros(*layers),
            zeros(n_layer, n, n_head, d_head),
            zeros(n_layer, n_head),
        )

    def inputs(self) -> dict[str, NDArray[numpy.float32]]:
        """{input name: float32 array}, the graph's `patch_` inputs."""
        import numpy

        names = [name for name in INPUTS if name.startswith("patch_")]
        return {name: numpy.asarray(getattr(self, name.removeprefix("patch_")), dtype=numpy.float32) for name in names}


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
    patched: Patched | None = None,
) -> dict[str, NDArray[numpy.float32] | NDArray[numpy.int64]]:
    """The export's outputs for one text's token ids and the followed tokens, with the parts `kept` keeps (all, by
    default), the activations `patched` puts back (none, by default), reading out `stages` (all, by default):
    {name: numpy array}."""
    import numpy

    live = session(folder_or_session) if isinstance(folder_or_session, Path) else folder_or_session
    shapes = {value.name: value.shape for value in live.get_inputs()}
    n_layer, n_head = shapes["keep_heads"]
    kept = kept or Kept.whole(n_layer, n_head)
    patched = patched or Patched.none(n_layer, n_head, shapes["patch_residual"][2], shapes["patch_heads"][3], len(ids))
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
            **patched.inputs(),
        },
    )
    return dict(zip(OUTPUTS, arrays))
