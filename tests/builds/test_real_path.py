"""The real user's path: the default `python build.py`, which reads `gpt2` from the Hugging Face cache.

No network here, and no GPT-2 weights: a seeded random model of GPT-2 small's shape is laid out as the hub lays
out `gpt2` (refs/main names a commit; snapshots/<commit>/ holds config.json, model.safetensors with the hub's
key names, and the tokenizer files), and HF_HOME points at it. It is never presented as GPT-2: it only stands
where the hub's files would stand, so that the loading code is the real one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FAKE_COMMIT = "0123456789abcdef0123456789abcdef01234567"
NO_NETWORK = "http://127.0.0.1:9"  # the discard port: refused at once, as a machine with no network
NARROW = 96  # 12 heads of width 8


@pytest.fixture(scope="session")
def hub_home(tmp_path_factory) -> Path:
    """HF_HOME holding `gpt2` as the hub lays it out, filled from a seeded model of GPT-2 small's layers and heads."""
    from safetensors.torch import save_file

    from figsite.capture.api import gpt2_tokenizer, random_gpt2

    home = tmp_path_factory.mktemp("hf-home")
    repo = home / "hub" / "models--gpt2"
    snapshot = repo / "snapshots" / FAKE_COMMIT
    snapshot.mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(FAKE_COMMIT, encoding="utf-8")
    model = random_gpt2(0, n_embd=NARROW)  # GPT-2 small's layers and heads, narrowed: chapter.toml's figures fit
    model.config.architectures = ["GPT2LMHeadModel"]
    model.config.to_json_file(snapshot / "config.json")
    # The hub's gpt2 file: the transformer's weights without the "transformer." prefix and no lm_head (it is
    # tied to the token embedding).
    weights = {
        name: tensor.contiguous()
        for name, tensor in model.transformer.state_dict().items()
        if not name.endswith((".attn.bias", ".attn.masked_bias"))
    }
    save_file(weights, str(snapshot / "model.safetensors"), metadata={"format": "pt"})
    gpt2_tokenizer().save_pretrained(snapshot)
    return home


def default_build(cwd: Path, hub_home: Path, cache: Path) -> subprocess.CompletedProcess:
    """`python build.py` with no options, as the README's first command, in `cwd` (the site goes to ./site)."""
    env = {**os.environ, "HF_HOME": str(hub_home), "HF_ENDPOINT": NO_NETWORK, "GPT2_FIGURES_CACHE": str(cache)}
    env.pop("HF_HUB_OFFLINE", None)
    return subprocess.run(
        [sys.executable, str(REPO / "build.py")], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="module")
def hub_builds(hub_home, tmp_path_factory) -> list[Path]:
    """The default build twice: cold, then from the cache."""
    work = tmp_path_factory.mktemp("default-build")
    cache = work / "cache"
    sites = []
    for name in ("cold", "cached"):
        (work / name).mkdir()
        result = default_build(work / name, hub_home, cache)
        assert result.returncode == 0, result.stderr
        sites.append(work / name / "site")
    return sites


def data_files(site: Path) -> dict:
    """The run record and each text's data file (not parts.json, which holds no model record)."""
    return {
        p.name: json.loads(p.read_text(encoding="utf-8"))
        for p in sorted((site / "data").glob("*.json"))
        if p.name != "parts.json"
    }


def test_a_hub_model_read_from_the_local_cache_with_no_network_names_its_commit_in_every_data_file(hub_builds):
    for site in hub_builds:
        files = data_files(site)
        assert files["run.json"]["model"]["revision"] == FAKE_COMMIT
        texts = [content for name, content in files.items() if name != "run.json"]
        assert texts and all(content["model"]["revision"] == FAKE_COMMIT for content in texts)
        assert all(content["model"]["name"] == "gpt2" for content in texts)


def test_every_page_footer_names_the_commit_of_the_hub_model(hub_builds):
    for site in hub_builds:
        pages = sorted(site.glob("*.html"))
        assert pages
        for page in pages:
            html = page.read_text(encoding="utf-8")
            assert "not a model from the hub" not in html, page.name
            assert FAKE_COMMIT[:12] in html, page.name


def test_the_model_read_from_the_hub_cache_computes_what_its_weights_compute(hub_builds, hub_home):
    """The weights went through the hub's file layout whole: shares and read-outs are the float64 reference's."""
    import reference as ref_lib

    weights = ref_lib.load_weights(hub_home / "hub" / "models--gpt2" / "snapshots" / FAKE_COMMIT)
    texts = [content for name, content in data_files(hub_builds[0]).items() if name != "run.json"]
    for content in texts:
        ids = [token["id"] for token in content["tokens"]]
        want = ref_lib.forward(weights, ids)
        got = content["attention"]
        assert (
            max(
                abs(share - want.attention[l, h, q, k].item())
                for l, layer in enumerate(got)
                for h, head in enumerate(layer)
                for q, row in enumerate(head)
                for k, share in enumerate(row)
            )
            < 1e-4
        )
        top_id, top_p = content["readout"][-1][-1]["top"][0]
        assert abs(top_p - want.probs[-1, -1, top_id].item()) < 1e-5


def test_the_rebuild_from_the_cache_writes_the_same_site(hub_builds):
    from conftest import snapshot

    assert snapshot(hub_builds[0]) == snapshot(hub_builds[1])
