"""Tokenizers.js (@huggingface/tokenizers, pinned in package.json), the JavaScript library chosen for the live page
to read a model's own tokenizer.json, against the `tokenizers` library the build runs: the same ids, and the same
text decoded back, for 1,000 texts (emoji, CJK, right-to-left scripts, code, spacing, GPT-2's end-of-text token)
with three families' tokenizers: GPT-2's own, a Llama-style one (a start token, byte-fallback pieces), and a
byte-level one trained as Pythia's is (GPT-NeoX: NFC, no start token)."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO_ROOT, gpt2_tokenizer, start_tokenizer

SCRIPT = REPO_ROOT / "tests" / "js" / "encode_with_tokenizers.mjs"
# Pieces a reader may type, the edges of each family's splitting among them.
PIECES = [
    "Hello",
    " world",
    "Maya",
    " lives in Paris",
    "日本語のテキスト",
    "中文",
    "😀",
    "👩‍👩‍👧",
    " café",
    "naïve",
    "\n\n",
    "\t",
    "  ",
    "def f(x):\n    return x**2",
    '{"a": [1, 2]}',
    "I'm",
    " don't",
    "1234567",
    "3.14159",
    "ß",
    "Ω",
    "ﬁ",
    "\u00a0",
    "e\u0301",
    "'s",
    "!!!",
    "—",
    "http://x.y/z?q=1",
    "αβγ",
    "Привет",
    "مرحبا",
    "नमस्ते",
    "🇫🇷",
    "  spaces  ",
    "CamelCaseWord",
    "snake_case_name",
    "x+=1;",
    "\r\n",
    "ＡＢＣ",
    "한국어",
    " the",
    ".",
]


def texts(count: int = 1000, seed: int = 0) -> list[str]:
    """`count` texts of one to six pieces each, drawn from `seed` (the same texts every run)."""
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(1, 6))) for _ in range(count)]


def neox_style(directory: Path):
    """A byte-level BPE trained here as GPT-NeoX's tokenizer is made: NFC first, GPT-2's byte-level splitting."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=600,
        special_tokens=["<|endoftext|>"],
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tokenizer.train_from_iterator(texts(200, seed=1), trainer)
    directory.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(directory / "tokenizer.json"))
    return tokenizer


def made(family: str, directory: Path):
    """(the tokenizer as the `tokenizers` library runs it, its tokenizer.json) for a family."""
    from tokenizers import Tokenizer

    if family == "gpt2":
        gpt2_tokenizer().save_pretrained(directory)
    elif family == "llama":
        start_tokenizer(directory)
    else:
        neox_style(directory)
    return Tokenizer.from_file(str(directory / "tokenizer.json")), directory / "tokenizer.json"


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")
@pytest.mark.parametrize("family", ["gpt2", "llama", "neox"])
def test_tokenizers_js_gives_the_build_s_ids_and_text_for_a_thousand_texts(family, tmp_path):
    reference, tokenizer_json = made(family, tmp_path / family)
    asked = texts()
    (tmp_path / "texts.json").write_text(json.dumps(asked), encoding="utf-8")
    done = subprocess.run(
        ["node", str(SCRIPT), str(tokenizer_json), str(tmp_path / "texts.json")],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    got = json.loads(done.stdout)
    expected = [reference.encode(text) for text in asked]
    wrong = [(text, js["ids"], want.ids) for text, js, want in zip(asked, got, expected) if js["ids"] != want.ids]
    assert not wrong, f"{len(wrong)} of {len(asked)} texts tokenized otherwise, e.g. {wrong[0]!r}"
    decoded = [reference.decode(want.ids) for want in expected]
    wrong = [(js["text"], text) for js, text in zip(got, decoded) if js["text"] != text]
    assert not wrong, f"{len(wrong)} of {len(asked)} decoded otherwise, e.g. {wrong[0]!r}"
    if family == "llama":  # the start token in front, and byte pieces for what it has no piece for
        start = reference.token_to_id("<s>")
        assert all(js["ids"][0] == start for js in got)
        assert any(reference.id_to_token(i).startswith("<0x") for js in got for i in js["ids"])
