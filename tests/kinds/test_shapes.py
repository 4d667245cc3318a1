"""Figure (f), the shapes (figures/shapes.py), drawn as blocks: read from the drawing the build makes of the small
model's site (conftest's small_build: 3 layers, 64 wide, GPT-2's vocabulary), each block's numbers against the
model's own config.json and GPT-2's tokenizer, and its size against its numbers: one strip per token, as wide as
the numbers each token holds, every block to the same scale, the scores' block cut and said to be."""

from __future__ import annotations

import html
import json
import re

import pytest
import vl_convert

from conftest import gpt2_tokenizer

TEXT = "Maya lives in Paris, the capital of"
# A block as the drawing has it: its words for a screen reader, and its rectangle (x, y, width, height).
BLOCK = re.compile(
    r'<path aria-label="([^"]*)" role="graphics-symbol" aria-roledescription="rect mark" '
    r'd="M([-0-9.e]+),([-0-9.e]+)h([-0-9.e]+)v([-0-9.e]+)h'
)


@pytest.fixture(scope="module")
def sizes(small_model_dir) -> dict:
    """What the numbers' shapes must be, from the model's config.json and the tokenizer, not from the run."""
    config = json.loads((small_model_dir / "config.json").read_text(encoding="utf-8"))
    return {
        "tokens": len(gpt2_tokenizer().encode(TEXT)),
        "width": config["n_embd"],
        "widened": config.get("n_inner") or 4 * config["n_embd"],
        "vocabulary": config["vocab_size"],
        "layers": config["n_layer"],
    }


@pytest.fixture(scope="module")
def blocks(small_build) -> dict:
    """Each block of figure (f)'s chart, as the spec a reader downloads draws it 880 px wide: its step -> (what it
    says, x, y, width, height) in px; a block drawn in pieces (a cut one) has them all, in order. (The page's first
    drawing leaves the marks' words for screen readers out: sitegen.site.lighter.)"""
    spec = json.loads((small_build / "downloads" / "figure-f.vega-lite.json").read_text(encoding="utf-8"))
    svg = vl_convert.vegalite_to_svg({**spec, "width": 880})
    out = {}
    for label, *box in BLOCK.findall(svg):
        step, said = html.unescape(label).split(": ", 1)
        out.setdefault(step, []).append((said, *map(float, box)))
    return out


def test_each_block_says_the_shape_the_model_gives_the_numbers_at_its_step(blocks, sizes):
    n, width, widened = sizes["tokens"], sizes["width"], sizes["widened"]
    said = {step: pieces[0][0] for step, pieces in blocks.items()}
    expected = {
        "token ids": f"{n} numbers",
        "after the embedding lookup": f"{n} x {width:,}",
        "inside layer 1's feed-forward step": f"{n} x {widened:,}",
        **{f"after layer {layer}": f"{n} x {width:,}" for layer in range(1, sizes["layers"] + 1)},
    }
    assert {step: said[step] for step in expected} == expected
    assert said["scores for the next token"].startswith(f"{sizes['vocabulary']:,} numbers")
    assert list(blocks)[-1] == "scores for the next token"


def test_the_blocks_are_drawn_to_one_scale_a_strip_per_token_as_wide_as_its_numbers(blocks, sizes):
    n, width, widened = sizes["tokens"], sizes["width"], sizes["widened"]
    ((_, _, _, w_embedding, h_embedding),) = blocks["after the embedding lookup"]
    ((_, _, _, w_widened, h_widened),) = blocks["inside layer 1's feed-forward step"]
    assert w_widened / w_embedding == pytest.approx(widened / width, rel=1e-6)
    for layer in range(1, sizes["layers"] + 1):  # the same block, layer after layer
        ((_, _, _, w, h),) = blocks[f"after layer {layer}"]
        assert (w, h) == pytest.approx((w_embedding, h_embedding))
    assert h_widened == pytest.approx(h_embedding)
    ((_, _, _, w_ids, h_ids),) = blocks["token ids"]
    assert h_ids == pytest.approx(h_embedding) and w_ids < w_embedding / 10  # one number per token: a thin line
    scores = blocks["scores for the next token"]
    assert all(h == pytest.approx(h_embedding / n) for *_, h in scores)  # one token's row


def test_the_scores_block_is_cut_and_the_words_say_how_much_wider_it_would_be(blocks, sizes, small_build):
    ((_, _, _, w_embedding, _),) = blocks["after the embedding lookup"]
    scores = blocks["scores for the next token"]
    assert len(scores) == 2, "drawn in two pieces with a break between"
    (_, x1, _, w1, _), (_, x2, _, w2, _) = scores
    assert x2 > x1 + w1, "a gap between the pieces"
    to_scale = w_embedding * sizes["vocabulary"] / sizes["width"]
    assert x2 + w2 < to_scale / 10
    times = round(sizes["vocabulary"] / sizes["widened"])
    assert (
        f"The block is cut: drawn to the same scale it would be {times:,} times as wide as the "
        f"{sizes['widened']:,}-wide block." in scores[0][0]
    )


def test_the_printed_figure_keeps_the_books_lines(small_build, sizes):
    printed = (small_build / "figures.txt").read_text(encoding="utf-8")
    block = printed[printed.index("(f) ") :].split("\n\n")[0].splitlines()
    n, width = sizes["tokens"], sizes["width"]
    assert block[1:] == [f"  {'token ids':<31}{n} numbers", f"  {'after the embedding lookup':<31}{n} x {width}"] + [
        f"  {'after layer ' + str(layer):<31}{n} x {width}" for layer in (1, 2, 3)
    ] + [f"  {'scores for the next token':<31}50,257 numbers (one per token in the vocabulary)"]
