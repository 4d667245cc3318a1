"""The heads figure's chart (figures.heads): the grid of every square as one picture and the chosen square larger
(the chosen token's bars in it, as in figure (l), are figures.heads_bars'); with the selects and the words a screen
reader hears.

Every part reads the page's data, "panels" (figures.heads_data.panel_rows: one row per square, its shares in units
of 1e-4), in the page: the chart carries each share once. With no text in it (Grid.textless: the live page's chart,
figures.heads_textless.textless_chart), the same parts read the live page's "panels" (figsite.data.live_data), and
the grid is one rect per square, as the page draws no picture.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Literal, TypedDict, cast

from figsite.data.run import PER_SHARE
from figsite.data.shared_names import DESCRIPTION, NAMES, TOKEN
from figures.heads_grid import AVERAGE, Grid as Grid  # figures.roles reads Grid from here too
from figures.toolkit import charts
from figures.toolkit.charts import alt
from figures.toolkit.colours import ACCENT, MASKED, MASKED_KEY, SEQUENTIAL, SequentialScheme

if TYPE_CHECKING:
    from altair.utils.schemapi import UndefinedType

ShareScale = TypedDict("ShareScale", {"scheme": SequentialScheme, "domain": list[int]})
SHARE_SCALE: ShareScale = {"scheme": SEQUENTIAL, "domain": [0, 1]}  # colour-blind safe; one scale for every square
GRID_HEIGHT = 320  # the grid's view: as wide as the column, the grid in it as large as this height allows
DETAIL_HEIGHT = 360
NOTE_ROOM = 44  # px below the grid: the note on the grey cells
LOOKING = "looking (asks the question)"  # the axis of the tokens that look: their query
LOOKED_AT = "looked at (gives the description)"  # the axis of the tokens looked at: their key


def head_params(grid: Grid, opening_head: Sequence[int]) -> list[alt.Parameter]:
    """The layer and head selects, opening on `opening_head`, [layer, head] from 1."""
    n_layer, n_head = grid.n_layer, grid.n_head
    layer_param = alt.param(
        name="layer", value=opening_head[0], bind=alt.binding_select(options=list(range(1, n_layer + 1)), name="Layer ")
    )
    head_param = alt.param(
        name="head",
        value=opening_head[1],
        bind=alt.binding_select(
            options=list(range(1, n_head + 1)) + [AVERAGE],
            # "average": the menu is as wide as its longest choice, here a word beside two-digit numbers.
            labels=[str(h) for h in range(1, n_head + 1)] + ["average"],
            name="Head ",
        ),
    )
    return [layer_param, head_param]


def chart_params(grid: Grid, opening_head: Sequence[int], opening: int, n_heads: int) -> list[alt.Parameter]:
    """The layer and head selects (head_params), the token select (opening on the 0-based token `opening`), the
    row names, and the live description of the chosen state."""
    n_layer, n_head, size = grid.n_layer, grid.n_head, grid.size
    layer_param, head_param = head_params(grid, opening_head)
    starts = list(range(1, grid.n + 1, size))
    token_labels = [f"{i}: {name}" for i, name in zip(starts, grid.names)] if size == 1 else grid.names
    token_param = alt.param(
        name=TOKEN,
        value=opening // size * size + 1,
        bind=alt.binding_select(
            options=starts, labels=token_labels, name="Looking from token " if size == 1 else "Looking from "
        ),
    )
    names_param = alt.param(name=NAMES, value=grid.names)
    # The words read the chosen square's row "t" (its rows' largest shares) from the page's data, in place: as
    # params, thousands of numbers would be copied by Altair at every step of building the chart.
    looks = alt.param(name="looks", expr=f"data('panels')[(layer - 1) * {n_head + 1} + {grid.chosen_h}].t")
    look_at = alt.param(name="look_at", expr=f"{grid.row_q} * 6")
    top_words = " + ".join(
        f"(looks[look_at + {2 * i}] >= 0 ? '{', ' if i else ''}' + names[looks[look_at + {2 * i}]] + ' ' + "
        f"looks[look_at + {2 * i + 1}] + '%' : '')"
        for i in range(3)
    )
    chosen_words = (
        f"'layer ' + layer + (head == '{AVERAGE}' ? ', the average of its {n_head} heads' : ', head ' + head)"
    )
    description = alt.param(
        name=DESCRIPTION,
        expr=(
            f"'All {n_heads:,} heads ({n_layer} layers of {n_head}) and each layer\\'s average, as squares of who "
            f"looks at whom. Shown larger: ' + {chosen_words} + '. Looking from ' + {grid.from_words} + ' there, the "
            f"largest shares: ' + (looks[look_at] >= 0 ? {top_words} : 'none of 1% or more') + '.'"
        ),
    )
    return [layer_param, head_param, token_param, names_param, looks, look_at, description]


def grid_chart(grid: Grid, picture: str, n_heads: int) -> alt.LayerChart:
    """A phone's grid (grid.narrow), alone in its view: as wide as squares of charts.TAP px, which a finger can tap,
    make it (wider than the column: the chart scrolls in its own box), the view ending just below the note under it,
    with no room left empty where the column is narrower than the grid is tall. Else as wide as the view or as
    GRID_HEIGHT allows. (A wider column's chart sets the grid beside the chosen square: figures.heads_wide.)"""
    units_x, units_y = grid.units
    tapped = math.ceil(charts.TAP * units_x / grid.blocks)  # px: the grid's width on a phone
    grid_w = f"{tapped}" if grid.narrow else f"min(width, {GRID_HEIGHT * units_x / units_y:.6g})"
    width = tapped if grid.narrow else "container"
    height = math.ceil(tapped * units_y / units_x) + NOTE_ROOM if grid.narrow else GRID_HEIGHT
    return cast(
        "alt.LayerChart",
        alt.layer(*grid_layers(grid, picture, grid_w)).properties(
            width=width, height=height, view=alt.ViewBackground(stroke=None), title=grid_title(n_heads)
        ),
    )


def grid_title(n_heads: int) -> alt.Title:
    """The grid's title, anchored at the left: where the grid is wider than a phone's column, it shows."""
    return alt.Title(charts.wrapped(charts.literal(f"All {n_heads:,} heads, and each layer's average")), anchor="start")


def grid_layers(grid: Grid, picture: str, grid_w: str) -> list[alt.Chart]:
    """Every square as one picture (`picture`, a PNG data URL: figures.heads.grid_picture), `grid_w` px wide (an
    expression), with each square's outline (its tooltip, the axes) and the chosen one; under it, what grey means.
    The grid keeps its squares square: its height (`grid_h`) follows its width."""
    panels, n_head, blocks = alt.NamedData("panels"), grid.n_head, grid.blocks
    units_x, units_y = grid.units
    grid_h = f"({grid_w}) * {units_y / units_x:.6g}"
    x_scale = alt.Scale(domain=[0, units_x], nice=False, zero=False, range=[0, alt.ExprRef(grid_w)])
    y_scale = alt.Scale(domain=[0, units_y], nice=False, zero=False, range=[0, alt.ExprRef(grid_h)])
    x_axis, y_axis = _grid_axes(grid)

    # The grid is one picture drawn here, a pixel block per cell: thousands of marks would take the browser
    # seconds to draw. Over it: each square's outline (for its tooltip and the axes) and the chosen square.
    picture = (
        alt.Chart(alt.Data(values=[{}]))  # type: ignore[no-untyped-call]  # untyped alt.Data
        .mark_image(
            url=picture,
            width=alt.ExprRef(grid_w),
            height=alt.ExprRef(grid_h),
            align="left",
            baseline="top",
            aspect=False,
            smooth=False,
            aria=False,
        )
        .encode(x=alt.value(0), y=alt.value(0))
    )
    # A click on a square chooses its layer and head (their selects: by keyboard).
    outlines = (
        charts.clickable(
            alt.Chart(panels)
            .transform_calculate(gx=grid.x0, gy=grid.y0)
            .transform_calculate(
                gx2=f"datum.gx + {blocks}",
                gy2=f"datum.gy + {blocks}",
                view=f"'layer ' + (datum.l + 1) + (datum.h == {n_head} ? ', average of its heads' : ', head ' + (datum.h + 1))",
            ),
            layer="datum.l + 1",
            head=f"datum.h == {n_head} ? '{AVERAGE}' : datum.h + 1",
        )
        .mark_rect(fill="transparent", aria=False, cursor="pointer")
        .encode(
            x=alt.X("gx:Q", scale=x_scale, axis=x_axis),
            x2="gx2:Q",
            y=alt.Y("gy:Q", scale=y_scale, axis=y_axis),
            y2="gy2:Q",
            tooltip=[alt.Tooltip("view:N", title="square")],
        )
    )
    chosen = (
        alt.Chart(panels)
        .transform_filter(f"datum.l == layer - 1 && datum.h == {grid.chosen_h}")
        .transform_calculate(gx=f"{grid.x0} - 0.5", gy=f"{grid.y0} - 0.5")
        .transform_calculate(gx2=f"datum.gx + {blocks + 1}", gy2=f"datum.gy + {blocks + 1}")
        .mark_rect(fill=None, stroke=ACCENT, strokeWidth=2.5, aria=False)
        .encode(x=alt.X("gx:Q", scale=x_scale), x2="gx2:Q", y=alt.Y("gy:Q", scale=y_scale), y2="gy2:Q")
    )
    return [picture, outlines, chosen, *_grey_note(grid_h)]


def _grid_axes(grid: Grid) -> tuple[alt.Axis, alt.Axis]:
    """The grid's axes: every head across the top (the layers' averages last, 'avg') and every layer down, each
    named at the centre of its squares (the values given, and as many ticks: Vega keeps no more than tickCount)."""
    n_head, blocks, step, gap = grid.n_head, grid.blocks, grid.step, grid.gap
    centre = blocks / 2
    heads_at = [h * step + (gap if h == n_head else 0) + centre for h in range(n_head + 1)]
    layers_at = [l * step + centre for l in range(grid.n_layer)]
    x_axis = alt.Axis(
        values=heads_at,
        tickCount=len(heads_at),
        orient="top",
        title="head",
        grid=False,
        ticks=False,
        domain=False,
        labelFontSize=11,
        labelOverlap=False,
        labelExpr=f"datum.value > {n_head * step} ? 'avg' : '' + (round((datum.value - {centre}) / {step}) + 1)",
    )
    y_axis = alt.Axis(
        values=layers_at,
        tickCount=len(layers_at),
        title="layer",
        grid=False,
        ticks=False,
        domain=False,
        labelFontSize=11,
        labelOverlap=False,
        labelExpr=f"'' + (round((datum.value - {centre}) / {step}) + 1)",
    )
    return x_axis, y_axis


def _grey_note(grid_h: str) -> list[alt.Chart]:
    """Under the grid (`grid_h`: its height, an expression in px), a grey swatch and what grey means."""
    swatch = (
        alt.Chart(alt.Data(values=[{}]))  # type: ignore[no-untyped-call]  # untyped alt.Data
        .mark_rect(color=MASKED, aria=False)
        .encode(
            x=alt.value(0),
            x2=alt.value(12),
            y=alt.value(alt.ExprRef(f"{grid_h} + 10")),
            y2=alt.value(alt.ExprRef(f"{grid_h} + 22")),
        )
    )
    note = (
        alt.Chart(alt.Data(values=[{}]))  # type: ignore[no-untyped-call]  # untyped alt.Data
        .mark_text(align="left", baseline="top", fontSize=11, lineBreak="\n")
        .encode(
            x=alt.value(18),
            y=alt.value(alt.ExprRef(f"{grid_h} + 10")),
            text=alt.value(f"{MASKED_KEY}\n(a token cannot see the tokens after it)"),
        )
    )
    return [swatch, note]


def chosen_square(grid: Grid) -> alt.Chart:
    """The chosen square's cells, one row each: query q, key k, share s, decoded from the page's data."""
    names = grid.names_param
    return cast(
        "alt.Chart",
        alt.Chart(alt.NamedData(grid.data))
        .transform_filter(f"datum.l == layer - 1 && datum.h == {grid.chosen_h}")
        .transform_flatten(["u"])
        .transform_window(i="row_number()")
        .transform_calculate(q="floor((sqrt(8 * (datum.i - 1) + 1) - 1) / 2)")
        .transform_calculate(k="datum.i - 1 - datum.q * (datum.q + 1) / 2", s=f"datum.u / {PER_SHARE}")
        .transform_calculate(looking=f"{names}[datum.q]", looked_at=f"{names}[datum.k]"),
    )


def key_x(grid: Grid) -> alt.X:
    """The keys along x, every one labelled (none left out where labels would touch: a phone's chart gives each
    a cell in which its label fits, Grid.cell)."""
    return alt.X(
        "k:O",
        scale=alt.Scale(domain=grid.band),
        title=LOOKED_AT,
        # Only some columns labelled (a long pattern's): upright, so that close columns' labels do not touch.
        axis=alt.Axis(
            labelExpr=grid.label,
            labelAngle=-45 if grid.label_every == 1 else -90,
            labelFontSize=11,
            labelOverlap=False,
            labelFontStyle=grid.label_style,
        ),
    )


def query_axis(grid: Grid) -> alt.Y:
    """The queries down y, labelled as `grid.label` says."""
    return alt.Y(
        "q:O",
        scale=alt.Scale(domain=grid.band),
        title=LOOKING,
        axis=alt.Axis(labelExpr=grid.label, labelFontSize=11, labelOverlap=False, labelFontStyle=grid.label_style),
    )


Subtitle = TypedDict("Subtitle", {"subtitle": list[str]}, total=False)  # a title's short lines under it, if any


def detail_chart(
    grid: Grid,
    one: alt.Chart,
    title: str | None = None,
    outline: bool = True,
    extra: Sequence[alt.Chart | alt.LayerChart] = (),
    note: list[str] | None = None,
) -> alt.LayerChart:
    """The chosen square, larger: every share on hover, the chosen token's row outlined (`outline`: the chart has a
    token param). `title`: a Vega expression for its title, else "Layer 5, head 4, larger"; `extra`: layers drawn
    over it, on its scales; `note`: short lines under the title (a key to what is out of reach, where none is)."""
    detail_bg = (
        alt.Chart(alt.Data(values=[{}]))  # type: ignore[no-untyped-call]  # untyped alt.Data
        .mark_rect(color=MASKED, aria=False)
        .encode(x=alt.value(0), x2=alt.value("width"), y=alt.value(0), y2=alt.value("height"))
    )
    detail_row = chosen_row(grid, alt.Scale(domain=grid.band), {})
    # a phone's square scrolls where it is wide: its title in view
    start: Literal["start"] | UndefinedType = "start" if grid.cell else alt.Undefined
    subtitle: Subtitle = {"subtitle": note} if note else {}
    return cast(
        "alt.LayerChart",
        alt.layer(
            detail_bg, square_cells(one, key_x(grid), query_axis(grid)), *([detail_row] if outline else []), *extra
        ).properties(
            width=grid.width,
            height=grid.width if grid.cell else DETAIL_HEIGHT,
            title=alt.Title(charts.wrapped(title or LARGER_TITLE), anchor=start, **subtitle),
        ),
    )


LARGER_TITLE = f"'Layer ' + layer + (head == '{AVERAGE}' ? ', average of its heads' : ', head ' + head) + ', larger'"


def square_cells(one: alt.Chart, x: alt.X, y: alt.Y) -> alt.Chart:
    """The chosen square's cells (`one`: chosen_square), keys along `x` and queries down `y`, coloured by their share
    (one legend for every square), each said in words and its share on hover."""
    share_color = alt.Color(
        "s:Q",
        scale=alt.Scale(**SHARE_SCALE),
        title="share of attention",
        legend=alt.Legend(format="%", orient="top", direction="horizontal", gradientLength=160),
    )
    return cast(
        "alt.Chart",
        one.transform_calculate(said="datum.looking + ' looks at ' + datum.looked_at + ': ' + format(datum.s, '.2%')")
        .mark_rect()
        .encode(
            x=x,
            y=y,
            color=share_color,
            description="said:N",
            tooltip=[
                alt.Tooltip("looking:N", title="looking"),
                alt.Tooltip("looked_at:N", title="looked at"),
                alt.Tooltip("s:Q", title="share", format=".2%"),
            ],
        ),
    )


def chosen_row(grid: Grid, scale: alt.Scale, across: Mapping[str, object]) -> alt.Chart:
    """The chosen token's row of the square, outlined: on the queries' `scale`, across the view or as `across` says
    (its x and x2)."""
    return cast(
        "alt.Chart",
        alt.Chart(
            alt.Data(  # type: ignore[no-untyped-call]  # untyped alt.Data
                values=[{}]
            )
        )
        .transform_calculate(q=grid.row_q)
        .mark_rect(fill=None, stroke=ACCENT, strokeWidth=2, aria=False)
        .encode(y=alt.Y("q:O", scale=scale), **across),
    )
