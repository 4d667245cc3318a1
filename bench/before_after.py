"""Before and after a change, in the same run: the cold build, the cached build and the live page's Enter-to-charts
of two checkouts, taken in turn so that whatever else the machine does weighs on both alike. Run by hand (a
benchmark, not a test), under `nice` on a shared machine:

    python bench/before_after.py BEFORE [--after DIR] [--repeats N] [--warmup N] [--enter-repeats N] [--no-live]
                                        [--keep DIR]

BEFORE is a commit (`5f7c600`, `main`, `HEAD~3`: checked out for the run in a temporary `git worktree --detach`,
removed at the end) or the folder of another checkout; --after is the checkout compared with it (default: this
one, as it is on disk, uncommitted edits included). A checkout without node_modules/ borrows the other's (the
live page copies its runtime and tokenizer from there; a note says so where the two package-lock.json differ).
Each checkout runs its own build.py and its own bench/live.py, with its own code first on the path (PYTHONPATH).

1. builds: `build.py --model random --config chapter.toml --quiet`, after each checkout's Python files are compiled
   (compileall: a new worktree has no bytecode yet), WARMUP rounds not counted (default 0) then REPEATS rounds
   (default 3). A round runs, for each checkout, a cold build (an empty cache folder of its own, a new output
   folder) and then a cached build (the same cache and output folder again); the checkouts take turns going first. Each build
   is one child process: its wall time, its CPU time (user + sys) and its peak memory (ru_maxrss from os.wait4: the
   largest single process among the build and the processes it waited for, its drawing processes included).
   Printed: each figure's median per checkout and the median of the ratios after / before, round by round. The
   two checkouts' sites of the last cold round are compared file by file (the guard of bench/same_sites.sh, for
   the chapter only).
2. the live page (unless --no-live): each checkout builds its site with `--live` into an empty cache (timed, as
   in 1; once each: a cold --live build), then both pages are opened at once, each served and driven by its own
   checkout's bench/live.py (its Server, its Profile: a headless Chromium on a profile of its own, requests off
   127.0.0.1 aborted), GPT-2 loaded in each, and a text of 20 tokens typed and Enter pressed, ENTER_REPEATS times
   in each page (default 5), the pages taking turns with the same text: bench/live.py's "Enter to charts" (ms from
   the keydown to every live chart drawn), with live.js's split into the model's run and the drawing. The rest
   of bench/live.py (loads from Cache Storage, a slowed CPU, the tab's memory, cross-origin isolation) is not
   taken here: run it by itself for those.

On a machine shared with other work, compare the CPU times, the peak memory and the ratios' medians rather than
single wall times: a build's wall time there is mostly its wait for a core. With the defaults the run took 19
minutes on 2 cores at a load average of 17 (a cold build of the chapter 56 to 125 s of wall time for 20 s of
CPU, a cold build with --live about 230 s: those two about 60% of the whole); on 2 cores with less else to do, a
fraction of that. --no-live leaves out the two cold --live builds and the pages; --repeats 1 is a quick look. Exit status: 0 when every build and page ran, 1 otherwise, 2 on bad input.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = "chapter.toml"
REPEATS = 3
ENTER_REPEATS = 5


@dataclass
class Timed:
    """One child process: seconds of wall time and of CPU (user + sys), and the peak of its largest process."""

    wall: float
    cpu: float
    peak_kib: int


def timed(command: list[str], cwd: Path, env: dict) -> Timed:
    """Runs `command` in `cwd` and times it; exits with its output where it fails."""
    start = time.perf_counter()
    child = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        output = child.stdout.read()
        _, status, usage = os.wait4(child.pid, 0)
    except BaseException:  # stopped (a signal, ^C): the build stops too
        child.kill()
        child.wait()
        raise
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit(f"failed (exit {child.returncode}) in {cwd}: {' '.join(command)}\n{output.decode(errors='replace')}")
    return Timed(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)


class Checkout:
    """A tree that builds the site: its folder, its name in the report, and its own work folder."""

    def __init__(self, name: str, folder: Path, work: Path):
        self.name, self.folder, self.work = name, folder, work / name
        self.work.mkdir(parents=True)
        self.env = {**os.environ, "PYTHONPATH": str(folder)}
        self.runs = 0

    def build(self, out: Path, cache: Path, *options: str) -> Timed:
        command = [
            sys.executable,
            "build.py",
            "--model",
            "random",
            "--config",
            CONFIG,
            "--out",
            str(out),
            "--cache",
            str(cache),
            "--quiet",
            *options,
        ]
        return timed(command, self.folder, {**self.env, "GPT2_FIGURES_CACHE": str(cache)})

    def cold_and_cached(self) -> tuple[Timed, Timed, Path]:
        """A cold build into an empty cache, then the cached build of the same site: (cold, cached, the site)."""
        self.runs += 1
        cache, out = self.work / f"cache-{self.runs}", self.work / f"site-{self.runs}"
        cache.mkdir()
        cold = self.build(out, cache)
        cached = self.build(out, cache)
        return cold, cached, out


def checkout_of(before: str, work: Path) -> tuple[Path, str | None]:
    """BEFORE as a folder: itself where it is one, else a detached worktree of that commit (and its commit)."""
    if Path(before).is_dir():
        return Path(before).resolve(), None
    commit = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", before + "^{commit}"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    if not commit:
        print(f"error: BEFORE: {before!r} is neither a folder nor a commit of {ROOT}", file=sys.stderr)
        sys.exit(2)
    folder = work / "before-tree"
    subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(folder), commit], cwd=ROOT, check=True)
    return folder, commit


def lend_node_modules(trees: list[Path], notes: list[str]) -> None:
    """A tree without node_modules/ gets a link to the other's."""
    have = [tree for tree in trees if (tree / "node_modules").is_dir()]
    for tree in trees:
        if not (tree / "node_modules").exists() and have:
            (tree / "node_modules").symlink_to(have[0] / "node_modules")
            notes.append(f"{tree}: node_modules/ linked to {have[0] / 'node_modules'}")
            lock = [
                (t / "package-lock.json").read_bytes() if (t / "package-lock.json").is_file() else b""
                for t in (tree, have[0])
            ]
            if lock[0] != lock[1]:
                notes.append(f"{tree}: its package-lock.json differs from the one whose node_modules/ it borrows")


def digest(site: Path) -> dict[str, str]:
    return {
        p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(site.rglob("*"))
        if p.is_file()
    }


def median_row(what: str, before: list[float], after: list[float], unit: str, scale: float = 1.0) -> str:
    """One line: each checkout's median and the median of the ratios after / before, pair by pair."""
    ratios = [a / b for a, b in zip(after, before) if b]
    b, a = statistics.median(before) * scale, statistics.median(after) * scale
    spread = f"{min(ratios):.2f}-{max(ratios):.2f}" if ratios else "-"
    ratio = f"{statistics.median(ratios):6.2f}" if ratios else "     -"
    return f"  {what:<34}{b:>10.2f}{a:>10.2f} {unit:<4}{ratio}   ({spread})"


def builds(pair: list[Checkout], repeats: int, warmup: int) -> tuple[dict, list[str]]:
    """Section 1: name -> {"cold": [Timed], "cached": [Timed]} over the counted rounds, and how the last sites
    compare."""
    results = {c.name: {"cold": [], "cached": []} for c in pair}
    sites = {}
    for checkout in pair:
        timed(
            [sys.executable, "-m", "compileall", "-q", "figsite", "figures", "sitegen", "build.py"],
            checkout.folder,
            checkout.env,
        )
    for round_ in range(warmup + repeats):
        order = pair if round_ % 2 == 0 else pair[::-1]
        for checkout in order:
            cold, cached, sites[checkout.name] = checkout.cold_and_cached()
            if round_ >= warmup:
                results[checkout.name]["cold"].append(cold)
                results[checkout.name]["cached"].append(cached)
            print(
                f"  round {round_ + 1 - warmup if round_ >= warmup else 'warm-up'}: {checkout.name:<6} cold "
                f"{cold.wall:6.2f} s, cached {cached.wall:5.2f} s",
                flush=True,
            )
    a, b = (digest(sites[c.name]) for c in pair)
    differ = sorted(name for name in a.keys() | b.keys() if a.get(name) != b.get(name))
    return results, differ


def print_builds(results: dict, differ: list[str]) -> None:
    before, after = results["before"], results["after"]
    print(f"\n  {'build of ' + CONFIG + ', --model random':<34}{'before':>10}{'after':>10}      after/before (range)")
    for phase in ("cold", "cached"):
        for what, get, unit, scale in [
            ("wall", lambda t: t.wall, "s", 1.0),
            ("CPU (user + sys)", lambda t: t.cpu, "s", 1.0),
            ("peak memory", lambda t: t.peak_kib, "MiB", 1 / 1024),
        ]:
            print(
                median_row(
                    f"{phase}: {what}", [get(t) for t in before[phase]], [get(t) for t in after[phase]], unit, scale
                )
            )
    print(
        f"  the sites of the last round: {'identical' if not differ else f'{len(differ)} files differ: '}"
        + ", ".join(differ[:10])
        + (" ..." if len(differ) > 10 else "")
    )


# Run by a child process: opens both checkouts' live pages, each with its own bench/live.py, loads GPT-2 in each,
# then times Enter to charts in turn. argv: repeats, then (tree, site) per checkout. Prints one JSON line.
ENTER = r"""
import importlib.util, json, sys, tempfile
from pathlib import Path
from playwright.sync_api import sync_playwright

repeats, trees = int(sys.argv[1]), sys.argv[2:]
benches, servers, profiles, notes, refused = [], [], [], [], []
for n, (tree, site) in enumerate(zip(trees[::2], trees[1::2])):
    spec = importlib.util.spec_from_file_location(f"bench_live_{n}", Path(tree) / "bench" / "live.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    benches.append(module)
    servers.append(module.Server(Path(site), isolated=False))
out = {"runs": [[] for _ in benches], "loads": []}
with tempfile.TemporaryDirectory(prefix="bench-enter-") as work, sync_playwright() as pw:
    for n, module in enumerate(benches):
        profile = module.Profile(pw, Path(work) / f"profile-{n}", servers[n], f"tree {n}", notes, refused)
        profile.open()
        out["loads"].append(profile.load()["loadMs"])
        profiles.append(profile)
    for i in range(repeats):
        order = range(len(benches)) if i % 2 == 0 else reversed(range(len(benches)))
        for n in order:
            got = profiles[n].enter(benches[n].TEXTS_20[i % len(benches[n].TEXTS_20)])
            out["runs"][n].append([got["ms"], got["last"]["modelMs"], got["last"]["drawMs"]])
    for profile in profiles:
        profile.close()
for server in servers:
    server.close()
out["notes"], out["refused"] = notes, refused
print("ENTER " + json.dumps(out))
"""


def live(pair: list[Checkout], repeats: int) -> dict:
    """Section 2: each checkout's cold --live build, then Enter to charts in both pages in turn."""
    built = {}
    for checkout in pair:
        cache, out = checkout.work / "cache-live", checkout.work / "site-live"
        cache.mkdir()
        built[checkout.name] = (checkout.build(out, cache, "--live"), out)
        print(f"  {checkout.name:<6} cold build with --live {built[checkout.name][0].wall:6.2f} s", flush=True)
    args = [str(repeats)] + [str(x) for c in pair for x in (c.folder, built[c.name][1])]
    done = subprocess.run([sys.executable, "-c", ENTER, *args], capture_output=True, text=True)
    line = next((line for line in done.stdout.splitlines() if line.startswith("ENTER ")), None)
    if done.returncode != 0 or line is None:
        sys.exit(f"the live pages failed (exit {done.returncode}):\n{done.stdout}{done.stderr}")
    return {"built": {name: timing for name, (timing, _) in built.items()}, **json.loads(line[len("ENTER ") :])}


def print_live(result: dict) -> None:
    before, after = result["runs"]
    built = result["built"]
    print(f"\n  {'the live page':<34}{'before':>10}{'after':>10}      after/before (range)")
    print(median_row("cold build with --live: wall", [built["before"].wall], [built["after"].wall], "s"))
    print(
        median_row(
            "cold build with --live: peak", [built["before"].peak_kib], [built["after"].peak_kib], "MiB", 1 / 1024
        )
    )
    print(median_row("load GPT-2 (first visit)", [result["loads"][0]], [result["loads"][1]], "ms"))
    for n, what in enumerate(["Enter to charts, 20 tokens", "  of which the model's run", "  of which the drawing"]):
        print(median_row(what, [r[n] for r in before], [r[n] for r in after], "ms"))
    print(
        f"  Enter to charts, each run (ms): before {' '.join(f'{r[0]:.0f}' for r in before)}; "
        f"after {' '.join(f'{r[0]:.0f}' for r in after)}"
    )
    if result["refused"] or result["notes"]:
        print(f"  requests refused: {result['refused'][:5]}; notes: {result['notes'][:5]}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", help="a commit (checked out in a temporary worktree) or a checkout's folder")
    parser.add_argument("--after", type=Path, default=ROOT, help="the checkout compared with it (default: this one)")
    parser.add_argument("--repeats", type=int, default=REPEATS, help=f"counted build rounds (default {REPEATS})")
    parser.add_argument("--warmup", type=int, default=0, help="build rounds run first and not counted (default 0)")
    parser.add_argument(
        "--enter-repeats",
        type=int,
        default=ENTER_REPEATS,
        help=f"Enter-to-charts runs per page (default {ENTER_REPEATS})",
    )
    parser.add_argument("--no-live", action="store_true", help="leave out the live page (section 2)")
    parser.add_argument("--keep", type=Path, help="keep the sites and caches in this new folder")
    options = parser.parse_args(argv)
    if options.repeats < 1 or options.enter_repeats < 1 or options.warmup < 0:
        parser.error("--repeats and --enter-repeats are at least 1, --warmup at least 0")
    if options.keep is not None and options.keep.exists():
        parser.error(f"--keep: {options.keep} exists; give a new folder")
    for ended in (signal.SIGTERM, signal.SIGHUP):  # killed: still remove the worktree (the finally below)
        signal.signal(ended, lambda number, frame: sys.exit(f"stopped by signal {number}"))
    start, load = time.perf_counter(), os.getloadavg()
    work = options.keep.resolve() if options.keep else Path(tempfile.mkdtemp(prefix="bench-before-after-"))
    work.mkdir(parents=True, exist_ok=True)
    notes: list[str] = []
    before, commit = checkout_of(options.before, work)
    try:
        after = options.after.resolve()
        lend_node_modules([before, after], notes)
        pair = [Checkout("before", before, work), Checkout("after", after, work)]
        print(f"before: {before}" + (f" (commit {commit[:12]})" if commit else "") + f"\nafter:  {after}", flush=True)
        results, differ = builds(pair, options.repeats, options.warmup)
        result = None if options.no_live else live(pair, options.enter_repeats)
        print_builds(results, differ)
        if result is not None:
            print_live(result)
        end = os.getloadavg()
        print(
            f"\n  {options.repeats} rounds (+{options.warmup} warm-up), {options.enter_repeats} Enter runs per page; "
            f"{os.cpu_count()} cores, load average {load[0]:.1f} before, {end[0]:.1f} after; whole run "
            f"{time.perf_counter() - start:.0f} s. Ratios: after / before, pair by pair, median (range)."
        )
        for note in notes:
            print(f"  note: {note}")
    finally:
        if commit:
            subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, check=False)
        if options.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
