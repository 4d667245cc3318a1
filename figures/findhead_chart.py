"""Which head links two words (figures.findhead): its bars, every head ranked by the share one token gives an earlier
one, as the book's page draws them from its data, and as a reader's text's page draws them with no text in them
(textless_chart: from the page's "panels", every head's lower triangle in units, row by row, and "names").
"""

from __future__ import annotations

from typing import cast

from figsite.data.run import PER_SHARE
from figsite.data.shared_names import DESCRIPTION, FROM, LOOKED_AT, WITHIN_META
from figures.toolkit import charts, textless
from figures.toolkit.charts import alt
from figures.toolkit.colours import DATA

BAR_HEIGHT = 24  # px per head's bar
TOP = 10  # heads shown: the book's default (FindHead.FIELDS "top")
# The pair in words, as a Vega expression: "From _it (token 8) back to _animal (token 2)".
PAIR = "'From ' + names[from - 1] + ' (token ' + from + ') back to ' + names[to - 1] + ' (token ' + to + ')'"


def textless_chart(n_layer: int, n_head: int, opening_from: int | None = None, opening_to: int = 1) -> alt.LayerChart:
    """The top TOP heads for the chosen pair as bars (top_bars, reading the pair's share out of each
    head's triangle), or why none are drawn where `to` comes after `from`. Reads `panels`, `names`; the selects
    "from" (`opening_from`; None: the last token) and "to" (`opening_to`, from 1: the first token)."""
    n_heads = n_layer * n_head
    looking = textless.chosen(FROM, opening_from, "From token ", follow=False)
    looked_at = alt.param(
        name=LOOKED_AT, value=opening_to, bind=alt.binding_select(options=[1], labels=["1"], name="back to token ")
    )
    title = f"(to > from ? 'No token looks to the right' : {PAIR} + ': the top {TOP} of all {n_heads:,} heads')"
    description = alt.param(
        name=DESCRIPTION,
        expr=(
            f"to > from ? {refusal(' ')} : {PAIR} + ': the {TOP} of all {n_heads:,} heads that give it the largest "
            "share, highest first.'"
        ),
    )
    # The pair's share in a head's triangle: `from`'s row begins after the rows of the tokens before it.
    share = f"datum.u[(from - 1) * from / 2 + to - 1] / {PER_SHARE}"
    bars = top_bars(TOP, "panels", share, f"datum.l < {n_layer} && datum.h < {n_head}")  # no layer's average
    chart: alt.LayerChart = alt.layer(*bars, refusal_message()).properties(
        width="container", height=TOP * BAR_HEIGHT, title=alt.Title(charts.wrapped(title))
    )
    chart.usermeta = {WITHIN_META: {LOOKED_AT: FROM}}
    return textless.finished(chart, [*looking, looked_at, description], (), n_layer, n_head, "panels")


def refusal(sep: str) -> str:
    """The words when 'to' comes after 'from', as a Vega expression, its sentences parted by `sep`."""
    return (
        f"'Token ' + to + ' (' + names[to - 1] + ') comes after token ' + from + ' (' + names[from - 1] + "
        f"'):{sep}no token looks to the right.{sep}Choose a token at or before token ' + from + '.'"
    )


def top_bars(
    top: int,
    heads: str = "heads",
    share: str = f"datum.u[offsets[from - 1] + to - 1] / {PER_SHARE}",
    only: str = "true",
) -> list[alt.Chart]:
    """The `top` heads for the chosen pair, ranked in the page from the shares: a bar each, its share beside it. The
    heads' rows are the dataset `heads` (those for which `only` holds), each head's share for the pair `share` (Vega
    expressions): the book's page data by default; a reader's text's every head's triangle (findhead_textless)."""
    ranked = (
        alt.Chart(alt.NamedData(heads))
        .transform_filter(f"to <= from && ({only})")
        .transform_calculate(s=share)
        .transform_window(
            rank="row_number()", sort=[alt.SortField("s", order="descending"), alt.SortField("l"), alt.SortField("h")]
        )
        .transform_filter(f"datum.rank <= {top}")
        .transform_calculate(name="'layer ' + (datum.l + 1) + ', head ' + (datum.h + 1)")
    )
    y = alt.Y(
        "name:N",
        sort=alt.EncodingSortField(field="rank", op="min", order="ascending"),
        title=None,
        axis=alt.Axis(labelFontSize=12, ticks=False, domain=False),
    )
    x = alt.X(
        "s:Q",
        scale=alt.Scale(domain=[0, 1]),
        axis=alt.Axis(format="%", tickCount=5),
        title=["share of attention", "from the one token to the other"],
    )
    tips = [alt.Tooltip("rank:Q"), alt.Tooltip("name:N", title="head"), alt.Tooltip("s:Q", title="share", format=".2%")]
    bars = ranked.mark_bar().encode(x=x, y=y, color=alt.value(DATA), tooltip=tips)
    values = ranked.mark_text(align="left", dx=4, fontSize=12).encode(  # the bar's tooltip on its words too
        x=alt.X("s:Q", scale=alt.Scale(domain=[0, 1])), y=y, text=alt.Text("s:Q", format=".0%"), tooltip=tips
    )
    return [bars, values]


def refusal_message() -> alt.Chart:
    """In place of the bars where 'to' comes after 'from': why none are drawn, in lines as wide as the chart."""
    line_break = "\\n"  # a new line, in a Vega expression's string
    message = (
        alt.Chart(
            alt.Data(  # type: ignore[no-untyped-call]  # untyped alt.Data
                values=[{}]
            )
        )
        .transform_filter("to > from")
        .transform_calculate(said=charts.wrap_lines(f"({refusal(line_break)})", em=7.4))
        .mark_text(align="left", baseline="top", fontSize=13, lineBreak="\n")
        .encode(x=alt.value(0), y=alt.value(4), text="said:N")
    )
    return cast("alt.Chart", message)
