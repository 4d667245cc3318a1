"""The chapter's own numbers, from GPT-2's real weights. Runs only where they are in the local Hugging Face
cache: they cannot be downloaded here, and the build never fakes them."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner


def gpt2_is_cached() -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return False
    return all(
        isinstance(try_to_load_from_cache("gpt2", name), str)
        for name in ("config.json", "model.safetensors", "vocab.json", "merges.txt")
    )


pytestmark = pytest.mark.skipif(
    not gpt2_is_cached(),
    reason="GPT-2's real weights are not in the local Hugging Face cache "
    "(run `python build.py` once with a network to cache them)",
)


@pytest.fixture(scope="module")
def gpt2_site(tmp_path_factory):
    from build import cli

    out = tmp_path_factory.mktemp("gpt2") / "site"
    result = CliRunner(env={"HF_HUB_OFFLINE": "1"}).invoke(cli, ["--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_printed_figures_l_f_i_are_the_chapters_exactly(gpt2_site, chapter_blocks):
    from conftest import text_blocks

    ours = text_blocks((gpt2_site / "figures.txt").read_text(encoding="utf-8"))
    for label in ("l", "f", "i"):
        assert ours[label] == chapter_blocks[label], label


def test_the_chapters_numbers(gpt2_site):
    printed = (gpt2_site / "figures.txt").read_text(encoding="utf-8")
    assert "after layer 12       _France  28.81 %    top 3: _France 29%  _the 25%  _a 5%" in printed
    assert "after layer  9       _France  19.23 %" in printed
    assert "after layer 10       _France  87.64 %" in printed
    assert re.search(r"layer 5, head 4: +The 8%  _animal 85%", printed)
    assert re.search(r"weights in feed-forward +[\d,]+ +45\.5%", printed)
    assert re.search(r"weights in attention +[\d,]+ +22\.8%", printed)
    assert re.search(r"weights in layer norm +38,400 ", printed)


def test_the_head_from_of_back_to_paris_sits_in_layer_9_and_gives_61_percent(gpt2_site):
    page = (gpt2_site / "figure-i.html").read_text(encoding="utf-8")
    assert re.search(r"is layer 9, head \d+: it gives _Paris 61% of its attention", page)


def test_pages_record_the_resolved_revision(gpt2_site):
    import json

    run = json.loads((gpt2_site / "data" / "run.json").read_text(encoding="utf-8"))
    assert run["model"]["name"] == "gpt2" and re.fullmatch(r"[0-9a-f]{40}", run["model"]["revision"] or "")
    assert "Not GPT-2." not in (gpt2_site / "index.html").read_text(encoding="utf-8")
