"""The heads figure's chart with no text in it (figures.heads.Heads.textless_chart: the live page's): the grid of
every head as one rect each, coloured by the largest share the chosen token gives a token other than the first (the
page draws no picture), beside the build's larger square (figures.heads_chart.detail_chart) and bars
(figures.heads_bars.bars_chart). It reads the live page's "panels" and "names" (figsite.data.live_data).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypedDict, cast

from figsite.data.run import PER_SHARE
from figsite.data.shared_names import DESCRIPTION, TOKEN
from figures.heads_bars import bars_chart
from figures.heads_chart import DETAIL_HEIGHT, chosen_square, detail_chart, head_params
from figures.heads_grid import AVERAGE, Grid
from figures.toolkit import charts, textless
from figures.toolkit.charts import alt
from figures.toolkit.colours import ACCENT, CELL_LINE, ON_DARK, ON_LIGHT

GRID_ROW = 24  # px per layer of the grid with no text: a row a finger can tap (charts.TAP)
GIVES = "(at > 0 ? ') gives a token other than the first' : ') gives itself')"
# The caption of the grid with no text: it draws one rect per head, where the build's draws each head's pattern.
GRID_CAPTION = (
    "Each square is one head (the last column: each layer's average). Its colour shows the largest share "
    "the chosen token gives any token but the first (many heads park their attention there), and the "
    "square names that token where it fits."
)
Legend = TypedDict(
    "Legend",
    {
        "orient": Literal["bottom"],
        "direction": Literal["horizontal"],
        "gradientLength": int,
        "format": str,
        "values": list[float],
    },
)
LEGEND: Legend = {
    "orient": "bottom",
    "direction": "horizontal",
    "gradientLength": 160,
    "format": "%",
    "values": [0, 0.5, 1],
}


def textless_chart(
    n_layer: int,
    n_head: int,
    opening_head: Sequence[int] = (1, 1),
    opening_token: int | None = None,
    narrow: bool = False,
) -> alt.VConcatChart:
    """The figure's chart with no text in it (the live page's): the grid of every head (one rect each,
    GRID_CAPTION: the page draws no picture; a click chooses one), the chosen one's pattern larger (detail_chart)
    and the chosen token's bars in it (bars_chart), upright or (narrow) sideways. Reads `panels`, `names`; the
    selects "layer", "head" (1.., 'avg'), opening on `opening_head` ([layer, head] from 1), and "token"
    (`opening_token`; None: the last)."""
    grid = Grid(n_layer, n_head, 0, 1, 0, [], narrow=narrow, textless=True)
    ranked, words = textless.ranked(f"(layer - 1) * {n_head + 1} + {grid.chosen_h}", 3)
    description = alt.param(
        name=DESCRIPTION,
        expr=(
            f"'All {n_layer * n_head:,} heads ({n_layer} layers of {n_head}) and each layer\\'s average, each coloured by "
            f"the largest share ' + names[at] + ' (token ' + (at + 1) + {GIVES} + '. Shown larger: layer ' + layer + "
            f"(head == '{AVERAGE}' ? ', the average of its {n_head} heads' : ', head ' + head) + '. Looking from ' + "
            f"names[at] + ' there, the largest shares: ' + {words} + '.'"
        ),
    )
    one = chosen_square(grid)
    stack: alt.VConcatChart = alt.vconcat(
        _textless_grid(grid), detail_chart(grid, one), bars_chart(grid, one), spacing=30
    ).resolve_scale(color="independent")
    params = [
        *head_params(grid, list(opening_head)),
        *textless.chosen(TOKEN, opening_token, "Looking from token ", DETAIL_HEIGHT),
        *ranked,
        description,
    ]
    return textless.finished(charts.fits_column(stack), params, ("layer", "head"), n_layer, n_head, "panels")


def _textless_grid(grid: Grid) -> alt.LayerChart:
    """One rect per head and layer's average, coloured by the largest share the chosen token gives a token other
    than the first (the first token: itself), that token named in it where it fits; the chosen one outlined."""
    n_layer, n_head, start = grid.n_layer, grid.n_head, textless.START
    rest = "(at > 0 ? slice(datum.r, 1) : datum.r)"  # the shares to every token but the first (the first: itself)
    squares = (
        alt.Chart(alt.NamedData("panels"))
        .transform_filter(f"datum.l < {n_layer}")
        .transform_calculate(r=f"slice(datum.u, {start}, {start} + at + 1)")
        .transform_calculate(best=f"extent({rest})[1]")
        .transform_calculate(
            k=f"indexof({rest}, datum.best) + (at > 0 ? 1 : 0)",
            s=f"datum.best / {PER_SHARE}",
            first=f"datum.r[0] / {PER_SHARE}",
            looked_at="names[datum.k]",
            view=f"'layer ' + (datum.l + 1) + (datum.h == {n_head} ? ', average of its heads' : ', head ' + (datum.h + 1))",
        )
    )
    squares = charts.clickable(squares, layer="datum.l + 1", head=f"datum.h == {n_head} ? '{AVERAGE}' : datum.h + 1")
    squares = _at_head_and_layer(squares, n_layer, n_head)
    chosen = f"datum.l == layer - 1 && datum.h == {grid.chosen_h}"
    tips = [
        alt.Tooltip("view:N", title="square"),
        alt.Tooltip("looked_at:N", title="looks hardest at"),
        alt.Tooltip("s:Q", title="its share", format=".1%"),
        alt.Tooltip("first:Q", title="share to the first token", format=".1%"),
    ]
    rects = squares.mark_rect(cursor="pointer").encode(
        color=alt.Color(
            "s:Q", scale=charts.sequential(domain=[0, 1]), title="largest share", legend=alt.Legend(**LEGEND)
        ),
        stroke=alt.condition(chosen, alt.value(ACCENT), alt.value(CELL_LINE)),
        strokeWidth=alt.condition(chosen, alt.value(3), alt.value(0.5)),
        tooltip=tips,
    )
    cell = f"{textless.WIDTH} / {n_head + 1}"  # px per square
    words = squares.mark_text(
        fontSize=10,
        cursor="pointer",
        aria=False,
        limit=alt.ExprRef(f"{cell} - 4"),
        opacity=alt.ExprRef(f"{cell} >= 30 ? 1 : 0"),
    ).encode(
        text="looked_at:N", color=alt.condition("datum.s < 0.45", alt.value(ON_DARK), alt.value(ON_LIGHT)), tooltip=tips
    )
    heading = charts.literal(f"All {n_layer * n_head:,} heads, and each layer's average: the largest share ")
    return cast(
        "alt.LayerChart",
        alt.layer(rects, words).properties(
            width="container",
            height=alt.Step(GRID_ROW),
            title=alt.Title(charts.wrapped(f"{heading} + names[at] + ' (token ' + (at + 1) + {GIVES}"), anchor="start"),
        ),
    )


def _at_head_and_layer(squares: alt.Chart, n_layer: int, n_head: int) -> alt.Chart:
    """The rects placed: heads across the top (the layers' averages last, 'avg'), layers down, every one named."""
    placed = squares.encode(
        x=alt.X(
            "h:O",
            scale=alt.Scale(domain=list(range(n_head + 1))),
            axis=alt.Axis(
                orient="top",
                title="head",
                labelAngle=0,
                labelOverlap=False,
                labelExpr=f"datum.value == {n_head} ? 'avg' : '' + (datum.value + 1)",
            ),
        ),
        y=alt.Y(
            "l:O",
            scale=alt.Scale(domain=list(range(n_layer))),
            axis=alt.Axis(title="layer", labelOverlap=False, labelExpr="'' + (datum.value + 1)"),
        ),
    )
    return cast("alt.Chart", placed)
