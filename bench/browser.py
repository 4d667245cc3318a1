"""Times the built site in headless Chromium: how soon each page shows its figure (largest contentful paint), how
soon its charts are live (interactive), how much its layout shifts on the way, how fast a chart redraws after one
change of its controls, and how many bytes each page loads; for one site, or for two (before and after a change)
in the same run. Run by hand (a benchmark, not a test):

    python bench/browser.py [SITE_DIR] [--before BEFORE] [--throttle RATE] [--viewport WxH]

With no SITE_DIR it first builds the site into a temporary folder (`build.py --model random`, no network) and
times that. BEFORE is another site to measure alongside it: a folder written by build.py (one with index.html), or
a commit (`8519747`, `main`, `HEAD~3`: checked out in a temporary `git worktree --detach` by bench/before_after.py's
helper, built there by its own build.py with `--model random` into an empty cache, the worktree removed at the
end) or another checkout's folder (built the same way). Both sites are then opened in the same browser, their
loads of each page taking turns (before, after, after, before, ...), and a last table prints each page's
before -> after; a page that only one of the two sites has is listed as such.

Every page runs with its CPU slowed RATE times (the DevTools protocol's Emulation.setCPUThrottlingRate; default
4, a slow phone; 1 for none), set before the page starts to load. Needs Playwright for Python and Debian's
Chromium at /usr/bin/chromium (Playwright's own browser download is not used). On 2 cores shared with other work,
one site (32 pages, 160 loads) took 4 minutes at a load average of 3 to 5, nearly all of it the pages' own opening
at 4x (that was before SETTLE_MS was added to each load: about half a minute more now); --before doubles the loads
and adds its build: 11 to 12 minutes at a load average of 7 to 15.

Every HTML page of the site is opened from file:// with every request that is not file:// aborted (and counted).
For each page, REPEATS loads, each in a fresh page (tab); the first load of a page is the first time the browser
process sees it (cold), the very first load of the run is also the browser's own cold start. Each load measures:

1. LCP, largest contentful paint: the startTime of the last 'largest-contentful-paint' entry (a
   PerformanceObserver injected before any of the page's scripts run), ms from navigation start, read once the
   page is interactive (2) and SETTLE_MS later, before any input (Chromium stops reporting LCP at the first
   input, and reports it for the top document only). The element it painted is noted ('LCP is': its tag and first
   class, the most frequent over the loads: img.static-chart for the build's drawing, 'removed FILE' for an image
   gone when its entry came, else the block of text that was the largest thing painted; where the loads differ
   the notes list them). Target: at most 300 ms.
2. interactive: from navigation start until every chart (`[data-spec]` element) the page draws on opening
   carries `data-rendered` (the live chart, which replaces the build's drawing), taken in the page as
   `performance.now()` by a MutationObserver injected likewise. A page of several charts (a text page) draws
   those within half a screen of the view and marks the others `data-deferred`: it draws each of them as the
   reader comes near it (see 4). Pages without charts (index.html) report the time to the end of their load event
   instead. Target: at most 800 ms.
3. CLS, cumulative layout shift: the sum of the values of every 'layout-shift' entry without hadRecentInput
   (observed from the same injected script), from navigation start to SETTLE_MS after the page is interactive, so
   that the live chart's taking the drawing's place is counted. A sum over the whole load, not the largest
   session window that Chromium's own CLS reports, so never less than that. Target: under 0.01.

Then, on the last load of a page:

4. reach: on a page with deferred charts, each of them is scrolled into view in turn, as a reader jumping to it
   would (no look-ahead); from the scroll until it carries `data-rendered`. Target: at most 1.0 s.
5. interaction (figure l: the token select, figure i: the stage slider, figure cost: the n slider, the scores
   figure: the temperature slider, the ledger: the part it opens, the knockout figure: the part it highlights):
   in the page, from just before the input's `input`/`change` events are dispatched until `view.runAsync()` has
   finished and the next animation frame has begun; INTERACTIONS times, alternating between two values. Target:
   at most 100 ms.
6. bytes: the sum of the on-disk sizes of every file:// response the page loads (HTML, scripts, styles, data,
   images), on its first load.

The window is 1280 x 720 px (Playwright's default) unless --viewport says otherwise; 360x800 is a phone's.

Two tables per site: its opening (1-3), with medians and maxima over the loads, and the rest (4-6). Each gives a
page's result for its own figures: PASS when the worst (max) of its loads, reaches and interactions is within the
targets; "FAIL (max only: ...)" when the medians are within and some single run is not (on a busy machine, often
other work); "FAIL (...)" when a median is over or a figure is missing (a load timed out, no LCP entry, a chart
not drawn); each names the figures over. With --before, both sites' tables, then the comparison: each page's
medians of LCP, interactive and CLS before -> after, '!' after a median over its target and '^' after one within
whose max is not, and the opening's result in each (FAIL*: max only). Exit status: 0 when every page of the site
(the after one with --before) passes, 1 otherwise, 2 on bad input. tests/unit/test_bench_browser.py checks the
tables' arithmetic on made-up loads (no browser).

With `build.py --live`, the figures the model can compute ((l), every head, (i), the lens, which head, two texts
compared, the knockout) take a reader's own sentence under their titles ("Try your own sentence", closed at first),
and live.html is only an index of them.
Opened from file://, those pages say only that the site must be served to run the model; the model's part needs
HTTP and runs GPT-2 in the page, so it is measured apart by bench/live.py, on the figure pages: the model's load
(first visit and from Cache Storage, on figure (l)'s page), Enter to charts drawn on a 20-token text (on the lens's
page by default: CPU slowed and not, threads when cross-origin isolated) and the tab's peak memory.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

ROOT = Path(__file__).resolve().parent.parent

REPEATS = 5  # loads per page, each in a fresh page
INTERACTIONS = 10  # input changes per interactive figure
LCP_TARGET_MS = 300.0
INTERACTIVE_TARGET_MS = 800.0
CLS_TARGET = 0.01  # strictly under
REACH_TARGET_MS = 1000.0
INTERACTION_TARGET_MS = 100.0
SETTLE_MS = 200  # LCP and CLS are read this long after the page is interactive
TIMEOUT_MS = 20_000  # a page whose charts are not drawn by then counts as failed
PAGE_WIDTH = 30  # a page's name in the tables, longer ones shortened (the text pages' names run to 68)

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]

# The input each interactive figure is timed on: (signal/input name, two values to alternate between; the first
# differs from the value the figure opens on, so every dispatch changes the chart).
INTERACTIONS_BY_LABEL = {
    "l": ("token", ["3", "9"]),
    "i": ("stage", ["0", "12"]),
    "cost": ("n", ["500", "1000"]),
    "question-and-keys": ("T", ["0.3", "2"]),
    "ledger": ("part", ["feed-forward-3", "attention-7"]),
    "knockout": ("part", ["feed-forward-7", "attention-3"]),
}

# Runs before any of the page's own scripts: notes performance.now() (ms since navigation start) when the last
# chart on the page gets data-rendered ("true", or "error" when figures.js could not draw it). bench/build.py
# injects it too.
RENDER_OBSERVER = """
(() => {
  const check = () => {
    if (window.__renderedAt !== undefined) return;
    const charts = Array.from(document.querySelectorAll('[data-spec]'));
    if (!charts.length) return;
    const drawn = charts.filter(el => el.hasAttribute('data-rendered'));
    const waiting = el => !el.hasAttribute('data-rendered') && !el.hasAttribute('data-deferred');
    if (!drawn.length || charts.some(waiting)) return;
    window.__renderedAt = performance.now();
    window.__deferred = charts.filter(el => !el.hasAttribute('data-rendered')).map(el => el.id);
    window.__renderErrors = drawn.filter(el => el.getAttribute('data-rendered') !== 'true')
      .map(el => el.getAttribute('data-spec'));
    observer.disconnect();
  };
  const observer = new MutationObserver(check);
  observer.observe(document, {subtree: true, attributes: true, attributeFilter: ['data-rendered', 'data-deferred']});
})();
"""

# Runs before any of the page's own scripts, beside RENDER_OBSERVER: the last largest-contentful-paint entry (and
# what it painted, named as soon as the entry comes: the element may be gone by then, as the drawing is once the
# live chart replaces it, and is then named by its image's file) and the sum of the layout shifts without recent
# input. `flush` takes the
# entries not yet delivered to the observers, so that a read misses none.
PAINT_OBSERVER = """
(() => {
  const seen = window.__paint = {lcp: null, lcpElement: null, cls: 0, shifts: 0};
  const name = (el, url) => el ? el.tagName.toLowerCase() + (el.classList.length ? '.' + el.classList[0] : '')
    : url ? 'removed ' + url.split('/').pop() : 'removed text';
  const lcp = entries => entries.forEach(e => { seen.lcp = e.startTime; seen.lcpElement = name(e.element, e.url); });
  const shift = entries => entries.filter(e => !e.hadRecentInput).forEach(e => { seen.cls += e.value; seen.shifts++; });
  const observe = (type, take) => {
    const observer = new PerformanceObserver(list => take(list.getEntries()));
    observer.observe({type, buffered: true});
    return () => take(observer.takeRecords());
  };
  const flushes = [observe('largest-contentful-paint', lcp), observe('layout-shift', shift)];
  window.__flushPaint = () => flushes.forEach(flush => flush());
})();
"""

WAIT_DONE = """() => window.__renderedAt !== undefined || (document.querySelectorAll('[data-spec]').length === 0
  && document.readyState === 'complete' && performance.getEntriesByType('navigation')[0].loadEventEnd > 0)"""

# Once WAIT_DONE holds: the interactive time, then SETTLE_MS after it, LCP and CLS.
RESULT = """async (settleMs) => {
  const charts = document.querySelectorAll('[data-spec]').length;
  const drawn = window.__renderedAt !== undefined;
  const ms = drawn ? window.__renderedAt : performance.getEntriesByType('navigation')[0].loadEventEnd;
  await new Promise(r => setTimeout(r, Math.max(0, ms + settleMs - performance.now())));
  window.__flushPaint();
  const {lcp, lcpElement, cls, shifts} = window.__paint;
  return {charts, ms, errors: drawn ? window.__renderErrors : [], deferred: drawn ? window.__deferred.length : 0,
          lcp, lcpElement, cls, shifts};
}"""

# Each chart the page left for later, scrolled into view in turn: ms from the scroll until it is drawn (0 when it
# was drawn already, as the reader came near it on the way to one above it).
REACH = """async (timeoutMs) => {
  const out = [];
  for (const id of window.__deferred) {
    const el = document.getElementById(id);
    const t0 = performance.now();
    el.scrollIntoView({block: 'start'});
    while (!el.hasAttribute('data-rendered') && performance.now() - t0 < timeoutMs) {
      await new Promise(r => setTimeout(r, 5));
    }
    out.push({chart: el.id, ms: performance.now() - t0, ok: el.getAttribute('data-rendered') === 'true'});
  }
  window.scrollTo(0, 0);
  return out;
}"""

# One timed interaction: set the named input of the chart that has it, dispatch input and change as a reader's
# browser would, wait for the Vega view to finish its run and for the next animation frame.
INTERACT = """async ({name, value}) => {
  const el = Array.from(document.querySelectorAll('[data-spec]')).find(e => e.querySelector(`[name="${name}"]`));
  if (!el) return {missing: true};
  const input = el.querySelector(`[name="${name}"]`);
  const view = el.vegaView;
  const svg = () => { const s = el.querySelector('svg'); return s ? s.innerHTML : ''; };
  const before = svg();
  const t0 = performance.now();
  input.value = value;
  input.dispatchEvent(new Event('input', {bubbles: true}));
  input.dispatchEvent(new Event('change', {bubbles: true}));
  await view.runAsync();
  await new Promise(r => requestAnimationFrame(() => r()));
  const ms = performance.now() - t0;
  return {ms, signal: String(view.signal(name)), changed: svg() !== before};
}"""


@dataclass
class Row:
    """One page of one site: what its loads measured, in the order they ran (None: that load timed out)."""

    page: str
    charts: int = 0
    deferred: int = 0
    loads: list = field(default_factory=list)  # interactive, ms
    lcps: list = field(default_factory=list)  # ms; None also where the page reported no LCP entry
    cls: list = field(default_factory=list)
    lcp_elements: list = field(default_factory=list)
    reaches: list = field(default_factory=list)  # ms, on the last load
    interaction: str | None = None  # the input timed, on the last load
    interactions: list = field(default_factory=list)  # ms
    bytes: int | None = None
    files: int = 0
    notes: list = field(default_factory=list)
    not_drawn: list = field(default_factory=list)  # the loads (1-based) where some chart was not drawn


@dataclass
class Check:
    """One figure of a page against its target: its values, the median and the max of them, and whether those are
    within (`strict`: under the target, else at most it). A value of None, or fewer values than `expected`, is a
    run that did not give one: the check fails."""

    name: str
    values: list
    target: float
    strict: bool = False
    expected: int | None = None

    @property
    def complete(self) -> bool:
        return None not in self.values and bool(self.values) and len(self.values) >= (self.expected or 0)

    def median(self) -> float | None:
        got = [v for v in self.values if v is not None]
        return statistics.median(got) if got else None

    def max(self) -> float | None:
        got = [v for v in self.values if v is not None]
        return max(got) if got else None

    def within(self, value: float | None) -> bool:
        return value is not None and (value < self.target if self.strict else value <= self.target)

    def median_ok(self) -> bool:
        return self.complete and self.within(self.median())

    def max_ok(self) -> bool:
        return self.median_ok() and self.within(self.max())


def opening_checks(row: Row) -> list[Check]:
    """LCP, interactive and CLS over the page's loads."""
    return [
        Check("LCP", row.lcps, LCP_TARGET_MS, expected=REPEATS),
        Check("interactive", row.loads, INTERACTIVE_TARGET_MS, expected=REPEATS),
        Check("CLS", row.cls, CLS_TARGET, strict=True, expected=REPEATS),
    ]


def later_checks(row: Row) -> list[Check]:
    """The reaches of the charts left for later and the interactions, where the page has them."""
    checks = []
    if row.deferred:
        checks.append(Check("reach", row.reaches, REACH_TARGET_MS, expected=row.deferred))
    if label_of(Path(row.page)) in INTERACTIONS_BY_LABEL:  # missing when the figure could not be timed
        checks.append(Check("interaction", row.interactions, INTERACTION_TARGET_MS, expected=INTERACTIONS))
    return checks


def verdict(checks: list[Check], broken: bool = False) -> str:
    """PASS, 'FAIL (max only: ...)' or 'FAIL (...)', naming the figures over; `broken`: a chart was not drawn."""
    over = [c.name for c in checks if not c.median_ok()] + (["not drawn"] if broken else [])
    if over:
        return f"FAIL ({', '.join(over)})"
    over_max = [c.name for c in checks if not c.max_ok()]
    return f"FAIL (max only: {', '.join(over_max)})" if over_max else "PASS"


def passes(row: Row) -> bool:
    return verdict(opening_checks(row) + later_checks(row), bool(row.not_drawn)) == "PASS"


def build_site(out: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "build.py", "--model", "random", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.exit(f"build.py failed (exit {done.returncode}):\n{done.stdout}{done.stderr}")
    return time.perf_counter() - start


def build_before(before: str, work: Path) -> tuple[Path, str, Path | None]:
    """--before as a site: itself where it is one, else the site built from that commit or checkout into `work`.
    Returns (the site, how it came, the temporary worktree to remove or None)."""
    if (Path(before) / "index.html").is_file():
        return Path(before).resolve(), "", None
    import before_after  # bench/before_after.py: the worktree of a commit and a checkout's own build

    folder, commit = before_after.checkout_of(before, work)
    worktree = folder if commit else None
    try:
        site, cache = work / "before-site", work / "before-cache"
        cache.mkdir()
        print(f"building {before} ({folder}) into {site} ...", flush=True)
        took = before_after.Checkout("before", folder, work).build(site, cache)
    except BaseException:
        remove_worktree(worktree)
        raise
    how = f"commit {commit[:12]}" if commit else f"the checkout {folder}"
    return site, f" (built here from {how} by its build.py --model random in {took.wall:.1f} s)", worktree


def remove_worktree(worktree: Path | None) -> None:
    if worktree is not None:
        subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=ROOT, check=False)


def pages_in_order(site: Path) -> list[Path]:
    """index.html, then the pages it links to in its order, then any other HTML page by name."""
    pages = sorted(site.glob("*.html"))
    index = site / "index.html"
    order = [index] if index.exists() else []
    if index.exists():
        for href in re.findall(r'href="([^"#?]+\.html)"', index.read_text(encoding="utf-8")):
            page = site / href
            if page.exists() and page not in order:
                order.append(page)
    return order + [p for p in pages if p not in order]


def page_names(sites: dict[str, Path]) -> list[str]:
    """The pages of the last site (after) in its order, then those only the others have, in theirs."""
    names: list[str] = []
    for site in reversed(list(sites.values())):
        names += [p.name for p in pages_in_order(site) if p.name not in names]
    return names


def label_of(page: Path) -> str | None:
    match = re.fullmatch(r"(?:figure|embed)-(.+)\.html", page.name)
    return match.group(1) if match else None


def file_size(url: str) -> int:
    path = Path(unquote(urlparse(url).path))
    return path.stat().st_size if path.is_file() else 0


def ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def shift(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def short(name: str, width: int = PAGE_WIDTH) -> str:
    """A page's name cut to `width` - 1 characters (its start and its end), so that the columns stay aligned."""
    return name if len(name) < width else name[: width - 11] + "..." + name[-7:]


def open_browser(pw, viewport: dict, blocked: list[str]):
    """One browser and context for the whole run, the observers injected into every page and every request that
    is not file:// aborted (and noted in `blocked`)."""
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    context = browser.new_context(viewport=viewport)
    context.add_init_script(RENDER_OBSERVER)
    context.add_init_script(PAINT_OBSERVER)

    # Only requests that are not file:// are routed, and aborted. The regex is matched by Playwright's driver, so
    # the page's own files never wait on this Python process.
    def abort(route):
        frame = route.request.frame
        blocked.append(f"{Path(urlparse(frame.url).path).name if frame else '?'}: {route.request.url}")
        route.abort()

    context.route(re.compile(r"^(?!file:)"), abort)
    return browser, context


def load_once(context, page_path: Path, row: Row, repeat: int, throttle: float, problems: list[str]) -> None:
    """One load of the page in a fresh tab, recorded in `row`; on the last load, its reaches and interactions."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page = context.new_page()
    if throttle != 1:
        context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": throttle})
    loaded: list[str] = []
    page.on("response", lambda r: loaded.append(r.url) if r.url.startswith("file:") else None)
    page.on("pageerror", lambda e: problems.append(f"{page_path.parent.name}/{page_path.name}: page error: {e}"))
    try:
        page.goto(page_path.resolve().as_uri(), wait_until="load", timeout=TIMEOUT_MS)
        page.wait_for_function(WAIT_DONE, timeout=TIMEOUT_MS)
        result = page.evaluate(RESULT, SETTLE_MS)
    except PlaywrightTimeout:
        for values in (row.loads, row.lcps, row.cls):
            values.append(None)
        row.notes.append(f"load {repeat + 1} timed out after {TIMEOUT_MS / 1000:.0f} s")
        page.close()
        return
    record(row, repeat, result, sum(file_size(u) for u in loaded), len(loaded))
    if repeat == REPEATS - 1:
        time_reaches(page, row, repeat)
        if not result["errors"]:
            time_interactions(page, row)
    page.close()


def record(row: Row, repeat: int, result: dict, size: int, files: int) -> None:
    """One load's figures (RESULT's answer, the bytes and files it loaded) into the page's row."""
    row.charts, row.deferred = result["charts"], result["deferred"]
    row.loads.append(result["ms"])
    row.lcps.append(result["lcp"])
    row.cls.append(result["cls"])
    row.lcp_elements.append(result["lcpElement"] or "none")
    if result["lcp"] is None:
        row.notes.append("no largest-contentful-paint entry")
    if result["errors"]:
        row.not_drawn.append(repeat + 1)
        row.notes.append(f"chart(s) not drawn: {', '.join(result['errors'])}")
    if row.bytes is not None and size != row.bytes:
        row.notes.append(f"load {repeat + 1} loaded {size:,} bytes, the first {row.bytes:,}")
    if row.bytes is None:
        row.bytes, row.files = size, files


def time_reaches(page, row: Row, repeat: int) -> None:
    if not row.deferred:
        return
    for reached in page.evaluate(REACH, TIMEOUT_MS):
        row.reaches.append(reached["ms"])
        if not reached["ok"]:
            row.not_drawn.append(repeat + 1)
            row.notes.append(f"{reached['chart']} not drawn when scrolled to")


def time_interactions(page, row: Row) -> None:
    label = label_of(Path(row.page))
    if label not in INTERACTIONS_BY_LABEL:
        return
    name, values = INTERACTIONS_BY_LABEL[label]
    row.interaction = name
    unchanged = 0
    for i in range(INTERACTIONS):
        value = values[i % len(values)]
        got = page.evaluate(INTERACT, {"name": name, "value": value})
        if got.get("missing"):
            row.notes.append(f"no input named {name!r} on the page")
            row.interaction = None
            return
        row.interactions.append(got["ms"])
        if got["signal"] != value:
            row.notes.append(f"set {name}={value} but the view's signal is {got['signal']}")
        unchanged += not got["changed"]
    if unchanged:
        row.notes.append(f"{unchanged} of {INTERACTIONS} changes of {name} left the SVG as it was")


def measure(sites: dict[str, Path], throttle: float, viewport: dict) -> tuple[str, dict, list[str], list[str]]:
    """Every page of every site, page by page, the sites' loads of a page taking turns (the first site first on
    the 1st, 3rd, ... load, the last on the others) so that the machine's other work weighs on both alike.
    Returns (the browser's version, site name -> its rows in page_names order, the blocked requests, the page
    errors)."""
    from playwright.sync_api import sync_playwright

    blocked: list[str] = []
    problems: list[str] = []
    results: dict[str, list[Row]] = {name: [] for name in sites}
    with sync_playwright() as pw:
        browser, context = open_browser(pw, viewport, blocked)
        for page_name in page_names(sites):
            rows = {name: Row(page_name) for name, site in sites.items() if (site / page_name).is_file()}
            for repeat in range(REPEATS):
                for name in list(rows) if repeat % 2 == 0 else list(rows)[::-1]:
                    load_once(context, sites[name] / page_name, rows[name], repeat, throttle, problems)
            for name, row in rows.items():
                results[name].append(row)
        version = browser.version
        browser.close()
    return version, results, blocked, problems


def print_opening(rows: list[Row]) -> None:
    """The table of LCP, interactive and CLS: median and max over the loads, and the page's result for them."""
    print(
        f"{'page':<{PAGE_WIDTH}}{'charts':>6}{'later':>6}{'LCP med':>9}{'max':>6}{'interactive med':>17}{'max':>6}"
        f"{'1st':>6}{'CLS med':>9}{'max':>7}  {'LCP is':<18}result"
    )
    for row in rows:
        lcp, live, cls = opening_checks(row)
        mark = "*" if row.charts == 0 else " "
        element = Counter(row.lcp_elements).most_common(1)[0][0] if row.lcp_elements else "-"
        print(
            f"{short(row.page):<{PAGE_WIDTH}}{row.charts:>6}{row.deferred:>6}{ms(lcp.median()):>9}"
            f"{ms(lcp.max()):>6}{ms(live.median()):>16}{mark}{ms(live.max()):>6}"
            f"{ms(row.loads[0] if row.loads else None):>6}{shift(cls.median()):>9}{shift(cls.max()):>7}  "
            f"{element[:17]:<18}{verdict([lcp, live, cls], bool(row.not_drawn))}"
        )


def print_later(rows: list[Row]) -> None:
    """The table of the reaches, the interactions and the bytes, and the page's result for the first two."""
    print(
        f"{'page':<{PAGE_WIDTH}}{'reach med':>10}{'max':>6}   {'interaction':<12}{'med':>5}{'max':>6}"
        f"{'bytes loaded':>15}{'files':>6}  result"
    )
    for row in rows:
        checks = later_checks(row)
        reach = next((c for c in checks if c.name == "reach"), None)
        if row.interaction:
            inter = f"{row.interaction:<12}{ms(statistics.median(row.interactions)):>5}{ms(max(row.interactions)):>6}"
        elif label_of(Path(row.page)) in INTERACTIONS_BY_LABEL:
            inter = f"{'missing':<12}{'-':>5}{'-':>6}"
        else:
            inter = f"{'-':<12}{'-':>5}{'-':>6}"
        size = "-" if row.bytes is None else f"{row.bytes:,}"
        print(
            f"{short(row.page):<{PAGE_WIDTH}}{ms(reach and reach.median()):>10}{ms(reach and reach.max()):>6}   "
            f"{inter}{size:>15}{row.files:>6}  {verdict(checks) if checks else '-'}"
        )


def short_verdict(checks: list[Check], row: Row) -> str:
    """PASS, FAIL* (max only) or FAIL, for the comparison's narrow column."""
    said = verdict(checks, bool(row.not_drawn))
    return "FAIL*" if said.startswith("FAIL (max only") else said.split(" (")[0]


def print_site(name: str, site: Path, how: str, rows: list[Row], throttle: float) -> None:
    print(f"{name}: {site}{how}\n")
    print(f"opening, CPU slowed {throttle:g}x: ms from navigation start (CLS: unitless), over {REPEATS} loads")
    print_opening(rows)
    print(
        "\nafter opening, on the last load: ms from the scroll to a chart left for later, from an input's change "
        "to its redraw"
    )
    print_later(rows)
    print()


def mark(check: Check) -> str:
    """'!' after a median over its target, '^' after one within whose max is not, else nothing."""
    return "!" if not check.median_ok() else "^" if not check.max_ok() else " "


def print_comparison(results: dict[str, list[Row]], names: list[str]) -> None:
    """Each page's medians before -> after, marked where over, and its opening's result in each; a page of one
    site only, as such."""
    before, after = ({row.page: row for row in results[key]} for key in ("before", "after"))
    print(f"before -> after: medians of {REPEATS} loads each, the two sites' loads of a page taking turns")
    print(f"{'page':<{PAGE_WIDTH}}{'LCP ms':>16}{'interactive ms':>18}{'CLS':>18}   result (opening)")
    for page in names:
        if page not in before or page not in after:
            print(f"{short(page):<{PAGE_WIDTH}}only in {'after' if page in after else 'before'}")
            continue
        pair = [opening_checks(before[page]), opening_checks(after[page])]
        cells = [
            f"{fmt(b.median()):>6}{mark(b)} -> {fmt(a.median()):>5}{mark(a)}"
            for b, a, fmt in zip(*pair, (ms, ms, shift))
        ]
        said = [short_verdict(checks, row) for checks, row in zip(pair, (before[page], after[page]))]
        print(f"{short(page):<{PAGE_WIDTH}}{cells[0]:>17}{cells[1]:>18}{cells[2]:>18}  {' -> '.join(said)}")
    print(
        "! the median over its target; ^ the median within, the max not. FAIL*: the medians within the targets, "
        "some single load not (max only).\n"
    )


def print_method(
    sites: dict[str, Path],
    version: str,
    results: dict,
    blocked: list[str],
    errors: list[str],
    total_s: float,
    load_before: tuple[float, float, float],
    throttle: float,
    viewport: dict,
) -> None:
    """How the figures were taken, each load's figures in order, and the notes."""
    print(
        f"targets, with the CPU slowed {throttle:g}x: LCP at most {LCP_TARGET_MS:.0f} ms, interactive at most "
        f"{INTERACTIVE_TARGET_MS:.0f} ms (the median and the max of {REPEATS} loads), CLS under {CLS_TARGET:g};"
    )
    print(
        f"each chart left for later ('later') drawn within {REACH_TARGET_MS:.0f} ms of being scrolled to, one "
        f"interaction redrawn within {INTERACTION_TARGET_MS:.0f} ms."
    )
    print(
        "PASS: the max of all runs within them; FAIL (max only: ...): the medians within, some single run not; "
        "FAIL (...): a median over, or a figure missing."
    )
    if any(row.charts == 0 for rows in results.values() for row in rows):
        print("* a page without charts: interactive is the end of its load event.")
    first = next((rows[0].page for rows in results.values() if rows), "-")
    print("\nhow the figures were taken:")
    print(
        f"  browser      headless Chromium {version} ({CHROMIUM}), one browser process and context for the whole run,"
    )
    print(
        f"               window {viewport['width']} x {viewport['height']} px, each page's CPU slowed {throttle:g}x "
        f"(Emulation.setCPUThrottlingRate, set before it loads),"
    )
    print("               pages opened from file://, every request that is not file:// aborted")
    print(
        f"  loads        {REPEATS} per page and site, each in a fresh page"
        + (
            ", the two sites' loads of a page taking turns (before first on the 1st, 3rd, ... load)"
            if len(sites) > 1
            else ""
        )
        + ";"
    )
    print(
        f"               '1st' is the page's first load, cold for that page; the run's first load ({first}) is "
        "also the browser process's cold start"
    )
    print(
        f"  LCP          the last largest-contentful-paint entry's startTime, ms from navigation start, read "
        f"{SETTLE_MS} ms after interactive, before any input;"
    )
    print("               'LCP is': the element it painted (tag.first class), the most frequent over the loads")
    print(
        "  interactive  ms from navigation start (in-page performance.now()) until the last [data-spec] element "
        "not left for later got data-rendered"
    )
    print(
        f"  CLS          the sum of the layout-shift entries without hadRecentInput, from navigation start to "
        f"{SETTLE_MS} ms after interactive"
    )
    print(
        "  reach        on the last load, each chart left for later scrolled into view in turn; ms from the scroll "
        "to its data-rendered"
    )
    alternated = ", ".join(f"{label}: {name} {a}/{b}" for label, (name, (a, b)) in INTERACTIONS_BY_LABEL.items())
    print(
        f"  interaction  {INTERACTIONS} changes per interactive figure on the page's last load, alternating two values"
    )
    print(f"               ({alternated});")
    print("               ms from just before the input/change dispatch to view.runAsync() done + next animation frame")
    print(
        "  bytes        on-disk sizes of every file:// response of one load (HTML + scripts + styles + data + images)"
    )
    after = os.getloadavg()
    print(
        f"  machine      {os.cpu_count()} cores; load average (1/5/15 min) "
        f"{load_before[0]:.2f} / {load_before[1]:.2f} / {load_before[2]:.2f} before the browser started,"
    )
    print(
        f"               {after[0]:.2f} / {after[1]:.2f} / {after[2]:.2f} after; whole run {total_s:.0f} s. "
        "Other work on the machine shows up as single slow runs (max)."
    )
    print(f"  network      {len(blocked)} non-file request(s) blocked" + (" (page: url, times):" if blocked else ""))
    for what, times in Counter(blocked).most_common(20):
        print(f"                 {what}  x{times}")
    print_each_load(results)
    print_notes(results, errors)


def print_each_load(results: dict[str, list[Row]]) -> None:
    print("  each load, in order: interactive ms | LCP ms | CLS")
    for name, rows in results.items():
        for row in rows:
            print(
                f"    {short(row.page):<{PAGE_WIDTH}}"
                + (f"{name:<7}" if len(results) > 1 else "")
                + " ".join(f"{ms(x):>5}" for x in row.loads)
                + " | "
                + " ".join(f"{ms(x):>4}" for x in row.lcps)
                + " | "
                + " ".join(shift(x) for x in row.cls)
            )


def print_notes(results: dict[str, list[Row]], errors: list[str]) -> None:
    """What a table does not say: the element each load's LCP painted where they differ, and what went wrong."""
    notes = []
    for name, rows in results.items():
        where = f"{name}: " if len(results) > 1 else ""
        for row in rows:
            elements = Counter(row.lcp_elements)
            if len(elements) > 1:
                notes.append(f"{where}{row.page}: LCP painted " + ", ".join(f"{e} x{n}" for e, n in elements.items()))
            notes += [
                f"{where}{row.page}: {n}" + (f" (x{times})" if times > 1 else "")
                for n, times in Counter(row.notes).items()
            ]
    notes += [note + (f" (x{times})" if times > 1 else "") for note, times in Counter(errors).items()]
    if notes:
        print("notes:")
        for note in notes:
            print(f"  {note}")


def parse(argv: list[str]):
    import argparse

    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        usage="python bench/browser.py [SITE_DIR] [--before BEFORE] [--throttle RATE] [--viewport WxH]",
    )
    parser.add_argument("site", nargs="?", type=Path, help="a folder written by build.py; default: build one now")
    parser.add_argument(
        "--before",
        help="a site to compare it with: a folder written by build.py, or a commit or "
        "checkout folder, built here with --model random",
    )
    parser.add_argument(
        "--viewport",
        default="1280x720",
        help="the window's width and height in px, as WxH (default 1280x720; a phone: 360x800)",
    )
    parser.add_argument(
        "--throttle",
        type=float,
        default=4.0,
        help="slow each page's CPU this many times (default 4, a slow phone; 1: not at all)",
    )
    options = parser.parse_args(argv)
    if options.throttle < 1:
        parser.error(f"--throttle: {options.throttle:g} is below 1; allowed: 1 (not slowed) or more")
    match = re.fullmatch(r"([1-9][0-9]*)x([1-9][0-9]*)", options.viewport)
    if not match:
        parser.error(f"--viewport: {options.viewport!r} is not WIDTHxHEIGHT in px; allowed: e.g. 360x800")
    if options.site is not None and not (options.site / "index.html").is_file():
        parser.error(f"{options.site.resolve()} has no index.html; give a folder written by build.py")
    options.viewport = {"width": int(match.group(1)), "height": int(match.group(2))}
    return options


def main(argv: list[str]) -> int:
    options = parse(argv)
    for ended in (signal.SIGTERM, signal.SIGHUP):  # killed: still remove a worktree (the finally below)
        signal.signal(ended, lambda number, frame: sys.exit(f"stopped by signal {number}"))
    start = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="bench-browser-"))
    worktree = None
    try:
        sites, how = {}, {}
        if options.before is not None:
            sites["before"], how["before"], worktree = build_before(options.before, work)
        if options.site is not None:
            sites["after"], how["after"] = options.site.resolve(), ""
        else:
            sites["after"] = work / "site"
            print(f"building the site into {sites['after']} ...", flush=True)
            how["after"] = f" (built here by build.py --model random in {build_site(sites['after']):.1f} s)"
        remove_worktree(worktree)  # built: the site is all that is needed of it
        worktree = None
        load_before = os.getloadavg()
        version, results, blocked, errors = measure(sites, options.throttle, options.viewport)
        for name, site in sites.items():
            print_site(name if len(sites) > 1 else "site", site, how[name], results[name], options.throttle)
        if len(sites) > 1:
            print_comparison(results, page_names(sites))
        print_method(
            sites,
            version,
            results,
            blocked,
            errors,
            time.perf_counter() - start,
            load_before,
            options.throttle,
            options.viewport,
        )
        all_pass = all(passes(row) for row in results["after"])
        print("\n" + ("ALL PASS" if all_pass else "SOME FAIL") + (" (after)" if len(sites) > 1 else ""))
        return 0 if all_pass else 1
    finally:
        remove_worktree(worktree)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
