"""The GPT-NeoX family (Pythia: config.json's model_type gpt_neox), as transformers' modeling_gpt_neox computes it,
in the manner of nanoGPT's model.py.

What it changes from GPT-2 (figsite.model.gpt2):

- rotary positions on part of each head: no position vectors are added to the stream; the first rotary_dim
  numbers of each head's query and key (Pythia: a quarter) are turned by an angle that grows with the position,
  the Llama-style family's rotation (figsite.model.llama.rotate, GPT-NeoX's rotate_half), the rest left as they are;
- a parallel layer (use_parallel_residual, Pythia's): the attention and the feed-forward step both read the
  stream entering the layer, each through its own layer norm, and both add to it at once; with it false, a
  layer is GPT-2's, the feed-forward step reading the stream after the attention;
- the query, key and value in one matrix (query_key_value) as GPT-2's, but laid out head by head: each head's
  query, key and value side by side, (heads, 3 x d_head);
- the unembedding (embed_out) a matrix of its own, not the token embedding; attention biases only with
  attention_bias (Pythia's: true); LayerNorm with a bias, as GPT-2's.

The hook points carry TransformerLens's names, as GPT-2's do (see figsite.model.interface), less hook_pos_embed
(blocks.0.hook_resid_pre is the token embedding) and with blocks.L.attn.hook_rot_q and hook_rot_k after the
rotation (hook_q and hook_k before it), as the Llama-style family's. A parallel layer's hook_resid_mid passes the
stream plus the attention's output, which the feed-forward step does not read (docs/model.md's rule; TransformerLens
passes nothing there in a parallel layer); patching it changes the layer's output, not what its feed-forward step
reads.

The modules and parameters keep transformers' names (gpt_neox.layers.3.attention.query_key_value.weight, ...), so
a GPTNeoXForCausalLM's save_pretrained directory and Pythia's checkpoints load as they are
(figsite.model.checkpoint).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

from figsite.model.interface import HookPoint, LanguageModel, LayerWeights, NormWeights, Past

import torch
from torch import nn
from torch.nn import functional as F

from figsite.model.gpt2 import LayerNorm
from figsite.model.llama import ACTIVATIONS, causal_mask, rotate
from figsite.records import WeightPart

MODEL_TYPES = ("gpt_neox",)


@dataclass(frozen=True)
class NeoXConfig:
    """A GPT-NeoX model's shape, under the interface's names (GPT-2's: n_layer, n_head, n_embd, vocab_size,
    n_positions, n_inner) and the ones a family varies (rotary_dim, parallel, ...)."""

    vocab_size: int
    n_embd: int
    n_inner: int
    n_layer: int
    n_head: int
    n_positions: int
    eps: float
    rope_theta: float
    rotary_dim: int  # how many of each head's numbers the rotation turns (Pythia: d_head / 4)
    parallel: bool  # use_parallel_residual: attention and feed-forward read the same stream
    attention_bias: bool
    activation: str
    tie_word_embeddings: bool
    model_type: str = "gpt_neox"
    norm: str = "layernorm"
    positions: str = "rotary"
    gated: bool = False

    @property
    def d_head(self) -> int:
        return self.n_embd // self.n_head

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> NeoXConfig:
        """The config of config.json's values (Pythia's rotary_pct and rotary_emb_base, or transformers'
        rope_parameters); ValueError names what this family cannot be."""
        if values.get("model_type") not in MODEL_TYPES:
            raise ValueError(f"a '{values.get('model_type')}' model")
        rope = values.get("rope_parameters") or values.get("rope_scaling") or {}
        rope_type = rope.get("rope_type", rope.get("type", "default"))
        if rope_type != "default":
            raise ValueError(f"a model with rotary positions of type '{rope_type}' (only 'default' is supported)")
        hidden, heads = values["hidden_size"], values["num_attention_heads"]
        if hidden % heads:
            raise ValueError(f"hidden_size {hidden} is not a multiple of num_attention_heads {heads}")
        factor = rope.get("partial_rotary_factor", values.get("rotary_pct", 0.25))
        activation = values.get("hidden_act", "gelu")
        if activation not in ACTIVATIONS:
            raise ValueError(f"hidden_act {activation!r}; allowed: {', '.join(ACTIVATIONS)}")
        return cls(
            values["vocab_size"],
            hidden,
            values.get("intermediate_size") or 4 * hidden,
            values["num_hidden_layers"],
            heads,
            values.get("max_position_embeddings", 2048),
            values.get("layer_norm_eps", 1e-5),
            rope.get("rope_theta", values.get("rotary_emb_base", 10000.0)),
            int(hidden // heads * factor),
            bool(values.get("use_parallel_residual", True)),
            bool(values.get("attention_bias", True)),
            activation,
            bool(values.get("tie_word_embeddings", False)),
        )

    @property
    def n_weights(self) -> int:
        """How many numbers the model holds (the memory estimate's, before they load): the token embedding and
        the unembedding (one matrix if tied), each layer's query_key_value and output projection (biases with
        attention_bias), feed-forward step with its biases and two layer norms, and the final layer norm."""
        d, inner = self.n_embd, self.n_inner
        attention = 4 * d * d + (4 * d if self.attention_bias else 0)
        per_layer = attention + 2 * d * inner + inner + d + 4 * d
        unembedding = 0 if self.tie_word_embeddings else self.vocab_size * d
        return self.vocab_size * d + unembedding + self.n_layer * per_layer + 2 * d

    @classmethod
    def from_file(cls, path: Path) -> NeoXConfig:
        return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))


class Attention(nn.Module):
    """Every head's query, key and value from one matrix, the first rotary_dim numbers of the query and key turned;
    transformers' GPTNeoXAttention with eager attention."""

    def __init__(self, config: NeoXConfig) -> None:
        super().__init__()
        self.config = config
        self.query_key_value = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.attention_bias)
        self.dense = nn.Linear(config.n_embd, config.n_embd, bias=config.attention_bias)
        self.hook_q, self.hook_k, self.hook_v = HookPoint(), HookPoint(), HookPoint()  # before the rotation
        self.hook_rot_q, self.hook_rot_k = HookPoint(), HookPoint()  # after it
        self.hook_attn_scores, self.hook_pattern = HookPoint(), HookPoint()  # (batch, heads, query, key)
        self.hook_z = HookPoint()  # (batch, position, heads, d_head)

    def forward(self, x: torch.Tensor, past: tuple[torch.Tensor, torch.Tensor] | None = None) -> torch.Tensor:
        """x (batch, position, d_model) -> the attention's output (batch, position, d_model). past: the keys and
        values of earlier positions as hook_k and hook_v pass them, (1, earlier, heads, d_head) each."""
        config = self.config
        qkv = self.query_key_value(x).view(*x.shape[:-1], config.n_head, 3 * config.d_head)
        q, k, v = qkv.chunk(3, dim=-1)  # each (batch, position, heads, d_head): a head's three side by side
        q, k, v = self.hook_q(q), self.hook_k(k), self.hook_v(v)
        earlier = 0 if past is None else past[0].size(1)
        q = self.hook_rot_q(rotate(q, earlier, config.rope_theta, config.rotary_dim))
        k = self.hook_rot_k(rotate(k, earlier, config.rope_theta, config.rotary_dim))
        if past is not None:  # the earlier keys turned by their own positions, in front
            kept_k = rotate(past[0], 0, config.rope_theta, config.rotary_dim).expand(len(x), -1, -1, -1)
            k, v = torch.cat([kept_k, k], dim=1), torch.cat([past[1].expand(len(x), -1, -1, -1), v], dim=1)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))  # (batch, heads, position, d_head)
        fits = torch.matmul(q, k.transpose(2, 3)) * config.d_head**-0.5  # (batch, heads, query, key)
        fits = self.hook_attn_scores(fits + causal_mask(x.size(1), k.size(2), fits, None))
        shares = self.hook_pattern(F.softmax(fits, dim=-1, dtype=torch.float32).to(q.dtype))
        z = self.hook_z(torch.matmul(shares, v).transpose(1, 2))  # (batch, position, heads, d_head)
        out: torch.Tensor = self.dense(z.reshape(*x.shape[:-1], -1).contiguous())  # (batch, position, d_model)
        return out


class FeedForward(nn.Module):
    """Each token alone: widen (dense_h_to_4h), the activation, narrow back (dense_4h_to_h), with biases."""

    def __init__(self, config: NeoXConfig) -> None:
        super().__init__()
        self.dense_h_to_4h = nn.Linear(config.n_embd, config.n_inner)
        self.dense_4h_to_h = nn.Linear(config.n_inner, config.n_embd)
        self.act = ACTIVATIONS[config.activation]
        self.hook_pre, self.hook_post = HookPoint(), HookPoint()  # (batch, position, inner): before, after act

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.dense_4h_to_h(self.hook_post(self.act(self.hook_pre(self.dense_h_to_4h(x)))))
        return out


class Block(nn.Module):
    """One layer: attention and feed-forward step side by side on the same stream (parallel), or one after the
    other as GPT-2's."""

    def __init__(self, config: NeoXConfig) -> None:
        super().__init__()
        self.parallel = config.parallel
        self.input_layernorm = LayerNorm(config.n_embd, config.eps)
        self.post_attention_layernorm = LayerNorm(config.n_embd, config.eps)
        self.attention = Attention(config)
        self.mlp = FeedForward(config)
        self.hook_resid_pre, self.hook_resid_mid, self.hook_resid_post = HookPoint(), HookPoint(), HookPoint()
        self.hook_attn_out, self.hook_mlp_out = HookPoint(), HookPoint()

    def forward(self, x: torch.Tensor, past: tuple[torch.Tensor, torch.Tensor] | None = None) -> torch.Tensor:
        resid_pre = self.hook_resid_pre(x)
        attention = self.hook_attn_out(self.attention(self.input_layernorm(resid_pre), past))
        resid_mid = self.hook_resid_mid(attention + resid_pre)
        read = resid_pre if self.parallel else resid_mid  # what the feed-forward step reads
        return self.hook_resid_post(resid_mid + self.hook_mlp_out(self.mlp(self.post_attention_layernorm(read))))


def hook_name(path: str) -> str:
    """A hook point's module path -> TransformerLens's name: gpt_neox.layers.3.attention.hook_q ->
    blocks.3.attn.hook_q, gpt_neox.layers.3.input_layernorm.hook_scale -> blocks.3.ln1.hook_scale,
    gpt_neox.final_layer_norm.hook_scale -> ln_final.hook_scale, gpt_neox.hook_embed -> hook_embed."""
    for old, new in (
        (r"^gpt_neox\.", ""),
        (r"^layers\.", "blocks."),
        (r"\.attention\.", ".attn."),
        (r"\.input_layernorm\.", ".ln1."),
        (r"\.post_attention_layernorm\.", ".ln2."),
        (r"^final_layer_norm\.", "ln_final."),
    ):
        path = re.sub(old, new, path)
    return path


class Decoder(nn.Module):
    """The token embedding, the layers and the final layer norm (transformers' GPTNeoXModel, named gpt_neox)."""

    def __init__(self, config: NeoXConfig) -> None:
        super().__init__()
        self.embed_in = nn.Embedding(config.vocab_size, config.n_embd)
        self.hook_embed = HookPoint()
        self.layers = nn.ModuleList(Block(config) for _ in range(config.n_layer))
        self.final_layer_norm = LayerNorm(config.n_embd, config.eps)


class GPTNeoXForCausalLM(LanguageModel):
    """A GPT-NeoX model and its unembedding (embed_out, as Pythia's checkpoints name it), with the model interface
    on top."""

    # Pythia's checkpoints store the unembedding as embed_out; transformers 5 names it lm_head in memory.
    CHECKPOINT_ALIASES = {"lm_head.weight": "embed_out.weight"}
    config: NeoXConfig

    def __init__(self, config: NeoXConfig) -> None:
        super().__init__()
        self.config = config
        self.gpt_neox = Decoder(config)
        self.embed_out = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        if config.tie_word_embeddings:
            self.embed_out.weight = self.gpt_neox.embed_in.weight
        self._hook_points = {
            hook_name(path): module for path, module in self.named_modules() if isinstance(module, HookPoint)
        }
        for name, point in self._hook_points.items():
            point.name = name

    @property
    def hook_points(self) -> dict[str, HookPoint]:
        return self._hook_points

    @property
    def device(self) -> torch.device:
        return self.gpt_neox.embed_in.weight.device

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        return self.gpt_neox.hook_embed(self.gpt_neox.embed_in(ids))

    def run_layers(self, stream: torch.Tensor, start: int, stop: int, past: Past | None = None) -> torch.Tensor:
        for layer in range(start, stop):
            stream = self.gpt_neox.layers[layer](stream, None if past is None else past[layer])
        return stream

    def final_norm(self, stream: torch.Tensor) -> torch.Tensor:
        normed: torch.Tensor = self.gpt_neox.final_layer_norm(stream)
        return normed

    def unembed(self, normed: torch.Tensor) -> torch.Tensor:
        scores: torch.Tensor = self.embed_out(normed)  # (..., vocab)
        return scores

    def final_norm_weights(self) -> NormWeights:
        norm = self.gpt_neox.final_layer_norm
        return NormWeights(norm.weight, norm.bias, norm.eps)

    def unembedding_rows(self, ids: list[int]) -> torch.Tensor:
        return self.embed_out.weight[ids]

    def layer_weights(self, layer: int) -> LayerWeights:
        """nn.Linear stores (out, in): transposed views in TransformerLens's layouts; a bias the model lacks is
        zeros."""
        block, config = cast(Block, self.gpt_neox.layers[layer]), self.config  # layers holds Blocks only
        dense, mlp = block.attention.dense, block.mlp
        b_o = torch.zeros(config.n_embd, device=self.device) if dense.bias is None else dense.bias
        return LayerWeights(
            dense.weight.T.view(config.n_head, config.d_head, config.n_embd),
            b_o,
            mlp.dense_h_to_4h.weight.T,
            mlp.dense_4h_to_h.weight.T,
            mlp.dense_4h_to_h.bias,
        )

    def part_of(self, parameter: str) -> WeightPart:
        if ".attention." in parameter:
            return "attention"
        if ".mlp." in parameter:
            return "feed-forward"
        if "layernorm." in parameter or "final_layer_norm." in parameter:
            return "layer norm"
        if parameter.startswith(("gpt_neox.embed_in", "embed_out")):
            return "embedding"
        return "other"

    def checkpoint_names(self) -> dict[str, str]:
        tied = {"embed_out.weight": "gpt_neox.embed_in.weight"} if self.config.tie_word_embeddings else {}
        return {name: name for name in self.state_dict()} | tied

    def export_copy(self, max_tokens: int) -> GPTNeoXForCausalLM:
        """The same weights in float32 on the CPU (rotary positions hold no table to cut)."""
        copy = GPTNeoXForCausalLM(replace(self.config, n_positions=max_tokens))
        state = {name: tensor.detach().float().cpu() for name, tensor in self.state_dict().items()}
        copy.load_state_dict(state, strict=True, assign=True)
        if self.config.tie_word_embeddings:
            copy.embed_out.weight = copy.gpt_neox.embed_in.weight
        return copy.requires_grad_(False).eval()
