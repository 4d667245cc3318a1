"""The heads figure's chart with no text in it (figures.heads.Heads.textless_chart: the reader's sentence's): the grid
of every head, each as its small picture of who looks at whom as in the book's grid (the page's script draws the
pictures: templates/js/live/pictures.js), beside the build's larger square (figures.heads_chart.detail_chart) and
bars (figures.heads_bars.bars_chart). It reads the page's "panels" and "names" (figsite.data.live_data).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from figsite.data.run import PER_SHARE
from figsite.data.shared_names import DESCRIPTION, HEAD_PICTURES, PICTURE_PALETTE, TOKEN
from figures.heads_bars import bars_chart
from figures.heads_chart import DETAIL_HEIGHT, chosen_square, detail_chart, grid_title, head_params
from figures.heads_grid import AVERAGE, LEVELS, Grid
from figures.toolkit import charts, textless
from figures.toolkit.charts import alt
from figures.picture import VIRIDIS_STOPS
from figures.toolkit.colours import ACCENT, CELL_LINE, MASKED

PICTURE_ROW = 44  # px per layer of the grid with no text: a head's picture at most this high, a box a finger can tap
NARROW_PICTURE_ROW = 26  # ... in a phone's column, where 13 squares across leave each about this wide


def textless_chart(
    n_layer: int,
    n_head: int,
    opening_head: Sequence[int] = (1, 1),
    opening_token: int | None = None,
    narrow: bool = False,
) -> alt.VConcatChart:
    """The figure's chart with no text in it (the reader's sentence's): the grid of every head, each as its picture
    (_textless_grid; a click chooses one), the chosen one's pattern larger (detail_chart)
    and the chosen token's bars in it (bars_chart), upright or (narrow) sideways. Reads `panels`, `names`; the
    selects "layer", "head" (1.., 'avg'), opening on `opening_head` ([layer, head] from 1), and "token"
    (`opening_token`; None: the last)."""
    grid = Grid(n_layer, n_head, 0, 1, 0, [], narrow=narrow, textless=True)
    ranked, words = textless.ranked(f"(layer - 1) * {n_head + 1} + {grid.chosen_h}", 3)
    description = alt.param(
        name=DESCRIPTION,
        expr=(
            f"'All {n_layer * n_head:,} heads ({n_layer} layers of {n_head}) and each layer\\'s average, each drawn as "
            f"a small picture of who looks at whom. Shown larger: layer ' + layer + "
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
        *picture_params(),
        description,
    ]
    return textless.finished(charts.fits_column(stack), params, ("layer", "head"), n_layer, n_head, "panels")


def _textless_grid(grid: Grid) -> alt.LayerChart:
    """Every head and layer's average as its small picture of who looks at whom, as the book's grid (the page's
    script draws each from the shares, in the colours of PICTURE_PALETTE, into HEAD_PICTURES: figures.heads draws
    the book's in Python), a square the width of a column where the row allows, in a box a click chooses; the chosen
    one outlined."""
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
            picture=f"{HEAD_PICTURES}[datum.l * {n_head + 1} + datum.h] || ''",
        )
    )
    squares = charts.clickable(squares, layer="datum.l + 1", head=f"datum.h == {n_head} ? '{AVERAGE}' : datum.h + 1")
    squares = _at_head_and_layer(squares, n_layer, n_head)
    chosen = f"datum.l == layer - 1 && datum.h == {grid.chosen_h}"
    tips = [
        alt.Tooltip("view:N", title="square"),
        alt.Tooltip("looked_at:N", title="the chosen token looks hardest at"),
        alt.Tooltip("s:Q", title="its share", format=".1%"),
        alt.Tooltip("first:Q", title="share to the first token", format=".1%"),
    ]
    row = NARROW_PICTURE_ROW if grid.narrow else PICTURE_ROW
    side = f"min({textless.WIDTH} / {n_head + 1}, {row}) - 4"  # px: a picture's side, within its box
    pictures = squares.mark_image(
        aspect=False, smooth=False, aria=False, width=alt.ExprRef(side), height=alt.ExprRef(side)
    ).encode(url="picture:N")
    boxes = squares.mark_rect(fill="transparent", cursor="pointer").encode(
        stroke=alt.condition(chosen, alt.value(ACCENT), alt.value(CELL_LINE)),
        strokeWidth=alt.condition(chosen, alt.value(3), alt.value(0.5)),
        tooltip=tips,
    )
    return cast(
        "alt.LayerChart",
        alt.layer(pictures, boxes).properties(
            width="container", height=alt.Step(row), title=grid_title(n_layer * n_head)
        ),
    )


def picture_params() -> list[alt.Parameter]:
    """The pictures the page's script draws (HEAD_PICTURES, none until it has) and their colours: the sequential
    scheme's stops as Vega interpolates them, in as many levels as the book's picture, and the colour of a cell out of
    reach (the dark page's own, as every colour of the chart: sitegen.site.schemes)."""
    palette = {"stops": VIRIDIS_STOPS, "levels": LEVELS, "masked": MASKED}
    return [alt.param(name=HEAD_PICTURES, value=[]), alt.param(name=PICTURE_PALETTE, value=palette)]


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
