"""Every figure kind builds on a Llama-style model and on a GPT-NeoX one (tests/every_kind.toml over a seeded random
LlamaForCausalLM or GPTNeoXForCausalLM of transformers' saved with save_pretrained, with a tokenizer trained on the
config's own texts: a Llama's start tokenizer, Pythia's byte-level one with no start token): a Llama's start token
is the first token of every text the model reads, Pythia's texts begin with their own first token, no page or file
holds U+FFFD, and the ledger's parts add up to the score."""

from __future__ import annotations

import json
import tomllib

import pytest

from conftest import REPO_ROOT, built, llama_dir, neox_dir

EVERY_KIND = (REPO_ROOT / "tests" / "every_kind.toml").read_text(encoding="utf-8")


def config_strings() -> list:
    """The texts and tokens every_kind.toml names: the toy tokenizer is trained on them, so each target is one
    token of its own."""
    found = []
    for fig in tomllib.loads(EVERY_KIND)["figure"]:
        found += [fig[key] for key in ("text", "clean", "corrupted", "target", "versus", "track") if key in fig]
        found += fig.get("texts", [])
    return found


MAKERS = {"llama": llama_dir, "neox": neox_dir}


@pytest.fixture(scope="module", params=sorted(MAKERS))
def site(request, tmp_path_factory):
    family = request.param
    model = MAKERS[family](tmp_path_factory.mktemp(f"every-kind-{family}"), corpus=config_strings() * 30,
                           vocab_size=700)
    return family, built(model, EVERY_KIND, tmp_path_factory.mktemp(f"every-kind-{family}-site"))


def test_every_kind_builds_a_page(site):
    family, site = site
    labels = [fig["label"] for fig in tomllib.loads(EVERY_KIND)["figure"]]
    assert sorted(path.name for path in site.glob("figure-*.html")) == sorted(f"figure-{label}.html" for label in labels)
    run = json.loads((site / "data" / "run.json").read_text(encoding="utf-8"))
    assert run["model"]["n_head"] == 8 and run["model"].get("n_kv_head") == (2 if family == "llama" else None)


def test_the_start_token_leads_every_text_where_there_is_one_and_no_file_holds_a_replacement_character(site):
    family, site = site
    special = {"llama": "<s>", "neox": "<|endoftext|>"}[family]
    texts = 0
    for path in (site / "data").glob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        if "tokens" in data:
            texts += 1
            if family == "llama":
                assert data["tokens"][0] == {"id": 1, "text": "<s>"}
            assert all(token["text"] != special for token in data["tokens"][family == "llama":])
    assert texts
    damaged = [path.name for path in site.rglob("*") if path.is_file() and "\ufffd".encode() in path.read_bytes()]
    assert not damaged


def test_the_ledgers_parts_add_up_to_the_score(site):
    site = site[1]
    parts = json.loads((site / "data" / "parts.json").read_text(encoding="utf-8"))
    (entry,) = parts["ledgers"]
    names = [row["part"] for row in entry["parts"]]
    assert "position embedding" not in names
    for side in ("target", "versus"):
        assert sum(row[side] for row in entry["parts"]) == pytest.approx(entry["score"][side], abs=1e-4)
