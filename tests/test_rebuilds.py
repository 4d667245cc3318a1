"""Rebuilds: the cache of model runs, byte-identical output, and a site that survives a killed or
interrupted build and a second build at the same time. Real subprocesses where a process must die."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import TWO_FIGURES, snapshot

REPO = Path(__file__).resolve().parent.parent

CONFIG = TWO_FIGURES
OTHER_CONFIG = CONFIG.replace("focus = 9", "focus = 4").replace(" France", " Europe")




def build_here(*args) -> None:
    """build.py in this process (no torch import to pay again), where no process has to die."""
    from click.testing import CliRunner

    from build import cli

    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output


def build(*args, env=None, check=True) -> subprocess.CompletedProcess:
    """build.py in a process of its own, as an author runs it."""
    result = subprocess.run([sys.executable, "build.py", *map(str, args)], cwd=REPO, capture_output=True,
                            text=True, env={**os.environ, **(env or {})}, timeout=600)
    if check:
        assert result.returncode == 0, result.stderr
    return result


def start_build(*args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "build.py", *map(str, args)], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


@pytest.fixture
def config(tmp_path) -> Path:
    path = tmp_path / "chapter.toml"
    path.write_text(CONFIG, encoding="utf-8")
    return path


@pytest.fixture
def cache_dir(tmp_path) -> Path:
    return tmp_path / "cache"


# ---------------------------------------------------------------------------------------------- the cache

def test_rebuild_of_same_model_and_texts_reads_the_cache_and_never_imports_torch_or_altair(small_model_dir, config,
                                                                                           cache_dir, tmp_path):
    first = tmp_path / "first"
    build("--model", small_model_dir, "--config", config, "--out", first, "--cache", cache_dir)
    second = tmp_path / "second"
    probe = ("import sys, runpy; sys.argv = sys.argv[1:]; "
             "exit_code = 0\n"
             "try:\n    runpy.run_path('build.py', run_name='__main__')\n"
             "except SystemExit as e:\n    exit_code = e.code or 0\n"
             "print('torch imported:', 'torch' in sys.modules, 'transformers imported:', 'transformers' in sys.modules,\n"
             "      'altair imported:', 'altair' in sys.modules)\n"
             "sys.exit(exit_code)")
    result = subprocess.run([sys.executable, "-c", probe, "build.py", "--model", str(small_model_dir), "--config",
                             str(config), "--out", str(second), "--cache", str(cache_dir), "--verbose"],
                            cwd=REPO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    # Nothing to compute or draw: neither torch nor Altair loads.
    assert "torch imported: False transformers imported: False altair imported: False" in result.stdout
    assert "cache: using the stored run" in result.stderr
    assert snapshot(first) == snapshot(second)


def test_changed_caption_renders_again_from_the_cache(small_model_dir, config, cache_dir, tmp_path):
    out = tmp_path / "site"
    build("--model", small_model_dir, "--config", config, "--out", out, "--cache", cache_dir)
    before = snapshot(out)
    config.write_text(CONFIG.replace('label = "l"\n', 'label = "l"\ncaption = "Who does it look at?"\n'),
                      encoding="utf-8")
    result = build("--model", small_model_dir, "--config", config, "--out", out, "--cache", cache_dir, "-v")
    assert "cache: using the stored run" in result.stderr and "model load" not in result.stderr
    after = snapshot(out)
    assert "Who does it look at?" in (out / "figure-l.html").read_text(encoding="utf-8")
    assert {k: v for k, v in after.items() if k.startswith("data/")} == \
           {k: v for k, v in before.items() if k.startswith("data/")}


def ran_the_model(result) -> bool:
    return "model load" in result.stderr


def test_cache_misses_when_the_texts_change(small_model_dir, config, cache_dir, tmp_path):
    out = tmp_path / "site"
    assert ran_the_model(build("--model", small_model_dir, "--config", config, "--out", out, "--cache", cache_dir, "-v"))
    assert not ran_the_model(build("--model", small_model_dir, "--config", config, "--out", out, "--cache", cache_dir, "-v"))
    config.write_text(CONFIG.replace("too tired", "too wide"), encoding="utf-8")
    assert ran_the_model(build("--model", small_model_dir, "--config", config, "--out", out, "--cache", cache_dir, "-v"))


def test_cache_misses_when_the_models_files_change(small_model_dir, config, cache_dir, tmp_path):
    import shutil

    model = tmp_path / "model"
    shutil.copytree(small_model_dir, model)
    out = tmp_path / "site"
    assert ran_the_model(build("--model", model, "--config", config, "--out", out, "--cache", cache_dir, "-v"))
    settings = json.loads((model / "config.json").read_text(encoding="utf-8"))
    settings["layer_norm_epsilon"] = 1e-3  # other weights' numbers: another model
    (model / "config.json").write_text(json.dumps(settings), encoding="utf-8")
    result = build("--model", model, "--config", config, "--out", out, "--cache", cache_dir, "-v")
    assert ran_the_model(result)


def test_cache_misses_when_random_seed_or_device_or_rerun_asks(config, cache_dir, tmp_path):
    from figsite import cache

    requests = {"Maya lives": " France"}
    base = cache.key(cache.model_identity("random", None, 0), requests, "cpu")
    assert cache.key(cache.model_identity("random", None, 1), requests, "cpu") != base
    assert cache.key(cache.model_identity("random", None, 0), requests, "cuda") != base
    assert cache.key(cache.model_identity("random", None, 0), {"Maya lives": " Europe"}, "cpu") != base
    assert cache.key(cache.model_identity("random", None, 0), requests, "cpu") == base


def test_cache_misses_when_the_data_format_version_changes(monkeypatch):
    from figsite import cache

    identity, requests = cache.model_identity("random", None, 0), {"Maya lives": None}
    before = cache.key(identity, requests, "cpu")
    monkeypatch.setattr(cache, "CAPTURE_VERSION", cache.CAPTURE_VERSION + 1)
    assert cache.key(identity, requests, "cpu") != before


def test_hub_models_are_keyed_on_the_resolved_commit(tmp_path, monkeypatch):
    from figsite import cache

    hub = tmp_path / "hub"
    refs = hub / "models--openai-community--gpt2" / "refs"
    refs.mkdir(parents=True)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(hub))
    (refs / "main").write_text("a" * 40, encoding="utf-8")
    first = cache.model_identity("openai-community/gpt2", None, 0)
    assert first == {"kind": "hub", "id": "openai-community/gpt2", "commit": "a" * 40}
    (refs / "main").write_text("b" * 40, encoding="utf-8")  # the hub moved on: another revision
    second = cache.model_identity("openai-community/gpt2", None, 0)
    assert cache.key(first, {}, "cpu") != cache.key(second, {}, "cpu")
    assert cache.model_identity("openai-community/gpt2", "c" * 40, 0)["commit"] == "c" * 40
    assert cache.model_identity("no-such/model", None, 0) is None  # unknown: never cached


def test_a_corrupt_cache_entry_is_detected_and_the_model_runs_again(small_model_dir, config, cache_dir, tmp_path):
    out = tmp_path / "site"
    build("--model", small_model_dir, "--config", config, "--out", out, "--cache", cache_dir)
    before = snapshot(out)
    stored = next(p for p in cache_dir.rglob("*.json") if p.parent.name == "data" and p.name != "run.json")
    raw = bytearray(stored.read_bytes())
    raw[len(raw) // 2] ^= 0x01
    stored.write_bytes(bytes(raw))
    result = build("--model", small_model_dir, "--config", config, "--out", out, "--cache", cache_dir, "-v")
    assert "damaged" in result.stderr and ran_the_model(result)
    assert snapshot(out) == before
    again = build("--model", small_model_dir, "--config", config, "--out", out, "--cache", cache_dir, "-v")
    assert not ran_the_model(again)


# ---------------------------------------------------------------------------------------------- reproducible

def test_two_builds_from_the_same_inputs_are_byte_identical(small_model_dir, config, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    build("--model", small_model_dir, "--config", config, "--out", a, "--no-cache")
    build("--model", small_model_dir, "--config", config, "--out", b, "--no-cache")
    first, second = snapshot(a), snapshot(b)
    assert len(first) > 10 and first == second


# ---------------------------------------------------------------------------------------------- crashes

@pytest.fixture(scope="module")
def built_sites(small_model_dir, tmp_path_factory):
    """An old site from CONFIG and the new one OTHER_CONFIG gives, each built once for the module."""
    work = tmp_path_factory.mktemp("crashes")
    old_config, new_config = work / "old.toml", work / "new.toml"
    old_config.write_text(CONFIG, encoding="utf-8")
    new_config.write_text(OTHER_CONFIG, encoding="utf-8")
    old, new = work / "old-site", work / "new-site"
    build_here("--model", small_model_dir, "--config", old_config, "--out", old, "--no-cache")
    build_here("--model", small_model_dir, "--config", new_config, "--out", new, "--no-cache")
    return old, new, new_config


@pytest.fixture
def sites(built_sites, tmp_path):
    """A copy of the old site where a build of the new config is about to go."""
    import shutil

    old, new, new_config = built_sites
    out = tmp_path / "site"
    shutil.copytree(old, out)
    return out, snapshot(old), snapshot(new), new_config


def wait_for(condition, timeout=120.0):
    deadline = time.time() + timeout
    while time.time() < deadline and not condition():
        time.sleep(0.02)


def children(pid: int) -> list[int]:
    """The processes `pid` started (the drawing process), from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# When to kill: while Python and torch load, and at moments of the writing phase, which swaps the site in.
KILL_POINTS = [("while starting", None, 0.5), ("as writing starts", "writing", 0.0),
               ("during writing", "writing", 0.6), ("late in writing", "writing", 1.5)]


@pytest.mark.parametrize("when, phase, delay", KILL_POINTS, ids=[k[0] for k in KILL_POINTS])
def test_sigkill_at_any_moment_leaves_a_whole_site(sites, small_model_dir, when, phase, delay):
    out, old, new, new_config = sites
    process = start_build("--model", small_model_dir, "--config", new_config, "--out", out, "--no-cache")
    if phase == "writing":  # the staging folder appears when writing begins
        wait_for(lambda: any(p.name.startswith(".site-new-") for p in out.parent.iterdir())
                 or process.poll() is not None)
    time.sleep(delay)
    helpers = children(process.pid)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    assert snapshot(out) in (old, new), f"killed {when}: the site is neither the old one nor the new one"
    # The drawing process sees its input end and ends too: a killed build leaves nothing running.
    wait_for(lambda: not any(running(pid) for pid in helpers), timeout=30)
    assert not [pid for pid in helpers if running(pid)], f"killed {when}: its drawing process still runs"
    # The next build tidies what the killed one left and ends with the new site.
    build_here("--model", small_model_dir, "--config", new_config, "--out", out, "--no-cache")
    assert snapshot(out) == new
    assert not [p.name for p in out.parent.iterdir() if p.name.startswith(".site-")]


@pytest.mark.parametrize("delay", [0.4, 1.5, 1.9, 3.0])
def test_ctrl_c_ends_with_one_line_and_keeps_the_previous_site(sites, small_model_dir, delay):
    out, old, _, new_config = sites
    process = start_build("--model", small_model_dir, "--config", new_config, "--out", out, "--no-cache")
    time.sleep(delay)
    helpers = children(process.pid)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert not [pid for pid in helpers if running(pid)], "Ctrl-C left the drawing process running"
    if process.returncode == 0:
        pytest.skip("the build had finished before the signal came")
    assert process.returncode == 130
    assert stderr.strip().splitlines() == ["error: interrupted; the previous site is unchanged"]
    assert snapshot(out) == old


def test_a_second_build_into_the_same_folder_is_refused_while_the_first_runs(sites, small_model_dir):
    out, _, new, new_config = sites
    first = start_build("--model", small_model_dir, "--config", new_config, "--out", out, "--no-cache")
    lock = out.parent / ".site.lock"
    deadline = time.time() + 60
    while time.time() < deadline and "pid" not in (lock.read_text() if lock.exists() else ""):
        time.sleep(0.05)
    second = build("--model", small_model_dir, "--config", new_config, "--out", out, "--no-cache", check=False)
    assert first.wait(timeout=300) == 0, first.stderr.read()
    assert second.returncode == 2
    assert len(second.stderr.strip().splitlines()) == 1 and "another build" in second.stderr
    assert snapshot(out) == new
