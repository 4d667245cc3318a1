"""Figure (i), the guess layer by layer: the final read-out applied after the embedding and after each layer.

Reads the text's read-out and its target at the read position (run.readout, run.target, run.target_p), and, for
the head that looks hardest back to a given token, every head's share (run.share).
"""

from __future__ import annotations

from typing import cast

from figsite.config import Field, Figure
from figsite.data.asks import Asks
from figsite.data.format import TOP_K
from figsite.data.records import ModelRecord, TokenRef
from figsite.data.run import LEFT_OUT, MIN_SHARE, Run
from figsite.data.shared_names import DESCRIPTION
from figures.kind import Context, Kind, LiveOpening, LiveShape, Resolved, Reveal, Tokens
from figures.records import Stage, TopRow
from figures.toolkit import charts, fields, textless
from figures.toolkit.charts import alt
from figures.toolkit.colours import DATA, FOLLOWED, ON_DARK, ON_LIGHT, REFERENCE
from figures.toolkit.colours import FOLLOWED_NAME
from figures.toolkit.words import (
    after_layer,
    after_layer_expr,
    heading,
    number,
    percent,
    percent_expr,
    said,
    shown,
    token_label,
    whole_percent,
)

TOP_SHOWN = 3  # the book prints the top 3
TOP_ENDS = "top_ends"  # the param of the largest chance among the top bars at each stage
OUTSIDE = 99  # the rank the page's data give the target where it is not among the top 3: drawn below them
# The caption of the chart with no text: it names what the live page shows, where the build's names figure labels.
LIVE_CAPTION = "After each layer, what the model would guess as the next token after the text's last token."


# ---------------------------------------------------------------------------------------------- data


def stage_name(stage: int, n_layer: int) -> str:
    """As the book's printed figure names the stages: 'after the embedding' for stage 0, 'after layer  9' (aligned)
    for the others. The pages name stage 0 as the chapter's prose does (words.after_layer)."""
    return "after the embedding" if stage == 0 else f"after layer {stage:>{len(str(n_layer))}}"


def tracked(fig: Figure, run: Run) -> TokenRef:
    """The figure's target, as the text's data track it: the figure asks the run to track it (Readout.asks)."""
    return cast(TokenRef, run.target(fig["text"]))


def stages(fig: Figure, run: Run) -> list[Stage]:
    """For each stage: the target's probability and the top tokens, at the read position."""
    text, q = fig["text"], fig.opening
    return [{"p": run.target_p(text, s, q), "top": run.readout(text, s, q)} for s in range(run.n_stages)]


def entry_stage(fig: Figure, run: Run) -> int | None:
    """The first stage at which the target is among the top three, or None."""
    target_id = tracked(fig, run)["id"]
    for s, stage in enumerate(stages(fig, run)):
        if target_id in [token_id for token_id, _ in stage["top"][:TOP_SHOWN]]:
            return s
    return None


def hardest_look(fig: Figure, run: Run) -> tuple[int, int, float]:
    """Over all heads, the (layer, head, share) that looks hardest from the read token back to look_back_to."""
    q, k = fig.opening, fig.resolved["back"]
    return max(
        (
            (layer + 1, head + 1, run.share(fig["text"], layer, head, q, k))
            for layer in range(run.n_layer)
            for head in range(run.n_head)
        ),
        key=lambda t: t[2],
    )


# ---------------------------------------------------------------------------------------------- page


def describe(fig: Figure, run: Run, stage: int) -> str:
    """One stage of the chart in words, for screen readers."""
    name = after_layer(stage, capital=True)
    at = stages(fig, run)[stage]
    top = ", ".join(f"{said(run.token_text(i))} {percent(p)}" for i, p in at["top"][:TOP_SHOWN])
    return f"{name}: the top {TOP_SHOWN} guesses are {top}; {said(tracked(fig, run)['text'])} has {percent(at['p'])}."


class Readout(Kind[Run]):
    READS = ("read-out",)
    KIND = "readout"
    PRINTED_IN_BOOK = True  # the book prints it
    TITLE = "The guess takes shape layer by layer (the final read-out applied after each layer)"
    CAPTION = (
        "After each layer we apply the model's last step to the numbers of one token and ask what it "
        "would guess as the next token at that point."
    )
    GUIDE = (
        "Move the slider through the layers: after layer N (0: before any layer; its last number: after the last layer). "
        "The upper chart shows the top three guesses after that layer, the lower one how the tracked token's "
        "chance rises and falls. Choose a point or its column (click or tap) to go to that layer; the slider "
        "does the same from the keyboard."
    )
    FIELDS = {
        "text": fields.TEXT_FIELD,
        "target": fields.TARGET_FIELD,
        "position": fields.POSITION_FIELD,
        "look_back_to": Field(
            "position_or_text",
            "an earlier token: the figure names the head that looks hardest "
            "from the read token back to it; its number or its text",
        ),
    }

    def asks(self, fig: Figure) -> Asks:
        """Its text, tracking its target; a long text is read out only where a figure reads it (once resolved)."""
        return Asks(
            texts={fig["text"]: fig["target"]},
            config=self.config_of(fig, "position"),
            parts={"readout": [[fig["text"], fig.opening]]} if fig.resolved else {},
        )

    def check(self, fig: Figure, tokens: Tokens, model: ModelRecord) -> Resolved:
        """The read token ("opening") and the token it looks back to ("back"), 0-based."""
        text_tokens, _, read = fields.check_read_target(fig, tokens, model)
        resolved: Resolved = {"opening": read}
        if "look_back_to" in fig.values:
            back = fields.resolve_position(fig, "look_back_to", fig["look_back_to"], text_tokens)
            if back > resolved["opening"]:
                raise fig.error(
                    "look_back_to",
                    f"token {number(text_tokens, back)} comes after the read token "
                    f"{number(text_tokens, resolved['opening'])}",
                    "a token at or before the read token: no token looks to the right",
                )
            resolved["back"] = back
        return resolved

    def key(self, fig: Figure, run: Run) -> str:
        return (
            f"The bars are the top three guesses after the chosen layer, and {shown(fig['target'])} in "
            f"{FOLLOWED_NAME}; the line below is its chance after each layer."
        )

    def text_figure(self, fig: Figure, run: Run) -> str:
        """One line per stage: the target's probability to two decimals and the top 3 in whole percent."""
        n_layer = run.n_layer
        target = shown(tracked(fig, run)["text"])
        lines = [heading(fig, self.TITLE)]
        for s, stage in enumerate(stages(fig, run)):
            top = "  ".join(f"{shown(run.token_text(i))} {whole_percent(p)}%" for i, p in stage["top"][:TOP_SHOWN])
            lines.append(f"  {stage_name(s, n_layer):<21}{target} {stage['p'] * 100:6.2f} %    top {TOP_SHOWN}: {top}")
        return "\n".join(lines) + "\n"

    def context(self, fig: Figure, run: Run) -> Context:
        tokens = run.token_texts(fig["text"])
        n_layer = run.n_layer
        q = fig.opening
        target = said(tracked(fig, run)["text"])
        last = stages(fig, run)[-1]
        summary = (
            f"The read-out of {token_label(tokens, q)}: after all {n_layer} layers the model gives "
            f"{target} {percent(last['p'])}."
        )
        entry = entry_stage(fig, run)
        if entry is None:
            answer = f"In this run {target} never enters the top three."
        else:
            answer = f"{after_layer(entry, capital=True)}: {target} has {percent(stages(fig, run)[entry]['p'])} there."
        reveal: Reveal = {
            "question": f"Guess first: at which layer does {target} enter the top three?",
            "answer": answer,
        }
        if entry is not None:
            reveal.update({"link": f"#stage={entry}", "link_text": f"Show {after_layer(entry)}"})
        reveals = [reveal]
        facts: list[str] = []
        if "back" in fig.resolved:
            layer, head, share = hardest_look(fig, run)
            back = fig.resolved["back"]
            if share < MIN_SHARE:  # a long text's data leave such shares out
                facts.append(
                    f"No head gives {said(tokens[back])} {LEFT_OUT} or more of the attention of {said(tokens[q])}."
                )
            else:
                facts.append(
                    f"Of all {run.n_heads:,} heads, the one that looks hardest from {said(tokens[q])} back to "
                    f"{said(tokens[back])} is layer {layer}, head {head}: it gives {said(tokens[back])} "
                    f"{whole_percent(share)}% of its attention."
                )
        return {"summary": summary, "reveals": reveals, "facts": facts}

    def narrow_chart(self, fig: Figure, run: Run) -> alt.VConcatChart:
        """For a phone's column: the same with the stages down the chart, a row a finger can tap for each (13 stages
        side by side would lie 17 px apart)."""
        return self.chart(fig, run, sideways=True)

    LIVE_CAPTION = LIVE_CAPTION
    LIVE = 3

    def live_opening(self, fig: Figure) -> LiveOpening:
        """(i) follows its target in its own text: the live page opens on both, so that the target fits the text."""
        return {"text": fig.values["text"], "target": fig.values["target"]}

    def textless_chart(self, model: LiveShape, opening: LiveOpening, narrow: bool = False) -> alt.VConcatChart | None:
        """The chart with no text in it (textless_chart), at the text's last token; the wide one serves a phone."""
        return None if narrow else textless_chart(model["n_layer"], opening.get("stage"))

    def chart(self, fig: Figure, run: Run, sideways: bool = False) -> alt.VConcatChart:
        """A slider over the stages: the top tokens at the chosen stage, and the target's probability across stages
        (`sideways`: the stages down the chart)."""
        n_layer = run.n_layer
        target = said(tracked(fig, run)["text"])
        line_rows = [{"stage": s, "p": charts.kept_chance(stage["p"])} for s, stage in enumerate(stages(fig, run))]
        stage = charts.stage_slider(n_layer, n_layer)
        descriptions = alt.param(name="descriptions", value=[describe(fig, run, s) for s in range(n_layer + 1)])
        description = alt.param(name=DESCRIPTION, expr="descriptions[stage]")
        top = top_rows(fig, run)
        # The stages where the target is drawn below the top 3: the upper chart's title names it there.
        outside = alt.param(name="outside", value=sorted({row["stage"] for row in top if row["rank"] == OUTSIDE}))
        ends = alt.param(
            name=TOP_ENDS, value=[max(row["p"] for row in top if row["stage"] == s) for s in range(n_layer + 1)]
        )
        room = charts.words_room([percent(row["p"]) for row in top])
        # Params and data go in once, at the top: Altair copies a chart's params and inline data at every step.
        return charts.with_clicks(
            charts.with_data(
                charts.with_params(
                    _stack(target, n_layer, sideways, room),
                    stage,
                    charts.chance_switch(),
                    descriptions,
                    description,
                    outside,
                    ends,
                ),
                top=top,
                line=line_rows,
            ),
            "stage",
        )


def _stack(target: str | None, n_layer: int, sideways: bool = False, room: int = 0) -> alt.VConcatChart:
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


def top_rows(fig: Figure, run: Run) -> list[TopRow]:
    """The page's data for the top tokens: at each stage, the top 3 by rank, and the target (rank OUTSIDE) where it
    is not among them."""
    token = tracked(fig, run)
    target_id, target = token["id"], shown(token["text"])
    rows: list[TopRow] = []
    for s, stage in enumerate(stages(fig, run)):
        top = stage["top"][:TOP_SHOWN]
        for rank, (token_id, p) in enumerate(top, start=1):
            rows.append(
                {
                    "stage": s,
                    "rank": rank,
                    "token": shown(run.token_text(token_id)),
                    "p": charts.kept_chance(p),
                    "target": token_id == target_id,
                }
            )
        if target_id not in [i for i, _ in top]:
            rows.append(
                {"stage": s, "rank": OUTSIDE, "token": target, "p": charts.kept_chance(stage["p"]), "target": True}
            )
    return rows


def _top_chart(target: str | None, room: int = 0) -> alt.LayerChart:
    """The top tokens at the chosen stage, as bars with their probabilities, the target (`target`, as shown) in the
    followed token's colour; the title names it where it is drawn below the top 3. Its chance axis follows the
    switch as the line's does, zoomed in ending where the stage's largest bar (the param `top_ends`) leaves `room`
    px for its words. `target` None: with no text (the live page's, which has no switch), the top TOP_K at the
    text's last token and the followed token below them where it is not among them (_textless_tops), named by
    `follow_name`, on an axis of 0 to 100%."""
    stage_label = after_layer_expr("stage")
    y = alt.Y("rank:O", title=None, axis=None)
    scale, axis = charts.chance_scale(f"{TOP_ENDS}[stage]", room), alt.Axis(format=charts.CHANCE_FORMAT, tickCount=5)
    if target is None:
        y = alt.Y("rank:O", scale=alt.Scale(domain=[*range(1, TOP_K + 1), OUTSIDE]), title=None, axis=None)
        scale, axis = alt.Scale(domain=[0, 1]), alt.Axis(format="%", tickCount=5)
    layers: list[alt.Chart] = []
    for base in [alt.Chart(alt.NamedData("top"))] if target is not None else _textless_tops():
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
        layers += [bars, *bar_labels, names]
    if target is None:
        return cast(
            "alt.LayerChart",
            alt.layer(*layers).properties(
                width="container",
                height=alt.Step(20),
                title=alt.Title(
                    charts.wrapped(
                        f"'The top {TOP_K} guesses after the last token (' + names[{textless.LAST}] + '), ' + "
                        f"{stage_label} + (outside ? ', and ' + follow_name : '')"
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


def _line_chart(target: str | None, n_layer: int) -> alt.LayerChart:
    """The target's probability across the stages (`target` as shown), the chosen stage marked. `target` None: with
    no text (the live page's), the followed token's chance at the text's last token (live_data's `follow`), named by
    the param `follow_name`, on an axis of 0 to 100% (no switch)."""
    if target is None:
        source = alt.Chart(alt.NamedData("follow")).transform_filter(f"datum.q == {textless.LAST}")
        y = alt.Y(
            "p:Q",
            scale=alt.Scale(domain=[0, 1]),
            axis=alt.Axis(format="%", tickCount=5),
            title="chance (the followed token's)",
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


# ---------------------------------------------------------------------------------------------- with no text


def textless_chart(n_layer: int, opening_stage: int | None = None) -> alt.VConcatChart:
    """Figure (i) with no text in it (the live page's), at the text's last token: the top TOP_K guesses after the
    chosen stage as bars (the followed token in its colour, drawn below them where it is not among them), and the
    followed token's chance after each layer: the build's _top_chart and _line_chart. Reads `top`, `follow`
    (figsite.data.live_data), `names` and `follow_name`; the slider "stage" (`opening_stage`; None: the last)."""
    stage = charts.stage_slider(n_layer, n_layer if opening_stage is None else opening_stage)
    followed = textless.row_at("follow", "stage", textless.LAST)
    top3 = " + ', ' + ".join(
        f"{textless.row_at('top', 'stage', textless.LAST, r)}.token + ' ' + "
        f"{percent_expr(textless.row_at('top', 'stage', textless.LAST, r) + '.p')}"
        for r in (1, 2, 3)
    )
    description = alt.param(
        name=DESCRIPTION,
        expr=(
            f"{after_layer_expr('stage', capital=True)} + ': the top 3 guesses are ' + "
            f"{top3} + '; ' + follow_name + ' has ' + {percent_expr(followed + '.p')} + '.'"
        ),
    )
    outside = alt.param(name="outside", expr=f"{followed}.rank > {TOP_K}")
    return textless.finished(
        _stack(None, n_layer), [stage, *textless.texts(), outside, description], ("stage",), n_layer, 0, "top", "follow"
    )


def _textless_tops() -> list[alt.Chart]:
    """With no text: the rows of `top` at the text's last token, and the followed token's row of `follow` there, as
    rank OUTSIDE, where it is not among them; `target`: the followed token."""
    here = f"datum.q == {textless.LAST}"
    return [
        alt.Chart(alt.NamedData("top"))
        .transform_filter(here)
        .transform_calculate(target=f"datum.token == {textless.FOLLOW_NAME}"),
        alt.Chart(alt.NamedData("follow"))
        .transform_filter(f"{here} && datum.rank > {TOP_K}")
        .transform_calculate(rank=str(OUTSIDE), token=textless.FOLLOW_NAME, target="true"),
    ]
