"""The scores figure's chart (figures.scores): the question and each token's description, number by number; their
products, a row of which adds up to a fit; and each token's fit, its fit divided, and its share at the chosen
temperature, worked out again in the page. Its parts read the page's data ("strips", "products", "bars":
figures.scores.chart_rows makes them) and params (key, T), so they take no run.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence
from typing import cast

from figures.toolkit import charts
from figures.toolkit.charts import alt
from figures.toolkit.colours import ASIDE, CHOSEN, DATA

ROW_HEIGHT = 20
QUESTION = "the question"  # the strips' row of the asking token's query
OUT_OF_REACH = "out of reach: comes after"  # written in the bars' rows of the tokens after the asking one
OUT_OF_WINDOW = "out of reach: too far back"  # a key the model hides (a sliding window: it sees so many tokens back)
SUBTITLE_LINE = 48  # characters: a line of a subtitle (11 px) fits a 360 px phone's column
FOLLOWED_MARK = "\u25b6 "  # before the followed description's name, in every chart: "▶ 5: _Vienna"


# The followed description, the reader's choice: in the chosen orange (its bars, its rows framed), and its name,
# in every chart, marked and in bold, for readers who see the orange otherwise. The asking token is no choice of the
# reader's: the page's row of tokens underlines it in ink, and no mark of the chart is orange for it.
FOLLOWED = "indexof(datum.value, key + ':') == 0"


def _rows_y(names: list[str], first: Sequence[str] = ()) -> alt.Y:
    """The rows: one per token (after `first`), the followed one marked and in bold."""
    return alt.Y(
        "row:N",
        sort=[*first, *names],
        title=None,
        axis=alt.Axis(
            labelLimit=180,
            labelFontWeight=alt.ExprRef(f"{FOLLOWED} ? 'bold' : 'normal'"),
            labelExpr=f"({FOLLOWED} ? {charts.literal(FOLLOWED_MARK)} : '') + datum.value",
        ),
    )


def _vector_colour() -> alt.Color:
    """Each number's colour: the negative colour below zero, the positive above, pale near zero."""
    return alt.Color(
        "v:Q",
        scale=charts.diverging(),
        title="a cell's number",
        legend=alt.Legend(orient="top", direction="horizontal", gradientLength=160),
    )


def _frame(data: str, y: alt.Y) -> alt.Chart:
    """One frame, in the chosen colour, around the followed description's row."""
    return cast(
        "alt.Chart",
        alt.Chart(alt.NamedData(data))
        .transform_filter("datum.j == key && datum.i == 1")
        .mark_rect(fill=None, stroke=CHOSEN, strokeWidth=2, aria=False)
        .encode(y=y, x=alt.value(0), x2=alt.value("width")),
    )


def _followed() -> Mapping[str, object]:
    """A bar's colour: the chosen colour for the followed description's, the data's for the others."""
    return alt.condition("datum.j == key", alt.value(CHOSEN), alt.value(DATA))


def strips_chart(names: list[str], q: int, width: int) -> alt.LayerChart:
    """The question and each description, one cell per number; the followed one framed."""
    y = _rows_y(names, [QUESTION])
    cells = (
        alt.Chart(alt.NamedData("strips"))
        .mark_rect()
        .encode(
            x=alt.X(
                "i:O",
                title=[f"the {width} numbers of the question", "and of each description"],  # a phone's width
                axis=alt.Axis(labels=False, ticks=False),
            ),
            y=y,
            color=_vector_colour(),
            tooltip=[
                alt.Tooltip("row:N", title="row"),
                alt.Tooltip("i:O", title="number"),
                alt.Tooltip("v:Q", title="value", format=".3f"),
            ],
        )
    )
    return cast(
        "alt.LayerChart",
        alt.layer(cells, _frame("strips", y)).properties(
            width="container",
            height=ROW_HEIGHT * (q + 2),
            title=alt.Title(charts.wrapped(charts.literal("The question and each token's description"))),
        ),
    )


def products_chart(names: list[str], q: int, width: int) -> alt.LayerChart:
    """The question times each description, number by number: their sum is the fit; the followed one framed."""
    y = _rows_y(names)
    cells = (
        alt.Chart(alt.NamedData("products"))
        .mark_rect()
        .encode(
            x=alt.X(
                "i:O",
                title=["a number of the question", "times a number of the description"],
                axis=alt.Axis(labels=False, ticks=False),
            ),
            y=y,
            color=_vector_colour(),
            tooltip=[
                alt.Tooltip("row:N", title="description of"),
                alt.Tooltip("i:O", title="number"),
                alt.Tooltip("v:Q", title="product", format=".4f"),
            ],
        )
    )
    return cast(
        "alt.LayerChart",
        alt.layer(cells, _frame("products", y)).properties(
            width="container",
            height=ROW_HEIGHT * (q + 1),
            title=alt.Title(charts.wrapped(charts.literal("Their products: add a row up to get its fit"))),
        ),
    )


def _share_bars(reach: alt.Chart, y: alt.Y) -> list[alt.Chart]:
    """Each share at the chosen temperature, worked out again in the page, and the running total of the shares."""
    shares = (
        reach.transform_calculate(z="datum.scaled / T")
        .transform_joinaggregate(top="max(z)")
        .transform_calculate(e="exp(datum.z - datum.top)")
        .transform_joinaggregate(total="sum(e)")
        .transform_calculate(share="datum.e / datum.total")
        .transform_window(running="sum(share)", sort=[alt.SortField("j")])
    )
    share_x = alt.X(
        "share:Q", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%", tickCount=3), title="share of attention"
    )
    bars = shares.mark_bar().encode(
        x=share_x,
        y=y,
        color=_followed(),
        tooltip=[
            alt.Tooltip("row:N", title="token"),
            alt.Tooltip("share:Q", format=".2%"),
            alt.Tooltip("running:Q", title="running total", format=".2%"),
        ],
    )
    running = shares.mark_text(align="left", dx=4, fontSize=11).encode(
        x=alt.value("width"), y=y, text=alt.Text("running:Q", format=".0%")
    )
    return [bars, running]


def why_divided(width: int, scale: float | None = None) -> str:
    """Why the fits are divided by the square root of the head's width, in words, with the numbers of this head."""
    root = math.sqrt(width)
    if scale is not None and scale != root:
        return (
            f"Why {scale:.4g}: the square root of the head's {width} numbers, {root:g}, times {scale / root:.4g}, "
            "this model's own further scale. Dividing keeps the fits small enough that the shares do not give "
            "nearly everything to one token."
        )
    return (
        f"Why {root:g}: it is the square root of the head's {width} numbers. Dividing keeps the fits small "
        "enough that the shares do not give nearly everything to one token."
    )


def bars_charts(names: list[str], width: int, root: float, own: bool = False) -> list[alt.LayerChart]:
    """Each token's fit, its fit divided by the root of the head's width or the model's own scale `root` (and why,
    under its title), and its share at the chosen temperature with the running total of the shares; the tokens after
    the asking one out of reach, and (`own`: the model's own scores, a sliding window) those too far back."""
    y = _rows_y(names)
    reach = alt.Chart(alt.NamedData("bars")).transform_filter("!datum.masked")
    fit = reach.mark_bar().encode(
        x=alt.X("fit:Q", title="fit (question \u00b7 description)"),
        y=y,
        color=_followed(),
        tooltip=[alt.Tooltip("row:N", title="token"), alt.Tooltip("fit:Q", format=".4f")],
    )
    scaled = reach.mark_bar().encode(
        x=alt.X("scaled:Q", title=f"fit \u00f7 {root:g}"),
        y=y,
        color=_followed(),
        tooltip=[
            alt.Tooltip("row:N", title="token"),
            alt.Tooltip("scaled:Q", title=f"fit \u00f7 {root:g}", format=".4f"),
        ],
    )
    # Words that stand aside: the theme's colour for words, faded (colours.ASIDE), which reads on both pages.
    masked = (
        alt.Chart(alt.NamedData("bars"))
        .transform_filter("datum.masked")
        .mark_text(align="left", fontSize=11, fontStyle="italic", opacity=ASIDE)
        .encode(
            x=alt.value(0),
            y=y,
            text=alt.condition("datum.far", alt.value(OUT_OF_WINDOW), alt.value(OUT_OF_REACH))
            if own
            else alt.value(OUT_OF_REACH),
        )
    )
    size = {"width": "container", "height": ROW_HEIGHT * len(names)}
    return [
        alt.layer(fit, masked).properties(title="Fit", **size),
        alt.layer(scaled, masked).properties(
            title=alt.Title(  # a subtitle is fixed: lines that fit a phone
                f"Fit divided by {root:g}", subtitle=textwrap.wrap(why_divided(width, root), SUBTITLE_LINE)
            ),
            **size,
        ),
        alt.layer(*_share_bars(reach, y), masked).properties(title="Share, and the running total", **size),
    ]
