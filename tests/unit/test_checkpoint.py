"""A checkpoint's weights into every family's model (figsite.model.checkpoint): in shards as save_pretrained writes
them with max_shard_size (model.safetensors.index.json naming each tensor's file), the same model as from one
file; and weights that do not fit the config, one line naming the tensor."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch

from figsite.errors import BuildError
from figsite.model.load import load

FAMILIES = ("gpt2", "llama", "neox")


@pytest.fixture(scope="module")
def folders(small_model_dir, llama_model_dir, tmp_path_factory) -> dict:
    """family -> a save_pretrained directory of a small model of it."""
    from conftest import neox_dir

    return {
        "gpt2": small_model_dir,
        "llama": llama_model_dir,
        "neox": neox_dir(tmp_path_factory.mktemp("neox-checkpoint"), num_hidden_layers=2),
    }


def copied(source: Path, folder: Path, weights: bool = True) -> Path:
    """A copy of a model's directory: its config and tokenizer files, and its weights unless `weights` is false."""
    folder.mkdir(parents=True, exist_ok=True)
    for file in source.iterdir():
        if weights or not file.name.startswith("model."):
            shutil.copy(file, folder / file.name)
    return folder


def scores(folder: Path) -> torch.Tensor:
    loaded = load(str(folder), None, 0, "cpu")
    with torch.no_grad():
        return loaded.model(torch.tensor([[3, 14, 15, 92, 65, 35]]))


@pytest.mark.parametrize("family", FAMILIES)
def test_a_checkpoint_in_shards_loads_as_the_same_model_as_from_one_file(family, folders, tmp_path):
    import transformers

    source = folders[family]
    sharded = copied(source, tmp_path / "sharded", weights=False)
    transformers.AutoModelForCausalLM.from_pretrained(str(source)).save_pretrained(sharded, max_shard_size="100KB")
    index = json.loads((sharded / "model.safetensors.index.json").read_text(encoding="utf-8"))
    assert not (sharded / "model.safetensors").exists() and len(set(index["weight_map"].values())) > 2
    assert torch.equal(scores(sharded), scores(source))


def rewritten(source: Path, folder: Path, change) -> Path:
    """A copy of the model whose model.safetensors holds change(tensors) instead."""
    from safetensors.torch import load_file, save_file

    copied(source, folder)
    tensors = load_file(str(source / "model.safetensors"))
    save_file(change(dict(tensors)), str(folder / "model.safetensors"), metadata={"format": "pt"})
    return folder


@pytest.mark.parametrize("family", FAMILIES)
def test_a_missing_or_wrong_shaped_tensor_is_one_line_naming_it(family, folders, tmp_path):
    from safetensors.torch import load_file

    source = folders[family]
    name = sorted(name for name in load_file(str(source / "model.safetensors")) if ".1." in name)[0]  # layer 2's

    def drop(tensors: dict) -> dict:
        del tensors[name]
        return tensors

    def shrink(tensors: dict) -> dict:
        tensors[name] = tensors[name][..., :-1].contiguous()
        return tensors

    for change, words in ((drop, f"1 missing (first {name})"), (shrink, f"1 of the wrong shape (first {name}")):
        folder = rewritten(source, tmp_path / change.__name__, change)
        with pytest.raises(BuildError) as caught:
            load(str(folder), None, 0, "cpu")
        message = str(caught.value)
        assert words in message and "\n" not in message, message


def test_pythias_older_layout_loads_its_buffers_left_out_and_its_unembedding_under_either_name(folders, tmp_path):
    # Older GPT-NeoX checkpoints (Pythia's) also store each layer's causal mask, a masked_bias and the rotation's
    # frequencies, which are no weights; a checkpoint may name the unembedding lm_head, as transformers 5 does.
    source = folders["neox"]

    def older(tensors: dict) -> dict:
        for layer in (0, 1):
            prefix = f"gpt_neox.layers.{layer}.attention."
            tensors[prefix + "bias"] = torch.ones(1, 1, 8, 8, dtype=torch.bool).tril()
            tensors[prefix + "masked_bias"] = torch.tensor(-1e9)
            tensors[prefix + "rotary_emb.inv_freq"] = torch.ones(1)
        tensors["lm_head.weight"] = tensors.pop("embed_out.weight")
        return tensors

    assert torch.equal(scores(rewritten(source, tmp_path / "older", older)), scores(source))
