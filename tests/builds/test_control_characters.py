"""A token that is a control character (token 199 of GPT-2's vocabulary is U+000B, the vertical tab) shows as a
visible escape, '\\v', wherever the site writes it, and never breaks a drawing: a lens whose top guess is that
token builds, its page names it, its drawing is legal XML and its downloads hold the escape, not the character.

The model is the small seeded one of conftest.py with its read-out made to favour token 199: the final layer
norm's gains set to 0 and its biases kept, so that every stage reads out the same vector, the bias, and token
199's embedding (the unembedding shares it) set along that bias, far longer than the others.
"""

from __future__ import annotations

import csv
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import built

CONTROL = 199  # "\x0b" in GPT-2's vocabulary
CONFIG = """\
[[figure]]
kind = "lens"
label = "vt"
text = "Maya lives in Paris\\u000b, the capital of"

[[figure]]
kind = "attention"
label = "vt-att"
text = "Maya lives in Paris\\u000b, the capital of"
focus = 9
views = [[1, 1]]
"""


@pytest.fixture(scope="module")
def control_model_dir(small_model_dir, tmp_path_factory) -> Path:
    """The small model, its read-out's top guess token 199 at every stage and position."""
    import torch
    from transformers import GPT2LMHeadModel, GPT2TokenizerFast

    model = GPT2LMHeadModel.from_pretrained(small_model_dir)
    with torch.no_grad():
        bias = model.transformer.ln_f.bias
        model.transformer.ln_f.weight.zero_()
        model.transformer.wte.weight[CONTROL] = 20 * bias / bias.norm()
    directory = tmp_path_factory.mktemp("control-gpt2")
    model.save_pretrained(directory)
    tokenizer = GPT2TokenizerFast.from_pretrained(small_model_dir)
    assert tokenizer.decode([CONTROL]) == "\x0b"
    tokenizer.save_pretrained(directory)
    return directory


@pytest.fixture(scope="module")
def control_site(control_model_dir, tmp_path_factory) -> Path:
    return built(control_model_dir, CONFIG, tmp_path_factory.mktemp("control-build"))


def test_a_lens_whose_top_guess_is_a_control_character_builds_and_its_page_shows_the_escape(control_site):
    page = (control_site / "figure-vt.html").read_text(encoding="utf-8")
    assert "\x0b" not in page and "\x0b" not in (control_site / "figures.txt").read_text(encoding="utf-8")
    # The summary names the top guess, quoted as a token with no letter in it; the text row, the text's token.
    assert "the guess after _of (token 10) is &#34;\\v&#34; with" in page
    assert "Maya lives in Paris\\v, the capital of" in page


def test_the_lens_drawing_holds_the_escape_and_is_legal_xml(control_site):
    svg = (control_site / "img" / "figure-vt.svg").read_text(encoding="utf-8")
    ET.fromstring(svg)  # raises on a character XML cannot hold
    assert ">\\v</text>" in svg and "\x0b" not in svg


def test_the_lens_downloads_hold_the_escape_not_the_character(control_site):
    tables = [path for path in sorted((control_site / "downloads").glob("figure-vt-*.csv")) if "-att-" not in path.name]
    assert len(tables) == 3
    for path in tables:
        assert "\x0b" not in path.read_text(encoding="utf-8")
    tops = [row for path in tables for row in csv.DictReader(path.open(encoding="utf-8")) if row.get("top")]
    assert tops and all(row["top"] == "\\v" for row in tops), tops[:3]


def test_no_file_of_the_site_holds_the_control_character_raw(control_site):
    """Pages (the figure's, the text's, the index), text figures, downloads and drawings: the escape everywhere."""
    files = [path for path in control_site.rglob("*") if path.is_file() and path.suffix != ".png"]
    assert [path.relative_to(control_site) for path in files if b"\x0b" in path.read_bytes()] == []
    # The index lists the text's page (two figures read it) by the text, escape and all.
    assert "“Maya lives in Paris\\v, the capital of”" in (control_site / "index.html").read_text(encoding="utf-8")
