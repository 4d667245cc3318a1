"""Take one part out and watch the answer: the target token's probability and rank at one position when each
layer's attention, each layer's feed-forward step and, where the figure asks, each head of one layer is taken
out in turn (its output set to zero at every position), beside the intact model's.

Reads the figure's entry of the part "knockouts" (Knockout.entry; computed by
figsite/capture/parts/knockouts.py): "target" {id, text}, "intact" {p, rank} and "runs" [{part, layer, head, p,
rank}], layers and heads 0-based, rank 1 = most likely. Reads the text's tokens (run.token_texts), and, where a
read-out figure tracks the same target in the same text, the probability it shows after the last layer
(run.target_p), so that both figures give the intact model the very same number. The panels are drawn by
figures.knockout_chart.
"""

from __future__ import annotations

import textwrap
from typing import Any, cast

from figsite.config import Field, Figure
from figsite.data.part_records import Ask, Chance, KnockoutEntry, KnockoutRun, PartAsks
from figsite.data.records import ModelRecord
from figsite.data.run import Run
from figsite.data.shared_names import DESCRIPTION
from figures import knockout_textless, recompute_interventions
from figures.kind import Context, LiveOpening, LiveShape, PartKind, Resolved, Reveal, Table, Tokens
from figures.knockout_chart import NONE, choice_params, panel, y_scale_and_axis
from figures.records import BarRow, Outcome
from figures.toolkit import charts, fields
from figures.toolkit.charts import alt, escaped
from figures.toolkit.colours import HELPS_NAME, HURTS_NAME
from figures.toolkit.words import agrees, count, heading, ordinal, percent, percents_apart, quoted, said, token_label

SUBTITLE_LINE = 44  # characters: a line of the chart's subtitle fits a 360 px phone's column (the narrow chart)
WIDE_SUBTITLE_LINE = 88  # characters: a line of it where the column is 480 px or wider
SAME = 5e-9  # probabilities are kept to 8 decimals: closer than this counts as unchanged


# ---------------------------------------------------------------------------------------------- data


def intact(fig: Figure, run: Run, found: KnockoutEntry) -> Chance:
    """The intact model's {p, rank} at the read position; p as the text's data give it where they track the same
    target (a read-out figure of the text then shows the same number), else as the knockouts' intact run."""
    tracked = run.target(fig["text"])
    if tracked and tracked["id"] == found["target"]["id"]:
        return {"p": run.target_p(fig["text"], run.n_layer, fig.opening), "rank": found["intact"]["rank"]}
    return {"p": found["intact"]["p"], "rank": found["intact"]["rank"]}


def change(p: float, before: float) -> int:
    """-1 where p is lower than before, 1 where it is higher, 0 where the kept decimals can't tell them apart."""
    return 0 if abs(p - before) < SAME else (1 if p > before else -1)


# ---------------------------------------------------------------------------------------------- words


def head_number(r: KnockoutRun) -> int:
    """The head a run of the part "head" takes out, numbered from 1 (the other parts' runs name none)."""
    return cast(int, r["head"]) + 1


def part_key(r: KnockoutRun) -> str:
    """The run's value in the page's `part` choice and address, numbered from 1: 'attention-3', 'head-10-2'."""
    if r["part"] == "head":
        return f"head-{r['layer'] + 1}-{head_number(r)}"
    return f"{r['part']}-{r['layer'] + 1}"


def part_name(r: KnockoutRun) -> str:
    """The part in a sentence: "layer 3's attention", "layer 3's feed-forward step", "head 2 of layer 10"."""
    if r["part"] == "head":
        return f"head {head_number(r)} of layer {r['layer'] + 1}"
    return f"layer {r['layer'] + 1}'s " + ("attention" if r["part"] == "attention" else "feed-forward step")


def part_label(r: KnockoutRun) -> str:
    """The part in a list: 'layer 3, attention', 'layer 3, feed-forward step', 'layer 10, head 2'."""
    if r["part"] == "head":
        return f"layer {r['layer'] + 1}, head {head_number(r)}"
    return f"layer {r['layer'] + 1}, " + ("attention" if r["part"] == "attention" else "feed-forward step")


def rank_change(rank: int, before: int) -> str:
    return f"it stays at rank {rank:,}" if rank == before else f"rank {before:,} to rank {rank:,}"


def without(r: KnockoutRun, whole: Chance, target: str, first: str = "Without") -> str:
    """One run in words: "Without layer 10's feed-forward step, _France falls from 28.81% to 3.02% (rank 1 to
    rank 7)"."""
    move = change(r["p"], whole["p"])
    verb = {-1: "falls from", 1: "rises from", 0: "stays at"}[move]
    numbers = " to ".join(percents_apart(whole["p"], r["p"])) if move else percent(r["p"])
    return f"{first} {part_name(r)}, {target} {verb} {numbers} ({rank_change(r['rank'], whole['rank'])})"


def verdict(o: Outcome) -> str:
    """Which removal costs the target most, and how much; or that none lowers it."""
    whole, worst, target, n = o.whole, o.costliest, o.target, len(o.runs)
    if change(worst["p"], whole["p"]) < 0:
        return f"{without(worst, whole, target)}: of the {n} parts taken out one at a time, that costs it the most."
    return (
        f"No part taken out alone lowers {target} ({percent(whole['p'])} with every part in place): the lowest, "
        f"without {part_name(worst)}, is {percent(worst['p'])}."
    )


def raise_reveal(o: Outcome) -> Reveal:
    """The "guess first" question: does taking a part out ever raise the target's probability? From the data."""
    whole, best, target = o.whole, o.most_raised, o.target
    raised = [r for r in o.runs if change(r["p"], whole["p"]) > 0]
    question = f"Guess first: can taking a part out raise {target}'s chance? Which part, if any?"
    if raised:
        answer = (
            f"Yes: {len(raised)} of the {len(o.runs)} parts {agrees(len(raised), 'works', 'work')} against "
            f"{target} here. The most: "
            f"{without(best, whole, target, 'without')}."
        )
    else:
        answer = (
            f"No: each of the {len(o.runs)} parts, taken out alone, lowers it or leaves it as it is. "
            f"The smallest loss: {without(best, whole, target, 'without')}."
        )
    return {
        "question": question,
        "answer": answer,
        "link": f"#part={part_key(best)}",
        "link_text": f"Show {part_label(best)} in the chart",
    }


def tally(o: Outcome) -> str:
    """How many parts, taken out alone, lower the target's chance, raise it, and leave it as it is, each count with
    its own verb: "Taken out alone, of the 36 parts, 15 lower _France's chance, 21 raise it and none leaves it as it
    is." The counts are the verdict's and the reveal's (`change`)."""
    moves = [change(r["p"], o.whole["p"]) for r in o.runs]
    said = [
        f"{moves.count(move) or 'none'} {agrees(moves.count(move), one, many)}"
        for move, one, many in (
            (-1, f"lowers {o.target}'s chance", f"lower {o.target}'s chance"),
            (1, "raises it", "raise it"),
            (0, "leaves it as it is", "leave it as it is"),
        )
    ]
    return f"Taken out alone, of the {count(len(o.runs), 'part')}, {said[0]}, {said[1]} and {said[2]}."


def heads_fact(o: Outcome) -> str | None:
    """Where the figure takes out the heads of one layer: the head that costs most, against the whole attention."""
    heads = [r for r in o.runs if r["part"] == "head"]
    if not heads:
        return None
    whole, target = o.whole, o.target
    layer = heads[0]["layer"]
    attention = next(r for r in o.runs if r["part"] == "attention" and r["layer"] == layer)
    worst = min(heads, key=lambda r: r["p"])
    if change(worst["p"], whole["p"]) >= 0:
        said = f"No single head of layer {layer + 1}, taken out alone, lowers {target}"
    else:
        said = (
            f"Of layer {layer + 1}'s {len(heads)} heads, head {head_number(worst)} costs {target} the most: "
            f"{without(worst, whole, target, 'without')}"
        )
    return f"{said}; without all of the layer's attention it has {percent(attention['p'])}."


# ---------------------------------------------------------------------------------------------- the kind


class Knockout(PartKind):
    READS = ("attention", "feed-forward")
    KIND = "knockout"
    TITLE = "Take one part out and watch the answer"
    CAPTION = (
        "The model's guess for the next token is built by many parts, layer after layer. Here we take one part "
        "out at a time (its output is set to zero, as if it were not there), run the model again, and see how "
        "likely the tracked token still is."
    )
    GUIDE = (
        "Each bar is one run of the model with one part taken out, drawn as the change it makes: the line at "
        "zero is the model with every part in place. Bars below the line, in " + HELPS_NAME + ": without that "
        "part the token got less likely, so the part helps the answer. Bars above it, in " + HURTS_NAME + ": "
        "without that part the token got more likely, so the part works against the answer. Switch between its "
        "chance and its rank (1 = the most likely token: how many places it moves), choose a part to highlight it, and {hover} a "
        "bar for its exact numbers. Choose a bar (click or tap) to highlight its part and have its run said in "
        'words below the chart; the "Highlight" menu does the same from the keyboard.'
    )
    FIELDS = {
        "text": fields.TEXT_FIELD,
        "target": fields.TARGET_FIELD,
        "position": fields.POSITION_FIELD,
        "heads_of": Field("int", "a layer, numbered from 1: each of its heads is also taken out alone"),
    }
    EXPLORE = True
    PART = "knockouts"
    LIVE = 7  # after compare
    NOTEBOOK = recompute_interventions.KNOCKOUT  # every run again, its part taken out by a hook

    def notebook_params(self, fig: Figure, run: Run) -> dict[str, Any]:
        """The notebook's recompute reads the target's id and the read position (0-based)."""
        return {"TARGET_ID": self.entry(fig, run)["target"]["id"], "POSITION": fig.opening}

    def live_opening(self, fig: Figure) -> LiveOpening:
        """The reader's text has the book's figure's layer whose heads are taken out too, where it has one."""
        return {"heads_of": fig["heads_of"]} if "heads_of" in fig.values else {}

    def live_target(self, fig: Figure, run: Run) -> str:
        """The token whose chance the figure watches: the reader's text opens watching it too."""
        return cast(str, fig["target"])

    def textless_chart(self, model: LiveShape, opening: LiveOpening, narrow: bool = False) -> alt.VConcatChart:
        """The same panels with no text in them (figures.knockout_textless), the page's runs put in."""
        return knockout_textless.textless_chart(model["n_layer"], model["n_head"], opening.get("heads_of"), narrow)

    def named(self, fig: Figure) -> tuple[str, ...]:
        return (fig["target"],)

    def check(self, fig: Figure, tokens: Tokens, model: ModelRecord) -> Resolved:
        """The read token ("opening") and the layer whose heads are taken out ("heads_of"), 0-based."""
        _, _, read = fields.check_read_target(fig, tokens, model)
        resolved: Resolved = {"opening": read}
        if "heads_of" in fig.values:
            fields.check_layer(fig, "heads_of", fig["heads_of"], model["n_layer"])
            resolved["heads_of"] = fig["heads_of"] - 1
        return resolved

    def ask(self, fig: Figure) -> Ask:
        """The read position, the target, and the layer whose heads are taken out too, or None (0-based)."""
        return [fig["text"], fig.opening, fig["target"], fig.resolved.get("heads_of")]

    def part_asks(self, fig: Figure) -> dict[str, PartAsks]:
        """Its knockouts, and the read-out at its read position: a long text is read out only where a figure reads
        it, and the intact chance comes from there where the text tracks the same target (`intact`)."""
        return {**super().part_asks(fig), "readout": [[fig["text"], fig.opening]]} if fig.resolved else {}

    def entry(self, fig: Figure, run: Run) -> KnockoutEntry:
        return run.part("knockouts", self.ask(fig))

    def outcome(self, fig: Figure, run: Run) -> Outcome:
        """The figure's knockouts: the target as shown, the intact model, and each run with one part taken out."""
        found = self.entry(fig, run)
        return Outcome(said(found["target"]["text"]), intact(fig, run, found), found["runs"])

    def key(self, fig: Figure, run: Run) -> str:
        return (
            f"Each bar is the model run without one part. {HELPS_NAME.capitalize()}: without it {said(fig['target'])} "
            f"got less likely, so the part helps; {HURTS_NAME}: it got more likely."
        )

    def text_figure(self, fig: Figure, run: Run) -> str:
        """The text, the read token, then one line for the intact model and one for each part taken out."""
        tokens, o = run.token_texts(fig["text"]), self.outcome(fig, run)
        rows: list[tuple[str, Chance]] = [("nothing (the intact model)", o.whole)]
        rows += [(part_label(r), r) for r in o.runs]
        width = max(len(name) for name, _ in rows) + 2
        lines = [
            heading(fig, self.TITLE),
            f"  {quoted(fig['text'], len(tokens))}",
            f"  the next token after {token_label(tokens, fig.opening)}: {o.target}, with one part taken out at a time",
            f"  {'taken out':<{width}}{'chance':>12}{'rank':>8}",
        ]
        lines += [f"  {name:<{width}}{percent(r['p']):>12}{r['rank']:>8,}" for name, r in rows]
        lines.append(f"  {verdict(o)}")
        return "\n".join(lines) + "\n"

    def context(self, fig: Figure, run: Run) -> Context:
        tokens, o = run.token_texts(fig["text"]), self.outcome(fig, run)
        whole, target = o.whole, o.target
        summary = (
            f"With every part in place, the model gives {target} {percent(whole['p'])} (rank {whole['rank']:,}) "
            f"as the next token after {token_label(tokens, fig.opening)}. {verdict(o)}"
        )
        facts = [tally(o)] + [fact for fact in [heads_fact(o)] if fact]
        return {"summary": summary, "reveals": [raise_reveal(o)], "facts": facts}

    def tables(self, fig: Figure, run: Run, spec: charts.Spec) -> dict[str, Table]:
        """One row for the intact model, then one per part taken out: layer and head numbered from 1."""
        o = self.outcome(fig, run)
        rows = [
            {"taken_out": "nothing", "layer": None, "head": None, "probability": o.whole["p"], "rank": o.whole["rank"]}
        ]
        rows += [
            {
                "taken_out": r["part"],
                "layer": r["layer"] + 1,
                "head": None if r["head"] is None else r["head"] + 1,
                "probability": r["p"],
                "rank": r["rank"],
            }
            for r in o.runs
        ]
        return {"knockouts": rows}

    def narrow_chart(self, fig: Figure, run: Run) -> alt.VConcatChart:
        """For a column narrower than 480 px: the same, its subtitle in lines a 360 px phone's column holds, each
        bar's column as wide as a finger can tap (charts.TAP px; the chart scrolls in its own box where it must)."""
        return self.chart(fig, run, line=SUBTITLE_LINE, bar=charts.TAP)

    def chart(self, fig: Figure, run: Run, line: int = WIDE_SUBTITLE_LINE, bar: int = 0) -> alt.VConcatChart:
        """A panel of bars per kind of part (attention, feed-forward, heads of one layer), each bar the change its
        removal makes to the target's chance (or rank), the intact model the line at zero; a radio for chance or
        rank, a select that highlights one part."""
        o = self.outcome(fig, run)
        whole, target = o.whole, o.target
        rows = chart_rows(o)
        scale, axis = y_scale_and_axis([r["dp"] for r in rows], [r["dr"] for r in rows])
        groups = [
            ("attention", "Each layer's attention taken out", "layer"),
            ("feed-forward", "Each layer's feed-forward step taken out", "layer"),
        ]
        if fig.resolved.get("heads_of") is not None:
            layer = fig.resolved["heads_of"] + 1
            groups.append(("head", f"Each head of layer {layer} taken out alone", f"head of layer {layer}"))
        panels = [panel(group, title, x_title, target, scale, axis, bar) for group, title, x_title in groups]
        after = token_label(run.token_texts(fig["text"]), fig.opening)
        name = escaped(target)
        # A short title in bold; what the bars mean below it, in normal weight, in lines a phone's column holds.
        title = alt.Title(
            charts.wrapped(
                f"(show == 'rank' ? 'Places {name} moves' : 'How {name}\\'s chance changes') + ' without each part'"
            ),
            subtitle=textwrap.wrap(
                f"As the next token after {after}. Below the line: without that part, {target} "
                f"got less likely. The line: every part in place ({percent(whole['p'])}; it is the "
                f"{ordinal(whole['rank'])} most likely next token).",
                line,
            ),
            subtitleFontSize=12,
            subtitleFontWeight="normal",
            subtitlePadding=4,
            offset=12,
        )
        summary = self.context(fig, run)["summary"]
        stack = alt.vconcat(*panels, spacing=20)
        titled = charts.with_params(stack if bar else charts.fits_column(stack), *params(o, summary)).properties(
            title=title
        )
        return charts.with_clicks(charts.with_data(cast("alt.VConcatChart", titled), runs=rows), "part")


# ---------------------------------------------------------------------------------------------- chart


def chart_rows(o: Outcome) -> list[BarRow]:
    """One row per run, as the bars draw it: group, the bar's place (layer or head, from 1), the numbers, and the
    two changes the bars show: "dp", the chance without the part less the intact model's, and "dr", the places the
    target moved up the ranking (both below zero where the target got less likely); "said", the bar in words."""
    whole, target = o.whole, o.target
    rows: list[BarRow] = []
    for r in o.runs:
        d = r["p"] - whole["p"]
        moved = "none" if change(r["p"], whole["p"]) == 0 else ("+" if d > 0 else "-") + percent(abs(d))
        rows.append(
            {
                "key": part_key(r),
                "group": r["part"],
                "x": head_number(r) if r["part"] == "head" else r["layer"] + 1,
                "name": part_label(r),
                "p": float(f"{r['p']:.4g}"),
                "rank": r["rank"],
                "change": moved,
                "dp": float(f"{d:.4g}") if change(r["p"], whole["p"]) else 0.0,
                "dr": whole["rank"] - r["rank"],  # places moved up: rank 1 to rank 7 is -6
                "said": f"without {part_name(r)}: {target} {percent(r['p'])}, change {moved}, rank {r['rank']:,}",
            }
        )
    return rows


def params(o: Outcome, summary: str) -> list[alt.Parameter]:
    """`show` (probability or rank), `part` (the highlighted run, or none), and the words for each part: with none
    highlighted, the figure's `summary`."""
    whole, target, every = o.whole, o.target, o.runs
    show, part = choice_params([part_key(r) for r in every], [part_label(r) for r in every])
    words = {NONE: summary}
    words.update({part_key(r): without(r, whole, target) + "." for r in every})
    said = alt.param(name="descriptions", value=words)
    description = alt.param(name=DESCRIPTION, expr="descriptions[part]")
    return [show, part, said, description]
