"""The code the notebooks of the figures that read every head's attention, or one head's query and keys, run to
recompute their numbers (figures.notebook: recompute(model, ids, tables) -> [(table, row, column, value)]): heads
(every head's pattern, in blocks of tokens for a longer text), find-head (every head ranked by one share) and scores
(one share worked out from its query and keys). Transformers and torch only, no import of this project.

The pages number tokens as readers do, from 1, a model's start token (a Llama's <s>) 0: the code turns a row's
token number back into a position from 0 with START (1 where a start token leads the text, else 0).
"""

from __future__ import annotations

# Every cell of every head's square, and of each layer's average, from the model's own attention patterns.
HEADS = """\
def recompute(model, ids, tables):
    \"\"\"Each share of the page's table `shares`: in layer `layer`, head `head` (from 1; "avg": the mean of the
    layer's heads), the share the token `from_token` gives the token `to_token`. A text of more than 24 tokens is
    shown in blocks of BLOCK tokens (BLOCK 1: single tokens): a row names each block by its first token, and its
    share is what the looking block's tokens give the other block's tokens, on average over the tokens that look.\"\"\"
    with torch.no_grad():
        out = model(torch.tensor([ids]), output_attentions=True)
    shares = torch.stack(out.attentions)[:, 0].double()  # (layers, heads, query, key)
    average = shares.mean(dim=1)  # (layers, query, key)
    found = []
    for i, row in enumerate(tables["shares"]):
        q, k = row["from_token"] - 1 + START, row["to_token"] - 1 + START  # each block's first token, from 0
        layer = row["layer"] - 1
        square = shares[layer, row["head"] - 1] if isinstance(row["head"], int) else average[layer]  # (query, key)
        # summed over the block's keys, averaged over its queries (a text's last block may be shorter)
        value = square[q : q + BLOCK, k : k + BLOCK].sum(dim=1).mean()
        found.append(("shares", i, "share", float(value)))
    return found
"""

# Every head's share for each pair of tokens, and its rank among all heads.
FIND_HEAD = """\
def recompute(model, ids, tables):
    \"\"\"Each row of the page's table `shares`: the share the token `from_token` gives the token `to_token` in layer
    `layer`, head `head` (from 1), and that head's rank for the pair: 1 + the number of heads that give it more, or
    as much in an earlier layer or head (the shares taken as the page writes them, to 6 decimals, so that two heads
    the page shows as equal are ranked as it ranks them).\"\"\"
    with torch.no_grad():
        out = model(torch.tensor([ids]), output_attentions=True)
    shares = torch.stack(out.attentions)[:, 0].double()  # (layers, heads, query, key)
    n_head = shares.shape[1]
    ranks = {}  # (query, key) -> the rank of every head, layer after layer
    found = []
    for i, row in enumerate(tables["shares"]):
        q, k = row["from_token"] - 1 + START, row["to_token"] - 1 + START  # positions from 0
        if (q, k) not in ranks:
            written = [round(s, 6) for s in shares[:, :, q, k].flatten().tolist()]  # every head, layer after layer
            order = sorted(range(len(written)), key=lambda h: (-written[h], h))
            ranks[q, k] = {h: place + 1 for place, h in enumerate(order)}
        layer, head = row["layer"] - 1, row["head"] - 1
        found.append(("shares", i, "share", float(shares[layer, head, q, k])))
        found.append(("shares", i, "rank", ranks[q, k][layer * n_head + head]))
    return found
"""

# One head's query and keys as its attention receives them (after a Llama's rotation of positions), caught by an
# attention function of our own that hands them on to the family's own eager attention.
SCORES = """\
import sys

from transformers import AttentionInterface, AttentionMaskInterface
from transformers.masking_utils import eager_mask


def query_and_keys(model, ids):
    \"\"\"Runs the model once, keeping what layer LAYER's attention receives: every head's queries and keys, after
    any rotation of positions (a Llama's, GPT-NeoX's), (heads, position, width) and (key heads, position, width);
    the number each fit is multiplied by (1 / the square root of the width, or the model's own); and its mask.\"\"\"
    seen = {}

    def recording(module, query, key, value, attention_mask, scaling, **kwargs):
        if module.layer_idx == LAYER:
            seen.update(query=query[0], key=key[0], scaling=scaling, mask=attention_mask)
        # the family's own eager attention, written beside its attention module: the shares as the build has them
        eager = sys.modules[type(module).__module__].eager_attention_forward
        return eager(module, query, key, value, attention_mask, scaling=scaling, **kwargs)

    AttentionInterface.register("recording", recording)
    AttentionMaskInterface.register("recording", eager_mask)  # the mask the eager attention reads
    model.set_attn_implementation("recording")
    try:
        with torch.no_grad():
            out = model(torch.tensor([ids]), output_attentions=True)
    finally:
        model.set_attn_implementation("eager")
    return seen, out.attentions[LAYER][0, HEAD, QUERY]  # and the model's own shares, (key,)


def recompute(model, ids, tables):
    \"\"\"In layer LAYER, head HEAD (from 0), the token at QUERY (from 0) asks: table `vectors`, its query (value
    number `number`, from 1) and the key of each token up to it; table `shares`, for each token: its fit (the query
    times the key, number by number, added up), the fit scaled as the model scales it, its share (the softmax of
    the scaled fits), the running total of the shares, and the share the model itself gives (model_share).\"\"\"
    seen, model_shares = query_and_keys(model, ids)
    q = seen["query"][HEAD, QUERY].double()  # (width,)
    heads_per_key = seen["query"].shape[0] // seen["key"].shape[0]  # query heads may share a key head
    k = seen["key"][HEAD // heads_per_key, : QUERY + 1].double()  # (key, width)
    fits = k @ q  # (key,)
    scaled = fits * seen["scaling"]
    if seen["mask"] is not None:  # a key the model hides (too far back for a sliding window) gets no share
        hidden = seen["mask"][0, 0, QUERY, : QUERY + 1] < torch.finfo(torch.float32).min / 2
        scaled = scaled.masked_fill(hidden, -math.inf)
    shares = torch.softmax(scaled, dim=0)
    running = shares.cumsum(dim=0)
    found = []
    for i, row in enumerate(tables["shares"]):
        j = row["token"] - 1 + START  # the key's position, from 0
        for column, values in (("fit", fits), ("share", shares), ("running_total", running),
                               ("model_share", model_shares)):
            found.append(("shares", i, column, float(values[j])))
        if row["scaled"] is not None:  # the page writes no scaled fit for a hidden key
            found.append(("shares", i, "scaled", float(scaled[j])))
    for i, row in enumerate(tables["vectors"]):
        vector = q if row["vector"] == "query" else k[row["token"] - 1 + START]
        found.append(("vectors", i, "value", float(vector[row["number"] - 1])))
    return found
"""
