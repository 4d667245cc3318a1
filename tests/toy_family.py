"""A toy model family, written in the test folder to show that a family is one module and one registration
(docs/model.md, "Adding a model family"): config.json's model_type "toy". Unlike every built family it has no
position information at all (no table, no rotation: a token tells its place only by what it can see), no norm
inside its layers, and a final norm that divides by the root mean square and has a gain but no bias. Each layer:
attention with separate q, k, v and output matrices, then a ReLU feed-forward step, each added to the stream.

tests/unit/test_toy_family.py registers it with figsite.model.load.register_family and builds figures on it;
nothing in figsite/capture or figures/ knows of it.
"""

from __future__ import annotations

from dataclasses import dataclass

from figsite.model.interface import HookPoint, LanguageModel, LayerWeights, NormWeights

import torch
from torch import nn
from torch.nn import functional as F

MODEL_TYPES = ("toy",)


@dataclass(frozen=True)
class ToyConfig:
    """The toy's shape under the interface's names."""

    vocab_size: int
    n_embd: int
    n_layer: int
    n_head: int
    n_positions: int = 256
    eps: float = 1e-6
    model_type: str = "toy"

    @property
    def n_inner(self) -> int:
        return 2 * self.n_embd

    @property
    def d_head(self) -> int:
        return self.n_embd // self.n_head

    @property
    def n_weights(self) -> int:
        """The embedding, the unembedding, each layer's four attention matrices and two feed-forward ones, the
        final norm's gain."""
        d = self.n_embd
        return 2 * self.vocab_size * d + self.n_layer * (4 * d * d + 2 * d * self.n_inner) + d

    @classmethod
    def from_dict(cls, values: dict) -> ToyConfig:
        if values["n_embd"] % values["n_head"]:
            raise ValueError(f"n_embd {values['n_embd']} is not a multiple of n_head {values['n_head']}")
        return cls(values["vocab_size"], values["n_embd"], values["n_layer"], values["n_head"])


class Layer(nn.Module):
    """Attention, then the feed-forward step, each reading the stream as it is (no norm) and adding to it."""

    def __init__(self, config: ToyConfig):
        super().__init__()
        d = config.n_embd
        self.config = config
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.up, self.down = nn.Linear(d, config.n_inner, bias=False), nn.Linear(config.n_inner, d, bias=False)
        names = (
            "hook_q",
            "hook_k",
            "hook_v",
            "hook_attn_scores",
            "hook_pattern",
            "hook_z",
            "hook_pre",
            "hook_post",
            "hook_resid_pre",
            "hook_resid_mid",
            "hook_resid_post",
            "hook_attn_out",
            "hook_mlp_out",
        )
        for name in names:
            setattr(self, name, HookPoint())

    def attend(self, x: torch.Tensor, past: tuple | None) -> torch.Tensor:
        shape = (*x.shape[:-1], self.config.n_head, self.config.d_head)
        q, k, v = (
            hook(linear(x).view(shape))
            for hook, linear in ((self.hook_q, self.q), (self.hook_k, self.k), (self.hook_v, self.v))
        )
        if past is not None:
            k, v = (torch.cat([kept.expand(len(x), -1, -1, -1), t], dim=1) for kept, t in zip(past, (k, v)))
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))  # (batch, heads, position, d_head)
        fits = q @ k.transpose(2, 3) / self.config.d_head**0.5
        earlier = k.size(2) - x.size(1)
        hidden = torch.ones(x.size(1), k.size(2), dtype=torch.bool, device=x.device).triu(earlier + 1)
        fits = self.hook_attn_scores(fits.masked_fill(hidden, torch.finfo(fits.dtype).min))
        z = self.hook_z((self.hook_pattern(fits.softmax(-1)) @ v).transpose(1, 2))  # (batch, position, heads, d_head)
        return self.o(z.reshape(*x.shape))

    def forward(self, x: torch.Tensor, past: tuple | None = None) -> torch.Tensor:
        resid_pre = self.hook_resid_pre(x)
        resid_mid = self.hook_resid_mid(resid_pre + self.hook_attn_out(self.attend(resid_pre, past)))
        neurons = self.hook_post(F.relu(self.hook_pre(self.up(resid_mid))))
        return self.hook_resid_post(resid_mid + self.hook_mlp_out(self.down(neurons)))


class ToyModel(LanguageModel):
    """The toy and the model interface; its parameters are stored under these names (embed.weight,
    layers.0.q.weight, ..., norm, unembed.weight)."""

    def __init__(self, config: ToyConfig):
        super().__init__()
        self.config = config
        self.embed_tokens = nn.Embedding(config.vocab_size, config.n_embd)
        self.layers = nn.ModuleList(Layer(config) for _ in range(config.n_layer))
        self.norm = nn.Parameter(torch.ones(config.n_embd))
        self.unembed_tokens = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.hook_embed, self.hook_scale = HookPoint(), HookPoint()
        self._points = {"hook_embed": self.hook_embed, "ln_final.hook_scale": self.hook_scale}
        for layer, module in enumerate(self.layers):
            for name, point in module.named_children():
                if isinstance(point, HookPoint):
                    prefix = (
                        "attn."
                        if name in ("hook_q", "hook_k", "hook_v", "hook_attn_scores", "hook_pattern", "hook_z")
                        else "mlp."
                        if name in ("hook_pre", "hook_post")
                        else ""
                    )
                    self._points[f"blocks.{layer}.{prefix}{name}"] = point
        for name, point in self._points.items():
            point.name = name

    @property
    def hook_points(self) -> dict:
        return self._points

    @property
    def device(self) -> torch.device:
        return self.norm.device

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        return self.hook_embed(self.embed_tokens(ids))

    def run_layers(self, stream: torch.Tensor, start: int, stop: int, past: dict | None = None) -> torch.Tensor:
        for layer in range(start, stop):
            stream = self.layers[layer](stream, None if past is None else past[layer])
        return stream

    def final_norm(self, stream: torch.Tensor) -> torch.Tensor:
        scale = self.hook_scale(torch.sqrt(stream.pow(2).mean(-1, keepdim=True) + self.config.eps))
        return self.norm * stream / scale

    def unembed(self, normed: torch.Tensor) -> torch.Tensor:
        return self.unembed_tokens(normed)

    def final_norm_weights(self) -> NormWeights:
        return NormWeights(self.norm, None, self.config.eps, centred=False)

    def unembedding_rows(self, ids: list[int]) -> torch.Tensor:
        return self.unembed_tokens.weight[ids]

    def layer_weights(self, layer: int) -> LayerWeights:
        block, config = self.layers[layer], self.config
        zeros = torch.zeros(config.n_embd, device=self.device)
        return LayerWeights(
            block.o.weight.T.view(config.n_head, config.d_head, config.n_embd),
            zeros,
            block.up.weight.T,
            block.down.weight.T,
            zeros,
        )

    def part_of(self, parameter: str) -> str:
        if parameter.split(".")[-2:-1] in (["q"], ["k"], ["v"], ["o"]):
            return "attention"
        if parameter.split(".")[-2:-1] in (["up"], ["down"]):
            return "feed-forward"
        return {"norm": "layer norm", "embed_tokens.weight": "embedding", "unembed_tokens.weight": "embedding"}.get(
            parameter, "other"
        )

    def checkpoint_names(self) -> dict:
        return {name: name for name in self.state_dict()}

    def export_copy(self, max_tokens: int) -> ToyModel:
        return self
