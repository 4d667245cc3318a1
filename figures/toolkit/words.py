"""How tokens, shares and counts are written, on pages and in printed figures, as the book writes them."""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Sequence
from typing import TypeVar, cast

from figsite.config import Figure
from figsite.data.run import LEFT_OUT

# Said on a page wherever a long text's data (format 3) leave small shares out.
LONG_TEXT_FACT = f"A long text's data keep only shares of {LEFT_OUT} or more; the others count as 0 here."
QUOTE_LIMIT = 160  # a printed figure quotes a longer text by its start only


# Characters that print as nothing or are not legal in XML (an SVG drawing), each written as a visible escape: the
# common ones as a program writes them ('\\v'), the rest by their code ('\\x1b', '\\u2028').
ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\v": "\\v", "\f": "\\f", "\0": "\\0"}
INVISIBLE = ("Cc", "Cs", "Zl", "Zp")  # control characters, lone surrogates, line and paragraph separators
NOT_XML = {0xFFFE, 0xFFFF}


def escaped(text: str) -> str:
    """Text with every control or non-XML character written as a visible escape ('\\v' for U+000B), so that it
    shows on a page and never breaks a drawing; other characters as they are."""
    return "".join(_escape(c) if _invisible(c) else c for c in text)


def _invisible(c: str) -> bool:
    return c in ESCAPES or unicodedata.category(c) in INVISIBLE or ord(c) in NOT_XML


def _escape(c: str) -> str:
    code = ord(c)
    return ESCAPES.get(c) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


# What XML (an SVG drawing) cannot hold: control characters but tab, line feed and carriage return; lone surrogates.
NOT_IN_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


# The same characters as json.dumps writes them (escaped, lowercase), after an even run of backslashes (a backslash of
# the text itself is written doubled): a quick test of a large spec, which is walked only where it finds one.
NOT_IN_XML_JSON = re.compile(r"(?<!\\)(?:\\\\)*\\(?:u00(?:0[0-8bef]|1[0-9a-f])|[bf]|ud[89a-f][0-9a-f]{2}|ufff[ef])")


def has_non_xml(value: object) -> bool:
    """Whether any string of a JSON value holds a character that XML cannot hold."""
    return bool(NOT_IN_XML_JSON.search(json.dumps(value)))


JsonT = TypeVar("JsonT")  # a JSON value: a string, number, true, false, null, or a list or dict of them


def xml_safe(value: JsonT) -> JsonT:
    """A chart's spec (any JSON value) with each character that XML cannot hold written as its visible escape, as
    `escaped` writes it: a token that reached a chart without `shown` still draws (vl-convert refuses the SVG)."""
    # Each value comes back as what it was (a string, a list, a dict), its strings escaped: hence the casts.
    if isinstance(value, str):
        return cast(JsonT, NOT_IN_XML.sub(lambda m: _escape(m.group()), value))
    if isinstance(value, list):
        return cast(JsonT, [xml_safe(v) for v in value])
    if isinstance(value, dict):
        return cast(JsonT, {xml_safe(k): xml_safe(v) for k, v in value.items()})
    return value


def shown(token: str) -> str:
    """A token as the book prints it: a leading space written as '_' ('_animal'); line breaks and other control
    characters as visible escapes ('\\n', '\\v': see `escaped`). The one place where a token is made for display."""
    if token.startswith(" "):
        token = "_" + token[1:]
    return escaped(token)


def said(token: str) -> str:
    """A token as a sentence names it: as `shown`, and in quotes where it holds no letter or digit (a comma, a
    space, a line break), which a sentence's own punctuation would swallow: '"," 48%', not ', 48%'."""
    return shown(token) if any(c.isalnum() for c in token) else f'"{shown(token)}"'


def number(tokens: Sequence[str], position: int) -> int:
    """A token's number as readers count the tokens of their text: from 1; a model's start token ahead of them
    (a Llama's <s>: figsite.data.run.TokenTexts.start) is token 0, the model's own."""
    return position + 1 - getattr(tokens, "start", 0)


def number_expr(expr: str, start: int) -> str:
    """A Vega expression of a token's number from 1 as the model counts (the page's address) -> as readers count
    (`number`): unchanged where no start token leads the text."""
    return f"({expr} - {start})" if start else expr


def token_name(tokens: Sequence[str], position: int) -> str:
    """A token as a chart's row or option names it: '9: _it' (the start token '0: <s>')."""
    return f"{number(tokens, position)}: {shown(tokens[position])}"


def token_label(tokens: Sequence[str], position: int) -> str:
    """A token as the words on a page name it: '_it (token 9)', numbered from 1 as readers count; a model's start
    token '<s> (the start token)'."""
    if position < getattr(tokens, "start", 0):
        return f"{said(tokens[position])} (the start token)"
    return f"{said(tokens[position])} (token {number(tokens, position)})"


# Stage 0 of the read-out, the embedding alone, by one name on every page, chart and download (the book's printed
# figure (i) keeps its own "after the embedding"), and the title of an axis or a slider over the stages.
STAGE_0 = "before any layer"
STAGE_AXIS = f"after layer (0: {STAGE_0})"


def after_layer(stage: int, capital: bool = False) -> str:
    """A stage of the read-out as the chapter says it: 'after layer 3'; stage 0, the embedding alone, STAGE_0."""
    words = STAGE_0 if stage == 0 else f"after layer {stage}"
    return words[0].upper() + words[1:] if capital else words


def after_layer_expr(stage: str, capital: bool = False) -> str:
    """after_layer as a Vega expression of the expression `stage` (a signal's name, a datum's field)."""
    return f"({stage} == 0 ? '{after_layer(0, capital)}' : '{after_layer(1, capital)[:-1]}' + {stage})"


def count(n: int, one: str, many: str | None = None) -> str:
    """A count and its noun, which agree: '1 token', '2 tokens', '3,062 neurons'; `many` where the plural is not
    `one` + 's' ('1 part works', '2 parts work': count(n, 'part works', 'parts work'))."""
    return f"{thousands(n)} {one if n == 1 else many or one + 's'}"


def count_expr(n: str, one: str, many: str | None = None) -> str:
    """count as a Vega expression of the number expression `n`: format(n, ',') + (n == 1 ? ' token' : ' tokens')."""
    return f"format({n}, ',') + ({n} == 1 ? ' {one}' : ' {many or one + 's'}')"


def agrees_expr(n: str, one: str, many: str) -> str:
    """agrees as a Vega expression of the number expression `n`."""
    return f"({n} == 1 ? '{one}' : '{many}')"


def agrees(n: int, one: str, many: str) -> str:
    """The verb (or any word) that agrees with a count of n: agrees(1, 'moves', 'move') -> 'moves'."""
    return one if n == 1 else many


def token_choices(tokens: Sequence[str]) -> tuple[list[int], list[str]]:
    """Options and labels for a token picker: values 1..n, the model's positions from 1 (the page's address keeps
    them), labels '9: _it' as readers count (token_name: a start token '0: <s>')."""
    return list(range(1, len(tokens) + 1)), [token_name(tokens, q) for q in range(len(tokens))]


def whole_percent(share: float) -> int:
    """A share in whole percent, halves rounded up (0.005 -> 1), as the book's program prints them."""
    return math.floor(share * 100 + 0.5)


def thousands(n: int) -> str:
    """12345 -> '12,345', the book's way of writing large counts."""
    return f"{n:,}"


def quoted(text: str, n_tokens: int) -> str:
    """The text as a printed figure quotes it: whole, or for a long one its start and its length; a control character
    that is not white space (which is flattened) as its visible escape."""
    flat = " ".join(text.split())
    if len(flat) <= QUOTE_LIMIT and flat == text:
        return f'"{escaped(text)}"'
    if len(flat) <= QUOTE_LIMIT:
        return f'"{escaped(flat)}"'
    return f'"{escaped(flat[: QUOTE_LIMIT - 20].rstrip())} ..." ({n_tokens:,} tokens)'


def heading(fig: Figure, title: str) -> str:
    """A printed figure's first line, its name and title: '(i) The guess takes shape layer by layer', or where the book
    numbers the figure, 'Figure 3.2 The guess takes shape layer by layer'."""
    return f"{fig.display_name} {title}"


def percent(p: float, more: int = 0) -> str:
    """A chance in percent, the one rule of every sentence and chart (a chart's: percent_expr): two decimals from 1%
    up ('28.81%'), three significant digits below ('0.00203%', never '0.00%'), and one that rounds to 1% so: '1.00%';
    `more` digits besides."""
    if p * 100 >= 1 or p <= 0:
        return f"{p * 100:.{2 + more}f}%"
    decimals = 2 + more - math.floor(math.log10(p * 100))
    small = f"{p * 100:.{decimals}f}"
    return f"{p * 100:.{2 + more}f}%" if float(small) >= 1 else f"{small}%"


def percent_expr(p: str) -> str:
    """percent as a Vega expression of the number expression `p`, for a chart's tooltips and labels: d3's '.2%' from
    1% up, its '.3p' (three significant digits) below, which write what percent writes."""
    return f"({p} >= 0.01 || {p} <= 0 ? format({p}, '.2%') : format({p}, '.3p'))"


def percents_apart(before: float, after: float) -> tuple[str, str]:
    """Two different probabilities in percent, with the digits it takes to show them different (up to 4 more than
    `percent` gives): never "rises from 0.00130% to 0.00130%"."""
    for more in range(5):
        shown_pair = percent(before, more), percent(after, more)
        if shown_pair[0] != shown_pair[1]:
            break
    return shown_pair


def ordinal(n: int) -> str:
    """A rank as readers say it: 1st, 2nd, 3rd, 4th, 11th, 21st, 34,351st ("the 1st most likely" is the top guess)."""
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n:,}{suffix}"
