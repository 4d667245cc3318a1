"""A hub id whose files the local cache lacks: what the loader asks of the hub, and in which order.

No network here: a stand-in for huggingface_hub.hf_hub_download serves the files of a folder (the "hub") and
writes each into the cache as the real one does (snapshots/<commit>/<file>, refs/main). The files are those of
a seeded random model; only the asking is under test.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import huggingface_hub
import pytest
import torch
from huggingface_hub import constants
from huggingface_hub.errors import EntryNotFoundError

from conftest import gpt2_tokenizer
from figsite.capture import api as capture
from figsite.model import load as loader
from figsite.errors import BuildError

COMMIT = "fedcba9876543210fedcba9876543210fedcba98"


@pytest.fixture
def hub(tmp_path, monkeypatch):
    """The hub's files (a folder to fill), the cache the loader reads, and the list of files asked of the hub."""
    remote, cache, asked = tmp_path / "remote", tmp_path / "cache", []
    remote.mkdir()

    def download(repo_id, filename, revision=None, **_):
        asked.append(filename)
        if not (remote / filename).is_file():
            raise EntryNotFoundError(f"{filename} is not in {repo_id}")
        folder = cache / ("models--" + repo_id.replace("/", "--"))
        (folder / "refs").mkdir(parents=True, exist_ok=True)
        (folder / "refs" / (revision or "main")).write_text(COMMIT)
        target = folder / "snapshots" / COMMIT / filename
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(remote / filename, target)
        return str(target)

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", download)
    monkeypatch.setattr(loader, "hub_reachable", lambda: True)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    return remote, asked


@pytest.fixture(scope="module")
def model():
    return capture.random_gpt2(seed=4, n_layer=2, n_head=2, n_embd=32)


def publish(remote: Path, model, weights: str = "model.safetensors", tokenizer_json: bool = True) -> None:
    model.save_pretrained(remote)
    if weights == "pytorch_model.bin":
        from safetensors.torch import load_file

        torch.save(load_file(str(remote / "model.safetensors")), remote / weights)
        (remote / "model.safetensors").unlink()
    gpt2_tokenizer().save_pretrained(remote)
    if not tokenizer_json:
        (remote / "tokenizer.json").unlink()


@torch.no_grad()
def same_scores(loaded, model) -> bool:
    ids = torch.tensor([capture.token_ids(loaded, "Maya lives in Paris")])
    return torch.equal(loaded.model(ids), model(ids))


def test_a_hub_id_not_in_the_cache_is_downloaded_once_and_names_its_commit(hub, model):
    remote, asked = hub
    publish(remote, model)
    loaded = capture.load("someone/gpt2-like", None, 0, "cpu")
    assert asked == ["config.json", "model.safetensors", "tokenizer.json"]
    assert loaded.revision == COMMIT and same_scores(loaded, model)
    capture.load("someone/gpt2-like", None, 0, "cpu")  # now from the cache: nothing more is asked
    assert asked == ["config.json", "model.safetensors", "tokenizer.json"]


def test_a_hub_model_with_only_pytorch_model_bin_and_vocab_and_merges_loads(hub, model):
    remote, asked = hub
    publish(remote, model, weights="pytorch_model.bin", tokenizer_json=False)
    loaded = capture.load("someone/old-gpt2", None, 0, "cpu")
    assert asked == [
        "config.json",
        "model.safetensors",
        "model.safetensors.index.json",
        "pytorch_model.bin",
        "tokenizer.json",
        "vocab.json",
        "merges.txt",
    ]
    assert same_scores(loaded, model)


def test_a_hub_model_in_shards_downloads_the_index_and_each_shard_it_names(hub, model, tmp_path):
    import transformers

    remote, asked = hub
    publish(tmp_path / "whole", model)
    transformers.GPT2LMHeadModel.from_pretrained(str(tmp_path / "whole")).save_pretrained(remote, max_shard_size="20KB")
    gpt2_tokenizer().save_pretrained(remote)
    shards = sorted(path.name for path in remote.glob("model-*.safetensors"))
    loaded = capture.load("someone/sharded", None, 0, "cpu")
    assert len(shards) > 2 and asked == [
        "config.json",
        "model.safetensors",
        "model.safetensors.index.json",
        *shards,
        "tokenizer.json",
    ]
    assert same_scores(loaded, model)


def test_a_hub_model_without_weights_is_one_line_naming_what_was_looked_for(hub, model):
    remote, _ = hub
    publish(remote, model)
    (remote / "model.safetensors").unlink()
    with pytest.raises(BuildError) as refused:
        capture.load("someone/empty", None, 0, "cpu")
    said = str(refused.value)
    assert "--model: the weights of 'someone/empty' could not be had" in said
    assert "model.safetensors" in said and "pytorch_model.bin" in said and "\n" not in said


def test_offline_a_hub_id_not_in_the_cache_asks_nothing_and_says_so(hub, model, monkeypatch):
    remote, asked = hub
    publish(remote, model)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(BuildError, match="cannot be reached and the files are not in the local cache"):
        capture.load("someone/gpt2-like", None, 0, "cpu")
    assert asked == []
