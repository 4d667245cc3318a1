"""The code the notebooks of the figures that read every head's attention, or one head's query and keys, run to
recompute their numbers (figures.notebook: recompute(model, ids, tables) -> [(table, row, column, value)]): heads
(every head's pattern, in blocks of tokens for a longer text), find-head (every head ranked by one share) and scores
(one share worked out from its query and keys). Transformers and torch only, no import of this project. Heads and
find-head take the shares as the page's data keep them (figures.recompute_stored: a long text's, from 0.5%, to 0.0001).

The pages number tokens as readers do, from 1, a model's start token (a Llama's <s>) 0: the code turns a row's
token number back into a position from 0 with START (1 where a start token leads the text, else 0).
"""

from __future__ import annotations

from figures.recompute_stored import STORED

# Every cell of every head's square, and of each layer's average, from the model's own attention patterns, each
# share kept as the page keeps it.
HEADS = (
    STORED
    + """\
def recompute(model, ids, tables):
    \"\"\"Each share of the page's table `shares`: in layer `layer`, head `head` (from 1; "avg": the mean of the
    layer's heads), the share the token `from_token` gives the token `to_token`. A text of more than 24 tokens is
    shown in blocks of BLOCK tokens (BLOCK 1: single tokens): a row names each block by its first token, and its
    share is what the looking block's tokens give the other block's tokens, on average over the tokens that look.
    The shares are summed as the page keeps them (stored), from the lowest each may be to the highest.\"\"\"
    with torch.no_grad():
        out = model(torch.tensor([ids]), output_attentions=True)
    shares = torch.stack(out.attentions)[:, 0].double()  # (layers, heads, query, key)
    bounds = [(kept, kept.mean(dim=1)) for kept in stored(shares)]  # lowest, highest: each head's, each layer's mean
    found = []
    for i, row in enumerate(tables["shares"]):
        q, k = row["from_token"] - 1 + START, row["to_token"] - 1 + START  # each block's first token, from 0
        layer = row["layer"] - 1
        cells = []
        for heads, average in bounds:
            square = heads[layer, row["head"] - 1] if isinstance(row["head"], int) else average[layer]  # (query, key)
            # summed over the block's keys, averaged over its queries (a text's last block may be shorter)
            cells.append(square[q : q + BLOCK, k : k + BLOCK].sum(dim=1).mean())
        found.append(("shares", i, "share", within(row["share"], *cells)))
    return found
"""
)

# Every head's share for each pair of tokens, and its rank among all heads, each share kept as the page keeps it.
FIND_HEAD = (
    STORED
    + """\
def ranks(low, high):
    \"\"\"Each head's rank (1: the largest share; a tie goes to the earlier layer and head), as the fewest and the most
    places it may take when each head's share is anything from its lowest (low) to its highest (high).\"\"\"
    earlier = torch.ones(len(low), len(low), dtype=torch.bool).tril(-1)  # [h, j]: head j comes before head h
    surely = (low[None] > high[:, None]) | (earlier & (low[None] >= high[:, None]))  # j before h, however kept
    maybe = (high[None] > low[:, None]) | (earlier & (high[None] >= low[:, None]))  # j before h, kept some way
    return 1 + surely.sum(dim=1), 1 + maybe.fill_diagonal_(False).sum(dim=1)


def recompute(model, ids, tables):
    \"\"\"Each row of the page's table `shares`: the share the token `from_token` gives the token `to_token` in layer
    `layer`, head `head` (from 1), and that head's rank for the pair: 1 + the number of heads that give it more, or
    as much in an earlier layer or head. The shares are taken as the page keeps them (stored), so that two heads
    the page holds as equal are ranked as it ranks them (a long text's page lists only the shares it keeps); two
    heads closer than the tolerance may be ranked either way.\"\"\"
    with torch.no_grad():
        out = model(torch.tensor([ids]), output_attentions=True)
    shares = torch.stack(out.attentions)[:, 0].double()  # (layers, heads, query, key)
    low, high = stored(shares)  # each share as the page may keep it
    # for the ranks: two heads whose shares lie closer than the tolerance may stand in either order on the page
    tie_low, tie_high = stored(shares, max(SLACK, TOLERANCE))
    n_head = low.shape[1]
    places = {}  # (query, key) -> the fewest and the most places of every head, layer after layer
    found = []
    for i, row in enumerate(tables["shares"]):
        q, k = row["from_token"] - 1 + START, row["to_token"] - 1 + START  # positions from 0
        if (q, k) not in places:
            places[q, k] = ranks(tie_low[:, :, q, k].flatten(), tie_high[:, :, q, k].flatten())
        layer, head = row["layer"] - 1, row["head"] - 1
        fewest, most = (bound[layer * n_head + head] for bound in places[q, k])
        found.append(("shares", i, "share", within(row["share"], low[layer, head, q, k], high[layer, head, q, k])))
        found.append(("shares", i, "rank", within(row["rank"], fewest, most)))
    return found
"""
)

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
