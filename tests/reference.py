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
    return Weights(tensors=tensors, n_layer=int(config["n_layer"]), n_head=int(config["n_head"]),
                   eps=float(config.get("layer_norm_epsilon", 1e-5)))


def layer_norm(x: torch.Tensor, gain: torch.Tensor, bias: torch.Tensor, eps: float) -> torch.Tensor:
    """Layer norm over the last axis: (x - mean) / sqrt(biased variance + eps) * gain + bias."""
    mean = x.mean(dim=-1, keepdim=True)  # (..., 1)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)  # (..., 1)
    return (x - mean) / torch.sqrt(var + eps) * gain + bias


def gelu_new(x: torch.Tensor) -> torch.Tensor:
    """GPT-2's GELU, the tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


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
    normed = layer_norm(residual, weights["transformer.ln_f.weight"], weights["transformer.ln_f.bias"],
                        weights.eps)
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
            layer_norm(x, weights[p + ".ln_1.weight"], weights[p + ".ln_1.bias"], eps), weights, layer)
        x = x + attn_out
        x = x + mlp_layer(layer_norm(x, weights[p + ".ln_2.weight"], weights[p + ".ln_2.bias"], eps),
                          weights, layer)
        residuals.append(x)
        patterns.append(pattern)
    residual = torch.stack(residuals)  # (stages, position, d_model)
    attention = torch.stack(patterns)  # (layers, heads, query, key)
    return Reference(attention=attention, residual=residual, probs=readout(residual, weights))


def reference(model_dir: str | Path, ids: list[int]) -> Reference:
    """Loads the weights of `model_dir` and runs the reference forward pass over `ids`."""
    return forward(load_weights(model_dir), ids)
