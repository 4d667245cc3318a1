"""Figure (i)'s chart (figures.readout): the top guesses after the chosen layer as bars above the target's chance
layer by layer (a line; in the narrow chart, the layers down the chart). Its parts read the page's data ("top",
"line": figures.readout makes them) and params; with no text in them (the live page's chart,
figures.readout.textless_chart), the live page's "top" and "follow" (figsite.data.live_data), so they take no run.
"""

from __future__ import annotations

from typing import cast

from figures.toolkit import charts, textless
from figures.toolkit.charts import alt
from figures.toolkit.colours import DATA, FOLLOWED, ON_DARK, ON_LIGHT, REFERENCE
from figures.toolkit.words import after_layer_expr

TOP_SHOWN = 3  # the book prints the top 3
TOP_ENDS = "top_ends"  # the param of the largest chance among the top bars at each stage
OUTSIDE = 99  # the rank the page's data give the target where it is not among the top 3: drawn below them


def parts_stack(target: str | None, n_layer: int, sideways: bool = False, room: int = 0) -> alt.VConcatChart:
    """The top guesses above the target's chance layer by layer (`sideways`: the stages down the chart), fitted to
    the column, `room` px for the words past a top bar; `target` None: with no text (the live page's: _top_chart,
    _line_chart)."""
    return charts.fits_column(
        alt.vconcat(
            # Sideways: a text's chart (the narrow one), which names its target.
            _top_chart(target, room),
            _down_chart(cast(str, target), n_layer) if sideways else _line_chart(target, n_layer),
            spacing=28,
        )
    )


def _top_chart(target: str | None, room: int = 0) -> alt.LayerChart:
    """The top tokens at the chosen stage, as bars with their probabilities, the target (`target`, as shown) in the
    followed token's colour; the title names it where it is drawn below the top 3. Its chance axis follows the
    switch as the line's does, zoomed in ending where the stage's largest bar (the param `top_ends`) leaves `room`
    px for its words. `target` None: with no text (the reader's sentence's), the top TOP_SHOWN at the text's last
    token and the followed token below them where it is not among them (_textless_tops), named by `follow_name`,
    zoomed in to the stage's first guess (the largest), with room for the longest chance written."""
    stage_label = after_layer_expr("stage")
    y = alt.Y("rank:O", title=None, axis=None)
    largest = f"{TOP_ENDS}[stage]"
    if target is None:
        y = alt.Y("rank:O", scale=alt.Scale(domain=[*range(1, TOP_SHOWN + 1), OUTSIDE]), title=None, axis=None)
        largest, room = f"{textless.row_at('top', 'stage', textless.LAST, 1)}.p", charts.words_room(["0.00000%"])
    scale, axis = charts.chance_scale(largest, room), alt.Axis(format=charts.CHANCE_FORMAT, tickCount=5)
    layers: list[alt.Chart] = []
    for base in [alt.Chart(alt.NamedData("top"))] if target is not None else _textless_tops():
        layers += _top_layers(base, y, scale, axis)
    if target is None:
        return cast(
            "alt.LayerChart",
            alt.layer(*layers).properties(
                width="container",
                height=120,
                title=alt.Title(
                    charts.wrapped(
                        f"'The top {TOP_SHOWN} ' + ({stage_label}) + (outside ? ', and ' + {textless.FOLLOW_NAME} : '')"
                    )
                ),
            ),
        )
    return cast(
        "alt.LayerChart",
        alt.layer(*layers).properties(
            width="container",
            height=120,
            title=alt.Title(
                charts.wrapped(
                    f"'The top {TOP_SHOWN} ' + ({stage_label}) + (indexof(outside, stage) >= 0 "
                    f"? {charts.literal(', and ' + target)} : '')"
                )
            ),
        ),
    )


def _top_layers(base: alt.Chart, y: alt.Y, scale: alt.Scale, axis: alt.Axis) -> list[alt.Chart]:
    """The top tokens of `base` at the chosen stage: their bars, their chances at the bars' ends, and their names
    beside the axis (the target's in bold)."""
    # Ranks on the axis, token names drawn beside it: the tokens differ from stage to stage.
    ranked = (
        charts.said_chance(base)
        .encode(
            y=y,
            tooltip=[alt.Tooltip("token:N"), charts.chance_tip()],  # the words' digits too
        )
        .transform_filter("datum.stage == stage")
    )
    bars = ranked.mark_bar().encode(
        x=alt.X("p:Q", scale=scale, axis=axis, title="chance of being the next token"),
        color=alt.condition("datum.target", alt.value(FOLLOWED), alt.value(DATA)),
        tooltip=[alt.Tooltip("token:N"), charts.chance_tip()],
    )
    # A chance after its bar, or inside a bar that leaves it no room ("99.20%", 12 px), on the bar's colour.
    bar_labels = charts.at_bar_ends(
        ranked.encode(x=alt.X("p:Q", scale=scale), text=alt.Text("p_said:N")),
        "p",
        room="52",
        inside=alt.condition("datum.target", alt.value(ON_LIGHT), alt.value(ON_DARK)),
        fontSize=12,
    )
    # The target's name in bold: with its bar in the followed token's colour, its direct label.
    names = ranked.mark_text(
        align="right", dx=-6, fontSize=13, fontWeight=alt.ExprRef("datum.target ? 'bold' : 'normal'")
    ).encode(x=alt.value(0), text="token:N")
    return [bars, *bar_labels, names]


def _line_chart(target: str | None, n_layer: int) -> alt.LayerChart:
    """The target's probability across the stages (`target` as shown), the chosen stage marked. `target` None: with
    no text (the reader's sentence's), the followed token's chance at the text's last token (live_data's `follow`),
    named by the param `follow_name`."""
    if target is None:
        source = alt.Chart(alt.NamedData("follow")).transform_filter(f"datum.q == {textless.LAST}")
        y = alt.Y(
            "p:Q",
            scale=charts.chance_scale(),
            axis=alt.Axis(format=charts.CHANCE_FORMAT, tickCount=5),
            title="chance of the followed token",
        )
    else:
        source = alt.Chart(alt.NamedData("line"))
        y = alt.Y(
            "p:Q",
            scale=charts.chance_scale(),
            axis=alt.Axis(format=charts.CHANCE_FORMAT, tickCount=5),
            title=f"chance of {target}",
        )
    base = charts.said_chance(charts.named_stages(source)).encode(
        x=alt.X(
            "stage:Q",
            title=["after layer", "(0: before any layer)"],
            # Half a column's room either side: the first and last stages' points and columns are drawn whole.
            scale=alt.Scale(domain=[-0.5, n_layer + 0.5], nice=False, zero=False),
            axis=alt.Axis(values=list(range(n_layer + 1)), format="d"),
        ),
        y=y,
    )
    target_tip = target or "chance"
    # A point chooses its layer too (a tap lands on it before the column under it).
    line = base.mark_line(color=FOLLOWED) + charts.clickable(base, stage="datum.stage").mark_point(
        color=FOLLOWED, filled=True, cursor="pointer"
    ).encode(
        size=alt.condition("datum.stage == stage", alt.value(140), alt.value(30)),
        tooltip=[charts.stage_tip(), charts.chance_tip(target_tip)],
    )
    rule = (
        alt.Chart(alt.Data(values=[{}]))  # type: ignore[no-untyped-call]  # Altair's Data takes **kwds
        .mark_rule(color=REFERENCE, strokeDash=[4, 3])
        .encode(x=alt.X("stage:Q"))
        .transform_calculate(stage="stage")
    )  # the field takes the slider's value
    # A click on a point, or anywhere in its column, chooses that layer (the slider: by keyboard).
    columns = (
        charts.clickable(base, stage="datum.stage")
        .mark_rect(
            fill="transparent", cursor="pointer", aria=False, clip=True, width=alt.ExprRef(f"width / {n_layer + 1}")
        )
        .encode(y=alt.value(0), y2=alt.value("height"), tooltip=[charts.stage_tip(), charts.chance_tip(target_tip)])
    )
    title = (
        f"{target}'s chance, layer by layer"
        if target is not None
        else alt.Title(alt.ExprRef(f"{textless.FOLLOW_NAME} + '\\'s chance, layer by layer'"))
    )
    return cast("alt.LayerChart", alt.layer(line, rule, columns).properties(width="container", height=180, title=title))


def _down_chart(target: str, n_layer: int) -> alt.LayerChart:
    """The target's probability across the stages, the stages down the chart from the first, as the lens has them,
    each in a row of charts.TAP px that a tap anywhere in chooses (the slider: by keyboard); the chosen stage
    marked."""
    base = charts.said_chance(charts.named_stages(alt.Chart(alt.NamedData("line")))).encode(
        y=alt.Y(
            "stage:Q",
            title=["after layer", "(0: before any layer)"],
            scale=alt.Scale(domain=[-0.5, n_layer + 0.5], nice=False, zero=False, reverse=True),
            axis=alt.Axis(
                values=list(range(n_layer + 1)), tickCount=n_layer + 1, labelOverlap=False, format="d", grid=False
            ),
        ),
        x=alt.X(
            "p:Q",
            scale=charts.chance_scale(),
            axis=alt.Axis(format=charts.CHANCE_FORMAT, tickCount=4),
            title=f"chance of {target}",
        ),
    )
    tips = [charts.stage_tip(), charts.chance_tip(target)]
    line = base.mark_line(color=FOLLOWED).encode(order="stage:Q") + charts.clickable(
        base, stage="datum.stage"
    ).mark_point(color=FOLLOWED, filled=True, cursor="pointer").encode(
        size=alt.condition("datum.stage == stage", alt.value(140), alt.value(30)), tooltip=tips
    )
    rule = (
        alt.Chart(alt.Data(values=[{}]))  # type: ignore[no-untyped-call]  # Altair's Data takes **kwds
        .mark_rule(color=REFERENCE, strokeDash=[4, 3])
        .encode(y=alt.Y("stage:Q"))
        .transform_calculate(stage="stage")
    )  # the field takes the slider's value
    rows = (
        charts.clickable(
            base.transform_calculate(top="datum.stage - 0.5", bottom="datum.stage + 0.5"), stage="datum.stage"
        )
        .mark_rect(fill="transparent", cursor="pointer", aria=False)
        .encode(y="top:Q", y2="bottom:Q", x=alt.value(0), x2=alt.value("width"), tooltip=tips)
    )
    return cast(
        "alt.LayerChart",
        alt.layer(line, rule, rows).properties(
            width="container", height=charts.TAP * (n_layer + 1), title=f"{target}'s chance, layer by layer"
        ),
    )


def _textless_tops() -> list[alt.Chart]:
    """With no text: the first TOP_SHOWN rows of `top` at the text's last token, and the followed token's row of
    `follow` there, as rank OUTSIDE, where it is not among them; `target`: the followed token."""
    here = f"datum.q == {textless.LAST}"
    return [
        alt.Chart(alt.NamedData("top"))
        .transform_filter(f"{here} && datum.rank <= {TOP_SHOWN}")
        .transform_calculate(target=f"datum.token == {textless.FOLLOW_NAME}"),
        alt.Chart(alt.NamedData("follow"))
        .transform_filter(f"{here} && datum.rank > {TOP_SHOWN}")
        .transform_calculate(rank=str(OUTSIDE), token=textless.FOLLOW_NAME, target="true"),
    ]
