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
