"""The chance charts of the lens and of figure (i) open on the whole scale, 0 to 100%, and zoom in at a click on
their switch (the same words on both), every chance axis of the figure at once, in headless Chromium over
conftest's random_site (the chapter's figures on a seeded random model, whose chances are all tiny)."""

from __future__ import annotations

import re

import pytest

from .browsing import chart_svg, signal, wait_for_svg_change

AXIS = re.compile(r"[XY]-axis titled '(chance[^']*)' for a linear scale with values from 0% to ([0-9.,]+)%")
# Each figure's chance axes: the bars of its top guesses (along x) and its followed token's line (up y).
CHANCE_AXES = {"lens": ["chance", "chance"], "i": ["chance of being the next token", "chance of _France"]}
BARS_AXIS = {"lens": "chance", "i": "chance of being the next token"}


def chance_axis_ends(page, label: str) -> dict:
    """Where each of chart-<label>'s chance axes ends, in percent, as the drawing's own description of the axis
    says: {title: [end, ...]}; its titles are checked against CHANCE_AXES."""
    labels = page.eval_on_selector_all(
        f"#chart-{label} svg.marks [aria-label]", "nodes => nodes.map(n => n.getAttribute('aria-label'))"
    )
    ends = {}
    for m in filter(None, map(AXIS.match, labels)):
        ends.setdefault(m.group(1), []).append(float(m.group(2).replace(",", "")))
    assert sorted(title for title, found in ends.items() for _ in found) == sorted(CHANCE_AXES[label]), labels
    return ends


def chance_axis_end(page, label: str) -> float:
    """Where chart-<label>'s chance axis of the followed token ends, in percent."""
    return chance_axis_ends(page, label)[CHANCE_AXES[label][-1]][-1]


# The bars of the top guesses beside their axis, in px: the axis's line (its left and right ends), the widest bar,
# and the right end of every word drawn past a bar (in the views that hold bars).
BARS = """([id, title]) => {
  const svg = document.querySelector('#' + id + ' svg.marks');
  const axis = [...svg.querySelectorAll('[aria-roledescription="axis"]')]
    .filter(a => a.getAttribute('aria-label').startsWith("X-axis titled '" + title + "'"))[0];
  const line = axis.querySelector('.role-axis-domain line, .role-axis-domain path').getBoundingClientRect();
  const bars = [...svg.querySelectorAll('[aria-roledescription="bar"]')];
  const views = new Set(bars.map(b => b.closest('.mark-group')));
  const words = [...views].flatMap(v => [...v.querySelectorAll('.mark-text.role-mark text')]);
  return {left: line.left, right: line.right, widest: Math.max(...bars.map(b => b.getBoundingClientRect().width)),
          words: words.map(w => w.getBoundingClientRect().right)};
}"""


def top_bars(page, label: str) -> dict:
    return page.evaluate(BARS, [f"chart-{label}", BARS_AXIS[label]])


@pytest.mark.parametrize("label", ["lens", "i"])
def test_a_chance_chart_opens_on_0_to_100_percent_and_zooms_in_at_a_click(opener, label):
    visit = opener.open(f"figure-{label}.html")
    page = visit.page
    switch = page.locator(f"#chart-{label} .vega-bindings input[type='radio'][name='chance_scale']")
    assert (
        switch.count() == 2 and page.locator(f"#chart-{label} input[name='chance_scale'][value='whole']").is_checked()
    )
    assert " ".join(page.locator(f"#chart-{label} .vega-bindings").all_inner_texts()).count("0 to 100%") == 1
    assert all(end == 100 for ends in chance_axis_ends(page, label).values() for end in ends)
    before = chart_svg(page, label)
    page.locator(f"#chart-{label} input[name='chance_scale'][value='zoom']").check()
    wait_for_svg_change(page, label, before)
    assert signal(page, label, "chance_scale") == "zoom"
    zoomed = chance_axis_ends(page, label)
    assert all(0 < end < 100 for ends in zoomed.values() for end in ends), zoomed
    assert visit.console_errors == [] and visit.page_errors == []
    # A link keeps the zoom.
    page.wait_for_function("() => location.hash.includes('chance_scale=zoom')")
    again = opener.open(page.evaluate("() => location.href")).page
    assert signal(again, label, "chance_scale") == "zoom" and 0 < chance_axis_end(again, label) < 100


@pytest.mark.parametrize("label", ["lens", "i"])
@pytest.mark.parametrize("width", [1100, 360])
def test_zoomed_in_the_top_guesses_bars_are_drawn_large_and_their_words_inside_the_view(opener, label, width):
    """On the random model every top guess has a chance under 0.1%: on the whole scale their bars are a pixel wide or
    less; zoomed in, the longest spans most of its axis and every word past a bar stays within the view, at
    every stage (the axis follows the stage's largest bar)."""
    context = opener.context(viewport={"width": width, "height": 900})
    page = opener.open(f"figure-{label}.html", context=context).page
    whole = top_bars(page, label)
    length = whole["right"] - whole["left"]
    assert whole["widest"] < 0.01 * length, whole  # the model's fact the test rests on: tiny chances
    page.locator(f"#chart-{label} input[name='chance_scale'][value='zoom']").check()
    for stage in (12, 5, 0):
        before = chart_svg(page, label)
        page.evaluate(
            "([id, s]) => document.getElementById(id).vegaView.signal('stage', s).runAsync().then(() => null)",
            [f"chart-{label}", stage],
        )
        if stage != 12:
            wait_for_svg_change(page, label, before)
        page.wait_for_timeout(100)
        bars = top_bars(page, label)
        assert bars["widest"] > 0.5 * (bars["right"] - bars["left"]), (stage, bars)
        assert bars["words"] and max(bars["words"]) <= bars["right"] + 1, (stage, bars)
