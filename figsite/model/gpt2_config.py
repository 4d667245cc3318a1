"""GPT-2's config (figsite.model.gpt2): the model's shape as a checkpoint's config.json gives it, with Hugging Face's
names, read and checked (from_dict: ValueError names what the model cannot be) and written as transformers writes
it; and the activation functions a config may name (ACTIVATIONS), GPT-2's own first.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch.nn import functional as F

ACTIVATIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    # GPT-2's own: the tanh approximation of GELU, written as OpenAI (and transformers' "gelu_new") write it.
    "gelu_new": lambda x: 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0)))),
    "gelu_pytorch_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "gelu": F.gelu,
    "relu": F.relu,
}


@dataclass
class GPT2Config:
    """A GPT-2's shape, as config.json gives it (the names are Hugging Face's)."""

    vocab_size: int = 50257
    n_positions: int = 1024
    n_embd: int = 768
    n_layer: int = 12
    n_head: int = 12
    n_inner: int | None = None  # the feed-forward step's width; None: 4 x n_embd
    layer_norm_epsilon: float = 1e-5
    activation_function: str = "gelu_new"
    scale_attn_weights: bool = True  # fits divided by sqrt(head width)
    scale_attn_by_inverse_layer_idx: bool = False  # and by the layer's number (a later variant)
    tie_word_embeddings: bool = True  # the unembedding is the token embedding
    model_type: str = "gpt2"
    architectures: list[str] = field(default_factory=lambda: ["GPT2LMHeadModel"])

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> GPT2Config:
        """The config of config.json's values; ValueError names what this model cannot be."""
        if values.get("model_type") != "gpt2":
            raise ValueError(f"a '{values.get('model_type')}' model")
        if values.get("add_cross_attention"):
            raise ValueError("a GPT-2 with cross-attention (an encoder-decoder's half)")
        known = {name: values[name] for name in cls.__dataclass_fields__ if name in values}
        config = cls(**known)
        if config.activation_function not in ACTIVATIONS:
            raise ValueError(f"activation_function {config.activation_function!r}; allowed: {', '.join(ACTIVATIONS)}")
        if config.n_embd % config.n_head:
            raise ValueError(f"n_embd {config.n_embd} is not a multiple of n_head {config.n_head}")
        return config

    @classmethod
    def from_file(cls, path: Path) -> GPT2Config:
        return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))

    def to_json_file(self, path: Path | str) -> None:
        """config.json as transformers writes it (n_ctx too, the name older readers use for n_positions)."""
        values = {**asdict(self), "n_ctx": self.n_positions}
        Path(path).write_text(json.dumps(values, indent=2, sort_keys=True) + "\n", encoding="utf-8")

    @property
    def d_head(self) -> int:
        return self.n_embd // self.n_head

    @property
    def n_weights(self) -> int:
        """How many numbers the model holds (the memory estimate's, before they load): the token and position
        embeddings (the unembedding too unless tied), each layer's attention (4 d x d and biases), feed-forward
        (2 d x d_mlp and biases) and two layer norms, and the final layer norm."""
        d, inner = self.n_embd, self.n_inner or 4 * self.n_embd
        per_layer = 4 * d * d + 4 * d + 2 * d * inner + inner + d + 4 * d
        unembedding = 0 if self.tie_word_embeddings else self.vocab_size * d
        return self.vocab_size * d + unembedding + self.n_positions * d + self.n_layer * per_layer + 2 * d
