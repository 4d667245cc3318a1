"""Figure (i), the guess layer by layer: the final read-out applied after the embedding and after each layer.

Reads the text's read-out and its target at the read position (run.readout, run.target, run.target_p), and, for
the head that looks hardest back to a given token, every head's share (run.share). The chart's parts are in
figures.readout_chart.
"""

from __future__ import annotations

from typing import Any, cast

from figsite.config import Field, Figure
from figsite.data.asks import Asks
from figsite.data.records import ModelRecord, TokenRef
from figsite.data.run import LEFT_OUT, MIN_SHARE, Run
from figsite.data.shared_names import DESCRIPTION, KEY_WORDS
from figures import recompute
from figures.kind import Context, Kind, LiveOpening, LiveShape, Resolved, Reveal, Tokens
from figures.readout_chart import OUTSIDE, TOP_ENDS, TOP_SHOWN, parts_stack
from figures.records import Stage, TopRow
from figures.toolkit import charts, fields, textless
from figures.toolkit.charts import alt
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

# The caption of the chart with no text: it names what the live page shows, where the build's names figure labels.


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
        return key_words(shown(fig["target"]))

    NOTEBOOK = recompute.READOUT  # the target's and the top tokens' chances at every stage, from the stream

    def notebook_params(self, fig: Figure, run: Run) -> dict[str, Any]:
        """The notebook's recompute reads the target's id and the read position (0-based)."""
        return {"TARGET_ID": tracked(fig, run)["id"], "POSITION": fig.opening}

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
                    parts_stack(target, n_layer, sideways, room),
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


def key_words(followed: str) -> str:
    """The figure's key: how to read it, naming the token it follows (as shown)."""
    return (
        f"The bars are the top three guesses after the chosen layer, and {followed} in {FOLLOWED_NAME}; the line "
        "below is its chance after each layer."
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


# ---------------------------------------------------------------------------------------------- with no text


def textless_chart(n_layer: int, opening_stage: int | None = None) -> alt.VConcatChart:
    """Figure (i) with no text in it (the reader's sentence's), at the text's last token: the top 3 guesses after
    the chosen stage as bars (the followed token in its colour, drawn below them where it is not among them), and the
    followed token's chance after each layer, on the chance axis the book's switch sets: the build's _top_chart and
    _line_chart. Reads `top`, `follow` (figsite.data.live_data), `names` and `follow_name`; the slider "stage"
    (`opening_stage`; None: the last)."""
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
    outside = alt.param(name="outside", expr=f"{followed}.rank > {TOP_SHOWN}")
    # The key above the chart names the token followed in the reader's text, as the book's names its own.
    before, after = key_words("\0").split("\0")
    key = alt.param(name=KEY_WORDS, expr=f"{charts.literal(before)} + {textless.FOLLOW_NAME} + {charts.literal(after)}")
    return textless.finished(
        parts_stack(None, n_layer),
        [stage, charts.chance_switch(), *textless.texts(), outside, description, key],
        ("stage",),
        n_layer,
        0,
        "top",
        "follow",
    )
