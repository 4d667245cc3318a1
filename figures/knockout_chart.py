"""The knockout figure's panels (figures.knockout): one panel per kind of part taken out, a bar per layer (or head)
from zero, the intact model, to the change its removal makes, in chance or in places moved on the rank axis (the
`show` switch), coloured by what the part does for the answer. They read the page's data ("runs":
figures.knockout.chart_rows makes them) and params (show, part), so they take no run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import cast

from figures.toolkit import charts
from figures.toolkit.charts import alt
from figures.toolkit.colours import CHOSEN, HELPS_WORDS, HURTS_WORDS, REFERENCE

PANEL_HEIGHT = 130
NONE = "none"  # the `part` param's value when no bar is highlighted

# The two sides of zero, as the legend names them (with the target as shown): what the part does for the answer,
# seen from how the target fares without it. A part whose removal lowers the target helps the answer, in the colour
# the ledger gives a part that raises its score.
# Short enough for a phone's column; the subtitle names the target.
LESS = HELPS_WORDS + ": less likely without it"
MORE = HURTS_WORDS + ": likelier without it"


MULTIPLES = (0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10)  # a step of the chance axis: one of these times a power of ten


def nice_step(top: float) -> float:
    """A step of 1, 2, 2.5 or 5 times a power of ten that cuts 0..top into at most 5 steps."""
    power = 10.0 ** math.floor(math.log10(top))
    return next(m * power for m in MULTIPLES if top / (m * power) <= 5)


def chance_ticks(changes: list[float]) -> list[float]:
    """The chance axis's ticks: round steps from below the lowest change to above the highest, 0 among them."""
    low, high = min(changes + [0.0]), max(changes + [0.0])
    step = nice_step(high - low) if high > low else 1e-4
    return [round(i * step, 12) for i in range(math.floor(low / step + 1e-9), math.ceil(high / step - 1e-9) + 1)]


def place_ticks(moves: list[int]) -> list[int]:
    """The rank axis's ticks, in places moved: 0, and 10, 100, 1,000... up and down, as far as the moves reach (1
    where they reach less than 10: a tick at 1 would sit on top of 0's)."""
    ticks = [0]
    for side in (1, -1):
        reach = max([side * m for m in moves] + [0])
        if reach:
            ticks += [side * 10**k for k in range(0 if reach < 10 else 1, math.ceil(math.log10(reach)) + 1)]
    return sorted(ticks) if len(ticks) > 1 else [-1, 0, 1]


# Where a number of places moved lies on the rank axis: a log scale either side of zero (a move of 0 at 0).
ON_RANK_AXIS = "({d} < 0 ? -1 : 1) * log(1 + abs({d})) / LN10"


def on_rank_axis(places: int) -> float:
    """Where `places` moved up lies on the rank axis (ON_RANK_AXIS, in Python), to 6 digits: a tick's place."""
    return float(f"{math.copysign(math.log10(1 + abs(places)), places):.6g}")


# What a bar's height is, in each mode: the change in chance, or the places moved on the rank axis.
VALUE = f"show == 'rank' ? {ON_RANK_AXIS.format(d='datum.dr')} : datum.dp"


def y_scale_and_axis(changes: list[float], moves: list[int]) -> tuple[alt.Scale, alt.Axis]:
    """The bars' scale and axis, each switched by `show`: the change in chance in points of percent, or the places
    moved up (+) or down (-) the ranking on a log scale either side of zero; zero, the intact model, in both."""
    p_ticks, r_ticks = chance_ticks(changes), place_ticks(moves)
    step = p_ticks[1] - p_ticks[0]
    decimals = max(0, 1 - math.floor(math.log10(step * 100) + 1e-9))  # 0.25% steps: 2; '~' drops trailing zeros
    on_axis = [on_rank_axis(t) for t in r_ticks]
    scale = alt.Scale(
        domain=alt.ExprRef(expr=f"show == 'rank' ? [{on_axis[0]}, {on_axis[-1]}] : [{p_ticks[0]}, {p_ticks[-1]}]"),
        nice=False,
        zero=False,
    )
    places_label = (
        "datum.value == 0 ? '0' : (datum.value > 0 ? '+' : '-') + format(round(pow(10, abs(datum.value)) - 1), ',')"
    )
    axis = alt.Axis(
        values=alt.ExprRef(expr=f"show == 'rank' ? {on_axis} : {p_ticks}"),
        title=None,
        tickCount=max(len(r_ticks), len(p_ticks)),
        labelExpr=(
            f"show == 'rank' ? {places_label} : (datum.value == 0 ? '0' : format(datum.value, '+.{decimals}~%'))"
        ),
    )
    return scale, axis


def side_colour(target: str) -> alt.Color:
    """The bars' colour: what the part does for the answer (below zero: without it, the target got less likely, so
    it helps the answer), with its legend; the part the reader chose in the chosen colour."""
    return alt.condition(
        "datum.key == part",
        alt.value(CHOSEN),
        alt.Color(
            "side:N",
            scale=charts.sides(LESS.format(target=target), MORE.format(target=target)),
            title=None,
            legend=alt.Legend(
                orient="top", direction="vertical", symbolType="square", labelLimit=340, labelFontSize=11
            ),
        ),
    )


def choice_params(keys: list[str], labels: list[str]) -> list[alt.Parameter]:
    """`show` (the chance or the rank), and `part`, the part highlighted (NONE, or one of `keys`, by `labels`)."""
    show = alt.param(
        name="show",
        value="probability",
        bind=alt.binding_radio(
            options=["probability", "rank"], labels=["chance", "rank (1 = most likely)"], name="Show "
        ),
    )
    part = alt.param(
        name="part",
        value=NONE,
        bind=alt.binding_select(options=[NONE, *keys], labels=["none", *labels], name="Highlight "),
    )
    return [show, part]


def panel(
    group: str,
    title: str,
    x_title: str,
    target: str,
    scale: alt.Scale,
    axis: alt.Axis,
    bar: int = 0,
    words: Mapping[str, str] | None = None,
) -> alt.LayerChart:
    """One kind of part: a bar per layer (or head) from zero, the intact model, to the change its removal makes; as
    wide as the column, or `bar` px a bar's column. `words`: {field: Vega expression} of the fields "change" and
    "said", where the data do not hold them (the chart with no text: figures.knockout_textless)."""
    side = f"datum.v < 0 ? {charts.literal(LESS.format(target=target))} : {charts.literal(MORE.format(target=target))}"
    data = alt.Chart(alt.NamedData("runs"))
    base = (
        charts.said_chance(data.transform_calculate(**words) if words else data)
        .transform_filter(f"datum.group == '{group}'")
        .transform_calculate(v=VALUE)
        .transform_calculate(side=side)
    )
    # A click on a bar names its part in words and highlights it (the "Highlight" select: by keyboard).
    clicked = charts.clickable(base, part="datum.key").encode(
        x=alt.X("x:O", title=x_title, axis=alt.Axis(labelAngle=0)),
        tooltip=[
            alt.Tooltip("name:N", title="taken out"),
            charts.chance_tip(f"chance of {target}"),
            alt.Tooltip("change:N", title="against the intact model"),
            alt.Tooltip("rank:Q", title="rank (1 = most likely)", format=","),
            alt.Tooltip("dr:Q", title="places moved up (+) or down (-)", format="+,"),
        ],
    )
    bars = clicked.mark_bar(cursor="pointer").encode(
        y=alt.Y("v:Q", scale=scale, axis=axis), y2=alt.datum(0), color=side_colour(target), description="said:N"
    )
    # A bar of a change near zero is drawn a pixel tall or less: its whole column catches the pointer.
    hits = charts.hit_band(clicked)
    zero = (
        alt.Chart(alt.Data(values=[{"v": 0}]))  # type: ignore[no-untyped-call]  # Data: **kwds
        .mark_rule(color=REFERENCE, strokeWidth=1.5)
        .encode(y=alt.Y("v:Q", scale=scale))
    )
    return cast(
        "alt.LayerChart",
        alt.layer(hits, bars, zero).properties(
            width=alt.Step(bar) if bar else "container",
            height=PANEL_HEIGHT,
            title=alt.Title(charts.wrapped(charts.literal(title))),
        ),
    )
