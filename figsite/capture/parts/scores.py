"""The part "scores": [[text, layer, head, query], ...], how one head's share is worked out. Each entry of
data/parts.json's "scores" holds the query of one token in one head, the keys of every token up to it, and the
shares the model gave (what figures.scores multiplies, adds, scales and softmaxes again).

Read at blocks.L.attn.hook_q and hook_k, (batch, position, heads, d_head), and blocks.L.attn.hook_pattern,
(batch, heads, query, key). In the README's words: the query and key are the fit's two sides, the pattern the shares.
A family with rotary positions is read after the rotation (hook_rot_q, hook_rot_k: the query and key whose product
is the fit); one whose query heads share key heads gives query head h the key head h // (heads / key heads).
"""

from __future__ import annotations

import torch

from figsite.capture.hooks import point, run_with_cache
from figsite.capture.parts import EntryPart
from figsite.data.format import numbers
from figsite.model.interface import kv_heads
from figsite.model.load import Loaded
from figsite.model.tokens import token_ids


class Scores(EntryPart):
    name = "scores"

    def compute(self, loaded: Loaded, ask: list) -> dict:
        text, layer, head, query = ask
        return scores(loaded, token_ids(loaded, text), layer, head, query)


@torch.no_grad()
def scores(loaded: Loaded, ids: list[int], layer: int, head: int, query: int) -> dict:
    """One head's query at one token and the keys of every token up to it (0-based layer, head, query), and the
    shares the model gave."""
    config = loaded.model.config
    rotary = point(layer, "attn.hook_rot_q") in loaded.model.hook_points
    q_name, k_name = ("attn.hook_rot_q", "attn.hook_rot_k") if rotary else ("attn.hook_q", "attn.hook_k")
    names = (q_name, k_name, "attn.hook_pattern")
    # The layers only: no score is read here, and the unembedding would cost more than all of them.
    cached = run_with_cache(loaded, ids, [point(layer, name) for name in names])
    kept = {name: cached[point(layer, name)] for name in names}
    key_head = head // (config.n_head // kv_heads(config))
    q = kept[q_name][query, head].double().cpu()  # (d_head,)
    k = kept[k_name][:query + 1, key_head].double().cpu()  # (key, d_head)
    shares = kept["attn.hook_pattern"][head, query, :query + 1].double().cpu()  # (key,)
    return {"layer": layer, "head": head, "query": query, "q": numbers(q.tolist()),
            "k": [numbers(row) for row in k.tolist()], "shares": numbers(shares.tolist())}


PART = Scores()
