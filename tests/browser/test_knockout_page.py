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
    assert any(label.startswith("Rank of _France") for label in labels)
    key = knockout.part_key({"part": lowest["taken_out"], "layer": lowest["layer"] - 1,
                             "head": None if lowest["head"] is None else lowest["head"] - 1})
    visit.page.goto(opener.url(f"figure-k.html#part={key}"))
    visit.page.reload()
    wait_for_charts(visit)
    assert f"Without {removal_name(lowest)}" in visit.page.text_content("#description-k")
    visit.assert_clean()
