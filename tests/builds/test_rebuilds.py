"""Rebuilds: the cache of model runs, byte-identical output, and a site that survives a killed or
interrupted build and a second build at the same time.

Builds run in this process (click's CliRunner: torch is imported once) where no process must die and no
import is checked; in a process of their own where one must. A build killed or interrupted on purpose runs
with --verbose, and the signal goes when the build says it has reached the moment wanted (a phase line on
stderr, or a file in its staging folder), never after a fixed delay.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import TWO_FIGURES, snapshot

REPO = Path(__file__).resolve().parents[2]

CONFIG = TWO_FIGURES
OTHER_CONFIG = CONFIG.replace("focus = 9", "focus = 4").replace(" France", " Europe")

INTERRUPTED = "error: interrupted; the previous site is unchanged"
# What --verbose says as the build goes: each phase as it starts and ends, and each text the model reads.
PROGRESS = re.compile(r"[a-z][a-z ]*( \.\.\.|: \d+\.\d+ s)|reading the texts: .*")


def build_here(*args):
    """build.py in this process (no torch import to pay again), where no process has to die; returns click's
    result (its stderr holds what --verbose says)."""
    from click.testing import CliRunner

    from build import cli

    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result


def build(*args, env=None, check=True) -> subprocess.CompletedProcess:
    """build.py in a process of its own, as an author runs it."""
    result = subprocess.run(
        [sys.executable, "build.py", *map(str, args)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=600,
    )
    if check:
        assert result.returncode == 0, result.stderr
    return result


class Build:
    """build.py --verbose in a process of its own, its stderr read line by line (by a thread of ours) as it
    says what it is doing, so that a test can act at a moment of the build's own."""

    started: list[Build] = []  # every one, so that none outlives its test (see no_build_left_running)

    def __init__(self, *args):
        Build.started.append(self)
        self.process = subprocess.Popen(
            [sys.executable, "build.py", *map(str, args), "--verbose"],
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        self._said = threading.Condition()
        self._done = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.process.stderr:
            with self._said:
                self.lines.append(line.rstrip("\n"))
                self._said.notify_all()
        with self._said:
            self._done = True
            self._said.notify_all()

    def wait_for_line(self, line: str, timeout: float = 120.0) -> None:
        """Waits until the build says `line`; fails where it ends, or time runs out, first."""
        with self._said:
            self._said.wait_for(lambda: line in self.lines or self._done, timeout)
            assert line in self.lines, f"the build never said {line!r}; it said {self.lines}"

    def wait_for_staged(self, name: str, timeout: float = 60.0) -> None:
        """Waits until the folder the build writes the new site into holds `name`; fails where the build ends,
        or swaps the new site in, first."""
        self.wait_for_line("writing ...")
        out = Path(self.process.args[self.process.args.index("--out") + 1])

        def staged() -> bool:
            return any((folder / name).exists() for folder in out.parent.glob(f".{out.name}-new-*"))

        wait_for(lambda: staged() or self.process.poll() is not None, timeout, every=0.002)
        assert staged(), f"the build's staging folder never held {name} (exit {self.process.poll()}): {self.lines}"

    def send(self, signum: int) -> list[int]:
        """Sends `signum` to the build, which must still run; returns its drawing processes at that moment."""
        helpers = children(self.process.pid)
        assert self.process.poll() is None, f"the build ended (exit {self.process.returncode}) before the signal"
        assert helpers, "the build had no drawing process running"
        self.process.send_signal(signum)
        return helpers

    def wait(self, timeout: float = 300.0) -> int:
        code = self.process.wait(timeout=timeout)
        self._reader.join(timeout=30)
        return code

    def said_besides_progress(self) -> list[str]:
        return [line for line in self.lines if not PROGRESS.fullmatch(line)]


@pytest.fixture(autouse=True)
def no_build_left_running():
    """A test that fails before its build ends does not leave the build running."""
    yield
    while Build.started:
        build = Build.started.pop()
        if build.process.poll() is None:
            build.process.kill()
            build.wait(timeout=60)


@pytest.fixture
def config(tmp_path) -> Path:
    path = tmp_path / "chapter.toml"
    path.write_text(CONFIG, encoding="utf-8")
    return path


@pytest.fixture
def cache_dir(tmp_path) -> Path:
    return tmp_path / "cache"


@pytest.fixture(scope="module")
def first_build(small_model_dir, tmp_path_factory):
    """CONFIG built once for the module, in this process, with an empty cache of its own: the site, the cache
    it filled and what it said (--verbose)."""
    work = tmp_path_factory.mktemp("first-build")
    config = work / "chapter.toml"
    config.write_text(CONFIG, encoding="utf-8")
    result = build_here(
        "--model", small_model_dir, "--config", config, "--out", work / "site", "--cache", work / "cache", "-v"
    )
    return work / "site", work / "cache", result.stderr


@pytest.fixture
def built(first_build, cache_dir, tmp_path) -> Path:
    """The first build as if made here: its site copied to tmp_path/site, its cache to `cache_dir`."""
    site, cache, _ = first_build
    shutil.copytree(cache, cache_dir)
    shutil.copytree(site, tmp_path / "site")
    return tmp_path / "site"


# ---------------------------------------------------------------------------------------------- the cache


def test_rebuild_of_same_model_and_texts_reads_the_cache_and_never_imports_torch_or_altair(
    small_model_dir, config, cache_dir, built, tmp_path
):
    first = built
    second = tmp_path / "second"
    probe = (
        "import sys, runpy; sys.argv = sys.argv[1:]; "
        "exit_code = 0\n"
        "try:\n    runpy.run_path('build.py', run_name='build')['cli']()\n"
        "except SystemExit as e:\n    exit_code = e.code or 0\n"
        "print('torch imported:', 'torch' in sys.modules, 'transformers imported:', 'transformers' in sys.modules,\n"
        "      'altair imported:', 'altair' in sys.modules)\n"
        "sys.exit(exit_code)"
    )
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            probe,
            "build.py",
            "--model",
            str(small_model_dir),
            "--config",
            str(config),
            "--out",
            str(second),
            "--cache",
            str(cache_dir),
            "--verbose",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    # Nothing to compute or draw: neither torch nor Altair loads.
    assert "torch imported: False transformers imported: False altair imported: False" in result.stdout
    assert "cache: using the stored run" in result.stderr
    assert snapshot(first) == snapshot(second)


def test_changed_caption_renders_again_from_the_cache(small_model_dir, config, cache_dir, built):
    out = built
    before = snapshot(out)
    config.write_text(
        CONFIG.replace('label = "l"\n', 'label = "l"\ncaption = "Who does it look at?"\n'), encoding="utf-8"
    )
    result = build_here("--model", small_model_dir, "--config", config, "--out", out, "--cache", cache_dir, "-v")
    assert "cache: using the stored run" in result.stderr and "model load" not in result.stderr
    after = snapshot(out)
    assert "Who does it look at?" in (out / "figure-l.html").read_text(encoding="utf-8")
    assert {k: v for k, v in after.items() if k.startswith("data/")} == {
        k: v for k, v in before.items() if k.startswith("data/")
    }


def ran_the_model(said: str) -> bool:
    """Whether a build's --verbose stderr shows that it loaded the model."""
    return "model load" in said


def test_cache_misses_when_the_texts_change(small_model_dir, config, cache_dir, first_build, built):
    out = built
    _, _, first_said = first_build
    assert ran_the_model(first_said)
    assert not ran_the_model(
        build_here("--model", small_model_dir, "--config", config, "--out", out, "--cache", cache_dir, "-v").stderr
    )
    config.write_text(CONFIG.replace("too tired", "too wide"), encoding="utf-8")
    assert ran_the_model(
        build_here("--model", small_model_dir, "--config", config, "--out", out, "--cache", cache_dir, "-v").stderr
    )


def test_cache_misses_when_the_models_files_change(small_model_dir, config, cache_dir, tmp_path):
    model = tmp_path / "model"
    shutil.copytree(small_model_dir, model)
    out = tmp_path / "site"
    assert ran_the_model(
        build_here("--model", model, "--config", config, "--out", out, "--cache", cache_dir, "-v").stderr
    )
    settings = json.loads((model / "config.json").read_text(encoding="utf-8"))
    settings["layer_norm_epsilon"] = 1e-3  # other weights' numbers: another model
    (model / "config.json").write_text(json.dumps(settings), encoding="utf-8")
    result = build_here("--model", model, "--config", config, "--out", out, "--cache", cache_dir, "-v")
    assert ran_the_model(result.stderr)


def test_cache_misses_when_random_seed_or_device_or_rerun_asks(config, cache_dir, tmp_path):
    from figsite.data import cache
    from figsite.data.asks import Asks

    asks = Asks(texts={"Maya lives": " France"})
    base = cache.key(cache.model_identity("random", None, 0), asks, "cpu")
    assert cache.key(cache.model_identity("random", None, 1), asks, "cpu") != base
    assert cache.key(cache.model_identity("random", None, 0), asks, "cuda") != base
    assert cache.key(cache.model_identity("random", None, 0), Asks(texts={"Maya lives": " Europe"}), "cpu") != base
    assert cache.key(cache.model_identity("random", None, 0), asks, "cpu") == base


def test_cache_misses_when_the_data_format_version_changes(monkeypatch):
    from figsite.data import cache

    from figsite.data.asks import Asks

    identity, asks = cache.model_identity("random", None, 0), Asks(texts={"Maya lives": None})
    before = cache.key(identity, asks, "cpu")
    monkeypatch.setattr(cache, "CAPTURE_VERSION", cache.CAPTURE_VERSION + 1)
    assert cache.key(identity, asks, "cpu") != before


def test_hub_models_are_keyed_on_the_resolved_commit(tmp_path, monkeypatch):
    from figsite.data import cache
    from figsite.data.asks import Asks

    hub = tmp_path / "hub"
    refs = hub / "models--openai-community--gpt2" / "refs"
    refs.mkdir(parents=True)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(hub))
    for commit in ("a" * 40, "b" * 40):  # the cache's own layout: snapshots/<commit>/ holds the files
        (hub / "models--openai-community--gpt2" / "snapshots" / commit).mkdir(parents=True)
        (hub / "models--openai-community--gpt2" / "snapshots" / commit / "config.json").write_text("{}")
    (refs / "main").write_text("a" * 40, encoding="utf-8")
    first = cache.model_identity("openai-community/gpt2", None, 0)
    assert first == {"kind": "hub", "id": "openai-community/gpt2", "commit": "a" * 40}
    (refs / "main").write_text("b" * 40, encoding="utf-8")  # the hub moved on: another revision
    second = cache.model_identity("openai-community/gpt2", None, 0)
    assert cache.key(first, Asks(), "cpu") != cache.key(second, Asks(), "cpu")
    assert cache.model_identity("openai-community/gpt2", "c" * 40, 0)["commit"] == "c" * 40
    assert cache.model_identity("no-such/model", None, 0) is None  # unknown: never cached


def test_a_corrupt_cache_entry_is_detected_and_the_model_runs_again(small_model_dir, config, cache_dir, built):
    out = built
    before = snapshot(out)
    stored = next(p for p in cache_dir.rglob("*.json") if p.parent.name == "data" and p.name != "run.json")
    raw = bytearray(stored.read_bytes())
    raw[len(raw) // 2] ^= 0x01
    stored.write_bytes(bytes(raw))
    result = build_here("--model", small_model_dir, "--config", config, "--out", out, "--cache", cache_dir, "-v")
    assert "damaged" in result.stderr and ran_the_model(result.stderr)
    assert snapshot(out) == before
    again = build_here("--model", small_model_dir, "--config", config, "--out", out, "--cache", cache_dir, "-v")
    assert not ran_the_model(again.stderr)


# ---------------------------------------------------------------------------------------------- reproducible


def test_two_builds_from_the_same_inputs_are_byte_identical(small_model_dir, config, first_build, tmp_path):
    """The first build ran in this process with an empty cache; this one runs in a process of its own (another
    hash seed) with none."""
    a, b = first_build[0], tmp_path / "b"
    build("--model", small_model_dir, "--config", config, "--out", b, "--no-cache")
    first, second = snapshot(a), snapshot(b)
    assert len(first) > 10 and first == second


# ---------------------------------------------------------------------------------------------- crashes


@pytest.fixture(scope="module")
def built_sites(small_model_dir, first_build, tmp_path_factory):
    """The old site (CONFIG's first build) and the new one OTHER_CONFIG gives, built once for the module with a
    cache that the build after a crash reads (it still tidies and swaps, but needs no model run)."""
    work = tmp_path_factory.mktemp("crashes")
    new_config, cache = work / "new.toml", work / "cache"
    new_config.write_text(OTHER_CONFIG, encoding="utf-8")
    new = work / "new-site"
    build_here("--model", small_model_dir, "--config", new_config, "--out", new, "--cache", cache)
    return first_build[0], new, new_config, cache


@pytest.fixture
def sites(built_sites, tmp_path):
    """A copy of the old site where a build of the new config is about to go."""
    old, new, new_config, cache = built_sites
    out = tmp_path / "site"
    shutil.copytree(old, out)
    return out, snapshot(old), snapshot(new), new_config


def rebuild_after_a_crash(built_sites, small_model_dir, out: Path) -> None:
    """The next build of the new config into `out` (its run and drawings read from the module's cache)."""
    _, _, new_config, cache = built_sites
    build_here("--model", small_model_dir, "--config", new_config, "--out", out, "--cache", cache)


def wait_for(condition, timeout=120.0, every=0.02):
    deadline = time.time() + timeout
    while time.time() < deadline and not condition():
        time.sleep(every)


def processes():
    """(pid, fields of /proc/PID/stat after the name: state, parent, group, session, ...) of every process now."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            yield int(stat.parent.name), stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue


def children(pid: int) -> list[int]:
    """The processes `pid` started (the drawing processes), from /proc."""
    return [child for child, fields in processes() if int(fields[1]) == pid]


def running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def importing_torch(build: Build) -> None:
    build.wait_for_line("imports ...")


def writing_starts(build: Build) -> None:
    build.wait_for_line("writing ...")


def data_written(build: Build) -> None:
    build.wait_for_staged("figures.txt")  # the data files and downloads are in; the pages come next


def pages_written(build: Build) -> None:
    build.wait_for_staged("img")  # every page is in; the drawings go in last, then the swap


# When to kill: while Python loads torch, and at moments of the writing phase, which swaps the site in.
KILL_POINTS = {
    "while starting": importing_torch,
    "as writing starts": writing_starts,
    "during writing": data_written,
    "late in writing": pages_written,
}


@pytest.mark.parametrize("when", KILL_POINTS)
def test_sigkill_at_any_moment_leaves_a_whole_site(sites, built_sites, small_model_dir, when):
    out, old, new, new_config = sites
    build = Build("--model", small_model_dir, "--config", new_config, "--out", out, "--no-cache")
    KILL_POINTS[when](build)
    helpers = build.send(signal.SIGKILL)
    assert build.wait(timeout=60) == -signal.SIGKILL
    assert snapshot(out) in (old, new), f"killed {when}: the site is neither the old one nor the new one"
    # The drawing process sees its input end and ends too: a killed build leaves nothing running.
    wait_for(lambda: not any(running(pid) for pid in helpers), timeout=30)
    assert not [pid for pid in helpers if running(pid)], f"killed {when}: its drawing process still runs"
    # The next build tidies what the killed one left and ends with the new site.
    rebuild_after_a_crash(built_sites, small_model_dir, out)
    assert snapshot(out) == new
    assert not [p.name for p in out.parent.iterdir() if p.name.startswith(".site-")]


# When to press Ctrl-C: at each phase before the new site is swapped in.
CTRL_C_PHASES = ["imports", "model load", "run", "figures"]


@pytest.mark.parametrize("phase", CTRL_C_PHASES)
def test_ctrl_c_ends_with_one_line_and_keeps_the_previous_site(sites, small_model_dir, phase):
    out, old, _, new_config = sites
    build = Build("--model", small_model_dir, "--config", new_config, "--out", out, "--no-cache")
    build.wait_for_line(f"{phase} ...")
    helpers = build.send(signal.SIGINT)
    returncode = build.wait(timeout=60)
    assert not [pid for pid in helpers if running(pid)], "Ctrl-C left the drawing process running"
    assert returncode == 130, build.lines
    # Besides what --verbose says of its phases, the build says one line.
    assert build.said_besides_progress() == [INTERRUPTED]
    assert build.lines[-1] == INTERRUPTED
    assert snapshot(out) == old


def test_a_second_build_into_the_same_folder_is_refused_while_the_first_runs(sites, small_model_dir):
    from click.testing import CliRunner

    from build import cli

    out, _, new, new_config = sites
    first = Build("--model", small_model_dir, "--config", new_config, "--out", out, "--no-cache")
    first.wait_for_line("imports ...")  # it holds the folder's lock from before its imports
    assert "pid" in (out.parent / ".site.lock").read_text()
    second = CliRunner().invoke(
        cli, ["--model", str(small_model_dir), "--config", str(new_config), "--out", str(out), "--no-cache"]
    )
    assert first.wait(timeout=300) == 0, first.lines
    assert second.exit_code == 2
    assert len(second.stderr.strip().splitlines()) == 1 and "another build" in second.stderr
    assert snapshot(out) == new
