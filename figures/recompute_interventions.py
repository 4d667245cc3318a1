"""The code the notebooks of the kinds that change the model as it runs (knockout, patching) show and run to
recompute their numbers (figures.notebook: recompute(model, ids, tables) -> [(table, row, column, value)]):
transformers and plain torch forward hooks only, no import of this project. The hooks sit on the modules every
family has under a few names (LAYER_PARTS), so one code serves GPT-2, a Llama and GPT-NeoX."""

from __future__ import annotations

from figures.recompute import FINAL_NORM

# Each layer's modules, by the names the families give them, and one batch of runs with hooks on them.
LAYER_PARTS = (
    FINAL_NORM
    + """\
def layer_parts(model):
    \"\"\"Each layer's block, its attention's output projection (which reads the heads' mixed values side by side
    and gives out the attention's output) and its feed-forward step, by the names the families give them: GPT-2's
    h[i].attn.c_proj, a Llama's layers[i].self_attn.o_proj, GPT-NeoX's layers[i].attention.dense.\"\"\"
    base = model.base_model
    parts = []
    for block in base.h if hasattr(base, "h") else base.layers:
        attention = next(getattr(block, n) for n in ("attn", "self_attn", "attention") if hasattr(block, n))
        projection = next(getattr(attention, n) for n in ("c_proj", "o_proj", "dense") if hasattr(attention, n))
        parts.append({"block": block, "projection": projection, "mlp": block.mlp})
    return parts


def run_hooked(model, texts, hooks, position):
    \"\"\"The scores at `position` of every run, with `hooks` on the model while it reads `texts` (a batch of token
    ids, all as long): (module, "before" or "after", function), a forward pre-hook or a forward hook; a function
    that returns a tensor changes what the module reads or gives out. A hook may make several runs of one text (a
    batch that grows): the scores are read from what the last norm gives out, every run's, and the model goes on
    with as many runs as it was given texts. The hooks come off again.\"\"\"
    kept = []

    def read(module, inputs, output):  # output: (runs, tokens, d_model)
        kept.append(output[:, position])
        return output[:len(texts)]

    handles = [
        module.register_forward_pre_hook(function) if when == "before" else module.register_forward_hook(function)
        for module, when, function in hooks
    ] + [final_norm(model).register_forward_hook(read)]
    try:
        with torch.no_grad():
            model.base_model(torch.tensor(texts), use_cache=False)
            return model.get_output_embeddings()(kept[0])  # (runs, vocab)
    finally:
        for handle in handles:
            handle.remove()


"""
)

# The knockouts: each part taken out in a run of its own, all the runs side by side in one batch.
KNOCKOUT = (
    LAYER_PARTS
    + """\
def recompute(model, ids, tables):
    \"\"\"Each row of the page's table `knockouts` is a run of the model on the text: with nothing taken out, or
    without one layer's attention or feed-forward step (its output set to zero at every token), or without one head
    (its mixed values set to zero at every token, before the output projection). For each: the target's chance at
    the read position (column probability). The runs go through the model side by side, one row of a batch each;
    the hooks zero a part in its own run only. (The rank is not checked: deep in the list, other tokens score within
    float32's last digits of the target, and two runs of the same model may order them either way.)\"\"\"
    rows, heads = tables["knockouts"], model.config.num_attention_heads
    hooks = []
    for layer, part in enumerate(layer_parts(model), start=1):
        out = {kind: [i for i, r in enumerate(rows) if r["taken_out"] == kind and r["layer"] == layer]
               for kind in ("attention", "feed-forward", "head")}
        hooks += [
            (part["projection"], "after", zeroed(out["attention"])),
            (part["mlp"], "after", zeroed(out["feed-forward"])),
            (part["projection"], "before", heads_zeroed([(i, rows[i]["head"] - 1) for i in out["head"]], heads)),
        ]
    scores = run_hooked(model, [ids] * len(rows), hooks, POSITION)  # (runs, vocab)
    chance = torch.softmax(scores.double(), dim=-1)[:, TARGET_ID]
    return [("knockouts", i, "probability", float(chance[i])) for i in range(len(rows))]


def zeroed(runs):
    \"\"\"A forward hook that gives out the module's output, (runs, tokens, d_model), zero in these runs.\"\"\"
    def hook(module, inputs, output):
        output = output.clone()
        output[runs] = 0.0
        return output
    return hook


def heads_zeroed(taken, heads):
    \"\"\"A forward pre-hook on the output projection: it reads the heads' mixed values side by side, (runs,
    tokens, heads x d_head); each (run, head) of `taken` has its head's slice set to zero.\"\"\"
    def hook(module, inputs):
        mixed = inputs[0].clone()
        d_head = mixed.shape[-1] // heads
        for run, head in taken:
            mixed[run, :, head * d_head:(head + 1) * d_head] = 0.0
        return (mixed, *inputs[1:])
    return hook
"""
)

# Activation patching: the clean text's pieces put back into the corrupted text's run, in one batch that grows layer by
# layer.
PATCHING = (
    LAYER_PARTS
    + """\
def recompute(model, ids, tables):
    \"\"\"Each row of the page's table `runs` is a run of the model on the changed text (CORRUPTED_IDS) with one
    piece of the original text's run (`ids`) put back: "resid_pre", one token's numbers after `after_layer` layers;
    "attn_out" or "mlp_out", a layer's attention or feed-forward output at one token; "z", one head's mixed values
    at every token (before the output projection). For each, at the read position: score_difference, the score of
    the target less that of VERSUS_ID, and probability, the target's chance. (back, how far the difference went
    from the changed text's towards the original's, follows from the differences: it is not checked by itself, as
    where the two texts' differences are close, float32's last digits in them move it past the tolerance.)
    The tokens after the read one cannot change what it reads (a token never looks at later tokens): the runs read
    the tokens up to it only, and a piece put back after it leaves the changed text's own run, as does a piece both
    runs share. The others go through the model in one batch that starts as the changed text alone (row 0, its
    own run) and grows: where the stream enters a layer, the runs that put back a piece of it join as copies.\"\"\"
    n, parts, heads = POSITION + 1, layer_parts(model), model.config.num_attention_heads
    entries = [part["block"] for part in parts] + [final_norm(model)]  # where the stream enters each layer, the norm
    clean, corrupted = recorded(model, ids[:n], parts, entries), recorded(model, CORRUPTED_IDS[:n], parts, entries)
    runs, same = [], []  # runs: (layer, piece, index, the page's row), in the order they join the batch
    for i, row in enumerate(tables["runs"]):
        piece = row["piece"]
        layer = row["after_layer"] if piece == "resid_pre" else row["layer"] - 1
        index = row["head"] - 1 if piece == "z" else row["position"] - 1 + START  # START: the page counts after it
        if (piece != "z" and index >= n) or torch.equal(
            piece_of(clean, piece, layer, index, heads), piece_of(corrupted, piece, layer, index, heads)
        ):
            same.append(i)  # after the read token, or the same in both runs (the texts' shared start)
        else:
            runs.append((layer, piece, index, i))
    runs.sort(key=lambda run: run[0])
    hooks = []
    for layer in range(len(entries)):
        joining = [(1 + r, piece, index) for r, (at, piece, index, _) in enumerate(runs) if at == layer]
        hooks += patch_hooks(clean, parts, entries, layer, joining, heads)
    found = lead(run_hooked(model, [CORRUPTED_IDS[:n]], hooks, POSITION))  # (1 + runs) pairs: row 0 the changed text's
    by_row = {**{i: found[0] for i in same}, **{i: found[1 + r] for r, (_, _, _, i) in enumerate(runs)}}
    return [("runs", i, column, value) for i, pair in sorted(by_row.items())
            for column, value in zip(("score_difference", "probability"), pair)]


def piece_of(kept, piece, layer, index, heads):
    \"\"\"One piece of a recorded run: a token's numbers, or for "z" one head's mixed values at every token.\"\"\"
    values = kept[piece][layer]
    if piece != "z":
        return values[index]
    d_head = values.shape[-1] // heads
    return values[:, index * d_head:(index + 1) * d_head]


def lead(scores):
    \"\"\"Each run's (score of the target less that of VERSUS_ID, the target's chance), from its scores.\"\"\"
    chance = torch.softmax(scores.double(), dim=-1)[:, TARGET_ID]
    return list(zip((scores[:, TARGET_ID] - scores[:, VERSUS_ID]).tolist(), chance.tolist()))


def recorded(model, ids, parts, entries):
    \"\"\"A text's pieces, layer by layer: the stream entering each layer and the norm ("resid_pre"),
    each layer's heads' mixed values ("z", (tokens, heads x d_head)), attention and feed-forward outputs.\"\"\"
    kept = {"resid_pre": {}, "z": {}, "attn_out": {}, "mlp_out": {}}

    def keep(piece, layer):
        def hook(module, inputs, output=None):  # a pre-hook's value is what the module reads
            kept[piece][layer] = (inputs[0] if output is None else output)[0].clone()
        return hook

    hooks = [(entry, "before", keep("resid_pre", layer)) for layer, entry in enumerate(entries)]
    for layer, part in enumerate(parts):
        hooks += [
            (part["projection"], "before", keep("z", layer)),
            (part["projection"], "after", keep("attn_out", layer)),
            (part["mlp"], "after", keep("mlp_out", layer)),
        ]
    run_hooked(model, [ids], hooks, -1)
    return kept


def patch_hooks(clean, parts, entries, layer, joining, heads):
    \"\"\"The hooks of one layer: where the stream enters it, a copy of row 0 (the changed text's own run) for each
    run that joins, joining[j] = (its row, piece, index), the index a token (for "z", a head); and in each such row,
    the original's piece put back.\"\"\"
    def put_back(piece):
        chosen = [(row, index) for row, p, index in joining if p == piece]

        def hook(module, inputs, output=None):
            values = inputs[0] if output is None else output  # (rows, tokens, ...)
            if piece == "resid_pre":  # the runs that join: copies of row 0
                values = torch.cat([values, values[:1].expand(len(joining), -1, -1)])
            values = values.clone()
            for row, index in chosen:
                if piece == "z":  # one head's slice of the mixed values, at every token
                    d_head = values.shape[-1] // heads
                    values[row, :, index * d_head:(index + 1) * d_head] = piece_of(clean, piece, layer, index, heads)
                else:  # one token's numbers
                    values[row, index] = piece_of(clean, piece, layer, index, heads)
            return values if output is not None else (values, *inputs[1:])
        return hook

    hooks = [(entries[layer], "before", put_back("resid_pre"))]
    if layer < len(parts):
        part = parts[layer]
        hooks += [
            (part["projection"], "before", put_back("z")),
            (part["projection"], "after", put_back("attn_out")),
            (part["mlp"], "after", put_back("mlp_out")),
        ]
    return hooks
"""
)
