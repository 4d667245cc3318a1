"""Times the built site in headless Chromium: how fast each page draws its charts, how fast a chart redraws after
one change of its controls, and how many bytes each page loads. Run by hand (a benchmark, not a test):

    python bench/browser.py [SITE_DIR] [--throttle RATE] [--viewport WxH]

With no SITE_DIR it first builds the site into a temporary folder (`build.py --model random`, no network) and
times that. Every page runs with its CPU slowed RATE times (the DevTools protocol's
Emulation.setCPUThrottlingRate; default 4, a slow phone; 1 for none), set before the page starts to load. Needs Playwright for Python and Debian's Chromium at /usr/bin/chromium (Playwright's own browser
download is not used). Takes well under two minutes.

Every HTML page of the site is opened from file:// with every request that is not file:// aborted (and counted).
For each page it measures:

1. render: from navigation start until every chart (`[data-spec]` element) the page draws on opening carries
   `data-rendered`, taken in the page as `performance.now()` by a MutationObserver injected before any of the
   page's scripts run. A page of several charts (a text page) draws those within half a screen of the view and
   marks the others `data-deferred`: it draws each of them as the reader comes near it (see 2).
   A fresh page (tab) for each of REPEATS loads; the first load of a page is the first time the browser process
   sees it (cold), the very first load of the run is also the browser's own cold start. Pages without charts
   (index.html) report the time to the end of their load event instead. Target: at most 1.0 s.
2. reach: on the last load of a page with deferred charts, each of them is scrolled into view in turn, as a
   reader jumping to it would (no look-ahead); from the scroll until it carries `data-rendered`. Target: at most
   1.0 s, as a page's.
3. interaction (figure l: the token select, figure i: the stage slider, figure cost: the n slider, the scores
   figure: the temperature slider, the ledger: the part it opens, the knockout figure: the part it highlights): in the page,
   from just before the input's `input`/`change` events are dispatched until `view.runAsync()` has finished and
   the next animation frame has begun; INTERACTIONS times, alternating between two values. Target: at most 100 ms.
4. bytes: the sum of the on-disk sizes of every file:// response the page loads (HTML, scripts, styles, data,
   images).

The window is 1280 x 720 px (Playwright's default) unless --viewport says otherwise; 360x800 is a phone's.

A page PASSes when the worst (max) of its loads, of its reaches and of its interactions is within the targets; "FAIL (max only)"
when the medians are within and some single run is not (on a busy machine, often other work).

The live page (live.html, `build.py --live`) needs HTTP and runs GPT-2 in the page, so it is measured apart by
bench/live.py: the model's load (first visit and from Cache Storage), Enter to charts drawn on a 20-token text (CPU
slowed and not, threads when cross-origin isolated) and the tab's peak memory.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urlparse

ROOT = Path(__file__).resolve().parent.parent

REPEATS = 5            # loads per page, each in a fresh page
INTERACTIONS = 10      # input changes per interactive figure
RENDER_TARGET_MS = 1000.0
INTERACTION_TARGET_MS = 100.0
TIMEOUT_MS = 20_000    # a page whose charts are not drawn by then counts as failed

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync"]

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
# chart on the page gets data-rendered ("true", or "error" when figures.js could not draw it).
RENDER_OBSERVER = """
(() => {
  const check = () => {
    if (window.__renderedAt !== undefined) return;
    const charts = Array.from(document.querySelectorAll('[data-spec]'));
    if (!charts.length) return;
    const drawn = charts.filter(el => el.hasAttribute('data-rendered'));
    if (!drawn.length || charts.some(el => !el.hasAttribute('data-rendered') && !el.hasAttribute('data-deferred'))) return;
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

WAIT_DONE = """() => window.__renderedAt !== undefined || (document.querySelectorAll('[data-spec]').length === 0
  && document.readyState === 'complete' && performance.getEntriesByType('navigation')[0].loadEventEnd > 0)"""

RESULT = """() => {
  const charts = document.querySelectorAll('[data-spec]').length;
  if (window.__renderedAt !== undefined) return {charts, ms: window.__renderedAt, errors: window.__renderErrors,
                                                 deferred: window.__deferred.length};
  return {charts, ms: performance.getEntriesByType('navigation')[0].loadEventEnd, errors: [], deferred: 0};
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


def build_site(out: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "build.py", "--model", "random", "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"build.py failed (exit {done.returncode}):\n{done.stdout}{done.stderr}")
    return time.perf_counter() - start


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


def label_of(page: Path) -> str | None:
    match = re.fullmatch(r"(?:figure|embed)-(.+)\.html", page.name)
    return match.group(1) if match else None


def file_size(url: str) -> int:
    path = Path(unquote(urlparse(url).path))
    return path.stat().st_size if path.is_file() else 0


def ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def measure(site: Path, throttle: float, viewport: dict | None = None) -> tuple[str, list[dict], list[str], list[str]]:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    blocked: list[str] = []
    problems: list[str] = []
    results = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        version = browser.version
        context = browser.new_context(viewport=viewport) if viewport else browser.new_context()
        context.add_init_script(RENDER_OBSERVER)

        # Only requests that are not file:// are routed, and aborted. The regex is matched by Playwright's driver,
        # so the page's own files never wait on this Python process.
        def abort(route):
            frame = route.request.frame
            blocked.append(f"{Path(urlparse(frame.url).path).name if frame else '?'}: {route.request.url}")
            route.abort()

        context.route(re.compile(r"^(?!file:)"), abort)

        for page_path in pages_in_order(site):
            url = page_path.resolve().as_uri()
            row = {"page": page_path.name, "charts": 0, "loads": [], "interactions": [], "bytes": None, "reaches": [],
                   "deferred": 0,
                   "files": 0, "interaction": None, "notes": [], "not_drawn": []}
            for repeat in range(REPEATS):
                page = context.new_page()
                if throttle != 1:
                    context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": throttle})
                loaded: list[str] = []
                page.on("response", lambda r, loaded=loaded: loaded.append(r.url) if r.url.startswith("file:")
                        else None)
                page.on("pageerror", lambda e, name=page_path.name: problems.append(f"{name}: page error: {e}"))
                try:
                    page.goto(url, wait_until="load", timeout=TIMEOUT_MS)
                    page.wait_for_function(WAIT_DONE, timeout=TIMEOUT_MS)
                except PlaywrightTimeout:
                    row["loads"].append(None)
                    row["notes"].append(f"load {repeat + 1} timed out after {TIMEOUT_MS / 1000:.0f} s")
                    page.close()
                    continue
                result = page.evaluate(RESULT)
                row["charts"] = result["charts"]
                row["deferred"] = result["deferred"]
                row["loads"].append(result["ms"])
                if result["errors"]:
                    row["not_drawn"].append(repeat + 1)
                    row["notes"].append(f"chart(s) not drawn: {', '.join(result['errors'])}")
                size = sum(file_size(u) for u in loaded)
                if row["bytes"] is not None and size != row["bytes"]:
                    row["notes"].append(f"load {repeat + 1} loaded {size:,} bytes, the first {row['bytes']:,}")
                if row["bytes"] is None:
                    row["bytes"], row["files"] = size, len(loaded)

                if repeat == REPEATS - 1 and result["deferred"]:
                    for reached in page.evaluate(REACH, TIMEOUT_MS):
                        row["reaches"].append(reached["ms"])
                        if not reached["ok"]:
                            row["not_drawn"].append(repeat + 1)
                            row["notes"].append(f"{reached['chart']} not drawn when scrolled to")
                label = label_of(page_path)
                if repeat == REPEATS - 1 and label in INTERACTIONS_BY_LABEL and not result["errors"]:
                    name, values = INTERACTIONS_BY_LABEL[label]
                    row["interaction"] = name
                    unchanged = 0
                    for i in range(INTERACTIONS):
                        value = values[i % len(values)]
                        got = page.evaluate(INTERACT, {"name": name, "value": value})
                        if got.get("missing"):
                            row["notes"].append(f"no input named {name!r} on the page")
                            row["interaction"] = None
                            break
                        row["interactions"].append(got["ms"])
                        if got["signal"] != value:
                            row["notes"].append(f"set {name}={value} but the view's signal is {got['signal']}")
                        unchanged += not got["changed"]
                    if unchanged:
                        row["notes"].append(f"{unchanged} of {INTERACTIONS} changes of {name} left the SVG as it was")
                page.close()
            results.append(row)
        browser.close()
    return version, results, blocked, problems


def report(site: Path, version: str, results: list[dict], blocked: list[str], errors: list[str],
           built_s: float | None, total_s: float, load_before: tuple[float, float, float], throttle: float,
           viewport: dict) -> bool:
    header = (f"{'page':<20}{'charts':>7}{'later':>6}{'render med':>12}{'max':>7}{'1st':>7}{'reach max':>10}   "
              f"{'interaction':<12}{'med':>6}{'max':>6}   {'bytes loaded':>13}{'files':>6}  result")
    print(header)
    print("-" * len(header))
    all_pass = True
    for row in results:
        loads = [x for x in row["loads"] if x is not None]
        failed_load = len(loads) < len(row["loads"]) or bool(row["not_drawn"])
        render_med = statistics.median(loads) if loads else None
        render_max = max(loads) if loads else None
        first = row["loads"][0] if row["loads"] else None
        med_ok = not failed_load and render_med is not None and render_med <= RENDER_TARGET_MS
        max_ok = med_ok and render_max <= RENDER_TARGET_MS
        reach_max = max(row["reaches"]) if row["reaches"] else None
        if row["deferred"] and len(row["reaches"]) != row["deferred"]:
            med_ok = max_ok = False  # a chart left for later was not timed
        if reach_max is not None:
            med_ok = med_ok and statistics.median(row["reaches"]) <= RENDER_TARGET_MS
            max_ok = max_ok and med_ok and reach_max <= RENDER_TARGET_MS
        inter = row["interactions"]
        if row["interaction"]:
            inter_med, inter_max = statistics.median(inter), max(inter)
            med_ok = med_ok and inter_med <= INTERACTION_TARGET_MS and len(inter) == INTERACTIONS
            max_ok = max_ok and med_ok and inter_max <= INTERACTION_TARGET_MS
            inter_cells = f"{row['interaction']:<12}{inter_med:>6.0f}{inter_max:>6.0f}"
        elif row["interaction"] is None and label_of(Path(row["page"])) in INTERACTIONS_BY_LABEL:
            med_ok = max_ok = False  # the figure should be interactive but could not be timed
            inter_cells = f"{'missing':<12}{'-':>6}{'-':>6}"
        else:
            inter_cells = f"{'-':<12}{'-':>6}{'-':>6}"
        verdict = "PASS" if max_ok else "FAIL (max only)" if med_ok else "FAIL"
        all_pass = all_pass and max_ok
        mark = "*" if row["charts"] == 0 else " "
        size = "-" if row["bytes"] is None else f"{row['bytes']:,}"
        print(f"{row['page']:<20}{row['charts']:>7}{row['deferred']:>6}{ms(render_med):>11}{mark}{ms(render_max):>7}"
              f"{ms(first):>7}{ms(reach_max):>10}   "
              f"{inter_cells}   {size:>13}{row['files']:>6}  {verdict}")
    print()
    print(f"targets, with the CPU slowed {throttle:g}x: every chart a page draws on opening drawn within "
          f"{RENDER_TARGET_MS:.0f} ms of navigation start,")
    print(f"each chart it leaves for later ('later') drawn within {RENDER_TARGET_MS:.0f} ms of being scrolled to "
          f"('reach max'), one interaction redrawn within {INTERACTION_TARGET_MS:.0f} ms.")
    print("PASS: the max of all runs is within both; FAIL (max only): the medians are within, some single run "
          "is not; FAIL: a median is over, or a chart or input is missing.")
    if any(row["charts"] == 0 for row in results):
        print("* a page without charts: the time to the end of its load event instead.")
    print()
    print("how the figures were taken:")
    print(f"  site      {site}" + (f" (built here by build.py --model random in {built_s:.1f} s)" if built_s else ""))
    print(f"  browser   headless Chromium {version} ({CHROMIUM}), one browser process and context for the whole run,")
    print(f"            window {viewport['width']} x {viewport['height']} px,")
    print(f"            each page's CPU slowed {throttle:g}x (Emulation.setCPUThrottlingRate, set before it loads),")
    print("            pages opened from file://, every request that is not file:// aborted")
    print(f"  render    {REPEATS} loads per page, each in a fresh page; ms from navigation start (in-page "
          f"performance.now())")
    print(f"            to the moment the last [data-spec] element not left for later got data-rendered. "
          f"'1st' is the page's first load,")
    print(f"            cold for that page; the run's first load ({results[0]['page'] if results else '-'}) "
          f"is also the browser process's cold start.")
    print(f"  reach     on the last load, each chart left for later scrolled into view in turn; ms from the scroll "
          f"to its data-rendered")
    alternated = ", ".join(f"{label}: {name} {a}/{b}" for label, (name, (a, b)) in INTERACTIONS_BY_LABEL.items())
    print(f"  interact  {INTERACTIONS} changes per interactive figure on the page's last load, alternating two values")
    print(f"            ({alternated});")
    print(f"            ms from just before the input/change dispatch to view.runAsync() done + next animation frame")
    print(f"  bytes     on-disk sizes of every file:// response of one load (HTML + scripts + styles + data + images)")
    after = os.getloadavg()
    print(f"  machine   {os.cpu_count()} cores; load average (1/5/15 min) "
          f"{load_before[0]:.2f} / {load_before[1]:.2f} / {load_before[2]:.2f} before the browser started,")
    print(f"            {after[0]:.2f} / {after[1]:.2f} / {after[2]:.2f} after; whole run {total_s:.0f} s. Other work "
          f"on the machine shows up as single slow runs (max).")
    print(f"  network   {len(blocked)} non-file request(s) blocked" + (" (page: url, times):" if blocked else ""))
    for what, times in Counter(blocked).most_common(20):
        print(f"              {what}  x{times}")
    print("  each load (ms, in order):")
    for row in results:
        print(f"    {row['page']:<20}" + " ".join(f"{ms(x):>5}" for x in row["loads"]))
    notes = [f"{row['page']}: {n}" + (f" (x{times})" if times > 1 else "")
             for row in results for n, times in Counter(row["notes"]).items()]
    notes += [note + (f" (x{times})" if times > 1 else "") for note, times in Counter(errors).items()]
    if notes:
        print("notes:")
        for note in notes:
            print(f"  {note}")
    print()
    print("ALL PASS" if all_pass else "SOME FAIL")
    return all_pass


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     usage="python bench/browser.py [SITE_DIR] [--throttle RATE] [--viewport WxH]")
    parser.add_argument("site", nargs="?", type=Path, help="a folder written by build.py; default: build one now")
    parser.add_argument("--viewport", default="1280x720",
                        help="the window's width and height in px, as WxH (default 1280x720; a phone: 360x800)")
    parser.add_argument("--throttle", type=float, default=4.0,
                        help="slow each page's CPU this many times (default 4, a slow phone; 1: not at all)")
    options = parser.parse_args(argv)
    if options.throttle < 1:
        parser.error(f"--throttle: {options.throttle:g} is below 1; allowed: 1 (not slowed) or more")
    match = re.fullmatch(r"([1-9][0-9]*)x([1-9][0-9]*)", options.viewport)
    if not match:
        parser.error(f"--viewport: {options.viewport!r} is not WIDTHxHEIGHT in px; allowed: e.g. 360x800")
    viewport = {"width": int(match.group(1)), "height": int(match.group(2))}
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-browser-") as tmp:
        built_s = None
        if options.site is not None:
            site = options.site.resolve()
            if not (site / "index.html").is_file():
                print(f"error: {site} has no index.html; give a folder written by build.py", file=sys.stderr)
                return 2
        else:
            site = Path(tmp) / "site"
            print(f"building the site into {site} ...", flush=True)
            built_s = build_site(site)
        load_before = os.getloadavg()
        version, results, blocked, errors = measure(site, options.throttle, viewport)
        return 0 if report(site, version, results, blocked, errors, built_s, time.perf_counter() - start,
                           load_before, options.throttle, viewport) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
