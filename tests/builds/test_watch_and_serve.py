"""The author's loop: `--watch` rebuilds after each change to the config, a template or a static file, and
`--serve` shows it in the open pages, live (tests/browser/test_watch_and_serve_page.py), while the site on disk
stays a plain build's."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import SMALL_CONFIG, snapshot

REPO = Path(__file__).resolve().parents[2]
NEW_CAPTION = "The caption as the author has just written it."
BROKEN_LINE = (
    "error: chapter.toml: figure 1 (label 'l'), field 'views': layer 9 is not in the model; allowed: layers 1 to 3"
)
REBUILT = re.compile(r"rebuilt \S+ after a change to \S+ in (\d+\.\d+) s \((from the cache|.* ran):")


def with_caption(config: str, caption: str) -> str:
    return config.replace('label = "l"\n', f'label = "l"\ncaption = "{caption}"\n', 1)


def broken(config: str) -> str:
    return config.replace("views = [[2, 3]", "views = [[9, 3]", 1)


def write(path: Path, text: str) -> None:
    """Writes the config as editors do: a new file renamed over the old one."""
    draft = path.with_name(path.name + ".draft")
    draft.write_text(text, encoding="utf-8")
    os.replace(draft, path)


class Served:
    """`build.py --serve 0` in a process of its own, its stdout and stderr read line by line by threads."""

    def __init__(self, *args, project: Path = REPO):
        self.process = subprocess.Popen(
            [sys.executable, "build.py", "--serve", "0", *map(str, args)],
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.out, self.err = [], []
        self._said = threading.Condition()
        self._readers = [
            threading.Thread(target=self._read, args=(stream, lines), daemon=True)
            for stream, lines in ((self.process.stdout, self.out), (self.process.stderr, self.err))
        ]
        for reader in self._readers:
            reader.start()

    def _read(self, stream, lines: list) -> None:
        for line in stream:
            with self._said:
                lines.append(line.rstrip("\n"))
                self._said.notify_all()

    def wait_for(self, pattern: str, lines: list, timeout: float) -> re.Match:
        """Waits until a line of `lines` matches `pattern`; fails where the process ends or time runs out."""
        found = self.said(pattern, lines, timeout)
        assert found, f"never said {pattern!r}; stdout {self.out}, stderr {self.err}"
        return found

    def said(self, pattern: str, lines: list, timeout: float) -> re.Match | None:
        """The first line of `lines` that matches `pattern`, waiting for it until the process ends or time runs
        out; None where none does."""

        def found():
            return next((m for m in map(re.compile(pattern).search, lines) if m), None)

        with self._said:
            self._said.wait_for(lambda: found() or self.process.poll() is not None, timeout)
            return found()

    def after_edit(self, edit, pattern: str, lines: list, tries: int = 12) -> re.Match:
        """Edits a file (`edit()`) until the process says `pattern`: the watch begins watching just after it says
        so, and an edit made in between goes unseen."""
        for _ in range(tries):
            edit()
            if self.said(pattern, lines, 5) or self.process.poll() is not None:
                break
        return self.wait_for(pattern, lines, 1)

    @property
    def url(self) -> str:
        return self.wait_for(r"at (http://127\.0\.0\.1:\d+/)", self.out, 10).group(1)

    def stop(self, signum=signal.SIGINT) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signum)
        code = self.process.wait(timeout=30)
        for reader in self._readers:
            reader.join(timeout=10)
        return code


@pytest.fixture(scope="module")
def served(small_model_dir, tmp_path_factory):
    """The small model's three figures served from a fresh folder, after the first build (from the cache
    where small_build ran first)."""
    work = tmp_path_factory.mktemp("served")
    (work / "chapter.toml").write_text(SMALL_CONFIG, encoding="utf-8")
    process = Served("--model", small_model_dir, "--config", work / "chapter.toml", "--out", work / "site")
    try:
        process.wait_for(r"^watching ", process.out, 180)
        process.config, process.site = work / "chapter.toml", work / "site"
        yield process
    finally:
        if process.process.poll() is None:
            process.process.kill()
            process.process.wait()


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read()


def test_the_site_on_disk_is_a_plain_builds_byte_for_byte_and_only_served_html_carries_the_reload_script(
    served, small_build
):
    assert snapshot(served.site) == snapshot(small_build)
    for name in ("figure-l.html", "index.html"):
        on_disk = (served.site / name).read_bytes()
        sent = fetch(served.url + name)
        assert b"live-reload" not in on_disk
        assert b'<script id="live-reload"' in sent
        assert sent.replace(sent[sent.index(b'<script id="live-reload"') : sent.index(b"</body>")], b"") == on_disk
    assert fetch(served.url) == fetch(served.url + "index.html")
    for name in ("figures.txt", "assets/figures.js", "data/run.json"):
        assert fetch(served.url + name) == (served.site / name).read_bytes(), name


def test_ctrl_c_ends_the_watch_with_one_line(served):
    before = list(served.err)
    assert served.stop(signal.SIGINT) == 0
    said = served.err[len(before) :]
    assert said == [f"stopped watching; {served.site}{os.sep} holds the last good site"]


def test_a_port_in_use_is_one_line_and_exit_2(small_model_dir, tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        (tmp_path / "chapter.toml").write_text(SMALL_CONFIG, encoding="utf-8")
        from build import cli

        result = CliRunner().invoke(
            cli,
            [
                "--serve",
                str(port),
                "--model",
                str(small_model_dir),
                "--config",
                str(tmp_path / "chapter.toml"),
                "--out",
                str(tmp_path / "site"),
            ],
        )
    assert result.exit_code == 2
    assert result.output.splitlines() == [
        f"error: --serve: port {port} on 127.0.0.1 is in use; allowed: a free port, such as --serve {port + 1}, "
        "or --serve 0 for any free one"
    ]
    assert not (tmp_path / "site").exists()


def test_a_failed_rebuild_says_its_one_line_error_keeps_the_last_good_site_and_the_watch_goes_on(
    small_model_dir, tmp_path, capsys
):
    from figsite.data import cache
    from sitegen.pipeline import Settings
    from sitegen.site.render import TEMPLATES
    from sitegen.author.watch import shown, watch_site

    config, out = tmp_path / "chapter.toml", tmp_path / "site"
    config.write_text(SMALL_CONFIG, encoding="utf-8")
    sites = []

    def edits():
        sites.append(snapshot(out))
        write(config, broken(SMALL_CONFIG))
        yield {("modified", str(config))}
        sites.append(snapshot(out))
        write(config, with_caption(SMALL_CONFIG, NEW_CAPTION))
        yield {("modified", str(config))}
        sites.append(snapshot(out))
        raise KeyboardInterrupt  # Ctrl-C

    settings = Settings(config=config, model=str(small_model_dir), out=out, cache_dir=cache.default_dir())
    assert watch_site(settings, changes=edits()) == 0
    said = capsys.readouterr()
    assert said.err.splitlines() == [BROKEN_LINE, f"stopped watching; {out}{os.sep} holds the last good site"]
    assert [line.split(" in ")[0] for line in said.out.splitlines()] == [
        f"built {out}{os.sep}",
        f"watching {config}, {shown(TEMPLATES)}{os.sep} and the code for changes; Ctrl-C ends",
        f"rebuilt {out}{os.sep} after a change to {config}",
    ]
    assert sites[1] == sites[0] != sites[2]
    assert NEW_CAPTION in (out / "figure-l.html").read_text(encoding="utf-8")


def test_a_change_to_a_template_or_a_static_file_calls_for_a_rebuild_and_the_site_beside_the_config_does_not(tmp_path):
    from watchfiles import Change

    from sitegen.site.render import STATIC, TEMPLATES
    from sitegen.author.watch import Watched, watched_folders

    config = tmp_path / "chapter.toml"
    wanted = Watched(config)
    assert wanted(Change.modified, str(config))
    assert wanted(Change.modified, str(TEMPLATES / "figure.html"))
    assert wanted(Change.added, str(STATIC / "site.css"))
    assert not wanted(Change.modified, str(TEMPLATES / "js" / "figures" / "main.js"))  # until bundled into static/
    assert not wanted(Change.added, str(tmp_path / "site" / "index.html"))
    assert not wanted(Change.added, str(tmp_path / ".site-new-abc" / "index.html"))
    assert not wanted(Change.modified, str(tmp_path / "notes.toml"))
    assert not wanted(Change.modified, str(TEMPLATES / ".figure.html.swp"))
    code = {path.parent for package in ("figures", "figsite", "sitegen") for path in (REPO / package).rglob("*.py")}
    generated = {TEMPLATES / "generated", TEMPLATES / "generated" / "assets", TEMPLATES / "generated" / "live"}
    assert set(watched_folders(config)) == {tmp_path, TEMPLATES, STATIC, *generated, REPO, *code}  # REPO: build.py's


def test_a_change_to_a_python_file_of_the_project_calls_for_a_rebuild_and_one_elsewhere_does_not(tmp_path):
    from watchfiles import Change

    from sitegen.author.watch import Watched, is_code

    wanted = Watched(tmp_path / "chapter.toml")
    for path in (
        REPO / "build.py",
        REPO / "figures" / "attention.py",
        REPO / "figures" / "toolkit" / "words.py",
        REPO / "sitegen" / "pipeline.py",
        REPO / "sitegen" / "site" / "render.py",
    ):
        assert is_code(path) and wanted(Change.modified, str(path)), path
    assert not wanted(Change.modified, str(tmp_path / "notes.py"))
    assert not wanted(Change.modified, str(REPO / "tests" / "conftest.py"))
    assert not wanted(Change.added, str(REPO / "figsite" / "__pycache__" / "pipeline.cpython-311.pyc"))


def test_a_change_to_the_code_restarts_the_watch_on_the_same_port_after_the_build_it_had_counted(
    small_model_dir, tmp_path, capsys
):
    from figsite.data import cache
    from sitegen.pipeline import Settings
    from sitegen.author.watch import watch_site

    config, out = tmp_path / "chapter.toml", tmp_path / "site"
    config.write_text(SMALL_CONFIG, encoding="utf-8")
    restarts = []

    def edits():
        yield {("modified", str(REPO / "figures" / "attention.py"))}  # the code as it is: it imports
        raise AssertionError("the watch went on with the old code")

    settings = Settings(config=config, model=str(small_model_dir), out=out, cache_dir=cache.default_dir())
    watch_site(settings, changes=edits(), restart=lambda *restart: restarts.append(restart) or 0)
    assert restarts == [
        (["figures/attention.py"] if Path.cwd() == REPO else [str(REPO / "figures/attention.py")], None, 1)
    ]
    said = capsys.readouterr()
    assert said.out.splitlines()[-1] == f"restarting with the new code after a change to {restarts[0][0][0]}"
    assert said.err == ""


def project_copy(folder: Path) -> Path:
    """The project's code, templates and build.py, copied into `folder` (a test edits the copy, not the tree)."""
    for name in ("figures", "figsite", "sitegen", "templates"):
        shutil.copytree(REPO / name, folder / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(REPO / "build.py", folder / "build.py")
    return folder


def test_an_edit_of_a_python_file_rebuilds_with_the_new_code_on_the_same_port_and_broken_code_keeps_the_watch(
    small_model_dir, tmp_path
):
    project = project_copy(tmp_path / "project")
    (tmp_path / "chapter.toml").write_text(SMALL_CONFIG, encoding="utf-8")
    site, kind = tmp_path / "site", project / "figures" / "attention.py"
    process = Served(
        "--model",
        small_model_dir,
        "--config",
        tmp_path / "chapter.toml",
        "--out",
        site,
        "--cache",
        tmp_path / "cache",
        project=project,
    )
    try:
        process.wait_for(r"^watching ", process.out, 180)
        url = process.url
        assert json.loads(fetch(url + "__live")) == {"build": 1, "error": None}
        assert "It now opens on" not in (site / "figure-l.html").read_text(encoding="utf-8")
        old = kind.read_text(encoding="utf-8")
        process.after_edit(
            lambda: write(kind, old.replace('"It opens on ', '"It now opens on ', 1)),
            r"^restarting with the new code after a change to figures/attention\.py$",
            process.out,
        )
        process.wait_for(r"^rebuilt .* after a change to figures/attention\.py in .*from the cache", process.out, 180)
        # The page cache is keyed by the code: the summary is the new code's, the run the cache's.
        assert "It now opens on" in (site / "figure-l.html").read_text(encoding="utf-8")
        assert json.loads(fetch(url + "__live")) == {"build": 2, "error": None}  # the same port, the next build
        new = kind.read_text(encoding="utf-8")
        line = process.after_edit(
            lambda: write(kind, new + "\ndef broken(:\n"),
            r"^error: after the change to figures/attention\.py the code does not import "
            r"\(SyntaxError: .*\); the watch goes on with the code it had$",
            process.err,
        )
        assert json.loads(fetch(url + "__live")) == {"build": 2, "error": line.group(0)}
        assert process.stop(signal.SIGINT) == 0
        assert [line for line in process.out if line.startswith(("serving", "watching"))] == [
            f"serving {site}{os.sep} at {url} (localhost only); open pages reload after each rebuild",
            f"watching {tmp_path / 'chapter.toml'}, templates{os.sep} and the code for changes; Ctrl-C ends",
        ]
    finally:
        if process.process.poll() is None:
            process.process.kill()
            process.process.wait()
