"""A model family added from the test folder (tests/toy_family.py: no positions, no norms in its layers, an RMS
final norm without bias), registered with figsite.model.load.register_family and nothing else: every figure kind
of tests/every_kind.toml builds on it, with no change to figsite/capture or figures/ (docs/model.md, "Adding a model
family")."""

from __future__ import annotations

import json
import tomllib

import pytest
import torch

import toy_family
from conftest import REPO_ROOT, built, byte_tokenizer
from figsite.errors import BuildError
from figsite.model import checkpoint, load

EVERY_KIND = (REPO_ROOT / "tests" / "every_kind.toml").read_text(encoding="utf-8")
SHAPE = {"model_type": "toy", "vocab_size": 700, "n_embd": 32, "n_layer": 3, "n_head": 4}


def config_strings() -> list:
    found = []
    for fig in tomllib.loads(EVERY_KIND)["figure"]:
        found += [fig[key] for key in ("text", "clean", "corrupted", "target", "versus", "track") if key in fig]
        found += fig.get("texts", [])
    return found


def toy_dir(directory):
    """A seeded toy model saved as a save_pretrained directory would be: config.json, model.safetensors, and a
    byte-level tokenizer trained on every_kind.toml's texts."""
    from safetensors.torch import save_file

    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(json.dumps(SHAPE), encoding="utf-8")
    model = toy_family.ToyModel(toy_family.ToyConfig.from_dict(SHAPE))
    generator = torch.Generator().manual_seed(11)
    state = {
        name: (1.0 + 0.25 * torch.randn(t.shape, generator=generator))
        if name == "norm"
        else 0.3 * torch.randn(t.shape, generator=generator)
        for name, t in model.state_dict().items()
    }
    save_file(state, str(directory / "model.safetensors"), metadata={"format": "pt"})
    byte_tokenizer(directory, SHAPE["vocab_size"], config_strings() * 30)
    return directory


@pytest.fixture
def registered(monkeypatch):
    """The toy family registered for one test, the registries as they were afterwards."""
    monkeypatch.setattr(load, "FAMILIES", dict(load.FAMILIES))
    monkeypatch.setattr(checkpoint, "NAMED", dict(checkpoint.NAMED))
    monkeypatch.setattr(load, "NAMED", checkpoint.NAMED)
    load.register_family(toy_family.MODEL_TYPES, toy_family.ToyConfig, toy_family.ToyModel)


def test_a_toy_model_is_an_unknown_family_until_it_is_registered(tmp_path):
    with pytest.raises(BuildError) as caught:
        load.load(str(toy_dir(tmp_path / "toy")), None, 0, "cpu")
    assert "a 'toy' model, a family not supported" in str(caught.value)


def test_every_kind_builds_on_a_registered_toy_family(registered, tmp_path):
    folder = toy_dir(tmp_path / "toy")
    loaded = load.load(str(folder), None, 0, "cpu")
    assert isinstance(loaded.model, toy_family.ToyModel) and loaded.model.config.n_layer == 3
    (tmp_path / "work").mkdir()
    site = built(folder, EVERY_KIND, tmp_path / "work")
    labels = [fig["label"] for fig in tomllib.loads(EVERY_KIND)["figure"]]
    assert sorted(path.name for path in site.glob("figure-*.html")) == sorted(
        f"figure-{label}.html" for label in labels
    )
    parts = json.loads((site / "data" / "parts.json").read_text(encoding="utf-8"))
    for entry in parts["ledgers"]:  # no position embedding, a final norm without bias: the parts still add up
        assert "position embedding" not in [row["part"] for row in entry["parts"]]
        assert sum(row["target"] for row in entry["parts"]) == pytest.approx(entry["score"]["target"], abs=1e-4)
