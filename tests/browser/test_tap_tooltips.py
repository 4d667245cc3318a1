"""A tap shows a mark's tooltip on a phone, as the pointer does with a mouse: the guides say "tap a cell for its
value". A touch screen sends no pointer move for a tap, so the page shows the tapped mark's tooltip itself, and a
tap elsewhere hides it. Pages of conftest's random_site, tapped in Chromium's phone emulation."""

from __future__ import annotations

import pytest

PHONE = {"viewport": {"width": 360, "height": 800}, "has_touch": True, "is_mobile": True}
TOOLTIP = (
    "() => { const t = document.getElementById('vg-tooltip-element');"
    " return t && t.classList.contains('visible') ? t.innerText : null; }"
)

# A mark of the chart with a tooltip that is the topmost element at its own middle (where a tap lands on it),
# scrolled into view: its middle and the values its tooltip shows, as text.
TOOLTIPPED_MARK = """id => {
  for (const el of document.querySelectorAll('#' + id + ' svg.marks path')) {
    const tip = el.__data__ && el.__data__.tooltip;
    if (!tip || typeof tip !== 'object') continue;
    el.scrollIntoView({block: 'center', inline: 'center'});
    const box = el.getBoundingClientRect(), x = box.left + box.width / 2, y = box.top + box.height / 2;
    if (box.width < 4 || box.height < 4 || document.elementFromPoint(x, y) !== el) continue;
    return {x: x, y: y, values: Object.values(tip).map(String)};
  }
  return null;
}"""


@pytest.mark.parametrize("label", ["all-heads", "tired-or-wide"])
def test_a_tap_on_a_cell_shows_its_tooltip_and_a_tap_elsewhere_hides_it(opener, label):
    visit = opener.open(f"figure-{label}.html", context=opener.context(**PHONE))
    page = visit.page
    cell = page.evaluate(TOOLTIPPED_MARK, f"chart-{label}")
    assert cell is not None, f"({label}) no mark with a tooltip to tap"
    assert page.evaluate(TOOLTIP) is None
    page.touchscreen.tap(cell["x"], cell["y"])
    page.wait_for_function(TOOLTIP, timeout=2_000)
    shown = page.evaluate(TOOLTIP)
    assert all(value in shown for value in cell["values"]), (cell["values"], shown)
    heading = page.locator("h1").first
    heading.scroll_into_view_if_needed()
    box = heading.bounding_box()
    page.touchscreen.tap(box["x"] + 2, box["y"] + box["height"] / 2)
    page.wait_for_function(f"() => ({TOOLTIP})() === null", timeout=2_000)
    visit.assert_clean()


# The mark with a tooltip now drawn at a point of the screen, and the values its tooltip shows; null where none is.
TIP_AT = """([x, y]) => { const el = document.elementFromPoint(x, y), tip = el && el.__data__ && el.__data__.tooltip;
  return tip && typeof tip === 'object' ? Object.values(tip).map(String) : null; }"""

# A bar of figure (l) for another token than the chosen one, scrolled into view: where a tap lands on it, the token
# it chooses, and its tooltip's values.
OTHER_BAR = """() => {
  const view = document.getElementById('chart-l').vegaView, chosen = view.signal('token');
  for (const el of document.querySelectorAll('#chart-l svg.marks path')) {
    const item = el.__data__, datum = item && item.datum;
    if (!datum || !item.tooltip || datum.pick_token === undefined || datum.pick_token === chosen) continue;
    el.scrollIntoView({block: 'center'});
    const box = el.getBoundingClientRect(), x = box.left + Math.min(4, box.width / 2), y = box.top + box.height / 2;
    if (box.width < 2 || document.elementFromPoint(x, y) !== el) continue;
    return {x: x, y: y, token: datum.pick_token, values: Object.values(item.tooltip).map(String)};
  }
  return null;
}"""


def test_a_tap_that_chooses_shows_the_tooltip_of_the_new_state_or_none(opener):
    """In (l), a tap on a bar looks from its token: the chart is drawn anew, and the tooltip then shows the mark now
    under the finger (the token's share of its own attention, 100% for the first token), never the share the tapped
    bar had before."""
    visit = opener.open("figure-l.html", context=opener.context(**PHONE))
    page = visit.page
    bar = page.evaluate(OTHER_BAR)
    assert bar is not None, "no bar of another token to tap"
    page.touchscreen.tap(bar["x"], bar["y"])
    page.wait_for_function(f"() => document.getElementById('chart-l').vegaView.signal('token') === {bar['token']}")
    page.wait_for_timeout(300)  # the chart drawn in its new state, and the tooltip shown
    now, shown = page.evaluate(TIP_AT, [bar["x"], bar["y"]]), page.evaluate(TOOLTIP)
    assert now != bar["values"], "the tapped bar's values did not change: the test shows nothing"
    if now is None:
        assert shown is None, f"a tooltip of the state left: {shown}"
    else:
        assert shown is not None and all(value in shown for value in now), (now, shown)
    visit.assert_clean()
