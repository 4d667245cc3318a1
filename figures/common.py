"""Small helpers shared by the figures: how tokens and shares are written, and checks against the model."""

from __future__ import annotations

import importlib
import math

from figsite.config import Field, Figure
from figsite.data.run import LEFT_OUT


class LazyModule:
    """A module imported when one of its names is first used.

    Altair takes a third of a second to import, and a rebuild from the cache builds no chart: the figures
    use `alt` from here, so that only a build that draws pays for it.
    """

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attribute: str):
        return getattr(importlib.import_module(self._name), attribute)


alt = LazyModule("altair")

# Colour-blind safe on light and dark pages (Okabe-Ito-like blue and orange).
MAIN = "#1b6ca8"
ACCENT = "#d95f02"

# Said on a page wherever a long text's data (format 3) leave small shares out.
LONG_TEXT_FACT = f"A long text's data keep only shares of {LEFT_OUT} or more; the others count as 0 here."

TEXT_FIELD = Field("text", "a non-empty text of at most the model's context length in tokens", required=True)


def shown(token: str) -> str:
    """A token as the book prints it: a leading space written as '_' ('_animal'); line breaks made visible."""
    if token.startswith(" "):
        token = "_" + token[1:]
    return token.replace("\n", "\\n").replace("\t", "\\t")


def token_label(tokens: list, position: int) -> str:
    """A token as the words on a page name it: '_it (token 9)', numbered from 1 as readers count."""
    return f"{shown(tokens[position])} (token {position + 1})"


def stage_slider(n_layer: int, value: int):
    """The slider over the stages: 0 is after the embedding, n_layer after the last layer."""
    return alt.param(name="stage", value=value,
                     bind=alt.binding_range(min=0, max=n_layer, step=1, name="Stage (0 = before any layer) "))


def whole_percent(share: float) -> int:
    """A share in whole percent, halves rounded up (0.005 -> 1), as the book's program prints them."""
    return math.floor(share * 100 + 0.5)


def thousands(n: int) -> str:
    """12345 -> '12,345', the book's way of writing large counts."""
    return f"{n:,}"


def check_text(fig: Figure, key: str, tokens: list, n_ctx: int) -> None:
    """A text must hold at least one token and fit the model's positions."""
    if not tokens:
        raise fig.error(key, "the text has no tokens", f"a text of 1 to {n_ctx:,} tokens")
    if len(tokens) > n_ctx:
        raise fig.error(key, f"the text is {len(tokens):,} tokens long", f"at most {n_ctx:,} tokens, the model's context")


def check_layer(fig: Figure, key: str, layer, n_layer: int) -> None:
    if not 1 <= layer <= n_layer:
        raise fig.error(key, f"layer {layer} is not in the model", f"layers 1 to {n_layer}")


def check_head(fig: Figure, key: str, head, n_head: int) -> None:
    if not 1 <= head <= n_head:
        raise fig.error(key, f"head {head} is not in the model", f"heads 1 to {n_head}")


def check_one_token(fig: Figure, key: str, tokens: list) -> None:
    """A token given by its text (a target, a followed token) must be exactly one token."""
    if len(tokens) != 1:
        raise fig.error(key, f"{fig[key]!r} is {len(tokens)} tokens ({' '.join(shown(t) for t in tokens) or 'none'})",
                        "exactly one token; mind the leading space, as in ' France'")


def check_read_target(fig: Figure, tokens, model: dict) -> tuple[list, list, int]:
    """What every figure that reads one target token at one position checks: its text, that the target is one
    token, and the read position ("position", default the last). Returns the text's tokens, the target's
    tokens and the 0-based read position."""
    text_tokens = tokens(fig["text"])
    check_text(fig, "text", text_tokens, model["n_ctx"])
    target_tokens = tokens(fig["target"])
    check_one_token(fig, "target", target_tokens)
    return text_tokens, target_tokens, opening(fig, "position", text_tokens)


def check_view(fig: Figure, key: str, pair: list, model: dict) -> tuple[int, int]:
    """A `[layer, head]` pair of the config, numbered from 1, that the model has."""
    if len(pair) != 2:
        raise fig.error(key, f"{pair} is not one [layer, head] pair", "[layer, head], numbered from 1")
    check_layer(fig, key, pair[0], model["n_layer"])
    check_head(fig, key, pair[1], model["n_head"])
    return pair[0], pair[1]


def opening(fig: Figure, key: str, tokens: list) -> int:
    """The 0-based position of the token a figure opens on: the one `key` names, else the last."""
    return resolve_position(fig, key, fig.values.get(key, len(tokens)), tokens)


def resolve_position(fig: Figure, key: str, ref, tokens: list) -> int:
    """A token named in the config, by 1-based position or by its text ('street'), as a 0-based position."""
    n = len(tokens)
    if isinstance(ref, int):
        if not 1 <= ref <= n:
            raise fig.error(key, f"token {ref} is outside the text", f"a token number from 1 to {n}")
        return ref - 1
    matches = [i for i, t in enumerate(tokens) if t.strip() == ref.strip()]
    if not matches:
        raise fig.error(key, f"no token of the text reads {ref!r}",
                        "the text of one token, e.g. " + ", ".join(repr(t.strip()) for t in tokens[:4]) + ", or its number")
    if len(matches) > 1:
        raise fig.error(key, f"{ref!r} is tokens " + " and ".join(str(i + 1) for i in matches),
                        "the token's number, to say which one")
    return matches[0]


def token_choices(tokens: list) -> tuple[list, list]:
    """Options and labels for a token picker: values 1..n as readers count, labels '9: _it'."""
    return list(range(1, len(tokens) + 1)), [f"{i}: {shown(t)}" for i, t in enumerate(tokens, start=1)]


def with_data(chart, **datasets):
    """Puts the chart's data in at the top, by name (charts read them with alt.NamedData).

    Set directly rather than with .properties(), which checks every row against the schema, and after the
    chart is built, since Altair copies inline data at every step of building one.
    """
    chart.datasets = datasets
    return chart


# ---------------------------------------------------------------------------------------------- the column's width
#
# Every chart takes the width of its column, from a 360 px phone to a desktop: a single or layered view with
# width "container", a stack of views (vconcat) with every view "container" and the stack fitted to the column
# (FIT_COLUMN), so that axes and legends fit inside it too. Views side by side (hconcat) cannot follow the
# column, so the figures stack their views instead. Words drawn in a chart wrap to its width (wrapped), and the
# drawings made at build time (figsite.site.drawing) give "container" a fixed width.

FIT_COLUMN = {"type": "fit-x", "contains": "padding"}
TITLE_EM = 7.5  # about how wide a character of a chart's title (13 px, bold) is, in px
TEXT_EM = 6.6  # the same for words of 11 to 12 px in a chart
MIN_LINE = 16  # characters: a line never wraps shorter


def fits_column(chart):
    """A stack of views (each of width "container") fitted to its column, axes and legends inside it; a little
    more room on the right, which Vega's measure of a slanted label can fall short of."""
    chart.autosize = FIT_COLUMN
    chart.padding = {"left": 5, "top": 5, "right": 10, "bottom": 5}
    return chart


AXES_ROOM = 70  # px of the column a line of words leaves to the axes beside the view


def wrap_lines(text_expr: str, em: float = TEXT_EM) -> str:
    """A Vega expression: the string `text_expr` (an expression) with a line break put in wherever a line would
    be wider than the view, at `em` px a character; lines already broken stay broken.

    The view's width is taken from its column (containerSize), less AXES_ROOM, rather than from the `width`
    signal: the fitted layout works `width` out from what is drawn, and words that wrapped again after it
    would leave the drawing's height as it was. A drawing made at build time has no column: there, `width`."""
    room = f"(containerSize()[0] > 0 ? containerSize()[0] - {AXES_ROOM} : width)"
    per_line = f"max({MIN_LINE}, floor({room} / {em}))"
    pattern = f"'(?![^\\\\n]{{1,' + {per_line} + '}}$)([^\\\\n]{{1,' + {per_line} + '}})[ \\\\t]+'"
    return f"replace({text_expr}, regexp({pattern}, 'gm'), '$1\\n')"


def wrapped(text_expr: str, em: float = TITLE_EM):
    """A title's text that wraps to the view's width: an expression of its lines, for alt.Title(...)."""
    return alt.ExprRef(expr=f"split({wrap_lines(text_expr, em)}, '\\n')")


def over_bars(count: int, room: int = 26) -> dict:
    """Mark properties for a value written over each of `count` bars side by side: across, above the bar, where
    the bars are `room` px wide or more; else turned upright, so that neighbours' words never run together; left
    out where even upright they would (the tooltip still says it)."""
    band = f"width / {count}"
    narrow = f"{band} < {room}"
    return {"angle": alt.ExprRef(f"{narrow} ? 270 : 0"), "align": alt.ExprRef(f"{narrow} ? 'left' : 'center'"),
            "dx": alt.ExprRef(f"{narrow} ? 4 : 0"), "dy": alt.ExprRef(f"{narrow} ? 0 : -7"), "baseline": "middle",
            "opacity": alt.ExprRef(f"{band} >= 13 ? 1 : 0")}


def literal(text: str) -> str:
    """A text as a single-quoted Vega expression string."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"


def with_params(chart, *params):
    """The chart with variable params (a value, an expression, an input) at its top level: where add_params
    puts them on a concatenated chart too, but without copying every subchart twice on the way, which for
    the larger figures takes longer than all the rest of building them."""
    chart.params = [param.param for param in params]
    return chart


def spec(chart) -> dict:
    """The chart's Vega-Lite spec as plain data, as pages embed it (tests/test_site.py validates each one).

    The datasets go in after the conversion: they are plain data already, and Altair would walk every row and
    value of them, which for the larger figures takes longer than converting all the rest of the chart.
    """
    datasets = chart.datasets
    bare = chart.copy(deep=False)
    bare.datasets = alt.Undefined
    out = bare.to_dict(validate=False)
    if datasets is not alt.Undefined:
        out["datasets"] = datasets
    return out


QUOTE_LIMIT = 160  # a printed figure quotes a longer text by its start only


def quoted(text: str, n_tokens: int) -> str:
    """The text as a printed figure quotes it: whole, or for a long one its start and its length."""
    flat = " ".join(text.split())
    if len(flat) <= QUOTE_LIMIT and flat == text:
        return f'"{text}"'
    if len(flat) <= QUOTE_LIMIT:
        return f'"{flat}"'
    return f'"{flat[:QUOTE_LIMIT - 20].rstrip()} ..." ({n_tokens:,} tokens)'


def heading(fig: Figure, title: str) -> str:
    """A printed figure's first line, its label and title: '(i) The guess takes shape layer by layer'."""
    return f"({fig.label}) {title}"
