"""Every figure kind builds on a Llama-style model (tests/every_kind.toml over a seeded random LlamaForCausalLM of
transformers' saved with save_pretrained, with a start tokenizer trained on the config's own texts): the start
token is the first token of every text the model reads, no page or file holds U+FFFD, and the ledger's parts add
up to the score."""

from __future__ import annotations

import json
import tomllib

import pytest

from conftest import REPO_ROOT, built, llama_dir

EVERY_KIND = (REPO_ROOT / "tests" / "every_kind.toml").read_text(encoding="utf-8")


def config_strings() -> list:
    """The texts and tokens every_kind.toml names: the toy tokenizer is trained on them, so each target is one
    token of its own."""
    found = []
    for fig in tomllib.loads(EVERY_KIND)["figure"]:
        found += [fig[key] for key in ("text", "clean", "corrupted", "target", "versus", "track") if key in fig]
        found += fig.get("texts", [])
    return found


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    model = llama_dir(tmp_path_factory.mktemp("every-kind-llama"), corpus=config_strings() * 30, vocab_size=700)
    return built(model, EVERY_KIND, tmp_path_factory.mktemp("every-kind-llama-site"))


def test_every_kind_builds_a_page(site):
    labels = [fig["label"] for fig in tomllib.loads(EVERY_KIND)["figure"]]
    assert sorted(path.name for path in site.glob("figure-*.html")) == sorted(f"figure-{label}.html" for label in labels)
    run = json.loads((site / "data" / "run.json").read_text(encoding="utf-8"))
    assert run["model"]["n_head"] == 8 and run["model"]["n_kv_head"] == 2


def test_the_start_token_leads_every_text_and_no_file_holds_a_replacement_character(site):
    for path in (site / "data").glob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        if "tokens" in data:
            assert data["tokens"][0] == {"id": 1, "text": "<s>"}
            assert all(token["text"] != "<s>" for token in data["tokens"][1:])
    damaged = [path.name for path in site.rglob("*") if path.is_file() and "\ufffd".encode() in path.read_bytes()]
    assert not damaged


def test_the_ledgers_parts_add_up_to_the_score(site):
    parts = json.loads((site / "data" / "parts.json").read_text(encoding="utf-8"))
    (entry,) = parts["ledgers"]
    names = [row["part"] for row in entry["parts"]]
    assert "position embedding" not in names
    for side in ("target", "versus"):
        assert sum(row[side] for row in entry["parts"]) == pytest.approx(entry["score"][side], abs=1e-4)
