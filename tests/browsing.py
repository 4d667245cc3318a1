"""What every browser test shares: Debian's Chromium, a page watched from file:// with every other request
refused and recorded, and the wait until a page's charts are drawn."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")  # Playwright's own browser download does not work here
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync"]
ALL_RENDERED = ("() => Array.from(document.querySelectorAll('[data-spec]'))"
                ".every(el => el.hasAttribute('data-rendered'))")


def playwright_or_skip():
    """The Playwright sync API; skips the calling module, saying why, where Chromium or Playwright is missing."""
    if not CHROMIUM.exists():
        pytest.skip(f"browser tests need Debian's Chromium at {CHROMIUM}, which is missing", allow_module_level=True)
    return pytest.importorskip("playwright.sync_api", reason="browser tests need playwright (pip install playwright)")


@dataclass
class Visit:
    """One open page and what it did: requests refused, console errors, page errors, Vega's warnings."""

    page: object
    name: str = ""
    refused: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    vega_warnings: list[str] = field(default_factory=list)

    def assert_clean(self, what: str | None = None) -> None:
        what = what or self.name
        assert self.refused == [], f"{what}: requests outside file://: {self.refused}"
        assert self.console_errors == [], f"{what}: console errors: {self.console_errors}"
        assert self.page_errors == [], f"{what}: page errors: {self.page_errors}"


def watch(page, name: str = "") -> Visit:
    """Routes a page (file: through, all else aborted and recorded) and collects its errors and warnings."""
    visit = Visit(page, name)

    def route(route):
        url = route.request.url
        if url.startswith("file:"):
            route.continue_()
        else:
            visit.refused.append(url)
            route.abort()

    def on_console(message):
        if message.type == "error":
            visit.console_errors.append(message.text)
        elif message.type == "warning" and message.text.startswith("WARN"):
            visit.vega_warnings.append(message.text)

    page.route("**/*", route)
    page.on("console", on_console)
    page.on("pageerror", lambda error: visit.page_errors.append(str(error)))
    return visit


def wait_for_charts(visit: Visit, timeout_ms: int = 15_000) -> None:
    """Waits until every chart on the page is drawn or has failed; a failed one fails the test."""
    visit.page.wait_for_function(ALL_RENDERED, timeout=timeout_ms)
    failed = visit.page.eval_on_selector_all(
        "[data-spec]", "els => els.filter(el => el.getAttribute('data-rendered') !== 'true')"
                       ".map(el => el.id + ': ' + el.textContent)")
    assert not failed, f"{visit.name}: charts not drawn: {failed}; console errors: {visit.console_errors}"
