"""What the capture sees of a model: the interface a model family implements (GPT-2: figsite.model.gpt2).

The capture (figsite.capture) names no module and no weight of a model. It runs a model in pieces and reads what
it computes at its hook points, named as TransformerLens names them (`hook_embed`, `blocks.L.attn.hook_pattern`,
`blocks.L.hook_resid_post`, `ln_final.hook_scale`, ...: the README's table):

    embed(ids)                              token ids (batch, position) -> the residual stream entering layer 0
    run_layers(stream, start, stop, past)   layers start..stop-1 over a stream (batch, position, d_model)
    final_norm(stream), unembed(normed)     the final norm, and the unembedding that turns it into scores
    read_out(stream)                        the two together: a stage's scores (the logit lens)
    run_with_cache(ids, names)              one pass: {hook point name: the activation that passed there}
    hooks({name: function})                 functions added at hook points while a `with` block runs

and what the ledger splits a score with (what no hook point passes): the final norm's gain, bias and epsilon
(final_norm_weights), the unembedding's rows of given tokens (unembedding_rows), each layer's output projections
(layer_weights). The run record counts the weights by part (part_of); the live page's export takes a copy that
holds fewer positions (export_copy) and the names the checkpoint stores the weights under (checkpoint_names).

A family implements the abstract methods below and provides every hook point of the README's table; `hooks`,
`read_out` and `run_with_cache` come with the interface. Its `config` (ModelConfig) gives the shape under GPT-2's names:
n_layer, n_head, n_embd (d_model), vocab_size, n_positions (the context), n_inner (d_mlp; None: 4 x n_embd),
d_head, and n_weights (how many numbers its weights hold, counted from the config before they load, for the
memory estimate: figsite.model.memory); a family whose key/value heads are fewer than its query heads says so
with n_kv_head (absent: n_head; `kv_heads(config)`). hook_pos_embed is there only where the family adds position vectors (GPT-2); a
rotary family turns the query and key instead (blocks.L.attn.hook_rot_q, hook_rot_k).
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeAlias

import torch
from torch import nn

from figsite.records import WeightPart

FINAL_NORM = "ln_final."  # the hook points of the final norm start so; they fire only where a stage is read out

# A function added at a hook point, called as function(activation, name): None (it only reads), or the tensor of the
# same shape that the model goes on with.
HookFunction: TypeAlias = Callable[[torch.Tensor, str], torch.Tensor | None]
# What `hooks` takes: {hook point name: a function, or a list or tuple of them}.
HookFunctions: TypeAlias = Mapping[str, HookFunction | list[HookFunction] | tuple[HookFunction, ...]]
# What run_layers continues from: {layer: (keys, values)}, each (1, earlier, key/value heads, d_head).
Past: TypeAlias = Mapping[int, tuple[torch.Tensor, torch.Tensor]]


class ModelConfig(Protocol):
    """A model's shape under GPT-2's names, as every family's config gives it (read only). A family whose
    key/value heads are fewer than its query heads also has n_kv_head (read with `kv_heads`)."""

    @property
    def n_layer(self) -> int: ...
    @property
    def n_head(self) -> int: ...
    @property
    def n_embd(self) -> int: ...  # d_model
    @property
    def vocab_size(self) -> int: ...
    @property
    def n_positions(self) -> int: ...  # the context
    @property
    def n_inner(self) -> int | None: ...  # d_mlp; None: 4 x n_embd
    @property
    def d_head(self) -> int: ...
    @property
    def n_weights(self) -> int: ...  # how many numbers the weights hold, counted from the config


class HookPoint(nn.Module):
    """An identity at one activation, named as TransformerLens names it (`blocks.3.attn.hook_pattern`).

    What the model computes there passes through each function added with `hooks`, called as
    function(activation, name): it may read the activation (and return None) or return a tensor of the same
    shape that the model goes on with. With no function added, it hands the activation on untouched."""

    def __init__(self) -> None:
        super().__init__()
        self.name = ""  # set by the model: the name readers of the model use
        self.functions: list[HookFunction] = []

    def forward(self, activation: torch.Tensor) -> torch.Tensor:
        for function in self.functions:
            replaced = function(activation, self.name)
            if replaced is not None:
                activation = replaced
        return activation

    if TYPE_CHECKING:  # what calling the module (nn.Module.__call__, typed Any) runs: forward

        def __call__(self, activation: torch.Tensor) -> torch.Tensor: ...


@contextmanager
def hooks_added(points: Mapping[str, HookPoint], functions: HookFunctions) -> Iterator[None]:
    """Adds {hook point name: function} (or a list of functions) to `points` (name -> HookPoint) while the block
    runs, and always takes them off again, whatever the block raises. KeyError names a hook point that does not
    exist (and nothing is added)."""
    unknown = sorted(functions.keys() - points.keys())
    if unknown:
        raise KeyError(f"no hook point {unknown[0]!r}; e.g. {', '.join(list(points)[:3])}")
    added: list[tuple[HookPoint, HookFunction]] = []
    try:
        for name, function in functions.items():
            for one in function if isinstance(function, (list, tuple)) else [function]:
                points[name].functions.append(one)
                added.append((points[name], one))
        yield
    finally:
        for point, one in added:
            point.functions.remove(one)


@dataclass(frozen=True)
class NormWeights:
    """A norm's gain and bias, (d_model,) each, and the epsilon added to the variance. LayerNorm takes the mean
    away first (centred) and may have a bias; RMSNorm divides by the root mean square, not centred, no bias
    (None)."""

    gain: torch.Tensor
    bias: torch.Tensor | None
    eps: float
    centred: bool = True


@dataclass(frozen=True)
class LayerWeights:
    """What one layer writes into the residual stream with, in TransformerLens's names and layouts: the attention's
    output projection W_O (heads, d_head, d_model) and its bias b_O (d_model,), the feed-forward step's first
    matrix W_in (d_model, d_mlp; a gated step's gate), its second W_out (d_mlp, d_model) and that one's bias b_out
    (d_model,). A bias the model lacks is zeros."""

    W_O: torch.Tensor
    b_O: torch.Tensor
    W_in: torch.Tensor
    W_out: torch.Tensor
    b_out: torch.Tensor


def kv_heads(config: ModelConfig) -> int:
    """The number of key/value heads: n_kv_head where the family shares keys between query heads, else n_head."""
    n_kv_head: int | None = getattr(config, "n_kv_head", None)
    return n_kv_head or config.n_head


class LanguageModel(nn.Module, metaclass=abc.ABCMeta):
    """A model as the capture reads it (see the module's docstring). Subclasses set `config` and implement the
    abstract methods; each reads its own modules and weights, which nothing outside its family's module names."""

    config: ModelConfig  # the shape: n_layer, n_head, n_embd, vocab_size, n_positions, n_inner, d_head, n_weights
    # (and n_kv_head); a family declares its own config class here

    @property
    @abc.abstractmethod
    def hook_points(self) -> Mapping[str, HookPoint]:
        """name -> HookPoint, every point of the README's table, TransformerLens's names."""

    @property
    @abc.abstractmethod
    def device(self) -> torch.device:
        """Where the weights are."""

    @abc.abstractmethod
    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        """Token ids (batch, position) -> the residual stream entering the first layer (batch, position, d_model),
        through hook_embed, and hook_pos_embed where the family adds position vectors."""

    @abc.abstractmethod
    def run_layers(self, stream: torch.Tensor, start: int, stop: int, past: Past | None = None) -> torch.Tensor:
        """Layers start..stop-1 over `stream` (batch, position, d_model), each layer's hook points firing; the
        stream after them, raw. past: {layer: (keys, values)} of positions before the stream's (the same for
        every row), each (1, earlier, key/value heads, d_head) as blocks.L.attn.hook_k and hook_v pass them (a
        rotary family's before the rotation): the stream's positions are then earlier.. earlier + position - 1."""

    @abc.abstractmethod
    def final_norm(self, stream: torch.Tensor) -> torch.Tensor:
        """The final norm of a residual stream (..., d_model), through the ln_final hook points."""

    @abc.abstractmethod
    def unembed(self, normed: torch.Tensor) -> torch.Tensor:
        """A normed stream (..., d_model) -> the scores of every token (..., vocab)."""

    @abc.abstractmethod
    def final_norm_weights(self) -> NormWeights:
        """The final norm's gain, bias (None: none), epsilon and whether it takes the mean away."""

    @abc.abstractmethod
    def unembedding_rows(self, ids: list[int]) -> torch.Tensor:
        """The unembedding's vectors of these tokens, (tokens, d_model): token t's score is normed . row t."""

    @abc.abstractmethod
    def layer_weights(self, layer: int) -> LayerWeights:
        """One layer's output projections (views of the weights: read them, do not write)."""

    @abc.abstractmethod
    def part_of(self, parameter: str) -> WeightPart:
        """The part of the model a parameter (by its name in named_parameters) belongs to: "embedding",
        "attention", "feed-forward", "layer norm" or "other"."""

    @abc.abstractmethod
    def checkpoint_names(self) -> dict[str, str]:
        """state_dict name -> the name the checkpoint stores that weight under (a tied weight: the stored one)."""

    @abc.abstractmethod
    def export_copy(self, max_tokens: int) -> LanguageModel:
        """The same model on the CPU, holding the positions up to max_tokens only, sharing the weights; the
        model itself is left as it was."""

    # ------------------------------------------------------------------------------------------ given

    def hooks(self, functions: HookFunctions) -> AbstractContextManager[None]:
        """{hook point name: function or [functions]} added while a `with` block runs (hooks_added)."""
        return hooks_added(self.hook_points, functions)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        """Token ids (batch, position) -> scores (batch, position, vocab): every layer, then the read-out (a family
        may keep its checkpoint's own forward instead, as GPT-2's does)."""
        return self.read_out(self.run_layers(self.embed(input_ids), 0, self.config.n_layer))

    def read_out(self, stream: torch.Tensor) -> torch.Tensor:
        """A stage's scores: the final norm and the unembedding, (..., d_model) -> (..., vocab)."""
        return self.unembed(self.final_norm(stream))

    @torch.no_grad()
    def run_with_cache(self, ids: torch.Tensor, names: Collection[str]) -> dict[str, torch.Tensor]:
        """TransformerLens's run_with_cache: one pass over ids (batch, position) -> {name: the activation that
        passed at that hook point, as it passed (batch dimension kept)}. The final norm runs only if one of its
        points is named; the unembedding never."""
        cache: dict[str, torch.Tensor] = {}

        def keep(activation: torch.Tensor, name: str) -> None:
            cache[name] = activation

        with self.hooks({name: keep for name in names}):
            stream = self.run_layers(self.embed(ids), 0, self.config.n_layer)
            if any(name.startswith(FINAL_NORM) for name in names):
                self.final_norm(stream)
        return cache
