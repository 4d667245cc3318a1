"""The roles figure's chart (figures.roles): the grid of heads, layers down and heads across, each in its strongest
habit's colour or shaded by one habit's share; and the chosen head's pattern over the random tokens said twice, its
earlier copies outlined (the heads figure's larger pattern, figures.heads_chart.detail_chart). The habits as the
page names them (ROLES) are here, as the grid colours them. Its parts read the page's data ("heads", "repeats":
figures.roles makes them) and params (layer, head, show), so they take no run.
"""

from __future__ import annotations

from typing import cast

from figsite.data.part_records import Role
from figures.heads_chart import DETAIL_HEIGHT, Grid, chosen_square, detail_chart, key_x, query_axis
from figures.records import CopyLines, HeadRow, LegendPlace, OutlineBox, ShownWhen
from figures.toolkit import charts
from figures.toolkit.charts import alt
from figures.toolkit.colours import CELL_LINE, CHOSEN, ON_DARK, ROLE_COLOURS

STRONGEST = "strongest"  # the `show` choice that colours each head by its strongest role
# Each role: its name on the page (what a head looks at, in the chapter's words: researchers' names for the habits
# are in "More detail", figures.roles.DETAILS), and where its share goes, as words from the data finish the sentence
# "Of all heads, layer 5 head 1 looks most at ...".
ROLES: dict[Role, tuple[str, str]] = {
    "previous": ("the token before", "the token just before"),
    "first": ("the first token", "the first token"),
    "self": ("itself", "itself"),
    "duplicate": ("an earlier copy", "an earlier copy of the same token"),
    "induction": ("after an earlier copy", "the token after the earlier copy of the current one"),
}

NARROW_SQUARE = charts.TAP  # px: a head's square on a phone, which a finger can tap and its label fits
PHONE_GRID = 290  # px: about the width a 360 px phone's column leaves the grid
REPEAT_CELL = 10  # px: a cell of the pattern over the random tokens at least (a row, on a wide page), where the
# two outlines (the earlier copy, the token after it) stay apart; on a phone a longer pattern scrolls in its box
REPEAT_NAMES = "repeat_names"  # the param naming the random tokens' rows and columns


def repeats_chart(grid: Grid, length: int, square: int) -> alt.LayerChart:
    """The chosen head's pattern over the random tokens said twice, the copies outlined. Its rows are REPEAT_CELL
    px tall or more on a wide page too (not the larger pattern's usual height, in which 80 rows are 4.5 px and the
    two outlines run together along the diagonal), as its cells are on a phone."""
    chart = detail_chart(
        grid,
        chosen_square(grid),
        outline=False,
        extra=[_copies(grid, length)],
        title="'Layer ' + layer + ', head ' + head + " + charts.literal(f" on {length} random tokens said twice"),
    )
    return chart if square else chart.properties(height=max(DETAIL_HEIGHT, REPEAT_CELL * grid.blocks))


# How the pattern over the random tokens said twice outlines the cells where each role looks.
COPIES: dict[Role, str] = {"induction": "the token after the earlier copy", "duplicate": "the earlier copy itself"}
# How much of its cell each outline takes: the earlier copy's the whole cell, the token after it's a smaller box
# inside its own, so that the two, side by side on every row, stay apart on a phone's small cells too.
INSET: dict[Role, float] = {"duplicate": 1.0, "induction": 0.5}


def _copies(grid: Grid, length: int) -> alt.LayerChart:
    """Outlined, at each token of the second copy: the token after its earlier copy, and the earlier copy itself
    (the blocks that hold them, in a pattern kept in blocks)."""
    cells = sorted(
        {
            (role, q // grid.size, (q - length + (1 if role == "induction" else 0)) // grid.size)
            for role in COPIES
            for q in range(length, 2 * length)
        }
    )
    outlines: list[alt.Chart] = []
    for role in COPIES:
        where = alt.Chart(
            alt.Data(  # type: ignore[no-untyped-call]  # Altair's Data takes **kwds
                values=[{"role": COPIES[role], "q": q, "k": k} for r, q, k in cells if r == role]
            )
        )
        box: OutlineBox = {"fill": None, "aria": False, "width": {"band": INSET[role]}, "height": {"band": INSET[role]}}
        # A pale line under each outline: it stands out on the darkest and the lightest cells of the pattern alike.
        outlines += [
            where.mark_rect(stroke=ON_DARK, strokeWidth=2.5, strokeOpacity=0.6, **box).encode(
                x=key_x(grid), y=query_axis(grid)
            ),
            where.mark_rect(strokeWidth=1.5, **box).encode(x=key_x(grid), y=query_axis(grid), **_copy_lines()),
        ]
    return cast("alt.LayerChart", alt.layer(*outlines))  # a FacetChart only from layers with facets: these have none


def _copy_lines() -> CopyLines:
    """The outlines' colour and dash by role, with their one legend."""
    return dict(
        # Dashed and solid as well as coloured: neighbouring diagonals, told apart without colour too.
        strokeDash=alt.StrokeDash(
            "role:N", scale=alt.Scale(domain=list(COPIES.values()), range=[[3, 2], [1, 0]]), legend=None
        ),
        stroke=alt.Stroke(
            "role:N",
            title="outlined:",
            scale=alt.Scale(domain=list(COPIES.values()), range=[ROLE_COLOURS[role] for role in COPIES]),
            legend=alt.Legend(orient="bottom", direction="vertical", labelLimit=320, symbolType="square"),
        ),
    )


def grid_rows(rows: list[HeadRow]) -> list[dict[str, object]]:
    """Per head and role: its score, whether it is the head's strongest role (the grid's data)."""
    return [
        {
            "l": row["layer"] + 1,
            "h": row["head"] + 1,
            "role": role,
            "name": ROLES[role][0],
            "score": row[role],
            "best": role == row["best"],
        }
        for row in rows
        for role in ROLES
    ]


def shown_when(test: str) -> ShownWhen:
    """A legend's properties that show it only while the Vega expression `test` holds: each legend of the grid
    applies to one way of colouring it, and the other is not drawn."""
    seen = alt.ExprRef(f"{test} ? 1 : 0")
    return {"titleOpacity": seen, "labelOpacity": seen, "symbolOpacity": seen, "aria": alt.ExprRef(test)}


# The grid's two legends, one for each way of colouring it, lie in one place above it, of one size (five squares in
# two columns): the one shown takes the other's room, and nothing above the grid opens or moves (issue 44).
LEGEND_ROOM = 60  # px above the grid: a legend's title and three rows, and a gap of about 8
KEY_PLACE: LegendPlace = {
    "orient": "none",
    "legendX": 0,
    "legendY": -LEGEND_ROOM,
    "direction": "horizontal",
    "columns": 2,
    "symbolType": "square",
    "symbolSize": 121,
    "symbolStrokeWidth": 0,
    "labelLimit": 200,
}
STEPS = [0, 0.25, 0.5, 0.75, 1]  # the shares the legend of one habit shows, five as the habits are


def _coloured(clicked: alt.Chart, tips: list[alt.Tooltip]) -> tuple[alt.Chart, alt.Chart]:
    """The grid's squares, coloured two ways, one shown at a time by `show`: each head by its strongest habit, or
    by the chosen habit's share; each with its legend, in one place above the grid (KEY_PLACE)."""
    strongest = (
        clicked.transform_filter(f"show == '{STRONGEST}' && datum.best")
        .mark_rect(stroke=CELL_LINE, strokeWidth=0.5, cursor="pointer")
        .encode(
            color=alt.Color(
                "name:N",
                title="its strongest habit: looking at",
                scale=alt.Scale(
                    domain=[name for name, _ in ROLES.values()], range=[ROLE_COLOURS[role] for role in ROLES]
                ),
                legend=alt.Legend(**KEY_PLACE, **shown_when(f"show == '{STRONGEST}'")),
            ),
            tooltip=tips,
        )
    )
    # Empty while the strongest habits show: hidden from screen readers, whom the tooltip's words serve instead.
    one = (
        clicked.transform_filter("datum.role == show")
        .mark_rect(stroke=CELL_LINE, strokeWidth=0.5, cursor="pointer", aria=False)
        .encode(
            color=alt.Color(
                "score:Q",
                title="share of its attention there",
                scale=charts.sequential(domain=[0, 1]),
                legend=alt.Legend(
                    **KEY_PLACE, type="symbol", values=STEPS, format="%", **shown_when(f"show != '{STRONGEST}'")
                ),
            ),
            tooltip=tips,
        )
    )
    return strongest, one


def grid_chart(rows: list[HeadRow], square: int = 0) -> alt.LayerChart:
    """Layers down, heads across: a square per head, in its strongest role's colour, or with a role chosen, that
    role's score on the sequential scale; the chosen head framed. As wide as the column, or `square` px a head.
    Each square is drawn in its legend's colour, whole (not faded by its score, which on a dark page would turn it
    a colour the legend lacks): the legend's swatches are the squares' pixels, light and dark."""
    n_layer, n_head = rows[-1]["layer"] + 1, rows[-1]["head"] + 1
    base = alt.Chart(alt.NamedData("heads")).encode(
        x=alt.X("h:O", title="head", axis=alt.Axis(labelAngle=0)), y=alt.Y("l:O", title="layer")
    )
    tips = [
        alt.Tooltip("l:O", title="layer"),
        alt.Tooltip("h:O", title="head"),
        alt.Tooltip("name:N", title="looks at"),
        alt.Tooltip("score:Q", title="share of its attention", format=".0%"),
    ]
    strongest, one = _coloured(charts.clickable(base, layer="datum.l", head="datum.h"), tips)
    chosen = base.transform_filter("datum.best && datum.l == layer && datum.h == head").mark_rect(
        fill=None, stroke=CHOSEN, strokeWidth=2.5, aria=False
    )
    return cast(
        "alt.LayerChart",
        alt.layer(strongest, one, chosen)
        .resolve_scale(color="independent")
        .properties(
            width=alt.Step(square) if square else "container",
            height=alt.Step(square) if square else max(120, 16 * n_layer),
            # A phone's grid, which scrolls where it is wider than the column: its title at its left, in view.
            title=alt.Title(
                f"Every head of the {n_layer} layers, {n_head} each", anchor="start" if square else alt.Undefined
            ),
        ),
    )
