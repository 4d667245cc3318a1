"""Rendering: owns jinja2 and every file the build writes.

The site is written into a temporary folder beside `out` and swapped in only when complete, so a failed
build leaves the previous site as it was.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import jinja2

from figsite.errors import BuildError
from figsite.run import Run

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates"
STATIC = TEMPLATES / "static"
MARKER = ".gpt2-figures-site"  # says a folder was written by this tool, so a rebuild may replace it
CHART_THEMES = json.loads((TEMPLATES / "chart_themes.json").read_text(encoding="utf-8"))
STATIC_WIDTH = 640  # the width of the drawings made at build time, where no page gives a container


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

    @property
    def file(self) -> str:
        return f"figure-{self.label}.html"

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


def write_site(out: Path, run: Run, pages: list[Page], vega_bundle: str) -> None:
    """Writes the whole site into a fresh folder, then swaps it in for `out`."""
    out = Path(out).resolve()
    _check_out(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-new-", dir=out.parent))
    try:
        _write_all(staging, run, pages, vega_bundle)
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
    old = None
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}-old-", dir=out.parent))
        os.replace(out, old / "site")
    os.replace(staging, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _write_all(folder: Path, run: Run, pages: list[Page], vega_bundle: str) -> None:
    (folder / MARKER).write_text("Written by build.py; a rebuild replaces this folder.\n", encoding="utf-8")
    assets = folder / "assets"
    assets.mkdir()
    (assets / "vega.js").write_text(vega_bundle, encoding="utf-8")
    for static in sorted(STATIC.iterdir()):
        shutil.copyfile(static, assets / static.name)

    for path, content in run.files().items():
        target = folder / "data" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")

    (folder / "figures.txt").write_text("\n".join(page.text_figure for page in pages), encoding="utf-8")

    images = folder / "img"
    images.mkdir()
    for page in pages:
        svg, png = static_drawings(page.spec)
        (folder / f"{page.image}.svg").write_text(svg, encoding="utf-8")
        (folder / f"{page.image}.png").write_bytes(png)

    env = environment()
    common = {"run": run, "pages": pages, "notice": _notice(run), "chart_themes": CHART_THEMES}
    (folder / "index.html").write_text(env.get_template("index.html").render(**common), encoding="utf-8")
    for template, file in (("figure.html", "file"), ("embed.html", "embed_file")):
        for page in pages:
            html = env.get_template(template).render(page=page, **common)
            (folder / getattr(page, file)).write_text(html, encoding="utf-8")


def static_drawings(spec: dict) -> tuple[str, bytes]:
    """The chart's opening state drawn at build time (SVG for no-JavaScript and print, PNG for previews)."""
    import altair as alt
    import vl_convert

    fixed = _fixed_width(spec)
    fixed["config"] = {**CHART_THEMES["light"], "background": "white"}
    version = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
    return (vl_convert.vegalite_to_svg(fixed, vl_version=version),
            vl_convert.vegalite_to_png(fixed, vl_version=version, scale=1))


def _fixed_width(node):
    """A copy of a spec with every width "container" made a number: a drawing made at build time has no page."""
    if isinstance(node, dict):
        return {k: (STATIC_WIDTH if k == "width" and v == "container" else _fixed_width(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [_fixed_width(v) for v in node]
    return node


def _notice(run: Run) -> str | None:
    """The warning every page of a random model carries: its numbers are not GPT-2's."""
    if not run.is_random:
        return None
    return (f"These figures come from a model of GPT-2 small's shape whose weights are random numbers "
            f"({run.model['name']}), not from GPT-2. They show how the figures work; their numbers say nothing "
            "about GPT-2.")
