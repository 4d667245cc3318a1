"""Take one part out and watch the answer: the target token's probability and rank at one position when each
layer's attention, each layer's feed-forward step and, where the figure asks, each head of one layer is taken
out in turn (its output set to zero at every position), beside the intact model's.

Reads the figure's entry of the part "knockouts" (Knockout.entry; computed by
figsite/capture/parts/knockouts.py): "target" {id, text}, "intact" {p, rank} and "runs" [{part, layer, head, p,
rank}], layers and heads 0-based, rank 1 = most likely. Reads the text's tokens (run.token_texts), and, where a
read-out figure tracks the same target in the same text, the probability it shows after the last layer
(run.target_p), so that both figures give the intact model the very same number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from figsite.config import Field
from figsite.data.shared_names import DESCRIPTION
from figures.kind import PartKind
from figures.toolkit import charts, fields
from figures.toolkit.charts import alt, escaped
from figures.toolkit.colours import ACCENT, GREY, MAIN
from figures.toolkit.words import heading, quoted, shown, token_label

PANEL_HEIGHT = 130
NONE = "none"  # the `part` param's value when no bar is highlighted
SAME = 5e-9  # probabilities are kept to 8 decimals: closer than this counts as unchanged

# What a bar's height is, in each mode: the probability, or minus the rank's logarithm (rank 1 at the top).
VALUE = "show == 'rank' ? -log(datum.rank) / LN10 : datum.p"


# ---------------------------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Outcome:
    """A figure's knockouts as its words and chart read them."""

    target: str  # the target as shown, '_France'
    whole: dict  # the intact model: {p, rank}
    runs: list  # each run with one part taken out, as the data give them: each layer's attention, each layer's
    # feed-forward step, then the heads: {part, layer, head, p, rank}

    @property
    def costliest(self) -> dict:
        """The run with the lowest probability (the first of equals, in the data's order)."""
        return min(self.runs, key=lambda r: r["p"])

    @property
    def most_raised(self) -> dict:
        """The run with the highest probability (the first of equals)."""
        return max(self.runs, key=lambda r: r["p"])


def intact(fig, run, found: dict) -> dict:
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


def percent(p: float) -> str:
    """A probability in percent: two decimals from 1% up ('28.81%'), three significant digits below ('0.00203%')."""
    if p * 100 >= 1 or p <= 0:
        return f"{p * 100:.2f}%"
    decimals = 2 - math.floor(math.log10(p * 100))
    return f"{p * 100:.{decimals}f}%"


def part_key(r: dict) -> str:
    """The run's value in the page's `part` choice and address, numbered from 1: 'attention-3', 'head-10-2'."""
    if r["part"] == "head":
        return f"head-{r['layer'] + 1}-{r['head'] + 1}"
    return f"{r['part']}-{r['layer'] + 1}"


def part_name(r: dict) -> str:
    """The part in a sentence: "layer 3's attention", "layer 3's feed-forward step", "head 2 of layer 10"."""
    if r["part"] == "head":
        return f"head {r['head'] + 1} of layer {r['layer'] + 1}"
    return f"layer {r['layer'] + 1}'s " + ("attention" if r["part"] == "attention" else "feed-forward step")


def part_label(r: dict) -> str:
    """The part in a list: 'layer 3, attention', 'layer 3, feed-forward step', 'layer 10, head 2'."""
    if r["part"] == "head":
        return f"layer {r['layer'] + 1}, head {r['head'] + 1}"
    return f"layer {r['layer'] + 1}, " + ("attention" if r["part"] == "attention" else "feed-forward step")


def rank_change(rank: int, before: int) -> str:
    return f"it stays at rank {rank:,}" if rank == before else f"rank {before:,} to rank {rank:,}"


def without(r: dict, whole: dict, target: str, first: str = "Without") -> str:
    """One run in words: "Without layer 10's feed-forward step, _France falls from 28.81% to 3.02% (rank 1 to
    rank 7)"."""
    move = change(r["p"], whole["p"])
    verb = {-1: "falls from", 1: "rises from", 0: "stays at"}[move]
    numbers = (f"{percent(whole['p'])} to {percent(r['p'])}" if move else percent(r["p"]))
    return f"{first} {part_name(r)}, {target} {verb} {numbers} ({rank_change(r['rank'], whole['rank'])})"


def verdict(o: Outcome) -> str:
    """Which removal costs the target most, and how much; or that none lowers it."""
    whole, worst, target, n = o.whole, o.costliest, o.target, len(o.runs)
    if change(worst["p"], whole["p"]) < 0:
        return f"{without(worst, whole, target)}: of the {n} parts taken out one at a time, that costs it the most."
    return (f"No part taken out alone lowers {target} ({percent(whole['p'])} with every part in place): the lowest, "
            f"without {part_name(worst)}, is {percent(worst['p'])}.")


def raise_reveal(o: Outcome) -> dict:
    """The "guess first" question: does taking a part out ever raise the target's probability? From the data."""
    whole, best, target = o.whole, o.most_raised, o.target
    raised = [r for r in o.runs if change(r["p"], whole["p"]) > 0]
    question = f"Guess first: can taking a part out raise {target}'s chance? Which part, if any?"
    if raised:
        answer = (f"Yes: {len(raised)} of the {len(o.runs)} parts work against {target} here. The most: "
                  f"{without(best, whole, target, 'without')}.")
    else:
        answer = (f"No: each of the {len(o.runs)} parts, taken out alone, lowers it or leaves it as it is. "
                  f"The smallest loss: {without(best, whole, target, 'without')}.")
    return {"question": question, "answer": answer, "link": f"#part={part_key(best)}",
            "link_text": f"Show {part_label(best)} in the chart"}


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
        said = (f"Of layer {layer + 1}'s {len(heads)} heads, head {worst['head'] + 1} costs {target} the most: "
                f"{without(worst, whole, target, 'without')}")
    return f"{said}; without all of the layer's attention it has {percent(attention['p'])}."


# ---------------------------------------------------------------------------------------------- the kind


class Knockout(PartKind):
    KIND = "knockout"
    TITLE = "Take one part out and watch the answer"
    CAPTION = ("The model's guess for the next token is built by many parts, layer after layer. Here we take one part "
               "out at a time (its output is set to zero, as if it were not there), run the model again, and see how "
               "likely the tracked token still is.")
    GUIDE = ("Each bar is one run of the model with one part taken out; the dashed line is the model with every part "
             "in place. Bars below the line: that part helped the token. Switch between chance and rank (1 = the "
             "most likely token), choose a part to highlight it, and hover a bar for its exact numbers. Click or tap "
             "a bar to highlight its part and have its run said in words below the chart; the \"Highlight\" menu "
             "does the same from the keyboard.")
    FIELDS = {
        "text": fields.TEXT_FIELD,
        "target": fields.TARGET_FIELD,
        "position": fields.POSITION_FIELD,
        "heads_of": Field("int", "a layer, numbered from 1: each of its heads is also taken out alone"),
    }
    EXPLORE = True
    RUN_KEYS = ("text", "target", "position", "heads_of")
    PART = "knockouts"

    def strings(self, fig) -> list:
        return [fig["text"], fig["target"]]

    def check(self, fig, tokens, model: dict) -> dict:
        """The read token ("opening") and the layer whose heads are taken out ("heads_of"), 0-based."""
        _, _, read = fields.check_read_target(fig, tokens, model)
        resolved = {"opening": read}
        if "heads_of" in fig.values:
            fields.check_layer(fig, "heads_of", fig["heads_of"], model["n_layer"])
            resolved["heads_of"] = fig["heads_of"] - 1
        return resolved

    def ask(self, fig) -> list:
        """The read position, the target, and the layer whose heads are taken out too, or None (0-based)."""
        return [fig["text"], fig.opening, fig["target"], fig.resolved.get("heads_of")]

    def outcome(self, fig, run) -> Outcome:
        """The figure's knockouts: the target as shown, the intact model, and each run with one part taken out."""
        found = self.entry(fig, run)
        return Outcome(shown(found["target"]["text"]), intact(fig, run, found), found["runs"])

    def text_figure(self, fig, run) -> str:
        """The text, the read token, then one line for the intact model and one for each part taken out."""
        tokens, o = run.token_texts(fig["text"]), self.outcome(fig, run)
        rows = [("nothing (the intact model)", o.whole)] + [(part_label(r), r) for r in o.runs]
        width = max(len(name) for name, _ in rows) + 2
        lines = [heading(fig, self.TITLE), f"  {quoted(fig['text'], len(tokens))}",
                 f"  the next token after {token_label(tokens, fig.opening)}: {o.target}, "
                 "with one part taken out at a time",
                 f"  {'taken out':<{width}}{'probability':>12}{'rank':>8}"]
        lines += [f"  {name:<{width}}{percent(r['p']):>12}{r['rank']:>8,}" for name, r in rows]
        lines.append(f"  {verdict(o)}")
        return "\n".join(lines) + "\n"

    def context(self, fig, run) -> dict:
        tokens, o = run.token_texts(fig["text"]), self.outcome(fig, run)
        whole, target = o.whole, o.target
        summary = (f"With every part in place, the model gives {target} {percent(whole['p'])} (rank {whole['rank']:,}) "
                   f"as the next token after {token_label(tokens, fig.opening)}. {verdict(o)}")
        lowered = sum(change(r["p"], whole["p"]) < 0 for r in o.runs)
        facts = [f"Taken out alone, {lowered} of the {len(o.runs)} parts lower {target}'s chance and "
                 f"{len(o.runs) - lowered} raise it or leave it as it is."]
        facts += [fact for fact in [heads_fact(o)] if fact]
        return {"summary": summary, "reveals": [raise_reveal(o)], "facts": facts}

    def tables(self, fig, run, spec: dict) -> dict:
        """One row for the intact model, then one per part taken out: layer and head numbered from 1."""
        o = self.outcome(fig, run)
        rows = [{"taken_out": "nothing", "layer": None, "head": None, "probability": o.whole["p"],
                 "rank": o.whole["rank"]}]
        rows += [{"taken_out": r["part"], "layer": r["layer"] + 1, "head": None if r["head"] is None else r["head"] + 1,
                  "probability": r["p"], "rank": r["rank"]} for r in o.runs]
        return {"knockouts": rows}

    def chart(self, fig, run) -> alt.TopLevelMixin:
        """A panel of bars per kind of part (attention, feed-forward, heads of one layer), the intact model as a
        dashed line; a radio for probability or rank, a select that highlights one part."""
        o = self.outcome(fig, run)
        whole, target = o.whole, o.target
        scale, axis = y_scale_and_axis([r["p"] for r in o.runs] + [whole["p"]],
                                       max([r["rank"] for r in o.runs] + [whole["rank"]]))
        groups = [("attention", "Each layer's attention taken out", "layer"),
                  ("feed-forward", "Each layer's feed-forward step taken out", "layer")]
        if fig.resolved.get("heads_of") is not None:
            layer = fig.resolved["heads_of"] + 1
            groups.append(("head", f"Each head of layer {layer} taken out alone", f"head of layer {layer}"))
        panels = [panel(group, title, x_title, whole, target, scale, axis) for group, title, x_title in groups]
        after = token_label(run.token_texts(fig["text"]), fig.opening)
        title = alt.Title(charts.wrapped(
            f"(show == 'rank' ? 'Rank of {escaped(target)} (1 = most likely)' : 'Probability of {escaped(target)}') + "
            f"' as the next token after {escaped(after)}, one part taken out at a time\\n' + "
            f"'The dashed line: the model with every part in place (' + (show == 'rank' ? "
            f"'rank {whole['rank']:,}' : '{percent(whole['p'])}') + ')'"), offset=12)
        summary = self.context(fig, run)["summary"]
        return charts.with_clicks(charts.with_data(charts.with_params(charts.fits_column(alt.vconcat(
            *panels, spacing=20)), *params(o, summary)).properties(title=title), runs=chart_rows(o)), "part")


# ---------------------------------------------------------------------------------------------- chart


def chart_rows(o: Outcome) -> list:
    """One row per run, as the bars draw it: group, the bar's place (layer or head, from 1), the numbers."""
    whole = o.whole
    rows = []
    for r in o.runs:
        d = r["p"] - whole["p"]
        moved = "none" if change(r["p"], whole["p"]) == 0 else ("+" if d > 0 else "-") + percent(abs(d))
        place = (r["head"] if r["part"] == "head" else r["layer"]) + 1
        rows.append({"key": part_key(r), "group": r["part"], "x": place, "name": part_label(r),
                     "p": float(f"{r['p']:.4g}"), "rank": r["rank"], "change": moved})
    return rows


def nice_step(top: float) -> float:
    """A step of 1, 2, 2.5 or 5 times a power of ten that cuts 0..top into at most 5 steps."""
    power = 10.0 ** math.floor(math.log10(top))
    return next(m * power for m in (0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10) if top / (m * power) <= 5)


def y_scale_and_axis(probabilities: list, worst_rank: int):
    """The bars' scale and axis, each switched by `show`: probability 0..a round top, or the rank on a log scale,
    rank 1 at the top and a whole power of ten below the lowest rank at the bottom."""
    top_p = max(probabilities)
    step = nice_step(top_p) if top_p > 0 else 0.2
    p_ticks = [round(i * step, 12) for i in range(math.ceil(top_p / step - 1e-9) + 1)]
    decimals = max(0, -math.floor(math.log10(step * 100) + 1e-9))
    floor = -math.ceil(math.log10(worst_rank + 1))
    rank_ticks = list(range(floor, 1))
    scale = alt.Scale(domain=alt.ExprRef(expr=f"show == 'rank' ? [{floor}, 0] : [0, {p_ticks[-1]}]"), nice=False,
                      zero=False)
    axis = alt.Axis(values=alt.ExprRef(expr=f"show == 'rank' ? {rank_ticks} : {p_ticks}"), title=None,
                    tickCount=max(len(rank_ticks), len(p_ticks)),
                    labelExpr=(f"show == 'rank' ? format(pow(10, -datum.value), ',') "
                               f": format(datum.value, '.{decimals}%')"))
    return scale, axis


def panel(group: str, title: str, x_title: str, whole: dict, target: str, scale, axis):
    """One kind of part: a bar per layer (or head) from the axis's floor up to the run's value, the intact model
    as a dashed line across."""
    floor = f"({scale.domain.expr})[0]"
    base = alt.Chart(alt.NamedData("runs")).transform_filter(f"datum.group == '{group}'").transform_calculate(
        v=VALUE, v0=floor)
    # A click on a bar names its part in words and highlights it (the "Highlight" select: by keyboard).
    bars = charts.clickable(base, part="datum.key").mark_bar(cursor="pointer").encode(
        x=alt.X("x:O", title=x_title, axis=alt.Axis(labelAngle=0)),
        y=alt.Y("v:Q", scale=scale, axis=axis), y2=alt.Y2("v0:Q"),
        color=alt.condition("datum.key == part", alt.value(ACCENT), alt.value(MAIN)),
        tooltip=[alt.Tooltip("name:N", title="taken out"),
                 alt.Tooltip("p:Q", title=f"chance of {target}", format=".4p"),
                 alt.Tooltip("rank:Q", title="rank (1 = most likely)", format=","),
                 alt.Tooltip("change:N", title="against the intact model")],
    )
    intact_value = f"show == 'rank' ? -log({whole['rank']}) / LN10 : {whole['p']}"
    rule = alt.Chart(alt.Data(values=[{}])).transform_calculate(v=intact_value).mark_rule(
        color=GREY, strokeDash=[4, 3], strokeWidth=1.5).encode(y=alt.Y("v:Q", scale=scale))
    return alt.layer(bars, rule).properties(width="container", height=PANEL_HEIGHT,
                                            title=alt.Title(charts.wrapped(charts.literal(title))))


def params(o: Outcome, summary: str) -> list:
    """`show` (probability or rank), `part` (the highlighted run, or none), and the words for each part: with none
    highlighted, the figure's `summary`."""
    whole, target, every = o.whole, o.target, o.runs
    show = alt.param(name="show", value="probability", bind=alt.binding_radio(
        options=["probability", "rank"], labels=["chance", "rank (1 = most likely)"], name="Show "))
    part = alt.param(name="part", value=NONE, bind=alt.binding_select(
        options=[NONE] + [part_key(r) for r in every], labels=["none"] + [part_label(r) for r in every],
        name="Highlight "))
    words = {NONE: summary}
    words.update({part_key(r): without(r, whole, target) + "." for r in every})
    said = alt.param(name="descriptions", value=words)
    description = alt.param(name=DESCRIPTION, expr="descriptions[part]")
    return [show, part, said, description]
