"""The ledger figure's marks (figures.ledger): the waterfall of the parts, the chosen part's inside, and the two
curves along the half-layers. They read the page's data ("parts", "inside", "layers", "sizes": figures.ledger
makes them) and its params (score, part and the words' maps), so they take no run.
"""

from __future__ import annotations

from typing import cast

from figures.toolkit import charts
from figures.toolkit.charts import alt
from figures.toolkit.colours import CHOSEN, DATA, FOLLOWED, HELPS_WORDS, HURTS_WORDS, REFERENCE

TOTAL = "the model's score"  # the waterfall's last bar
SIZES = ("the correction added", "the numbers it is added to")  # the two sizes of the lower curves
# What a part does for the answer, as the legend says it: in the colours knockout and patching give the same sides.
RAISES = HELPS_WORDS + ": raises its score"
LOWERS = HURTS_WORDS + ": lowers its score"


def sign_colour() -> alt.Color:
    """What a part does for the answer: the colour of what helps it where the part raises the score, of what works
    against it where it lowers the score, the data's blue for the total (the target's score, or its lead), which is
    on neither side: a number, as the corrections' sizes below are (the followed token's purple is its chance's, on
    this page as on every other, issue 44); one scale for the waterfall and the drill-down, whose one legend sits
    above the waterfall, the first chart."""
    return alt.Color(
        "effect:N",
        scale=charts.sides(RAISES, LOWERS, **{TOTAL: DATA}),
        legend=alt.Legend(
            title=None,
            orient="top",
            direction="vertical",
            symbolType="square",
            labelFontSize=11,
            labelLimit=300,
            # "helps the answer" over "raises its score": two short lines fit a phone
            labelExpr="split(datum.label, ': ')",
        ),
    )


def split_chart() -> alt.LayerChart:
    """Each part as a bar from the running sum before it to the sum after it: the last bar is the model's score."""
    chosen = "datum.value == part_names[part]"
    base = (
        alt.Chart(alt.NamedData("parts"))
        .transform_calculate(v="score == 'target' ? datum.t : datum.d", start="score == 'target' ? datum.t0 : datum.d0")
        .transform_calculate(
            end="datum.start + datum.v",
            effect=f'datum.name == "{TOTAL}" ? "{TOTAL}" : datum.v >= 0 ? "{RAISES}" : "{LOWERS}"',
        )
        .encode(
            y=alt.Y(
                "name:N",
                sort=alt.EncodingSortField("n"),
                title=None,
                axis=alt.Axis(labelFontWeight=alt.ExprRef(f"{chosen} ? 'bold' : 'normal'"), labelLimit=200),
            )
        )
    )
    # A click on a layer's bar opens it below (the "Look inside" select: by keyboard); the others open nothing.
    clicked = charts.clickable(base, part="datum.key").encode(
        tooltip=[
            alt.Tooltip("name:N", title="part"),
            alt.Tooltip("v:Q", title="adds", format="+.4f"),
            alt.Tooltip("end:Q", title="running sum", format=".4f"),
        ]
    )
    bars = clicked.mark_bar(cursor=alt.ExprRef("datum.key ? 'pointer' : 'default'")).encode(
        x=alt.X("start:Q", title="score"),
        x2="end:Q",
        color=sign_colour(),
        stroke=alt.condition("datum.key == part", alt.value(CHOSEN), alt.value(None)),
        strokeWidth=alt.condition("datum.key == part", alt.value(3), alt.value(0)),
    )
    # A part that adds little is drawn a pixel wide or less: the layers' whole rows catch the pointer.
    hits = charts.hit_band(clicked.transform_filter("datum.key"), "y")
    zero = (
        alt.Chart(alt.Data(values=[{"x": 0}]))  # type: ignore[no-untyped-call]  # Data: **kwds
        .mark_rule(color=REFERENCE)
        .encode(x="x:Q")
    )
    return cast(
        "alt.LayerChart",
        alt.layer(hits, bars, zero).properties(
            width="container",
            height=alt.Step(charts.TAP),  # a row a finger can tap
            title=alt.Title(charts.wrapped("score_names[score]"), anchor="start"),
        ),
    )


def inside_chart() -> alt.LayerChart:
    """The chosen part's heads and bias, or its largest neurons, the others together and the bias, from zero."""
    base = alt.Chart(alt.NamedData("inside")).transform_filter("datum.key == part && datum.score == score")
    bars = (
        base.transform_calculate(effect=f"datum.v >= 0 ? '{RAISES}' : '{LOWERS}'")
        .mark_bar()
        .encode(
            y=alt.Y("item:N", sort=alt.EncodingSortField("order"), title=None, axis=alt.Axis(labelLimit=200)),
            x=alt.X("v:Q", title="adds to the score"),
            color=sign_colour(),
            tooltip=[alt.Tooltip("item:N", title="inside"), alt.Tooltip("v:Q", title="adds", format="+.4f")],
        )
    )
    zero = (
        alt.Chart(alt.Data(values=[{"x": 0}]))  # type: ignore[no-untyped-call]  # Data: **kwds
        .mark_rule(color=REFERENCE)
        .encode(x="x:Q")
    )
    return cast(
        "alt.LayerChart",
        alt.layer(bars, zero).properties(
            width="container", title=alt.Title(charts.wrapped("inside_titles[score + '|' + part]"), anchor="start")
        ),
    )


def curve_charts(target: str, n_layer: int) -> list[alt.LayerChart]:
    """The target's probability after each half-layer, and each correction's size against the stream's; `target`
    as shown ('_France')."""
    x = alt.X(
        "x:Q",
        title=[
            "after layer N (0: before any layer)",
            "(2.5: after layer 3's attention,",
            "before its feed-forward step)",
        ],
        scale=alt.Scale(domain=[0, n_layer], nice=False),
        axis=alt.Axis(values=list(range(n_layer + 1)), format="d"),
    )
    chosen = (
        alt.Chart(alt.Data(values=[{}]))  # type: ignore[no-untyped-call]  # Data: **kwds
        .transform_calculate(x="part_x[part]")
        .mark_rule(color=REFERENCE, strokeDash=[4, 3])
        .encode(x=alt.X("x:Q"))
    )
    p = charts.said_chance(alt.Chart(alt.NamedData("layers"))).encode(
        x=x,
        y=alt.Y(
            "p:Q", title=f"chance of {target}", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%", tickCount=5)
        ),
        tooltip=[alt.Tooltip("after:N"), charts.chance_tip(target)],
    )
    probability = alt.layer(
        p.mark_line(color=FOLLOWED), p.mark_point(color=FOLLOWED, filled=True), chosen, charts.hit_points(p)
    ).properties(
        width="container",
        height=180,
        title=alt.Title(charts.wrapped(charts.literal(f"{target} after each half-layer")), anchor="start"),
    )
    s = alt.Chart(alt.NamedData("sizes")).encode(
        x=x,
        y=alt.Y("size:Q", title="size: how large its numbers are, overall"),
        color=alt.Color(
            "what:N",
            scale=alt.Scale(domain=list(SIZES), range=[DATA, REFERENCE]),
            legend=alt.Legend(title=None, orient="top", direction="vertical"),
        ),
        tooltip=[
            alt.Tooltip("after:N"),
            alt.Tooltip("what:N", title="size of"),
            alt.Tooltip("size:Q", title="size", format=".3f"),
        ],
    )
    sizes = alt.layer(s.mark_line(), s.mark_point(filled=True), chosen, charts.hit_points(s)).properties(
        width="container", height=180, title=alt.Title("How large each correction is", anchor="start")
    )
    return [probability, sizes]
