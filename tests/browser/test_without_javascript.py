"""Where JavaScript is off, no control shows that would do nothing, and each figure's drawing made at build time
stands, whole (issue 44, point 7): on every page of tests/every_kind.toml's site (every registered kind's figure
page and bare page, the text pages, the index and About), at a desktop's width and a phone's, in headless Chromium
with JavaScript off. The sheet that does it (assets/noscript.css, linked inside <noscript>) is never loaded where
JavaScript is on."""

from __future__ import annotations

import pytest

from .browsing import Opener
from .test_chart_clicks import every_kinds_figure

# What a reader sees of a page: its shown form controls, each chart's shown drawing and whether it has controls and
# says why they are missing, the links within the page that lead nowhere, and how wide the page is.
SEEN = """() => {
  const shown = el => el.checkVisibility();
  return {
    controls: [...document.querySelectorAll('input, select, textarea, button, [role="radio"], [tabindex="0"]')]
      .filter(el => shown(el) && !el.closest('pre')).map(el => el.outerHTML.slice(0, 120)),
    charts: [...document.querySelectorAll('.chart')].map(chart => ({
      id: chart.id,
      controls: chart.querySelectorAll('.control-bar .vega-bind, .token-row').length > 0,
      note: [...chart.querySelectorAll('.noscript-note')].some(shown),
      drawings: [...chart.querySelectorAll('.first-drawing img')].filter(shown)
        .map(img => ({loaded: img.complete && img.naturalWidth > 0, width: img.offsetWidth,
                      box: img.closest('.first-drawing').scrollWidth}))})),
    nowhere: [...document.querySelectorAll('a[href^="#"]')].filter(shown)
      .filter(a => !document.getElementById(decodeURIComponent(a.getAttribute('href').slice(1))))
      .map(a => a.outerHTML),
    wide: document.scrollingElement.scrollWidth - innerWidth,
    heading: document.querySelector('h1') ? document.querySelector('h1').textContent : '',
    said: [...document.querySelectorAll('main > noscript > .noscript-note')].filter(shown).map(note => note.textContent),
  };
}"""


def site_pages(site) -> list[str]:
    """Every HTML page of the site: the figures', the bare ones, the text pages, the index and About."""
    return sorted(path.name for path in site.glob("*.html"))


@pytest.fixture
def without_javascript(browser, every_kind_site):
    opener = Opener(browser, every_kind_site)
    yield opener
    opener.close()


@pytest.mark.parametrize("width, height", [(1100, 900), (360, 800)], ids=["desktop", "phone"])
def test_with_javascript_off_no_control_shows_and_every_drawing_stands(
    without_javascript, every_kind_site, width, height
):
    context = without_javascript.context(viewport={"width": width, "height": height}, java_script_enabled=False)
    names, failures, noted, cut = site_pages(every_kind_site), {}, 0, 0
    for kind, label in every_kinds_figure():  # every registered kind has its page here
        assert f"figure-{label}.html" in names and f"embed-{label}.html" in names, kind
    assert any(name.startswith("text-") for name in names), names
    for name in names:
        visit = without_javascript.open(name, context=context, wait_for_charts=False)
        page = visit.page
        page.wait_for_load_state("load")
        seen = page.evaluate(SEEN)
        problems = []
        if seen["controls"]:
            problems.append(f"controls shown: {seen['controls'][:3]}")
        for chart in seen["charts"]:
            drawing = chart["drawings"]
            if len(drawing) != 1 or not drawing[0]["loaded"] or drawing[0]["box"] < drawing[0]["width"]:
                problems.append(f"{chart['id']}: its drawing does not stand whole: {drawing}")
            if chart["controls"] != chart["note"]:
                problems.append(
                    f"{chart['id']}: controls {chart['controls']}, the note why they are hidden {chart['note']}"
                )
            noted += chart["note"]
        if seen["nowhere"]:
            problems.append(f"links that need JavaScript: {seen['nowhere']}")
        if name.startswith("text-") and "…" in seen["heading"]:  # the row that held the text whole is hidden
            start = seen["heading"].split("“", 1)[1].rstrip("…”")
            if (
                len(seen["said"]) != 1
                or not seen["said"][0].startswith(f"The text: “{start}")
                or len(seen["said"][0]) <= len(seen["heading"])
            ):
                problems.append(f"a text cut short in the heading is not said whole: {seen['said']}")
            cut += 1
        if seen["wide"] > 0:
            problems.append(f"the page scrolls sideways by {seen['wide']} px")
        if visit.refused or visit.console_errors or visit.page_errors:
            problems.append(f"refused {visit.refused}, errors {visit.console_errors + visit.page_errors}")
        if problems:
            failures[name] = problems
        without_javascript.done(visit)
    assert failures == {}, failures
    assert noted >= len(every_kinds_figure()), noted  # the figures with controls, on their pages and bare pages
    assert cut >= 1  # tests/every_kind.toml's text of Grace Hopper is longer than a heading says


def test_with_javascript_on_the_sheet_is_never_loaded_and_the_controls_show(open_once):
    page = open_once("figure-find-head.html").page
    sheets = page.evaluate("() => [...document.styleSheets].map(sheet => sheet.href)")
    assert any(sheet.endswith("assets/site.css") for sheet in sheets)
    assert not any(sheet and sheet.endswith("noscript.css") for sheet in sheets), sheets
    assert page.locator("#chart-find-head .control-bar").is_visible()
    assert page.locator("#chart-find-head select[name='to']").is_visible()
    assert not page.locator(".noscript-note").first.is_visible()
