"""Loading a model: `--model random` (a GPT-2), a save_pretrained directory, or a hub id (its snapshot in the local
Hugging Face cache, downloaded once); the family picked by config.json's model_type (FAMILIES); and the one-line
errors a model that can't be had ends in.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

from figsite.model.checkpoint import NAMED, WEIGHT_FILES, from_weights
from figsite.model.gpt2 import GPT2Config, GPT2LMHeadModel
from figsite.model.interface import LanguageModel, ModelConfig
from figsite.model.llama import MODEL_TYPES as LLAMA_TYPES, LlamaConfig
from figsite.model.neox import MODEL_TYPES as NEOX_TYPES, NeoXConfig

import torch
from safetensors import SafetensorError

from figsite.errors import BuildError
from figsite.model.hub import GPT2_SMALL, GPT2Shape, hub_reachable, is_commit
from figsite.records import FamilyInfo, ModelRecord
from figsite.model.tokens import Tokenizer, decoded, gpt2_tokenizer


class FamilyConfig(ModelConfig, Protocol):
    """A family's config as loading reads it: the interface's shape, made from config.json's values."""

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> ModelConfig: ...


class RotaryConfig(ModelConfig, Protocol):
    """A family's config whose positions are rotary ("rotary" its `positions`): it turns rotary_dim of each head's
    d_head numbers."""

    @property
    def rotary_dim(self) -> int: ...


# Called once the config and the tokenizer are loaded, before the weights are (see load).
BeforeWeights = Callable[[ModelConfig, Tokenizer], None]

# config.json's model_type -> the family's config class (its module holds the model).
FAMILIES: dict[str, type[FamilyConfig]] = {
    "gpt2": GPT2Config,
    **{kind: LlamaConfig for kind in LLAMA_TYPES},
    **{kind: NeoXConfig for kind in NEOX_TYPES},
}


def register_family(
    model_types: tuple[str, ...], config_class: type[FamilyConfig], model_class: type[LanguageModel]
) -> None:
    """Adds a model family (docs/model.md, "Adding a model family"): a config.json whose model_type is one of
    `model_types` is read by config_class.from_dict(values) (ValueError or KeyError: a config the family cannot
    be; the config gives the interface's shape names and n_weights), and its checkpoint's weights, stored under
    the model's own names (model_class(config).checkpoint_names()), go into model_class, a LanguageModel."""
    for kind in model_types:
        FAMILIES[kind] = config_class
    NAMED[config_class] = model_class


@dataclass
class Loaded:
    """A model ready to run, with its tokenizer and where it came from."""

    model: LanguageModel  # a family's model (figsite.model.interface)
    tokenizer: Tokenizer
    name: str
    revision: str | None
    device: str

    @property
    def info(self) -> ModelRecord:
        """The model's identity and size, as written into every data file."""
        return model_info(self.model.config, self.name, self.revision, self.tokenizer)


def model_info(
    config: ModelConfig, name: str | None = None, revision: str | None = None, tokenizer: Tokenizer | None = None
) -> ModelRecord:
    """A model's identity and size as the data files write it (and as the figures' checks read it); where the
    tokenizer puts a start token in front of every text (not GPT-2's), its text, which the checks and the pages
    keep apart from the reader's tokens."""
    info: ModelRecord = {
        "name": name,
        "revision": revision,
        "n_layer": config.n_layer,
        "n_head": config.n_head,
        "d_model": config.n_embd,
        "vocab_size": config.vocab_size,
        "n_ctx": config.n_positions,
    }
    n_kv_head: int = getattr(config, "n_kv_head", config.n_head)
    if n_kv_head != config.n_head:  # heads that share their keys (not GPT-2)
        info["n_kv_head"] = n_kv_head
    info = {**info, **family_info(config)}  # its keys after these (TypedDict's update takes only a ModelRecord's)
    start_id: int | None = getattr(tokenizer, "start_id", None)
    if tokenizer is not None and start_id is not None:
        info["start_token"] = decoded(tokenizer, start_id)
    return info


def family_info(config: ModelConfig) -> FamilyInfo:
    """What a family changes from GPT-2, for the pages to say (GPT-2's own record has none of these keys): the
    family (config.json's model_type), its norm ("rmsnorm"), its positions ("rotary", on rotary_dim of d_head
    numbers of each head), a gated feed-forward step, parallel attention and feed-forward."""
    family = getattr(config, "model_type", "gpt2")
    if family == "gpt2":
        return {}
    info: FamilyInfo = {
        "family": family,
        "norm": getattr(config, "norm", "layernorm"),
        "positions": getattr(config, "positions", "learned"),
        "gated": getattr(config, "gated", False),
        "parallel": getattr(config, "parallel", False),
    }
    if info["positions"] == "rotary":  # a rotary family's config says how much of each head the rotation turns
        info["rotary_dim"], info["d_head"] = cast(RotaryConfig, config).rotary_dim, config.d_head
    return info


def load(
    model: str,
    revision: str | None,
    seed: int,
    device: str,
    before_weights: BeforeWeights = lambda config, tokenizer: None,
) -> Loaded:
    """Loads `model`: 'random', a local save_pretrained directory, or a Hugging Face hub id.

    `before_weights(config, tokenizer)` is called once the config and the tokenizer are loaded and before the
    weights are: a build that would not fit in memory stops there (figsite.model.memory)."""
    _check_device(device)
    if model == "random":
        tokenizer = gpt2_tokenizer()
        before_weights(GPT2Config(**GPT2_SMALL), tokenizer)
        loaded = Loaded(random_gpt2(seed), tokenizer, f"random (seed {seed})", None, device)
    elif Path(model).expanduser().is_dir():
        loaded = _load_checkpoint(Path(model).expanduser(), model, None, device, before_weights, local=True)
    elif model.startswith((".", "/", "~")) or model.count("/") > 1:  # a path; a hub id has one "/" at most
        raise BuildError(
            f"--model: the directory {model} does not exist; allowed: a hub id such as gpt2, "
            "a directory written by save_pretrained, or random"
        )
    else:
        try:
            snapshot = _hub_snapshot(model, revision)
        except (OSError, ValueError) as exc:
            raise _unavailable(model, False, exc) from None
        commit = snapshot.name if is_commit(snapshot.name) else revision
        loaded = _load_checkpoint(snapshot, model, commit, device, before_weights, local=False)
    loaded.model.to(device).eval()
    return loaded


def _check_device(device: str) -> None:
    if device == "cuda" and not torch.cuda.is_available():
        raise BuildError("--device: cuda was asked for but torch finds no CUDA device here; allowed: cpu")


def random_gpt2(seed: int, **shape: int) -> GPT2LMHeadModel:
    """A GPT-2 of the given shape (GPT-2 small's by default) with every weight drawn from `seed`.

    GPT-2's initialisation leaves layer norms at gain 1 and bias 0 and every bias at 0, so a layer norm applied
    twice would give the same numbers as once and a forgotten bias would pass unseen. We draw them all.
    """
    # shape: GPT-2 small's fields to change, all numbers (a name GPT2Config lacks: TypeError)
    model = random_model(seed, GPT2Config(**cast(GPT2Shape, {**GPT2_SMALL, **shape})))
    generator = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for name, param in model.named_parameters():
            noise = torch.randn(param.shape, generator=generator)
            if ".ln_" in name and name.endswith(".weight"):
                param.copy_(1.0 + 0.25 * noise)
            elif name.endswith(".bias"):
                param.copy_(0.1 * noise)
    return model.eval()


def random_model(seed: int, config: GPT2Config) -> GPT2LMHeadModel:
    """A GPT-2 of `config`'s shape with GPT-2's initialisation drawn from `seed`: weights drawn with standard
    deviation 0.02 (the projections into the residual stream scaled down by the depth), biases 0, layer norms
    gain 1 and bias 0."""
    model = GPT2LMHeadModel(config)
    generator = torch.Generator().manual_seed(seed)
    deep = 0.02 / math.sqrt(2 * config.n_layer)
    with torch.no_grad():
        for name, param in model.named_parameters():
            if ".ln_" in name or name.startswith("transformer.ln_f"):
                param.fill_(1.0 if name.endswith(".weight") else 0.0)
            elif name.endswith(".bias"):
                param.zero_()
            else:
                param.normal_(0.0, deep if name.endswith("c_proj.weight") else 0.02, generator=generator)
    return model.requires_grad_(False).eval()


def _load_checkpoint(
    folder: Path, name: str, revision: str | None, device: str, before_weights: BeforeWeights, local: bool
) -> Loaded:
    """Loads a checkpoint from a folder: a save_pretrained directory, or a snapshot of the hub cache."""
    config = _config_of(folder, name, local)
    weights = next((folder / file for file in WEIGHT_FILES if (folder / file).is_file()), None)
    try:
        tokenizer = Tokenizer.from_directory(folder)
        if weights is None:
            raise OSError(f"no {' or '.join(WEIGHT_FILES)} in {folder}")
    except Exception as exc:  # noqa: BLE001 - tokenizers says what is wrong with a file in a plain Exception
        raise _unavailable(name, local, exc) from None
    before_weights(config, tokenizer)
    try:
        model = from_weights(config, weights)
    except (SafetensorError, EOFError, RuntimeError) as exc:  # a file cut short (a download or copy) or overwritten
        raise _damaged(name, weights, local, exc) from None
    except (OSError, ValueError) as exc:
        raise _unavailable(name, local, exc) from None
    return Loaded(model, tokenizer, name, revision, device)


def _config_of(folder: Path, name: str, local: bool) -> ModelConfig:
    """The config of the family config.json's model_type names; one line for a family not supported."""
    try:
        values = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        family = FAMILIES.get(values.get("model_type"))
        if family is None:
            raise BuildError(
                f"--model: {name} is a '{values.get('model_type')}' model, a family not supported; "
                f"allowed: model_type {', '.join(FAMILIES)}"
            )
        return family.from_dict(values)
    except (OSError, json.JSONDecodeError, AttributeError) as exc:  # no config.json, or one that is not JSON
        raise _unavailable(name, local, exc) from None
    except (ValueError, KeyError) as exc:  # a config this family's code cannot be
        shown = f"lacks {exc}" if isinstance(exc, KeyError) else f"is {exc}"
        raise BuildError(
            f"--model: {name} {shown}; allowed: models of the families {', '.join(FAMILIES)} "
            "(gpt2, distilgpt2, gpt2-medium, Llama, Mistral, Qwen2, Qwen3, SmolLM, Pythia ...)"
        ) from None


def _hub_snapshot(repo: str, revision: str | None) -> Path:
    """The folder of the hub id's checkpoint in the local Hugging Face cache (snapshots/<commit>/): the cache
    first, so that a cached model loads with no network; what it lacks is downloaded, once."""
    from huggingface_hub import hf_hub_download, try_to_load_from_cache
    from huggingface_hub.errors import EntryNotFoundError

    def cached(file: str) -> Path | None:
        found = try_to_load_from_cache(repo, file, revision=revision or "main")
        return Path(found) if isinstance(found, str) else None

    def first_of(*choices: tuple[str, ...]) -> Path:
        """The first choice of files the cache holds whole, else the first the hub has (downloaded)."""
        for files in choices:
            if all(cached(file) for file in files) and (first := cached(files[0])) is not None:
                return first
        if os.environ.get("HF_HUB_OFFLINE") == "1" or not hub_reachable():
            # The hub client retries for half a minute before it gives up; one quick look is enough.
            raise OSError("the Hugging Face hub cannot be reached and the files are not in the local cache")
        for files in choices:
            try:
                return [Path(hf_hub_download(repo, file, revision=revision)) for file in files][0]
            except EntryNotFoundError:
                continue
        raise OSError(f"the hub's {repo} has none of " + ", ".join(" and ".join(files) for files in choices))

    config = first_of(("config.json",))
    weights = first_of(*[(file,) for file in WEIGHT_FILES])
    if weights.name.endswith(".index.json"):  # shards: each file the index names
        for shard in sorted(set(json.loads(weights.read_text(encoding="utf-8"))["weight_map"].values())):
            first_of((shard,))
    first_of(("tokenizer.json",), ("vocab.json", "merges.txt"))
    return config.parent


def _damaged(name: str, file: Path, local: bool, exc: Exception) -> BuildError:
    """One line for a weights file that is not whole: which file, and the ways out."""
    if local:
        ways = "copy or save the model into that directory again, or pass --model another directory"
    else:
        ways = (
            f"delete it and download it again (connect to the network and run the build, or "
            f"`hf download {name}`), or pass --model a save_pretrained directory"
        )
    return BuildError(f"--model: {file} is damaged or incomplete ({exc}); ways out: {ways}")


def _unavailable(name: str, local: bool, exc: Exception) -> BuildError:
    """One line for a model that can't be had (not cached and no network, or a directory without a model)."""
    if local:
        return BuildError(
            f"--model: the directory {name} holds no loadable model ({exc}); allowed: a directory "
            "written by save_pretrained (config.json, weights, tokenizer files)"
        )
    return BuildError(
        f"--model: the weights of '{name}' could not be had ({exc}). Ways out: connect to the "
        "network once so they are cached, pass --model DIR with a save_pretrained directory, "
        "or build offline with --model random"
    )
