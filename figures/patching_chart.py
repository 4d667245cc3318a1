"""The patching figure's chart and its printed table (figures/patching.py holds the kind, its data and its words).

The chart stacks, under one "Put back" choice: the chosen run's chance of the target beside the two texts', then
the four grids of runs, each square coloured by how much of the original answer its run brings back (or, where the
texts do not differ on the answer, by its score difference), from what works against the answer to what
helps it, centred on 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TypedDict, cast

from figsite.data.live_data import PIECE_KEYS
from figsite.data.shared_names import DESCRIPTION
from figures.toolkit import charts
from figures.toolkit.charts import alt
from figures.toolkit.colours import CELL_LINE, CHOSEN, DATA

if TYPE_CHECKING:
    from figures.records import Cell, Patched

CELL = 18  # px: the height of a grid's row
BARS = 26  # px: the height of a bar of the chosen run's chart
NARROW_BARS = 150  # px: the chosen run's chart on a phone (its labels beside it), which the column holds
NAMES = PIECE_KEYS  # a run's key names its piece so
TITLES = {
    "resid_pre": "Put back one token's numbers after a layer",
    "attn_out": "Put back one layer's attention at one token",
    "mlp_out": "Put back one layer's feed-forward step at one token",
    "z": "Put back one head, at every token",
}
ROWS_TITLE = {"resid_pre": "after layer (0: before any layer)", "attn_out": "layer", "mlp_out": "layer", "z": "layer"}
RUNS = ("original text", "changed text", "changed, piece put back")


def position_names(o: Patched) -> list[str]:
    """Each position as a grid's axis names it: '9: _of', or where the texts differ '5: _Paris / _Rome'."""
    return [
        f"{q + 1 - o.start}: {a}" if a == b else f"{q + 1 - o.start}: {a} / {b}"
        for q, (a, b) in enumerate(zip(o.clean, o.corrupted))
    ]


def colour_value(o: Patched, cell: Cell) -> float:
    """What a square's colour shows: how much its run brings back, or its score difference."""
    return cast(float, cell["back"]) if o.differs else cell["diff"]  # where the texts differ, "back" is a number


def cell_key(cell: Cell) -> str:
    """A run's value in the page's `cell` choice and address, numbered from 1 as readers count: 'stream-3-5'
    (after layer 3, token 5), 'attention-4-9', 'feed-forward-4-9', 'head-10-2'."""
    piece, row, col = cell["piece"], cell["row"], cell["col"]
    return f"{NAMES[piece]}-{row if piece == 'resid_pre' else row + 1}-{col + 1}"


class RunRow(TypedDict):
    """A run as the page's data hold it (chart_rows)."""

    key: str  # cell_key
    piece: str
    name: str  # its piece in words
    y: str  # its row, as the axis names it
    x: str  # its column, as the axis names it
    diff: float
    p: float
    back: float | None
    v: float  # what its colour shows (colour_value)


def chart_rows(o: Patched, keys: Mapping[str, tuple[str, str]]) -> list[RunRow]:
    """One row per run, as the grids draw it: key, piece, the row and column as the axes name them, numbers."""
    names = position_names(o)
    rows: list[RunRow] = []
    for cell in o.cells():
        piece, key = cell["piece"], cell_key(cell)
        rows.append(
            {
                "key": key,
                "piece": piece,
                "name": keys[key][0],
                "y": str(cell["row"] if piece == "resid_pre" else cell["row"] + 1),
                "x": str(cell["col"] + 1) if piece == "z" else names[cell["col"]],
                "diff": round(cell["diff"], 5),
                "p": cell["p"],
                "back": None if cell["back"] is None else round(cell["back"], 4),
                "v": round(colour_value(o, cell), 4),
            }
        )
    return rows


# The legend's words at its marks, in the chapter's words: how much of the original answer comes back, including past
# either end where the data go there (a piece can push the answer further away, or bring back more than all of it).
BACK_TITLE = ["how much of the original", "answer comes back"]
BACK_WORDS = {0: "0%: none of it", 1: "100%: all of it"}
PAST_ALL = "more than all of it"
AWAY = "pushes it further away"


LEGEND_PX = 200  # the legend's gradient, in px
LABEL_PX = 13  # px between two of its labels at least, so that they never overlap


# The legend's words at each of its marks (a Vega label expression): past either end in words, else 0% or 100%.
BACK_LABEL = (
    f"datum.value < -0.005 ? format(datum.value, '.0%') + ': {AWAY}' : datum.value > 1.005 ? "
    f"format(datum.value, '.0%') + ': {PAST_ALL}' : datum.value == 0 ? '{BACK_WORDS[0]}' : '{BACK_WORDS[1]}'"
)


class BackLegend(TypedDict):
    """The legend's marks and their words (back_legend), as alt.Legend takes them."""

    values: list[float]
    labelExpr: str


def back_legend(low: float, high: float, reach: float) -> BackLegend:
    """The legend's marks, on a gradient from -reach to reach: 0% and 100%, and the data's lowest `low` and highest
    `high` where they lie past them, each said in words (a Vega label expression); where a data's end lies too
    close to 0% or 100% for both labels, its own label stands for both."""
    close = LABEL_PX * 2 * reach / LEGEND_PX
    values: list[float] = [0, 1]
    if high > 1.005:
        values = [v for v in values if high - v >= close] + [round(high, 4)]
    if low < -0.005:
        values = [round(low, 4)] + [v for v in values if v - low >= close]
    return {"values": values, "labelExpr": BACK_LABEL}


def colour(o: Patched, rows: Sequence[RunRow]) -> alt.Color:
    """The squares' colour: how much of the original answer comes back, from what works against the answer to what
    helps it, centred on 0 and as wide as the strongest run on either side; the legend says in words what lies
    past 0% and 100% where the data go there (where the texts do not differ on the answer: the score difference)."""
    values = [r["v"] for r in rows]
    reach = max([abs(v) for v in values] + [1.0 if o.differs else 1e-6])
    if not o.differs:
        return alt.Color(
            "v:Q",
            scale=charts.helps_or_hurts(domain=[-reach, reach]),
            title=["score difference", "of the run"],
            legend=alt.Legend(format=".2f", orient="top", direction="horizontal", gradientLength=120),
        )
    return back_colour([-reach, reach], back_legend(min(values), max(values), reach)["values"])


def back_colour(domain: list[float] | alt.ExprRef, marks: list[float] | alt.ExprRef) -> alt.Color:
    """The squares' colour where the texts differ: how much of the original answer comes back, centred on 0 over
    `domain`, the legend's `marks` said in words (BACK_LABEL); the page's chart gives both as Vega expressions."""
    return alt.Color(
        "v:Q",
        scale=charts.helps_or_hurts(domain=domain),
        title=BACK_TITLE,
        legend=alt.Legend(
            orient="top",
            direction="vertical",
            gradientLength=LEGEND_PX,
            labelLimit=260,
            labelOverlap=False,
            values=marks,
            labelExpr=BACK_LABEL,
        ),
    )


def grid(o: Patched, piece: str, rows: Sequence[RunRow], colours: alt.Color, square: int = 0) -> alt.LayerChart:
    """One grid of runs: a square per run, the chosen one framed in the chosen colour; a click chooses it. As wide
    as the column, or (a phone's) `square` px a run."""
    names = [str(h + 1) for h in range(len(o.grids["z"]["diff"][0]))] if piece == "z" else position_names(o)
    layers = [str(r if piece == "resid_pre" else r + 1) for r in range(len(o.grids[piece]["diff"]))]
    base = (
        charts.said_chance(alt.Chart(alt.NamedData("runs")))
        .transform_filter(f"datum.piece == '{piece}'")
        .encode(
            x=alt.X(
                "x:N",
                sort=names,
                title="head" if piece == "z" else None,
                axis=alt.Axis(labelAngle=0 if piece == "z" else -40, labelLimit=140),
            ),
            y=alt.Y("y:N", sort=layers, title=ROWS_TITLE[piece]),
        )
    )
    # The page's words: how much of the original answer comes back, or (where the texts do not differ on it) the
    # score difference, as the sentences say them; "lead" is said only under More detail.
    tips = [
        alt.Tooltip("name:N", title="put back"),
        alt.Tooltip("back:Q", title="of the original answer back", format=".1%")
        if o.differs
        else alt.Tooltip("diff:Q", title=f"score of {o.target} minus score of {o.versus}", format=".3f"),
    ]
    squares = (
        charts.clickable(base, cell="datum.key")
        .mark_rect(stroke=CELL_LINE, strokeWidth=0.5, cursor="pointer")
        .encode(color=colours, tooltip=tips + [charts.chance_tip("chance of " + o.target)])
    )
    chosen = base.transform_filter("datum.key == cell").mark_rect(
        fill=None, stroke=CHOSEN, strokeWidth=2.5, aria=False
    )  # its square says it already
    return cast(
        "alt.LayerChart",
        alt.layer(squares, chosen).properties(
            width=alt.Step(square) if square else "container",
            height=alt.Step(square) if square else CELL * len(layers),
            title=alt.Title(charts.wrapped(charts.literal(TITLES[piece])), anchor="start" if square else alt.Undefined),
        ),
    )


def chosen_chart(o: Patched, width: int | str = "container") -> alt.LayerChart:
    """The chosen run's chance of the target, beside the original and the changed text's: theirs in the data's blue
    (a chance, on no side), the chosen run's in the chosen orange."""
    fixed = charts.said_chance(
        alt.Chart(
            alt.Data(  # type: ignore[no-untyped-call]  # Altair's Data takes **kwds
                values=[{"run": RUNS[0], "p": o.original["p"]}, {"run": RUNS[1], "p": o.changed["p"]}]
            )
        )
    )
    y = alt.Y("run:N", sort=list(RUNS), scale=alt.Scale(domain=list(RUNS)), title=None)
    top = max(o.original["p"], o.changed["p"], *(p for grid in o.grids.values() for row in grid["p"] for p in row))
    x = alt.X(
        "p:Q",
        title=f"chance of {o.target}",
        scale=alt.Scale(domain=[0, max(top, 1e-9)]),
        axis=alt.Axis(format=f".{max(0, -math.floor(math.log10(max(top, 1e-9) * 100)) + 1)}~%", tickCount=4),
    )
    texts = fixed.mark_bar(color=DATA).encode(x=x, y=y, tooltip=[charts.chance_tip()])
    runs = charts.said_chance(alt.Chart(alt.NamedData("runs")))
    run = (
        runs.transform_filter("datum.key == cell")
        .transform_calculate(run=charts.literal(RUNS[2]))
        .mark_bar(color=CHOSEN)
        .encode(x=x, y=y, tooltip=[alt.Tooltip("name:N", title="put back"), charts.chance_tip()])
    )
    title = alt.Title(
        charts.wrapped(charts.literal(f"The chance of {o.target} in each text, and with the chosen piece put back"))
    )
    return cast("alt.LayerChart", alt.layer(texts, run).properties(width=width, height=BARS * len(RUNS), title=title))


def chart(
    o: Patched, summary: str, keys: Mapping[str, tuple[str, str]], opening: str, square: int = 0
) -> alt.VConcatChart:
    """The whole figure: the chosen run's chart, then the four grids; `keys` is each run's key -> (its piece in
    words, the run in a sentence), `opening` the run chosen at first. Fitted to the column, or (a phone's) with
    squares of `square` px, the grids wider than the column where they must be (they scroll in its own box)."""
    rows = chart_rows(o, keys)
    colours = colour(o, rows)
    cell = alt.param(
        name="cell",
        value=opening,
        bind=alt.binding_select(options=list(keys), labels=[name for name, _ in keys.values()], name="Put back "),
    )
    names = alt.param(name="names", value={key: name for key, (name, _) in keys.items()})
    said = alt.param(name="descriptions", value={key: words for key, (_, words) in keys.items()})
    description = alt.param(name=DESCRIPTION, expr=f"{charts.literal(summary)} + ' ' + descriptions[cell]")
    stack = alt.vconcat(
        chosen_chart(o, NARROW_BARS if square else "container"),
        *(grid(o, piece, rows, colours, square) for piece in NAMES),
        spacing=24,
    )
    stack = stack if square else charts.fits_column(stack)
    return charts.with_clicks(
        charts.with_data(charts.with_params(stack, cell, names, said, description), runs=rows), "cell"
    )


def text_table(o: Patched) -> list[str]:
    """The first grid as printed lines: a row per "after layer", a column per position, how much comes back in
    percent (or, where the texts do not differ on the answer, the score difference)."""
    n = len(o.clean)
    lines = [
        "  put back one token's numbers: "
        + ("how much of the original comes back, in %" if o.differs else "the score difference")
    ]
    lines.append("  after layer  " + "".join(f"{q + 1 - o.start:>7}" for q in range(n)))
    for r, row in enumerate(o.grids["resid_pre"]["diff"]):
        values = [cast(float, o.back(d)) * 100 if o.differs else d for d in row]  # the texts differ: a number
        lines.append(f"  {r:>11}  " + "".join(f"{v:>7.0f}" if o.differs else f"{v:>7.2f}" for v in values))
    return lines
