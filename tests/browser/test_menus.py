"""A menu offers only what its figure can use: find-head's menu of the token looked back to lists the token that
looks and those before it, nothing after (no token looks to the right), before the chart is live and after, and a
choice past it (a token chosen earlier in the row, an address) moves back to it. And for every registered kind (its
figure in tests/every_kind.toml), every option each of its menus offers, with every option of each other menu,
draws the figure rather than words that refuse it. In headless Chromium over every_kind_site (the small model)."""

from __future__ import annotations

import re

import pytest

from .browsing import Opener, signal, wait_for_signal
from .test_before_the_chart_is_live import HeldVega
from .test_chart_clicks import address, every_kinds_figure

FIND_HEAD = "who"  # tests/every_kind.toml's find-head figure: text of 9 tokens, from token 8 back to "river" (2)

# A menu's options as the page offers them (shown and enabled), by the select's name.
OFFERED = """([id, name]) => {
  const select = document.querySelector('#' + id + ' .vega-bindings select[name="' + name + '"]');
  return select ? [...select.options].filter(o => !o.hidden && !o.disabled).map(o => o.value) : null;
}"""

# For each option of `first` (a select param of the chart, shown or steered by the row) and each option the page
# then offers in `second`: the chart at that pair, and whether it draws the figure. Words that refuse it are
# REFUSED; a figure draws marks other than words (a refusal draws only its words).
EVERY_PAIR = """async ([id, first, second]) => {
  const el = document.getElementById(id), view = el.vegaView;
  const param = name => el.boundParams.filter(p => p.name === name)[0];
  const offered = name => [...el.querySelector('.vega-bindings select[name="' + name + '"]').options]
    .filter(o => !o.hidden && !o.disabled).map(o => o.value);
  const typed = (name, raw) => param(name).bind.options.filter(o => String(o) === raw)[0];
  const settle = async () => { await view.runAsync(); await new Promise(r => setTimeout(r, 0)); await view.runAsync(); };
  const drawn = () => [...el.querySelectorAll('svg.marks [aria-roledescription]')]
    .map(m => m.getAttribute('aria-roledescription'))
    .filter(r => !/container|axis|title|legend|text mark/.test(r)).length;
  const states = [];
  for (const a of offered(first)) {
    view.signal(first, typed(first, a));
    await settle();
    for (const b of offered(second)) {
      view.signal(second, typed(second, b));
      await settle();
      states.push({[first]: a, [second]: b, marks: drawn(), words: String(view.signal('description'))});
    }
  }
  return states;
}"""
REFUSED = re.compile(r"looks to the right|comes after|choose a token at or before|not offered|cannot be shown", re.I)


@pytest.fixture
def kinds(browser, every_kind_site):
    """Opens pages of every_kind_site for one test."""
    opener = Opener(browser, every_kind_site)
    yield opener
    opener.close()


def select_params(page, label: str) -> list[str]:
    """The chart's params a menu chooses (a select, shown or steered by the row of tokens), in the spec's order."""
    return page.evaluate(
        "id => document.getElementById(id).boundParams.filter(p => p.bind.input === 'select').map(p => p.name)",
        f"chart-{label}",
    )


def test_every_option_of_every_kinds_menus_draws_its_figure(browser, every_kind_site):
    pages, refused, seen = Opener(browser, every_kind_site), {}, {}
    for kind, label in every_kinds_figure():
        visit = pages.open(f"figure-{label}.html")
        names = select_params(visit.page, label)
        seen[kind] = names
        for first in names:
            for second in [name for name in names if name != first]:
                for state in visit.page.evaluate(EVERY_PAIR, [f"chart-{label}", first, second]):
                    if not state["marks"] or REFUSED.search(state["words"]):
                        refused.setdefault(kind, []).append(state)
        visit.assert_clean()
        pages.done(visit)
    pages.close()
    assert refused == {}, {kind: states[:3] for kind, states in refused.items()}
    # The check sees menus in pairs at all: find-head's two at least, and the other kinds' that have two or more.
    assert seen["find-head"] == ["from", "to"] and sum(len(names) >= 2 for names in seen.values()) >= 3, seen


def test_find_heads_menu_offers_the_token_that_looks_and_those_before_it(kinds):
    visit = kinds.open(f"figure-{FIND_HEAD}.html")
    page, chart = visit.page, f"chart-{FIND_HEAD}"
    assert signal(page, FIND_HEAD, "from") == 8 and page.evaluate(OFFERED, [chart, "to"]) == [
        str(t) for t in range(1, 9)
    ]
    page.locator(f"#{chart} select[name='to']").select_option("6")
    wait_for_signal(page, FIND_HEAD, "to", 6)
    for looking in (9, 4, 1, 3):
        before = signal(page, FIND_HEAD, "to")
        page.locator(f".token-row[data-chart='{chart}'] [data-token='{looking}']").click()
        wait_for_signal(page, FIND_HEAD, "from", looking)
        # A choice past the token that looks moves back to it; one at or before it stays.
        wait_for_signal(page, FIND_HEAD, "to", min(before, looking))
        assert page.evaluate(OFFERED, [chart, "to"]) == [str(t) for t in range(1, looking + 1)]
        assert address(page) == {"from": str(looking), "to": str(min(before, looking))}
        assert "to the right" not in page.locator(f"#description-{FIND_HEAD}").text_content()
    visit.assert_clean()


def test_an_address_past_the_token_that_looks_opens_on_it_and_says_so(kinds, browser, every_kind_site):
    visit = kinds.open(f"figure-{FIND_HEAD}.html#from=3&to=7")
    page = visit.page
    assert (signal(page, FIND_HEAD, "from"), signal(page, FIND_HEAD, "to")) == (3, 3)
    assert page.evaluate(OFFERED, [f"chart-{FIND_HEAD}", "to"]) == ["1", "2", "3"]
    page.wait_for_function("() => location.hash === '#from=3&to=3'")
    visit.assert_clean()
    # Before the chart is live, the build's menu offers as much: what the address gives it, moved back.
    context = browser.browser.new_context(viewport={"width": 1100, "height": 900})
    try:
        held = HeldVega(context, (every_kind_site / f"figure-{FIND_HEAD}.html").as_uri() + "#from=4&to=9")
        offered = held.page.evaluate(OFFERED, [f"chart-{FIND_HEAD}", "to"])
        chosen = held.page.locator(f"#chart-{FIND_HEAD} select[name='to']").input_value()
        held.page.locator(".token-row [data-token='2']").click()  # the row, before the chart is live
        then = held.page.evaluate(OFFERED, [f"chart-{FIND_HEAD}", "to"])
        held.release()
        live = (signal(held.page, FIND_HEAD, "from"), signal(held.page, FIND_HEAD, "to"))
    finally:
        context.close()
    assert (offered, chosen) == (["1", "2", "3", "4"], "4")
    assert then == ["1", "2"] and live == (2, 2)
