"""The Llama-style family (Llama, Mistral, Qwen2, Qwen3, SmolLM: config.json's model_type llama, mistral, qwen2 or
qwen3), as transformers' modeling_llama computes it, in the manner of nanoGPT's model.py.

What it changes from GPT-2 (figsite.model.gpt2):

- RMSNorm: the norms divide by the root mean square (no mean taken away) and multiply by a gain (no bias);
- rotary positions: no position vectors are added to the stream; each head's query and key are turned by an
  angle that grows with the position (all of the head, or its first rotary_dim numbers), so that q . k depends
  on how far apart the two tokens are;
- a gated feed-forward step (SwiGLU): down(act(gate(x)) * up(x)), no biases unless mlp_bias;
- grouped-query attention: n_kv_head key/value heads, each shared by n_head / n_kv_head query heads;
- q/k/v biases where the config has them (Qwen2 always; Llama and Qwen3 with attention_bias), Qwen3's RMSNorm of
  each head's query and key, and an unembedding tied to the token embedding or not.

The hook points carry TransformerLens's names, as GPT-2's do (see figsite.model.interface), with these
differences: there is no hook_pos_embed (blocks.0.hook_resid_pre is the token embedding); blocks.L.attn.hook_k
and hook_v pass the key/value heads, (batch, position, n_kv_head, d_head), as TransformerLens's grouped-query
attention passes them (query head h reads key head h // (n_head / n_kv_head)); hook_q and hook_k are before the
rotation (after Qwen3's norm), blocks.L.attn.hook_rot_q and hook_rot_k after it; blocks.L.mlp.hook_pre is the
gate before the activation, hook_pre_linear the up projection, hook_post their product (what W_out reads).

The modules and parameters keep transformers' names (model.layers.3.self_attn.q_proj.weight, ...), so a
LlamaForCausalLM's save_pretrained directory loads as it is (figsite.model.checkpoint).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

from figsite.model.interface import HookPoint, LanguageModel, LayerWeights, NormWeights, Past

import torch
from torch import nn
from torch.nn import functional as F

from figsite.records import WeightPart

MODEL_TYPES = ("llama", "mistral", "qwen2", "qwen3")
ACTIVATIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "silu": F.silu,
    "gelu": F.gelu,
    "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "relu": F.relu,
}


@dataclass(frozen=True)
class LlamaConfig:
    """A Llama-style model's shape, under the interface's names (GPT-2's: n_layer, n_head, n_embd, vocab_size,
    n_positions, n_inner) and the ones a family varies (n_kv_head, d_head, rotary_dim, ...)."""

    model_type: str
    vocab_size: int
    n_embd: int
    n_inner: int
    n_layer: int
    n_head: int
    n_kv_head: int
    d_head: int
    n_positions: int
    eps: float
    rope_theta: float
    rotary_dim: int  # how many of each head's numbers the rotation turns (d_head: all)
    qkv_bias: bool
    o_bias: bool
    mlp_bias: bool
    qk_norm: bool  # Qwen3: an RMSNorm of each head's query and key
    sliding_window: int | None  # a key further back than this is not seen (Mistral); None: all
    activation: str
    tie_word_embeddings: bool
    norm: str = "rmsnorm"
    positions: str = "rotary"
    gated: bool = True
    parallel: bool = False

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> LlamaConfig:
        """The config of config.json's values; ValueError names what this family cannot be."""
        kind = values.get("model_type")
        if kind not in MODEL_TYPES:
            raise ValueError(f"a '{kind}' model")
        rope = values.get("rope_parameters") or values.get("rope_scaling") or {}
        rope_type = rope.get("rope_type", rope.get("type", "default"))
        if rope_type != "default":
            raise ValueError(f"a model with rotary positions of type '{rope_type}' (only 'default' is supported)")
        hidden, heads = values["hidden_size"], values["num_attention_heads"]
        d_head = values.get("head_dim") or hidden // heads
        factor = rope.get("partial_rotary_factor", values.get("partial_rotary_factor", 1.0))
        kv_heads = values.get("num_key_value_heads") or heads
        if heads % kv_heads:
            raise ValueError(f"num_attention_heads {heads} is not a multiple of num_key_value_heads {kv_heads}")
        bias = bool(values.get("attention_bias", False))
        window = values.get("sliding_window") if kind == "mistral" or values.get("use_sliding_window") else None
        activation = values.get("hidden_act", "silu")
        if activation not in ACTIVATIONS:
            raise ValueError(f"hidden_act {activation!r}; allowed: {', '.join(ACTIVATIONS)}")
        return cls(
            kind,
            values["vocab_size"],
            hidden,
            values["intermediate_size"],
            values["num_hidden_layers"],
            heads,
            kv_heads,
            d_head,
            values.get("max_position_embeddings", 2048),
            values.get("rms_norm_eps", 1e-6),
            rope.get("rope_theta", values.get("rope_theta", 10000.0)),
            int(d_head * factor),
            bias or kind == "qwen2",
            bias,
            bool(values.get("mlp_bias", False)),
            kind == "qwen3",
            window,
            activation,
            bool(values.get("tie_word_embeddings", False)),
        )

    @property
    def n_weights(self) -> int:
        """How many numbers the model holds (the memory estimate's, before they load): the token embedding (the
        unembedding too unless tied), each layer's q, k, v and output projections with the biases it has, Qwen3's
        norms of the query and key, the gated feed-forward step's three matrices, two norms, and the final norm."""
        d, inner, q, kv = self.n_embd, self.n_inner, self.n_head * self.d_head, self.n_kv_head * self.d_head
        attention = d * (q + 2 * kv) + q * d + (q + 2 * kv if self.qkv_bias else 0) + (d if self.o_bias else 0)
        feed_forward = 3 * d * inner + (2 * inner + d if self.mlp_bias else 0)
        per_layer = attention + (2 * self.d_head if self.qk_norm else 0) + feed_forward + 2 * d
        unembedding = 0 if self.tie_word_embeddings else self.vocab_size * d
        return self.vocab_size * d + unembedding + self.n_layer * per_layer + d

    @classmethod
    def from_file(cls, path: Path) -> LlamaConfig:
        return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))


class RMSNorm(nn.Module):
    """x / sqrt(mean(x^2) + eps) times a gain, as transformers' LlamaRMSNorm (in float32); a hook point at its
    scale, sqrt(mean(x^2) + eps), (..., 1), worked out only where a function reads it."""

    def __init__(self, width: int, eps: float) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))
        self.eps = eps
        self.hook_scale = HookPoint()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dtype = x.dtype
        x = x.to(torch.float32)
        variance = x.pow(2).mean(-1, keepdim=True)
        if self.hook_scale.functions:
            self.hook_scale(torch.sqrt(variance + self.eps))
        return self.weight * (x * torch.rsqrt(variance + self.eps)).to(dtype)


def rotate(x: torch.Tensor, first: int, theta: float, rotary_dim: int) -> torch.Tensor:
    """Rotary positions: x (batch, position, heads, d_head) at positions first.. first + position - 1, its first
    rotary_dim numbers turned in pairs (i, i + rotary_dim / 2) by position x theta^(-2i / rotary_dim)."""
    if rotary_dim == 0:
        return x
    inv_freq = 1.0 / (
        theta ** (torch.arange(0, rotary_dim, 2, dtype=torch.int64, device=x.device).float() / rotary_dim)
    )
    positions = torch.arange(first, first + x.size(1), device=x.device).float()
    freqs = positions[:, None] * inv_freq  # (position, rotary_dim / 2)
    angles = torch.cat((freqs, freqs), dim=-1)[None, :, None]  # (1, position, 1, rotary_dim)
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    turned, kept = x[..., :rotary_dim], x[..., rotary_dim:]
    half = rotary_dim // 2
    rotated = torch.cat((-turned[..., half:], turned[..., :half]), dim=-1)
    return torch.cat((turned * cos + rotated * sin, kept), dim=-1)


def causal_mask(queries: int, keys: int, like: torch.Tensor, window: int | None) -> torch.Tensor:
    """What the attention adds to its fits, (1, 1, query, key), the queries being the last `queries` of `keys`
    positions: the lowest number where a key comes after the query or lies `window` or more before it, else 0."""
    query = torch.arange(keys - queries, keys, device=like.device)[:, None]
    key = torch.arange(keys, device=like.device)[None]
    hidden = key > query
    if window is not None:
        hidden = hidden | (key <= query - window)
    lowest = torch.finfo(like.dtype).min
    return torch.zeros(hidden.shape, dtype=like.dtype, device=like.device).masked_fill(hidden, lowest)[None, None]


class Attention(nn.Module):
    """Grouped-query attention with rotary positions; transformers' LlamaAttention with eager attention."""

    def __init__(self, config: LlamaConfig) -> None:
        super().__init__()
        self.config = config
        heads, kv, d_head = config.n_head, config.n_kv_head, config.d_head
        self.q_proj = nn.Linear(config.n_embd, heads * d_head, bias=config.qkv_bias)
        self.k_proj = nn.Linear(config.n_embd, kv * d_head, bias=config.qkv_bias)
        self.v_proj = nn.Linear(config.n_embd, kv * d_head, bias=config.qkv_bias)
        self.o_proj = nn.Linear(heads * d_head, config.n_embd, bias=config.o_bias)
        if config.qk_norm:
            self.q_norm, self.k_norm = RMSNorm(d_head, config.eps), RMSNorm(d_head, config.eps)
        self.hook_q, self.hook_k, self.hook_v = HookPoint(), HookPoint(), HookPoint()  # before the rotation
        self.hook_rot_q, self.hook_rot_k = HookPoint(), HookPoint()  # after it
        self.hook_attn_scores, self.hook_pattern = HookPoint(), HookPoint()  # (batch, heads, query, key)
        self.hook_z = HookPoint()  # (batch, position, heads, d_head)

    def forward(self, x: torch.Tensor, past: tuple[torch.Tensor, torch.Tensor] | None = None) -> torch.Tensor:
        """x (batch, position, d_model) -> the attention's output (batch, position, d_model). past: the keys and
        values of earlier positions as hook_k and hook_v pass them, (1, earlier, kv heads, d_head) each."""
        config = self.config
        shape = (*x.shape[:-1], -1, config.d_head)
        q, k, v = (proj(x).view(shape) for proj in (self.q_proj, self.k_proj, self.v_proj))
        if config.qk_norm:
            q, k = self.q_norm(q), self.k_norm(k)
        q, k, v = self.hook_q(q), self.hook_k(k), self.hook_v(v)  # (batch, position, heads or kv heads, d_head)
        earlier = 0 if past is None else past[0].size(1)
        q = self.hook_rot_q(rotate(q, earlier, config.rope_theta, config.rotary_dim))
        k = self.hook_rot_k(rotate(k, earlier, config.rope_theta, config.rotary_dim))
        if past is not None:  # the earlier keys turned by their own positions, in front
            kept_k = rotate(past[0], 0, config.rope_theta, config.rotary_dim).expand(len(x), -1, -1, -1)
            k, v = torch.cat([kept_k, k], dim=1), torch.cat([past[1].expand(len(x), -1, -1, -1), v], dim=1)
        group = config.n_head // config.n_kv_head
        k, v = (t.repeat_interleave(group, dim=2).transpose(1, 2) for t in (k, v))  # a copy per query head
        q = q.transpose(1, 2)  # (batch, heads, position, d_head)
        fits = torch.matmul(q, k.transpose(2, 3)) * config.d_head**-0.5  # (batch, heads, query, key)
        fits = self.hook_attn_scores(fits + causal_mask(x.size(1), k.size(2), fits, config.sliding_window))
        shares = self.hook_pattern(F.softmax(fits, dim=-1, dtype=torch.float32).to(q.dtype))
        z = self.hook_z(torch.matmul(shares, v).transpose(1, 2))  # (batch, position, heads, d_head)
        out: torch.Tensor = self.o_proj(z.reshape(*x.shape[:-1], -1).contiguous())  # (batch, position, d_model)
        return out


class FeedForward(nn.Module):
    """The gated feed-forward step: down(act(gate(x)) * up(x))."""

    def __init__(self, config: LlamaConfig) -> None:
        super().__init__()
        self.gate_proj = nn.Linear(config.n_embd, config.n_inner, bias=config.mlp_bias)
        self.up_proj = nn.Linear(config.n_embd, config.n_inner, bias=config.mlp_bias)
        self.down_proj = nn.Linear(config.n_inner, config.n_embd, bias=config.mlp_bias)
        self.act = ACTIVATIONS[config.activation]
        self.hook_pre, self.hook_pre_linear, self.hook_post = HookPoint(), HookPoint(), HookPoint()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate = self.act(self.hook_pre(self.gate_proj(x)))
        out: torch.Tensor = self.down_proj(self.hook_post(gate * self.hook_pre_linear(self.up_proj(x))))
        return out


class Block(nn.Module):
    """One layer: the attention adds its correction to the residual stream, then the feed-forward step adds its."""

    def __init__(self, config: LlamaConfig) -> None:
        super().__init__()
        self.input_layernorm = RMSNorm(config.n_embd, config.eps)
        self.self_attn = Attention(config)
        self.post_attention_layernorm = RMSNorm(config.n_embd, config.eps)
        self.mlp = FeedForward(config)
        self.hook_resid_pre, self.hook_resid_mid, self.hook_resid_post = HookPoint(), HookPoint(), HookPoint()
        self.hook_attn_out, self.hook_mlp_out = HookPoint(), HookPoint()

    def forward(self, x: torch.Tensor, past: tuple[torch.Tensor, torch.Tensor] | None = None) -> torch.Tensor:
        resid_pre = self.hook_resid_pre(x)
        attention = self.hook_attn_out(self.self_attn(self.input_layernorm(resid_pre), past))
        resid_mid = self.hook_resid_mid(resid_pre + attention)
        return self.hook_resid_post(resid_mid + self.hook_mlp_out(self.mlp(self.post_attention_layernorm(resid_mid))))


def hook_name(path: str) -> str:
    """A hook point's module path -> TransformerLens's name: model.layers.3.self_attn.hook_q ->
    blocks.3.attn.hook_q, model.layers.3.input_layernorm.hook_scale -> blocks.3.ln1.hook_scale,
    model.norm.hook_scale -> ln_final.hook_scale, model.hook_embed -> hook_embed."""
    for old, new in (
        (r"^model\.", ""),
        (r"^layers\.", "blocks."),
        (r"\.self_attn\.", ".attn."),
        (r"\.input_layernorm\.", ".ln1."),
        (r"\.post_attention_layernorm\.", ".ln2."),
        (r"^norm\.", "ln_final."),
    ):
        path = re.sub(old, new, path)
    return path


class Decoder(nn.Module):
    """The token embedding, the layers and the final norm (transformers' LlamaModel, named `model`)."""

    def __init__(self, config: LlamaConfig) -> None:
        super().__init__()
        self.embed_tokens = nn.Embedding(config.vocab_size, config.n_embd)
        self.hook_embed = HookPoint()
        self.layers = nn.ModuleList(Block(config) for _ in range(config.n_layer))
        self.norm = RMSNorm(config.n_embd, config.eps)


class LlamaForCausalLM(LanguageModel):
    """A Llama-style model and its unembedding (lm_head), with the model interface on top."""

    config: LlamaConfig

    def __init__(self, config: LlamaConfig) -> None:
        super().__init__()
        self.config = config
        self.model = Decoder(config)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        if config.tie_word_embeddings:
            self.lm_head.weight = self.model.embed_tokens.weight
        self._hook_points = {
            hook_name(path): module
            for path, module in self.named_modules()
            if isinstance(module, HookPoint) and not re.search(r"\.[qk]_norm\.", path)
        }
        for name, point in self._hook_points.items():
            point.name = name

    @property
    def hook_points(self) -> dict[str, HookPoint]:
        return self._hook_points

    @property
    def device(self) -> torch.device:
        return self.model.embed_tokens.weight.device

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        return self.model.hook_embed(self.model.embed_tokens(ids))

    def run_layers(self, stream: torch.Tensor, start: int, stop: int, past: Past | None = None) -> torch.Tensor:
        for layer in range(start, stop):
            stream = self.model.layers[layer](stream, None if past is None else past[layer])
        return stream

    def final_norm(self, stream: torch.Tensor) -> torch.Tensor:
        normed: torch.Tensor = self.model.norm(stream)
        return normed

    def unembed(self, normed: torch.Tensor) -> torch.Tensor:
        scores: torch.Tensor = self.lm_head(normed)  # (..., vocab)
        return scores

    def final_norm_weights(self) -> NormWeights:
        return NormWeights(self.model.norm.weight, None, self.model.norm.eps, centred=False)

    def unembedding_rows(self, ids: list[int]) -> torch.Tensor:
        return self.lm_head.weight[ids]

    def layer_weights(self, layer: int) -> LayerWeights:
        """nn.Linear stores (out, in): transposed views in TransformerLens's layouts; W_in is the gate's matrix;
        a bias the model lacks is zeros."""
        block, config = cast(Block, self.model.layers[layer]), self.config  # layers holds Blocks only
        o_proj, mlp = block.self_attn.o_proj, block.mlp
        zeros = torch.zeros(config.n_embd, device=self.device)
        return LayerWeights(
            o_proj.weight.T.view(config.n_head, config.d_head, config.n_embd),
            zeros if o_proj.bias is None else o_proj.bias,
            mlp.gate_proj.weight.T,
            mlp.down_proj.weight.T,
            zeros if mlp.down_proj.bias is None else mlp.down_proj.bias,
        )

    def part_of(self, parameter: str) -> WeightPart:
        if ".self_attn." in parameter and "_norm." not in parameter:
            return "attention"
        if ".mlp." in parameter:
            return "feed-forward"
        if "norm." in parameter:
            return "layer norm"
        if parameter.startswith(("model.embed_tokens", "lm_head")):
            return "embedding"
        return "other"

    def checkpoint_names(self) -> dict[str, str]:
        tied = {"lm_head.weight": "model.embed_tokens.weight"} if self.config.tie_word_embeddings else {}
        return {name: name for name in self.state_dict()} | tied

    def export_copy(self, max_tokens: int) -> LlamaForCausalLM:
        """The same weights in float32 on the CPU (rotary positions hold no table to cut)."""
        copy = LlamaForCausalLM(replace(self.config, n_positions=max_tokens))
        state = {name: tensor.detach().float().cpu() for name, tensor in self.state_dict().items()}
        copy.load_state_dict(state, strict=True, assign=True)
        if self.config.tie_word_embeddings:
            copy.lm_head.weight = copy.model.embed_tokens.weight
        return copy.requires_grad_(False).eval()
