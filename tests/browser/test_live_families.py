"""A figure's own sentence on another family's site in Chromium: a Llama-style model (conftest's small seeded
LlamaForCausalLM: rotary positions, 8 query heads sharing 2 key/value heads, RMSNorm, SwiGLU) and its own tokenizer
(a start token, byte-fallback pieces), built with --live and served from 127.0.0.1 as tests/browser/test_live_page.py
serves GPT-2's, on the attention figure's page (PAGE, its "Try your own sentence" opened). The page cuts the text
into the build's tokens with the model's tokenizer.json (the start token first, shown as a token of its own and not
counted as one of the reader's), runs the exported model, and draws and offers for download the build's own numbers:
every share and probability within 1e-5, the top 10 the same (ties aside), the ranks the same (within 1 past rank
100). A token no piece of the vocabulary holds (byte pieces) is drawn as its bytes, never U+FFFD. One page, one model
load, the tests in the order written (the first visits the read-out figure's page too, whose form shows the box of
the token to follow, and comes back).
"""

from __future__ import annotations

import json

import pytest

from conftest import built
from tests.support.hosting import serve

from .test_live_page import (
    TIMEOUT_MS,
    TOLERANCE,
    Watched,
    assert_same_rank,
    assert_same_top,
    build_data,
    downloaded_json,
    state,
    type_and_run,
)

TEXT = "Maya lives in Paris, the capital of"
TARGET = " France"
PAGE = "figure-l.html"  # the attention figure's page: its "Try your own sentence" runs the model
READOUT_PAGE = "figure-i.html"  # the read-out figure's page: its form shows the box of the token to follow
# The page ready: its "Try your own sentence" open, the tokenizer and the runtime loaded, the Load button enabled.
READY = (
    "() => window.liveFigures && window.liveFigures.state === 'idle' && Boolean(window.liveTokens && window.ort)"
    " && !document.getElementById('live-load-button').disabled"
)
BYTES_TEXT = "The cat sat on the mat \u20ac"  # '€': no piece of its own, three byte pieces
CONFIG = f'''\
[[figure]]
kind = "attention"
label = "l"
text = "{TEXT}"

[[figure]]
kind = "readout"
label = "i"
text = "{TEXT}"
target = "{TARGET}"

[[figure]]
kind = "lens"
label = "lens"
text = "{TEXT}"
track = "{TARGET}"

[[figure]]
kind = "attention"
label = "bytes"
text = "{BYTES_TEXT}"
'''


@pytest.fixture(scope="module")
def site(llama_model_dir, tmp_path_factory):
    from sitegen.site import live_assets

    missing = live_assets.problems()
    if missing:
        pytest.skip(f"the live page's libraries are not installed ({'; '.join(missing)}): run ./setup.sh --live")
    return built(llama_model_dir, CONFIG, tmp_path_factory.mktemp("live-llama"), "--live")


@pytest.fixture(scope="module")
def base(site):
    """The site's address on 127.0.0.1, under a sub-path."""
    with serve(site.parent) as host:
        yield f"{host.url}{site.name}/"


def open_own(page, base: str, name: str) -> None:
    """Opens the figure's page `name` at #try-own (the address opens "Try your own sentence", and its scripts load at
    once) and waits until its form is ready."""
    page.goto(base + name + "#try-own")
    page.wait_for_function(READY, timeout=TIMEOUT_MS)
    assert page.evaluate("document.getElementById('try-own').open")


@pytest.fixture(scope="module")
def page(browser, base):
    held = Watched(browser, base)
    open_own(held.page, base, PAGE)
    yield held.page
    assert held.refused == [] and held.dialogs == [] and held.errors == []
    held.close()


def test_the_text_is_counted_without_the_start_token_and_the_model_reads_it_first(page, site, base):
    data, _ = build_data(site, TEXT)
    start = data["tokens"][0]
    assert start["text"] == "<s>"
    assert page.evaluate("liveTokens.startId()") == start["id"]
    assert page.evaluate("t => liveTokens.modelIds(t)", TEXT) == [t["id"] for t in data["tokens"]]
    n = len(data["tokens"]) - 1  # the reader's own tokens
    assert page.text_content("#live-count") == f"{n} of 63 tokens"  # 64 positions, one the start token's
    # The start token refused as the token to follow, where the reader can type one: the read-out figure's page.
    open_own(page, base, READOUT_PAGE)
    assert page.text_content("#live-count") == f"{n} of 63 tokens"
    page.fill("#live-target", "<s>")
    page.press("#live-text", "Enter")
    assert state(page) == "refused" and "start token <s>" in page.text_content("#live-message")
    open_own(page, base, PAGE)  # back to the attention figure's page, the book's target in its (hidden) box
    assert page.input_value("#live-target") == TARGET


def test_the_page_draws_the_builds_numbers_for_a_llama_style_model(page, site):
    page.click("#live-load-button")
    page.wait_for_function("() => ['drawn', 'error'].includes(window.liveFigures.state)", timeout=TIMEOUT_MS)
    assert state(page) == "drawn", page.text_content("#live-message")
    data, lens = build_data(site, TEXT)
    got = downloaded_json(page)
    assert got["tokens"] == [{"id": t["id"], "text": t["text"]} for t in data["tokens"]]
    labels = page.eval_on_selector_all("#live-tokens .token", "spans => spans.map(s => [s.className, s.textContent])")
    assert labels[0] == ["token token-start", "<s>"] and all(c == "token" for c, _ in labels[1:])
    n = len(data["tokens"])
    assert f"in {n - 1} tokens after the start token <s>" in page.text_content("#live-tokens-label")
    assert f"read your {n - 1} tokens" in page.text_content("#live-message")
    assert len(got["attention"]) == 4 and len(got["attention"][0]) == 8  # every query head
    for l, layer in enumerate(data["attention"]):
        for h, head in enumerate(layer):
            for q, row in enumerate(head):
                worst = max(abs(a - b) for a, b in zip(got["attention"][l][h][q], row))
                assert worst <= TOLERANCE, f"layer {l + 1}, head {h + 1}, token {q + 1}: shares differ by {worst}"
    for stage, positions in enumerate(data["readout"]):
        for q, cell in enumerate(positions):
            assert_same_top(got["top"][stage][q], cell["top"], f"stage {stage}, token {q + 1}")
    target = next(f for f in got["followed"] if "readout" in f["figures"])
    assert target["id"] == data["target"]["id"]
    k = lens["tokens"].index(target["id"])
    for stage in range(len(data["readout"])):
        for q in range(n):
            assert abs(target["p"][stage][q] - lens["p"][stage][q][k]) <= TOLERANCE, (stage, q)
            assert_same_rank(target["rank"][stage][q], lens["rank"][stage][q][k], f"stage {stage}, token {q + 1}")


def test_byte_pieces_are_drawn_as_their_bytes_with_the_builds_numbers(page, site):
    type_and_run(page, BYTES_TEXT)
    assert state(page) == "drawn", page.text_content("#live-message")
    record = json.loads((site / "data" / "run.json").read_text(encoding="utf-8"))
    entry = next(e for e in record["texts"] if e["text"] == BYTES_TEXT)
    data = json.loads((site / entry["data"]).read_text(encoding="utf-8"))
    got = downloaded_json(page)
    assert got["tokens"] == [{"id": t["id"], "text": t["text"]} for t in data["tokens"]]
    assert [t["text"] for t in got["tokens"][-3:]] == ["<E2>", "<82>", "<AC>"]
    assert "\ufffd" not in page.text_content("#live-tokens")
    for l, layer in enumerate(data["attention"]):
        for h, head in enumerate(layer):
            for q, row in enumerate(head):
                assert max(abs(a - b) for a, b in zip(got["attention"][l][h][q], row)) <= TOLERANCE
