"""The records the model's code writes into the run and every layer above reads (docs/output.md): a model's identity
and size (`ModelRecord`, figsite.model.load.model_info), its weights counted by part (`Parameters`, `WeightCounts`:
figsite.model.counts) and the software it ran on (`Environment`).

Types only, for the checker: at run time each is a plain dict, its keys in the order the code writes them. They sit
below the model (the figures, which may not import the model, read them too: figsite.data.records names them with
the rest of the data files' records). No torch here.
"""

from __future__ import annotations

from typing import Literal, TypedDict

# name None: a record made for the figures' checks before any model loads (sitegen.pipeline); a written one names it.
ModelBase = TypedDict(
    "ModelBase",
    {
        "name": str | None,
        "revision": str | None,
        "n_layer": int,
        "n_head": int,
        "d_model": int,
        "vocab_size": int,
        "n_ctx": int,
    },
)


class FamilyInfo(TypedDict, total=False):
    """What a family changes from GPT-2, for the pages to say (figsite.model.load.family_info); GPT-2's has no key,
    another family's all but rotary_dim and d_head, which only rotary positions add."""

    family: str  # config.json's model_type: "llama", "gpt_neox", ...
    norm: str  # "layernorm" or "rmsnorm"
    positions: str  # "learned" or "rotary"
    gated: bool
    parallel: bool
    rotary_dim: int  # with rotary positions: the numbers of each head they turn
    d_head: int  # with rotary positions


class ModelRecord(ModelBase, FamilyInfo, total=False):
    """A model's identity and size as every data file writes it: GPT-2's record has only ModelBase's keys; another
    family's says what it changes (FamilyInfo), a model whose heads share keys its key heads, one whose tokenizer
    puts a start token in front of every text that token."""

    n_kv_head: int
    start_token: str


WeightPart = Literal["embedding", "attention", "feed-forward", "layer norm", "other"]
# The model's weights by the part they belong to (tied weights counted once).
WeightCounts = TypedDict(
    "WeightCounts", {"embedding": int, "attention": int, "feed-forward": int, "layer norm": int, "other": int}
)


class Parameters(TypedDict):
    """The model in numbers, counted from its weights (figsite.model.counts.parameter_counts)."""

    parts: WeightCounts
    total: int
    feed_forward_in: list[int]  # [d_model, neurons]
    feed_forward_out: list[int]  # [neurons, d_model]
    head_width: int


class _EnvironmentBase(TypedDict):
    torch: str
    device: str
    dtype: str


class Environment(_EnvironmentBase, total=False):
    """The software and device a run used (figsite.model.counts.environment writes tokenizers' version; a run
    cached before it has transformers')."""

    tokenizers: str
    transformers: str
