"""The patching figure's chart with no text in it (figures.patching.Patching.textless_chart: the reader's two texts'):
the book's chosen run's chart and its four grids (figures.patching_chart), for whatever numbers the page puts in.

It reads the page's `patched` (figsite.data.live_data.PATCHED: a row per patched run, in figures.records.Patched.cells'
order, which templates/js/live/patching.js fills from its runs), the params `original_p`, `original_diff`,
`changed_p`, `changed_diff` (the two texts' own runs), `names` and `names_b` (the two texts' tokens as the pages write
them), `follow_name` and `versus_name` (the target and the token it is measured against), `start` (1 where the
model's start token leads both texts) and the select `cell`, whose options the page sets (the runs' keys) and whose
labels it takes from the names the chart works out. The page reads the last token of the texts, and draws only texts
that the model answers differently (figures.records.NEAR apart): how much of the original answer comes back is then a
number for every run. What the book's chart works out in Python, this one works out in Vega from the page's numbers:
each run's words (figures.patching's piece_name and said), the colour's reach and the legend's marks
(patching_chart.colour, back_legend), the chance axis's end, and the description: the two texts' chances and the
stream's strongest run (figures.patching.summary; which token carries the answer at which layers, the book's
`carried`, is left to the book's figure).
"""

from __future__ import annotations

from typing import cast

from figsite.data.live_data import PATCH_CHOICE, PATCH_OPENING, PATCHED, PLACEHOLDER
from figsite.data.shared_names import DESCRIPTION
from figures.patching_chart import (
    BARS,
    CELL,
    LABEL_PX,
    LEGEND_PX,
    NAMES,
    NARROW_BARS,
    ROWS_TITLE,
    RUNS,
    TITLES,
    back_colour,
)
from figures.records import PIECES
from figures.toolkit import charts, textless
from figures.toolkit.charts import alt
from figures.toolkit.colours import CELL_LINE, CHOSEN, DATA
from figures.toolkit.words import after_layer_expr, percent_expr

TARGET, VERSUS = textless.FOLLOW_NAME, "versus_name"
ROWS = f"data('{PATCHED.name}')"
N = "length(names)"
SPAN = "(original_diff - changed_diff)"


def _back(row: str) -> str:
    """figures.records.Patched.back of a row's score difference: how far it went from the changed text's towards
    the original's (1: all the way)."""
    return f"(({row}.diff - changed_diff) / {SPAN})"


def _token_at(q: str) -> str:
    """figures.patching.token_at: '_Paris / _Rome (token 5)' where the texts differ, else '_of (token 9)'."""
    both = f"(names[{q}] == names_b[{q}] ? names[{q}] : names[{q}] + ' / ' + names_b[{q}])"
    return f"{both} + ' (token ' + ({q} + 1 - start) + ')'"


def _piece_name(row: str) -> str:
    """figures.patching.piece_name of a row: "the numbers of _Paris / _Rome (token 5) after layer 3", "layer 4's
    attention at _of (token 9)", "head 2 of layer 10"."""
    step = f"({row}.piece == 'attn_out' ? 'attention' : 'feed-forward step')"
    return (
        f"({row}.piece == 'resid_pre' ? 'the numbers of ' + {_token_at(f'{row}.col')} + ' ' + "
        f"{after_layer_expr(f'{row}.row')} : {row}.piece == 'z' ? 'head ' + ({row}.col + 1) + ' of layer ' + "
        f"({row}.row + 1) : 'layer ' + ({row}.row + 1) + '\\'s ' + {step} + ' at ' + {_token_at(f'{row}.col')})"
    )


def _comes_back(back: str) -> str:
    """figures.patching.comes_back: '85% of the original answer comes back', past either end in words."""
    share = f"format({back} * 100, '.0f') + '%'"
    return (
        f"({back} > 1.005 ? 'more than all of the original answer comes back (' + {share} + ')' : {back} < -0.005 ? "
        f"'it pushes the answer further away (' + {share} + ')' : {share} + ' of the original answer comes back')"
    )


def _said(row: str) -> str:
    """figures.patching.said of a row: what was put back, how much of the original answer comes back, the target's
    chance beside the two texts'."""
    return (
        f"'Put back ' + {_piece_name(row)} + ': ' + {_comes_back(_back(row))} + '; the chance of ' + {TARGET} + "
        f"' is ' + {percent_expr(f'{row}.p')} + ' (original text ' + {percent_expr('original_p')} + ', changed text ' "
        f"+ {percent_expr('changed_p')} + ').'"
    )


def _words() -> list[alt.Parameter]:
    """The two texts' numbers (the page's), the stream's strongest run and the chosen one, and the description:
    figures.patching.summary less `carried`, then the chosen run in words."""
    stream = f"slice({ROWS}, 0, {N} * layers_1)"  # the stream's runs: Patched.cells' first grid
    diffs = f"pluck({stream}, 'diff')"
    summary = (
        f"'With the original text, the model gives ' + {TARGET} + ' a chance of ' + {percent_expr('original_p')} + "
        f"'; with the changed text, ' + {percent_expr('changed_p')} + '. ' + {_said(PATCH_OPENING)}"
    )
    return [
        alt.param(name="original_p", value=0),
        alt.param(name="original_diff", value=1),
        alt.param(name="changed_p", value=0),
        alt.param(name="changed_diff", value=0),
        # The stream's strongest run: the highest difference where the original's is the higher, else the lowest
        # (how much comes back grows with the difference, or shrinks); the first of equals, as Patched.strongest.
        alt.param(
            name=PATCH_OPENING, expr=f"{stream}[indexof({diffs}, {SPAN} > 0 ? extent({diffs})[1] : extent({diffs})[0])]"
        ),
        alt.param(name="chosen_cell", expr=f"{ROWS}[indexof(pluck({ROWS}, 'key'), {PATCH_CHOICE})]"),
        alt.param(name=DESCRIPTION, expr=f"{summary} + (chosen_cell ? ' ' + {_said('chosen_cell')} : '')"),
    ]


def _legend() -> list[alt.Parameter]:
    """`reach`, the colour's half-width (patching_chart.colour: as wide as the strongest run either side, 1 at
    least), the data's lowest and highest share back, and `marks`, the legend's (patching_chart.back_legend: 0% and
    100%, and the data's ends past them; a mark too close to an end's label is the end's: drawn twice, said once)."""
    ends = f"extent(pluck({ROWS}, 'diff'))"
    low, high = f"(({ends}[0] - changed_diff) / {SPAN})", f"(({ends}[1] - changed_diff) / {SPAN})"
    close = f"({LABEL_PX * 2} * reach / {LEGEND_PX})"
    return [
        alt.param(name="back_low", expr=f"min({low}, {high})"),
        alt.param(name="back_high", expr=f"max({low}, {high})"),
        alt.param(name="reach", expr="max(abs(back_low), abs(back_high), 1)"),
        alt.param(
            name="marks",
            expr=f"[back_low < -0.005 ? back_low : 0, back_low < -0.005 && 0 - back_low < {close} ? back_low : 0, "
            f"back_high > 1.005 && back_high - 1 < {close} ? back_high : 1, back_high > 1.005 ? back_high : 1]",
        ),
    ]


def _colour() -> alt.Color:
    """How much of the original answer comes back, centred on 0, -reach to reach, at the marks of _legend."""
    return back_colour(alt.ExprRef(expr="[-reach, reach]"), alt.ExprRef(expr="marks"))


def _rows(chart: alt.Chart) -> alt.Chart:
    """The page's rows with what the grids draw worked out: how much comes back (`back`, `v`), the axes' names
    (patching_chart.chart_rows's x and y), the piece in words and the run in a sentence (`name`, `said`)."""
    position = (
        "toString(datum.col + 1 - start) + ': ' + (names[datum.col] == names_b[datum.col] ? names[datum.col] : "
        "names[datum.col] + ' / ' + names_b[datum.col])"
    )
    return chart.transform_calculate(  # type: ignore[no-any-return]  # Altair's transforms return Self untyped
        back=_back("datum"),
        v=_back("datum"),
        x=f"datum.piece == 'z' ? toString(datum.col + 1) : {position}",
        y="toString(datum.piece == 'resid_pre' ? datum.row : datum.row + 1)",
        name=_piece_name("datum"),
        said=_said("datum"),
    )


def _grid(piece: str, rows: int, colours: alt.Color, square: int) -> alt.LayerChart:
    """patching_chart.grid with no text in it: one grid of runs, its columns the page's positions (or heads) in
    order, the chosen run framed; a click chooses it."""
    base = (
        charts.said_chance(_rows(alt.Chart(alt.NamedData(PATCHED.name))))
        .transform_filter(f"datum.piece == '{piece}'")
        .encode(
            x=alt.X(
                "x:N",
                sort=alt.EncodingSortField(field="col", op="min"),
                title="head" if piece == "z" else None,
                axis=alt.Axis(labelAngle=0 if piece == "z" else -40, labelLimit=140),
            ),
            y=alt.Y("y:N", sort=alt.EncodingSortField(field="row", op="min"), title=ROWS_TITLE[piece]),
        )
    )
    tips = [
        alt.Tooltip("name:N", title="put back"),
        alt.Tooltip("back:Q", title="of the original answer back", format=".1%"),
        charts.chance_tip(),
    ]
    squares = (
        charts.clickable(base, **{PATCH_CHOICE: "datum.key"})
        .mark_rect(stroke=CELL_LINE, strokeWidth=0.5, cursor="pointer")
        .encode(color=colours, tooltip=tips)
    )
    chosen = base.transform_filter(f"datum.key == {PATCH_CHOICE}").mark_rect(
        fill=None, stroke=CHOSEN, strokeWidth=2.5, aria=False
    )
    return cast(
        "alt.LayerChart",
        alt.layer(squares, chosen).properties(
            width=alt.Step(square) if square else "container",
            height=alt.Step(square) if square else CELL * rows,
            title=alt.Title(charts.wrapped(charts.literal(TITLES[piece])), anchor="start" if square else alt.Undefined),
        ),
    )


def _chosen_chart(width: int | str) -> alt.LayerChart:
    """patching_chart.chosen_chart with no text in it: the chosen run's chance of the target beside the two
    texts', on an axis to the largest chance of any run."""
    texts = alt.Data(values=[{"run": RUNS[0], "w": 0}, {"run": RUNS[1], "w": 1}])  # type: ignore[no-untyped-call]
    fixed = charts.said_chance(alt.Chart(texts).transform_calculate(p="datum.w == 0 ? original_p : changed_p"))
    y = alt.Y("run:N", sort=list(RUNS), scale=alt.Scale(domain=list(RUNS)), title=None)
    digits = "max(0, -floor(log(max(p_top, 1e-9) * 100) / LN10) + 1)"
    x = alt.X(
        "p:Q",
        title=None,
        scale=alt.Scale(domain=alt.ExprRef(expr="[0, max(p_top, 1e-9)]")),
        axis=alt.Axis(labelExpr=f"format(datum.value, '.' + {digits} + '~%')", tickCount=4),
    )
    bars = fixed.mark_bar(color=DATA).encode(x=x, y=y, tooltip=[charts.chance_tip()])
    run = (
        charts.said_chance(alt.Chart(alt.NamedData(PATCHED.name)))
        .transform_filter(f"datum.key == {PATCH_CHOICE}")
        .transform_calculate(run=charts.literal(RUNS[2]))
        .mark_bar(color=CHOSEN)
        .encode(x=x, y=y, tooltip=[charts.chance_tip()])
    )
    title = alt.Title(
        charts.wrapped(f"'The chance of ' + {TARGET} + ' in each text, and with the chosen piece put back'")
    )
    return cast("alt.LayerChart", alt.layer(bars, run).properties(width=width, height=BARS * len(RUNS), title=title))


def textless_chart(n_layer: int, n_head: int, narrow: bool = False) -> alt.VConcatChart:
    """The book's patching figure with no text in it, for a model of n_layer layers and n_head heads: the chosen
    run's chart, then the four grids; narrow, squares a finger can tap (charts.TAP px), scrolling in the column."""
    square = charts.TAP if narrow else 0
    colours = _colour()
    cell = alt.param(
        name=PATCH_CHOICE,
        value=f"{NAMES['resid_pre']}-0-1",
        bind=alt.binding_select(options=[f"{NAMES['resid_pre']}-0-1"], labels=["…"], name="Put back "),
    )
    heights = {"resid_pre": n_layer + 1, "attn_out": n_layer, "mlp_out": n_layer, "z": n_layer}
    stack = alt.vconcat(
        _chosen_chart(NARROW_BARS if narrow else "container"),
        *(_grid(piece, heights[piece], colours, square) for piece in PIECES),
        spacing=24,
    )
    params = [
        cell,
        *textless.texts(),
        alt.param(name="names_b", value=[PLACEHOLDER]),
        alt.param(name=VERSUS, value=PLACEHOLDER),
        alt.param(name="start", value=0),
        alt.param(name="layers_1", value=n_layer + 1),
        alt.param(name="p_top", expr=f"max(original_p, changed_p, extent(pluck({ROWS}, 'p'))[1])"),
        *_legend(),
        *_words(),
    ]
    chart = charts.with_params(stack if square else charts.fits_column(stack), *params)
    return charts.with_clicks(charts.with_data(chart, **{PATCHED.name: []}), PATCH_CHOICE)
