"""Before a chart is live the reader already has it (issue 34, point 1): the bar above the drawing holds the inputs the
build wrote, the same as those Vega writes when the chart goes live (so nothing moves, also on a phone, where the
box shows the narrow chart's drawing and a dark page the dark drawing), and what the reader does before then (an
input set, a click on the drawing) is what the live chart opens on.

Vega's script is held back by the test (its request answered only when the test says), so the page shows exactly what
a slow phone shows before Vega has loaded."""

from __future__ import annotations

import pytest

from .browsing import ALL_RENDERED, RENDER_TIMEOUT_MS

# Every input in a chart's bars (the bar of controls and the line below it), as the reader sees and uses it: what it
# is, its name, its value, whether it is checked, hidden or shown, its words; in the order of the page.
INPUTS = """(chart) => [...document.querySelectorAll(`#${chart} .vega-bindings .vega-bind`)].map(bind => ({
  words: bind.textContent, hidden: bind.hidden, inBar: !!bind.closest('.control-bar'),
  inputs: [...bind.querySelectorAll('input, select')].map(input => ({tag: input.tagName, type: input.type,
    name: input.name, value: input.value, checked: input.checked,
    options: input.tagName === 'SELECT' ? [...input.options].map(o => [o.value, o.text, o.selected, o.hidden, o.disabled])
      : null}))}))"""
CHARTS = "() => [...document.querySelectorAll('[data-spec]')].map(el => el.id)"
SHOWN_DRAWING = """(chart) => { const img = [...document.querySelectorAll(`#${chart} .first-drawing img`)]
  .find(i => i.checkVisibility()); return img ? {src: img.currentSrc, width: img.offsetWidth, height: img.offsetHeight}
  : null; }"""
FIGURES = [
    "figure-l.html",
    "figure-lens.html",
    "figure-i.html",
    "figure-knockout.html",
    "figure-cost.html",
    "figure-question-and-keys.html",
    "figure-head-roles.html",
    "figure-patching.html",
    "figure-ledger.html",
    "figure-find-head.html",
]


class HeldVega:
    """A page whose request for vega.js waits until `release`: until then its charts show the build's drawings."""

    def __init__(self, context, url: str):
        self.held = []
        self.page = context.new_page()
        self.page.route("**/vega.js", lambda route: self.held.append(route))
        self.page.goto(url, wait_until="commit")
        self.page.wait_for_function("() => document.querySelector('.first-drawing img') !== null")
        self.page.wait_for_function(
            "() => [...document.querySelectorAll('.first-drawing img')]"
            ".filter(i => i.checkVisibility()).every(i => i.complete)"
        )  # lazy: those shown
        while not self.held:  # the request is made once the parser reaches the script
            self.page.wait_for_timeout(10)

    def release(self) -> None:
        self.held.pop().continue_()
        self.page.wait_for_function(ALL_RENDERED, timeout=RENDER_TIMEOUT_MS)


@pytest.fixture(params=[(1100, 900), (360, 800)], ids=["wide", "phone"])
def context(request, browser):
    width, height = request.param
    context = browser.browser.new_context(viewport={"width": width, "height": height})
    yield context
    context.close()


@pytest.mark.parametrize("name", FIGURES)
def test_the_build_writes_the_inputs_vega_writes_where_vega_places_them(context, random_site, name):
    held = HeldVega(context, (random_site / name).as_uri())
    charts = held.page.evaluate(CHARTS)
    before = {chart: held.page.evaluate(INPUTS, chart) for chart in charts}
    held.release()
    after = {chart: held.page.evaluate(INPUTS, chart) for chart in charts}
    held.page.close()
    assert any(before.values()), f"{name}: no inputs written by the build"
    assert before == after, f"{name}: the build's inputs differ from Vega's"


@pytest.mark.parametrize("name", FIGURES)
def test_the_box_shows_the_drawing_of_the_chart_it_will_draw_at_its_height(context, random_site, name):
    held = HeldVega(context, (random_site / name).as_uri())
    chart = held.page.evaluate(CHARTS)[0]
    drawing = held.page.evaluate(SHOWN_DRAWING, chart)
    held.release()
    narrow = held.page.evaluate(f"() => document.getElementById('{chart}').drawnNarrow")
    live = held.page.evaluate(
        f"() => document.querySelector('#{chart} .chart-drawing svg, #{chart} .chart-drawing "
        "canvas').getBoundingClientRect().height"
    )
    held.page.close()
    assert drawing is not None, f"{name}: no drawing shown before the chart is live"
    assert (".narrow" in drawing["src"]) == narrow or not narrow, (
        f"{name}: showed {drawing['src']}, drew narrow={narrow}"
    )
    # Drawn for a desktop's column and a phone's, fitted and wrapped as the live chart is; the words are measured by
    # vl-convert's fonts there and Chromium's here, so that a long chart may differ by a line of them (head-roles: 7
    # of 2,033 px, far below the first screen).
    most = max(1, 0.005 * live)
    assert abs(drawing["height"] - live) <= most, f"{name}: drawn {drawing['height']} px tall, live {live}"


def test_a_dark_page_shows_the_dark_drawing(browser, random_site):
    context = browser.browser.new_context(viewport={"width": 1100, "height": 900}, color_scheme="dark")
    try:
        held = HeldVega(context, (random_site / "figure-lens.html").as_uri())
        drawing = held.page.evaluate(SHOWN_DRAWING, "chart-lens")
        held.release()
    finally:
        context.close()
    assert drawing["src"].endswith("figure-lens.dark.svg"), drawing


def test_an_input_set_before_the_chart_is_live_is_what_it_opens_on(browser, random_site):
    context = browser.browser.new_context(viewport={"width": 1100, "height": 900})
    try:
        held = HeldVega(context, (random_site / "figure-i.html").as_uri())
        held.page.fill("#chart-i input[name='stage']", "3")  # a range: fill sets it as a drag would
        held.page.focus("#chart-i input[name='stage']")
        held.release()
        stage = held.page.evaluate("() => document.getElementById('chart-i').vegaView.signal('stage')")
        focused = held.page.evaluate("() => document.activeElement.name")
    finally:
        context.close()
    assert stage == 3
    assert focused == "stage", "the input focused before the chart was live lost the focus"


def test_a_click_on_the_drawing_before_the_chart_is_live_is_made_on_the_live_chart(browser, random_site):
    """Where the reader clicks a mark that chooses a head in the drawing of every head, the live chart chooses it."""
    context = browser.browser.new_context(viewport={"width": 1100, "height": 900})
    url = (random_site / "figure-all-heads.html").as_uri()
    try:
        # Where a head's square lies (from the live chart), and which head it is.
        page = context.new_page()
        page.goto(url)
        page.wait_for_function(ALL_RENDERED, timeout=RENDER_TIMEOUT_MS)
        target = page.evaluate("""() => {
          const view = document.getElementById('chart-all-heads').vegaView, found = [];
          const walk = (mark, x, y) => (mark.items || []).forEach(item => {
            if (mark.marktype === 'group') { (item.items || []).forEach(inner => walk(inner, x + (item.x || 0),
                                                                                         y + (item.y || 0))); return; }
            const d = item.datum;
            if (d && d.pick_layer !== undefined && d.pick_head !== undefined && item.bounds.width() > 4
                && (d.pick_layer !== view.signal('layer') || d.pick_head !== view.signal('head'))) {
              found.push({x: x + (item.bounds.x1 + item.bounds.x2) / 2, y: y + (item.bounds.y1 + item.bounds.y2) / 2,
                          layer: d.pick_layer, head: d.pick_head}); } });
          walk(view.scenegraph().root, view.origin()[0], view.origin()[1]);
          return found.length ? found[found.length - 1] : null; }""")
        page.close()
        assert target is not None, "no head's square found to click"
        held = HeldVega(context, url)
        box = held.page.evaluate(
            "() => [...document.querySelectorAll('#chart-all-heads .first-drawing img')]"
            ".find(i => i.checkVisibility()).getBoundingClientRect().toJSON()"
        )
        held.page.mouse.click(box["left"] + target["x"], box["top"] + target["y"])
        held.release()
        chosen = held.page.evaluate(
            "() => { const v = document.getElementById('chart-all-heads').vegaView;"
            " return [v.signal('layer'), v.signal('head')]; }"
        )
    finally:
        context.close()
    assert chosen == [target["layer"], target["head"]], f"clicked {target}, the chart chose {chosen}"
