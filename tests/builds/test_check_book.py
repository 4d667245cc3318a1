"""`build.py --check-book FILE`: the figures printed in the book, checked against the same figures printed from
this run, with a unified diff for each that differs and one summary line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from builds.test_real_gpt2 import gpt2_is_cached

REPO = Path(__file__).resolve().parents[2]
CHAPTER_TEXT = REPO.parent / "shared" / "chapter" / "attention-and-layers.txt"
PROSE = "Some words of the book before the figures.\n(a) a remark in brackets, not a figure\n\n"


def check_book(book: Path, *options: str, env=None):
    from build import cli

    return CliRunner(env=env).invoke(cli, [*options, "--check-book", str(book)])


def diffs(output: str) -> dict:
    """The unified diffs in the output: label -> the lines each removes (-) and adds (+), header lines left out."""
    found, label = {}, None
    for line in output.splitlines():
        if line.startswith("--- "):
            label = line.split("(")[1].split(")")[0]
            found[label] = []
        elif label is not None and line.startswith(("-", "+")) and not line.startswith("+++ "):
            found[label].append(line)
    return found


@pytest.fixture
def chapter_text() -> Path:
    if not CHAPTER_TEXT.is_file():
        pytest.skip(f"the chapter's text is not at {CHAPTER_TEXT}")
    return CHAPTER_TEXT


@pytest.fixture
def run_printed(random_site) -> str:
    """Every figure of the chapter's config as this run (--model random) prints it; the run is in the cache."""
    return (random_site / "figures.txt").read_text(encoding="utf-8")


def test_with_model_random_the_chapters_f_matches_and_its_l_and_i_differ_with_readable_diffs(random_site, chapter_text):
    result = check_book(chapter_text, "--model", "random")
    assert result.exit_code == 1, result.output
    assert result.output.splitlines()[-1] == "check-book: 1 of 3 printed figures match: (f); 2 differ: (l), (i)"
    found = diffs(result.output)
    assert sorted(found) == ["i", "l"]
    assert f"--- {chapter_text} (l), line 23" in result.output
    assert "+++ (l) printed from this run of random (seed 0)" in result.output
    book_l = [line for line in found["l"] if line.startswith("-")]
    assert (
        book_l[0] == "-     layer 5, head 4:            The 8%  _animal 85%  _didn 2%  _cross 1%  _the 1%  "
        "_because 1%  _it 2%"
    )
    assert [line[:34] for line in found["l"]] == [
        f"{sign}     {view}"
        for sign in "-+"
        for view in ("layer 5, head 4:            ", "layer 1, head 1:            ", "all 144 heads, averaged:    ")
    ]
    assert len(found["i"]) == 26  # each of the 13 stages, as the book has it and as this run has it
    assert found["i"][0] == (
        "-  after the embedding  _France   0.00 %    top 3: _destro 65%  _mathemat 26%  _challeng 8%"
    )


def test_a_book_printed_from_this_same_run_matches_exactly_trailing_spaces_aside(run_printed, tmp_path):
    book = tmp_path / "book.txt"
    padded = "\n".join(line + "   " if n % 3 == 0 else line for n, line in enumerate(run_printed.splitlines()))
    book.write_text(PROSE + padded + "\n\nWords after the last figure.\n", encoding="utf-8")
    result = check_book(book, "--model", "random")
    assert result.exit_code == 0, result.output
    assert result.output == (
        "check-book: 14 of 14 printed figures match: (l), (heads), (f), (i), (cost), (all-heads), "
        "(lens), (tired-or-wide), (find-head), (question-and-keys), (ledger), (knockout), "
        "(patching), (head-roles)\n"
    )


def test_one_changed_number_gives_exit_1_and_a_diff_that_shows_just_that_line(run_printed, tmp_path):
    line = "  after the embedding lookup     9 x 768"
    assert run_printed.count(line) == 1
    book = tmp_path / "book.txt"
    book.write_text(PROSE + run_printed.replace(line, line.replace("768", "786")), encoding="utf-8")
    result = check_book(book, "--model", "random")
    assert result.exit_code == 1, result.output
    assert diffs(result.output) == {"f": ["-  after the embedding lookup     9 x 786", f"+{line}"]}
    assert result.output.splitlines()[-1] == (
        "check-book: 13 of 14 printed figures match: (l), (heads), (i), (cost), "
        "(all-heads), (lens), (tired-or-wide), (find-head), (question-and-keys), "
        "(ledger), (knockout), (patching), (head-roles); 1 differ: (f)"
    )


def test_a_figure_the_book_prints_and_the_config_lacks_is_named_in_the_summary(run_printed, tmp_path):
    f_figure = run_printed[run_printed.index("(f) ") : run_printed.index("(i) ")]
    book = tmp_path / "book.txt"
    book.write_text(PROSE + f_figure + "(z) A figure of another chapter\n  its one line\n", encoding="utf-8")
    result = check_book(book, "--model", "random")
    assert result.exit_code == 0, result.output
    assert result.output == (
        "check-book: 1 of 1 printed figures match: (f); printed in the book but not in the config: (z)\n"
    )


@pytest.mark.parametrize(
    "book, says",
    [
        ("missing.txt", "error: --check-book: {book} does not exist; allowed: the book's text as a UTF-8 file"),
        (
            "prose.txt",
            "error: --check-book: {book} prints no figure of chapter.toml (a line '(label) title' followed by "
            "indented lines, with a label of (l), (heads), (f), (i), (cost), (all-heads), (lens), "
            "(tired-or-wide), (find-head), (question-and-keys), (ledger), (knockout), (patching), (head-roles)); it "
            "prints only (z); "
            "allowed: a book that prints one or more of the config's figures",
        ),
    ],
)
def test_a_missing_book_or_one_without_a_printed_figure_of_the_config_is_one_line_and_exit_2(tmp_path, book, says):
    (tmp_path / "prose.txt").write_text(PROSE + "(z) A figure of another chapter\n  its one line\n", encoding="utf-8")
    result = check_book(tmp_path / book, "--model", "random")
    assert result.exit_code == 2
    assert result.output.splitlines() == [says.format(book=tmp_path / book)]


def test_a_printed_figure_is_its_label_line_and_the_indented_and_blank_lines_after_it():
    from sitegen.author.book import printed_figures

    text = (
        "(l) not a figure: no indented line follows\nWords.\n\n(f) A figure\n  one\n\n  two   \n\n"
        "Words again.\n  an indented line of the words\n"
    )
    [figure] = printed_figures(text)
    assert (figure.label, figure.line, figure.lines) == ("f", 4, ["(f) A figure", "  one", "", "  two"])


@pytest.mark.skipif(
    not gpt2_is_cached(),
    reason="GPT-2's real weights are not in the local Hugging Face cache "
    "(run `python build.py` once with a network to cache them)",
)
def test_with_gpt2s_real_weights_all_three_of_the_chapters_printed_figures_match(chapter_text):
    result = check_book(chapter_text, env={"HF_HUB_OFFLINE": "1"})
    assert result.exit_code == 0, result.output
    assert result.output == "check-book: 3 of 3 printed figures match: (l), (f), (i)\n"


def test_the_chapters_text_prints_l_f_and_i_as_the_books_program_wrote_them(chapter_text, chapter_blocks):
    from sitegen.author.book import printed_figures

    found = printed_figures(chapter_text.read_text(encoding="utf-8"))
    assert {figure.label: figure.lines for figure in found} == {label: chapter_blocks[label] for label in "lfi"}
