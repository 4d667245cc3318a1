"""The "heads" and "find-head" pages in headless Chromium, from file:// with every other request refused: the
site of tests/kinds/test_heads_and_findhead.py (its `site` fixture, built over conftest's small model), driven by
choosing another head, layer, token or pair of tokens."""

from __future__ import annotations

import pytest

from figures import heads, picture
from kinds.test_heads_and_findhead import kinds, site  # noqa: F401  (that module's build, with its kinds registered)

from .browsing import Opener, choose_in_select


@pytest.fixture
def opener(browser, site):  # noqa: F811
    """Opens pages of the heads and find-head site for one test."""
    opener = Opener(browser, site)
    yield opener
    opener.close()


def chart(page, label: str) -> str:
    return page.eval_on_selector(f"#chart-{label} svg", "svg => svg.outerHTML")


def choose(page, label: str, name: str, value: str) -> None:
    """Chooses `value` in chart-<label>'s select `name` and waits until the chart is drawn again."""
    before = chart(page, label)
    choose_in_select(page, label, name, value)  # the token's on its row, where a row steers the chart
    page.wait_for_function(
        "([id, before]) => document.querySelector('#' + id + ' svg').outerHTML !== before",
        arg=[f"chart-{label}", before],
        timeout=5_000,
    )


def said(page, label: str) -> str:
    return page.text_content(f"#description-{label}")


def test_the_heads_page_draws_and_follows_the_chosen_head_and_token(opener):
    visit = opener.open("figure-grid.html")
    page = visit.page
    assert page.get_attribute("#chart-grid", "data-rendered") == "true", page.text_content("#chart-grid")
    assert "Shown larger: layer 2, head 3. Looking from _it (token 9)" in said(page, "grid")
    choose(page, "grid", "head", "1")
    assert "Shown larger: layer 2, head 1." in said(page, "grid")
    choose(page, "grid", "head", heads.AVERAGE)
    choose(page, "grid", "layer", "3")
    assert "Shown larger: layer 3, the average of its 4 heads" in said(page, "grid")
    choose(page, "grid", "token", "4")
    assert "Looking from 't (token 4)" in said(page, "grid")
    assert page.evaluate("location.hash") == "#layer=3&head=avg&token=4"
    # The larger square's cells say what they show: 10 cells for token 4 and the 3 before... 78 in all.
    cells = page.eval_on_selector_all("#chart-grid svg [aria-label*=' looks at ']", "ns => ns.length")
    assert cells == 12 * 13 // 2
    # The picture of the grid is coloured as Vega colours the larger square (the chart's colour scale).
    for t in (0.0, 0.13, 0.5, 0.77, 1.0):
        vega = page.evaluate(
            "t => { const c = String(document.getElementById('chart-grid').vegaView.scale('color')(t)); "
            "return c.startsWith('#') ? [1, 3, 5].map(i => parseInt(c.slice(i, i + 2), 16)) "
            ": c.match(/\\d+/g).slice(0, 3).map(Number); }",
            t,
        )
        assert max(abs(a - b) for a, b in zip(vega, picture.viridis(t))) <= 1, (t, vega, picture.viridis(t))
    visit.assert_clean()
    assert visit.vega_warnings == [], visit.vega_warnings


def test_the_find_head_page_ranks_another_pair_and_offers_no_token_after_the_one_that_looks(opener):
    visit = opener.open("figure-fh.html")
    page = visit.page
    assert page.get_attribute("#chart-fh", "data-rendered") == "true", page.text_content("#chart-fh")
    assert said(page, "fh").startswith("From _of (token 9) back to _Paris (token 5): layer ")
    choose(page, "fh", "to", "1")
    assert said(page, "fh").startswith("From _of (token 9) back to May (token 1): layer ")
    bars = page.eval_on_selector_all("#chart-fh svg .mark-rect path", "ns => ns.length")
    assert bars == 5
    choose(page, "fh", "from", "3")
    # No token looks to the right: the menu offers token 3 and those before it (tests/browser/test_menus.py).
    offered = page.eval_on_selector_all(
        "#chart-fh select[name='to'] option", "os => os.filter(o => !o.disabled && !o.hidden).map(o => o.value)"
    )
    assert offered == ["1", "2", "3"]
    choose(page, "fh", "to", "3")
    assert said(page, "fh").startswith("From _lives (token 3) back to _lives (token 3): layer ")
    assert page.eval_on_selector_all("#chart-fh svg .mark-rect path", "ns => ns.length") == 5
    assert page.evaluate("location.hash") == "#from=3&to=3"
    visit.assert_clean()
    assert visit.vega_warnings == [], visit.vega_warnings


# The every-head chart as drawn: the grid's picture, the larger head's cells, the drawing, the head menu.
LAYOUT = """() => {
  const svg = document.querySelector('#chart-all-heads svg.marks'), rect = el => el.getBoundingClientRect();
  const cells = Array.from(svg.querySelectorAll('[aria-label*=" looks at "]')).map(rect);
  return {grid: rect(svg.querySelector('image')), drawing: rect(svg), height: innerHeight,
          larger: {left: Math.min(...cells.map(c => c.left)), right: Math.max(...cells.map(c => c.right)),
                   top: Math.min(...cells.map(c => c.top)), bottom: Math.max(...cells.map(c => c.bottom))},
          menu: rect(document.querySelector('#chart-all-heads select[name="head"]')).width};
}"""


def test_every_head_on_a_desktop_uses_the_width_with_the_larger_head_beside_the_grid_in_the_first_screen(
    browser, random_site
):
    """GPT-2 small's 144 heads at 1280 x 900 (issue 44, point 8): the grid and the chosen head larger side by side
    across the drawing, the grid's squares larger than on a third of it, the larger head whole in the first screen;
    the head menu as wide as its words, a word beside two-digit numbers."""
    opener = Opener(browser, random_site)
    try:
        visit = opener.open("figure-all-heads.html", context=opener.context(viewport={"width": 1280, "height": 900}))
        seen = visit.page.evaluate(LAYOUT)
        grid, larger, drawing = seen["grid"], seen["larger"], seen["drawing"]
        assert grid["right"] < larger["left"], "the larger head stands beside the grid"
        assert larger["right"] >= drawing["right"] - 60, "the larger head reaches the drawing's right edge"
        assert grid["width"] >= 0.4 * drawing["width"], (
            f"the grid takes {grid['width']:.0f} of {drawing['width']:.0f} px"
        )
        assert 0 <= larger["top"] and larger["bottom"] <= seen["height"], f"the larger head lies at {larger}"
        assert grid["bottom"] <= seen["height"], "the grid is in the first screen"
        assert seen["menu"] <= 120, f"the head menu is {seen['menu']:.0f} px wide"
        visit.assert_clean()
    finally:
        opener.close()
