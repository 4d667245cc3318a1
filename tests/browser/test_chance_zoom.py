"""The chance charts of the lens and of figure (i) open on the whole scale, 0 to 100%, and zoom in at a click on
their switch (the same words on both), in headless Chromium over conftest's random_site (the chapter's figures on
a seeded random model, whose chances of _France are tiny)."""

from __future__ import annotations

import re

import pytest

from .browsing import chart_svg, signal, wait_for_svg_change

AXIS = re.compile(r"Y-axis titled '(chance[^']*)' for a linear scale with values from 0% to ([0-9.,]+)%")


def chance_axis_end(page, label: str) -> float:
    """Where chart-<label>'s chance axis ends, in percent, as the drawing's own description of the axis says."""
    labels = page.eval_on_selector_all(f"#chart-{label} svg.marks [aria-label]",
                                       "nodes => nodes.map(n => n.getAttribute('aria-label'))")
    ends = [float(m.group(2).replace(",", "")) for m in map(AXIS.match, labels) if m]
    assert len(ends) == 1, labels
    return ends[0]


@pytest.mark.parametrize("label", ["lens", "i"])
def test_a_chance_chart_opens_on_0_to_100_percent_and_zooms_in_at_a_click(opener, label):
    visit = opener.open(f"figure-{label}.html")
    page = visit.page
    switch = page.locator(f"#chart-{label} .vega-bindings input[type='radio'][name='chance_scale']")
    assert switch.count() == 2 and page.locator(f"#chart-{label} input[name='chance_scale'][value='whole']").is_checked()
    assert " ".join(page.locator(f"#chart-{label} .vega-bindings").all_inner_texts()).count("0 to 100%") == 1
    assert chance_axis_end(page, label) == 100
    before = chart_svg(page, label)
    page.locator(f"#chart-{label} input[name='chance_scale'][value='zoom']").check()
    wait_for_svg_change(page, label, before)
    assert signal(page, label, "chance_scale") == "zoom"
    assert 0 < chance_axis_end(page, label) < 100
    assert visit.console_errors == [] and visit.page_errors == []
    # A link keeps the zoom.
    page.wait_for_function("() => location.hash.includes('chance_scale=zoom')")
    again = opener.open(page.evaluate("() => location.href")).page
    assert signal(again, label, "chance_scale") == "zoom" and 0 < chance_axis_end(again, label) < 100
