"""A token that is part of a character shows its bytes, '<E2 80>', the same way everywhere; ids stay as they are.

GPT-2 cuts '’' (bytes E2 80 99) into two tokens, 'âĢ' (E2 80) and 'Ļ' (99); alone, neither decodes to text.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from build import cli
from figsite.capture import api as capture

TEXT = "The animal didn’t cross the street"
REPLACEMENT = "\ufffd"


def test_a_llama_style_tokenizer_s_pieces_are_text_and_their_bytes_make_the_text_again(tmp_path):
    """A tokenizer of text pieces (a Llama's: '▁' before a word, byte-fallback pieces for what it has no piece for)
    is no byte-level one: a piece's bytes are its text's UTF-8 ('é' is C3 A9, not GPT-2's byte E9), the start
    token has none, and a text's pieces, joined, are its UTF-8 with the word-start space in front."""
    from conftest import start_tokenizer
    from figsite.model.tokens import Tokenizer, piece_bytes

    start_tokenizer(tmp_path)
    tokenizer = Tokenizer.from_directory(tmp_path)
    assert not tokenizer.byte_level and capture.gpt2_tokenizer().byte_level
    text = "The cat sat in a café, naïve ’€"
    ids = tokenizer(text)["input_ids"]
    pieces = [tokenizer.convert_ids_to_tokens(i) for i in ids]
    assert any(p.startswith("<0x") for p in pieces) and any(p.startswith("\u2581") for p in pieces), pieces
    assert b"".join(piece_bytes(tokenizer, i) for i in ids) == (" " + text).encode("utf-8")
    assert piece_bytes(tokenizer, tokenizer.start_id) is None


@pytest.fixture(scope="module")
def tokenizer_only():
    return capture.Loaded(None, capture.gpt2_tokenizer(), "tokenizer", None, "cpu")


@pytest.mark.parametrize(
    "token_id, text",
    [
        (447, "<E2 80>"),
        (247, "<99>"),
        (10545, " <E6>"),
        (17312, "<E6 9C>"),
        (851, " —"),
        (2634, "é"),
        (4881, " France"),
        (50257, "<unused 50257>"),
        (50303, "<unused 50303>"),
    ],
)
def test_a_token_is_its_text_or_else_its_bytes_in_hex(tokenizer_only, token_id, text):
    assert capture.token_text(tokenizer_only, token_id) == text


def test_the_bytes_of_every_token_of_a_text_make_the_text_again(tokenizer_only):
    """The byte table is GPT-2's own: a text's tokens' bytes, joined, are the text's UTF-8."""
    text = "Café — naïve 日本 didn’t"
    ids = capture.token_ids(tokenizer_only, text)
    assert b"".join(capture.token_bytes(tokenizer_only, i) for i in ids) == text.encode("utf-8")


@pytest.fixture(scope="module")
def site(small_model_dir, tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("byte-tokens")
    config = work / "bytes.toml"
    config.write_text(
        f'''
[[figure]]
kind = "attention"
label = "l"
text = "{TEXT}"
focus = 5
views = [[1, 1]]

[[figure]]
kind = "lens"
label = "lens"
text = "{TEXT}"
''',
        encoding="utf-8",
    )
    out = work / "site"
    result = CliRunner().invoke(
        cli, ["--model", str(small_model_dir), "--config", str(config), "--out", str(out), "--no-cache"]
    )
    assert result.exit_code == 0, result.output
    return out


def test_the_data_keeps_the_ids_and_writes_the_bytes_as_the_tokens_text(site):
    data = json.loads(next(p for p in (site / "data").glob("*.json") if p.name != "run.json").read_text("utf-8"))
    assert [(t["id"], t["text"]) for t in data["tokens"][3:5]] == [(447, "<E2 80>"), (247, "<99>")]


def test_no_page_figure_or_download_shows_the_replacement_character(site):
    for path in sorted(site.rglob("*")):
        if path.suffix in {".html", ".txt", ".csv", ".json"}:
            assert REPLACEMENT not in path.read_text(encoding="utf-8"), path.name


def test_the_bytes_read_the_same_in_the_printed_figure_the_chart_and_the_csv(site):
    printed = (site / "figures.txt").read_text(encoding="utf-8")
    assert "looking from <99> (token 5)" in printed and "<E2 80>" in printed
    spec = json.loads((site / "downloads" / "figure-l.vega-lite.json").read_text(encoding="utf-8"))
    assert next(p["value"] for p in spec["params"] if p["name"] == "names")[3:5] == ["<E2 80>", "<99>"]
    with open(site / "downloads" / "figure-l-keys.csv", encoding="utf-8", newline="") as handle:
        assert [row["t"] for row in csv.DictReader(handle)][3:5] == ["<E2 80>", "<99>"]
