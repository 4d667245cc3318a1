"""The code the notebooks of the figures that read the residual stream itself run to recompute their numbers
(figures.notebook: recompute(model, ids, tables) -> [(table, row, column, value)]): compare (two texts' streams,
stage by stage) and ledger (the target's score split into what each part writes into the stream). Transformers
and torch only, with plain forward hooks on the model's own modules, found by the names the families give them
(GPT-2, Llama, GPT-NeoX); no import of this project.
"""

from __future__ import annotations

from figures.recompute import FINAL_NORM

# The model's layers, and a hook's output as a tensor, whichever family and transformers' version.
BLOCKS = """\
def blocks(model):
    \"\"\"The model's layers, in order (GPT-2's h; a Llama's or GPT-NeoX's layers).\"\"\"
    return next(getattr(model.base_model, name) for name in ("h", "layers") if hasattr(model.base_model, name))


def tensor_of(out):
    \"\"\"What a module hands on: some versions of transformers wrap a layer's output in a tuple.\"\"\"
    return out[0] if isinstance(out, tuple) else out


"""

# Two texts' residual streams at every stage, the last one taken before the model's last norm.
COMPARE = (
    BLOCKS
    + """\
def stages(model, ids):
    \"\"\"The residual stream before any layer and after each, (stages, position, d_model): the model's hidden
    states, but the last taken from the last layer itself (the model hands it out through its last norm).\"\"\"
    last = []
    hook = blocks(model)[-1].register_forward_hook(lambda module, args, out: last.append(tensor_of(out)))
    try:
        with torch.no_grad():
            out = model(torch.tensor([ids]), output_hidden_states=True)
    finally:
        hook.remove()
    return torch.stack([*out.hidden_states[:-1], last[0]])[:, 0]


def recompute(model, ids, tables):
    \"\"\"Table `cells`: at each stage (after_layer; 0: before any layer) and each position both texts have, how
    far apart the two texts' streams are (distance: the length of the difference of the two vectors). Up to the
    last token the texts share it is exactly 0: no token looks to the right, so the two streams there are the same
    (a run of another length may sum them in another order, a few 1e-8 apart: that is no difference).\"\"\"
    a, b = stages(model, ids), stages(model, IDS_B)  # (stages, position, d_model) each
    n = min(len(ids), len(IDS_B))
    shared = next((q for q in range(n) if ids[q] != IDS_B[q]), n)
    distance = torch.linalg.vector_norm((a[:, :n] - b[:, :n]).double(), dim=-1)  # (stages, position)
    distance[:, :shared] = 0.0
    return [("cells", i, "distance", float(distance[r["after_layer"], r["position"]]))
            for i, r in enumerate(tables["cells"])]
"""
)

# The direct-logit ledger: what every part of the stream adds to the target's and the versus token's scores.
LEDGER = (
    FINAL_NORM
    + BLOCKS
    + """\
ATTENTION_OUT = ("attn.c_proj", "self_attn.o_proj", "attention.dense")  # GPT-2's, a Llama's, GPT-NeoX's names
FEED_FORWARD_OUT = ("mlp.c_proj", "mlp.down_proj", "mlp.dense_4h_to_h")


def module_of(block, names):
    \"\"\"The layer's module by the first of these names it has.\"\"\"
    modules = dict(block.named_modules())
    return next(modules[name] for name in names if name in modules)


def rows_in_out(projection):
    \"\"\"A projection's weight as (inputs, outputs): GPT-2's Conv1D keeps it so, torch's Linear the other way round.\"\"\"
    return (projection.weight.T if isinstance(projection, torch.nn.Linear) else projection.weight).double()


def read_stream(model, ids, position):
    \"\"\"One run of the model, keeping at `position` (as float64) the embeddings, what each layer's attention and
    feed-forward step add to the stream (the output of their last projection) and what goes into that projection
    (the heads' mixed values side by side; the neurons' activations), and the stream after the last layer.\"\"\"
    parts = {"token embedding": model.get_input_embeddings()}
    if hasattr(model.base_model, "wpe"):  # a family that adds a position vector (GPT-2); a rotary one adds none
        parts["position embedding"] = model.base_model.wpe
    for layer, block in enumerate(blocks(model)):
        parts[("attention", layer)] = module_of(block, ATTENTION_OUT)
        parts[("feed-forward", layer)] = module_of(block, FEED_FORWARD_OUT)
    added, into = {}, {}  # name -> (d_model,): what it adds; (layer part) -> what its projection reads

    def keep(name):
        def hook(module, args, out):
            added[name] = tensor_of(out)[0, position].double()
            if isinstance(name, tuple):
                into[name] = args[0][0, position].double()
        return hook

    hooks = [module.register_forward_hook(keep(name)) for name, module in parts.items()]
    hooks.append(blocks(model)[-1].register_forward_hook(keep("last")))
    try:
        model(torch.tensor([ids]))
    finally:
        for hook in hooks:
            hook.remove()
    last = added.pop("last")
    return added, into, parts, last


@torch.no_grad()
def ledger(model, ids):
    \"\"\"What every part of the stream at POSITION adds to the scores of TARGET_ID and VERSUS_ID, (target, versus)
    each: the last norm divides the stream by its size sigma (after taking its mean away, for GPT-2's LayerNorm);
    held at the sigma the model worked out, the norm and the unembedding read each part p on its own:
    (p - mean(p)) / sigma . (gain * u) for a token's row u of the unembedding (RMSNorm: p / sigma . (gain * u)),
    and the norm's bias adds bias . u, whatever the text.\"\"\"
    added, into, parts, last = read_stream(model, ids, POSITION)
    norm = final_norm(model)
    centred = isinstance(norm, torch.nn.LayerNorm)  # GPT-2's and GPT-NeoX's take the mean away; RMSNorm does not
    eps = norm.eps if hasattr(norm, "eps") else norm.variance_epsilon
    sigma = torch.sqrt((last.var(unbiased=False) if centred else last.pow(2).mean()) + eps)
    unembedding = model.get_output_embeddings().weight[[TARGET_ID, VERSUS_ID]].double().T  # (d_model, 2)
    readers = norm.weight.double()[:, None] * unembedding  # (d_model, 2)

    def through(vectors):  # (..., d_model) -> what each adds to the two scores, (..., 2)
        return ((vectors - vectors.mean(dim=-1, keepdim=True)) if centred else vectors) @ readers / sigma

    def fixed(projection):  # a projection's bias, the same whatever the text (none: no row on the page)
        return None if projection.bias is None else through(projection.bias.double())

    heads, neurons, n_head = [], [], model.config.num_attention_heads
    for layer in range(len(blocks(model))):
        attention, feed_forward = parts[("attention", layer)], parts[("feed-forward", layer)]
        z, weight = into[("attention", layer)], rows_in_out(attention)  # (heads x d_head,), (heads x d_head, d_model)
        each = torch.einsum("hd,hdm->hm", z.view(n_head, -1), weight.view(n_head, -1, weight.shape[-1]))
        heads.append((through(each), fixed(attention)))  # (heads, 2): head h's mixed values times its rows
        activation = into[("feed-forward", layer)]  # (neurons,)
        neurons.append((activation[:, None] * through(rows_in_out(feed_forward)), fixed(feed_forward)))  # (neurons, 2)
    vectors = torch.stack([added[name] for name in parts])  # (parts, d_model), in the stream's order
    embeddings = len(parts) - 2 * len(heads)  # 2 where the family adds a position vector, else 1
    stream = torch.cumsum(vectors, dim=0)[embeddings - 1:]  # (stages, d_model): after the embeddings, each half-layer
    bias = getattr(norm, "bias", None)
    return {
        "parts": through(vectors),  # (parts, 2)
        "norm bias": None if bias is None else bias.double() @ unembedding,
        "heads": heads,
        "neurons": neurons,
        "stream": stream,
    }


def neuron_rows(split, by):
    \"\"\"One feed-forward step's rows as the page lists them by `by` ("target", or "difference": the target's
    minus the versus token's): the 10 neurons that move it most, either way, what all the others add together,
    and the fixed part (its bias, where it has one).\"\"\"
    each, bias = split  # (neurons, 2), (2,) or None
    size = each[:, 0] if by == "target" else each[:, 0] - each[:, 1]
    top = size.abs().topk(10).indices
    others = each.sum(dim=0) - each[top].sum(dim=0)
    return [*each[top], others, *([bias] if bias is not None and bias.any() else [])]


def recompute(model, ids, tables):
    \"\"\"Tables `parts` (each part of the stream by its number n), `heads` (by layer and head; no head: the
    projection's bias), `neurons` (by layer, by the score they are ranked by, and their place in that list): each
    row's target, versus and difference (target minus versus) as ledger() works them out; table `layers`, after
    each half-layer (after_layer 1.5: after layer 2's attention), the target's chance read from the stream there
    through the last norm and the unembedding (p), and the size of the stream that half-layer's correction is added
    to (residual; before any layer: the embeddings' own).\"\"\"
    split, found, places = ledger(model, ids), [], {}
    parts = list(split["parts"]) + ([split["norm bias"]] if split["norm bias"] is not None else [])
    rows = {"parts": [parts[r["n"] - 1] for r in tables["parts"]], "heads": [], "neurons": []}
    for r in tables["heads"]:
        each, bias = split["heads"][r["layer"] - 1]
        rows["heads"].append(bias if r["head"] is None else each[r["head"] - 1])
    for r in tables["neurons"]:
        # its place among its layer's rows ranked by the same score: 0 to 9 a neuron, then the others, the fixed part
        place = places[r["layer"], r["by"]] = places.get((r["layer"], r["by"]), -1) + 1
        rows["neurons"].append(neuron_rows(split["neurons"][r["layer"] - 1], r["by"])[place])
    for table, pairs in rows.items():
        for i, (target, versus) in enumerate(pairs):
            found += [(table, i, "target", float(target)), (table, i, "versus", float(versus)),
                      (table, i, "difference", float(target - versus))]
    stream = split["stream"]  # (stages, d_model)
    with torch.no_grad():
        logits = model.get_output_embeddings()(final_norm(model)(stream.float())).double()  # (stages, vocab)
    chances = torch.softmax(logits, dim=-1)[:, TARGET_ID]
    for i, r in enumerate(tables["layers"]):
        s = round(2 * r["after_layer"])
        found += [("layers", i, "p", float(chances[s])), ("layers", i, "residual", float(stream[max(s - 1, 0)].norm()))]
    return found
"""
)
