"""The pass over one text: the model runs once, and hooks at its named hook points turn what it computes into
the text's data as it goes (figsite.data.format writes their form):

- each layer's attention, at `blocks.L.attn.hook_pattern` (heads, query, key): format 1's lists, or for a long
  text format 3's head files (and a running sum for the file of the average over all heads);
- the read-out of each stage of the residual stream, at `blocks.0.hook_resid_pre` (stage 0, after the
  embedding) and `blocks.L.hook_resid_post` (stage L + 1), by figsite.capture.readout.StageReader;
- the shape of the numbers after the embedding and after each layer, at the same hook points.

Only one layer's attention and one product's scores are held at a time, whatever the model and the text's length.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from figsite.model.load import Loaded

import numpy  # counts booleans along an axis ten times faster than torch; torch hands its tensors over without a copy
import torch

from figsite.capture.hooks import at_each_layer, point, run_with_hooks, together
from figsite.capture.readout import StageReader
from figsite.data.format import attention_lists, head_files, is_long, shapes_record, text_file, token
from figsite.data.paths import AVERAGE_FILE, head_file
from figsite.data.records import Shapes, TargetTrack, TextData
from figsite.data.run import MIN_SHARE, SHARE_UNIT
from figsite.model.interface import HookFunction
from figsite.model.tokens import one_token_id, token_ids, token_text


@dataclass
class TextCapture:
    """What one pass over one text gives."""

    data: TextData  # the data file's content
    shapes: Shapes  # the shapes measured on the way
    heads: dict[str, str]  # for a long text: its heads' files (file name -> the file's text)
    # each stage's residual stream (position, d_model), raw, where a part asked it kept
    stages: list[torch.Tensor] | None = None


@torch.no_grad()  # the read-outs too: nothing here is trained, and autograd would keep every stage's scores
def run_text(
    loaded: Loaded, text: str, target: str | None = None, positions: list[int] | None = None, keep_stages: bool = False
) -> TextCapture:
    """Runs the model once over `text` and turns what it computed into plain data, layer by layer.

    The read-out at stage s is the final layer norm and the unembedding applied to the residual stream
    after s layers (stage 0: after the embedding); the last stage's is the model's output. `target`: a token
    (by text) whose probability is read at every stage and position. `positions`: the positions a long text is
    read out at (None: all); a short text (data format 1) is read out at every position, as its format promises.
    `keep_stages`: keep each stage's residual stream for the parts that read it again (a lens, a comparison).
    """
    model = loaded.model
    ids = token_ids(loaded, text)
    n, n_layer, n_head = len(ids), model.config.n_layer, model.config.n_head
    long = is_long(n_layer, n_head, n)
    target_id = one_token_id(loaded, target)  # the token's own id: a start token is never a target
    read = sorted(set(positions)) if long and positions is not None else list(range(n))
    attention = AttentionSink(n_layer, n_head, long)
    reader = StageReader(model, n, read, target_id, keep=keep_stages)
    shapes: dict[str, list[int]] = {}
    hooks = together(_shape_hooks(n_layer, shapes), attention.hooks(), reader.hooks(n_layer))
    run_with_hooks(loaded, ids, hooks, layers_only=True)
    readout, target_p = reader.finish()
    heads = attention.finish() if long else {}
    # token() of no start token: {"id", "text"}, then "p"
    target_data = (
        cast(TargetTrack, {**token(target_id, token_text(loaded, target_id)), "p": target_p})
        if target_id is not None
        else None
    )
    start = getattr(loaded.tokenizer, "start_id", None)  # the model's start token: first, marked as the model's own
    records = [token(i, token_text(loaded, i), start=p == 0 and i == start) for p, i in enumerate(ids)]
    data = text_file(
        loaded.info,
        text,
        records,
        list(heads) if long else cast("list[list[list[list[float]]]]", attention.layers),  # all filled
        readout,
        target_data,
        long,
    )
    return TextCapture(data, shapes_record(n, shapes, model.config.vocab_size), heads, reader.kept)


def _shape_hooks(n_layer: int, shapes: dict[str, list[int]]) -> dict[str, HookFunction]:
    """Hooks that write down the shape of the numbers after the embedding and after each layer, batch dimension
    dropped, into `shapes` ("embedding", "layer 1", ...: the order the pass reaches them)."""

    def record(step: str) -> HookFunction:
        def hook(activation: torch.Tensor, _name: str) -> None:
            shapes[step] = list(activation.shape[1:])

        return hook

    return {
        point(0, "hook_resid_pre"): record("embedding"),
        **at_each_layer(n_layer, "hook_resid_post", lambda layer: record(f"layer {layer + 1}")),
    }


class AttentionSink:
    """Turns each layer's attention, (heads, query, key), into the data files' form as the pass computes it:
    for a short text the lists of format 1, for a long one the head files of format 3 (and a running sum for
    the file of the average over all heads)."""

    def __init__(self, n_layer: int, n_head: int, long: bool) -> None:
        self.n_layer, self.long, self.count = n_layer, long, n_layer * n_head
        # format 1: [layer][head][query] -> shares over keys 0..query, each layer's as the pass reaches it
        self.layers: list[list[list[list[float]]] | None] = [None] * n_layer
        self.files: dict[str, str] = {}  # format 3: file name -> the file's text
        self.total: torch.Tensor | None = None  # format 3: the sum of every head's shares so far, (query, key)

    def hooks(self) -> dict[str, HookFunction]:
        """Its hook at each layer's shares, blocks.L.attn.hook_pattern: (1, heads, query, key)."""
        return at_each_layer(
            self.n_layer, "attn.hook_pattern", lambda layer: lambda pattern, _name: self.add(layer, pattern[0])
        )

    def add(self, layer: int, shares: torch.Tensor) -> None:
        shares = shares.float().cpu()  # (heads, query, key)
        if not self.long:
            self.layers[layer] = attention_lists(shares.tolist())
            return
        self.files.update(_kept_shares(shares, [head_file(layer, h) for h in range(len(shares))], layer))
        self.total = shares.sum(dim=0) if self.total is None else self.total + shares.sum(dim=0)

    def finish(self) -> dict[str, str]:
        """Format 3's files: each head's, then the average's."""
        assert self.total is not None  # the pass added every layer's shares
        self.files.update(_kept_shares((self.total / self.count)[None], [AVERAGE_FILE], None))
        return self.files


def _kept_shares(stacked: torch.Tensor, names: list[str], layer: int | None) -> dict[str, str]:
    """Format 3's head files of the heads stacked (heads, query, key), named by `names` (of `layer`; None for the
    average's file): the shares of MIN_SHARE or more, as integers in units of SHARE_UNIT."""
    kept = stacked >= MIN_SHARE  # (heads, query, key); a masked key (right of the query) is 0
    keys = kept.nonzero()[:, 2].tolist()  # in (head, query, key) order
    units = torch.round(stacked[kept] / SHARE_UNIT).to(torch.int64).tolist()
    counts = numpy.asarray(kept).sum(axis=-1).tolist()  # (heads, query); numpy counts booleans ten times faster
    return head_files(names, layer, keys, units, counts)
