"""What a browser would load from the files of a built site, read from the files themselves.

"Loads" here means what a browser fetches with no act of the reader's: in a page or an SVG, an element's `src`,
`srcset`, `poster`, `data`, a `<link>`'s `href` (a stylesheet, an icon, a preload, a manifest, a preconnect:
every rel but those that only name another address: canonical, alternate, author, licence...), an SVG's `href` or
`xlink:href` (an <image>, a <use>), a `<meta http-equiv="refresh">`'s address (it goes there by itself), and the
CSS of `<style>` elements and `style` attributes; in CSS, `url(...)` and `@import`; in scripts (files and inline
`<script>`), a string address handed to what fetches it: fetch(), import() and `import ... from`,
importScripts(), new Worker(), EventSource, WebSocket, sendBeacon, an XMLHttpRequest's open(), new Image(), an
assignment or object field `src`/`href`/`srcset`/`data`/`poster`, setAttribute of those, and CSS or HTML written
into a string.

Not loads: a link the reader follows (`<a href>`, `<area href>`, a form's action), an address that names but
fetches nothing (an XML namespace such as "http://www.w3.org/2000/svg", a Vega-Lite spec's "$schema", a
`<link rel="canonical">`, `<meta property="og:image">`), and addresses in words (an error message, a comment).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

REMOTE = re.compile(r"(?i)^(?:https?:|wss?:)?//")  # an address on the network, with its scheme or without
READ = (".html", ".svg", ".css", ".js", ".mjs")  # the files a browser reads and that could load more
ADDRESS = r"(?:https?:|wss?:)?//[^`'\")\s\\]*|[^`'\")\s\\]+"  # in quotes: any address (CSS: unquoted too)
NAMES_ONLY = {"canonical", "alternate", "author", "license", "help", "next", "prev", "search", "bookmark", "me"}
CSS_LOADS = re.compile(r"""(?i)(?:url\(\s*|@import\s+(?:url\(\s*)?)['"]?(%s)""" % ADDRESS)
SCRIPT_LOADS = [
    re.compile(pattern % ADDRESS)
    for pattern in (
        r"""\b(?:fetch|import|importScripts|Worker|SharedWorker|EventSource|WebSocket|sendBeacon|Image)\s*\(\s*[`'"](%s)""",
        r"""\bfrom\s*[`'"](%s)""",
        r"""\.open\s*\(\s*[`'"]\w+[`'"]\s*,\s*[`'"](%s)""",
        r"""\b(?:src|srcset|href|data|poster)\s*[:=]\s*\\?[`'"](%s)""",
        r"""\bsetAttribute(?:NS)?\s*\([^()]*?[`'"](?:src|srcset|href|xlink:href)[`'"]\s*,\s*[`'"](%s)""",
    )
] + [CSS_LOADS]


def script_loads(text: str) -> list[str]:
    """The addresses a script's text hands to something that fetches them (see the module's docstring)."""
    return [match.group(1) for pattern in SCRIPT_LOADS for match in pattern.finditer(text)]


def css_loads(text: str) -> list[str]:
    return [match.group(1) for match in CSS_LOADS.finditer(text)]


class _MarkupLoads(HTMLParser):
    """The addresses an HTML page or an SVG drawing loads: its elements' attributes, its styles, its scripts."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.loads: list[str] = []
        self.inside: str | None = None  # "style" or "script" while in one whose text the browser runs

    def handle_starttag(self, tag, attrs):
        attributes = {name: value or "" for name, value in attrs}
        rel = set(attributes.get("rel", "").lower().split())
        self.loads += [attributes[name] for name in ("src", "poster", "data", "background") if name in attributes]
        # the script the page's script loads once the page is painted (Vega: figures/main.js reads data-vega)
        self.loads += [attributes["data-vega"]] if tag == "script" and "data-vega" in attributes else []
        if tag not in ("a", "area", "base") and not (tag == "link" and rel and rel <= NAMES_ONLY):
            self.loads += [attributes[name] for name in ("href", "xlink:href") if name in attributes]
        for name in ("srcset", "imagesrcset"):
            self.loads += [c.split()[0] for c in attributes.get(name, "").split(",") if c.strip()]
        if tag == "meta" and attributes.get("http-equiv", "").lower() == "refresh":
            self.loads += re.findall(r"(?i)url\s*=\s*['\"]?([^'\";\s]+)", attributes.get("content", ""))
        self.loads += css_loads(attributes.get("style", ""))
        runs = attributes.get("type", "").lower() in ("", "text/javascript", "module", "text/css")
        self.inside = tag if tag in ("style", "script") and runs else None

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.inside = None

    def handle_endtag(self, tag):
        self.inside = None

    def handle_data(self, data):
        if self.inside == "style":
            self.loads += css_loads(data)
        elif self.inside == "script":
            self.loads += script_loads(data)


def file_loads(path: Path) -> list[str]:
    """The addresses the file at `path` (.html, .svg, .css, .js or .mjs) makes a browser load."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix in (".html", ".svg"):
        parser = _MarkupLoads()
        parser.feed(text)
        parser.close()
        return parser.loads
    return css_loads(text) if path.suffix == ".css" else script_loads(text)


def network_loads(site: Path) -> dict[str, list[str]]:
    """Every file of `site` a browser reads -> the addresses it loads from the network, or from an absolute path
    (from file:// the disk's root, under a sub-path the host's): only the files with any."""
    found = {}
    for path in sorted(site.rglob("*")):
        if path.suffix in READ and path.is_file():
            remote = [url for url in file_loads(path) if REMOTE.match(url.strip()) or url.strip().startswith("/")]
            if remote:
                found[path.relative_to(site).as_posix()] = remote
    return found


def files_read(site: Path) -> dict[str, int]:
    """How many files of each suffix of READ the site holds: what network_loads reads."""
    counts = {}
    for path in site.rglob("*"):
        if path.suffix in READ and path.is_file():
            counts[path.suffix] = counts.get(path.suffix, 0) + 1
    return counts
