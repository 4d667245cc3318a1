"""The ledger page in headless Chromium, from file:// with every other request refused: the site of
tests/kinds/test_ledger.py (its `site` fixture, built over conftest's small model), opened at an address that names a
part inside, then driven to another part."""

from __future__ import annotations

from kinds.test_ledger import registered, site  # noqa: F401  (that module's build, with its kind registered)

from .browsing import Opener, description, wait_for_signal


def test_the_page_draws_and_the_address_opens_a_part_inside(site, browser):  # noqa: F811
    opener = Opener(browser, site)
    try:
        visit = opener.open("figure-who.html#score=difference&part=feed-forward-2")
        wait_for_signal(visit.page, "who", "part", "feed-forward-2")
        wait_for_signal(visit.page, "who", "score", "difference")
        words = description(visit.page, "who")
        assert "minus" in words and "Layer 2 feed-forward adds" in words, words
        visit.page.locator("#chart-who .vega-bindings select[name='part']").select_option("attention-3")
        wait_for_signal(visit.page, "who", "part", "attention-3")
        visit.page.wait_for_function("() => location.hash.includes('part=attention-3')")
        visit.assert_clean()
        assert visit.vega_warnings == [], visit.vega_warnings
    finally:
        opener.close()


# The legends as drawn: each with its entries' words and the fill of their swatches; and the waterfall's first bar's top.
LEGENDS_AND_FIRST_BAR = """id => {
  const svg = document.querySelector('#' + id + ' svg.marks');
  const legends = [...svg.querySelectorAll('.role-legend')].map(legend => ({
    top: legend.getBoundingClientRect().top, bottom: legend.getBoundingClientRect().bottom,
    // A label drawn on two lines (its words before and after ': ') is one entry, joined as it was written.
    entries: [...legend.querySelectorAll('.role-legend-label text')].map(t => t.querySelector('tspan')
      ? [...t.querySelectorAll('tspan')].map(line => line.textContent).join(': ') : t.textContent),
    fills: [...legend.querySelectorAll('.role-legend-symbol path')].map(p => p.getAttribute('fill'))}));
  const bars = [...svg.querySelectorAll('path')].filter(el => el.__data__ && el.__data__.mark &&
    el.__data__.mark.marktype === 'rect' && el.__data__.datum && el.__data__.datum.name === 'token embedding');
  return {legends, first_bar: bars.length ? bars[0].getBoundingClientRect().top : null};
}"""


def test_the_waterfalls_colours_have_their_legend_above_it_in_the_palettes_sides(site, browser):  # noqa: F811
    """The first chart's legend sits above it, and says which colour raises the score and which lowers it, in the
    chapter's words: the colours of what helps the answer and what works against it (figures/toolkit/colours.py),
    as on the knockout and patching pages, not the chosen token's colour; the model's score, a number on neither side,
    in the data's blue, not the followed token's purple (issue 44)."""
    from coloraide import Color

    from figures.ledger_chart import LOWERS, RAISES
    from figures.toolkit.colours import CHOSEN, DATA, FOLLOWED, HELPS, HURTS

    opener = Opener(browser, site)
    try:
        drawn = opener.open("figure-who.html").page.evaluate(LEGENDS_AND_FIRST_BAR, "chart-who")
        sides = next(legend for legend in drawn["legends"] if RAISES in legend["entries"])
        assert drawn["first_bar"] is not None and sides["bottom"] <= drawn["first_bar"], drawn
        fills = {entry: Color(fill).to_string(hex=True) for entry, fill in zip(sides["entries"], sides["fills"])}
        assert RAISES == "helps the answer: raises its score" and LOWERS.startswith("works against the answer")
        assert fills == {
            RAISES: Color(HELPS).to_string(hex=True),
            LOWERS: Color(HURTS).to_string(hex=True),
            "the model's score": Color(DATA).to_string(hex=True),
        }
        assert not {Color(CHOSEN).to_string(hex=True), Color(FOLLOWED).to_string(hex=True)} & set(fills.values())
    finally:
        opener.close()
