"""On a phone (360 x 800 px) no token loses its label: in figure (l), in the heads figure's larger pattern and in the
lens, every token of the text is written in the chart's SVG, whole (never cut short with "..."), visible and inside
the drawing; a grid wider than the phone's column scrolls in its own box rather than drop a label. The lens's cells
show their guesses whole too. Pages of conftest's random_site (the chapter built with --model random).

The tokens expected are written out here as the chapter writes them (GPT-2's tokens of its two texts, `_` for a
leading space), not read from the site."""

from __future__ import annotations

import csv
from collections import Counter

import pytest

PHONE = {"width": 360, "height": 800}
ANIMAL = "The _animal _didn 't _cross _the _street _because _it _was _too _tired".split()  # figure (l)'s text
MAYA = "May a _lives _in _Paris , _the _capital _of".split()  # the lens's text
CUT = "\u2026"  # what Vega writes at the end of a label or a word it cut short

# Every axis of a chart's drawing: its title and its labels, each with whether it is drawn (not hidden, as Vega
# hides the labels it leaves out) and whether it lies inside the drawing (not cut off at its edge).
AXES = """(id) => {
  const svg = document.querySelector('#' + id + ' svg.marks'), box = svg.getBoundingClientRect();
  const shown = el => { for (let n = el; n && n !== svg; n = n.parentElement) { const s = getComputedStyle(n);
      if (s.display === 'none' || s.visibility === 'hidden' || parseFloat(s.opacity) === 0) return false; }
    return true; };
  const inside = el => { const r = el.getBoundingClientRect();
    return r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1; };
  return Array.from(svg.querySelectorAll('g.role-axis')).map(axis => ({
    // A title of several lines is one text of several tspans: its lines are joined with spaces.
    title: Array.from(axis.querySelectorAll('g.role-axis-title text')).map(t => t.children.length
      ? Array.from(t.children).map(line => line.textContent).join(' ') : t.textContent).join(' '),
    titleInside: Array.from(axis.querySelectorAll('g.role-axis-title text')).every(inside),
    labels: Array.from(axis.querySelectorAll('g.role-axis-label text')).filter(shown).map(t => ({
      text: t.textContent, inside: inside(t)})),
  }));
}"""

# The words each text mark of a chart draws (not its axes, legends or titles), those Vega hides left out, each with
# the box it takes on the page.
MARK_WORDS = """(id) => {
  const svg = document.querySelector('#' + id + ' svg.marks');
  const shown = el => { for (let n = el; n && n !== svg; n = n.parentElement) { const s = getComputedStyle(n);
      if (s.display === 'none' || s.visibility === 'hidden' || parseFloat(s.opacity) === 0) return false; }
    return true; };
  return Array.from(svg.querySelectorAll('g.mark-text.role-mark')).map(mark =>
    Array.from(mark.querySelectorAll('text')).filter(shown).map(t => { const r = t.getBoundingClientRect();
      return {text: t.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom}; }));
}"""


def overlapping(words: list) -> list:
    """The pairs of words whose boxes overlap (by more than half a pixel each way)."""
    return [
        (a["text"], b["text"])
        for i, a in enumerate(words)
        for b in words[i + 1 :]
        if min(a["right"], b["right"]) - max(a["left"], b["left"]) > 0.5
        and min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > 0.5
    ]


def open_at_360(opener, page: str):
    """`page` opened in a 360 x 800 window, its charts drawn; the page must not scroll sideways."""
    visit = opener.open(page, context=opener.context(viewport=PHONE))
    sideways = visit.page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert sideways <= 0, f"{page} scrolls sideways by {sideways} px at 360 px"
    visit.assert_clean()
    return visit


def axes_at_360(opener, page: str, label: str) -> list:
    """The axes of chart-<label> on `page`, opened in a 360 x 800 window."""
    return open_at_360(opener, page).page.evaluate(AXES, f"chart-{label}")


def unlabelled(axis: dict, wanted: list) -> list:
    """The wanted labels that the axis does not show whole, visible and inside the drawing."""
    drawn = {label["text"] for label in axis["labels"] if label["inside"]}
    return [word for word in wanted if word not in drawn]


def test_every_token_of_figure_l_has_its_label_whole_at_360_px(opener):
    axes = axes_at_360(opener, "figure-l.html", "l")
    best = min(axes, key=lambda axis: len(unlabelled(axis, ANIMAL)))
    assert unlabelled(best, ANIMAL) == [], (
        f"(l) at 360 px: tokens without a label: {unlabelled(best, ANIMAL)}; "
        f"the axes show {[[l['text'] for l in a['labels']] for a in axes]}"
    )
    assert not [label for label in best["labels"] if label["text"].endswith(CUT)], best


@pytest.mark.parametrize("title", ["looking (asks the question)", "looked at (gives the description)"])
def test_every_token_has_its_label_on_each_axis_of_the_heads_figures_pattern_at_360_px(opener, title):
    """The head chosen in the address (layer 5, head 4) is drawn larger: its pattern and the chosen token's bars."""
    axes = [
        axis
        for axis in axes_at_360(opener, "figure-all-heads.html#layer=5&head=4", "all-heads")
        if axis["title"] == title
    ]
    assert axes, f"the heads figure has no axis titled {title!r}"
    for axis in axes:
        assert unlabelled(axis, ANIMAL) == [], f"{title} at 360 px: tokens without a label: {unlabelled(axis, ANIMAL)}"
        assert axis["titleInside"], f"the axis title {title!r} reaches out of the drawing at 360 px"


def test_no_axis_title_of_the_heads_figure_is_cut_short_at_360_px(opener):
    titles = [axis["title"] for axis in axes_at_360(opener, "figure-all-heads.html#layer=5&head=4", "all-heads")]
    assert [title for title in titles if title.endswith(CUT)] == [], titles


def test_every_position_of_the_lens_has_its_label_and_every_cell_its_guess_whole_at_360_px(opener, random_site):
    """The lens's table names each position '5: _Paris'; each cell shows its top guess, as the cells' data say it."""
    wanted = [f"{q}: {token}" for q, token in enumerate(MAYA, start=1)]
    visit = open_at_360(opener, "figure-lens.html")
    axes = visit.page.evaluate(AXES, "chart-lens")
    best = min(axes, key=lambda axis: len(unlabelled(axis, wanted)))
    assert unlabelled(best, wanted) == [], f"lens at 360 px: positions without a label: {unlabelled(best, wanted)}"

    with open(random_site / "downloads" / "figure-lens-cells.csv", encoding="utf-8", newline="") as cells:
        guesses = Counter(row["top"] for row in csv.DictReader(cells))
    assert sum(guesses.values()) == 13 * len(MAYA)  # after each of GPT-2 small's 12 layers and before any
    marks = visit.page.evaluate(MARK_WORDS, "chart-lens")
    table = max(marks, key=len)  # the text mark with a word in every cell
    words = Counter(word["text"] for word in table)
    assert words == guesses, (
        f"lens at 360 px: guesses not drawn whole in their cells: {sorted(guesses - words)}; "
        f"drawn otherwise: {sorted(words - guesses)}"
    )
    assert overlapping(table) == [], f"lens at 360 px: guesses that run into each other: {overlapping(table)[:5]}"


# The titles a chart draws, each as its lines joined by spaces (a title wraps to the phone's column).
TITLES = """(id) => Array.from(document.querySelectorAll('#' + id + ' svg.marks g.role-title-text text')).map(t =>
    t.querySelectorAll('tspan').length ? Array.from(t.querySelectorAll('tspan')).map(s => s.textContent).join(' ')
                                       : t.textContent)"""
GPT2_VOCABULARY = "50,257"  # the tokens GPT-2 knows, as the chapter writes the count


def test_the_lens_names_the_followed_token_in_its_titles_and_its_rank_axis_ends_at_the_vocabulary_at_360_px(opener):
    """Opened before any layer (stage 0 in the address), following _France at the last position, _of."""
    visit = open_at_360(opener, "figure-lens.html#stage=0")
    titles = visit.page.evaluate(TITLES, "chart-lens")
    assert "_France's chance at position 9: _of" in titles, titles
    assert f"_France's rank among all {GPT2_VOCABULARY} tokens at position 9: _of" in titles, titles
    assert "The top 10 at position 9: _of, before any layer" in titles, titles
    assert not [title for title in titles if "Its " in title or "probability" in title or "stage" in title], titles
    [rank] = [axis for axis in visit.page.evaluate(AXES, "chart-lens") if axis["title"] == "rank (1 = most likely)"]
    numbers = [int(label["text"].replace(",", "")) for label in rank["labels"]]
    assert GPT2_VOCABULARY in [label["text"] for label in rank["labels"]], rank
    assert min(numbers) == 1 and max(numbers) == int(GPT2_VOCABULARY.replace(",", "")), numbers  # never past it
