"""Readers on phones: no page scrolls sideways in a 360 px wide window, light or dark; wide things (a chart, a
checksum, a printed figure) scroll or wrap in their own box. On a desktop the column still uses the width."""

from __future__ import annotations

import pytest

SIDEWAYS = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"


def every_page(site):
    return sorted(path.name for path in site.glob("*.html"))


def one_page_of_each_sort(site):
    """The index, the widest figure page, a page of one text, a bare page: the dark scheme changes colours only."""
    return ["index.html", "figure-ledger.html", next(p for p in every_page(site) if p.startswith("text-")),
            "embed-lens.html"]


@pytest.mark.parametrize("scheme, which", [("light", every_page), ("dark", one_page_of_each_sort)])
def test_no_page_scrolls_sideways_at_360_px(opener, random_site, scheme, which):
    context = opener.context(viewport={"width": 360, "height": 800}, color_scheme=scheme)
    pages = which(random_site)
    assert len(pages) >= 4
    wide = {}
    for name in pages:
        visit = opener.open(name, context=context)
        overflow = visit.page.evaluate(SIDEWAYS)
        if overflow > 0:
            wide[name] = overflow
        visit.assert_clean()
        opener.done(visit)
    assert wide == {}, f"pages wider than 360 px by (px): {wide}"


def test_the_desktop_layout_still_uses_the_width(opener):
    context = opener.context(viewport={"width": 1200, "height": 900})
    visit = opener.open("figure-ledger.html", context=context)
    column = visit.page.evaluate("() => document.querySelector('main').getBoundingClientRect().width")
    chart = visit.page.evaluate("() => document.querySelector('[data-spec] svg').getBoundingClientRect().width")
    assert column > 800 and chart > 700, (column, chart)
    assert visit.page.evaluate(SIDEWAYS) == 0
