"""A checkpoint's weights into its family's model: model.safetensors or pytorch_model.bin, whole or in shards (the
.index.json that save_pretrained writes with max_shard_size names the file of each tensor). GPT-2's with or
without the "transformer." prefix (the hub's gpt2 has none); a Llama-style or GPT-NeoX model's under transformers'
own names (model.layers.0.self_attn.q_proj.weight, gpt_neox.layers.0.attention.query_key_value.weight, ...); the
unembedding tied as Hugging Face ties it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import cast

from figsite.model.gpt2 import GPT2Config, GPT2LMHeadModel
from figsite.model.interface import LanguageModel, ModelConfig
from figsite.model.llama import LlamaConfig, LlamaForCausalLM
from figsite.model.neox import GPTNeoXForCausalLM, NeoXConfig

import torch
from torch import nn

# What a checkpoint's weights may be called, in order: one file, or an index of shards.
WEIGHT_FILES = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)
# A family's config class -> its model class, for the families whose checkpoints hold the model's own names.
NAMED: dict[type[ModelConfig], type[LanguageModel]] = {LlamaConfig: LlamaForCausalLM, NeoXConfig: GPTNeoXForCausalLM}


def from_weights(config: ModelConfig, weights_file: Path) -> LanguageModel:
    """The model with the weights of `weights_file` (model.safetensors or pytorch_model.bin, or the index of their
    shards), in float32, on the CPU (figsite.model.load.load moves it to the device asked for).

    The modules are made with weights left undrawn (memory never written takes none) and take the loaded tensors
    as they are: the weights are held once, which for gpt2-xl is 6 GiB rather than 12. (Made on torch's "meta"
    device instead, they would take 0.8 s.) Errors: safetensors' SafetensorError for a damaged file, ValueError
    for names or shapes that do not fit (naming the first tensor)."""
    if type(config) in NAMED:
        return named_from_weights(NAMED[type(config)], config, _read_weights(Path(weights_file)))
    model = GPT2LMHeadModel(cast(GPT2Config, config))  # a family not NAMED is GPT-2 (load.FAMILIES, register_family)
    state = _state_of(model, _read_weights(Path(weights_file)))
    model.load_state_dict(state, strict=True, assign=True)
    if model.config.tie_word_embeddings:
        model.lm_head.weight = model.transformer.wte.weight
    return model.requires_grad_(False).eval()  # nothing here is trained: no autograd graph is kept


def _read_weights(path: Path) -> dict[str, torch.Tensor]:
    """name -> tensor, from one file or from each shard an index (*.index.json: its weight_map) names."""
    if path.name.endswith(".index.json"):
        shards = json.loads(path.read_text(encoding="utf-8"))["weight_map"].values()
        tensors: dict[str, torch.Tensor] = {}
        for shard in sorted(set(shards)):
            tensors.update(_read_weights(path.parent / shard))
        return tensors
    if path.name.endswith(".safetensors"):
        from safetensors.torch import load_file

        return load_file(str(path))
    state: dict[str, torch.Tensor] = torch.load(str(path), map_location="cpu", weights_only=True)  # a state_dict
    return state


def _state_of(model: GPT2LMHeadModel, raw: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """A checkpoint's tensors under this model's names: with or without the "transformer." prefix (the hub's
    gpt2 has none), without the causal-mask buffers old checkpoints keep, and the unembedding tied."""
    state: dict[str, torch.Tensor] = {}
    for name, tensor in raw.items():
        if name.endswith((".attn.bias", ".attn.masked_bias")) and tensor.dim() in (0, 4):
            continue  # the causal mask, which older transformers stored as a buffer
        if not name.startswith(("transformer.", "lm_head.")):
            name = "transformer." + name
        state[name] = tensor.float()
    if model.config.tie_word_embeddings:
        state.pop("lm_head.weight", None)
        if "transformer.wte.weight" in state:
            state["lm_head.weight"] = state["transformer.wte.weight"]
    _check_fit(model, state)
    return state


# Tensors older checkpoints keep that are no weights: the rotation's frequencies, a causal mask.
NOT_WEIGHTS = r"(rotary_emb\.inv_freq|\.attention\.bias|\.attention\.masked_bias)$"


def named_from_weights(
    model_class: type[LanguageModel], config: ModelConfig, raw: Mapping[str, torch.Tensor]
) -> LanguageModel:
    """A model of `model_class` whose checkpoint stores its weights under the model's own names (its
    checkpoint_names: a tied weight stored once), from the checkpoint's tensors `raw`, in float32."""
    with torch.device("meta"):  # no weights drawn: the checkpoint's are taken as they are
        model = model_class(config)
    # other names a weight may be stored under (the class's CHECKPOINT_ALIASES: stored name -> the model's)
    aliases: Mapping[str, str] = getattr(model_class, "CHECKPOINT_ALIASES", {})
    stored = {aliases.get(name, name): tensor for name, tensor in raw.items() if not re.search(NOT_WEIGHTS, name)}
    names = model.checkpoint_names()  # state name -> the name it is stored under
    state = {name: stored[source].float() for name, source in names.items() if source in stored}
    # A tied checkpoint may store the tied weight under both names: the second is not unexpected.
    unexpected = {name: stored[name] for name in stored.keys() - set(names.values()) - set(names)}
    _check_fit(model, {**state, **unexpected})
    model.load_state_dict(state, strict=True, assign=True)
    for name, source in names.items():  # a tied weight: one parameter where the model has two names
        if name != source:
            module, _, attribute = name.rpartition(".")
            setattr(model.get_submodule(module), attribute, model.get_parameter(source))
    return model.requires_grad_(False).eval()


def _check_fit(model: nn.Module, state: Mapping[str, torch.Tensor]) -> None:
    """ValueError if the tensors' names and shapes are not the model's."""
    expected = {name: param.shape for name, param in model.state_dict().items()}
    missing = sorted(expected.keys() - state.keys())
    unexpected = sorted(state.keys() - expected.keys())
    wrong = sorted(name for name in expected.keys() & state.keys() if tuple(state[name].shape) != tuple(expected[name]))
    if missing or unexpected or wrong:
        said = [
            f"{len(names)} {what} (first {names[0]})"
            for what, names in (("missing", missing), ("unexpected", unexpected))
            if names
        ]
        if wrong:
            said.append(
                f"{len(wrong)} of the wrong shape (first {wrong[0]}: {tuple(state[wrong[0]].shape)} stored, "
                f"{tuple(expected[wrong[0]])} by the config)"
            )
        raise ValueError("the weights do not fit the config: " + "; ".join(said))
