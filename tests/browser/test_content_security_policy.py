"""The pages' Content Security Policy (sitegen/site/policy.py) refuses nothing the site does, and refuses what an
escaping bug would let in: every page of the every-kind site, from file:// and served, light and dark, drawn to the
end with no `securitypolicyviolation`; the live page, served, running the model under its own policy; and a page
whose escaping is broken on purpose, which runs none of what was injected into it."""

from __future__ import annotations

import shutil
from html import unescape
from pathlib import Path

import pytest

from sitegen.site import live_assets
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


@pytest.mark.parametrize("isolated", [False, True], ids=["one thread", "isolated"])
def test_the_live_page_runs_the_model_under_its_own_policy(browser, live_site, isolated):
    playwright_or_skip()
    html = unescape((live_site / "live.html").read_text(encoding="utf-8"))
    assert "'wasm-unsafe-eval'" in html and "connect-src 'self'" in html
    with serve(live_site, extra_headers=ISOLATING if isolated else {}) as host:
        address, opener = host.url, Opener(browser, live_site)
        try:
            visit = opener.open(address + "live.html", wait_for_charts=False, served=address)
            page = visit.page
            page.wait_for_function("() => window.liveFigures && window.liveFigures.state === 'idle'")
            assert page.evaluate("() => crossOriginIsolated") == isolated
            page.click("#live-load-button")
            page.wait_for_function("() => ['drawn', 'error'].includes(window.liveFigures.state)", timeout=60_000)
            assert page.evaluate("() => window.liveFigures.state") == "drawn", page.inner_text("#live")
            assert visit.policy_violations == [], visit.policy_violations
            assert visit.page_errors == [], visit.page_errors
        finally:
            opener.close()
