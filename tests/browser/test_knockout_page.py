"""The knockout page in headless Chromium, from file:// with every other request refused: the site of
tests/kinds/test_knockout.py (its `site` fixture, built over conftest's small model), driven by choosing a part, the
rank, and an address that names the costliest removal."""

from __future__ import annotations

import pytest

from figures import knockout
from kinds.test_knockout import registered, removal_name, site, table  # noqa: F401  (that module's build and readers)

from .browsing import Opener, wait_for_charts


@pytest.fixture
def opener(browser, site):  # noqa: F811
    """Opens pages of the knockout site for one test."""
    opener = Opener(browser, site)
    yield opener
    opener.close()


def test_the_page_draws_and_its_choices_change_the_words_and_the_address(site, opener):  # noqa: F811
    intact, *rows = table(site, "k")
    lowest = min(rows, key=lambda row: row["probability"])
    visit = opener.open("figure-k.html")
    visit.page.select_option("#chart-k select", "attention-1")
    visit.page.wait_for_function("() => location.hash.includes('part=attention-1')")
    said = visit.page.text_content("#description-k")
    assert said.startswith("Without layer 1's attention, _France")
    visit.page.check("#chart-k input[type=radio][value=rank]")
    visit.page.wait_for_function("() => location.hash.includes('show=rank')")
    labels = visit.page.eval_on_selector_all("#chart-k svg text", "nodes => nodes.map(n => n.textContent)")
    assert any(label.startswith("Places _France moves") for label in labels)
    key = knockout.part_key(
        {
            "part": lowest["taken_out"],
            "layer": lowest["layer"] - 1,
            "head": None if lowest["head"] is None else lowest["head"] - 1,
        }
    )
    visit.page.goto(opener.url(f"figure-k.html#part={key}"))
    visit.page.reload()
    wait_for_charts(visit)
    assert f"Without {removal_name(lowest)}" in visit.page.text_content("#description-k")
    visit.assert_clean()


# Each knockout bar as drawn (its hit column aside), with the zero line of its panel: [change in chance, bar's top, bottom, line's y].
BARS_AND_LINE = """id => {
  const drawn = [...document.querySelectorAll('#' + id + ' svg.marks path, #' + id + ' svg.marks line')]
    .filter(el => el.__data__ && el.__data__.mark);
  const middle = el => { const box = el.getBoundingClientRect(); return (box.top + box.bottom) / 2; };
  // The bars, not the transparent columns under them that catch the pointer.
  return drawn.filter(el => el.__data__.mark.marktype === 'rect' && el.__data__.datum.key
                            && el.__data__.fill !== 'transparent').map(el => {
    const item = el.__data__, box = el.getBoundingClientRect();
    const line = drawn.find(other => other.__data__.mark.marktype === 'rule'
                                     && other.__data__.mark.group === item.mark.group);
    return [item.datum.dp, box.top, box.bottom, middle(line)];
  });
}"""


def test_a_bar_below_the_line_is_a_part_without_which_the_target_got_less_likely(site, opener):  # noqa: F811
    """Read from the drawing: every bar hangs from the intact model's line, below it where the chance fell."""
    visit = opener.open("figure-k.html")
    bars = visit.page.evaluate(BARS_AND_LINE, "chart-k")
    assert len(bars) == len(table(site, "k")) - 1
    assert any(dp < 0 for dp, *_ in bars) and any(dp > 0 for dp, *_ in bars)
    for dp, top, bottom, line in bars:
        if dp < 0:
            assert abs(top - line) < 1.5 and bottom > line, (dp, top, bottom, line)
        elif dp > 0:
            assert abs(bottom - line) < 1.5 and top < line, (dp, top, bottom, line)
    visit.assert_clean()
