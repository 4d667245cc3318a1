"""What every browser test shares: Debian's Chromium, a page watched from file:// with every other request
refused and recorded (one `Visit` for all), the wait until a page's charts are drawn, and the helpers that read
a chart.

One Browser (``SHARED``) serves the session's browser tests: this folder's conftest.py gives it to them as the
session-scoped ``browser`` fixture, with ``opener`` and ``open_once``. Chromium starts when a test first needs it
and stops when the tests leave this folder (conftest's pytest_runtest_teardown): while Playwright's sync API
runs it holds the thread's event loop, which tests elsewhere may need for asyncio.

Pages are used again: a page a test is done with goes to about:blank and back to a pool of its context, and
the next test that opens a page there gets it, which spares Chromium a new renderer each time. Where a test
changed how its page is shown (print or dark emulated, another viewport size), the context's settings are
set again, and a page that still differs from a new one is closed: every page a test opens looks as a new
page of its context would.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")  # Playwright's own browser download does not work here
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
VIEWPORT = {"width": 1100, "height": 900}
ALL_RENDERED = (
    "() => Array.from(document.querySelectorAll('[data-spec]')).every(el => el.hasAttribute('data-rendered'))"
)
RENDER_TIMEOUT_MS = 15_000
CHANGE_TIMEOUT_MS = 5_000


def playwright_or_skip():
    """The Playwright sync API; skips the calling module, saying why, where Chromium or Playwright is missing."""
    if not CHROMIUM.exists():
        pytest.skip(f"browser tests need Debian's Chromium at {CHROMIUM}, which is missing", allow_module_level=True)
    return pytest.importorskip("playwright.sync_api", reason="browser tests need playwright (pip install playwright)")


# ---------------------------------------------------------------------------------------------- visits


@dataclass
class Visit:
    """One open page and what it did: requests refused, console errors, page errors, Vega's warnings."""

    page: object
    name: str = ""
    refused: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    vega_warnings: list[str] = field(default_factory=list)
    policy_violations: list[str] = field(default_factory=list)  # what the page's Content Security Policy refused
    opened: float = 0.0  # time.monotonic() when the page was sent to its address (Opener.open)

    def assert_clean(self, what: str | None = None) -> None:
        what = what or self.name
        assert self.refused == [], f"{what}: requests outside file://: {self.refused}"
        assert self.console_errors == [], f"{what}: console errors: {self.console_errors}"
        assert self.page_errors == [], f"{what}: page errors: {self.page_errors}"
        assert self.policy_violations == [], f"{what}: refused by the page's policy: {self.policy_violations}"


# Every page watched reports what its Content Security Policy refuses (sitegen/site/policy.py), as a console line of
# its own: an init script runs before the page's own and is not held to its policy.
VIOLATION = "securitypolicyviolation: "
REPORT_VIOLATIONS = """document.addEventListener('securitypolicyviolation', (e) => console.warn(%s + [
  e.effectiveDirective, e.blockedURI, (e.sourceFile || '') + ':' + e.lineNumber, e.sample].join(' ')));""" % repr(
    VIOLATION
)


class Watcher:
    """A page's route (file: through, all else aborted) and listeners, set once; what they see goes to the
    page's current Visit (none while the page waits in a pool)."""

    def __init__(self, page):
        self.visit: Visit | None = None
        self.served: str | None = None  # the address of a site served on 127.0.0.1, let through as file: is
        page.add_init_script(REPORT_VIOLATIONS)
        page.route("**/*", self.route)
        page.on("console", self.on_console)
        page.on("pageerror", self.on_page_error)

    def route(self, route) -> None:
        url = route.request.url
        if url.startswith("file:") or (self.served and url.startswith(self.served)):
            route.continue_()
        else:
            if self.visit is not None:
                self.visit.refused.append(url)
            route.abort()

    def on_console(self, message) -> None:
        if self.visit is None:
            return
        if message.text.startswith(VIOLATION):
            self.visit.policy_violations.append(message.text[len(VIOLATION) :])
        elif message.type == "error":
            self.visit.console_errors.append(message.text)
        elif message.type == "warning" and message.text.startswith("WARN"):
            self.visit.vega_warnings.append(message.text)

    def on_page_error(self, error) -> None:
        if self.visit is not None:
            self.visit.page_errors.append(str(error))


def watch(page, name: str = "", watcher: Watcher | None = None, served: str | None = None) -> Visit:
    """Routes a page (file: through, and a site `served` on 127.0.0.1; all else aborted and recorded) and collects
    its errors and warnings; a page used again keeps its watcher, and its new Visit starts here."""
    watcher = watcher or Watcher(page)
    watcher.served = served
    watcher.visit = Visit(page, name)
    return watcher.visit


# A text page draws each chart as the reader comes near it: scroll to each chart not drawn yet, in turn, wait
# until it is, and go back to the top, as the page opened.
SCROLL_THROUGH = """async (timeoutMs) => {
  const start = performance.now();
  for (const el of document.querySelectorAll('[data-spec]')) {
    if (el.hasAttribute('data-rendered')) continue;
    el.scrollIntoView({block: 'start'});
    while (!el.hasAttribute('data-rendered')) {
      if (performance.now() - start > timeoutMs) return;
      await new Promise(resolve => setTimeout(resolve, 10));
    }
  }
  window.scrollTo(0, 0);
}"""


def wait_for_charts(visit: Visit, timeout_ms: int = RENDER_TIMEOUT_MS) -> None:
    """Waits until every chart on the page is drawn or has failed, scrolling to those drawn when the reader
    comes near them; a failed one fails the test."""
    visit.page.wait_for_function("() => document.readyState !== 'loading'", timeout=timeout_ms)
    visit.page.evaluate(SCROLL_THROUGH, timeout_ms)
    visit.page.wait_for_function(ALL_RENDERED, timeout=timeout_ms)
    failed = visit.page.eval_on_selector_all(
        "[data-spec]",
        "els => els.filter(el => el.getAttribute('data-rendered') !== 'true').map(el => el.id + ': ' + el.textContent)",
    )
    assert not failed, f"{visit.name}: charts not drawn: {failed}; console errors: {visit.console_errors}"


charts_drawn = wait_for_charts  # for Opener.open, whose flag of the same name hides it


# ---------------------------------------------------------------------------------------------- the browser


# How a page is shown, as far as a test can change it: read on about:blank when the page is new and when it is
# handed back; a page that differs is not used again.
SHOWN_AS = """() => [innerWidth, innerHeight, ...['print', '(prefers-color-scheme: dark)', '(prefers-color-scheme: light)',
    '(prefers-reduced-motion: reduce)', '(forced-colors: active)', '(prefers-contrast: more)']
    .map(query => matchMedia(query).matches)]"""


class Browser:
    """Headless Chromium, started on first use, with one context for each set of options a test asks for and
    a pool of idle pages in each."""

    def __init__(self):
        self._browser = self._playwright = None
        self.contexts: dict[str, object] = {}
        self.idle: dict[object, list] = {}  # context -> [(page, watcher, how it is shown)]
        self.options: dict[object, dict] = {}  # context -> the options it was made with

    @property
    def browser(self):
        """Playwright's Browser, started if need be."""
        self.start()
        return self._browser

    def start(self) -> None:
        """Launches Debian's Chromium with CHROMIUM_ARGS, unless it runs already; skips where it is missing."""
        if self._browser is None:
            playwright = playwright_or_skip().sync_playwright().start()
            try:
                self._browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            except BaseException:
                playwright.stop()
                raise
            self._playwright = playwright

    def stop(self) -> None:
        """Closes Chromium and Playwright, and forgets every context; the next use starts them again."""
        if self._browser is not None:
            try:
                self._browser.close()
            finally:
                self._playwright.stop()
                self._browser = self._playwright = None
                self.contexts.clear(), self.idle.clear(), self.options.clear()

    def context(self, **options):
        """The context with these options (a viewport of 1100 x 900 unless they say another)."""
        options.setdefault("viewport", VIEWPORT)
        key = repr(sorted(options.items()))
        if key not in self.contexts:
            self.contexts[key] = self.browser.new_context(**options)
            self.idle[self.contexts[key]] = []
            self.options[self.contexts[key]] = options
        return self.contexts[key]

    def page(self, context):
        """An idle page of `context` at about:blank, or a new one: (page, watcher, how it is shown)."""
        idle = self.idle[context]
        while idle:
            held = idle.pop()
            if not held[0].is_closed():
                held[0].bring_to_front()  # as a new page is: in front, with the focus (a page behind downloads late)
                return held
        page = context.new_page()
        return page, Watcher(page), page.evaluate(SHOWN_AS)

    def give_back(self, context, held) -> None:
        """Takes back a page a test is done with: to about:blank and the pool. Where its test changed how it is
        shown, the context's own settings are set again; a page they do not bring back as it was is closed."""
        page, watcher, shown = held
        if context not in self.idle or page.is_closed():  # Chromium stopped since, or the test closed it
            return
        watcher.visit = None
        try:
            page.goto("about:blank")
            if page.evaluate(SHOWN_AS) != shown:
                options = self.options[context]
                page.emulate_media(
                    media="null",
                    color_scheme=options.get("color_scheme", "light"),
                    reduced_motion=options.get("reduced_motion", "no-preference"),
                    forced_colors=options.get("forced_colors", "none"),
                )
                page.set_viewport_size(options["viewport"])
            as_new = page.evaluate(SHOWN_AS) == shown
        except Exception:  # noqa: BLE001 - a page its test left in a state of its own is simply not used again
            as_new = False
        if as_new:
            self.idle[context].append(held)
        else:
            page.close()


SHARED = Browser()


class Opener:
    """Opens pages of a site for one test (or one module) and hands them all back at the end."""

    def __init__(self, browser: Browser, site: Path):
        self.browser, self.site = browser, site
        self.visits: list[Visit] = []
        self._held: dict[int, tuple] = {}  # id(visit) -> (context, (page, watcher, shown))

    def context(self, **options):
        """A context with these options (Playwright's new_context options); the session keeps it."""
        return self.browser.context(**options)

    def open(self, target: str, context=None, wait_for_charts: bool = True, served: str | None = None) -> Visit:
        """Opens a site page by name (``figure-l.html#token=7``) or a full URL, and waits for its charts. With
        `served` (a site's address on 127.0.0.1), that site's requests go through too."""
        context = context or self.browser.context()
        held = self.browser.page(context)
        visit = watch(held[0], target, watcher=held[1], served=served)
        self.visits.append(visit)
        self._held[id(visit)] = (context, held)
        url = target if re.match(r"^[a-z]+:", target) else self.url(target)
        visit.opened = time.monotonic()
        visit.page.goto(url)
        if wait_for_charts:
            charts_drawn(visit)
        return visit

    def url(self, name: str) -> str:
        page, _, fragment = name.partition("#")
        return (self.site / page).as_uri() + ("#" + fragment if fragment else "")

    def done(self, visit: Visit) -> None:
        """Hands back the page of a visit the test has finished with (before the test ends)."""
        context, held = self._held.pop(id(visit))
        self.browser.give_back(context, held)

    def close(self) -> None:
        for visit in self.visits:
            if id(visit) in self._held:
                self.done(visit)


# ---------------------------------------------------------------------------------------------- charts


def signal(page, label: str, name: str):
    """The value of signal `name` in chart-<label>'s live Vega view."""
    return page.evaluate("([id, name]) => document.getElementById(id).vegaView.signal(name)", [f"chart-{label}", name])


def wait_for_signal(page, label: str, name: str, value, why: str = "") -> None:
    """Waits until chart-<label>'s signal `name` is `value` (===); fails saying what it is instead."""
    from playwright.sync_api import TimeoutError

    try:
        page.wait_for_function(
            "([id, name, value]) => { const el = document.getElementById(id);"
            " return !!(el && el.vegaView) && el.vegaView.signal(name) === value; }",
            arg=[f"chart-{label}", name, value],
            timeout=CHANGE_TIMEOUT_MS,
        )
    except TimeoutError:
        raise AssertionError(
            f"chart-{label}: {name} is {signal(page, label, name)!r}, not {value!r}"
            f"{' ' + why if why else ''} after {CHANGE_TIMEOUT_MS} ms"
        ) from None


def choose_in_select(page, label: str, name: str, value) -> None:
    """Chooses `value` of chart-<label>'s param `name` as a reader would: in its select, or where a row of tokens
    steers the chart (and its own select for the token is hidden, figures.js), on that row."""
    select = page.locator(f"#chart-{label} .vega-bindings select[name='{name}']")
    if select.is_visible():
        select.select_option(str(value))
    else:
        row = page.locator(f".token-row[data-chart='chart-{label}'], .token-row[data-text]").first
        row.locator(f"[data-token='{value}']").click()


def chart_svg(page, label: str) -> str:
    """The drawn chart of chart-<label>, as SVG markup."""
    return page.eval_on_selector(f"#chart-{label} svg.marks", "svg => svg.outerHTML")


def chart_texts(page, label: str, selector: str = "text") -> list[str]:
    """The text of every `selector` element in chart-<label>'s drawing."""
    return page.eval_on_selector_all(f"#chart-{label} svg.marks {selector}", "nodes => nodes.map(n => n.textContent)")


def wait_for_svg_change(page, label: str, before: str) -> None:
    """Waits until chart-<label>'s drawing is other than `before`."""
    page.wait_for_function(
        "([id, before]) => { const svg = document.querySelector('#' + id + ' svg.marks');"
        " return svg && svg.outerHTML !== before; }",
        arg=[f"chart-{label}", before],
        timeout=CHANGE_TIMEOUT_MS,
    )


def description(page, label: str) -> str:
    """The words under chart-<label> that say what it shows."""
    return page.eval_on_selector(f"#description-{label}", "el => el.textContent").strip()
