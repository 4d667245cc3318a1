"""Rendering: owns jinja2, the templates, and what a page of the site shows (Page, ShownPage, TextPage). The
files of the site are written by sitegen.site.writers, each output by its writer; where the site is written, and
how it replaces the previous one, is sitegen.site.output's.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import jinja2

from figsite.config import figure_name
from figsite.data import paths
from sitegen.site import policy, public
from figures.toolkit import model_names
from sitegen.site.qr import qr_size_mm
from figsite.data.run import Run
from figures.toolkit import family, terms
from figures.toolkit.words import escaped, number, shown

ROOT = Path(__file__).resolve().parents[2]  # sitegen/site/this.py -> the project folder (templates/ is there)
TEMPLATES = ROOT / "templates"
STATIC = TEMPLATES / "static"
# What `npm run bundle` writes from templates/js/ (tools/bundle.mjs), committed and marked generated (.gitattributes):
# its assets/ are copied into every site's assets/ beside templates/static/'s files.
GENERATED = TEMPLATES / "generated"
# Vega and vega-embed without the Vega-Lite compiler (the charts are compiled at build time), bundled from npm's
# lockfile by `npm run bundle` (tools/bundle.mjs) and committed: written into every site as assets/vega.js.
VEGA_SCRIPT = GENERATED / "vega.js"
CHART_THEMES = json.loads((TEMPLATES / "chart_themes.json").read_text(encoding="utf-8"))


# The words of a guide that a touch screen says otherwise (Page.guide_parts): as written, then (with a mouse, on touch).
BY_DEVICE = {"{hover}": ("hover or tap", "tap"), "{Hover}": ("Hover or tap", "Tap"),
             "click or tap": ("click or tap", "tap"), "Click or tap": ("Click or tap", "Tap")}
# "{mouse:words}": words said with a mouse only, where a phone's marks are too small to tap (figures.kind GUIDE).
MOUSE_ONLY = re.compile(r"\{mouse:([^}]*)\}")
BY_DEVICE_PATTERN = re.compile("(" + "|".join(re.escape(written) for written in BY_DEVICE) + r"|\{mouse:[^}]*\})")


def by_device(written: str) -> tuple[str, str]:
    """What a guide's `written` piece says (with a mouse, on touch); ("", "") for none."""
    mouse_only = MOUSE_ONLY.fullmatch(written)
    return (mouse_only.group(1), "") if mouse_only else BY_DEVICE.get(written, ("", ""))


@dataclass(frozen=True)
class Page:
    """One figure's page as the run and its kind make it, built once (sitegen.pipeline.gather_page) before anything
    is written. What only the writing knows (its chart compiled, its address, its data files' checksums) is
    ShownPage's."""

    label: str
    kind: str
    title: str
    caption: str
    guide: str
    key: str  # how to read the chart, shown directly above it (figures.kind key)
    text_figure: str
    spec: dict  # the Vega-Lite spec of the figure's chart
    context: dict  # summary, reveals, facts: words from the data
    tables: dict  # name -> rows: the figure's data, offered as CSV and JSON
    texts: list  # the texts the figure reads
    text_names: tuple = ()  # what the page calls each text above its row of tokens (figures.kind TEXT_NAMES)
    explore: bool = False  # listed under "Explore further" on the index
    printed: bool = False  # the book prints it (figures.kind PRINTED_IN_BOOK): its text is "as printed in the book"
    reach: bool = False  # a token sees only the tokens up to it (figures.kind REACH): the token row shades the rest
    narrow_spec: dict = None  # the Vega-Lite spec of the chart for columns under 480 px (figures.kind narrow_chart)
    loads: dict = None  # files its page loads on demand: path under data/ -> payload (figures.kind loads)
    position: int | None = None  # the 0-based token it reads or opens on, if any (figures.kind: `opening`)
    reads: tuple = ()  # data files besides its texts' that it reads (paths under data/; figures.kind DATA_FILES)
    number: str | None = None  # the book's number of the figure ("3.4"), where the config gives one
    book_page: int | None = None  # the book's page it is printed on, where the config gives one
    live_target: str | None = None  # the token it follows, as text (figures.kind live_target): its own sentence's at first
    notebook: dict | None = None  # what its notebook recomputes (sitegen.content.notebook_of), or None
    live_versus: str | None = None  # the token that one is measured against (figures.kind live_versus): patching's
    runs: tuple = ("",)  # the folders (Run.folder) of the runs it reads: "" the site's main model's; several side by side
    kept_as: str | None = None  # a digest of what its content was computed from, where the cache keeps it: what
    # is written from the content alone (its downloads) may be kept under it too; None: computed afresh, not kept

    @property
    def file(self) -> str:
        return paths.figure_page(self.label)

    @property
    def name(self) -> str:
        """How the pages name the figure before its title: "Figure 3.4" where the book numbers it, else nothing
        (a reader never sees a config label: it names the figure's files and address only)."""
        return f"Figure {self.number}" if self.number else ""

    @property
    def full_name(self) -> str:
        """The figure's name and title in one line, for a page's <title>, a link preview, an iframe's title:
        "Figure 3.4 The guess takes shape layer by layer", or its title alone."""
        return f"{self.name} {self.title}" if self.name else self.title

    @property
    def shown_text_figure(self) -> str:
        """The text figure as its page shows it: its first line names the figure as the page does. figures.txt and
        --check-book keep the label line the book prints ("(i) title", figsite.config.figure_name)."""
        printed = f"{figure_name(self.label, self.number)} "
        if self.text_figure.startswith(printed):
            rest = self.text_figure[len(printed):]
            return f"{self.name} {rest}" if self.name else rest
        return self.text_figure

    @property
    def guide_parts(self) -> list[tuple[str, str, str]]:
        """The guide as (words, then what a reader with a mouse reads, and one with a touch screen only): where the
        kind wrote {hover} (figures.kind GUIDE) the page says "hover or tap" or "tap", where it wrote "click or tap",
        that or "tap", where it wrote {mouse:words}, the words with a mouse and nothing on touch; ("words", "", "") at
        the end."""
        pieces = BY_DEVICE_PATTERN.split(self.guide)
        return [(words, *by_device(pieces[n + 1] if n + 1 < len(pieces) else ""))
                for n, words in enumerate(pieces) if n % 2 == 0]

    def download(self, name: str | None = None) -> str:
        """The downloads of the figure's data: the JSON of all its tables, or one table as CSV."""
        return paths.download(self.label, name)

    @property
    def embed_file(self) -> str:
        return paths.embed_page(self.label)

    @property
    def image(self) -> str:
        """The static drawing of the figure's opening state, without its extension (.svg, .png)."""
        return paths.image(self.label)

    @property
    def embed_snippet(self) -> str:
        return (f'<iframe src="site/{self.embed_file}" title="{self.full_name}" loading="lazy"\n'
                f'        style="width: 100%; height: 720px; border: 0"></iframe>')


@dataclass(frozen=True)
class ShownPage(Page):
    """A figure's page as the site shows it: the Page, and what is known only once the site is written, built once
    by the writers (sitegen.site.writers.Site.pages) from the compiled charts, [site] and the data files."""

    address: str | None = None  # its page's public address, where [site] gives a base_url (public.address)
    qr: public.QrCode | None = None  # its QR code, with the address
    chart: dict = None  # the chart as the page draws it, compiled to Vega
    dark: list = None  # the changes that make `chart` the dark theme's (sitegen.site.drawing.differences)
    narrow: list = None  # the changes that make `chart` the narrow chart, where the figure has one (their data are
    # the same: the page carries them once)
    narrow_dark: list = None  # the changes that make the narrow chart the dark theme's
    token_param: str | None = None  # the chart's token choice, where it has one (shared_names.token_param)
    token_row: list = ()  # the row of tokens that chooses its token, where it has one (shared_names.token_row)
    inputs: list | None = None  # the chart's inputs as Vega writes them, written at build time (sitegen.site.inputs)
    text_rows: list = ()  # the texts it reads shown as plain rows of tokens, where it draws no row (text_rows)
    data_files: list = ()  # (path in the site, SHA-256) of the data files it reads
    model_names: list = ()  # the models it reads (model_name) where not the site's main model alone: its footer's
    notice: str | None = None  # where model_names: the warning of its random model (notice), instead of the site's

    @classmethod
    def of(cls, page: Page, **shown) -> "ShownPage":
        return cls(**{field: getattr(page, field) for field in page.__dataclass_fields__}, **shown)

class PerObject:
    """What `compute` makes of an object (a chart's spec: large), worked out once per object for a build: a spec's
    digest for every cache key that names it, a chart's JSON for every page that carries it. Each object is kept
    beside its result, so that its id names no other object later."""

    def __init__(self, compute):
        self._compute, self._kept = compute, {}

    def __call__(self, value):
        kept = self._kept.get(id(value))
        if kept is None:
            kept = self._kept[id(value)] = (value, self._compute(value))
        return kept[1]


ENVIRONMENT = {"autoescape": True, "undefined": jinja2.StrictUndefined, "trim_blocks": True, "lstrip_blocks": True,
               "keep_trailing_newline": True}


def environment(cache_dir: Path | None = None) -> jinja2.Environment:
    """The templates' environment. With a cache folder, the templates compiled to Python are kept there (jinja2
    checks each against its source's checksum), so that a rebuild does not compile them again."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), bytecode_cache=_compiled_templates(cache_dir),
                             **ENVIRONMENT)
    env.filters["chapter_words"] = chapter_words
    env.globals["policies"] = {"PAGE": policy.PAGE_POLICY, "LIVE": policy.LIVE_POLICY}
    env.globals["terms"] = terms  # the sentences that explain a term where a page first uses it
    return env


class _KeptTemplates(jinja2.FileSystemBytecodeCache):
    """jinja2's cache of compiled templates, in the build's cache folder: one that cannot be read or written only
    costs the compiling, as with the rest of the cache."""

    def load_bytecode(self, bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except (OSError, EOFError, ValueError):
            bucket.reset()

    def dump_bytecode(self, bucket) -> None:
        try:
            os.makedirs(self.directory, exist_ok=True)
            super().dump_bytecode(bucket)
        except OSError:
            pass


def _compiled_templates(cache_dir: Path | None):
    if cache_dir is None:
        return None
    # The compiled code depends on jinja2's version and the environment's options besides each template's source.
    settings = hashlib.sha256(repr((jinja2.__version__, sorted(ENVIRONMENT.items(), key=str))).encode()).hexdigest()
    return _KeptTemplates(str(Path(cache_dir) / "templates" / settings[:16]))


# A chapter's number rather than its title: "3", "12b", "A", "IV", "A.2".
CHAPTER_NUMBER = re.compile(r"(?:[0-9][A-Za-z0-9]*|[A-Z]|[IVXLC]+)(?:\.[A-Za-z0-9]+)*")


def chapter_words(chapter: str) -> str:
    """[site]'s chapter as the index says it: a number as "chapter 3", a title as "the chapter “Attention”"."""
    return f"chapter {chapter}" if CHAPTER_NUMBER.fullmatch(chapter) else f"the chapter “{chapter}”"


def for_the_book(label: str, address: str) -> str:
    """The author's box of a figure's page: its address and QR code, to print under the figure. Not in the site:
    build.py --serve adds it to the page as it serves it (sitegen.author.serve)."""
    qr = public.QrCode(paths.qr_image(label), qr_size_mm(address))
    return environment().get_template("_for_the_book.html").render(address=address, qr=qr)


HEADING_TEXT = 60  # characters of its text a text page's heading shows at most: three lines on a phone


@dataclass
class TextPage:
    """Every figure that reads one text, on one page, their token choices linked."""

    text: str  # as pages show it: a control character as its visible escape (words.escaped)
    slug: str
    pages: list

    @property
    def file(self) -> str:
        return paths.text_page(self.slug)

    @property
    def heading(self) -> str:
        """The page's heading: it names its text, a long one cut short at a space (the row of tokens holds it all)."""
        text = " ".join(self.text.split())
        if self.cut:
            text = text[:HEADING_TEXT].rsplit(" ", 1)[0].rstrip(",;:.") + "…"
        return f"Every figure of “{text}”"

    @property
    def cut(self) -> bool:
        """Whether the heading cuts its text short: where JavaScript is off, the page says it whole instead of its row
        of tokens (a control, hidden there)."""
        return len(" ".join(self.text.split())) > HEADING_TEXT

    @property
    def description(self) -> str:
        """The page in words, for a link preview."""
        names = ", ".join(page.full_name for page in self.pages)
        return f"Every figure of the text “{self.text}”, side by side: {names}."


def text_pages(run: Run, pages: list[Page]) -> list[TextPage]:
    """A page for each text that two or more figures read."""
    out = []
    for text, slug in run.slugs.items():
        reading = [page for page in pages if page.texts == [text]]
        if len(reading) >= 2:
            out.append(TextPage(escaped(text), slug, reading))
    return out


def text_rows(run: Run, page: Page, named: bool = False) -> list[dict]:
    """The texts a figure reads but chooses no token of, shown on top of it as plain rows of their tokens in the
    chapter's notation ("_it"): {"label": words above the row, "tokens": [{"text", "read"}]}, "read" marking the
    token the figure reads at (its `position`), where it has one. `named`: the label names the run's model (a
    side-by-side figure shows each model's tokens: each cuts the text by its own tokenizer)."""
    rows = []
    for n, text in enumerate(page.texts):
        tokens = run.token_texts(text)
        read = page.position if len(page.texts) == 1 and page.position is not None else None
        name = (page.text_names[n] if n < len(page.text_names) else
                "The text" if len(page.texts) == 1 else f"Text {'AB'[n] if n < 2 else n + 1}")
        label = f"{name}, token by token" + (f", as {model_names.full_name(run.model)} cuts it" if named else "")
        if read is not None and 0 <= read < len(tokens):
            label += f"; the figure's token, {shown(tokens[read])} (token {number(tokens, read)}), is marked"
        start = getattr(tokens, "start", 0)  # the model's own tokens ahead of the reader's (TokenTexts)
        rows.append({"label": label, "tokens": [{"text": shown(token), "read": i == read, "start": i < start}
                                                for i, token in enumerate(tokens)]})
    return rows


def notice(run: Run) -> str | None:
    """The warning every page of a random model carries: its numbers are not GPT-2's."""
    if not run.is_random:
        return None
    name = model_names.capital(model_names.full_name(run.model))
    return f"{name}: its numbers say nothing about GPT-2."  # two lines on a phone


def model_name(run: Run) -> dict:
    """The model as the templates name it (figures.toolkit.model_names): in full (the footer; `full_version`: with the
    version's every digit), in a running sentence (`short`), where a random model's weights come from (`seed`), and
    its family with what it changes from GPT-2's design (`family`; None for GPT-2)."""
    return {"full": model_names.full_name(run.model), "full_version": model_names.full_name(run.model, digits=40),
            "short": model_names.short_name(run.model), "seed": model_names.seed_sentence(run.model),
            "family": family.family_name(run.model)}
