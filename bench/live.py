"""Times a figure's own sentence (`build.py --live`: "Try your own sentence" under the title of each figure page
the model can compute, GPT-2 run in the page by onnxruntime-web) in headless Chromium, and weighs the tab. Run by
hand (a benchmark, not a test):

    python bench/live.py [SITE_DIR] [--repeats N] [--throttle RATE] [--chart KIND]

With no SITE_DIR it first builds the site into a temporary work folder (`build.py --model random --live`: GPT-2
small's shape with random weights, no network; the model the page fetches is as large as the real one's). The site
is served from 127.0.0.1 by a ThreadingHTTPServer in a thread of this process (.mjs as text/javascript, .wasm as
application/wasm), as a reader's server would: the page needs HTTP, not file://. Every request of the page to
another origin is aborted and printed (there must be none). Needs Playwright for Python and Debian's Chromium at
/usr/bin/chromium (Playwright's own browser download is not used). Takes a few minutes.

The pages: live.html is only an index of the figures that take a sentence (its `a[data-own-link]`); each of those
pages holds the form (`<details id="try-own">`: the weights' choice, the Load button, the text box) and one chart
of its own kind (`#live-chart-<kind>`, the page's one `[data-live-chart]`). The bench opens a page at
`figure-<label>.html#try-own`, which makes live.js load the tokenizer and the runtime at once (as a reader's
opening the panel does), and waits for them (`window.liveTokens` and `window.ort`, the Load button enabled)
before it clicks Load. The page of each kind is found from live.html's links and each page's `data-live-chart`.
Two pages are used:
- the load page, the figure (l)'s (attention): where a section times the model's load or a first visit. Its load
  also runs the box's text and draws its one chart, which loadMs does not include.
- the chart page, the lens's by default (--chart KIND: attention, heads, readout or lens): the heaviest chart,
  where a section waits for a text drawn (Enter to charts, the tab's peak memory). Before the figures each took a
  sentence, one page drew all four kinds' charts for a text; now a run draws its page's one chart, the lens here.
A section that uses both opens the chart page in a new tab of the same profile, closes the load page's tab (so that
the tab before, its model started, is not kept in the back/forward cache), and clicks Load there again: from Cache
Storage (printed, not timed against a target).

Each browser runs in a profile of its own on disk (a persistent context in the work folder), so that Cache Storage
is kept on disk as in a reader's browser, not in memory as in an incognito context. The window is 1280 x 720 px.
It measures:

1. first visit: a fresh profile opens the load page (figure-l.html#try-own) and clicks "Load GPT-2"; from the
   click until the runtime's session is created (the page's own `liveFigures.timings.loadMs`: every model file
   fetched from 127.0.0.1, counted, put into Cache Storage, then the session created). Once (a first visit happens
   once a profile). No target: the time is the local disk's and server's, not a reader's network's.
2. from cache: the same page reloaded in the same profile (the tokenizer and the runtime loaded again, the address
   still #try-own) and "Load GPT-2" clicked again; the same loadMs, now reading every file from Cache Storage (the
   page's `liveFigures.loadedFrom` must be "cache" and the server must be asked no model file). REPEATS reloads,
   CPU not slowed. Target: median under 5 s.
3. Enter to charts, on the chart page (figure-lens.html#try-own by default), opened in the same profile and its
   model loaded from Cache Storage: a text of 20 tokens (counted by the page's own `liveTokens.encode`; three
   texts, none of the chapter's, taken in turn so that each run is a new text) typed in the box and Enter pressed;
   from the keydown (in the page, `performance.now()` in a capturing listener that runs before the page's own)
   until the page's state is "drawn" with that text and every live chart of the page (its one
   `[data-live-chart]`: the lens's) carries data-rendered="true", at the next animation frame. Split, as live.js
   records it in `liveFigures.timings.last`, into the model's run (`modelMs`: from its Enter handler to
   `session.run` resolved) and the drawing (`drawMs`: the page's chart's vegaEmbed resolved). REPEATS runs with
   the CPU not slowed (target: median under 1.5 s) and REPEATS with the page's CPU slowed RATE times
   (Emulation.setCPUThrottlingRate; default 4, a slow phone; no target of its own). Not cross-origin isolated, the
   runtime runs on one thread, the page's main thread.
4. peak memory, on the chart page (the lens's by default: the heaviest chart drawn for the page's longest text): a
   fresh browser and profile opens it with a 64-token text (the page's most) in the box and clicks "Load GPT-2":
   the model is fetched, kept, started, and reads that text (the load runs the box's text) and the chart is drawn.
   Then that browser is closed and started again on the same profile (a return visit: fresh processes, the model
   in Cache Storage on disk), and the same is done from Cache Storage. For each phase:
   - the tab's renderer process's resident memory (Linux VmRSS of the Chromium process with --type=renderer that
     grew most, sampled every 0.1 s from /proc by a thread of this process, and its VmHWM, the kernel's exact
     high-water mark over the process's life, which here is the phase's). This is the measure that counts: the
     model's weights live in the runtime's WebAssembly memory, which the JS heap does not include. RSS counts
     shared pages (Chromium's own code) in full.
   - the sum of the RSS of all the browser's processes at the sampled peak (browser, renderers, GPU, utility:
     Cache Storage is written by the browser's storage service, outside the tab).
   - the JS heap (the DevTools protocol's Performance.getMetrics, JSHeapUsedSize and JSHeapTotalSize), polled
     from this process; the page's main thread answers it only between its tasks, so a peak inside one long task
     (the session's creation) can be missed.
5. cross-origin isolated: the site served again with Cross-Origin-Opener-Policy: same-origin and
   Cross-Origin-Embedder-Policy: require-corp (as `build.py --serve` does), a fresh profile; the page then sets
   the runtime's `ort.env.wasm.numThreads` to min(4, navigator.hardwareConcurrency) (printed), and its
   first-visit load (on the load page) and the Enter-to-charts runs of 3 (CPU not slowed, on the chart page) are
   taken the same way.

6. a phone: a fresh profile with a window of 360 x 800 px, where the page chooses the light weights at first
   (figsite/capture/live_light.py: 4-bit blocks, about a sixth of the bytes); on the load page "Load" clicked once
   (not slowed), then REPEATS reloads with the page's CPU slowed RATE times, each loading the light weights from
   Cache Storage (target: median under 3 s); then, on the chart page (loaded from Cache Storage, not slowed),
   REPEATS 20-token texts, Enter to charts, slowed the same (target: median under 2 s). The highest VmHWM of the
   browser's renderers is printed beside the issue's 1 GiB (no limit is imposed: Chromium has no setting that caps
   a tab's WebAssembly memory).

A figure PASSes when its median is within its target. Each run's figure is printed too; on a shared machine a
single slow run is often other work (the load average before and after is printed). Exit status: 0 when all that
have targets pass and nothing was refused, 1 otherwise, 2 on bad input.

bench/before_after.py drives this module's Server and Profile: `Profile.open()` with no address opens the chart
page of the default kind (the lens's), where its Enter-to-charts runs.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

REPEATS = 3
CACHE_LOAD_TARGET_MS = 5000.0
ENTER_TARGET_MS = 1500.0
TIMEOUT_MS = 180_000  # one load or one run; a throttled one on a busy machine is slow
VIEWPORT = {"width": 1280, "height": 720}
PHONE = {"width": 360, "height": 800}  # a phone's screen: the page chooses the light weights at first there
PHONE_LOAD_MS = 3000  # issue 47: the light weights ready from Cache Storage, CPU slowed 4x, under 3 s...
PHONE_ENTER_MS = 2000  # ...and a 20-token text drawn under 2 s

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]

# Three texts of 20 tokens, taken in turn (each run a new text); one of 64, the page's most. None is the chapter's.
TEXTS_20 = [
    "The old lighthouse keeper counted the ships each night, and wrote their names in a small blue notebook.",
    "After the storm, the children gathered shells along the beach while their grandmother watched from the dunes.",
    "My neighbour bakes bread every Sunday, and the whole street smells of warm crust and rosemary.",
]
TEXT_64 = (
    "When the train finally reached the mountain village, snow had already covered the roofs, the fields and "
    "the narrow roads that wound between the houses. The station master waved a lantern, and a dog barked "
    "somewhere behind the old stone church while the tired passengers stepped down into the cold evening air "
    "of the long dark winter night."
)
MODEL_PATH = "/live/model/"

# The kinds of figure that take a reader's sentence, each on a page of its own (figure-<label>.html) with one chart.
KINDS = ("attention", "heads", "readout", "lens", "find-head", "knockout")  # compare reads two texts: not timed here
LOAD_KIND = "attention"  # the figure (l): the page whose load and first visit are timed
CHART_KIND = "lens"  # the heaviest chart: the page whose drawing is waited for (Enter to charts, memory); --chart
OWN = "#try-own"  # the address that opens "Try your own sentence": live.js loads the tokenizer and runtime at once

# Before Enter: resolves at the first animation frame at which the page has drawn `text` in every live chart (or
# refused it, or failed), with ms from the Enter keydown, and what live.js recorded of that run.
ARM_ENTER = """([text, timeoutMs]) => {
  window.__benchEnter = new Promise((resolve) => {
    let t0 = null;
    const started = performance.now();
    const onKey = (e) => { if (e.key === 'Enter' && t0 === null) t0 = performance.now(); };
    window.addEventListener('keydown', onKey, true);
    const charts = () => document.querySelectorAll('[data-live-chart]').length;
    const drawn = () => document.querySelectorAll('[data-live-chart][data-rendered="true"]').length;
    const check = () => {
      const live = window.liveFigures;
      const over = live.state === 'error' || live.state === 'refused' ||
        (t0 !== null && live.state === 'drawn' && live.result && live.result.text === text && drawn() === charts());
      if (over || performance.now() - started > timeoutMs) {
        window.removeEventListener('keydown', onKey, true);
        resolve({ms: t0 === null ? null : performance.now() - t0, state: live.state, timedOut: !over,
                 last: live.timings.last || null, message: document.getElementById('live-message').textContent});
      } else requestAnimationFrame(check);
    };
    requestAnimationFrame(check);
  });
}"""

# The page ready for "Load": the tokenizer and the runtime loaded by live.js (on #try-own), the form started (state
# idle, the button enabled again); or the loading of those failed.
READY = """() => { const live = window.liveFigures;
  if (!live) return false;
  if (live.state === 'error') return true;
  const button = document.getElementById('live-load-button');
  return live.state === 'idle' && Boolean(window.liveTokens && window.ort) && Boolean(button) && !button.disabled; }"""
LOADED = "() => window.liveFigures.timings.loadMs !== undefined || window.liveFigures.state === 'error'"
DRAWN = """(text) => { const live = window.liveFigures;
  return live.state === 'error' || live.state === 'refused' || (live.state === 'drawn' && live.result &&
    live.result.text === text && document.querySelectorAll('[data-live-chart][data-rendered="true"]').length ===
    document.querySelectorAll('[data-live-chart]').length); }"""
LOAD_FACTS = """() => ({loadMs: window.liveFigures.timings.loadMs, from: window.liveFigures.loadedFrom,
  downloaded: window.liveFigures.downloadedBytes, state: window.liveFigures.state,
  message: document.getElementById('live-message').textContent,
  threads: window.ort ? ort.env.wasm.numThreads : null, isolated: window.crossOriginIsolated})"""


# ---------------------------------------------------------------------------------------------- the site and server


def build_site(out: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "build.py", "--model", "random", "--out", str(out), "--live"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        sys.exit(f"build.py failed (exit {done.returncode}):\n{done.stdout}{done.stderr}")
    return time.perf_counter() - start


def own_pages(site: Path) -> dict[str, str]:
    """kind -> the file of the figure page that takes a sentence with that kind's chart: the pages linked from
    live.html (`a[data-own-link]`), each page's kind read from its `data-live-chart`. Empty without live.html."""
    index = site / "live.html"
    if not index.is_file():
        return {}
    pages: dict[str, str] = {}
    for tag in re.findall(r"<a\b[^>]*>", index.read_text(encoding="utf-8")):
        href = re.search(r'\bhref="([^"#]+)', tag)
        if "data-own-link" not in tag or not href or not (site / href.group(1)).is_file():
            continue
        for kind in re.findall(r'data-live-chart="([\w-]+)"', (site / href.group(1)).read_text(encoding="utf-8")):
            pages.setdefault(kind, href.group(1))
    return pages


class Server:
    """The site on 127.0.0.1 (any free port) from a thread; `asked`: every path asked, in order; `pages`: kind ->
    the figure page that takes a sentence with that kind's chart (own_pages)."""

    def __init__(self, site: Path, isolated: bool):
        self.site = site
        self.pages = own_pages(site)
        self.asked: list[str] = []
        asked = self.asked

        class Handler(http.server.SimpleHTTPRequestHandler):
            extensions_map = {
                **http.server.SimpleHTTPRequestHandler.extensions_map,
                ".js": "text/javascript",
                ".mjs": "text/javascript",
                ".wasm": "application/wasm",
            }

            def do_GET(self):
                asked.append(self.path)
                super().do_GET()

            def end_headers(self):
                if isolated:
                    self.send_header("Cross-Origin-Opener-Policy", "same-origin")
                    self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
                super().end_headers()

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(site)))
        self.base = f"http://127.0.0.1:{self.httpd.server_port}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def page(self, kind: str) -> str:
        """The address of the figure page of this kind with "Try your own sentence" open (#try-own)."""
        if kind not in self.pages:
            raise RuntimeError(
                f"{self.site} has no figure page with a {kind} chart linked from live.html "
                f"(it has: {', '.join(f'{k} {f}' for k, f in self.pages.items()) or 'none'})"
            )
        return self.base + self.pages[kind] + OWN

    def model_files_asked(self, since: int = 0) -> int:
        return sum(1 for p in self.asked[since:] if p.startswith(MODEL_PATH))

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


# ---------------------------------------------------------------------------------------------- processes


def _children() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    return children


def chromium_processes() -> dict[int, str]:
    """pid -> kind ('browser', 'renderer', 'gpu-process', 'utility', ...) of every Chromium process under this one."""
    children, found, todo = _children(), {}, [os.getpid()]
    while todo:
        for pid in children.get(todo.pop(), []):
            todo.append(pid)
            try:  # Chromium rewrites its argv: one string with spaces, or NUL-separated
                command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if "chromium" not in command.split(" ", 1)[0]:
                continue
            kind = re.search(r"(?:^| )--type=(\S+)", command)
            found[pid] = kind.group(1) if kind else "browser"
    return found


def status_kb(pid: int, field: str) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


class MemoryWatch(threading.Thread):
    """Samples the VmRSS of every Chromium process under this one every `every` s: each one's first and highest
    sample, and the highest sum of all of them."""

    def __init__(self, every: float = 0.1):
        super().__init__(daemon=True)
        self.every = every
        self.halt = threading.Event()
        self.kinds: dict[int, str] = {}
        self.first: dict[int, int] = {}
        self.peak: dict[int, int] = {}
        self.peak_total = 0
        self.samples = 0

    def sample(self):
        total = 0
        for pid, kind in chromium_processes().items():
            rss = status_kb(pid, "VmRSS")
            if rss is None:
                continue
            self.kinds[pid] = kind
            self.first.setdefault(pid, rss)
            self.peak[pid] = max(self.peak.get(pid, 0), rss)
            total += rss
        self.peak_total = max(self.peak_total, total)
        self.samples += 1

    def run(self):
        while not self.halt.is_set():
            self.sample()
            self.halt.wait(self.every)

    def stop(self):
        self.halt.set()
        self.join()
        self.sample()

    def tab(self) -> int | None:
        """The renderer that grew most: the tab's."""
        renderers = [pid for pid, kind in self.kinds.items() if kind == "renderer"]
        return max(renderers, key=lambda pid: self.peak[pid] - self.first[pid]) if renderers else None


# ---------------------------------------------------------------------------------------------- the browser


class Profile:
    """One browser with a profile of its own on disk and one page (tab), every request off the server's origin aborted
    and recorded, with the page's console errors and warnings, page errors and failed requests."""

    def __init__(
        self, pw, folder: Path, server: Server, label: str, notes: list[str], refused: list[str], viewport=VIEWPORT
    ):
        self.server, self.label, self.notes, self.refused = server, label, notes, refused
        self.context = pw.chromium.launch_persistent_context(
            str(folder), executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True, viewport=viewport
        )
        self.aborted: set[str] = set()
        # Matched by Playwright's driver: the page's own requests never wait on this Python process.
        self.context.route(re.compile("^(?!" + re.escape(server.base) + ")"), self.abort)
        self.page = self.context.pages[0] if self.context.pages else self.context.new_page()
        self.watch(self.page)
        self.cdp = self.context.new_cdp_session(self.page)

    def watch(self, page):
        label = self.label
        page.on(
            "console",
            lambda m: (
                m.type in ("error", "warning") and self.notes.append(f"{label}: console {m.type}: {m.text[:300]}")
            ),
        )
        page.on("pageerror", lambda e: self.notes.append(f"{label}: page error: {str(e)[:300]}"))
        page.on(
            "requestfailed",
            lambda r: (
                r.url not in self.aborted and self.notes.append(f"{label}: request failed: {r.url} ({r.failure})")
            ),
        )
        page.on("response", lambda r: r.status >= 400 and self.notes.append(f"{label}: HTTP {r.status} for {r.url}"))

    def abort(self, route):
        url = route.request.url
        self.aborted.add(url)
        self.refused.append(f"{self.label}: {url}")
        route.abort()

    def version(self) -> str:
        try:
            return self.cdp.send("Browser.getVersion")["product"]
        except Exception:  # noqa: BLE001 - only for the report
            return "Chromium"

    def open(self, address: str | None = None):
        """Opens `address` (default: the lens's page, CHART_KIND's, at #try-own) and waits until Load can be clicked:
        the tokenizer and the runtime loaded by live.js."""
        self.page.goto(address or self.server.page(CHART_KIND), wait_until="load", timeout=TIMEOUT_MS)
        self.ready()

    def ready(self):
        self.page.wait_for_function(READY, timeout=TIMEOUT_MS)
        if self.page.evaluate("window.liveFigures.state") == "error":
            message = self.page.evaluate("document.getElementById('live-message').textContent")
            raise RuntimeError(f"{self.label}: {self.page.url} did not get ready: {message}")

    def reload(self):
        """The same page again (its address still #try-own: live.js loads the tokenizer and the runtime at once)."""
        self.page.reload(wait_until="load", timeout=TIMEOUT_MS)
        self.ready()

    def switch(self, address: str):
        """Opens `address` in a new tab of the same browser and profile and closes the tab before, so that its page
        (the model started in it) is not kept in the back/forward cache; the new tab's CPU is not slowed."""
        before = self.page
        self.page = self.context.new_page()
        self.watch(self.page)
        self.cdp = self.context.new_cdp_session(self.page)
        before.close()
        self.open(address)

    def throttle(self, rate: float):
        self.cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})

    def load(self) -> dict:
        """Clicks "Load GPT-2" and waits for the session (then for the box's text to be drawn)."""
        text = self.page.input_value("#live-text")
        self.page.click("#live-load-button")
        self.page.wait_for_function(LOADED, timeout=TIMEOUT_MS)
        facts = self.page.evaluate(LOAD_FACTS)
        if facts["state"] == "error":
            raise RuntimeError(f"{self.label}: the model did not load: {facts['message']}")
        self.page.wait_for_function(DRAWN, arg=text, timeout=TIMEOUT_MS)
        return facts

    def enter(self, text: str) -> dict:
        """Types `text`, presses Enter: ms from the keydown to every chart drawn, and live.js's split."""
        self.page.fill("#live-text", text)
        self.page.evaluate(ARM_ENTER, [text, TIMEOUT_MS])
        self.page.press("#live-text", "Enter")
        got = self.page.evaluate("window.__benchEnter")
        if got["state"] != "drawn" or got["timedOut"]:
            raise RuntimeError(
                f"{self.label}: {text!r} was not drawn (state {got['state']}"
                f"{', timed out' if got['timedOut'] else ''}): {got['message']}"
            )
        return got

    def close(self):
        self.context.close()


def token_counts(profile: Profile) -> dict[str, int]:
    return {t: len(profile.page.evaluate("t => window.liveTokens.encode(t)", t)) for t in TEXTS_20 + [TEXT_64]}


def enter_runs(profile: Profile, repeats: int, offset: int = 0) -> list[dict]:
    return [profile.enter(TEXTS_20[(offset + i) % len(TEXTS_20)]) for i in range(repeats)]


def heap_peaks_while_loading(profile: Profile, text: str) -> dict:
    """Clicks "Load GPT-2" with `text` in the box and polls the JS heap until it is drawn; the peaks in bytes."""
    page, cdp = profile.page, profile.cdp
    cdp.send("Performance.enable")
    peaks = {"JSHeapUsedSize": 0.0, "JSHeapTotalSize": 0.0}
    polls = 0

    def poll():
        nonlocal polls
        metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        for name in peaks:
            peaks[name] = max(peaks[name], metrics.get(name, 0.0))
        polls += 1

    poll()
    page.fill("#live-text", text)
    page.click("#live-load-button")
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while not page.evaluate(DRAWN, text):
        if time.monotonic() > deadline:
            raise RuntimeError(f"{profile.label}: the 64-token text was not drawn within {TIMEOUT_MS / 1000:.0f} s")
        poll()
        page.wait_for_timeout(100)
    poll()
    facts = page.evaluate(LOAD_FACTS)
    if facts["state"] != "drawn":
        raise RuntimeError(f"{profile.label}: {facts['message']}")
    cdp.send("Performance.disable")
    return {
        "heap_used": peaks["JSHeapUsedSize"],
        "heap_total": peaks["JSHeapTotalSize"],
        "polls": polls,
        "from": facts["from"],
        "loadMs": facts["loadMs"],
    }


def memory_phase(profile: Profile, text: str) -> dict:
    watch = MemoryWatch()
    watch.sample()  # the baseline: the page open, idle
    watch.start()
    try:
        heap = heap_peaks_while_loading(profile, text)
    finally:
        watch.stop()
    tab = watch.tab()
    return {
        **heap,
        "tab": tab,
        "first": watch.first.get(tab),
        "peak": watch.peak.get(tab),
        "hwm": status_kb(tab, "VmHWM") if tab else None,
        "total": watch.peak_total,
        "renderers": sum(1 for k in watch.kinds.values() if k == "renderer"),
        "processes": len(watch.kinds),
        "samples": watch.samples,
    }


# ---------------------------------------------------------------------------------------------- the run


def measure(site: Path, work: Path, repeats: int, throttle: float, chart: str = CHART_KIND) -> dict:
    from playwright.sync_api import sync_playwright

    out: dict = {"notes": [], "refused": []}
    notes, refused = out["notes"], out["refused"]
    plain = Server(site, isolated=False)
    isolated = Server(site, isolated=True)
    try:
        load_page, chart_page = plain.page(LOAD_KIND), plain.page(chart)
        load_iso, chart_iso = isolated.page(LOAD_KIND), isolated.page(chart)
        out["pages"] = {"load": plain.pages[LOAD_KIND], "chart": plain.pages[chart], "kind": chart}
        with sync_playwright() as pw:
            # 1-3: one profile, not cross-origin isolated: the load page, then the chart page.
            print(
                f"first visit and loads from Cache Storage on {plain.pages[LOAD_KIND]}, Enter to charts on "
                f"{plain.pages[chart]} ...",
                flush=True,
            )
            profile = Profile(pw, work / "profile-plain", plain, "plain", notes, refused)
            try:
                out["version"] = profile.version()
                profile.open(load_page)
                counts = token_counts(profile)
                wrong = {t: n for t, n in counts.items() if n != (64 if t == TEXT_64 else 20)}
                if wrong:
                    raise RuntimeError(
                        "the page counts these texts otherwise than this benchmark: "
                        + "; ".join(f"{n} tokens: {t!r}" for t, n in wrong.items())
                    )
                out["default_text"] = profile.page.input_value("#live-text")
                before = len(plain.asked)
                out["first"] = profile.load()
                out["first_files"] = plain.model_files_asked(before)
                out["model"] = profile.page.evaluate(
                    "() => { const m = JSON.parse(document.getElementById('live-config').textContent).model;"
                    " return {bytes: m.bytes, files: m.files.length, n_layer: m.n_layer, n_head: m.n_head,"
                    " max_tokens: m.max_tokens}; }"
                )
                out["cache"], out["cache_files"] = [], 0
                for _ in range(repeats):
                    before = len(plain.asked)
                    profile.reload()
                    out["cache"].append(profile.load())
                    out["cache_files"] += plain.model_files_asked(before)
                before = len(plain.asked)
                profile.switch(chart_page)
                out["chart_load"] = profile.load()
                out["cache_files"] += plain.model_files_asked(before)
                out["enter"] = enter_runs(profile, repeats)
                profile.throttle(throttle)
                try:
                    out["enter_slow"] = enter_runs(profile, repeats, offset=repeats)
                finally:
                    profile.throttle(1)
            finally:
                profile.close()

            # 4: a fresh browser and profile, the tab's memory, on the chart page.
            print(
                f"peak memory on {plain.pages[chart]}: first visit and from Cache Storage, with a 64-token text ...",
                flush=True,
            )
            profile = Profile(pw, work / "profile-memory", plain, "memory", notes, refused)
            try:
                profile.open(chart_page)
                out["memory_first"] = memory_phase(profile, TEXT_64)
            finally:
                profile.close()
            profile = Profile(pw, work / "profile-memory", plain, "memory, again", notes, refused)
            try:
                before = len(plain.asked)
                profile.open(chart_page)
                out["memory_cache"] = memory_phase(profile, TEXT_64)
                if plain.model_files_asked(before):
                    notes.append("memory: the return visit asked the server for model files")
            finally:
                profile.close()

            # 6: a phone: the light weights, chosen at first on a narrow screen; from Cache Storage, the CPU slowed.
            print(f"a phone: the light weights, from Cache Storage, CPU {throttle:g}x ...", flush=True)
            profile = Profile(pw, work / "profile-phone", plain, "phone", notes, refused, viewport=PHONE)
            try:
                profile.open(load_page)
                out["phone_weights"] = profile.page.evaluate("window.liveFigures.weights")
                out["phone_light"] = profile.page.evaluate(
                    "() => { const l = JSON.parse(document.getElementById('live-config').textContent).light;"
                    " return {bytes: l.bytes, files: l.files.length, error: l.error}; }"
                )
                out["phone_first"] = profile.load()
                out["phone_cache"] = []
                profile.throttle(throttle)
                try:
                    for _ in range(repeats):
                        profile.reload()
                        out["phone_cache"].append(profile.load())
                finally:
                    profile.throttle(1)
                profile.switch(chart_page)
                out["phone_chart_weights"] = profile.page.evaluate("window.liveFigures.weights")
                out["phone_chart_load"] = profile.load()
                profile.throttle(throttle)
                try:
                    out["phone_enter"] = enter_runs(profile, repeats)
                finally:
                    profile.throttle(1)
                out["phone_hwm"] = max(
                    (status_kb(pid, "VmHWM") or 0) for pid, kind in chromium_processes().items() if kind == "renderer"
                )
            finally:
                profile.close()

            # 5: cross-origin isolated, threads.
            print("cross-origin isolated: first visit, Enter to charts ...", flush=True)
            profile = Profile(pw, work / "profile-isolated", isolated, "isolated", notes, refused)
            try:
                profile.open(load_iso)
                out["iso_first"] = profile.load()
                profile.switch(chart_iso)
                out["iso_chart_load"] = profile.load()
                out["iso_enter"] = enter_runs(profile, repeats)
            finally:
                profile.close()
    finally:
        plain.close()
        isolated.close()
    return out


# ---------------------------------------------------------------------------------------------- the report


def med(values: list[float]) -> float:
    return statistics.median(values)


def runs_text(values: list[float]) -> str:
    return " ".join(f"{v:.0f}" for v in values)


def mib(kb: float | None) -> str:
    return "-" if kb is None else f"{kb / 1024:,.0f} MiB"


def report(
    site: Path, out: dict, built_s: float | None, total_s: float, load_before, throttle: float, repeats: int
) -> bool:
    model = out["model"]
    kind, load_file, chart_file = out["pages"]["kind"], out["pages"]["load"], out["pages"]["chart"]
    rows = []  # (what, median ms, target ms or None, runs)
    first = out["first"]
    rows.append(("first visit: click to ready (127.0.0.1 -> Cache Storage)", first["loadMs"], None, [first["loadMs"]]))
    cache = [c["loadMs"] for c in out["cache"]]
    rows.append(("from Cache Storage: click to ready (reload)", med(cache), CACHE_LOAD_TARGET_MS, cache))
    splits = {}
    for key, what in [
        ("enter", f"Enter to {kind} chart, 20 tokens"),
        ("enter_slow", f"Enter to {kind} chart, 20 tokens, CPU {throttle:g}x"),
        ("iso_enter", f"Enter to {kind} chart, 20 tokens, isolated, {out['iso_first']['threads']} threads"),
    ]:
        totals = [r["ms"] for r in out[key]]
        rows.append((what, med(totals), ENTER_TARGET_MS if key == "enter" else None, totals))
        splits[what] = (
            med([r["last"]["modelMs"] for r in out[key]]),
            med([r["last"]["drawMs"] for r in out[key]]),
            runs_text([r["last"]["modelMs"] for r in out[key]]),
            runs_text([r["last"]["drawMs"] for r in out[key]]),
        )
    rows.append(
        ("isolated first visit: click to ready", out["iso_first"]["loadMs"], None, [out["iso_first"]["loadMs"]])
    )
    phone_cache = [c["loadMs"] for c in out["phone_cache"]]
    rows.append(
        (f"phone, light weights: from Cache Storage, CPU {throttle:g}x", med(phone_cache), PHONE_LOAD_MS, phone_cache)
    )
    phone_enter = [r["ms"] for r in out["phone_enter"]]
    rows.append(
        (
            f"phone, light weights: Enter to {kind} chart, 20 tokens, CPU {throttle:g}x",
            med(phone_enter),
            PHONE_ENTER_MS,
            phone_enter,
        )
    )

    header = f"{'what':<58}{'median ms':>10}{'target':>9}   {'result':<7}  runs (ms, in order)"
    print()
    print(header)
    print("-" * len(header))
    all_pass = True
    for what, value, target, runs in rows:
        verdict = "-" if target is None else "PASS" if value <= target else "FAIL"
        all_pass = all_pass and verdict != "FAIL"
        print(
            f"{what:<58}{value:>10.0f}{'-' if target is None else f'< {target:.0f}':>9}   {verdict:<7}  "
            f"{runs_text(runs)}"
        )
        if what in splits:
            m, d, mr, dr = splits[what]
            print(
                f"{'  of which the model run / the drawing':<58}{m:>6.0f} /{d:>5.0f}{'':>9}   {'':<7}  "
                f"model {mr}; drawing {dr}"
            )
    print()
    print(
        f"peak memory of the tab on {chart_file} (load GPT-2 with a 64-token text in the box: fetch or read, start, "
        f"read the text, draw its {kind} chart):"
    )
    print(
        f"  {'phase':<30}{'renderer RSS':>13}{'(VmHWM)':>11}{'before':>11}{'all processes':>15}"
        f"{'JS heap used':>14}{'JS heap total':>15}"
    )
    for key, phase in [("memory_first", "first visit (network)"), ("memory_cache", "return visit, Cache Storage")]:
        m = out[key]
        print(
            f"  {phase:<30}{mib(m['peak']):>13}{mib(m['hwm']):>11}{mib(m['first']):>11}{mib(m['total']):>15}"
            f"{mib(m['heap_used'] / 1024):>14}{mib(m['heap_total'] / 1024):>15}"
        )
    m = out["memory_first"]
    c = out["memory_cache"]
    print(
        "  the measure: 'renderer RSS' is the highest VmRSS, sampled every 0.1 s, of the tab's renderer (the "
        "--type=renderer process that grew most:"
    )
    print(
        f"  pid {m['tab']} of {m['renderers']} renderers, then pid {c['tab']} of {c['renderers']}, in a browser "
        f"started again on the same profile); '(VmHWM)' the kernel's exact"
    )
    print(
        "  high-water mark of that process; 'before' its RSS with the page open and idle; 'all processes' the "
        "highest sampled sum over every"
    )
    print(
        f"  Chromium process (shared pages counted in each); the JS heap from Performance.getMetrics ({m['polls']} "
        f"and {c['polls']} polls; it leaves out"
    )
    print("  the WebAssembly memory that holds the weights).")
    print()
    print(
        f"targets: the model started from Cache Storage in under {CACHE_LOAD_TARGET_MS / 1000:.0f} s, and a "
        f"20-token text drawn in the {kind} chart within {ENTER_TARGET_MS / 1000:.1f} s of Enter,"
    )
    print(
        f"both with the CPU not slowed; PASS: the median of {repeats} runs is within. The {throttle:g}x, isolated "
        f"and first-visit figures have no target."
    )
    print()
    print("how the figures were taken:")
    print(
        f"  site      {site}"
        + (f" (built here by build.py --model random --live in {built_s:.1f} s)" if built_s else "")
    )
    print(
        f"  model     {model['bytes'] / 1e6:,.1f} MB in {model['files']} files, {model['n_layer']} layers x "
        f"{model['n_head']} heads, at most {model['max_tokens']} tokens"
    )
    print(
        f"  pages     {load_file}{OWN} (the figure (l), {LOAD_KIND}) for the loads and first visits; {chart_file}{OWN} "
        f"({kind}, its one chart) for"
    )
    print(
        "            Enter to charts and the tab's memory; live.js loads the tokenizer and the runtime at once on "
        "#try-own, awaited before each Load"
    )
    print(
        f"  browser   headless {out['version']} ({CHROMIUM}), window {VIEWPORT['width']} x {VIEWPORT['height']} "
        f"px; three profiles on disk, four browser launches"
    )
    print(
        "  served    from 127.0.0.1 by a ThreadingHTTPServer in this process; the isolated one adds COOP "
        "same-origin + COEP require-corp"
    )
    print(
        f"  first     loaded from {first['from']}, {first['downloaded'] / 1e6:,.1f} MB fetched, {out['first_files']} "
        f"model file requests; runtime threads {first['threads']} (crossOriginIsolated {first['isolated']})"
    )
    froms = Counter(load["from"] for load in out["cache"])
    print(
        f"  cache     {repeats} reloads in the same profile, loaded from "
        + ", ".join(f"{k} x{v}" for k, v in froms.items())
        + f"; then {chart_file} in a new tab, loaded from {out['chart_load']['from']} in "
        f"{out['chart_load']['loadMs']:.0f} ms;"
    )
    print(f"            {out['cache_files']} model file requests to the server (must be 0)")
    print(
        "  enter     texts of 20 tokens by the page's own count, taken in turn: "
        + " | ".join(repr(t) for t in TEXTS_20)
    )
    print(
        f"            ms from the Enter keydown to the first animation frame with the page's live chart ({kind}) "
        "drawn (in-page performance.now());"
    )
    print(
        f"            model / drawing: live.js's timings.last.modelMs / drawMs. CPU slowed with "
        f"Emulation.setCPUThrottlingRate {throttle:g}."
    )
    light = out["phone_light"]
    print(
        f"  phone     window {PHONE['width']} x {PHONE['height']} px; the page chose the {out['phone_weights']} "
        f"weights at first ({light['bytes'] / 1e6:,.1f} MB in {light['files']} files, stated within "
        f"{light['error']} points of the exact);"
    )
    print(
        f"            the first load on {load_file} not slowed ({out['phone_first']['loadMs']:.0f} ms), then "
        f"{repeats} reloads with the CPU slowed {throttle:g}x; then {chart_file} ({out['phone_chart_weights']} "
        f"weights,"
    )
    print(
        f"            loaded from {out['phone_chart_load']['from']} not slowed in "
        f"{out['phone_chart_load']['loadMs']:.0f} ms) and {repeats} texts slowed the same; the renderers' "
        f"high-water mark {mib(out['phone_hwm'])}"
    )
    print(
        "            (no memory limit is imposed: Chromium has none to set for a tab's WebAssembly; the mark is "
        "printed against the issue's 1 GiB)"
    )
    iso = out["iso_first"]
    print(
        f"  isolated  crossOriginIsolated {iso['isolated']}, ort.env.wasm.numThreads {iso['threads']} "
        f"(navigator.hardwareConcurrency capped at 4); {load_file} loaded from {iso['from']}, then {chart_file} "
        f"from {out['iso_chart_load']['from']}"
    )
    print(f"  64 tokens {TEXT_64!r}")
    after = os.getloadavg()
    print(
        f"  machine   {os.cpu_count()} cores; load average (1/5/15 min) "
        f"{load_before[0]:.2f} / {load_before[1]:.2f} / {load_before[2]:.2f} before the browsers started,"
    )
    print(
        f"            {after[0]:.2f} / {after[1]:.2f} / {after[2]:.2f} after; whole run {total_s:.0f} s. Other work "
        f"on the machine shows up as single slow runs."
    )
    refused = out["refused"]
    print(f"  network   {len(refused)} request(s) to another origin, aborted" + (":" if refused else " (must be 0)"))
    for what, times in Counter(refused).most_common(20):
        print(f"              {what}  x{times}")
    notes = [n + (f" (x{times})" if times > 1 else "") for n, times in Counter(out["notes"]).items()]
    if notes:
        print("notes (the pages' console errors and warnings, page errors, failed requests):")
        for note in notes:
            print(f"  {note}")
    else:
        print("notes     none: no console error or warning, no page error, no failed request")
    ok = (
        all_pass
        and not refused
        and out["cache_files"] == 0
        and all(c["from"] == "cache" for c in out["cache"] + [out["chart_load"]])
    )
    print()
    print("ALL PASS" if ok else "SOME FAIL")
    return ok


def main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        usage="python bench/live.py [SITE_DIR] [--repeats N] [--throttle RATE] [--chart KIND]",
    )
    parser.add_argument(
        "site", nargs="?", type=Path, help="a folder written by build.py --live; default: build one now"
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=REPEATS,
        help=f"runs per timed figure, of which the median is taken (default {REPEATS})",
    )
    parser.add_argument(
        "--throttle",
        type=float,
        default=4.0,
        help="slow the page's CPU this many times for the slow Enter runs (default 4)",
    )
    parser.add_argument(
        "--chart",
        choices=KINDS,
        default=CHART_KIND,
        help=f"the kind of figure whose page (its one chart) Enter to charts and the peak memory are taken on "
        f"(default {CHART_KIND}, the heaviest chart of one run); the loads and first visits are taken on {LOAD_KIND}'s "
        "page, the figure (l); knockout runs the model once more for each part it takes out (37 runs for GPT-2 small "
        "with a layer's heads): time it with --throttle 1",
    )
    options = parser.parse_args(argv)
    if options.repeats < 1:
        parser.error(f"--repeats: {options.repeats} is below 1")
    if options.throttle < 1:
        parser.error(f"--throttle: {options.throttle:g} is below 1; allowed: 1 (not slowed) or more")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-live-") as tmp:
        work = Path(tmp)
        built_s = None
        if options.site is not None:
            site = options.site.resolve()
            if not (site / "live.html").is_file():
                print(f"error: {site} has no live.html; give a folder written by build.py --live", file=sys.stderr)
                return 2
            pages = own_pages(site)
            missing = [kind for kind in (LOAD_KIND, options.chart) if kind not in pages]
            if missing:
                print(
                    f"error: {site}'s live.html links no figure page with a {' or '.join(missing)} chart "
                    f"(it links: {', '.join(f'{k} {f}' for k, f in pages.items()) or 'none'})",
                    file=sys.stderr,
                )
                return 2
        else:
            site = work / "site"
            print(f"building the site with --live into {site} ...", flush=True)
            built_s = build_site(site)
        load_before = os.getloadavg()
        try:
            out = measure(site, work, options.repeats, options.throttle, options.chart)
        except RuntimeError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        return (
            0
            if report(site, out, built_s, time.perf_counter() - start, load_before, options.throttle, options.repeats)
            else 1
        )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
