"""The code each figure's notebook runs to recompute its numbers (figures.notebook: recompute(model, ids, tables)
-> [(table, row, column, value)]), by kind, as the notebook's cell shows it: transformers and torch only, no import
of this project."""

from __future__ import annotations

from figures.recompute_stored import STORED

# every share the page lists, from the model's own attention patterns, kept as the page keeps them.
ATTENTION = (
    STORED
    + """\
def recompute(model, ids, tables):
    \"\"\"Each share of the page's table `shares`: view 'L-H' (layer L, head H, from 1) or 'all' (the mean over every
    head of every layer), the query q and the key k (from 0), from the attention patterns the model gives out, each
    kept as the page keeps it (stored; a long text's page lists only the shares it keeps).\"\"\"
    with torch.no_grad():
        out = model(torch.tensor([ids]), output_attentions=True)
    shares = torch.stack(out.attentions)[:, 0].double()  # (layers, heads, query, key)
    views = {"all": stored(shares.mean(dim=(0, 1)))}  # the lowest and highest of each (query, key), by view
    found = []
    for i, row in enumerate(tables["shares"]):
        if row["v"] not in views:
            layer, head = (int(n) for n in row["v"].split("-"))
            views[row["v"]] = stored(shares[layer - 1, head - 1])
        low, high = views[row["v"]]
        found.append(("shares", i, "s", within(row["s"], low[row["q"], row["k"]], high[row["q"], row["k"]])))
    return found
"""
)

# What the read-outs share: the model's last norm, found by its name in the three families.
FINAL_NORM = """\
def final_norm(model):
    \"\"\"The model's last norm, which the read-out puts every stage through (GPT-2's ln_f; a Llama's norm...).\"\"\"
    return next(getattr(model.base_model, name) for name in ("ln_f", "norm", "final_layer_norm")
                if hasattr(model.base_model, name))


"""

# the read-out of every stage, from the model's own residual stream.
READOUT = (
    FINAL_NORM
    + """\
def recompute(model, ids, tables):
    \"\"\"The target's chance after each stage at the read position (table `line`), and the top tokens' and the
    target's (table `top`): the stream of each stage put through the last norm and the unembedding (the last
    stage comes out of the model through the norm already).\"\"\"
    with torch.no_grad():
        out = model(torch.tensor([ids]), output_hidden_states=True)
        streams = [hidden[0, POSITION] for hidden in out.hidden_states]  # stage 0: before any layer
        streams = [final_norm(model)(s) for s in streams[:-1]] + streams[-1:]
        chances = [torch.softmax(model.get_output_embeddings()(s).double(), dim=-1) for s in streams]
    found = [("line", i, "p", float(chances[row["after_layer"]][TARGET_ID])) for i, row in enumerate(tables["line"])]
    for i, row in enumerate(tables["top"]):
        p = chances[row["after_layer"]]
        value = p[TARGET_ID] if row["target"] else p.sort(descending=True).values[row["rank"] - 1]
        found.append(("top", i, "p", float(value)))
    return found
"""
)

# The lens: every stage's read-out at every position, from the model's own residual stream.
LENS = (
    FINAL_NORM
    + """\
def recompute(model, ids, tables):
    \"\"\"At every stage and position: the likeliest token's chance (table `cells`), the top 10's (`tops`) and each
    followed token's (`follow`, by its id t): each stage's stream through the last norm and the unembedding (the
    last stage comes out of the model through the norm already).\"\"\"
    with torch.no_grad():
        out = model(torch.tensor([ids]), output_hidden_states=True)
        streams = [hidden[0] for hidden in out.hidden_states]  # (position, d_model) each; stage 0: before any layer
        streams = [final_norm(model)(s) for s in streams[:-1]] + streams[-1:]
        chances = [torch.softmax(model.get_output_embeddings()(s).double(), dim=-1) for s in streams]
    top = [p.topk(10, dim=-1).values for p in chances]  # (position, 10) each
    found = [("cells", i, "p", float(top[r["after_layer"]][r["q"], 0])) for i, r in enumerate(tables["cells"])]
    found += [("tops", i, "p", float(top[r["after_layer"]][r["q"], r["rank"] - 1])) for i, r in enumerate(tables["tops"])]
    found += [("follow", i, "p", float(chances[r["after_layer"]][r["q"], r["t"]])) for i, r in enumerate(tables["follow"])]
    return found
"""
)
