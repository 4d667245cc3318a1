"""figures.txt, the print edition: the chapter's own format line by line, its numbers from the reference."""

from __future__ import annotations

import math
import re

import pytest
import reference as ref_lib
from conftest import SMALL_CONFIG, gpt2_tokenizer, text_blocks

L_TEXT = "The animal didn't cross the street because it was too tired"
I_TEXT = "Maya lives in Paris, the capital of"


def printed(site) -> dict:
    return text_blocks((site / "figures.txt").read_text(encoding="utf-8"))


def book_percent(share: float) -> int:
    """Whole percent the way the book rounds (halves up); written here again, apart from the build's code."""
    return math.floor(share * 100 + 0.5)


def shown(token: str) -> str:
    return "_" + token[1:] if token.startswith(" ") else token


@pytest.fixture(scope="module")
def tokenizer():
    return gpt2_tokenizer()


@pytest.fixture(scope="module")
def small_printed(small_build):
    return printed(small_build)


def test_shapes_figure_is_the_chapters_own_lines_for_a_model_of_gpt2_small_shape(random_site, chapter_blocks):
    assert printed(random_site)["f"] == chapter_blocks["f"]


def test_attention_figure_has_the_chapters_heading_and_view_column(random_site, chapter_blocks):
    ours, book = printed(random_site)["l"], chapter_blocks["l"]
    assert ours[:3] == book[:3]
    assert len(ours) == len(book)
    for our_line, book_line in zip(ours[3:], book[3:]):
        assert our_line[:33] == book_line[:33]  # "     layer 5, head 4:            "
        assert re.fullmatch(r"\S+ \d+%(  \S+ \d+%)*", our_line[33:]), our_line


def test_readout_figure_has_the_chapters_stage_column_and_layout(random_site, chapter_blocks):
    ours, book = printed(random_site)["i"], chapter_blocks["i"]
    assert ours[0] == book[0]
    assert len(ours) == len(book) == 14
    pattern = re.compile(r"(.{21})_France (.{6}) %    top 3: (\S+ \d+%)  (\S+ \d+%)  (\S+ \d+%)")
    for our_line, book_line in zip(ours[1:], book[1:]):
        ours_match, book_match = pattern.fullmatch(our_line[2:]), pattern.fullmatch(book_line[2:])
        assert ours_match and book_match, (our_line, book_line)
        assert ours_match.group(1) == book_match.group(1)
        assert re.fullmatch(r" *\d+\.\d\d", ours_match.group(2))


def test_model_in_numbers_has_the_chapters_tables(random_site, chapter_blocks):
    ours = [line[2:] for line in printed(random_site)["heads"][1:]]
    tables = ref_tables(chapter_blocks)
    book = tables["heads"] + tables["feed-forward"]
    assert ours[: len(book)] == book


def test_cost_table_is_the_chapters_for_9_and_1000_tokens_in_144_heads(random_site, chapter_blocks):
    ours = [line[2:] for line in printed(random_site)["cost"][1:]]
    assert ours == ref_tables(chapter_blocks)["cost"]


def ref_tables(chapter_blocks) -> dict:
    """The chapter's unlabelled tables, read from the test data file after the labelled figures."""
    from conftest import CHAPTER_FIGURES

    lines = [line for line in CHAPTER_FIGURES.read_text(encoding="utf-8").splitlines() if line.strip()]
    start = lines.index("heads in one layer     12")
    return {
        "heads": lines[start : start + 5],
        "feed-forward": lines[start + 5 : start + 10],
        "cost": lines[start + 10 :],
    }


def test_attention_shares_in_print_are_the_references_in_whole_percent(small_printed, small_model_dir, tokenizer):
    ids = tokenizer(L_TEXT)["input_ids"]
    attention = ref_lib.reference(small_model_dir, ids).attention  # (layers, heads, query, key)
    tokens = [shown(tokenizer.decode([i])) for i in ids]
    focus = 8  # token 9, "it"
    views = {
        "layer 2, head 3:": attention[1, 2, focus],
        "layer 1, head 1:": attention[0, 0, focus],
        "layer 3, head 4:": attention[2, 3, focus],
        "all 12 heads, averaged:": attention[:, :, focus].mean(dim=(0, 1)),
    }
    lines = small_printed["l"][3:]
    assert [line[5:33].strip() for line in lines] == list(views)
    for line, shares in zip(lines, views.values()):
        expected = [
            f"{tokens[k]} {book_percent(float(s))}%" for k, s in enumerate(shares[: focus + 1]) if float(s) * 100 >= 0.5
        ]
        assert line[33:].split("  ") == expected


def test_readout_in_print_is_the_references_target_and_top_three(small_printed, small_model_dir, tokenizer):
    ids = tokenizer(I_TEXT)["input_ids"]
    probs = ref_lib.reference(small_model_dir, ids).probs[:, -1]  # (stages, vocab) at the last token
    target = tokenizer(" France")["input_ids"][0]
    lines = small_printed["i"][1:]
    assert len(lines) == probs.shape[0] == 4
    for stage, line in enumerate(lines):
        label = "after the embedding" if stage == 0 else f"after layer {stage}"
        top = probs[stage].topk(3)
        expected_top = "  ".join(
            f"{shown(tokenizer.decode([int(i)]))} {book_percent(float(p))}%" for p, i in zip(top.values, top.indices)
        )
        expected = f"  {label:<21}_France {float(probs[stage, target]) * 100:6.2f} %    top 3: {expected_top}"
        assert line == expected


def test_small_config_prints_every_figure_in_config_order(small_printed):
    labels = re.findall(r'^label = "(\w+)"', SMALL_CONFIG, flags=re.M)
    assert list(small_printed) == labels


def test_model_in_numbers_is_counted_from_the_model_not_the_config(random_site):
    lines = printed(random_site)["heads"]
    text = "\n".join(lines)
    assert "heads in the model     12 x 12  =  144" in text
    assert re.search(r"weights in feed-forward +56,669,184 +45\.5%", text)
    assert re.search(r"weights in attention +28,348,416 +22\.8%", text)
    assert re.search(r"weights in layer norm +38,400 ", text)


def test_another_model_gives_its_own_numbers(small_model_dir, tmp_path):
    """3 layers, 4 heads, width 64: counts by GPT-2's formulas (attention 4d^2 + 4d per layer, feed-forward
    8d^2 + 5d, layer norm 4d per layer and 2d at the end), worked out here apart from the build."""
    from click.testing import CliRunner

    from build import cli

    config = tmp_path / "numbers.toml"
    config.write_text(
        '[[figure]]\nkind = "numbers"\nlabel = "n"\n\n[[figure]]\nkind = "cost"\nlabel = "c"\n', encoding="utf-8"
    )
    out = tmp_path / "site"
    result = CliRunner().invoke(cli, ["--model", str(small_model_dir), "--config", str(config), "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = "\n".join(printed(out)["n"])
    d, layers, vocab, positions = 64, 3, 50257, 1024
    attention, feed_forward = layers * (4 * d * d + 4 * d), layers * (8 * d * d + 5 * d)
    norm, embedding = layers * 4 * d + 2 * d, vocab * d + positions * d
    total = attention + feed_forward + norm + embedding
    assert "heads in the model     3 x 4  =  12" in text
    assert "numbers for one head   64 / 4  =  16" in text
    assert "W1            64 x 256" in text
    assert re.search(rf"weights in feed-forward +{feed_forward:,} +{feed_forward / total * 100:.1f}%", text)
    assert re.search(rf"weights in attention +{attention:,} +{attention / total * 100:.1f}%", text)
    assert re.search(rf"weights in layer norm +{norm:,} ", text)
    assert re.search(rf"all weights +{total:,} ", text)
    assert "in all 12 heads" in "\n".join(printed(out)["c"])
