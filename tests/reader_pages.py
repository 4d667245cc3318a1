"""What a reader reads on a built page, in the order the page shows it, and the terms of figures/toolkit/terms.py it
uses without explaining them.

A page's words are its text and the words of its attributes that a reader or a screen reader meets (alt,
aria-label, title, placeholder), outside its <head>, <script> and <style>; and, where a chart stands, the chart's
own words from the Vega spec the page carries: titles, labels, the inputs' names, text marks, the values of its
params (the sentences each state says) and the words quoted in its expressions (tooltips, descriptions), not the
names of its fields. A term is found as a whole word: not inside a file's name or an address ("embed-lens.html"),
not in a token shown with its space ("_score"), nor as a token the page shows (one of its charts' data or rows of
tokens): those are the model's words, not the page's."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

from figures.toolkit.terms import SPACE_TERM, TERMS, Term

BLOCKS = {
    "p",
    "li",
    "ul",
    "ol",
    "div",
    "section",
    "figure",
    "figcaption",
    "h1",
    "h2",
    "h3",
    "h4",
    "summary",
    "details",
    "pre",
    "label",
    "option",
    "button",
    "nav",
    "header",
    "footer",
    "main",
    "br",
    "td",
    "th",
    "tr",
    "span",
    "a",
    "code",
    "strong",
    "cite",
    "em",
}
INLINE = {"span", "a", "code", "strong", "cite", "em"}  # within a sentence: no break
ATTRIBUTES = ("alt", "aria-label", "title", "placeholder")
WORDS = {"title", "text", "labels", "subtitle", "value", "description"}  # a Vega spec's keys that hold words
EXPRESSIONS = {"expr", "update", "signal", "test", "init", "calculate", "labelExpr"}
LITERAL = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"")
FIELD = re.compile(r"datum\[\"[^\"]*\"\]|datum\['[^']*'\]")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n")


class _Specs(HTMLParser):
    """The JSON a page carries in <script type="application/json">, by id."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: dict = {}
        self.open: str | None = None
        self.text: list = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "script" and attributes.get("type") == "application/json":
            self.open, self.text = attributes.get("id", ""), []

    def handle_endtag(self, tag):
        if tag == "script" and self.open is not None:
            self.found[self.open] = json.loads("".join(self.text))
            self.open = None

    def handle_data(self, data):
        if self.open is not None:
            self.text.append(data)


class _Reader(HTMLParser):
    """The page's words in order (see the module's docstring), a line break between blocks; the texts of its token
    elements apart (`tokens`)."""

    def __init__(self, specs: dict):
        super().__init__(convert_charrefs=True)
        self.specs, self.out, self.tokens = specs, [], set()
        self.hidden = 0  # inside <head>, <script>, <style>
        self.pre = 0
        self.token: list | None = None

    def handle_starttag(self, tag, attrs):
        attributes = {name: value or "" for name, value in attrs}
        if tag in ("head", "script", "style"):
            self.hidden += 1
            return
        if self.hidden:
            return
        if tag not in INLINE:
            self.out.append("\n")
        self.out += ["\n" + attributes[name] + "\n" for name in ATTRIBUTES if attributes.get(name)]
        if "data-spec" in attributes:
            self.out.append("\n" + chart_words(self.specs.get(attributes["data-spec"], {})) + "\n")
        self.pre += tag == "pre"
        if "token" in attributes.get("class", "").split():
            self.token = []

    def handle_endtag(self, tag):
        if tag in ("head", "script", "style"):
            self.hidden -= 1
        elif not self.hidden:
            self.pre -= tag == "pre"
            if self.token is not None and tag in ("span", "button"):
                self.tokens.add("".join(self.token).strip())
                self.token = None
            if tag not in INLINE:
                self.out.append("\n")

    def handle_data(self, data):
        if self.hidden:
            return
        self.out.append(data if self.pre else re.sub(r"\s+", " ", data))
        if self.token is not None:
            self.token.append(data)


def chart_words(spec) -> str:
    """A Vega spec's words (see the module's docstring), one a line."""
    out = []

    def walk(node, key: str = "", words: bool = False):
        if isinstance(node, dict):
            for name, value in node.items():
                if name not in ("data", "datasets", "$schema", "usermeta", "config"):
                    walk(value, name, words or name in WORDS or (key == "bind" and name == "name"))
        elif isinstance(node, list):
            for value in node:
                walk(value, key, words)
        elif isinstance(node, str):
            if key in EXPRESSIONS:
                out.extend(m.group(1) or m.group(2) or "" for m in LITERAL.finditer(FIELD.sub("", node)))
            elif words or key in WORDS:
                out.append(node)

    walk(spec)
    return "\n".join(out)


def shown_tokens(spec) -> set:
    """Every one-word string of a spec's data: the tokens its chart shows (and a few of its own labels)."""
    found = set()

    def walk(node, inside: bool = False):
        if isinstance(node, dict):
            for name, value in node.items():
                walk(value, inside or name in ("data", "datasets", "values"))
        elif isinstance(node, list):
            for value in node:
                walk(value, inside)
        elif isinstance(node, str) and inside and not any(c.isspace() for c in node):
            found.add(node)

    walk(spec)
    return found


def reader_text(html: str) -> tuple[str, set]:
    """A page's words in order, and the tokens it shows (its charts' data, its rows of tokens)."""
    specs = _Specs()
    specs.feed(html)
    reader = _Reader(specs.found)
    reader.feed(html)
    tokens = set().union(reader.tokens, *(shown_tokens(spec) for spec in specs.found.values()))
    return "".join(reader.out).replace("\xa0", " "), tokens


def finder(term: Term) -> re.Pattern:
    """A term as a whole word, in any case: not part of a name with '-', '/', '.' or '_' (a file, an address); the
    space's "_" as its pattern says."""
    if term is SPACE_TERM:
        return re.compile(term.pattern)
    return re.compile(rf"(?<![\w/.\-])(?:{term.pattern})(?![\w/\-]|\.\w)", re.IGNORECASE)


def sentence_at(text: str, start: int, end: int) -> str:
    """The sentence (or line) that holds text[start:end]."""
    before = [m.end() for m in SENTENCE_END.finditer(text, 0, start)]
    after = SENTENCE_END.search(text, end)
    return text[before[-1] if before else 0 : after.start() if after else len(text)]


def unexplained(html: str) -> dict:
    """Each term the page uses without explaining it where it first appears: term -> the sentence of that use."""
    text, tokens = reader_text(html)
    out = {}
    for term in (*TERMS, SPACE_TERM):
        uses = [m for m in finder(term).finditer(text) if term is SPACE_TERM or m.group() not in tokens]
        if not uses:
            continue
        sentence = sentence_at(text, uses[0].start(), uses[0].end())
        if not any(words in sentence for words in term.explained):
            out[term.word] = " ".join(sentence.split())
    return out


def pages_of(site: Path) -> dict:
    """Every page of a built site a reader opens: name -> its HTML."""
    return {path.name: path.read_text(encoding="utf-8") for path in sorted(site.glob("*.html"))}
