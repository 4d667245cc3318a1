"""The part "scores": [[text, layer, head, query], ...], how one head's share is worked out. Each entry of
data/parts.json's "scores" holds the query of one token in one head, the keys of every token up to it, and the
shares the model gave (what figures.scores multiplies, adds, scales and softmaxes again).

Read at blocks.L.attn.hook_q and hook_k, (batch, position, heads, d_head), and blocks.L.attn.hook_pattern,
(batch, heads, query, key). In the README's words: the query and key are the fit's two sides, the pattern the shares.
A family with rotary positions is read after the rotation (hook_rot_q, hook_rot_k: the query and key whose product
is the fit); one whose query heads share key heads gives query head h the key head h // (heads / key heads).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import torch

from figsite.capture.hooks import point, run_with_cache
from figsite.capture.parts import EntryPart
from figsite.data.part_records import ScoresAnswer
from figsite.data.format import numbers
from figsite.data.part_records import Ask, ScoresEntry
from figsite.model.interface import kv_heads
from figsite.model.load import Loaded
from figsite.model.tokens import token_ids

SCORE_TOLERANCE = 1e-4  # relative: float32's rounding of a score is far below; a layer's own scale far above


class Scores(EntryPart[ScoresEntry]):
    name = "scores"

    def compute(self, loaded: Loaded, ask: Ask) -> ScoresAnswer:
        text, layer, head, query = cast("tuple[str, int, int, int]", ask)  # as figures.scores asks it
        return scores(loaded, token_ids(loaded, text), layer, head, query)


@torch.no_grad()
def scores(loaded: Loaded, ids: Sequence[int], layer: int, head: int, query: int) -> ScoresAnswer:
    """One head's query at one token and the keys of every token up to it (0-based layer, head, query), and the
    shares the model gave. Where the model's own scores (blocks.L.attn.hook_attn_scores: the fits scaled and
    masked) are not q . k / sqrt(d_head), as a GPT-2 with scale_attn_by_inverse_layer_idx divides by the layer's
    number too and a sliding window hides the keys too far back, the entry holds them as "scores" (None: a key the
    model hides); else the page's q . k / sqrt(d_head) are the model's (to within float32's rounding), and the entry
    is as it always was."""
    config = loaded.model.config
    rotary = point(layer, "attn.hook_rot_q") in loaded.model.hook_points
    q_name, k_name = ("attn.hook_rot_q", "attn.hook_rot_k") if rotary else ("attn.hook_q", "attn.hook_k")
    names = (q_name, k_name, "attn.hook_pattern", "attn.hook_attn_scores")
    # The layers only: no score is read here, and the unembedding would cost more than all of them.
    cached = run_with_cache(loaded, ids, [point(layer, name) for name in names])
    kept = {name: cached[point(layer, name)] for name in names}
    key_head = head // (config.n_head // kv_heads(config))
    q = kept[q_name][query, head].double().cpu()  # (d_head,)
    k = kept[k_name][: query + 1, key_head].double().cpu()  # (key, d_head)
    shares = kept["attn.hook_pattern"][head, query, : query + 1].double().cpu()  # (key,)
    entry: ScoresAnswer = {
        "layer": layer,
        "head": head,
        "query": query,
        "q": numbers(q.tolist()),
        "k": [numbers(row) for row in k.tolist()],
        "shares": numbers(shares.tolist()),
    }
    own = model_scores(kept["attn.hook_attn_scores"][head, query, : query + 1], k @ q / len(q) ** 0.5)
    return entry if own is None else {**entry, "scores": own}


def model_scores(theirs: torch.Tensor, plain: torch.Tensor) -> list[float | None] | None:
    """The model's own scores of one query's keys (None for a key it hides), where they are not the plain
    q . k / sqrt(d_head) (`plain`, float64); None where they are (to within float32's rounding)."""
    theirs = theirs.double().cpu()
    hidden = theirs < torch.finfo(torch.float32).min / 2  # the mask's lowest number (or -inf)
    near = (theirs - plain).abs() <= SCORE_TOLERANCE * plain.abs().clamp(min=1.0)
    if not hidden.any() and bool(near.all()):
        return None
    return [None if gone else value for gone, value in zip(hidden.tolist(), numbers(theirs.tolist()))]


PART = Scores()
