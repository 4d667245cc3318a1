"""Faults of the machine and of the files around the build end in one clear line (see docs/command.md, "When
something goes wrong"): a full disk, a cache that cannot be written, damaged weights, a config that is a folder, SIGTERM.

Each runs the real command in a process of its own and checks its exit code, that stderr is one line with no
traceback, that the previous site is kept byte for byte, and that no staging folder or drawing process is left.
A full disk is a real one: a small tmpfs, mounted where the tests may (as root, in CI); elsewhere the site's
writes fail from inside the test's own process.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import TWO_FIGURES, snapshot
from builds.test_rebuilds import Build, processes, running

REPO = Path(__file__).resolve().parents[2]
STOPPED = "error: stopped (SIGTERM); the previous site is unchanged"


def left_in_session(session: int) -> list[int]:
    """The processes still running in a session (a build started in a session of its own, and what it started)."""
    return [pid for pid, fields in processes() if int(fields[3]) == session and fields[0] != "Z"]


def build(*args, cwd=REPO) -> subprocess.CompletedProcess:
    """build.py in a process (and session) of its own; afterwards nothing it started, such as its drawing
    process, may still run."""
    process = subprocess.Popen(
        [sys.executable, str(REPO / "build.py"), *map(str, args)],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    stdout, stderr = process.communicate(timeout=600)
    left = left_in_session(process.pid)
    assert not left, f"the build left processes running: {left}"
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def one_line(result: subprocess.CompletedProcess, prefix: str = "error: ") -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(prefix), result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


def no_staging_left(out: Path) -> None:
    assert not [p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}-")]


@pytest.fixture(scope="module")
def old_site(small_model_dir, tmp_path_factory) -> Path:
    """A site built from the small model, to be kept whole by every failed build."""
    work = tmp_path_factory.mktemp("faults")
    config = work / "chapter.toml"
    config.write_text(TWO_FIGURES, encoding="utf-8")
    result = build("--model", small_model_dir, "--config", config, "--out", work / "site", "--no-cache")
    assert result.returncode == 0, result.stderr
    return work / "site"


@pytest.fixture
def config(tmp_path) -> Path:
    path = tmp_path / "chapter.toml"
    path.write_text(TWO_FIGURES.replace("focus = 9", "focus = 4"), encoding="utf-8")  # another site than the old
    return path


def mounted_tmpfs(where: Path, size: str):
    """Mounts a tmpfs of `size` at `where`; False where this machine does not let the tests mount one."""
    where.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    return (
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True
        ).returncode
        == 0
    )


@pytest.fixture
def small_disk(tmp_path):
    """A 12 MB disk of its own (tmpfs), or None where none can be mounted here."""
    where = tmp_path / "disk"
    if not mounted_tmpfs(where, "12m"):
        yield None
        return
    yield where
    subprocess.run(["umount", "-l", str(where)], capture_output=True)


def fill(disk: Path, leave: int) -> None:
    """Fills `disk` up to `leave` bytes free."""
    stat = os.statvfs(disk)
    free = stat.f_bavail * stat.f_frsize
    with open(disk / "filler", "wb") as handle:
        handle.write(b"\0" * max(0, free - leave))


def test_a_full_disk_under_the_site_ends_in_one_line_and_keeps_the_previous_site(
    old_site, small_disk, config, small_model_dir, tmp_path, monkeypatch
):
    if small_disk is None:  # no tmpfs here: fail the site's writes from inside this process instead
        from click.testing import CliRunner

        import sitegen.site.writers
        from build import cli

        out = tmp_path / "site"
        shutil.copytree(old_site, out)
        before = snapshot(out)

        class NoSpace:  # a writer that fills the disk half way through its page
            def write(self, folder, site):
                (folder / "index.html").write_text("half", encoding="utf-8")
                raise OSError(28, "No space left on device", str(folder / "data"))

        monkeypatch.setattr(sitegen.site.writers, "WRITERS", [*sitegen.site.writers.WRITERS[:2], NoSpace()])
        result = CliRunner().invoke(
            cli, ["--model", str(small_model_dir), "--config", str(config), "--out", str(out), "--no-cache"]
        )
        assert result.exit_code == 1 and "the disk is full" in result.stderr, result.output
    else:
        out = small_disk / "site"
        shutil.copytree(old_site, out)
        before = snapshot(out)
        fill(small_disk, leave=200_000)
        result = build("--model", small_model_dir, "--config", config, "--out", out, "--no-cache")
        assert result.returncode == 1, result.stderr
        line = one_line(result)
        assert str(small_disk) in line and "the disk is full" in line and "previous site is unchanged" in line
    assert snapshot(out) == before
    no_staging_left(out)


def test_a_full_cache_disk_warns_in_one_line_and_the_site_is_built_anyway(old_site, config, small_model_dir, tmp_path):
    cache = tmp_path / "cache"
    if not mounted_tmpfs(cache, "64k"):  # smaller than what the build keeps: the run, its charts, drawings
        pytest.fail("this test needs a 64 KB tmpfs: run it as root where mount works (CI does)")
    try:
        out = tmp_path / "site"
        shutil.copytree(old_site, out)
        result = build("--model", small_model_dir, "--config", config, "--out", out, "--cache", cache, "--quiet")
        assert result.returncode == 0, result.stderr
        line = one_line(result, "warning: ")
        assert str(cache) in line and "the disk is full" in line and "built anyway" in line
        assert (out / "figures.txt").read_text(encoding="utf-8") != (old_site / "figures.txt").read_text("utf-8")
        no_staging_left(out)
    finally:
        subprocess.run(["umount", "-l", str(cache)], capture_output=True)


def test_a_cache_that_is_a_file_warns_in_one_line_and_the_site_is_built_anyway(
    old_site, config, small_model_dir, tmp_path
):
    cache = tmp_path / "cache"
    cache.write_text("not a folder", encoding="utf-8")
    out = tmp_path / "site"
    result = build("--model", small_model_dir, "--config", config, "--out", out, "--cache", cache, "--quiet")
    assert result.returncode == 0, result.stderr
    line = one_line(result, "warning: ")
    assert str(cache) in line and "built anyway" in line
    assert (out / "index.html").is_file() and cache.read_text(encoding="utf-8") == "not a folder"


def test_damaged_weights_are_named_in_one_line_with_the_ways_out(old_site, config, small_model_dir, tmp_path):
    model = tmp_path / "model"
    shutil.copytree(small_model_dir, model)
    weights = model / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1_000_000])  # a download cut short
    out = tmp_path / "site"
    shutil.copytree(old_site, out)
    before = snapshot(out)
    result = build("--model", model, "--config", config, "--out", out, "--no-cache")
    assert result.returncode == 2
    line = one_line(result)
    assert str(weights) in line and "damaged or incomplete" in line and "another directory" in line
    assert snapshot(out) == before
    no_staging_left(out)


def test_a_config_that_is_a_folder_is_named_as_a_folder(old_site, small_model_dir, tmp_path):
    out = tmp_path / "site"
    shutil.copytree(old_site, out)
    before = snapshot(out)
    result = build("--model", small_model_dir, "--config", tmp_path, "--out", out, "--no-cache")
    assert result.returncode == 2
    assert "is a folder" in one_line(result) and str(tmp_path) in result.stderr
    assert snapshot(out) == before


def test_sigterm_ends_like_ctrl_c_in_one_line_with_exit_code_143(old_site, config, small_model_dir, tmp_path):
    """SIGTERM takes the path Ctrl-C takes (tests/builds/test_rebuilds.py sends Ctrl-C in every phase): once, mid-run."""
    out = tmp_path / "site"
    shutil.copytree(old_site, out)
    before = snapshot(out)
    started = Build("--model", small_model_dir, "--config", config, "--out", out, "--no-cache")
    started.wait_for_line("run ...")
    helpers = started.send(signal.SIGTERM)
    assert started.wait(timeout=60) == 128 + signal.SIGTERM, started.lines
    assert not [pid for pid in helpers if running(pid)], "SIGTERM left the drawing process running"
    assert started.said_besides_progress() == [STOPPED] and started.lines[-1] == STOPPED
    assert snapshot(out) == before
    no_staging_left(out)
