"""Reads the chapter config (TOML): which figures to build, of which texts.

Only the form of each figure is checked here (keys, types, values that need no model). Whatever needs the
tokenizer or the model's size (a focus inside the text, a layer the model has) is checked by the figure's
own module once the model is loaded, before it runs.

The optional `[site]` table (titles, author, introduction, a link to the book, licence, how to cite, the public
address) is read by `read_config` into a `SiteInfo`, with a default for every key. What the author writes there
reaches a page as text for jinja2 to escape, or as the sanitised HTML of a safe subset of Markdown (`*_html`): no
raw HTML, no images, links only to http(s), mailto and relative addresses.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, TypeGuard
from urllib.parse import urlsplit

from markupsafe import Markup

from figsite.config_file import read_toml
from figsite.errors import BuildError

# Field, Figure and figure_name live in figsite.config_figure; the kinds and the site import them from here too.
from figsite.config_figure import Field as Field, Figure as Figure, figure_name as figure_name
from figsite.print_config import PRINT_KEYS, PrintInfo, read_print

LABEL_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
# A book's figure number: letters and digits in groups joined by single dots ("3.4", "12", "A.2", "3.4b").
NUMBER_PATTERN = re.compile(r"^[A-Za-z0-9]+(?:\.[A-Za-z0-9]+)*$")
NUMBER_LENGTH = 20


COMMON_FIELDS = {
    "kind": Field("str", "one of the figure kinds", required=True),
    "label": Field("str", "1 to 40 letters, digits, '-' or '_', unique in the config", required=True),
    "caption": Field("str", "a short caption in your own words"),
    "number": Field(
        "str",
        f'the book\'s figure number in quotes, such as "3.4", "12" or "A.2": letters and '
        f"digits in groups joined by single dots, at most {NUMBER_LENGTH} characters, without the "
        f"word 'Figure', unique in the config",
    ),
    "page": Field("int", "the book's page the figure is printed on: a whole number from 1"),
    "model": Field(
        "text",
        "the model the figure reads, if not the command's --model: a hub id, a directory saved "
        "with save_pretrained, or 'random'; for a hub id optionally '@' and a revision, for "
        "'random' '@' and a seed",
    ),
}


@dataclass(frozen=True)
class Config:
    """A config read once (read_config): its figures, its [site] table and its [print] table (None: none)."""

    figures: list[Figure]
    site: SiteInfo
    print: PrintInfo | None = None
    notebooks: bool = False  # a [notebooks] table: a notebook for each figure that offers one (--notebooks)


class Declares(Protocol):
    """A figure kind as the config reads it (figures.kind.Kind): the keys its figures may have."""

    @property
    def FIELDS(self) -> Mapping[str, Field]: ...  # noqa: N802 - the kinds' own name


def load_config(path: Path, kinds: Mapping[str, Declares]) -> list[Figure]:
    """The figures of the config at `path`, read and checked with the rest of it (read_config)."""
    return read_config(path, kinds).figures


def read_config(path: Path, kinds: Mapping[str, Declares]) -> Config:
    """Reads and checks the config at `path`, parsed once: its [[figure]] tables (`kinds` maps each kind to its figure
    module, with FIELDS), then its [site] and [print] tables, whose errors come first."""
    source, raw = read_toml(path)
    unknown = sorted(set(raw) - {"figure", "site", "print", "notebooks"})
    if unknown:
        hint = (
            " (a key of [site]: write it under a line '[site]')"
            if unknown[0] in SITE_KEYS
            else " (a key of [print]: write it under a line '[print]')"
            if unknown[0] in PRINT_KEYS
            else ""
        )
        raise BuildError(
            f"{source}: unknown key '{unknown[0]}' at the top level{hint}; allowed: [[figure]] tables, "
            f"one [site] table, one [print] table and one [notebooks] table"
        )
    notebooks = raw.get("notebooks")
    if notebooks is not None and (not isinstance(notebooks, dict) or notebooks):
        raise BuildError(f"{source}: [notebooks] holds {notebooks!r}; allowed: an empty [notebooks] table")
    site, printed = read_site(raw.get("site"), source), read_print(raw.get("print"), source, Path(path).parent)
    tables = raw.get("figure")
    if not isinstance(tables, list) or not tables or not all(isinstance(t, dict) for t in tables):
        raise BuildError(f"{source}: no figures; allowed: one or more [[figure]] tables")

    figures = [_read_figure(source, i, table, kinds) for i, table in enumerate(tables, start=1)]
    for key in ("label", "number"):
        seen: dict[str | None, int] = {}
        for fig in figures:
            value = fig.label if key == "label" else fig.number
            if value is not None and value in seen:
                raise fig.error(key, f"'{value}' is already the {key} of figure {seen[value]}", f"a {key} used once")
            seen[value] = fig.index
    return Config(figures, site, printed, notebooks is not None)


def read_figure(table: dict[str, Any], kinds: Mapping[str, Declares], source: str = "figure") -> Figure:
    """One figure's keys (a [[figure]] table's, as a dict), read and checked as a config's are."""
    return _read_figure(source, 1, table, kinds)


def _read_figure(source: str, index: int, table: dict[str, Any], kinds: Mapping[str, Declares]) -> Figure:
    label = table.get("label")
    shown = label if isinstance(label, str) else "?"
    fig = Figure(source, index, kind="?", label=shown, caption=None)

    kind: Any = table.get("kind")  # any TOML value, until it is found among the kinds' names
    if kind not in kinds:
        problem = "missing" if kind is None else f"{kind!r} is not a figure kind"
        raise fig.error("kind", problem, ", ".join(repr(k) for k in kinds))
    fig.kind = kind
    fields = {**COMMON_FIELDS, **kinds[kind].FIELDS}

    for key in table:
        if key not in fields:
            raise fig.error(key, f"unknown key for a figure of kind '{kind}'", ", ".join(fields))
    for key, spec in fields.items():
        if key not in table:
            if spec.required:
                raise fig.error(key, "missing", spec.allowed)
            if key not in COMMON_FIELDS and spec.default is not None:
                fig.values[key] = spec.default
            continue
        value = _check_type(fig, key, spec, table[key])
        if key == "label":
            if not LABEL_PATTERN.match(value):
                raise fig.error(key, f"{value!r} is not a usable label", spec.allowed)
            fig.label = value
        elif key == "number" and not (NUMBER_PATTERN.match(value) and len(value) <= NUMBER_LENGTH):
            raise fig.error(key, f"{value!r} is not a figure number", spec.allowed)
        elif key == "page" and value < 1:
            raise fig.error(key, f"{value} is not a page", spec.allowed)
        elif key == "caption":
            fig.caption = value
        elif key == "model":
            fig.model = value
        elif key != "kind":
            fig.values[key] = value
    return fig


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_type(fig: Figure, key: str, spec: Field, value: Any) -> Any:
    checks: dict[str, Callable[[Any], bool]] = {
        "str": lambda v: isinstance(v, str),
        "text": lambda v: isinstance(v, str) and v.strip() != "",
        "int": _is_int,
        "int_list": lambda v: isinstance(v, list) and all(_is_int(x) for x in v),
        "pair_list": lambda v: (
            isinstance(v, list) and all(isinstance(p, list) and len(p) == 2 and all(_is_int(x) for x in p) for p in v)
        ),
        "position_or_text": lambda v: _is_int(v) or (isinstance(v, str) and v.strip() != ""),
        "text_list": lambda v: isinstance(v, list) and all(isinstance(t, str) and t.strip() for t in v),
        "text_pair": lambda v: (
            isinstance(v, list) and len(v) == 2 and all(isinstance(t, str) and t.strip() for t in v) and v[0] != v[1]
        ),
    }
    if not checks[spec.type](value):
        shown = repr(value) if not isinstance(value, str) or value.strip() else "an empty text"
        raise fig.error(key, f"{shown} is not allowed", spec.allowed)
    return value


# The [site] table ----------------------------------------------------------------------------------------------

DEFAULT_TITLE = "Attention and layers: the figures"
DEFAULT_INTRODUCTION = (
    "Interactive versions of the chapter's figures, computed from one run of the model over the chapter's texts."
)
LINE, LINKS = "one line of text, at most {} characters", "links only to http(s), mailto or relative addresses"
INLINE = LINE.format(500) + f", with Markdown's *emphasis* and [links](https://...), {LINKS}"
URL = "an http:// or https:// address with a host, at most 500 characters, without spaces, quotes, '<', '>'{}"


@dataclass(frozen=True)
class SiteKey:
    """One key of [site]: its type (line, number_or_line, markdown, inline, url, base_url), limit, what is allowed."""

    type: str
    limit: int
    allowed: str


SITE_KEYS = {
    "title": SiteKey("line", 200, LINE.format(200) + ": the site's title"),
    "book": SiteKey("line", 200, LINE.format(200) + ": the book's title"),
    "chapter": SiteKey("number_or_line", 200, f"the chapter's number (such as 3) or {LINE.format(200)}"),
    "author": SiteKey("line", 200, LINE.format(200)),
    "introduction": SiteKey(
        "markdown",
        5000,
        "text of at most 5,000 characters with Markdown's paragraphs (an empty "
        f"line between them), *emphasis*, [links](https://...) and lists, no "
        f"HTML, {LINKS}",
    ),
    "book_url": SiteKey("url", 500, URL.format(" or '\\'")),
    "licence": SiteKey("inline", 500, INLINE),
    "cite": SiteKey("inline", 500, INLINE),
    "base_url": SiteKey(
        "base_url",
        500,
        "the site's public address, such as 'https://example.org/attention/': " + URL.format(", '\\', '?' or '#'"),
    ),
}


@dataclass(frozen=True)
class SiteInfo:
    """The config's [site] table, checked, with the defaults for keys it leaves out (None: not shown).

    The text fields hold what the author wrote (stripped), for jinja2 to escape; the `*_html` properties give
    the sanitised HTML of the Markdown ones. `base_url`, where given, ends with '/'."""

    title: str = DEFAULT_TITLE
    book: str | None = None
    chapter: str | None = None  # a number in the config (3) is kept as text ("3")
    author: str | None = None
    introduction: str = DEFAULT_INTRODUCTION
    book_url: str | None = None
    licence: str | None = None
    cite: str | None = None
    base_url: str | None = None

    @property
    def introduction_html(self) -> Markup:
        """The introduction as HTML: paragraphs, emphasis, links and lists, everything else escaped."""
        if self.introduction == DEFAULT_INTRODUCTION:  # no Markdown to import for the default (tested equal)
            return Markup(f"<p>{DEFAULT_INTRODUCTION}</p>\n")
        return Markup(render_markdown(self.introduction)[0])

    @property
    def licence_html(self) -> Markup | None:
        """The licence line as HTML (emphasis and links, no paragraph), or None where [site] gives none."""
        return _inline_html(self.licence)

    @property
    def cite_html(self) -> Markup | None:
        """The "how to cite" line as HTML (emphasis and links, no paragraph), or None where [site] gives none."""
        return _inline_html(self.cite)


def _inline_html(line: str | None) -> Markup | None:
    return None if line is None else Markup(render_markdown(line, inline=True)[0])


def read_site(table: object, source: str) -> SiteInfo:
    """Checks a [site] table as TOML gave it (None: the config has none); `source` names the file in errors."""
    if table is None:
        return SiteInfo()
    if not isinstance(table, dict):
        raise BuildError(
            f"{source}: [site] is not a table; allowed: one [site] table with the keys {', '.join(SITE_KEYS)}"
        )
    for key in table:
        if key not in SITE_KEYS:
            near = difflib.get_close_matches(key, SITE_KEYS, n=1)
            hint = f" (did you mean '{near[0]}'?)" if near else ""
            raise BuildError(
                f"{source}: [site], key '{key}': not a key of [site]{hint}; allowed: {', '.join(SITE_KEYS)}"
            )
    return SiteInfo(**{key: _site_value(source, key, value) for key, value in table.items()})


def _site_value(source: str, key: str, value: object) -> str:
    """One [site] value checked (and normalised: stripped; a base_url ending with '/'), or a one-line error."""
    spec = SITE_KEYS[key]

    def refuse(problem: str) -> BuildError:
        return BuildError(f"{source}: [site], key '{key}': {problem}; allowed: {spec.allowed}")

    if spec.type == "number_or_line" and _is_int(value) and value >= 0:
        return str(value)
    if not isinstance(value, str):
        shown = "a table" if isinstance(value, dict) else str(value).lower() if isinstance(value, bool) else repr(value)
        raise refuse(f"{shown} is not text" + (" or a number" if spec.type == "number_or_line" else ""))
    text = value.strip()
    if not text:
        raise refuse("it is empty (leave the key out for the default)")
    if len(text) > spec.limit:
        raise refuse(f"it is {len(text):,} characters long")
    controls = (
        r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"
        if spec.type == "markdown"  # line breaks and tabs
        else r"[\x00-\x1f\x7f-\x9f\u2028\u2029]"
    )  # no control character: invalid in HTML
    if re.search(controls, text):
        raise refuse("it holds a line break or another control character")
    if spec.type in ("url", "base_url"):
        problem = _http_problem(text, base=spec.type == "base_url")
        if problem:
            raise refuse(f"{text!r} {problem}")
        return text if spec.type == "url" or text.endswith("/") else text + "/"
    if spec.type in ("markdown", "inline"):
        refused = render_markdown(text, inline=spec.type == "inline")[1]
        if refused:
            raise refuse(f"the link {refused[0]!r} is not allowed")
    return text


def _http_problem(url: str, base: bool = False, written: bool = True) -> str | None:
    """What keeps `url` from being a usable http(s) address (for base_url: of a folder), or None. `written`: as
    the author wrote it in TOML, where spaces, quotes, '<', '>' and '\\' are refused too."""
    if written and re.search(r"[\s\x00-\x1f\x7f\"'<>\\`]", url):
        return "holds a space, a quote, '<', '>', '\\' or a control character"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError as exc:
        return f"is not an address ({exc})"
    if parts.scheme.lower() not in ("http", "https"):
        return "is not an http:// or https:// address"
    if not parts.hostname or not url[len(parts.scheme) :].startswith("://"):
        return "has no host"
    if base and ("?" in url or "#" in url):
        return "has a '?' or '#': the pages' file names are added to it"
    return None


def link_allowed(url: str) -> bool:
    """Whether a Markdown link may point at `url` (as markdown-it hands it over: entities decoded, normalised):
    an http(s) address with a host, a mailto address, or a relative address (no scheme, not '//host')."""
    if not url or re.search(r"[\s\x00-\x1f\x7f\\]", url):
        return False
    scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", url)
    if scheme:
        name = scheme.group(1).lower()
        return name == "mailto" or (name in ("http", "https") and _http_problem(url, written=False) is None)
    first_segment = re.split(r"[/?#]", url, maxsplit=1)[0]
    return ":" not in first_segment and not url.startswith("//")


@lru_cache(maxsize=64)
def render_markdown(text: str, inline: bool = False) -> tuple[str, tuple[str, ...]]:
    """`text` as sanitised HTML, and the links it refused (rendered as plain text). markdown-it-py with raw HTML
    off: paragraphs and lists (not `inline`), emphasis, code spans, links and autolinks, hard line breaks;
    no headings, images, tables or HTML (all written as the text they are, escaped)."""
    from markdown_it import MarkdownIt  # 50 ms: imported only for an author's own Markdown

    refused: list[str] = []

    def validate(url: str) -> bool:
        allowed = link_allowed(url)
        if not allowed:
            refused.append(url)
        return allowed

    md = MarkdownIt("zero", {"html": False, "linkify": False, "typographer": False})
    md.enable(
        ["emphasis", "link", "autolink", "backticks", "escape", "entity", "newline"] + ([] if inline else ["list"])
    )
    md.validateLink = validate  # type: ignore[method-assign]  # markdown-it-py's own hook: set on the instance
    html = md.renderInline(text) if inline else md.render(text)
    return html, tuple(refused)
