"""GPT-2 as OpenAI built it and as Hugging Face's checkpoints hold it, in the manner of nanoGPT's model.py.

Why our own rather than transformers' GPT2LMHeadModel: importing transformers' GPT-2 takes two seconds of a
build of the chapter that takes about four (torch itself takes one); this file is the model in under 400 lines
(its config: figsite.model.gpt2_config; its checkpoints' loading: figsite.model.checkpoint). It keeps what the
build relies on of Hugging Face's model, so that its checkpoints fit:

- the same parameter names (transformer.h.0.attn.c_attn.weight, ...) and weight layouts (Conv1D keeps
  (in, out)): a save_pretrained directory or the hub's `gpt2` loads as it is, and save_pretrained here
  writes a directory that transformers loads;
- the same modules at the same places (transformer.drop after the embedding, each block's attn, mlp,
  attn.c_proj, mlp.c_proj, transformer.ln_f), with the same outputs (an attention module returns its output
  and its shares), so that transformers' own tests' hooks fit too;
- the same operations in the same order, so the same numbers to the last bit: tests/unit/test_gpt2.py holds the
  shares, the residual stream and the scores equal to transformers' on the same weights.

GPT2LMHeadModel implements the model interface (figsite.model.interface.LanguageModel): the capture runs it in
pieces (embed, run_layers, read_out) and reads what it computes at its hook points (HookPoint, TransformerLens's
names: `hook_embed`, `blocks.L.attn.hook_pattern`, `blocks.L.hook_resid_post`, ...); it never names a module or
a weight of this file.

The tokenizer is figsite.model.tokens.Tokenizer (also reached here, as gpt2.Tokenizer); GPT-2's initialisation
of a model with random weights is figsite.model.load's.
"""

from __future__ import annotations

import re
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import cast

from figsite.model.interface import (
    HookFunctions,
    HookPoint,
    LanguageModel,
    LayerWeights,
    NormWeights,
    Past,
    hooks_added,
)

import torch
from torch import nn
from torch.nn import functional as F

from figsite.records import WeightPart
from figsite.model.tokens import Tokenizer  # noqa: F401 - the model's tokenizer, beside it as Hugging Face's is
from figsite.model.gpt2_config import ACTIVATIONS, GPT2Config as GPT2Config


class Embedding(nn.Embedding):
    """A table of vectors made without drawing them: they come from a checkpoint, or from GPT-2's initialisation
    (figsite.model.load.random_model)."""

    def reset_parameters(self) -> None:
        pass


class Linear(nn.Linear):
    """A linear map made without drawing its weights (GPT-2's unembedding is the token embedding)."""

    def reset_parameters(self) -> None:
        pass


class Conv1D(nn.Module):
    """A linear map stored as GPT-2's checkpoints store it: weight (in, out), applied as bias + x @ weight."""

    def __init__(self, n_in: int, n_out: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n_in, n_out))
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)  # (rows, out)
        return out.view(*x.shape[:-1], out.size(-1))


class LayerNorm(nn.LayerNorm):
    """torch's layer norm, with a hook point at its scale: the standard deviation it divides by, (..., 1).
    The scale is worked out again only where a function reads it (and is read only: the norm uses its own)."""

    def __init__(self, n_embd: int, eps: float) -> None:
        super().__init__(n_embd, eps=eps)
        self.hook_scale = HookPoint()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.hook_scale.functions:
            self.hook_scale(torch.sqrt(x.var(dim=-1, unbiased=False, keepdim=True) + self.eps))  # (..., 1)
        return super().forward(x)


def causal_mask(n: int, like: torch.Tensor) -> torch.Tensor:
    """What the attention adds to its fits, (1, 1, query, key): the lowest number where a key comes after the
    query (a token never looks right: its share comes out exactly 0), 0 elsewhere."""
    lowest = torch.finfo(like.dtype).min
    return torch.full((n, n), lowest, dtype=like.dtype, device=like.device).triu(1)[None, None]


class Attention(nn.Module):
    """Each head: every token's query against the keys of the tokens up to it, shares by softmax, and the
    values mixed by those shares; the heads' outputs side by side, then one projection (c_proj)."""

    def __init__(self, config: GPT2Config, layer: int) -> None:
        super().__init__()
        self.n_head, self.n_embd = config.n_head, config.n_embd
        self.c_attn = Conv1D(config.n_embd, 3 * config.n_embd)  # query, key and value of every head at once
        self.c_proj = Conv1D(config.n_embd, config.n_embd)
        self.scaling = config.d_head**-0.5 if config.scale_attn_weights else 1.0
        if config.scale_attn_by_inverse_layer_idx:
            self.scaling /= float(layer + 1)
        self.hook_q, self.hook_k, self.hook_v = (
            HookPoint(),
            HookPoint(),
            HookPoint(),
        )  # (batch, position, heads, d_head)
        self.hook_attn_scores = HookPoint()  # (batch, heads, query, key): the fits, scaled and masked
        self.hook_pattern = HookPoint()  # (batch, heads, query, key): the shares
        self.hook_z = HookPoint()  # (batch, position, heads, d_head): the values mixed by the shares, per head

    def forward(
        self, x: torch.Tensor, attention_mask: torch.Tensor | None = None, past: tuple[torch.Tensor, ...] | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """x: (batch, position, d_model) -> the output (batch, position, d_model), the shares (batch, heads,
        query, key). past: the keys and values of positions before x's, (1, heads, earlier, d_head) each, the same
        for every row (then attention_mask must say what each query may see, (1, 1, query, earlier + position))."""
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)  # each (batch, position, d_model)
        q, k, v = (t.view(*t.shape[:-1], self.n_head, -1) for t in (q, k, v))  # each (batch, position, heads, d_head)
        q, k, v = (hook(t).transpose(1, 2) for hook, t in ((self.hook_q, q), (self.hook_k, k), (self.hook_v, v)))
        if past is not None:  # each now (batch, heads, earlier + position, d_head)
            k, v = (torch.cat([kept.expand(len(x), -1, -1, -1), t], dim=2) for kept, t in zip(past, (k, v)))
        fits = torch.matmul(q, k.transpose(-1, -2)) * self.scaling  # (batch, heads, query, key)
        fits = fits + (causal_mask(x.size(1), fits) if attention_mask is None else attention_mask)
        shares = self.hook_pattern(F.softmax(self.hook_attn_scores(fits), dim=-1))  # (batch, heads, query, key)
        z = self.hook_z(torch.matmul(shares, v).transpose(1, 2))  # (batch, position, heads, d_head)
        mixed = z.reshape(*z.shape[:-2], -1).contiguous()  # (batch, position, d_model): heads side by side
        return self.c_proj(mixed), shares


class FeedForward(nn.Module):
    """Each token alone: widen (c_fc), the activation, narrow back (c_proj)."""

    def __init__(self, config: GPT2Config) -> None:
        super().__init__()
        inner = config.n_inner or 4 * config.n_embd
        self.c_fc = Conv1D(config.n_embd, inner)
        self.c_proj = Conv1D(inner, config.n_embd)
        self.act = ACTIVATIONS[config.activation_function]
        self.hook_pre, self.hook_post = HookPoint(), HookPoint()  # (batch, position, inner): before, after act

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.c_proj(self.hook_post(self.act(self.hook_pre(self.c_fc(x)))))  # (..., d_model)
        return out


class Block(nn.Module):
    """One layer: the attention adds its correction to the residual stream, then the feed-forward step adds its."""

    def __init__(self, config: GPT2Config, layer: int) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd, eps=config.layer_norm_epsilon)
        self.attn = Attention(config, layer)
        self.ln_2 = nn.LayerNorm(config.n_embd, eps=config.layer_norm_epsilon)
        self.mlp = FeedForward(config)
        # The residual stream before, between and after the layer's two steps, and what each step adds to it;
        # all (batch, position, d_model).
        self.hook_resid_pre, self.hook_resid_mid, self.hook_resid_post = HookPoint(), HookPoint(), HookPoint()
        self.hook_attn_out, self.hook_mlp_out = HookPoint(), HookPoint()

    def forward(
        self, x: torch.Tensor, attention_mask: torch.Tensor | None = None, past: tuple[torch.Tensor, ...] | None = None
    ) -> torch.Tensor:
        resid_pre = self.hook_resid_pre(x)
        attention, _ = self.attn(self.ln_1(resid_pre), attention_mask, past)
        resid_mid = self.hook_resid_mid(self.hook_attn_out(attention) + resid_pre)
        return self.hook_resid_post(resid_mid + self.hook_mlp_out(self.mlp(self.ln_2(resid_mid))))


@dataclass
class Output:
    last_hidden_state: torch.Tensor  # (batch, position, d_model), the final layer norm applied
    attentions: tuple[torch.Tensor, ...] | None = None  # per layer (batch, heads, query, key), where asked for


def hook_name(path: str) -> str:
    """A hook point's module path under Transformer -> TransformerLens's name for it:
    h.3.attn.hook_pattern -> blocks.3.attn.hook_pattern, ln_f.hook_scale -> ln_final.hook_scale."""
    return re.sub(r"^h\.", "blocks.", re.sub(r"^ln_f\.", "ln_final.", path))


class Transformer(nn.Module):
    """The embedding, the layers and the final layer norm: token ids -> the normalised residual stream.

    Its hook points (`hook_points`: name -> HookPoint) carry TransformerLens's names; `hooks` adds functions to
    them for a while. The modules keep Hugging Face's names, which the checkpoints' weights are stored under."""

    def __init__(self, config: GPT2Config) -> None:
        super().__init__()
        self.wte = Embedding(config.vocab_size, config.n_embd)
        self.wpe = Embedding(config.n_positions, config.n_embd)
        self.hook_embed, self.hook_pos_embed = HookPoint(), HookPoint()  # (batch, position, d_model)
        self.drop = nn.Identity()  # where GPT-2 trains with dropout (Hugging Face's module, kept in its place)
        self.h = nn.ModuleList(Block(config, layer) for layer in range(config.n_layer))
        self.ln_f = LayerNorm(config.n_embd, eps=config.layer_norm_epsilon)
        self.hook_points = {
            hook_name(path): module for path, module in self.named_modules() if isinstance(module, HookPoint)
        }
        for name, point in self.hook_points.items():
            point.name = name

    def hooks(self, functions: HookFunctions) -> AbstractContextManager[None]:
        """{hook point name: function} (or a list of functions) added while a `with` block runs
        (figsite.model.interface.hooks_added)."""
        return hooks_added(self.hook_points, functions)

    def embed(self, input_ids: torch.Tensor) -> torch.Tensor:
        """Token ids (batch, position) -> the token and position embeddings added (batch, position, d_model)."""
        n = input_ids.size(1)
        embed = self.hook_embed(self.wte(input_ids))  # (batch, position, d_model)
        pos_embed = self.hook_pos_embed(
            self.wpe(torch.arange(n, device=input_ids.device))[None]
        )  # (1, position, d_model)
        stream: torch.Tensor = self.drop(embed + pos_embed)  # (batch, position, d_model)
        return stream

    def layers(self, x: torch.Tensor, start: int, stop: int, past: Past | None = None) -> torch.Tensor:
        """Blocks start..stop-1 over x (batch, position, d_model); past: {layer: (keys, values)}, each (1, earlier,
        heads, d_head) as hook_k and hook_v pass them, of the positions before x's (LanguageModel.run_layers)."""
        earlier = 0 if past is None else past[start][0].size(1)
        mask = causal_mask(earlier + x.size(1), x)  # (1, 1, query, key)
        mask = mask[..., earlier:, :] if earlier else mask  # the later queries' rows
        for layer in range(start, stop):
            kept = (
                None if past is None else tuple(t.transpose(1, 2) for t in past[layer])
            )  # (1, heads, earlier, d_head)
            x = self.h[layer](x, attention_mask=mask, past=kept)
        return x

    def forward(self, input_ids: torch.Tensor, output_attentions: bool = False) -> Output:
        attentions = []
        keep = (
            {
                f"blocks.{layer}.attn.hook_pattern": lambda shares, _name: attentions.append(shares)
                for layer in range(len(self.h))
            }
            if output_attentions
            else {}
        )
        with self.hooks(keep):
            x = self.layers(self.embed(input_ids), 0, len(self.h))
        return Output(self.ln_f(x), tuple(attentions) if output_attentions else None)


class GPT2LMHeadModel(LanguageModel):
    """GPT-2: the transformer, and the unembedding (lm_head) that turns its last stream into scores; the model
    interface (figsite.model.interface) on top, the only code that reads these modules for the capture."""

    config: GPT2Config

    def __init__(self, config: GPT2Config) -> None:
        super().__init__()
        self.config = config
        self.transformer = Transformer(config)
        self.lm_head = Linear(config.n_embd, config.vocab_size, bias=False)
        if config.tie_word_embeddings:
            self.lm_head.weight = self.transformer.wte.weight

    @property
    def device(self) -> torch.device:
        return self.transformer.wte.weight.device

    @property
    def hook_points(self) -> dict[str, HookPoint]:
        """name -> HookPoint, TransformerLens's names (see Transformer)."""
        return self.transformer.hook_points

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        """Token ids (batch, position) -> scores (batch, position, vocab)."""
        scores: torch.Tensor = self.lm_head(self.transformer(input_ids).last_hidden_state)
        return scores

    # ------------------------------------------------------------------------------ the model interface

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        return self.transformer.embed(ids)

    def run_layers(self, stream: torch.Tensor, start: int, stop: int, past: Past | None = None) -> torch.Tensor:
        return self.transformer.layers(stream, start, stop, past)

    def final_norm(self, stream: torch.Tensor) -> torch.Tensor:
        normed: torch.Tensor = self.transformer.ln_f(stream)
        return normed

    def unembed(self, normed: torch.Tensor) -> torch.Tensor:
        scores: torch.Tensor = self.lm_head(normed)  # (..., vocab)
        return scores

    def final_norm_weights(self) -> NormWeights:
        ln_f = self.transformer.ln_f
        return NormWeights(ln_f.weight, ln_f.bias, ln_f.eps)

    def unembedding_rows(self, ids: list[int]) -> torch.Tensor:
        return self.lm_head.weight[ids]  # (tokens, d_model)

    def layer_weights(self, layer: int) -> LayerWeights:
        """Conv1D stores (in, out): W_O's rows are the heads' outputs side by side, so a view splits them."""
        block, n_head = cast(Block, self.transformer.h[layer]), self.config.n_head  # h holds Blocks only
        w_o = block.attn.c_proj.weight  # (heads x d_head, d_model)
        return LayerWeights(
            w_o.view(n_head, -1, w_o.size(-1)),
            block.attn.c_proj.bias,
            block.mlp.c_fc.weight,
            block.mlp.c_proj.weight,
            block.mlp.c_proj.bias,
        )

    def part_of(self, parameter: str) -> WeightPart:
        """By Hugging Face's names: transformer.h.3.attn.c_attn.weight is the attention's."""
        if ".attn." in parameter:
            return "attention"
        if ".mlp." in parameter:
            return "feed-forward"
        if ".ln_" in parameter:
            return "layer norm"
        if parameter.startswith(("transformer.wte", "transformer.wpe")):
            return "embedding"
        return "other"

    def checkpoint_names(self) -> dict[str, str]:
        """The state_dict's own names; the tied unembedding is stored as the token embedding."""
        tied = {"lm_head.weight": "transformer.wte.weight"} if self.config.tie_word_embeddings else {}
        return {name: name for name in self.state_dict()} | tied

    def export_copy(self, max_tokens: int) -> GPT2LMHeadModel:
        """The position embedding cut to its first max_tokens rows; the other weights shared (no copy on the CPU)."""
        config = GPT2Config(**{**asdict(self.config), "n_positions": max_tokens})
        state = {name: tensor.detach().float().cpu() for name, tensor in self.state_dict().items()}
        state["transformer.wpe.weight"] = state["transformer.wpe.weight"][:max_tokens]
        copy = GPT2LMHeadModel(config)
        copy.load_state_dict(state, strict=True, assign=True)
        if config.tie_word_embeddings:
            copy.lm_head.weight = copy.transformer.wte.weight
        return copy.requires_grad_(False).eval()

    def save_pretrained(self, directory: Path | str) -> None:
        """config.json and model.safetensors as transformers writes them (the tied unembedding left out)."""
        from safetensors.torch import save_file

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        self.config.to_json_file(directory / "config.json")
        state = {name: tensor.detach().contiguous().cpu() for name, tensor in self.state_dict().items()}
        if self.config.tie_word_embeddings:
            del state["lm_head.weight"]
        save_file(state, str(directory / "model.safetensors"), metadata={"format": "pt"})
