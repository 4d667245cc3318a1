"""Benchmark of the build, run by hand (not by CI). Models of GPT-2's shapes with seeded random weights, loaded
from save_pretrained directories as a user's model lies on disk; no network:

    python bench/build.py [--work DIR] [--chapter-only] [--xl [DIR]]

--work DIR keeps the sites and caches it writes in DIR (a new or empty folder); by default they go into a
temporary folder that is removed at the end. --chapter-only stops after part 1 (a minute). --xl adds the
1,024-token text on a model of gpt2-xl's shape (part 3 xl), saved once into DIR (default
~/.cache/gpt2-figures/bench/gpt2-xl-shape-seed-0) and kept there for later runs: the first run takes some
minutes more and 6 GiB of disk, and its floor needs about 14 GiB of memory. Without --xl: two to four minutes.

What it measures, each in a fresh process started with this Python (`sys.executable -c SCRIPT`), in this order:

0. warm-up (untimed in the results): one process imports torch, transformers, altair, jinja2 and vl_convert,
   so that every timed process below finds those files in the OS page cache alike. GPT-2 small's shape with
   seed 0's weights is saved with save_pretrained into the work folder (untimed).
1. floor: what any build must pay. A fresh process imports torch and transformers, loads the model and
   tokenizer from that directory (eager attention) and runs one forward pass with output_attentions=True and
   output_hidden_states=True (under torch.no_grad) over each distinct text of chapter.toml. Nothing is written.
   cold build: a fresh process imports sitegen.pipeline and calls build_site(Settings(chapter.toml, model=that
   directory, ...)) with an empty cache folder, then ends as build.py does (os._exit once the site is written);
   its phases are sitegen.pipeline.Progress.phases (a cold build builds each figure, and asks for its drawing,
   as soon as the run holds its data: the run phase holds most of it). The ratio without either process's
   exit is printed too. Both are timed from just before the process is spawned (interpreter start and every
   import included) to the moment it has exited; the phases come from time.perf_counter() marks in the child
   (the same system-wide monotonic clock as the parent's). Target: cold / floor at most 1.3.
1b. patching: the chapter's patching figure's runs (figsite.capture.api.patchings), in a fresh process that
   loads the model from that directory, beside one forward pass over its clean text in the same process (the
   floor); the best of 3 each. Target: the runs take at most 2 s (issue 24: what they add to a cold build).
2. cached rebuild: `build.py --model DIR --out SITE --cache CACHE` into the cold build's site with its
   now warm cache, run 3 times as `python -c "runpy.run_path('build.py')"` so that the same process can say
   afterwards whether torch, transformers and Altair were imported. Wall time from spawn to exit; the median
   of 3 is the figure, each run's phases as build.py prints them beside it. Targets: at most 0.5 s (issue 34);
   torch not imported.
3. long text: bench/long_text.toml (one English text of exactly 1,024 GPT-2 tokens, an attention figure with
   views [[5,4],[1,1]] and focus 700, a read-out figure with target " France"), its floor and its cold build
   like the chapter's in 1., with its own empty cache. Checked: the built data holds 1,024 tokens. Targets:
   cold / floor at most 0.8 (issue 34: where it was before the model interface), and the build's peak resident
   memory at most the weights plus 1 GiB (each process reads its own: getrusage's ru_maxrss; the weights
   counted from config.json, 4 bytes each). Then:
   - the largest file a page of that site loads at once: the page's HTML, its scripts, styles and images,
     and the head files its attention chart may load on demand (spec usermeta.attention.files); counted
     from disk for every page, and from what Chromium really loaded on the attention page. Target: < 5 MB.
   - the attention page opened 3 times in headless Chromium from file://, each in a fresh tab of one browser,
     every request that is not file:// aborted: ms from navigation start (performance.now() in the page)
     until the first [data-spec] element gets data-rendered="true", noted by a MutationObserver injected
     before the page's own scripts. The median of 3 is the figure. Target: at most 2 s.
3 (xl), with --xl: the same text, floor and cold build, on gpt2-xl's shape (48 layers, 25 heads, 1,600 wide,
   1,557,611,200 weights, 5.8 GiB). Targets: cold / floor at most 0.8; the build's peak at most the weights
   plus 1 GiB (issue 34; the peaks swing by half a GiB from run to run: run it more than once); the site at
   most 67 MB (half of the 134 MB the build wrote before its capture streamed); no
   file a page loads at once of 5 MB or more.
4. bytes of the chapter site: the whole folder, and for each HTML page the on-disk sizes of every file://
   response of one load in the same browser (HTML + scripts + styles + images + data it loads), beside the
   files the HTML names (which includes images Chromium does not load: print-only and <noscript> drawings).

Machine: os.cpu_count() and the load average before and after; each process's CPU time (user + sys, from
getrusage of the children, its drawing process included) is printed beside its wall time, and so is the CPU
time the rest of the machine used while it ran (all CPUs' busy time from /proc/stat, less the process's own):
where that is large, the wall times are inflated and a NOTE says so.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

CHAPTER = ROOT / "chapter.toml"
LONG_CONFIG = ROOT / "bench" / "long_text.toml"
LONG_TOKENS = 1024
LONG_ATTENTION_PAGE = "figure-long-attention.html"
LOADS = 3
BROWSER_TIMEOUT_MS = 60_000

TARGET_RATIO = 1.3  # the chapter's cold build against its floor (issue 10 asked 1.5, issue 11 1.3)
TARGET_LONG_RATIO = 0.8  # a 1,024-token text, GPT-2 small's shape and gpt2-xl's, against its floor (issue 34)
TARGET_LONG_MEMORY = 1024**3  # bytes over the weights a 1,024-token build may take at its peak, small or xl
TARGET_XL_SITE = 67_000_000  # bytes: half the 134 MB the xl build wrote before the capture streamed
TARGET_REBUILD_S = 0.5  # issue 34: the cached rebuild of chapter.toml, as a whole process (median of 3)
TARGET_LARGEST_BYTES = 5_000_000
TARGET_FIRST_CHART_MS = 2000.0
TARGET_PATCHING_S = 2.0  # what the patching figure's runs may add to a cold build (issue 24)

# ------------------------------------------------------------------------------------------ child scripts
# Each prints one line "BENCH {json}" last; time.perf_counter() marks are absolute (CLOCK_MONOTONIC, the same
# clock in every process), so the parent turns them into seconds since it spawned the child.

WARMUP = """
import torch, transformers, altair, jinja2, vl_convert
print("BENCH {}")
"""

# The chapter's patching figure's runs against one forward pass over its clean text, in the same process, the
# model loaded once (figsite's own loading); each the best of 3.
PATCHING = r"""
import json, resource, sys, time
from figsite.capture import api
from figsite.capture.hooks import run_with_hooks
clean, corrupted, target, versus = json.loads(sys.argv[2])
loaded = api.load(sys.argv[1], None, 0, "cpu")
ids, other = api.token_ids(loaded, clean), api.token_ids(loaded, corrupted)
t, v = api.token_ids(loaded, target)[0], api.token_ids(loaded, versus)[0]
def best(work):
    times = []
    for _ in range(3):
        start = time.perf_counter(); work(); times.append(time.perf_counter() - start)
    return min(times)
floor = best(lambda: run_with_hooks(loaded, ids, {}))
patching = best(lambda: api.patchings(loaded, ids, other, len(ids) - 1, t, v))
print("BENCH " + json.dumps({"floor": floor, "patching": patching, "tokens": len(ids),
                             "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""

SAVE = r"""
import json, sys
from figsite.capture.api import gpt2_tokenizer, random_gpt2
random_gpt2(0, **json.loads(sys.argv[2])).save_pretrained(sys.argv[1])
gpt2_tokenizer().save_pretrained(sys.argv[1])
print("BENCH {}")
"""

XL_SHAPE = {"n_layer": 48, "n_head": 25, "n_embd": 1600}  # gpt2-xl's: 1,557,611,200 weights, 5.8 GiB in float32
XL_DIR = Path.home() / ".cache" / "gpt2-figures" / "bench" / "gpt2-xl-shape-seed-0"

FLOOR = r"""
import time
marks = [["interpreter start", time.perf_counter()]]
import json, resource, sys
texts, model_dir = json.loads(sys.argv[1]), sys.argv[2]
import torch
marks.append(["import torch", time.perf_counter()])
import transformers
marks.append(["import transformers", time.perf_counter()])
from transformers import AutoTokenizer, GPT2LMHeadModel
marks.append(["import the GPT-2 classes", time.perf_counter()])
model = GPT2LMHeadModel.from_pretrained(model_dir, attn_implementation="eager").eval()
marks.append(["load the model from its save_pretrained directory", time.perf_counter()])
tokenizer = AutoTokenizer.from_pretrained(model_dir)
marks.append(["tokenizer", time.perf_counter()])
with torch.no_grad():
    for text in texts:
        model(torch.tensor([tokenizer(text)["input_ids"]]), output_attentions=True, output_hidden_states=True)
marks.append([f"forward passes ({len(texts)} texts, attentions and hidden states)", time.perf_counter()])
print("BENCH " + json.dumps({"marks": marks, "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""

COLD = r"""
import time
start = time.perf_counter()
import json, resource, sys
from pathlib import Path
from sitegen.pipeline import Progress, Settings, build_site
imported = time.perf_counter()
config, out, cache, model = sys.argv[1:5]
live = sys.argv[5:6] == ["--live"]
progress = Progress(verbosity=0)
build_site(Settings(config=Path(config), model=model, out=Path(out), cache_dir=Path(cache), live=live), progress)
built = time.perf_counter()
print("BENCH " + json.dumps({"start": start, "imported": imported, "built": built, "phases": progress.phases,
                             "torch": "torch" in sys.modules,
                             "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
# As build.py ends (sitegen.cli.end): the site is written; torch's teardown serves no one.
import os
sys.stdout.flush()
os._exit(0)
"""

REBUILD = r"""
import json, runpy, sys
sys.argv = ["build.py", *sys.argv[1:]]
code = 0
try:
    runpy.run_path("build.py", run_name="build")["cli"]()  # as __main__ would, less its quick exit
except SystemExit as exc:
    code = exc.code
print("BENCH " + json.dumps({"code": code, "torch": "torch" in sys.modules,
                             "transformers": "transformers" in sys.modules, "altair": "altair" in sys.modules}))
"""

# Before any of the page's scripts: the moment the first chart is drawn (data-rendered="true").
FIRST_RENDER_OBSERVER = """
(() => {
  const check = () => {
    if (window.__firstRenderedAt !== undefined) return;
    if (document.querySelector('[data-spec][data-rendered="true"]')) {
      window.__firstRenderedAt = performance.now();
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(document, {subtree: true, attributes: true, attributeFilter: ['data-rendered']});
})();
"""

FIRST_RESULT = """() => ({first: window.__firstRenderedAt === undefined ? null : window.__firstRenderedAt,
  all: window.__renderedAt === undefined ? null : window.__renderedAt,
  errors: window.__renderErrors || [], charts: document.querySelectorAll('[data-spec]').length})"""


@dataclass
class Child:
    wall: float  # s from just before spawn to exit
    cpu: float  # user + sys s of the child
    load: float  # 1-min load average just before spawn
    others: float  # CPU s the rest of the machine used meanwhile (all CPUs' busy time less the child's)
    result: dict
    stdout: str
    spawned: float  # perf_counter just before spawn


def busy_seconds() -> float:
    """CPU time all CPUs have spent busy since boot (/proc/stat: everything but idle and iowait)."""
    ticks = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return (sum(ticks[:8]) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


def spawn(script: str, args: list[str], env: dict, what: str) -> Child:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load = os.getloadavg()[0]
    busy = busy_seconds()
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script, *args], cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    busy = busy_seconds() - busy
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = [line for line in done.stdout.splitlines() if line.startswith("BENCH ")]
    if done.returncode != 0 or not lines:
        sys.exit(f"error: {what} failed (exit {done.returncode}):\n{done.stdout}{done.stderr}")
    return Child(wall, cpu, load, max(0.0, busy - cpu), json.loads(lines[-1][len("BENCH ") :]), done.stdout, t0)


def cold_phases(child: Child) -> list[tuple[str, float]]:
    """The cold build's wall time, split: interpreter start, imports, build_site's phases, the rest, exit."""
    r = child.result
    phases = [
        ("interpreter start (spawn to first line)", r["start"] - child.spawned),
        ("import sitegen.pipeline (click, jinja2, altair, figures)", r["imported"] - r["start"]),
    ]
    names = {
        "imports": "imports (torch; the build does not import transformers)",
        "figures": "figures (each drawing asked for at once)",
        "writing": "writing (waits for the last drawings)",
    }
    phases += [(f"build_site: {names.get(name, name)}", s) for name, s in r["phases"].items()]
    rest = (r["built"] - r["imported"]) - sum(r["phases"].values())
    phases.append(("build_site: the rest (config, checks, cache store)", rest))
    phases.append(("exit (last line to process gone)", child.wall - (r["built"] - child.spawned)))
    return phases


def floor_phases(child: Child) -> list[tuple[str, float]]:
    marks = child.result["marks"]
    phases, previous = [], child.spawned
    for name, at in marks:
        label = "interpreter start (spawn to first line)" if name == "interpreter start" else name
        phases.append((label, at - previous))
        previous = at
    phases.append(("exit (last line to process gone)", child.wall - (previous - child.spawned)))
    return phases


def print_phases(title: str, child: Child, phases: list[tuple[str, float]]) -> None:
    print(title)
    for name, seconds in phases:
        print(f"    {name:<58}{seconds:7.2f} s")
    print(
        f"    {'total wall (spawn to exit)':<58}{child.wall:7.2f} s   (CPU {child.cpu:.1f} s; "
        f"max RSS {child.result.get('maxrss_kb', 0) / 1024:.0f} MB; other work on the machine meanwhile: "
        f"CPU {child.others:.1f} s)"
    )


# ------------------------------------------------------------------------------------------ sites on disk


def folder_bytes(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


def digests(folder: Path) -> dict:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def named_files(site: Path, page: Path) -> list[str]:
    """What a page names and may load: scripts, stylesheets, images (also print-only and <noscript> ones) and the
    head files its attention chart loads on demand (long texts)."""
    html = page.read_text(encoding="utf-8")
    names = re.findall(r'<script\b[^>]*\bsrc="([^"]+)"', html)
    names += re.findall(r'<link\b[^>]*\brel="stylesheet"[^>]*\bhref="([^"]+)"', html)
    names += re.findall(r'<img\b[^>]*\bsrc="([^"]+)"', html)
    for spec in re.findall(r'<script type="application/json" id="spec-[^"]*">(.*?)</script>', html, re.S):
        attention = (json.loads(spec).get("usermeta") or {}).get("attention") or {}
        names += list((attention.get("files") or {}).values())
    return list(dict.fromkeys(names))


def largest_named(site: Path) -> tuple[int, str]:
    """The largest single file any page of the site loads or may load at once (its HTML included)."""
    best = (0, "-")
    for page in site.glob("*.html"):
        for rel in [page.name, *named_files(site, page)]:
            path = site / rel
            if path.is_file() and path.stat().st_size > best[0]:
                best = (path.stat().st_size, rel)
    return best


# ------------------------------------------------------------------------------------------ the browser


@dataclass
class Load:
    first_ms: float | None = None
    all_ms: float | None = None
    charts: int = 0
    errors: list = field(default_factory=list)
    files: dict = field(default_factory=dict)  # path relative to the site -> bytes
    note: str = ""


def browse(chapter_site: Path, long_site: Path) -> tuple[str, dict, list[Load], int]:
    """One load of every chapter page, then LOADS loads of the long attention page; all in one browser."""
    import browser as bench_browser  # bench/browser.py: the observer, the wait, the Chromium settings
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    blocked = []

    def load(context, site: Path, page_path: Path) -> Load:
        page = context.new_page()
        seen: list[str] = []
        page.on("response", lambda r: seen.append(r.url) if r.url.startswith("file:") else None)
        result = Load()
        try:
            page.goto(page_path.resolve().as_uri(), wait_until="load", timeout=BROWSER_TIMEOUT_MS)
            page.wait_for_function(bench_browser.WAIT_DONE, timeout=BROWSER_TIMEOUT_MS)
            got = page.evaluate(FIRST_RESULT)
            result.first_ms, result.all_ms = got["first"], got["all"]
            result.charts, result.errors = got["charts"], got["errors"]
        except PlaywrightTimeout:
            result.note = f"timed out after {BROWSER_TIMEOUT_MS / 1000:.0f} s"
        for url in dict.fromkeys(seen):
            path = Path(unquote(urlparse(url).path))
            try:
                rel = str(path.relative_to(site.resolve()))
            except ValueError:
                rel = str(path)
            result.files[rel] = bench_browser.file_size(url)
        page.close()
        return result

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=bench_browser.CHROMIUM, args=bench_browser.CHROMIUM_ARGS, headless=True
        )
        version = chromium.version
        context = chromium.new_context()
        context.add_init_script(bench_browser.RENDER_OBSERVER)
        context.add_init_script(FIRST_RENDER_OBSERVER)

        def abort(route):
            blocked.append(route.request.url)
            route.abort()

        context.route(re.compile(r"^(?!file:)"), abort)
        chapter = {p.name: load(context, chapter_site, p) for p in bench_browser.pages_in_order(chapter_site)}
        long_loads = [load(context, long_site, long_site / LONG_ATTENTION_PAGE) for _ in range(LOADS)]
        chromium.close()
    return version, chapter, long_loads, len(blocked)


# ------------------------------------------------------------------------------------------ the run


def peak(child: Child) -> int:
    """The child's peak resident memory in bytes, as it read it itself (getrusage, ru_maxrss in KiB)."""
    return child.result.get("maxrss_kb", 0) * 1024


def gib(n: float) -> str:
    return f"{n / 1024**3:.2f} GiB"


def print_versus(floor: Child, cold: Child) -> None:
    """A floor's phases and a cold build's, one above the other."""
    print_phases(
        "  floor: import torch and transformers, load the model, one forward pass with attentions and hidden states",
        floor,
        floor_phases(floor),
    )
    print_phases("  cold build: build_site with an empty cache", cold, cold_phases(cold))


def versus(config: Path, texts: list[str], model_dir: Path, site: Path, cache: Path, env: dict) -> tuple:
    """The floor for these texts and model, then the cold build of `config` with an empty cache: (floor, cold)."""
    floor = spawn(FLOOR, [json.dumps(texts), str(model_dir)], env, f"the floor of {config.name}")
    cold = spawn(
        COLD,
        [str(config), str(site), str(cache), str(model_dir)],
        {**env, "GPT2_FIGURES_CACHE": str(cache)},
        f"the cold build of {config.name}",
    )
    return floor, cold


@dataclass
class XlCase:
    floor: Child
    cold: Child
    weights: int
    site_bytes: int
    largest: int

    def rows(self) -> list:
        ratio = self.cold.wall / self.floor.wall
        allowed = self.weights + TARGET_LONG_MEMORY
        return [
            (
                "1,024 tokens, xl: cold build / floor",
                f"<= {TARGET_LONG_RATIO}",
                f"{ratio:.2f} ({self.cold.wall:.0f} s / {self.floor.wall:.0f} s)",
                ratio <= TARGET_LONG_RATIO,
                f"{self.cold.cpu / self.floor.cpu:.2f} ({self.cold.cpu:.0f} s / {self.floor.cpu:.0f} s)",
            ),
            (
                "1,024 tokens, xl: peak memory",
                "<= w + 1 GiB",
                f"{gib(peak(self.cold))} (weights {gib(self.weights)}, floor {gib(peak(self.floor))})",
                peak(self.cold) <= allowed,
                "",
            ),
            (
                "1,024 tokens, xl: site",
                f"<= {TARGET_XL_SITE / 1e6:.0f} MB",
                mb(self.site_bytes),
                self.site_bytes <= TARGET_XL_SITE,
                "",
            ),
            (
                "1,024 tokens, xl: largest file a page loads",
                "< 5 MB",
                mb(self.largest),
                self.largest < TARGET_LARGEST_BYTES,
                "",
            ),
        ]


def weight_bytes(model_dir: Path) -> int:
    """The bytes of a GPT-2's weights in float32, counted from its config.json (the unembedding tied)."""
    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    d, layers = config["n_embd"], config["n_layer"]
    return 4 * (config["vocab_size"] * d + config["n_positions"] * d + layers * (12 * d * d + 13 * d) + 2 * d)


def xl_case(model_dir: Path, texts: list[str], work: Path, env: dict) -> XlCase:
    """The 1,024-token text with gpt2-xl's shape: the model saved once (untimed) into `model_dir` and kept."""
    if not (model_dir / "config.json").is_file():
        model_dir.mkdir(parents=True, exist_ok=True)
        print(
            f"untimed: saving a model of gpt2-xl's shape (seed 0) into {model_dir} for this and later runs ...",
            flush=True,
        )
        saved = spawn(SAVE, [str(model_dir), json.dumps(XL_SHAPE)], env, "saving the xl model")
        print(f"  saved in {saved.wall:.0f} s")
    weights = weight_bytes(model_dir)
    site, cache = work / "xl-site", work / "cache-xl"
    floor, cold = versus(LONG_CONFIG, texts, model_dir, site, cache, env)
    site_bytes, _ = folder_bytes(site)
    largest, largest_file = largest_named(site)
    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    layers, d = config["n_layer"], config["n_embd"]
    print(
        f"3 (xl). the same text with gpt2-xl's shape ({layers} layers, {config['n_head']} heads, {d} wide; "
        f"weights {gib(weights)}) from {model_dir}:"
    )
    print_versus(floor, cold)
    print(
        f"  cold / floor = {cold.wall:.1f} s / {floor.wall:.1f} s = {cold.wall / floor.wall:.2f}; peak memory "
        f"{gib(peak(cold))} (weights + {gib(peak(cold) - weights)}), the floor's {gib(peak(floor))}"
    )
    print(f"  site: {site_bytes:,} bytes; largest file a page may load at once: {largest_file} {largest:,} bytes")
    return XlCase(floor, cold, weights, site_bytes, largest)


def mb(n: float) -> str:
    return f"{n / 1e6:.2f} MB"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], usage="python bench/build.py [--work DIR] [--chapter-only] [--xl [DIR]]"
    )
    parser.add_argument(
        "--work",
        type=Path,
        default=None,
        help="keep the sites and caches here (a new or empty folder); default: a temporary folder",
    )
    parser.add_argument(
        "--chapter-only",
        action="store_true",
        help="measure only the floor and the cold build of chapter.toml (part 1), in a minute",
    )
    parser.add_argument(
        "--xl",
        nargs="?",
        type=Path,
        const=XL_DIR,
        default=None,
        metavar="DIR",
        help="also build the 1,024-token text with a model of gpt2-xl's shape (seeded random "
        f"weights, saved once into DIR and kept there; default {XL_DIR}); takes minutes and "
        "6 GiB of disk, and 14 GiB of memory for its floor",
    )
    options = parser.parse_args(argv)
    if options.work is not None:
        if options.work.exists() and any(options.work.iterdir()):
            parser.error(f"--work: {options.work} is not empty; the caches must start empty")
        options.work.mkdir(parents=True, exist_ok=True)
        work = options.work.resolve()
    else:
        work = Path(tempfile.mkdtemp(prefix="bench-build-"))
    try:
        return run(work, options.chapter_only, options.xl)
    finally:
        if options.work is None:
            shutil.rmtree(work, ignore_errors=True)


def patching_case(model_dir: Path, env: dict) -> float:
    """1b. The chapter's patching figure: its runs in a fresh process, beside one forward pass (the floor); returns
    the seconds its runs took."""
    from figsite.config import load_config
    from figures import KINDS

    [fig] = [fig for fig in load_config(CHAPTER, KINDS) if fig.kind == "patching"]
    keys = [fig["clean"], fig["corrupted"], fig["target"], fig["versus"]]
    child = spawn(PATCHING, [str(model_dir), json.dumps(keys)], env, "the patching runs")
    found = child.result
    print(
        f"1b. the patching figure ({found['tokens']} tokens, GPT-2 small's shape): all its runs "
        f"{found['patching']:.2f} s (target at most {TARGET_PATCHING_S:.1f} s), one forward pass (the floor) "
        f"{found['floor'] * 1000:.0f} ms, ratio {found['patching'] / found['floor']:.0f}; best of 3 each; "
        f"the process's peak memory {gib(found['peak'])}"
    )
    return found["patching"]


def live_case(model_dir: Path, work: Path, cold: Child, chapter_site: Path, env: dict) -> None:
    """1c. The chapter's cold build with --live (the model exported to ONNX for the live page, onnxruntime-web and the
    tokenizer copied) into its own empty cache, against part 1's cold build: what --live adds, in time and bytes."""
    from sitegen.site import live_assets

    if live_assets.problems():
        print("1c. --live: skipped (the live page's npm libraries are missing: ./setup.sh --live)")
        return
    site, cache = work / "live-site", work / "cache-live"
    live = spawn(
        COLD,
        [str(CHAPTER), str(site), str(cache), str(model_dir), "--live"],
        {**env, "GPT2_FIGURES_CACHE": str(cache)},
        "the cold build with --live",
    )
    extra = folder_bytes(site)[0] - folder_bytes(chapter_site)[0]
    under_live = folder_bytes(site / "live")[0]
    print(
        f"1c. the cold build with --live: {live.wall:.2f} s against {cold.wall:.2f} s without "
        f"(+{live.wall - cold.wall:.2f} s, the export of the model to ONNX most of it), +{mb(extra)} in the site "
        f"({mb(under_live)} under live/: the model's files, the runtime, the tokenizer); the process's peak memory "
        f"{gib(peak(live))} against {gib(peak(cold))}"
    )


def run(work: Path, chapter_only: bool = False, xl: Path | None = None) -> int:
    from figsite.config import load_config
    from sitegen.pipeline import gather_asks
    from figures import KINDS

    run_start = time.perf_counter()
    load_before = os.getloadavg()
    chapter_cache, long_cache = work / "cache-chapter", work / "cache-long"
    chapter_site, long_site = work / "chapter-site", work / "long-site"
    texts = list(gather_asks(load_config(CHAPTER, KINDS)).texts)
    env = {**os.environ, "GPT2_FIGURES_CACHE": str(chapter_cache)}

    print(
        f"bench/build.py: the build with --model random (GPT-2 small's shape, seeded random weights) on "
        f"{os.cpu_count()} CPUs; work folder {work}"
    )
    print(f"load average (1/5/15 min) at start: {load_before[0]:.2f} / {load_before[1]:.2f} / {load_before[2]:.2f}")
    print()

    warm = spawn(WARMUP, [], env, "the warm-up")
    print(f"warm-up (untimed): import torch, transformers, altair, jinja2, vl_convert in {warm.wall:.1f} s")
    model_dir = work / "gpt2-small-seed-0"
    saved = spawn(SAVE, [str(model_dir), "{}"], env, "saving the model")
    print(
        f"untimed: GPT-2 small's shape with seed 0's weights saved with save_pretrained into {model_dir.name}/ "
        f"in {saved.wall:.1f} s; the floor and the chapter's builds load it from there, as a user's model loads"
    )
    print()

    # 1. floor and cold build ----------------------------------------------------------------------
    floor, cold = versus(CHAPTER, texts, model_dir, chapter_site, chapter_cache, env)
    ratio = cold.wall / floor.wall
    print(f"1. cold build of chapter.toml ({len(texts)} distinct texts) against the floor, each in a fresh process:")
    print_versus(floor, cold)
    print(f"  cold / floor = {cold.wall:.2f} s / {floor.wall:.2f} s = {ratio:.2f}   (target at most {TARGET_RATIO})")
    cold_exit, floor_exit = cold_phases(cold)[-1][1], floor_phases(floor)[-1][1]
    print(
        f"  without either process's exit: {cold.wall - cold_exit:.2f} s / {floor.wall - floor_exit:.2f} s = "
        f"{(cold.wall - cold_exit) / (floor.wall - floor_exit):.2f}   (build.py ends at once when the site is "
        "written; the floor script lets Python tear torch down)"
    )
    print()
    patching = patching_case(model_dir, env)
    print(
        f"  1 and 1b: the patching figure's runs are work no other build does, not overhead: cold / (floor + those "
        f"runs) = {cold.wall:.2f} s / {floor.wall + patching:.2f} s = {cold.wall / (floor.wall + patching):.2f}"
    )
    print()
    live_case(model_dir, work, cold, chapter_site, env)
    print()
    if chapter_only:
        return 0

    # 2. cached rebuild ----------------------------------------------------------------------------
    before = digests(chapter_site)
    rebuilds = [
        spawn(
            REBUILD,
            ["--model", str(model_dir), "--out", str(chapter_site), "--cache", str(chapter_cache)],
            env,
            "the cached rebuild",
        )
        for _ in range(3)
    ]
    after = digests(chapter_site)
    best = min(rebuilds, key=lambda c: c.wall)
    median = sorted(rebuilds, key=lambda c: c.wall)[len(rebuilds) // 2]
    torch_imported = [c.result["torch"] for c in rebuilds]
    print("2. cached rebuild: build.py --model DIR --out SITE --cache CACHE, fresh process each, warm cache:")
    for i, child in enumerate(rebuilds, 1):
        line = next((l for l in child.stdout.splitlines() if l.startswith("wrote ")), "").split(": ", 1)[-1]
        print(
            f"    run {i}: {child.wall:5.2f} s wall (CPU {child.cpu:.2f} s; other work {child.others:.2f} s)  "
            f"torch imported: {'yes' if child.result['torch'] else 'no'}, transformers: "
            f"{'yes' if child.result['transformers'] else 'no'}, altair: {'yes' if child.result['altair'] else 'no'}; "
            f"build.py says: {line}"
        )
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    print(
        f"  median of 3: {median.wall:.2f} s (target at most {TARGET_REBUILD_S:.1f} s); best {best.wall:.2f} s; "
        f"all 3: {', '.join(f'{c.wall:.2f}' for c in rebuilds)} s"
    )
    print(
        f"  the rebuilt site is {'byte for byte the cold build' if not changed else 'NOT the cold build: ' + ', '.join(changed[:5])}"
    )
    print()

    # 3. the 1,024-token text ----------------------------------------------------------------------
    long_texts = list(gather_asks(load_config(LONG_CONFIG, KINDS)).texts)
    long_floor, long = versus(LONG_CONFIG, long_texts, model_dir, long_site, long_cache, env)
    record = json.loads((long_site / "data" / "run.json").read_text(encoding="utf-8"))
    data = json.loads((long_site / record["texts"][0]["data"]).read_text(encoding="utf-8"))
    n_tokens = len(data["tokens"])
    if n_tokens != LONG_TOKENS:
        sys.exit(f"error: {LONG_CONFIG.name} holds {n_tokens} tokens, not {LONG_TOKENS}; cut it again")
    long_bytes, long_files = folder_bytes(long_site)
    largest_bytes, largest_file = largest_named(long_site)
    long_ratio = long.wall / long_floor.wall
    small_weights = weight_bytes(model_dir)
    print(
        f"3. a text of {n_tokens:,} tokens ({LONG_CONFIG.relative_to(ROOT)}: an attention figure, views [5,4] "
        f'[1,1], focus 700; a read-out figure, target " France"), data format {data["format"]}, GPT-2 '
        "small's shape from its directory:"
    )
    print_versus(long_floor, long)
    print(
        f"  cold / floor = {long.wall:.2f} s / {long_floor.wall:.2f} s = {long_ratio:.2f}   (target at most "
        f"{TARGET_LONG_RATIO}); peak memory {gib(peak(long))} against the floor's {gib(peak(long_floor))}, "
        f"the weights' {gib(small_weights)}"
    )
    print(f"  site: {long_bytes:,} bytes in {long_files} files")
    print(
        f"  largest file a page may load at once (from disk, every page, head files included): "
        f"{largest_file} {largest_bytes:,} bytes"
    )
    print()

    # 3 (xl). the same text with a model of gpt2-xl's shape ----------------------------------------
    big = None
    if xl is not None:
        big = xl_case(xl, long_texts, work, env)
        print()

    # 3 (browser) and 4 ----------------------------------------------------------------------------
    version, chapter_loads, long_loads, blocked = browse(chapter_site, long_site)
    firsts = [l.first_ms for l in long_loads]
    good = [x for x in firsts if x is not None]
    first_median = statistics.median(good) if len(good) == len(firsts) else None
    seen_largest = max(((size, rel) for l in long_loads for rel, size in l.files.items()), default=(0, "-"))
    print(f"  {LONG_ATTENTION_PAGE} in headless Chromium {version}, {LOADS} loads in fresh tabs:")
    for i, l in enumerate(long_loads, 1):
        print(
            f"    load {i}: first chart drawn at {'-' if l.first_ms is None else f'{l.first_ms:.0f}'} ms, "
            f"{l.charts} chart(s), {len(l.files)} files, {sum(l.files.values()):,} bytes loaded"
            + (f"; not drawn: {l.errors}" if l.errors else "")
            + (f"; {l.note}" if l.note else "")
        )
    print(
        "    files of load 1: "
        + ", ".join(
            f"{Path(rel).name} {size:,}" for rel, size in sorted(long_loads[0].files.items(), key=lambda kv: -kv[1])
        )
    )
    print(
        f"  median first chart: {'-' if first_median is None else f'{first_median:.0f} ms'} "
        f"(target at most {TARGET_FIRST_CHART_MS:.0f} ms); largest file Chromium loaded: "
        f"{Path(seen_largest[1]).name} {seen_largest[0]:,} bytes"
    )
    print()

    chapter_bytes, chapter_files = folder_bytes(chapter_site)
    print(f"4. the chapter site: {chapter_bytes:,} bytes in {chapter_files} files; per page, one load in Chromium:")
    print(f"    {'page':<22}{'loaded bytes':>14}{'files':>7}{'named by the HTML':>20}   largest loaded")
    for name, l in chapter_loads.items():
        named = [name, *named_files(chapter_site, chapter_site / name)]
        named_bytes = sum((chapter_site / n).stat().st_size for n in named if (chapter_site / n).is_file())
        top = max(l.files.items(), key=lambda kv: kv[1], default=("-", 0))
        print(
            f"    {name:<22}{sum(l.files.values()):>14,}{len(l.files):>7}{named_bytes:>20,}   "
            f"{Path(top[0]).name} {top[1]:,}"
            + (f"  ({l.note})" if l.note else "")
            + (f"  not drawn: {l.errors}" if l.errors else "")
        )
    print("    loaded: every file:// response of the load (HTML, scripts, styles, images, data); named: the HTML and")
    print("    every script, stylesheet and image it names, print-only and <noscript> drawings included.")
    print()

    # the table ------------------------------------------------------------------------------------
    largest = max(largest_bytes, seen_largest[0])
    rows = [  # what, wanted, measured, pass, CPU time (user + sys) beside it: wall far above CPU means a busy machine
        (
            "cold build / floor, chapter.toml",
            f"<= {TARGET_RATIO}",
            f"{ratio:.2f} ({cold.wall:.1f} s / {floor.wall:.1f} s)",
            ratio <= TARGET_RATIO,
            f"{cold.cpu / floor.cpu:.2f} ({cold.cpu:.1f} s / {floor.cpu:.1f} s)",
        ),
        (
            "cached rebuild, median of 3",
            f"<= {TARGET_REBUILD_S:.1f} s",
            f"{median.wall:.2f} s",
            median.wall <= TARGET_REBUILD_S,
            f"{median.cpu:.2f} s",
        ),
        ("cached rebuild imports torch", "no", f"{sum(torch_imported)} of 3 did", not any(torch_imported), ""),
        (
            "1,024 tokens, small: cold build / floor",
            f"<= {TARGET_LONG_RATIO}",
            f"{long_ratio:.2f} ({long.wall:.1f} s / {long_floor.wall:.1f} s)",
            long_ratio <= TARGET_LONG_RATIO,
            f"{long.cpu / long_floor.cpu:.2f} ({long.cpu:.1f} s / {long_floor.cpu:.1f} s)",
        ),
        (
            "1,024 tokens, small: peak memory",
            "<= w + 1 GiB",
            f"{gib(peak(long))} (weights {gib(small_weights)}, floor {gib(peak(long_floor))})",
            peak(long) <= small_weights + TARGET_LONG_MEMORY,
            "",
        ),
        ("largest file a page loads at once", "< 5 MB", mb(largest), largest < TARGET_LARGEST_BYTES, ""),
        (
            "first chart, 1,024-token page, median",
            f"<= {TARGET_FIRST_CHART_MS / 1000:.0f} s",
            "-" if first_median is None else f"{first_median / 1000:.2f} s",
            first_median is not None and first_median <= TARGET_FIRST_CHART_MS,
            "",
        ),
    ]
    if big is not None:
        rows += big.rows()
    width = max(len(r[0]) for r in rows) + 2
    print(f"{'target':<{width}}{'wanted':>10}   {'measured (wall)':<28}{'result':<8}CPU time, for comparison")
    print("-" * (width + 72))
    for what, wanted, measured, ok, cpu in rows:
        print(f"{what:<{width}}{wanted:>10}   {measured:<28}{'PASS' if ok else 'FAIL':<8}{cpu}")
    print(f"{'chapter site':<{width}}{'':>10}   {mb(chapter_bytes)} in {chapter_files} files")
    print(f"{'1,024-token site':<{width}}{'':>10}   {mb(long_bytes)} in {long_files} files")
    print()

    load_after = os.getloadavg()
    print(
        "how: every figure is from processes started fresh by this script with "
        f"{Path(sys.executable).name} {platform.python_version()}, timed from just before spawn to exit;"
    )
    print("     caches start empty (GPT2_FIGURES_CACHE and --cache point into the work folder). Details: the")
    print("     docstring of bench/build.py. One run each, except the rebuild and the page (median of 3).")
    print(
        f"machine: {platform.platform()}, {os.cpu_count()} CPUs (os.cpu_count()); torch "
        f"{record['environment']['torch']}, tokenizers {record['environment']['tokenizers']} (the builds "
        f"import no transformers; the floors do); "
        f"Chromium {version}, {blocked} non-file request(s) blocked"
    )
    print(
        f"load average (1/5/15 min): before {load_before[0]:.2f} / {load_before[1]:.2f} / {load_before[2]:.2f}, "
        f"after {load_after[0]:.2f} / {load_after[1]:.2f} / {load_after[2]:.2f}; whole run "
        f"{time.perf_counter() - run_start:.0f} s"
    )
    # Other work: CPU time the rest of the machine used while a timed process ran, as a share of that process's
    # wall time (1.0: one whole CPU taken from the build). The 1-min load average would count our own processes.
    timed = (floor, cold, long_floor, long, *rebuilds, *([big.floor, big.cold] if big else []))
    others = max(child.others / child.wall for child in timed)
    if others > 0.25:
        print(
            f"NOTE: other work used up to {others:.1f} CPUs of {os.cpu_count()} while a timed process ran: wall "
            "times are inflated; compare them with the CPU times, or run again on an idle machine."
        )
    all_pass = all(r[3] for r in rows)
    print("ALL PASS" if all_pass else "SOME FAIL")
    return 0 if all_pass else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
