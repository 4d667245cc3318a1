"""A model of any family exported to ONNX for a page that runs it in the reader's browser (onnxruntime-web) and
works out, for the reader's own text, the numbers the build works out for the chapter's: every head's shares and the
read-out of every stage (stage 0: after the embedding, stage s: after layer s; the final norm, the unembedding and a
softmax, as figsite.capture.readout reads it); and the model's own tokenizer.json beside it, which the page's
tokenizer reads (sitegen.site.live).

    export(loaded, folder, max_tokens=64) -> manifest    writes the graph, its weights and tokenizer.json into `folder`
    run(folder, ids, follow) -> {output name: array}     runs the export with onnxruntime (CPU), as a page would
                                                         (figsite.capture.live_run's, with session)

The graph is the build's own model traced by torch's exporter (torch.onnx.export, the torch.export-based one,
which needs `onnxscript`), run through the model interface only (figsite.model.interface: embed, run_layers,
final_norm, unembed, export_copy, checkpoint_names), whatever its family, and read at the same hook points as the
capture. Its inputs:

    input_ids          int64 (1, T), 1 <= T <= max_tokens  the text's tokens, the start token first where the model has one
    follow             int64 (K,), K >= 1                   tokens whose probability and rank are asked for
    keep_attention     float32 (n_layer,)                   each layer's attention output is multiplied by its value
    keep_feed_forward  float32 (n_layer,)                   each layer's feed-forward output, likewise
    keep_heads         float32 (n_layer, n_head)            each query head's mixed values (hook_z), likewise
    read_stages        int64 (R,), R >= 1                   the stages whose read-out is asked for (0..n_layer)
    patch_residual         float32 (S, T, d_model)              a stage's stream at a position, put back where
    patch_residual_at      float32 (S, T)                       the mask is nonzero (S = n_layer + 1; below)
    patch_attention        float32 (n_layer, T, d_model)        a layer's attention output at a position,
    patch_attention_at     float32 (n_layer, T)                 likewise
    patch_feed_forward     float32 (n_layer, T, d_model)        a layer's feed-forward output at a position,
    patch_feed_forward_at  float32 (n_layer, T)                 likewise
    patch_heads            float32 (n_layer, T, n_head, d_head)  a query head's mixed values at every position,
    patch_heads_at         float32 (n_layer, n_head)            likewise

The three `keep_` inputs are all 1 for the model as it is (x * 1 is x exactly in float32: the same numbers as a
graph without them); a 0 takes that part out at every position, as the build's knockouts do
(figsite.capture.parts.knockouts: blocks.L.hook_attn_out, blocks.L.hook_mlp_out, one head's slice of
blocks.L.attn.hook_z). The `patch_` inputs put another run's activations back at the hook points of the build's
activation patching (figsite.capture.parts.patchings), after the `keep_` scaling (figsite.capture.live_patch): a
stage's stream at a position (stage s < n_layer entering layer s, blocks.s.hook_resid_pre; stage n_layer after
the last layer), a layer's attention or feed-forward output at a position, a query head's mixed values at every
position. All-zero masks are the model as it is, bit for bit.

and its outputs (S = n_layer + 1 stages; R the stages read out, in the order `read_stages` gives them: a figure
that needs the last stage only, such as the knockout's runs, spares the unembedding of the others, most of a run's
work):

    shares        float32 (n_layer, n_head, T, T)   the attention pattern of each query head, 0 right of the diagonal
    top_ids       int64   (R, T, TOP_K)             the most likely tokens, highest first (equal scores: lower id first)
    top_probs     float32 (R, T, TOP_K)             their probabilities
    follow_probs  float32 (R, T, K)                 the probability of each `follow` token
    follow_ranks  int64   (R, T, K)                 its rank: 1 + how many scores of its position are higher
    residuals     float32 (S, T, d_model)           the residual stream entering each layer and after the last
                                                    (blocks.L.hook_resid_pre, blocks.<last>.hook_resid_post), as
                                                    patched: what two compared texts' distances are taken from
    follow_scores         float32 (R, T, K)                   the scores (logits) of the `follow` tokens
    attention_outputs     float32 (n_layer, T, d_model)       each layer's attention output (hook_attn_out)
    feed_forward_outputs  float32 (n_layer, T, d_model)       each layer's feed-forward output (hook_mlp_out)
    mixed_values          float32 (n_layer, T, n_head, d_head)  each query head's mixed values (attn.hook_z)

the residuals and the layers' outputs as the run goes on with them (kept, then patched): a clean run's, for the
`patch_` inputs of a corrupted text's run. No other scores of a stage and position (the vocabulary's) are an output. The softmax's total
is taken with the largest score subtracted first, one stage at a time, and the ranks are counted one stage and one
followed token at a time (two ONNX Scans, torch's prototype `scan`): besides the scores, (R, T, vocab), what is held
at once is one stage's (T, vocab), whatever K is.

The weights are ONNX external data, float32, in files each under `file_bytes` (100 MB): a tensor larger than
that (the token embedding, 154 MB in GPT-2 small) is stored as blocks of rows that the graph concatenates. A tied
unembedding is the token embedding, stored once. Where the family adds learned positions (GPT-2), only the first
max_tokens positions' embeddings are kept, so a longer text is an error in onnxruntime (a Gather out of bounds)
rather than a silent wrong answer; a rotary family has no table to cut, and the page refuses a longer text itself.
The same model gives byte-identical files: the exporter's source locations and stack traces are stripped.
"""

from __future__ import annotations

from figsite.model.interface import LanguageModel
from figsite.model.load import Loaded

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

import torch
from torch import nn

from figsite.capture import live_patch
from figsite.capture.live_records import Manifest
from figsite.capture.live_files import (
    ALIGN,
    FILE_BYTES,
    GRAPH_FILE,
    WEIGHTS_FILE,
    described_file,
    split_large,
    write_external,
)
from figsite.capture.live_run import INPUTS, OUTPUTS, described_values
from figsite.capture.live_run import run, session  # noqa: F401 - read here too (live_export.run, live_export.session)
from figsite.data.format import TOP_K

FORMAT = "live-model/5"  # 5: the patch_ inputs, follow_scores and the layers' outputs (4: keep_, read_stages)
TOKENIZER_FILE = "tokenizer.json"  # the model's own tokenizer, as the `tokenizers` library saves it
OPSET = 20

if TYPE_CHECKING:
    import onnx


class LiveModel(nn.Module):
    """The build's model (any family, through the interface) with the read-out of every stage on top, its parts
    scaled by the `keep_` inputs and replaced where the `patch_` inputs say (figsite.capture.live_patch): INPUTS ->
    OUTPUTS, the module's docstring's shapes."""

    def __init__(self, model: LanguageModel) -> None:
        super().__init__()
        self.model = model

    def forward(
        self,
        input_ids: torch.Tensor,
        follow: torch.Tensor,
        keep_attention: torch.Tensor,
        keep_feed_forward: torch.Tensor,
        keep_heads: torch.Tensor,
        read_stages: torch.Tensor,
        patch_residual: torch.Tensor,
        patch_residual_at: torch.Tensor,
        patch_attention: torch.Tensor,
        patch_attention_at: torch.Tensor,
        patch_feed_forward: torch.Tensor,
        patch_feed_forward_at: torch.Tensor,
        patch_heads: torch.Tensor,
        patch_heads_at: torch.Tensor,
    ) -> tuple[torch.Tensor, ...]:
        model, n_layer = self.model, self.model.config.n_layer
        recorded = live_patch.Recorded()
        kept = live_patch.Keeps(keep_attention, keep_feed_forward, keep_heads)
        patches = live_patch.Patches(
            patch_residual,
            patch_residual_at,
            patch_attention,
            patch_attention_at,
            patch_feed_forward,
            patch_feed_forward_at,
            patch_heads,
            patch_heads_at,
        )
        with model.hooks(live_patch.hooks(n_layer, kept, patches, recorded)):
            model.run_layers(model.embed(input_ids), 0, n_layer)
        residuals = torch.stack(recorded.stages)  # (S, T, d_model)
        normed = model.final_norm(residuals.index_select(0, read_stages))  # (R, T, d_model)
        # Rows (S x T, d_model) through the unembedding: a 2-D product is one Gemm with the tied weight as it is
        # stored (transB), where a 3-D one would add a transposed copy of it.
        logits = model.unembed(normed.reshape(-1, normed.size(-1))).view(*normed.shape[:-1], -1)  # (R, T, vocab)
        top, total = _totals(logits)  # (R, T, 1) each
        top_scores, top_ids = logits.topk(TOP_K, dim=-1)  # (R, T, TOP_K)
        chosen = logits.index_select(-1, follow)  # (R, T, K)
        ranks = _ranks(logits, chosen)
        probs, follow_probs = torch.exp(top_scores - top) / total, torch.exp(chosen - top) / total
        layers = (torch.stack(recorded.attention), torch.stack(recorded.feed_forward), torch.stack(recorded.mixed))
        return (torch.cat(recorded.shares), top_ids, probs, follow_probs, ranks, residuals, chosen, *layers)


def _totals(logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Each position's largest score and the softmax's total with it taken out first, sum(exp(score - largest)),
    each (S, T, 1): a scan over the stages, so that the exponentials held at once are one stage's (T, vocab)."""
    from torch._higher_order_ops import scan  # torch's prototype API: exported as an ONNX Scan

    def step(carry: torch.Tensor, scores: torch.Tensor) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        top = scores.max(dim=-1, keepdim=True).values  # (T, 1)
        # Each term in (0, 1], summed in float64: onnxruntime-web's float32 sum of 50,257 terms drifts by up to
        # 2.4e-5 (relative), which every chance of the position would carry; in float64 the page is within 5e-7.
        terms = torch.exp(scores - top).to(torch.float64)
        return carry.clone(), (top, terms.sum(dim=-1, keepdim=True).to(torch.float32))

    scanned: tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]] = scan(step, torch.zeros(()), logits)
    _, (top, total) = scanned
    return top, total


def _ranks(logits: torch.Tensor, chosen: torch.Tensor) -> torch.Tensor:
    """1 + how many scores of its position are higher than each chosen one's, as figsite.capture.parts.lens
    counts it: logits (S, T, vocab), chosen (S, T, K) -> (S, T, K) int64. One (stage, token) per step of a scan."""
    from torch._higher_order_ops import scan  # torch's prototype API: exported as an ONNX Scan

    n_stage, n, k = chosen.shape
    each = chosen.permute(2, 0, 1).reshape(-1, n)  # (K x S, T): token by token, stage by stage
    stage = torch.arange(n_stage, device=chosen.device).repeat(k)  # (K x S,)

    def step(carry: torch.Tensor, row: tuple[torch.Tensor, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        scores, at = row  # (T,), ()
        higher = logits.index_select(0, at.view(1))[0] > scores[:, None]  # (T, vocab)
        # Counted as float32, exact to 2 ** 24 and twice as fast in onnxruntime as int32. The carry is unused (a
        # carry handed on as it is would alias).
        return carry.clone(), higher.to(torch.float32).sum(dim=-1)

    scanned: tuple[torch.Tensor, torch.Tensor] = scan(step, torch.zeros(()), (each, stage))
    _, counted = scanned  # (K x S, T)
    return counted.to(torch.int64).view(k, n_stage, n).permute(1, 2, 0) + 1


def export(
    loaded: Loaded,
    folder: Path,
    max_tokens: int = 64,
    *,
    file_bytes: int = FILE_BYTES,
    texts: Sequence[str] | None = None,
) -> Manifest:
    """Writes GRAPH_FILE, its weights' files and TOKENIZER_FILE (loaded.tokenizer's) into `folder` (made if missing;
    an earlier export's weights' files are removed, other files left alone) and returns the manifest: {"format",
    "model" (loaded.info), "n_layer", "n_head" (query heads), "vocab_size", "max_tokens", "top_k", "stages",
    "opset", "graph", "files": [{"name", "bytes", "sha256"}] (the graph first, then the weights' files in the order
    their tensors come: what the page fetches), "tokenizer": {"name", "bytes", "sha256"}, "start_id" (the token put
    in front of every text, or None), "inputs" and "outputs": [{"name", "dtype", "shape"}] (a shape's "T" and "K"
    vary by run), "light": the light set beside it (figsite.capture.live_light: its graph, files, bits, block, and
    its error measured on `texts`, each read as the page reads it; None without `texts`: live_light.measured)}. Nothing in it varies between two exports of the
    same model. ValueError: max_tokens outside 1..n_positions."""
    config = loaded.model.config
    if not 1 <= max_tokens <= config.n_positions:
        raise ValueError(f"max_tokens {max_tokens}; allowed: 1 to {config.n_positions}")
    # On the CPU, with only the first max_tokens positions (a longer text is then an error, not a wrong answer).
    model = loaded.model.export_copy(max_tokens)
    proto = _traced(model, max_tokens)
    names = {f"model.{name}": stored for name, stored in model.checkpoint_names().items()}
    _tidy(proto, names)
    weights = set(names.values())
    split_large(proto.graph, weights, file_bytes - ALIGN)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob(WEIGHTS_FILE.format("*")):  # an earlier export's, which may have had more files
        stale.unlink()
    data_files = write_external(proto.graph, folder, file_bytes)
    (folder / GRAPH_FILE).write_bytes(proto.SerializeToString(deterministic=True))
    import onnx

    onnx.checker.check_model(str(folder / GRAPH_FILE))
    (folder / TOKENIZER_FILE).write_text(loaded.tokenizer.backend.to_str(), encoding="utf-8")
    files = [described_file(folder, name) for name in [GRAPH_FILE, *data_files]]
    described = described_values(config)
    manifest: Manifest = {
        "format": FORMAT,
        "model": loaded.info,
        "n_layer": config.n_layer,
        "n_head": config.n_head,
        "vocab_size": config.vocab_size,
        "max_tokens": max_tokens,
        "top_k": TOP_K,
        "stages": config.n_layer + 1,
        "opset": OPSET,
        "graph": GRAPH_FILE,
        "files": files,
        "tokenizer": described_file(folder, TOKENIZER_FILE),
        "start_id": getattr(loaded.tokenizer, "start_id", None),
        "inputs": described[: len(INPUTS)],
        "outputs": described[len(INPUTS) :],
        "light": None,
    }
    return _with_light(folder, manifest, file_bytes, texts)


def _with_light(folder: Path, manifest: Manifest, file_bytes: int, texts: Sequence[str] | None) -> Manifest:
    """The manifest with the light weights written beside the export (figsite.capture.live_light), and their error
    measured on `texts` where given."""
    from figsite.capture import live_light

    light = manifest["light"] = live_light.lighten(folder, manifest, file_bytes=file_bytes)
    if texts is not None:
        light["error"] = live_light.measured(folder, manifest, texts)
    return manifest


def _traced(model: LanguageModel, max_tokens: int) -> onnx.ModelProto:
    """The ONNX ModelProto of LiveModel(model), T, K and R dynamic (T one dimension of every input that has it),
    weights inside (raw_data)."""
    import logging
    import warnings

    n, k = min(max_tokens, 5), 3  # the example the exporter traces: T 1 and K 1 would be taken as fixed
    config = model.config
    layers, width = config.n_layer, config.n_embd
    ids = torch.arange(n)[None] % config.vocab_size
    keep = (torch.ones(layers), torch.ones(layers), torch.ones(layers, config.n_head))
    read = torch.arange(min(2, layers + 1))  # R 1 would be taken as fixed
    patch = (  # nothing put back: the patch_ values and masks, zeros (each its own tensor: none aliases another)
        *(torch.zeros(layers + 1, n, width), torch.zeros(layers + 1, n)),
        *(torch.zeros(layers, n, width), torch.zeros(layers, n)),
        *(torch.zeros(layers, n, width), torch.zeros(layers, n)),
        *(torch.zeros(layers, n, config.n_head, config.d_head), torch.zeros(layers, config.n_head)),
    )
    positions = {1: torch.export.Dim("T", min=1, max=max_tokens)} if max_tokens > 1 else {}  # else T is 1
    dynamic = {
        "input_ids": positions,  # the same Dim at axis 1 of every input with a T: one T
        "follow": {0: torch.export.Dim("K", min=1)},
        **{name: {} for name in INPUTS[2:5]},  # the keep_ inputs: fixed shapes
        "read_stages": {0: torch.export.Dim("R", min=1, max=layers + 1)},
        **{name: positions for name in INPUTS[6:-1]},
        "patch_heads_at": {},
    }
    registration = logging.getLogger("torch.onnx._internal.exporter._registration")  # "torchvision is not installed"
    level = registration.level
    registration.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            program = torch.onnx.export(
                LiveModel(model).eval(),
                (ids, torch.arange(k), *keep, read, *patch),
                dynamo=True,
                verbose=False,
                opset_version=OPSET,
                input_names=list(INPUTS),
                output_names=list(OUTPUTS),
                dynamic_shapes=dynamic,
                optimize=True,
            )
    finally:
        registration.setLevel(level)
    # dynamo=True: the exporter returns its ONNXProgram (None only from the older, TorchScript-based one)
    return cast("torch.onnx.ONNXProgram", program).model_proto


def _graphs(graph: onnx.GraphProto) -> Iterator[onnx.GraphProto]:
    """The graph and every subgraph in it (a Scan's body), depth first."""
    yield graph
    for node in graph.node:
        for attribute in node.attribute:
            if attribute.HasField("g"):
                yield from _graphs(attribute.g)
            for sub in attribute.graphs:
                yield from _graphs(sub)


def _tidy(proto: onnx.ModelProto, renames: dict[str, str]) -> None:
    """Strips what would differ between two checkouts or machines (the exporter's stack traces, source lines,
    module paths) and renames the weights to the checkpoint's names (`renames`: LiveModel's parameter names ->
    the model's checkpoint_names, a tied weight's to the one stored), everywhere they are read, subgraphs too."""
    del proto.metadata_props[:]
    proto.doc_string = ""
    proto.producer_name, proto.producer_version = "figsite.capture.live_export", FORMAT
    for graph in _graphs(proto.graph):
        graph.doc_string = ""
        del graph.metadata_props[:]
        for value in [*graph.input, *graph.output, *graph.value_info]:
            value.doc_string = ""
            del value.metadata_props[:]
            value.name = renames.get(value.name, value.name)
        for tensor in graph.initializer:
            tensor.name = renames.get(tensor.name, tensor.name)
            tensor.doc_string = ""
            del tensor.metadata_props[:]
        for node in graph.node:
            node.doc_string = ""
            del node.metadata_props[:]
            node.input[:] = [renames.get(name, name) for name in node.input]
            node.output[:] = [renames.get(name, name) for name in node.output]


def main(argv: list[str] | None = None) -> None:
    """python -m figsite.capture.live_export FOLDER [MODEL [MAX_TOKENS]]: exports MODEL (default random, seed 0;
    or a hub id or save_pretrained directory, as --model takes) and prints its manifest, the time the export took
    and the process's peak memory."""
    import json
    import resource
    import sys
    import time

    from figsite.model.load import load

    folder, model, max_tokens = [*(argv if argv is not None else sys.argv[1:]), "random", "64"][:3]
    loaded = load(model, None, 0, "cpu")
    start = time.perf_counter()
    manifest = export(loaded, Path(folder), int(max_tokens))
    took = time.perf_counter() - start
    print(json.dumps(manifest, indent=1))
    print(
        f"export: {took:.1f} s; {sum(f['bytes'] for f in manifest['files']):,} bytes in {len(manifest['files'])} "
        f"files; peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MiB"
    )


if __name__ == "__main__":
    main()
