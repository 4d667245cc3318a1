"""How tokens, shares and counts are written, on pages and in printed figures, as the book writes them."""

from __future__ import annotations

import math

from figsite.config import Figure
from figsite.data.run import LEFT_OUT

# Said on a page wherever a long text's data (format 3) leave small shares out.
LONG_TEXT_FACT = f"A long text's data keep only shares of {LEFT_OUT} or more; the others count as 0 here."
QUOTE_LIMIT = 160  # a printed figure quotes a longer text by its start only


def shown(token: str) -> str:
    """A token as the book prints it: a leading space written as '_' ('_animal'); line breaks made visible."""
    if token.startswith(" "):
        token = "_" + token[1:]
    return token.replace("\n", "\\n").replace("\t", "\\t")


def token_label(tokens: list, position: int) -> str:
    """A token as the words on a page name it: '_it (token 9)', numbered from 1 as readers count."""
    return f"{shown(tokens[position])} (token {position + 1})"


def after_layer(stage: int) -> str:
    """A stage of the read-out as the chapter says it: 'after layer 3'; stage 0, the embedding alone, 'before any
    layer'."""
    return "before any layer" if stage == 0 else f"after layer {stage}"


def after_layer_expr(stage: str, capital: bool = False) -> str:
    """after_layer as a Vega expression of the expression `stage` (a signal's name, a datum's field)."""
    before, after = ("Before", "After") if capital else ("before", "after")
    return f"({stage} == 0 ? '{before} any layer' : '{after} layer ' + {stage})"


def token_choices(tokens: list) -> tuple[list, list]:
    """Options and labels for a token picker: values 1..n as readers count, labels '9: _it'."""
    return list(range(1, len(tokens) + 1)), [f"{i}: {shown(t)}" for i, t in enumerate(tokens, start=1)]


def whole_percent(share: float) -> int:
    """A share in whole percent, halves rounded up (0.005 -> 1), as the book's program prints them."""
    return math.floor(share * 100 + 0.5)


def thousands(n: int) -> str:
    """12345 -> '12,345', the book's way of writing large counts."""
    return f"{n:,}"


def quoted(text: str, n_tokens: int) -> str:
    """The text as a printed figure quotes it: whole, or for a long one its start and its length."""
    flat = " ".join(text.split())
    if len(flat) <= QUOTE_LIMIT and flat == text:
        return f'"{text}"'
    if len(flat) <= QUOTE_LIMIT:
        return f'"{flat}"'
    return f'"{flat[:QUOTE_LIMIT - 20].rstrip()} ..." ({n_tokens:,} tokens)'


def heading(fig: Figure, title: str) -> str:
    """A printed figure's first line, its name and title: '(i) The guess takes shape layer by layer', or where the book
    numbers the figure, 'Figure 3.2 The guess takes shape layer by layer'."""
    return f"{fig.display_name} {title}"


def percent(p: float) -> str:
    """A probability in percent: two decimals from 1% up ('28.81%'), three significant digits below ('0.00203%')."""
    if p * 100 >= 1 or p <= 0:
        return f"{p * 100:.2f}%"
    decimals = 2 - math.floor(math.log10(p * 100))
    return f"{p * 100:.{decimals}f}%"
