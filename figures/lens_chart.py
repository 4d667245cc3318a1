"""The lens figure's chart (figures.lens): the table of every position's top guess after every layer, the chosen
cell's top 10, and the followed token's chance and rank across the layers, one above the other. Its parts read the
page's data ("cells", "tops", "follow": figures.lens.lens_rows makes them) and params; with no text in them (the
live page's chart, figures.lens.textless_chart), the live page's (TEXTLESS), so they take no run.
"""

from __future__ import annotations

from typing import cast

from figsite.data.shared_names import NAMES, POSITION
from figures.records import Reads
from figures.toolkit import charts, textless
from figures.toolkit.charts import alt
from figures.toolkit.colours import ACCENT, FOLLOWED, MAIN, ON_DARK, ON_LIGHT
from figures.toolkit.words import STAGE_AXIS, after_layer_expr

LABELLED = 24  # positions up to which the table's labels all fit a 480 px column, turned; more: some are left out
TOP_ENDS = charts.TOP_ENDS  # the param of the largest chance in each cell's top 10 (charts.top_ends)
NARROW_WIDTH = 210  # px: the narrow chart's top 10 and followed token's charts, which fit a 320 px column
AXIS_ROOM, TOP_LABELS = 64, 64  # px: a phone's table's layer numbers, left of it; its positions' labels, above it
# A phone's table's legend: above it, its title beside it, close to the positions' labels (in the chart's first screen).
PHONE_LEGEND = {"orient": "top", "titleOrient": "left", "titleAnchor": "middle", "offset": 4}


def parts_stack(
    names: list[str] | None, n_layer: int, vocabulary: int, cell: int | None, reads: Reads | None = None, room: int = 0
) -> alt.VConcatChart:
    """The figure's parts, one above the other: the table, the chosen cell's top 10 (`room` px for the words past
    its bars), the followed token's chance and rank; fitted to the column, or (`cell`, px: narrow) the table's cells
    that wide and the charts below it NARROW_WIDTH px. `reads`: the build's datasets and params (None: BUILT), or
    TEXTLESS."""
    reads, width = reads or BUILT, NARROW_WIDTH if cell else "container"
    # Each view's colours its own: the table's legend of chances sits just under the table, not under the stack.
    stack = cast(
        "alt.VConcatChart",
        alt.vconcat(
            _table(names, n_layer, cell, reads),
            _top_chart(width, reads, room),
            *_follow_charts(n_layer, vocabulary, width, reads),
            spacing=24,
        ).resolve_scale(color="independent"),
    )
    if cell:  # the backdrop behind the table's layer numbers reaches the drawing's left edge (charts.backdrop)
        stack.padding = {"left": 0, "top": 5, "right": 5, "bottom": 5}
    return stack if cell else charts.fits_column(stack)


# What the lens's parts read (figures.records.Reads): the build's, or with no text the live page's.
BUILT = Reads()
TEXTLESS = Reads("top", "at", "(at + 1) + ': ' + names[at]", textless.FOLLOW_NAME, "")
POSITION_NAME = "(datum.q + 1) + ': ' + names[datum.q]"  # a position in words, with no text


def _cells(reads: Reads, names: list[str] | None, cell: int | None) -> tuple[alt.Chart, alt.X, int | str]:
    """The table's cells (each cell's top guess) and its x: the build's `cells` by their position's name, or with
    no text the top guesses of `top` by their position, labelled every `every`th (narrow: every one)."""
    if not reads.textless:
        n = len(cast("list[str]", names))  # the build's reads come with the text's names
        axis = alt.Axis(
            labelAngle=-40,
            orient="top",
            labelOverlap=False if cell or n <= LABELLED else "greedy",
            zindex=0 if cell else alt.Undefined,
        )
        return alt.Chart(alt.NamedData("cells")), alt.X("pos:N", sort=names, title=None, axis=axis), n
    label = "(datum.value + 1) + ': ' + names[datum.value]"
    axis = alt.Axis(
        labelAngle=-40,
        orient="top",
        labelOverlap=False,
        zindex=0 if cell else alt.Undefined,
        labelExpr=label if cell else f"datum.value % every == 0 ? {label} : ''",
        labelFontStyle=textless.own_style(),
    )
    top = (
        alt.Chart(alt.NamedData(reads.tops))
        .transform_filter("datum.rank == 1")
        .transform_calculate(pos=POSITION_NAME, top="datum.token")
    )
    return top, alt.X("q:O", title=None, axis=axis), textless.N


def _table(names: list[str] | None, n_layer: int, cell: int | None = None, reads: Reads = BUILT) -> alt.LayerChart:
    """The top guess of every cell, coloured by its chance; the chosen cell outlined. A click on a cell chooses its
    stage and position (the slider and the select: by keyboard).

    As wide as the column, each cell's guess cut short where the cell is narrow and left out where no word would
    fit; or (narrow) each cell `cell` px wide, every guess whole (with no text: cut short to the cell) and every
    position labelled."""
    cells, x, n = _cells(reads, names, cell)
    table_base = charts.clickable(
        charts.said_chance(charts.named_stages(cells)), stage="datum.stage", **{POSITION: "datum.q + 1"}
    ).encode(
        x=x,
        y=alt.Y("stage:O", title=STAGE_AXIS),
        # The cell's words say it too: the pointer on them shows it as on the rest of the cell.
        tooltip=[
            alt.Tooltip("pos:N", title="position"),
            charts.stage_tip(),
            alt.Tooltip("top:N", title="top guess"),
            charts.chance_tip(),
        ],
    )
    table = table_base.mark_rect(cursor="pointer").encode(
        color=alt.Color(
            "p:Q",
            scale=charts.sequential(domain=[0, 1]),
            title="chance",
            legend=alt.Legend(
                direction="horizontal",
                gradientLength=160,
                format="%",
                values=[0, 0.5, 1],
                **PHONE_LEGEND if cell else {"orient": "bottom"},
            ),
        ),
        stroke=alt.condition(f"datum.stage == stage && datum.q == {reads.q}", alt.value(ACCENT), alt.value(None)),
        strokeWidth=alt.value(3),
    )
    table_text = _cell_words(table_base, reads, cell, n)
    if cell:  # a phone's: see _phone_table
        layered = alt.layer(table, table_text, charts.backdrop(AXIS_ROOM, TOP_LABELS))
        return _phone_table(cast("alt.LayerChart", layered), cell, n_layer)  # no facets in its layers: no FacetChart
    return cast(
        "alt.LayerChart",
        alt.layer(table, table_text).properties(
            width="container",
            height=charts.TAP * (n_layer + 1),
            title=alt.Title(
                charts.wrapped(charts.literal("The top guess at every position, after every layer")), anchor="start"
            ),
        ),
    )


def _cell_words(table_base: alt.Chart, reads: Reads, cell: int | None, n: int | str) -> alt.Chart:
    """The table's words: each cell's top guess, dark on a light cell and light on a dark one."""
    # Fitted to the column, a cell's guess is cut short in a narrow cell and left out where no word would fit (the
    # tooltip says it whole); the narrow chart's cells fit every guess.
    # With no text, the view's width is textless.WIDTH's (640 px in a drawing made here, where `width` is 0).
    width = textless.WIDTH if reads.textless else "width"
    fitted = (
        ({"limit": cell - 4} if reads.textless else {})
        if cell
        else {"limit": alt.ExprRef(f"{width} / {n} - 2"), "opacity": alt.ExprRef(f"{width} / {n} >= 24 ? 1 : 0")}
    )
    words = table_base.mark_text(fontSize=10, cursor="pointer", **fitted).encode(
        text="top:N", color=alt.condition("datum.p < 0.45", alt.value(ON_DARK), alt.value(ON_LIGHT))
    )
    return cast("alt.Chart", words)


def _phone_table(table: alt.LayerChart, cell: int, n_layer: int) -> alt.LayerChart:
    """A phone's table, its cells `cell` px wide: wider than the column, it scrolls in its box under its layer numbers,
    which stay in view over a backdrop (charts.backdrop), as do its legend above it and the charts below. It has no
    title: the figure's heading and key just above say what it is, and the chart's first screen, from the key, holds
    the legend, every layer and the chosen cell."""
    return cast("alt.LayerChart", table.properties(width=alt.Step(cell), height=charts.TAP * (n_layer + 1)))


def _top_chart(width: int | str, reads: Reads = BUILT, room: int = 0) -> alt.LayerChart:
    """The chosen cell's top 10, as bars, on a chance axis that follows the switch (zoomed in, the cell's largest
    bar, its TOP_ENDS, leaves `room` px for its token's name); with no text, the largest bar is the cell's first row
    of `top`, and the room that of a long token's name."""
    largest = f"{TOP_ENDS}[stage * length({NAMES}) + {reads.q}]"
    if reads.textless:
        largest, room = f"{textless.row_at('top', 'stage', reads.q, 1)}.p", charts.words_room(["_" + "x" * 12])
    scale = charts.chance_scale(largest, room, width if isinstance(width, int) else "width")
    axis = alt.Axis(format=charts.CHANCE_FORMAT, tickCount=5)
    top10 = (
        charts.said_chance(alt.Chart(alt.NamedData(reads.tops)))
        .transform_filter(f"datum.stage == stage && datum.q == {reads.q}")
        .encode(
            y=alt.Y("rank:O", title="rank"),
            x=alt.X("p:Q", scale=scale, axis=axis, title="chance"),
            tooltip=[alt.Tooltip("rank:O"), alt.Tooltip("token:N"), charts.chance_tip()],
        )
    )
    title = f"'The top 10 at position ' + {reads.position} + ', ' + {after_layer_expr('stage')}"
    # Each token after its bar, or inside a bar too long to leave it room (about TEXT_EM px a character).
    words = charts.at_bar_ends(
        top10.encode(text="token:N"),
        "p",
        NARROW_WIDTH if width == NARROW_WIDTH else "width",
        room=f"length(datum.token) * {charts.TEXT_EM} + 8",
    )
    return cast(
        "alt.LayerChart",
        alt.layer(top10.mark_bar(color=MAIN), *words).properties(
            width=width, height=180, title=alt.Title(charts.wrapped(title))
        ),
    )


def rank_ticks(vocabulary: int) -> list[int]:
    """The rank axis's ticks: 1, 10, 100, ... and the vocabulary's size, where the axis ends; a power of ten too near
    the end (within a factor of 3) is left out, so that no two labels run together."""
    ticks, power = [], 1
    while power * 3 <= vocabulary:
        ticks.append(power)
        power *= 10
    return ticks + [vocabulary]


def follow_title(what: str, reads: Reads = BUILT) -> alt.Title:
    """A title that names the followed token, as the chapter writes it, and where it is read: "_France's chance at
    position 9: _of" (`what`: "chance"), or "... at every position"."""
    where = f"(where == 'one' ? ' at position ' + {reads.position} : ' at every position')"
    return alt.Title(charts.wrapped(f"{reads.followed} + {charts.literal(chr(39) + 's ' + what)} + {where}"))


def _follow_charts(n_layer: int, vocabulary: int, width: int | str, reads: Reads = BUILT) -> list[alt.LayerChart]:
    """The followed token's chance and rank across the stages, at the chosen position or at all, each titled with
    the token's name. The rank axis runs from 1 (the most likely) to the vocabulary's size (the least likely); the
    chance's axis follows the switch, with a text or without."""
    followed = charts.said_chance(charts.named_stages(alt.Chart(alt.NamedData("follow")))).transform_filter(
        f"{reads.follows}(where == 'all' || datum.q == {reads.q})"
    )
    if reads.textless:
        followed = followed.transform_calculate(pos=POSITION_NAME)
    stage_x = alt.X("stage:Q", scale=alt.Scale(domain=[0, n_layer]), axis=alt.Axis(format="d"), title=STAGE_AXIS)
    # One line per position, in the data's colour; the chosen position's in the followed token's colour.
    colour = alt.condition(f"datum.q == {reads.q}", alt.value(FOLLOWED), alt.value(MAIN))
    where = [alt.Tooltip("pos:N", title="position"), charts.stage_tip()]
    p_line = followed.encode(
        x=stage_x,
        y=alt.Y("p:Q", scale=charts.chance_scale(), axis=alt.Axis(format=charts.CHANCE_FORMAT), title="chance"),
        color=colour,
        detail="pos:N",
        tooltip=[*where, charts.chance_tip(), alt.Tooltip("rank:Q", format=",")],
    )
    p_line = alt.layer(p_line.mark_line(point=True), charts.hit_points(p_line)).properties(
        width=width, height=160, title=follow_title("chance", reads)
    )
    rank_line = followed.encode(
        x=stage_x,
        y=alt.Y(
            "rank:Q",
            scale=alt.Scale(type="log", reverse=True, domain=[1, vocabulary], nice=False),
            axis=alt.Axis(values=rank_ticks(vocabulary), format=","),
            title="rank (1 = most likely)",
        ),
        color=colour,
        detail="pos:N",
        tooltip=[*where, alt.Tooltip("rank:Q", format=",")],
    )
    rank_line = alt.layer(rank_line.mark_line(point=True), charts.hit_points(rank_line)).properties(
        width=width, height=160, title=follow_title(f"rank among all {vocabulary:,} tokens", reads)
    )
    return [p_line, rank_line]
