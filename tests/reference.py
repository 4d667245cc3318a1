"""An independent numerical reference for GPT-2: the forward pass in plain torch tensor math.

It reads the weights straight from a save_pretrained directory (config.json and model.safetensors) and
computes in float64. It uses neither transformers' forward nor anything from the project's packages, so
that the build's numbers can be checked against something that shares none of their code.

GPT-2, in the notation used below (T positions, d = d_model, H heads of width d / H):

    x_0     = wte[ids] + wpe[0..T-1]                                   residual stream, stage 0
    a       = attention(ln_1(x_{l-1}))                                 causal, softmax(q k^T / sqrt(d_head))
    h       = x_{l-1} + a
    x_l     = h + mlp(ln_2(h))        mlp(z) = gelu_new(z W_fc + b_fc) W_proj + b_proj
    readout = softmax(ln_f(x_s) wte^T)   for every stage s = 0..L; at s = L the model's own output

Linear layers are GPT-2's Conv1D: the weight is stored (in, out) and y = x W + b.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors.torch import load_file

DTYPE = torch.float64


@dataclass
class Weights:
    """GPT-2's weights, in float64, and the two numbers of its config the forward pass needs."""

    tensors: dict  # name -> tensor, names as in the state dict ("transformer.h.0.ln_1.weight", ...)
    n_layer: int
    n_head: int
    eps: float

    def __getitem__(self, name: str) -> torch.Tensor:
        return self.tensors[name]


@dataclass
class Reference:
    """What the reference forward pass computed over one sequence of token ids."""

    attention: torch.Tensor  # (layers, heads, query, key); zero right of the diagonal
    residual: torch.Tensor  # (stages, position, d_model); stage 0 after the embedding, stage s after layer s
    probs: torch.Tensor  # (stages, position, vocab); softmax(ln_f(residual[s]) @ wte.T)


def load_weights(model_dir: str | Path) -> Weights:
    """Reads config.json and model.safetensors of a save_pretrained directory into float64 tensors.

    Accepts state dict names with or without the "transformer." prefix. lm_head is tied to wte and is
    not read (it may be absent from the file).
    """
    model_dir = Path(model_dir)
    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    raw = load_file(str(model_dir / "model.safetensors"))
    tensors = {}
    for name, tensor in raw.items():
        if not name.startswith("transformer.") and not name.startswith("lm_head."):
            name = "transformer." + name
        tensors[name] = tensor.to(DTYPE)
    return Weights(
        tensors=tensors,
        n_layer=int(config["n_layer"]),
        n_head=int(config["n_head"]),
        eps=float(config.get("layer_norm_epsilon", 1e-5)),
    )


def layer_norm(x: torch.Tensor, gain: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.Tensor:
    """Layer norm over the last axis: (x - mean) / sqrt(biased variance + eps) * gain + bias."""
    mean = x.mean(dim=-1, keepdim=True)  # (..., 1)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)  # (..., 1)
    return (x - mean) / torch.sqrt(var + eps) * gain + bias


def gelu_new(x: torch.Tensor) -> torch.Tensor:
    """GPT-2's GELU, the tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def conv1d(x: torch.Tensor, weights: Weights, prefix: str) -> torch.Tensor:
    """GPT-2's Conv1D: y = x @ W + b, with W stored (in, out)."""
    return x @ weights[prefix + ".weight"] + weights[prefix + ".bias"]


def attention_layer(x: torch.Tensor, weights: Weights, layer: int) -> tuple[torch.Tensor, torch.Tensor]:
    """One causal self-attention sublayer on the normalised input x (position, d_model).

    Returns (its output (position, d_model), its attention pattern (heads, query, key)).
    """
    prefix = f"transformer.h.{layer}.attn"
    n_pos, d_model = x.shape
    n_head = weights.n_head
    d_head = d_model // n_head
    qkv = conv1d(x, weights, prefix + ".c_attn")  # (position, 3 * d_model)
    q, k, v = qkv.split(d_model, dim=-1)  # each (position, d_model)
    q = q.reshape(n_pos, n_head, d_head).transpose(0, 1)  # (heads, query, d_head)
    k = k.reshape(n_pos, n_head, d_head).transpose(0, 1)  # (heads, key, d_head)
    v = v.reshape(n_pos, n_head, d_head).transpose(0, 1)  # (heads, key, d_head)
    scores = q @ k.transpose(-1, -2) / math.sqrt(d_head)  # (heads, query, key)
    causal = torch.ones(n_pos, n_pos, dtype=torch.bool).tril()  # (query, key): key <= query
    scores = scores.masked_fill(~causal, float("-inf"))
    pattern = torch.softmax(scores, dim=-1)  # (heads, query, key)
    mixed = pattern @ v  # (heads, query, d_head)
    mixed = mixed.transpose(0, 1).reshape(n_pos, d_model)  # (position, d_model)
    return conv1d(mixed, weights, prefix + ".c_proj"), pattern


def mlp_layer(x: torch.Tensor, weights: Weights, layer: int) -> torch.Tensor:
    """The feed-forward sublayer on the normalised input x (position, d_model)."""
    prefix = f"transformer.h.{layer}.mlp"
    hidden = gelu_new(conv1d(x, weights, prefix + ".c_fc"))  # (position, 4 * d_model)
    return conv1d(hidden, weights, prefix + ".c_proj")  # (position, d_model)


def readout(residual: torch.Tensor, weights: Weights) -> torch.Tensor:
    """Read-out probabilities of residual states (..., d_model): softmax(ln_f(x) @ wte.T), (..., vocab)."""
    normed = layer_norm(residual, weights["transformer.ln_f.weight"], weights["transformer.ln_f.bias"], weights.eps)
    logits = normed @ weights["transformer.wte.weight"].T  # (..., vocab)
    return torch.softmax(logits, dim=-1)


def forward(weights: Weights, ids: list[int]) -> Reference:
    """Runs GPT-2 over the token ids; returns attention, the residual stream at each stage, read-outs."""
    ids_t = torch.tensor(ids, dtype=torch.long)
    positions = torch.arange(len(ids))
    x = weights["transformer.wte.weight"][ids_t] + weights["transformer.wpe.weight"][positions]  # (position, d_model)
    residuals = [x]
    patterns = []
    eps = weights.eps
    for layer in range(weights.n_layer):
        p = f"transformer.h.{layer}"
        attn_out, pattern = attention_layer(
            layer_norm(x, weights[p + ".ln_1.weight"], weights[p + ".ln_1.bias"], eps), weights, layer
        )
        x = x + attn_out
        x = x + mlp_layer(layer_norm(x, weights[p + ".ln_2.weight"], weights[p + ".ln_2.bias"], eps), weights, layer)
        residuals.append(x)
        patterns.append(pattern)
    residual = torch.stack(residuals)  # (stages, position, d_model)
    attention = torch.stack(patterns)  # (layers, heads, query, key)
    return Reference(attention=attention, residual=residual, probs=readout(residual, weights))


def reference(model_dir: str | Path, ids: list[int]) -> Reference:
    """Loads the weights of `model_dir` and runs the reference forward pass over `ids`."""
    return forward(load_weights(model_dir), ids)


# ---------------------------------------------------------------------------------------------- how it works


def head_query_keys(weights: Weights, ids: list[int], layer: int, head: int, query: int) -> tuple:
    """One head's query at `query` and the keys of tokens 0..query (0-based), from the reference pass:
    (q (d_head,), k (query + 1, d_head), the head's shares from that query (query + 1,))."""
    x = _residual_before(weights, ids, layer)
    p = f"transformer.h.{layer}"
    normed = layer_norm(x, weights[p + ".ln_1.weight"], weights[p + ".ln_1.bias"], weights.eps)
    d_model = normed.shape[-1]
    d_head = d_model // weights.n_head
    q, k, _ = conv1d(normed, weights, p + ".attn.c_attn").split(d_model, dim=-1)  # each (position, d_model)
    columns = slice(head * d_head, (head + 1) * d_head)
    _, pattern = attention_layer(normed, weights, layer)
    return q[query, columns], k[: query + 1, columns], pattern[head, query, : query + 1]


def _residual_before(weights: Weights, ids: list[int], layer: int) -> torch.Tensor:
    """The residual stream entering layer `layer` (0-based), (position, d_model)."""
    return forward(weights, ids).residual[layer]


@dataclass
class Ledger:
    """A score split into the parts of the residual stream, in float64 (see figsite/capture/parts.py)."""

    parts: list  # (name, layer or None, contribution to the target's score, to the versus token's)
    score: tuple  # the full forward's scores of target and versus at the position
    heads: list  # [layer] -> (heads, 2) contributions and the projection bias's (2,)
    neurons: list  # [layer] -> (neurons, 2) contributions and the bias's (2,)
    stages: list  # (name, layer, target probability, size of the correction or None, size of the residual)


def ledger(weights: Weights, ids: list[int], position: int, target: int, versus: int) -> Ledger:
    """The target's and the versus token's scores at `position` split into the residual stream's parts:
    ((p - mean(p)) / s) . (g * u) for each part p, with s the final layer norm's standard deviation of the
    whole stream, and b . u for the final layer norm's bias."""
    eps, n_layer = weights.eps, weights.n_layer
    ids_t = torch.tensor(ids, dtype=torch.long)
    x = weights["transformer.wte.weight"][ids_t] + weights["transformer.wpe.weight"][torch.arange(len(ids))]
    parts = [
        ("token embedding", None, weights["transformer.wte.weight"][ids[position]]),
        ("position embedding", None, weights["transformer.wpe.weight"][position]),
    ]
    heads, neurons = [], []
    for layer in range(n_layer):
        p = f"transformer.h.{layer}"
        normed = layer_norm(x, weights[p + ".ln_1.weight"], weights[p + ".ln_1.bias"], eps)
        attn_out, pattern = attention_layer(normed, weights, layer)
        d_model = normed.shape[-1]
        d_head = d_model // weights.n_head
        v = conv1d(normed, weights, p + ".attn.c_attn")[:, 2 * d_model :]  # (position, d_model)
        mixed = torch.cat([pattern[h] @ v[:, h * d_head : (h + 1) * d_head] for h in range(weights.n_head)], dim=-1)
        w_o = weights[p + ".attn.c_proj.weight"]
        heads.append(
            (
                [
                    mixed[position, h * d_head : (h + 1) * d_head] @ w_o[h * d_head : (h + 1) * d_head]
                    for h in range(weights.n_head)
                ],
                weights[p + ".attn.c_proj.bias"],
            )
        )
        x = x + attn_out
        parts.append(("attention", layer, attn_out[position]))
        normed2 = layer_norm(x, weights[p + ".ln_2.weight"], weights[p + ".ln_2.bias"], eps)
        hidden = gelu_new(conv1d(normed2, weights, p + ".mlp.c_fc"))  # (position, neurons)
        mlp_out = hidden @ weights[p + ".mlp.c_proj.weight"] + weights[p + ".mlp.c_proj.bias"]
        neurons.append((hidden[position][:, None] * weights[p + ".mlp.c_proj.weight"], weights[p + ".mlp.c_proj.bias"]))
        x = x + mlp_out
        parts.append(("feed-forward", layer, mlp_out[position]))
    final = x[position]
    sigma = torch.sqrt(((final - final.mean()) ** 2).mean() + eps)
    gain, bias = weights["transformer.ln_f.weight"], weights["transformer.ln_f.bias"]
    u = weights["transformer.wte.weight"][[target, versus]]  # (2, d_model)

    def through(vectors: torch.Tensor) -> torch.Tensor:
        return (vectors - vectors.mean(dim=-1, keepdim=True)) @ (gain * u).T / sigma  # (..., 2)

    normed_final = layer_norm(final, gain, bias, eps)
    stages, stream = [], parts[0][2] + parts[1][2]
    stages.append(("embedding", None, readout(stream, weights)[target].item(), None, stream.norm().item()))
    for name, layer, vector in parts[2:]:
        before = stream.norm().item()
        stream = stream + vector
        stages.append((name, layer, readout(stream, weights)[target].item(), vector.norm().item(), before))
    return Ledger(
        parts=[(name, layer, *through(vector).tolist()) for name, layer, vector in parts]
        + [("final layer norm bias", None, *(bias @ u.T).tolist())],
        score=tuple((normed_final @ u.T).tolist()),
        heads=[(through(torch.stack(each)), through(b)) for each, b in heads],
        neurons=[(through(rows), through(b)) for rows, b in neurons],
        stages=stages,
    )


def knockout(
    weights: Weights,
    ids: list[int],
    position: int,
    target: int,
    part: str,
    layer: int,
    head: int | None = None,
    again: bool = False,
) -> tuple[float, int]:
    """The target's probability and rank at `position` when one part's output is zero at every position:
    part "attention" or "feed-forward" of `layer`, or "head" `head` of `layer` (its mixed values zero before
    the output projection, whose bias stays). again: the same part taken out at every later layer too, which no
    figure shows: what a knockout left in place would compute, for a test to show its text tells the two apart."""
    eps = weights.eps
    ids_t = torch.tensor(ids, dtype=torch.long)
    x = weights["transformer.wte.weight"][ids_t] + weights["transformer.wpe.weight"][torch.arange(len(ids))]
    for l in range(weights.n_layer):
        p = f"transformer.h.{l}"
        normed = layer_norm(x, weights[p + ".ln_1.weight"], weights[p + ".ln_1.bias"], eps)
        attn_out, pattern = attention_layer(normed, weights, l)
        out = l == layer or (again and l > layer)  # the part taken out in this layer
        if part == "head" and out:
            d_model = normed.shape[-1]
            d_head = d_model // weights.n_head
            v = conv1d(normed, weights, p + ".attn.c_attn")[:, 2 * d_model :]
            mixed = torch.cat([pattern[h] @ v[:, h * d_head : (h + 1) * d_head] for h in range(weights.n_head)], dim=-1)
            mixed[:, head * d_head : (head + 1) * d_head] = 0.0
            attn_out = conv1d(mixed, weights, p + ".attn.c_proj")
        if not (part == "attention" and out):
            x = x + attn_out
        mlp_out = mlp_layer(layer_norm(x, weights[p + ".ln_2.weight"], weights[p + ".ln_2.bias"], eps), weights, l)
        if not (part == "feed-forward" and out):
            x = x + mlp_out
    normed = layer_norm(x[position], weights["transformer.ln_f.weight"], weights["transformer.ln_f.bias"], eps)
    logits = normed @ weights["transformer.wte.weight"].T  # (vocab,)
    probs = torch.softmax(logits, dim=-1)
    return probs[target].item(), int((logits > logits[target]).sum().item()) + 1


# ---------------------------------------------------------------------------------------------- activation patching

PATCH_SITES = ("resid_pre", "attn_out", "mlp_out", "z")  # what one patched run can put back (see patched)


def _put_back(site: str, layer: int, here: torch.Tensor, kept: dict, patch) -> torch.Tensor:
    """Keeps this run's activation `here` of `site` at `layer` in `kept`, and returns it with the clean run's put
    back where `patch` = (site, layer, index, clean kept, again) aims: one position, or one head at every position
    for "z" (here (position, heads, d_head)); with `again`, at that site of every later layer too (see patched)."""
    kept[(site, layer)] = here
    if patch is None or patch[0] != site or not (layer == patch[1] or (patch[4] and layer > patch[1])):
        return here
    _, _, index, clean, _ = patch
    here = here.clone()
    if site == "z":
        here[:, index] = clean[(site, layer)][:, index]
    else:
        here[index] = clean[(site, layer)][index]
    return here


def _patched_layer(weights: Weights, x: torch.Tensor, layer: int, kept: dict, patch) -> torch.Tensor:
    """One layer on the stream x (position, d_model), its activations kept and the patch put back; the stream
    after it. The heads' mixed values z (position, heads, d_head) are computed apart so that one can be replaced
    before the output projection (whose bias stays)."""
    p, eps = f"transformer.h.{layer}", weights.eps
    x = _put_back("resid_pre", layer, x, kept, patch)
    normed = layer_norm(x, weights[p + ".ln_1.weight"], weights[p + ".ln_1.bias"], eps)
    _, pattern = attention_layer(normed, weights, layer)  # (heads, query, key)
    n_pos, d_model = normed.shape
    d_head = d_model // weights.n_head
    v = conv1d(normed, weights, p + ".attn.c_attn")[:, 2 * d_model :]  # (key, d_model)
    z = torch.stack([pattern[h] @ v[:, h * d_head : (h + 1) * d_head] for h in range(weights.n_head)], dim=1)
    z = _put_back("z", layer, z, kept, patch)  # (position, heads, d_head)
    attn_out = conv1d(z.reshape(n_pos, d_model), weights, p + ".attn.c_proj")
    x = x + _put_back("attn_out", layer, attn_out, kept, patch)
    mlp_out = mlp_layer(layer_norm(x, weights[p + ".ln_2.weight"], weights[p + ".ln_2.bias"], eps), weights, layer)
    return x + _put_back("mlp_out", layer, mlp_out, kept, patch)


def patch_run(weights: Weights, ids: list[int], patch=None) -> tuple[torch.Tensor, dict]:
    """A run over `ids` with at most one activation put back (see _put_back): (the stream after the last layer,
    (position, d_model), with its patch if it aims at resid_pre row n_layer; every activation it met, by (site,
    layer), resid_pre at layer n_layer being the stream after the last layer)."""
    ids_t = torch.tensor(ids, dtype=torch.long)
    x = weights["transformer.wte.weight"][ids_t] + weights["transformer.wpe.weight"][torch.arange(len(ids))]
    kept = {}
    for layer in range(weights.n_layer):
        x = _patched_layer(weights, x, layer, kept, patch)
    return _put_back("resid_pre", weights.n_layer, x, kept, patch), kept


def diff_and_p(weights: Weights, final: torch.Tensor, position: int, target: int, versus: int) -> tuple[float, float]:
    """From the stream after the last layer (position, d_model): the logits ln_f(x) @ wte.T at `position`, and
    (logit[target] - logit[versus], softmax(logits)[target])."""
    normed = layer_norm(
        final[position], weights["transformer.ln_f.weight"], weights["transformer.ln_f.bias"], weights.eps
    )
    logits = normed @ weights["transformer.wte.weight"].T  # (vocab,)
    return (logits[target] - logits[versus]).item(), torch.softmax(logits, dim=-1)[target].item()


def unpatched(weights: Weights, ids: list[int], position: int, target: int, versus: int) -> tuple[float, float]:
    """A plain run's (logit difference, target probability) at `position`."""
    return diff_and_p(weights, patch_run(weights, ids)[0], position, target, versus)


def patched(
    weights: Weights,
    clean_ids: list[int],
    corrupted_ids: list[int],
    position: int,
    target: int,
    versus: int,
    site: str,
    layer: int,
    index: int,
    clean: dict | None = None,
    again: bool = False,
) -> tuple[float, float]:
    """The corrupted run with one activation of the clean run put back: `site` in PATCH_SITES at `layer`
    (0-based; resid_pre also at n_layer, the stream after the last layer), at position `index`, or head `index`
    at every position for "z". `clean`: the clean run's kept activations (patch_run's second value), to save
    running it again. again: put back at that site of every later layer too, which no figure shows: what a
    patch left in place would compute, for a test to show its texts tell the two apart. Returns (logit
    difference, target probability) at `position`."""
    assert site in PATCH_SITES
    if clean is None:
        clean = patch_run(weights, clean_ids)[1]
    final, _ = patch_run(weights, corrupted_ids, (site, layer, index, clean, again))
    return diff_and_p(weights, final, position, target, versus)


# ---------------------------------------------------------------------------------------------- head roles


def head_role_scores(weights: Weights, text_ids: list[int], sequence_ids: list[int], length: int) -> dict:
    """Every head's score for each role, {role: [layer][head] floats}, from the reference's float64 shares, with
    A[i][j] the share query i gives key j (from 0):
    on the text, "previous" = mean of A[i][i-1] over i >= 1, "first" = mean of A[i][0] over i >= 1, "self" =
    mean of A[i][i] over every i, "duplicate_text" = see _duplicate_share (None where no token repeats);
    on the sequence (`length` tokens, then the same again), "duplicate" and "induction" = mean of
    A[i][i - length + 1] over the second copy's i = length .. 2 length - 1."""
    text = forward(weights, text_ids).attention.tolist()  # [layer][head][query][key]
    repeats = forward(weights, sequence_ids).attention.tolist()
    n = len(text_ids)
    per_head = {
        "previous": (text, lambda a: sum(a[i][i - 1] for i in range(1, n)) / (n - 1)),
        "first": (text, lambda a: sum(a[i][0] for i in range(1, n)) / (n - 1)),
        "self": (text, lambda a: sum(a[i][i] for i in range(n)) / n),
        "duplicate_text": (text, lambda a: _duplicate_share(a, text_ids)),
        "duplicate": (repeats, lambda a: _duplicate_share(a, sequence_ids)),
        "induction": (repeats, lambda a: sum(a[i][i - length + 1] for i in range(length, 2 * length)) / length),
    }
    scores = {}
    for role, (shares, score) in per_head.items():
        table = []
        for layer in range(weights.n_layer):
            table.append([score(shares[layer][head]) for head in range(weights.n_head)])
        scores[role] = None if any(value is None for row in table for value in row) else table
    return scores


def _duplicate_share(a: list, ids: list[int]) -> float | None:
    """One head's shares A[i][j] summed over the earlier keys j < i that hold the same token id as query i,
    averaged over the queries that have such a key; None where no query has one."""
    sums = []
    for i in range(len(ids)):
        earlier = [j for j in range(i) if ids[j] == ids[i]]
        if earlier:
            sums.append(sum(a[i][j] for j in earlier))
    return sum(sums) / len(sums) if sums else None
