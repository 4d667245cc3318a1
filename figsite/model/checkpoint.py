"""A checkpoint's weights into its family's model: model.safetensors or pytorch_model.bin. GPT-2's with or
without the "transformer." prefix (the hub's gpt2 has none); a Llama-style model's under transformers' own names
(model.layers.0.self_attn.q_proj.weight, ...); the unembedding tied as Hugging Face ties it.
"""

from __future__ import annotations

from pathlib import Path

# First: figsite.model.interface (through gpt2) sets the BLAS's settings before torch loads it.
from figsite.model.gpt2 import GPT2Config, GPT2LMHeadModel
from figsite.model.llama import LlamaConfig, LlamaForCausalLM

import torch

WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")  # what a checkpoint's weights may be called, in order


def from_weights(config: GPT2Config | LlamaConfig, weights_file: Path) -> GPT2LMHeadModel | LlamaForCausalLM:
    """The model with the weights of `weights_file` (model.safetensors or pytorch_model.bin), in float32, on the
    CPU (figsite.model.load.load moves it to the device asked for).

    The modules are made with weights left undrawn (memory never written takes none) and take the loaded tensors
    as they are: the weights are held once, which for gpt2-xl is 6 GiB rather than 12. (Made on torch's "meta"
    device instead, they would take 0.8 s.) Errors: safetensors' SafetensorError for a damaged file, ValueError
    for names that do not fit."""
    if isinstance(config, LlamaConfig):
        return _llama_from_weights(config, weights_file)
    model = GPT2LMHeadModel(config)
    state = _state_of(model, _read_weights(Path(weights_file)))
    model.load_state_dict(state, strict=True, assign=True)
    if config.tie_word_embeddings:
        model.lm_head.weight = model.transformer.wte.weight
    return model.requires_grad_(False).eval()  # nothing here is trained: no autograd graph is kept


def _read_weights(path: Path) -> dict:
    if path.name.endswith(".safetensors"):
        from safetensors.torch import load_file

        return load_file(str(path))
    return torch.load(str(path), map_location="cpu", weights_only=True)


def _state_of(model: GPT2LMHeadModel, raw: dict) -> dict:
    """A checkpoint's tensors under this model's names: with or without the "transformer." prefix (the hub's
    gpt2 has none), without the causal-mask buffers old checkpoints keep, and the unembedding tied."""
    state = {}
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


def _llama_from_weights(config: LlamaConfig, weights_file: Path) -> LlamaForCausalLM:
    """A Llama-style model with the weights of `weights_file`, stored under transformers' names, in float32."""
    with torch.device("meta"):  # no weights drawn: the checkpoint's are taken as they are
        model = LlamaForCausalLM(config)
    state = {name: tensor.float() for name, tensor in _read_weights(Path(weights_file)).items()
             if not name.endswith("rotary_emb.inv_freq")}  # older checkpoints stored the rotation's frequencies
    if config.tie_word_embeddings:
        state.pop("lm_head.weight", None)
        if "model.embed_tokens.weight" in state:
            state["lm_head.weight"] = state["model.embed_tokens.weight"]
    _check_fit(model, state)
    model.load_state_dict(state, strict=True, assign=True)
    if config.tie_word_embeddings:
        model.lm_head.weight = model.model.embed_tokens.weight
    return model.requires_grad_(False).eval()


def _check_fit(model, state: dict) -> None:
    """ValueError if the tensors' names and shapes are not the model's."""
    expected = {name: param.shape for name, param in model.state_dict().items()}
    missing = sorted(expected.keys() - state.keys())
    unexpected = sorted(state.keys() - expected.keys())
    wrong = sorted(name for name in expected.keys() & state.keys() if tuple(state[name].shape) != tuple(expected[name]))
    if missing or unexpected or wrong:
        said = [f"{len(names)} {what} (first {names[0]})" for what, names in
                (("missing", missing), ("unexpected", unexpected), ("of the wrong shape", wrong)) if names]
        raise ValueError("the weights do not fit the config: " + "; ".join(said))
