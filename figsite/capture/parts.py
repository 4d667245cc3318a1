"""Capture, part two: how one share is worked out, which part of the model writes a score, and what the answer
does when one part is taken out. Like figsite.capture.text_pass, it runs the model and returns plain data (see README,
"data/parts.json"); with figsite.capture.text_pass and figsite.model.gpt2, it is the only code that imports torch.

GPT-2 in the notation used here: the residual stream after the last layer is

    r = token embedding + position embedding + sum over layers l of (attention_l + feed-forward_l)

and the model's score (logit) of token t at a position is LN(r) . u_t, where LN(r) = g * (r - mean(r)) / s + b
is the final layer norm (gain g, bias b, s the standard deviation the model computed) and u_t is t's row of
the unembedding. With s held fixed, every part p of r adds ((p - mean(p)) / s) . (g * u_t) to the score, and
b . u_t is one more part: the parts add up to the score exactly.
"""

from __future__ import annotations

import torch

from figsite.capture.text_pass import PROBABILITY_DECIMALS, Loaded, log_softmax_total, token_ids, token_text
from figsite.model.gpt2 import causal_mask

DIGITS = 9  # significant digits of a float32 value: enough to give back the same float32


def _number(value: float) -> float:
    return float(f"{value:.{DIGITS}g}")


def _numbers(values) -> list:
    return [_number(v) for v in values]


def _hooks(modules_and_hooks: list) -> list:
    return [module.register_forward_hook(hook) if kind == "out" else module.register_forward_pre_hook(hook)
            for module, kind, hook in modules_and_hooks]


def _token(loaded: Loaded, token_id: int) -> dict:
    return {"id": token_id, "text": token_text(loaded, token_id)}


PART_NAMES = ("scores", "ledgers", "knockouts")  # the lists of data/parts.json, each answering one kind's asks


def answer(loaded: Loaded, name: str, ask: list) -> dict:
    """The entry of data/parts.json that answers one ask: name is "scores" ([text, layer, head, query]),
    "ledgers" ([text, position, target, versus or None]) or "knockouts" ([text, position, target, layer or
    None]); 0-based, tokens by text (a figure's check made sure each is one token)."""
    text, *rest = ask
    ids = token_ids(loaded, text)

    def one_token(string: str | None) -> int | None:
        return None if string is None else token_ids(loaded, string)[0]

    if name == "scores":
        return {"ask": ask, **scores(loaded, ids, *rest)}
    position, target, last = rest
    if name == "ledgers":
        return {"ask": ask, **ledger(loaded, ids, position, one_token(target), one_token(last))}
    return {"ask": ask, **knockouts(loaded, ids, position, one_token(target), last)}


def mentioned(parts: dict) -> set:
    """The token ids the parts name (targets, versus tokens), for the run's vocabulary."""
    ids = {entry[key]["id"] for entry in parts.get("ledgers", []) for key in ("target", "versus")}
    return ids | {entry["target"]["id"] for entry in parts.get("knockouts", [])}


# ---------------------------------------------------------------------------------------------- scores

@torch.no_grad()
def scores(loaded: Loaded, ids: list[int], layer: int, head: int, query: int) -> dict:
    """One head's query at one token and the keys of every token up to it (0-based layer, head, query), and the
    shares the model gave: what figures.scores multiplies, adds, scales and softmaxes again."""
    model = loaded.model
    d_model, n_head = model.config.n_embd, model.config.n_head
    d_head = d_model // n_head
    kept = {}
    attn = model.transformer.h[layer].attn
    hooks = _hooks([(attn.c_attn, "out", lambda _m, _i, out: kept.__setitem__("qkv", out[0]))])  # None: out unchanged
    try:  # the layers only: no score is read here, and the unembedding would cost more than all of them
        out = model.transformer(torch.tensor([ids], device=loaded.device), output_attentions=True)
    finally:
        for hook in hooks:
            hook.remove()
    q, k, _ = kept["qkv"].split(d_model, dim=-1)  # each (position, d_model)
    q = q[query, head * d_head:(head + 1) * d_head].double().cpu()  # (d_head,)
    k = k[:query + 1, head * d_head:(head + 1) * d_head].double().cpu()  # (key, d_head)
    shares = out.attentions[layer][0, head, query, :query + 1].double().cpu()  # (key,)
    return {"layer": layer, "head": head, "query": query, "q": _numbers(q.tolist()),
            "k": [_numbers(row) for row in k.tolist()], "shares": _numbers(shares.tolist())}


# ---------------------------------------------------------------------------------------------- ledger

@torch.no_grad()
def _ledger_pass(loaded: Loaded, ids: list[int]) -> dict:
    """One pass that keeps what the ledger splits: each layer's attention and feed-forward output, the heads'
    mixed values before the output projection, the neurons' activations, and the residual stream at the end."""
    model, kept = loaded.model, {"attention": {}, "feed-forward": {}, "mixed": {}, "neurons": {}}
    wanted = []
    for l, block in enumerate(model.transformer.h):
        wanted += [
            (block.attn, "out", lambda _m, _i, out, l=l: kept["attention"].__setitem__(l, out[0][0])),
            (block.mlp, "out", lambda _m, _i, out, l=l: kept["feed-forward"].__setitem__(l, out[0])),
            (block.attn.c_proj, "pre", lambda _m, inputs, l=l: kept["mixed"].__setitem__(l, inputs[0][0])),
            (block.mlp.c_proj, "pre", lambda _m, inputs, l=l: kept["neurons"].__setitem__(l, inputs[0][0])),
        ]
    wanted.append((model.transformer.ln_f, "pre", lambda _m, inputs: kept.__setitem__("final", inputs[0][0])))
    hooks = _hooks(wanted)
    try:  # the layers only: the scores at the one position read go through the unembedding with the stages'
        out = model.transformer(torch.tensor([ids], device=loaded.device))
    finally:
        for hook in hooks:
            hook.remove()
    kept["normed"] = out.last_hidden_state[0]  # (position, d_model): the final layer norm applied, by the model
    return kept


@torch.no_grad()
def ledger(loaded: Loaded, ids: list[int], position: int, target_id: int, versus_id: int | None) -> dict:
    """The target's score at `position` split into the parts of the residual stream (see the module's doc), the
    same for the `versus` token (default: the top guess other than the target), each layer's attention split
    into its heads and each feed-forward step into its neurons, and the target's probability after every
    half-layer."""
    model = loaded.model
    kept = _ledger_pass(loaded, ids)
    ln_f = model.transformer.ln_f
    final = kept["final"][position].double()  # (d_model,) the residual stream after the last layer
    sigma = torch.sqrt(final.var(unbiased=False) + ln_f.eps)
    gain, bias = ln_f.weight.double(), ln_f.bias.double()
    parts = _residual_parts(model, kept, ids, position)
    stream = torch.cumsum(torch.stack([vector for _, _, vector in parts]), dim=0)[1:]  # (stages, d_model)
    # One product with the unembedding for the half-layer read-outs and the model's own scores at the position.
    scores = model.lm_head(torch.cat([ln_f(stream.float()), kept["normed"][position][None]]))  # (stages + 1, vocab)
    logits = scores[-1]
    if versus_id is None:
        versus_id = next(i for i in logits.topk(2).indices.tolist() if i != target_id)
    unembedding = model.lm_head.weight[[target_id, versus_id]].double().T  # (d_model, 2): the two tokens' rows
    readers = gain[:, None] * unembedding  # (d_model, 2)

    def through(vectors: torch.Tensor) -> torch.Tensor:
        """What each vector (..., d_model) adds to the two scores, (..., 2)."""
        centred = vectors - vectors.mean(dim=-1, keepdim=True)
        return centred @ readers / sigma

    contributions = through(torch.stack([vector for _, _, vector in parts]))  # (parts, 2)
    rows = [{"part": name, "layer": layer, "target": _number(c[0]), "versus": _number(c[1])}
            for (name, layer, _), c in zip(parts, contributions.tolist())]
    beta = (bias @ unembedding).tolist()
    rows.append({"part": "final layer norm bias", "layer": None, "target": _number(beta[0]), "versus": _number(beta[1])})
    return {"position": position, "target": _token(loaded, target_id), "versus": _token(loaded, versus_id),
            "sigma": _number(sigma.item()),
            "score": {"target": _number(logits[target_id].item()), "versus": _number(logits[versus_id].item())},
            "parts": rows, "heads": _head_split(model, kept, position, through),
            "neurons": _neuron_split(model, kept, position, readers, sigma),
            "stages": _half_stages(parts, stream, scores[:-1], target_id)}


def _half_stages(parts: list, stream: torch.Tensor, logits: torch.Tensor, target_id: int) -> list:
    """The target's probability after the embedding and after each layer's attention and feed-forward step
    (read out as figure (i) reads, the final layer norm recomputed: `logits`, (stages, vocab), of the residual
    `stream`, (stages, d_model)), with the size of each correction and of the residual stream it is added to."""
    log_total = log_softmax_total(logits)[:, 0]  # (stages,)
    p = torch.exp(logits[:, target_id].double() - log_total).tolist()
    stages = [{"part": "embedding", "layer": None, "p": round(p[0], PROBABILITY_DECIMALS), "correction": None,
               "residual": _number(stream[0].norm().item())}]
    for s, (name, layer, vector) in enumerate(parts[2:], start=1):
        stages.append({"part": name, "layer": layer, "p": round(p[s], PROBABILITY_DECIMALS),
                       "correction": _number(vector.norm().item()), "residual": _number(stream[s - 1].norm().item())})
    return stages


def _residual_parts(model, kept: dict, ids: list[int], position: int) -> list:
    """(name, layer or None, vector (d_model,)) for every part of the residual stream at `position`, in order."""
    parts = [("token embedding", None, model.transformer.wte.weight[ids[position]].double()),
             ("position embedding", None, model.transformer.wpe.weight[position].double())]
    for l in range(model.config.n_layer):
        parts += [("attention", l, kept["attention"][l][position].double()),
                  ("feed-forward", l, kept["feed-forward"][l][position].double())]
    return parts


def _head_split(model, kept: dict, position: int, through) -> list:
    """Each layer's attention part as its heads (head h's mixed values times its rows of the output projection)
    and the projection's bias: [layer] -> {"heads": [[target, versus], ...], "bias": [target, versus]}."""
    n_head = model.config.n_head
    out = []
    for l, block in enumerate(model.transformer.h):
        mixed = kept["mixed"][l][position].double()  # (d_model,) the heads' outputs side by side
        weight = block.attn.c_proj.weight.double()  # (d_model in, d_model out): Conv1D stores (in, out)
        d_head = mixed.shape[0] // n_head
        heads = torch.stack([mixed[h * d_head:(h + 1) * d_head] @ weight[h * d_head:(h + 1) * d_head]
                             for h in range(n_head)])  # (heads, d_model)
        out.append({"heads": [_numbers(c) for c in through(heads).tolist()],
                    "bias": _numbers(through(block.attn.c_proj.bias.double()).tolist())})
    return out


NEURONS_SHOWN = 10


def _neuron_split(model, kept: dict, position: int, readers: torch.Tensor, sigma: torch.Tensor) -> list:
    """Each feed-forward part as its neurons (activation n times row n of the second matrix) and the bias:
    [layer] -> the NEURONS_SHOWN neurons that add most to the target's score (by size), and to the target's
    score minus the versus token's, each with both contributions; what the others add; the bias's share.

    Neuron n adds a_n ((w_n - mean(w_n)) / s) . r for each reader r (gain * u): worked out for all neurons at
    once as a_n (w_n . r - mean(w_n) sum(r)) / s, without a (neurons, d_model) product per layer."""
    out = []
    for l, block in enumerate(model.transformer.h):
        activation = kept["neurons"][l][position].double()  # (neurons,)
        weight = block.mlp.c_proj.weight.double()  # (neurons, d_model): Conv1D stores (in, out)
        each = activation[:, None] * (weight @ readers - weight.mean(dim=1, keepdim=True) * readers.sum(dim=0)) / sigma
        picked = {}
        for key, size in (("target", each[:, 0].abs()), ("difference", (each[:, 0] - each[:, 1]).abs())):
            top = size.topk(NEURONS_SHOWN).indices.tolist()
            rest = torch.ones(len(activation), dtype=torch.bool)
            rest[top] = False
            picked[key] = {"top": [{"neuron": n, "target": _number(each[n, 0].item()), "versus": _number(each[n, 1].item())}
                                   for n in top],
                           "others": _numbers(each[rest].sum(dim=0).tolist())}
        bias = block.mlp.c_proj.bias.double()
        picked["bias"] = _numbers(((bias - bias.mean()) @ readers / sigma).tolist())
        out.append(picked)
    return out


# ---------------------------------------------------------------------------------------------- knockout

def _knockout_plan(n_layer: int, n_head: int, heads_of: int | None) -> list:
    """The runs, intact first: (part, layer, head), each taking one part's output out at every position."""
    plan = [("intact", None, None)]
    plan += [("attention", l, None) for l in range(n_layer)]
    plan += [("feed-forward", l, None) for l in range(n_layer)]
    if heads_of is not None:
        plan += [("head", heads_of, h) for h in range(n_head)]
    return plan


@torch.no_grad()
def knockouts(loaded: Loaded, ids: list[int], position: int, target_id: int, heads_of: int | None) -> dict:
    """The target's probability and rank at `position` with each part taken out in turn (its output set to zero
    at every position), beside the intact model's.

    A part taken out at layer l changes nothing before layer l: each run starts from the intact model's
    residual stream before its layer, so the layers before it are computed once, not once per run. The runs go
    through the layers side by side as one batch that grows as they join; a hook per part zeroes its output in
    its own copy only.
    """
    model = loaded.model
    n_head = model.config.n_head
    d_head = model.config.n_embd // n_head
    plan = _knockout_plan(model.config.n_layer, n_head, heads_of)
    stream = model.transformer.wte(torch.tensor([ids], device=loaded.device))
    stream = stream + model.transformer.wpe(torch.arange(len(ids), device=loaded.device))  # (1, position, d_model)
    mask = causal_mask(len(ids), stream)
    batch, members = stream[:0], []  # the runs under way, (runs, position, d_model), and their index in the plan
    for layer, block in enumerate(model.transformer.h):
        joining = [index for index, (_, start, _) in enumerate(plan) if start == layer]
        batch = torch.cat([batch, stream.expand(len(joining), -1, -1)])  # they start from the intact stream here
        members += joining
        at = {index: row for row, index in enumerate(members)}  # a run's row in the batch
        stream = block(stream, attention_mask=mask)  # the intact model, layer by layer
        hooks = _hooks(_knockout_hooks(block, [(plan[index], at[index]) for index in joining], d_head))
        try:
            batch = block(batch, attention_mask=mask)
        finally:
            for hook in hooks:
                hook.remove()
    final = torch.cat([stream, batch])[:, position]  # (runs, d_model): the intact model first
    logits = model.lm_head(model.transformer.ln_f(final))  # (runs, vocab): the scores at the one position read
    log_total = log_softmax_total(logits)[:, 0]  # (runs,)
    p = torch.exp(logits[:, target_id].double() - log_total).tolist()
    rank = ((logits > logits[:, target_id:target_id + 1]).sum(dim=-1) + 1).tolist()
    found = {index: (p_run, rank_run) for index, p_run, rank_run in zip([0] + members, p, rank)}  # plan index -> ...
    runs = [{"part": part, "layer": layer, "head": head, "p": round(found[i][0], PROBABILITY_DECIMALS),
             "rank": found[i][1]} for i, (part, layer, head) in enumerate(plan)]
    return {"position": position, "target": _token(loaded, target_id), "heads_of": heads_of,
            "intact": {"p": runs[0]["p"], "rank": runs[0]["rank"]}, "runs": runs[1:]}


def _knockout_hooks(block, runs: list, d_head: int) -> list:
    """Hooks on one layer that take each run's part out in that run's row: runs is [((part, layer, head), row)]."""
    rows = {part: [row for (kind, _, _), row in runs if kind == part] for part in ("attention", "feed-forward")}
    heads = [(row, head) for (kind, _, head), row in runs if kind == "head"]

    def zero_rows(rows_out):
        def hook(_module, _inputs, output):
            tensor = output[0] if isinstance(output, tuple) else output
            tensor[rows_out] = 0.0  # (runs, position, d_model): this part's output, in these runs
        return hook

    def zero_heads(_module, inputs):
        mixed = inputs[0].clone()  # (runs, position, d_model): the heads' outputs side by side
        for row, head in heads:
            mixed[row, :, head * d_head:(head + 1) * d_head] = 0.0
        return (mixed,)

    wanted = [(module, "out", zero_rows(rows[part])) for part, module in (("attention", block.attn), ("feed-forward", block.mlp))
              if rows[part]]
    return wanted + ([(block.attn.c_proj, "pre", zero_heads)] if heads else [])
