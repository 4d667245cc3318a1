"""A text page's heading (sitegen.site.render.TextPage.heading): it names its text, a long one cut short at a space."""

from __future__ import annotations

from sitegen.site.render import HEADING_TEXT, TextPage


def heading(text: str) -> str:
    return TextPage(text, "slug", []).heading


def test_a_text_pages_heading_quotes_a_short_text_whole():
    assert (
        heading("Maya lives in Paris, the capital of")
        == "Every figure of \u201cMaya lives in Paris, the capital of\u201d"
    )


def test_a_long_text_is_cut_at_a_space_within_the_headings_length_and_says_so():
    words = [f"word{n}" for n in range(40)]
    said = heading(" ".join(words))
    quoted = said.removeprefix("Every figure of \u201c").removesuffix("\u2026\u201d")
    assert said.endswith("\u2026\u201d") and len(quoted) <= HEADING_TEXT, said
    assert quoted.split() == words[: len(quoted.split())], "the cut is not at a space, between whole words"
    assert len(quoted) > HEADING_TEXT - len("word39 "), "cut shorter than it needs"


def test_line_breaks_and_runs_of_spaces_read_as_one_space_and_a_cut_drops_a_trailing_comma():
    assert heading("Ice melts\n\ninto   water") == "Every figure of \u201cIce melts into water\u201d"
    text = "a" * 50 + ", " + "b" * 20
    assert heading(text) == "Every figure of \u201c" + "a" * 50 + "\u2026\u201d"
