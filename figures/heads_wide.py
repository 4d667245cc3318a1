"""The heads figure's chart in a column of NARROW_PX or more (figures.heads): the grid of every head and the chosen
head larger side by side in one view, so that a desktop's first screen shows both and the grid takes the width the
larger head leaves it (a phone's chart stacks them: figures.heads_chart.grid_chart); the chosen token's bars below.
The parts are figures.heads_chart's, placed here: the grid on the left, as large as SIDE_HEIGHT or GRID_SHARE of the
width left by the larger head's labels allows; the larger head from its labels to the view's right edge, SIDE_HEIGHT high.
"""

from __future__ import annotations

import math
from typing import cast

from figures.heads_chart import (
    LARGER_TITLE,
    LOOKED_AT,
    LOOKING,
    NOTE_ROOM,
    chosen_row,
    grid_layers,
    grid_title,
    square_cells,
)
from figures.heads_grid import Grid
from figures.toolkit import charts
from figures.toolkit.charts import alt
from figures.toolkit.colours import MASKED

SIDE_HEIGHT = 360  # px: the larger head's height, and the most the grid's may be
LABEL_ROOM = 40  # px left of the larger head's labels: its axis's title, and a gap from the grid
GRID_SHARE = 0.55  # of the width the larger head's labels leave, the most the grid takes: the larger head the rest


def side_by_side(grid: Grid, picture: str, n_heads: int, one: alt.Chart) -> alt.LayerChart:
    """The grid (grid_layers, `picture` its PNG) and the chosen square (`one`: chosen_square) larger, side by side in
    a view as wide as the column, each on scales of its own; the note on grey under the grid."""
    units_x, units_y = grid.units
    labels = math.ceil(charts.TEXT_EM * max(len(name) for name in grid.names)) + LABEL_ROOM
    grid_w = f"min({SIDE_HEIGHT * units_x / units_y:.6g}, (width - {labels}) * {GRID_SHARE})"
    left = f"({grid_w}) + {labels}"  # px: where the larger head starts
    both = alt.layer(alt.layer(*grid_layers(grid, picture, grid_w)), alt.layer(*larger_layers(grid, one, left)))
    return cast(
        "alt.LayerChart",
        both.resolve_scale(x="independent", y="independent").properties(
            width="container",
            height=SIDE_HEIGHT + NOTE_ROOM,
            view=alt.ViewBackground(stroke=None),
            title=grid_title(n_heads),
        ),
    )


def larger_layers(grid: Grid, one: alt.Chart, left: str) -> list[alt.Chart]:
    """The chosen square larger, from `left` (px, an expression) to the view's right edge and SIDE_HEIGHT high: its
    cells on grey (out of reach), the chosen token's row outlined, its title above it; its keys' axis at its foot
    and its queries' on its left, both moved there from the view's edges (offset)."""
    keys = alt.X(
        "k:O",
        scale=alt.Scale(domain=grid.band, range=[alt.ExprRef(left), alt.ExprRef("width")]),
        title=LOOKED_AT,
        axis=alt.Axis(
            labelExpr=grid.label,
            labelAngle=-45 if grid.label_every == 1 else -90,
            labelFontSize=11,
            labelOverlap=False,
            orient="bottom",
            offset=-NOTE_ROOM,
        ),
    )
    rows = alt.Scale(domain=grid.band, range=[0, SIDE_HEIGHT])
    queries = alt.Y(
        "q:O",
        scale=rows,
        title=LOOKING,
        axis=alt.Axis(
            labelExpr=grid.label, labelFontSize=11, labelOverlap=False, orient="left", offset=alt.ExprRef(f"-({left})")
        ),
    )
    across = {"x": alt.value(alt.ExprRef(left)), "x2": alt.value("width")}
    grey = (
        alt.Chart(alt.Data(values=[{}]))  # type: ignore[no-untyped-call]  # untyped alt.Data
        .mark_rect(color=MASKED, aria=False)
        .encode(y=alt.value(0), y2=alt.value(SIDE_HEIGHT), **across)
    )
    title = (
        alt.Chart(alt.Data(values=[{}]))  # type: ignore[no-untyped-call]  # untyped alt.Data
        .transform_calculate(title=LARGER_TITLE)
        .mark_text(align="left", baseline="bottom", fontSize=13, fontWeight="bold", aria=False)
        .encode(x=alt.value(alt.ExprRef(left)), y=alt.value(-8), text="title:N")
    )
    return [grey, square_cells(one, keys, queries), chosen_row(grid, rows, across), title]
