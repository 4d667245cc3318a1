"""The figure is there at once (issue 34, point 1): each chart's box shows the build's drawing of its opening state
before Vega has drawn anything, at the size the live chart takes, named for a screen reader by the chart's
description; the live chart then replaces it in the same box, and the page does not jump: its cumulative layout
shift, from file://, stays under 0.01, also where the chart has inputs (the build writes them as Vega will) and on a
phone (the box shows the narrow chart's drawing there)."""

from __future__ import annotations

import pytest

from .browsing import CHROMIUM, VIEWPORT

PAGES = ["figure-f.html", "figure-lens.html", "figure-cost.html", "figure-heads.html"]
WITHOUT_INPUTS = ["figure-f.html", "figure-heads.html", "figure-tired-or-wide.html"]
MOST_SHIFT = 0.01  # of the layout, summed over the page's load (web guidance calls 0.1 poor)

# Every layout shift from the page's start, summed (the reader's own input excluded, as the metric does), and what
# moved in each (window.shifts: when, how much, and each element's tag, id, class and box before and after), which
# a failure names.
COUNT_SHIFTS = """window.layoutShift = 0; window.shifts = [];
const named = (node) => node ? node.nodeName + '#' + (node.id || '') + '.' + String(node.className && node.className.baseVal
  !== undefined ? node.className.baseVal : node.className || '') : '?';
const box = (r) => [Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)];
new PerformanceObserver(list => { for (const entry of list.getEntries()) {
  if (entry.hadRecentInput) continue;
  window.layoutShift += entry.value;
  window.shifts.push({value: entry.value, at: Math.round(entry.startTime), moved: (entry.sources || []).map(s =>
    named(s.node) + ' ' + JSON.stringify(box(s.previousRect)) + ' -> ' + JSON.stringify(box(s.currentRect)))});
} }).observe({type: 'layout-shift', buffered: true});"""

# The first chart's box: its drawing (the build's image or the live chart's SVG), where it lies and how tall it is,
# and the image's name and whether it has loaded.
FIRST_BOX = """() => {
  const chart = document.querySelector('[data-spec]');
  const img = [...chart.querySelectorAll('.chart-drawing img')].find(i => i.checkVisibility());
  const svg = chart.querySelector('.chart-drawing svg.marks'), shown = img || svg;
  const box = shown && shown.getBoundingClientRect();
  return {img: !!img, svg: !!svg, height: box && Math.round(box.height), visible: !!shown && shown.checkVisibility(),
          loaded: !!img && img.complete && img.naturalWidth > 0, alt: img && img.alt,
          description: document.getElementById(chart.getAttribute('data-description')).textContent};
}"""
LIVE = "() => [...document.querySelectorAll('[data-spec]')].every(el => el.getAttribute('data-rendered') === 'true')"


@pytest.fixture(scope="module")
def context(browser):
    """A context of this module's own, so that the pages it changes (a script blocked, a counter added) are used
    by no other test."""
    context = browser.browser.new_context(viewport=VIEWPORT)
    yield context
    context.close()


def opened(context, site, name: str, vega: bool = True):
    """The page opened from file:// with its layout shifts counted; without vega.js, its charts never go live."""
    page = context.new_page()
    page.add_init_script(COUNT_SHIFTS)
    if not vega:
        page.route("**/vega.js", lambda route: route.abort())
    page.goto((site / name).as_uri())
    return page


@pytest.mark.parametrize("name", PAGES)
def test_the_drawing_is_shown_before_the_chart_is_live_and_named_by_its_description(context, random_site, name):
    assert CHROMIUM.exists()
    page = opened(context, random_site, name, vega=False)
    page.wait_for_function("() => document.querySelector('[data-spec] .chart-drawing img').complete")
    first = page.evaluate(FIRST_BOX)
    page.close()
    assert first["img"] and not first["svg"], f"{name}: no drawing in the chart's box before Vega: {first}"
    assert first["visible"] and first["loaded"], f"{name}: the drawing is not shown: {first}"
    assert first["alt"] and first["alt"] == first["description"].strip(), f"{name}: the drawing is not named: {first}"


@pytest.mark.parametrize("name", PAGES)
def test_the_live_chart_replaces_the_drawing_at_its_height(context, random_site, name):
    page = opened(context, random_site, name, vega=False)
    page.wait_for_function("() => document.querySelector('[data-spec] .chart-drawing img').complete")
    before = page.evaluate(FIRST_BOX)
    page.close()
    page = opened(context, random_site, name)
    page.wait_for_function(LIVE)
    after = page.evaluate(FIRST_BOX)
    page.close()
    assert after["svg"] and not after["img"], f"{name}: the live chart did not replace the drawing: {after}"
    assert abs(after["height"] - before["height"]) <= 1, (
        f"{name}: drawn {before['height']} px tall, live {after['height']}"
    )


@pytest.mark.parametrize("name", WITHOUT_INPUTS)
def test_nothing_moves_when_a_chart_without_inputs_goes_live(context, random_site, name):
    page = opened(context, random_site, name)
    page.wait_for_function(LIVE)
    page.wait_for_timeout(200)  # a shift is reported after the frame it happens in
    shift, shifts = page.evaluate("[window.layoutShift, window.shifts]")
    page.close()
    assert shift < MOST_SHIFT, f"{name}: cumulative layout shift {shift:.3f}: {shifts}"


WITH_INPUTS = [
    "figure-lens.html",
    "figure-l.html",
    "figure-i.html",
    "figure-cost.html",
    "figure-knockout.html",
    "figure-ledger.html",
    "figure-patching.html",
    "figure-head-roles.html",
    "figure-all-heads.html",
    "figure-question-and-keys.html",
    "figure-find-head.html",
]


@pytest.mark.parametrize("width", [1100, 360])
@pytest.mark.parametrize("name", WITH_INPUTS)
def test_nothing_moves_when_a_chart_with_inputs_goes_live(browser, random_site, name, width):
    """The build wrote the chart's inputs as Vega writes them, and on a phone the narrow chart's drawing."""
    context = browser.browser.new_context(viewport={"width": width, "height": 800})
    try:
        page = opened(context, random_site, name)
        page.wait_for_function(LIVE)
        page.wait_for_timeout(200)
        shift, shifts = page.evaluate("[window.layoutShift, window.shifts]")
    finally:
        context.close()
    assert shift < MOST_SHIFT, f"{name} at {width} px: cumulative layout shift {shift:.3f}: {shifts}"
