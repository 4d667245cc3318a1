"""The pages' Content Security Policy (sitegen/site/policy.py) refuses nothing the site does, and refuses what an
escaping bug would let in: every page of the every-kind site, from file:// and served, light and dark, drawn to the
end with no `securitypolicyviolation`; a figure's page built with --live, served, loading the tokenizer and the
runtime as its "Try your own sentence" opens and running the model under the live policy, and live.html, the index of
those figures, under the pages' own; and a page whose escaping is broken on purpose, which runs none of what was
injected into it."""

from __future__ import annotations

import re
import shutil
from html import unescape
from pathlib import Path

import pytest

from sitegen.site import live_assets, policy
from tests.browser.browsing import Opener, playwright_or_skip, wait_for_charts
from tests.conftest import built
from tests.support.hosting import ISOLATING, serve

pytestmark = pytest.mark.browser

LIVE_CONFIG = """
[[figure]]
kind = "attention"
label = "sky"
text = "The sky over the harbour turned grey before the rain came"
views = [[1, 2]]

[[figure]]
kind = "readout"
label = "rain"
text = "The sky over the harbour turned grey before the rain came"
target = " rain"
"""
LIVE_PAGE = "figure-sky.html"  # the attention figure's page: its "Try your own sentence" runs the model


@pytest.fixture(scope="module")
def served(every_kind_site):
    """The every-kind site's address on a static host on 127.0.0.1."""
    with serve(every_kind_site) as host:
        yield host.url


@pytest.fixture(scope="module")
def opener(browser, every_kind_site):
    playwright_or_skip()
    opener = Opener(browser, every_kind_site)
    yield opener
    opener.close()


def pages(site: Path) -> list[str]:
    return sorted(path.name for path in site.glob("*.html"))


def open_drawn(opener: Opener, address: str, context, served: str | None = None):
    """Opens a page, draws all its charts (scrolling to those drawn on the way), and hovers its first chart so that
    a tooltip is shown too."""
    visit = opener.open(address, context=context, wait_for_charts=False, served=served)
    wait_for_charts(visit)
    drawing = visit.page.query_selector("[data-spec] .chart-drawing svg")
    if drawing:
        box = drawing.bounding_box()
        visit.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        visit.page.wait_for_timeout(50)
    return visit


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_page_does_anything_its_policy_refuses_from_disk(opener, every_kind_site, scheme):
    context = opener.context(color_scheme=scheme)
    names = pages(every_kind_site)
    assert len(names) > 20, names
    for name in names:
        visit = open_drawn(opener, opener.url(name), context)
        visit.assert_clean(f"{name} ({scheme}, file://)")
        opener.done(visit)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_page_does_anything_its_policy_refuses_when_served(opener, every_kind_site, served, scheme):
    context = opener.context(color_scheme=scheme)
    for name in pages(every_kind_site):
        visit = open_drawn(opener, served + name, context, served=served)
        visit.assert_clean(f"{name} ({scheme}, served)")
        opener.done(visit)


BROKEN = (
    '<script>window.injected = "inline script"</script>'
    '<img src="nowhere.png" alt="" onerror="window.injected = \'event handler\'">'
    '<a id="injected-link" href="javascript:window.injected=\'javascript: link\'">a link</a>'
    '<p id="injected-style" style="color: rgb(1, 2, 3)">styled</p>'
)


def test_a_page_whose_escaping_is_broken_runs_none_of_what_was_injected(browser, every_kind_site, tmp_path):
    # A copy of a built figure page, as if a token's text had reached it unescaped: the policy is the wall behind.
    # It lies in a copy of the site (other tests, perhaps at the same time, read every page of the site itself).
    playwright_or_skip()
    site = tmp_path / "site"
    shutil.copytree(every_kind_site, site)
    page = next(name for name in pages(site) if name.startswith("figure-"))
    html = (site / page).read_text(encoding="utf-8")
    assert "<main>" in html
    broken = site / "broken-on-purpose.html"
    broken.write_text(html.replace("<main>", "<main>" + BROKEN, 1), encoding="utf-8")
    opener = Opener(browser, site)
    try:
        visit = opener.open(opener.url(broken.name), wait_for_charts=False)
        wait_for_charts(visit)  # the page's own scripts still run: its charts are drawn
        visit.page.click("#injected-link")
        visit.page.wait_for_timeout(100)
        assert visit.page.evaluate("() => window.injected") is None
        colour = visit.page.eval_on_selector("#injected-style", "el => getComputedStyle(el).color")
        assert colour != "rgb(1, 2, 3)"
        refused = " ".join(visit.policy_violations)
        for directive in ("script-src-elem", "script-src-attr", "style-src-attr"):
            assert directive in refused, f"the policy did not refuse the injected {directive}: {refused}"
        opener.done(visit)
    finally:
        opener.close()


@pytest.fixture(scope="module")
def live_site(small_model_dir, tmp_path_factory) -> Path:
    missing = live_assets.problems()
    if missing:
        pytest.skip(f"the live page's libraries are not installed ({'; '.join(missing)}): run ./setup.sh --live")
    return built(small_model_dir, LIVE_CONFIG, tmp_path_factory.mktemp("policy-live"), "--live")


def policy_of(html: str) -> str:
    """The Content Security Policy a page's <meta> states."""
    return unescape(re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)"', html).group(1))


@pytest.mark.parametrize("isolated", [False, True], ids=["one thread", "isolated"])
def test_a_figures_page_runs_the_model_under_the_live_policy(browser, live_site, isolated):
    playwright_or_skip()
    html = (live_site / LIVE_PAGE).read_text(encoding="utf-8")
    assert policy_of(html) == policy.LIVE_POLICY
    assert "'wasm-unsafe-eval'" in policy_of(html) and "connect-src 'self'" in policy_of(html)
    with serve(live_site, extra_headers=ISOLATING if isolated else {}) as host:
        address, opener = host.url, Opener(browser, live_site)
        try:
            visit = opener.open(address + LIVE_PAGE, wait_for_charts=False, served=address)
            page = visit.page
            wait_for_charts(visit)  # the book's figure, drawn under the same policy
            # The tokenizer and the runtime come only as the reader opens "Try your own sentence": scripts the page
            # adds itself, under its policy.
            assert page.evaluate("() => !window.liveTokens && !window.ort && window.liveFigures.state === 'idle'")
            page.click("#try-own summary")
            page.wait_for_function(
                "() => Boolean(window.liveTokens && window.ort) && window.liveFigures.state === 'idle'"
                " && !document.getElementById('live-load-button').disabled",
                timeout=60_000,
            )
            assert page.evaluate("() => crossOriginIsolated") == isolated
            page.click("#live-load-button")
            page.wait_for_function("() => ['drawn', 'error'].includes(window.liveFigures.state)", timeout=60_000)
            assert page.evaluate("() => window.liveFigures.state") == "drawn", page.inner_text("#live")
            # The page's chart for the reader's text (its kind's one) drawn.
            page.wait_for_function(
                "() => { const charts = document.querySelectorAll('[data-live-chart]');"
                " return charts.length === 1 && charts[0].id === 'live-chart-attention'"
                " && charts[0].getAttribute('data-rendered') === 'true'; }",
                timeout=60_000,
            )
            assert visit.policy_violations == [], visit.policy_violations
            assert visit.page_errors == [], visit.page_errors
        finally:
            opener.close()


def test_the_index_of_the_figures_that_take_a_sentence_keeps_the_pages_policy(browser, live_site):
    # live.html runs no model: the pages' own policy, and its one script hands a text the address brings on to the
    # figures' links.
    playwright_or_skip()
    html = (live_site / "live.html").read_text(encoding="utf-8")
    assert policy_of(html) == policy.PAGE_POLICY
    assert "'wasm-unsafe-eval'" not in html and "connect-src" not in html and 'id="live-config"' not in html
    with serve(live_site) as host:
        address, opener = host.url, Opener(browser, live_site)
        try:
            visit = opener.open(address + "live.html#text=Hello", wait_for_charts=False, served=address)
            page = visit.page
            page.wait_for_function(
                "() => { const links = Array.from(document.querySelectorAll('a[data-own-link]'));"
                " return links.length > 0 && links.every(a => a.getAttribute('href').endsWith('#text=Hello')); }"
            )
            links = page.eval_on_selector_all("a[data-own-link]", "links => links.map(a => a.getAttribute('href'))")
            assert f"{LIVE_PAGE}#text=Hello" in links, links
            visit.assert_clean("live.html (served)")
        finally:
            opener.close()
