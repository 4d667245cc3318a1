"""Rendering: owns jinja2 and every file the build writes.

The site is written into a temporary folder beside `out` and swapped in only when complete, so a failed
build leaves the previous site as it was.
"""

from __future__ import annotations

import csv
import ctypes
import fcntl
import json
import os
import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import jinja2

from figsite import shared_names
from figsite.errors import BuildError
from figsite.run import Run

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"
STATIC = TEMPLATES / "static"
MARKER = ".gpt2-figures-site"  # says a folder was written by this tool, so a rebuild may replace it
CHART_THEMES = json.loads((TEMPLATES / "chart_themes.json").read_text(encoding="utf-8"))


RENDERED_STATIC = {"figures.js"}


def script(name: str) -> str:
    """A page script from templates/static, rendered with the names it shares with the figures."""
    return environment().get_template(f"static/{name}").render(names=shared_names.for_script())


@dataclass
class Page:
    """One figure's page, gathered before anything is written."""

    label: str
    kind: str
    title: str
    caption: str
    guide: str
    text_figure: str
    spec: dict  # the Vega-Lite spec of the figure's chart
    context: dict  # summary, reveals, facts: words from the data
    tables: dict  # name -> rows: the figure's data, offered as CSV and JSON
    texts: list  # the texts the figure reads
    explore: bool = False  # listed under "Explore further" on the index
    data_files: list = None  # (path, SHA-256) of the data files it reads, filled in when written

    @property
    def file(self) -> str:
        return f"figure-{self.label}.html"

    @property
    def part(self) -> str:
        """Where the index lists the figure: with the chapter's own, or under "Explore further"."""
        return "explore" if self.explore else "chapter"

    def download(self, name: str | None = None) -> str:
        """The downloads of the figure's data: the JSON of all its tables, or one table as CSV."""
        return f"downloads/figure-{self.label}.json" if name is None else f"downloads/figure-{self.label}-{name}.csv"

    @property
    def embed_file(self) -> str:
        return f"embed-{self.label}.html"

    @property
    def image(self) -> str:
        """The static drawing of the figure's opening state, without its extension (.svg, .png)."""
        return f"img/figure-{self.label}"

    @property
    def embed_snippet(self) -> str:
        return (f'<iframe src="site/{self.embed_file}" title="({self.label}) {self.title}" loading="lazy"\n'
                f'        style="width: 100%; height: 720px; border: 0"></iframe>')


def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


@contextmanager
def output_lock(out: Path):
    """Holds the output folder for one build. A second build into the same folder stops with a clear line.

    The lock is the kernel's (flock): it goes with the process, also when the process is killed.
    """
    out = Path(out).resolve()
    _check_out(out)  # before the model runs: a folder the build may not replace is refused at once
    out.parent.mkdir(parents=True, exist_ok=True)
    lock_path = out.parent / f".{out.name}.lock"
    with open(lock_path, "a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise BuildError(f"--out: another build ({holder}) is writing {out} right now; allowed: one build "
                             "per output folder at a time, so try again when it has finished") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}")
        handle.flush()
        _recover(out)
        try:
            yield
        finally:
            handle.seek(0)
            handle.truncate()


def _recover(out: Path) -> None:
    """Tidies what a killed build left beside `out`: its half-written folder, or a site it had moved aside."""
    for leftover in sorted(out.parent.glob(f".{out.name}-old-*")):
        kept = leftover / "site"
        if not out.exists() and kept.is_dir():
            os.replace(kept, out)  # killed between moving the old site aside and the new one in
        shutil.rmtree(leftover, ignore_errors=True)
    for leftover in out.parent.glob(f".{out.name}-new-*"):
        shutil.rmtree(leftover, ignore_errors=True)


def write_site(out: Path, run: Run, pages: list[Page], bundle, drawings: dict) -> None:
    """Writes the whole site into a fresh folder, then swaps it in for `out` (hold output_lock).

    bundle: returns the Vega bundle (bytes); drawings: label -> returns the figure's [SVG, PNG] (bytes). Both
    are asked for last, after every page is written: the drawing process may still be making them.
    """
    out = Path(out).resolve()
    _check_out(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-new-", dir=out.parent))
    try:
        _write_all(staging, run, pages, bundle, drawings)
        _swap(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _check_out(out: Path) -> None:
    """Refuses to replace a folder this tool did not write: `--out ~` must not wipe a home folder."""
    if out.exists() and not out.is_dir():
        raise BuildError(f"--out: {out} is a file; allowed: a folder for the site")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).exists():
        raise BuildError(f"--out: {out} holds files this tool did not write; allowed: a new or empty folder, "
                         "or one an earlier build wrote")


def _swap(staging: Path, out: Path) -> None:
    """Puts the new site in place. On Linux the two folders trade places in one step (renameat2 with
    RENAME_EXCHANGE), so at every moment `out` holds a whole site, the old or the new, even if the build is
    killed. Elsewhere the old site is moved aside first, and the next build puts it back if need be."""
    if not out.exists():
        os.replace(staging, out)
        return
    if _exchange(staging, out):
        shutil.rmtree(staging, ignore_errors=True)  # now holds the old site
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}-old-", dir=out.parent))
    os.replace(out, old / "site")
    os.replace(staging, out)
    shutil.rmtree(old, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Swaps two paths atomically where the system can (Linux 3.15+, glibc 2.28+); False where it can't."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    return renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0


def _write_all(folder: Path, run: Run, pages: list[Page], bundle, drawings: dict) -> None:
    (folder / MARKER).write_text("Written by build.py; a rebuild replaces this folder.\n", encoding="utf-8")
    assets = folder / "assets"
    assets.mkdir()
    for static in sorted(STATIC.iterdir()):
        if static.name in RENDERED_STATIC:  # written with the names it shares with the figures
            (assets / static.name).write_text(script(static.name), encoding="utf-8")
        else:
            shutil.copyfile(static, assets / static.name)

    checksums = {f"data/{path}": digest for path, digest in run.write_files(folder / "data").items()}
    for page in pages:
        page.data_files = [(f"data/{run.slugs[text]}.json", checksums[f"data/{run.slugs[text]}.json"])
                           for text in page.texts] + [("data/run.json", checksums["data/run.json"])]
        _write_downloads(folder, page, run)

    (folder / "figures.txt").write_text("\n".join(page.text_figure for page in pages), encoding="utf-8")

    env = environment()
    common = {"run": run, "pages": pages, "notice": _notice(run), "chart_themes": CHART_THEMES,
              "text_pages": text_pages(run, pages)}
    (folder / "index.html").write_text(env.get_template("index.html").render(**common), encoding="utf-8")
    for template, file in (("figure.html", "file"), ("embed.html", "embed_file")):
        for page in pages:
            html = env.get_template(template).render(page=page, **common)
            (folder / getattr(page, file)).write_text(html, encoding="utf-8")
    for text_page in common["text_pages"]:
        html = env.get_template("text.html").render(text_page=text_page, **common)
        (folder / text_page.file).write_text(html, encoding="utf-8")

    (assets / "vega.js").write_bytes(bundle())
    images = folder / "img"
    images.mkdir()
    for page in pages:
        for suffix, drawing in zip(("svg", "png"), drawings[page.label]()):
            (folder / f"{page.image}.{suffix}").write_bytes(drawing)


@dataclass
class TextPage:
    """Every figure that reads one text, on one page, their token choices linked."""

    text: str
    slug: str
    pages: list

    @property
    def file(self) -> str:
        return f"text-{self.slug}.html"


def text_pages(run: Run, pages: list[Page]) -> list[TextPage]:
    """A page for each text that two or more figures read."""
    out = []
    for text, slug in run.slugs.items():
        reading = [page for page in pages if page.texts == [text]]
        if len(reading) >= 2:
            out.append(TextPage(text, slug, reading))
    return out


def _write_downloads(folder: Path, page: Page, run: Run) -> None:
    """The figure's data as JSON (every table, with the model and texts) and as one CSV per table."""
    downloads = folder / "downloads"
    downloads.mkdir(exist_ok=True)
    content = {"figure": page.label, "kind": page.kind, "title": page.title, "model": run.model,
               "texts": page.texts, "tables": page.tables}
    (folder / page.download()).write_text(json.dumps(content, ensure_ascii=False, separators=(",", ":")),
                                          encoding="utf-8")
    for name, rows in page.tables.items():
        columns = list(dict.fromkeys(key for row in rows for key in row))
        with open(folder / page.download(name), "w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
            writer.writeheader()
            writer.writerows({k: (json.dumps(v) if isinstance(v, (list, dict)) else v) for k, v in row.items()}
                             for row in rows)


def _notice(run: Run) -> str | None:
    """The warning every page of a random model carries: its numbers are not GPT-2's."""
    if not run.is_random:
        return None
    return (f"These figures come from a model of GPT-2 small's shape whose weights are random numbers "
            f"({run.model['name']}), not from GPT-2. They show how the figures work; their numbers say nothing "
            "about GPT-2.")
