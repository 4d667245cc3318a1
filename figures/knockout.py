"""Take one part out and watch the answer: the target token's probability and rank at one position when each
layer's attention, each layer's feed-forward step and, where the figure asks, each head of one layer is taken
out in turn (its output set to zero at every position), beside the intact model's.

Reads data/parts.json: the "knockouts" entry that answers the figure's ask (figsite/capture_parts.knockouts):
`target` {id, text}, `intact` {p, rank} and `runs` [{part, layer, head, p, rank}], layers and heads 0-based,
rank 1 = most likely. Reads the text's data file for its tokens, and, where a read-out figure tracks the same
target in the same text, the probability it shows after the last layer (`target.p[-1][position]`), so that
both figures give the intact model the very same number.
"""

from __future__ import annotations

import math

from figsite.data import paths
from figsite.config import Field
from figsite.data.shared_names import DESCRIPTION
from figures import common
from figures.common import ACCENT, MAIN, alt, shown, token_label
from figures.kind import Kind

PANEL_HEIGHT = 130
NONE = "none"  # the `part` param's value when no bar is highlighted
RULE = "#888"
SAME = 5e-9  # probabilities are kept to 8 decimals: closer than this counts as unchanged

# What a bar's height is, in each mode: the probability, or minus the rank's logarithm (rank 1 at the top).
VALUE = "show == 'rank' ? -log(datum.rank) / LN10 : datum.p"


# ---------------------------------------------------------------------------------------------- data


def ask(fig) -> list:
    """What the figure asks of the run (figures.kind.Kind.extras), 0-based: [text, position, target, layer or None]."""
    return [fig["text"], fig.opening, fig["target"], fig.resolved.get("heads_of")]


def entry(fig, run) -> dict:
    return run.part("knockouts", ask(fig))


def intact(fig, run) -> dict:
    """The intact model's {p, rank} at the read position; p as the text's data give it where they track the same
    target (a read-out figure of the text then shows the same number), else as the knockouts' intact run."""
    got = entry(fig, run)
    tracked = run.data(fig["text"]).get("target")
    if tracked and tracked["id"] == got["target"]["id"]:
        return {"p": tracked["p"][-1][fig.opening], "rank": got["intact"]["rank"]}
    return {"p": got["intact"]["p"], "rank": got["intact"]["rank"]}


def runs(fig, run) -> list:
    """Every run as the data give it: each layer's attention, each layer's feed-forward step, then the heads."""
    return entry(fig, run)["runs"]


def costliest(fig, run) -> dict:
    """The run with the lowest probability (the first of equals, in the data's order)."""
    return min(runs(fig, run), key=lambda r: r["p"])


def most_raised(fig, run) -> dict:
    """The run with the highest probability (the first of equals)."""
    return max(runs(fig, run), key=lambda r: r["p"])


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


def verdict(fig, run) -> str:
    """Which removal costs the target most, and how much; or that none lowers it."""
    whole, worst, n = intact(fig, run), costliest(fig, run), len(runs(fig, run))
    target = shown(entry(fig, run)["target"]["text"])
    if change(worst["p"], whole["p"]) < 0:
        return f"{without(worst, whole, target)}: of the {n} parts taken out one at a time, that costs it the most."
    return (f"No part taken out alone lowers {target} ({percent(whole['p'])} with every part in place): the lowest, "
            f"without {part_name(worst)}, is {percent(worst['p'])}.")


def raise_reveal(fig, run) -> dict:
    """The "guess first" question: does taking a part out ever raise the target's probability? From the data."""
    whole, best = intact(fig, run), most_raised(fig, run)
    target = shown(entry(fig, run)["target"]["text"])
    raised = [r for r in runs(fig, run) if change(r["p"], whole["p"]) > 0]
    question = f"Guess first: can taking a part out raise {target}'s probability? Which part, if any?"
    if raised:
        answer = (f"Yes: {len(raised)} of the {len(runs(fig, run))} parts work against {target} here. The most: "
                  f"{without(best, whole, target, 'without')}.")
    else:
        answer = (f"No: each of the {len(runs(fig, run))} parts, taken out alone, lowers it or leaves it as it is. "
                  f"The smallest loss: {without(best, whole, target, 'without')}.")
    return {"question": question, "answer": answer, "link": f"#part={part_key(best)}",
            "link_text": f"Show {part_label(best)} in the chart"}


def heads_fact(fig, run) -> str | None:
    """Where the figure takes out the heads of one layer: the head that costs most, against the whole attention."""
    heads = [r for r in runs(fig, run) if r["part"] == "head"]
    if not heads:
        return None
    whole, target = intact(fig, run), shown(entry(fig, run)["target"]["text"])
    layer = heads[0]["layer"]
    attention = next(r for r in runs(fig, run) if r["part"] == "attention" and r["layer"] == layer)
    worst = min(heads, key=lambda r: r["p"])
    if change(worst["p"], whole["p"]) >= 0:
        said = f"No single head of layer {layer + 1}, taken out alone, lowers {target}"
    else:
        said = (f"Of layer {layer + 1}'s {len(heads)} heads, head {worst['head'] + 1} costs {target} the most: "
                f"{without(worst, whole, target, 'without')}")
    return f"{said}; without all of the layer's attention it has {percent(attention['p'])}."


# ---------------------------------------------------------------------------------------------- the kind


class Knockout(Kind):
    KIND = "knockout"
    TITLE = "Take one part out and watch the answer"
    CAPTION = ("The model's guess for the next token is built by many parts, layer after layer. Here we take one part "
               "out at a time (its output is set to zero, as if it were not there), run the model again, and see how "
               "likely the tracked token still is.")
    GUIDE = ("Each bar is one run of the model with one part taken out; the dashed line is the model with every part "
             "in place. Bars below the line: that part helped the token. Switch between probability and rank (1 = the "
             "most likely token), choose a part to highlight it, and hover a bar for its exact numbers.")
    FIELDS = {
        "text": common.TEXT_FIELD,
        "target": Field("text", "one token whose probability is read, e.g. ' France'", required=True),
        "position": Field("position_or_text", "the token whose next-token guess is read: its number or its text; "
                                              "default the last"),
        "heads_of": Field("int", "a layer, numbered from 1: each of its heads is also taken out alone"),
    }
    EXPLORE = True
    RUN_KEYS = ("text", "target", "position", "heads_of")
    DATA_FILES = (paths.PARTS,)

    def strings(self, fig) -> list:
        return [fig["text"], fig["target"]]

    def check(self, fig, tokens, model: dict) -> dict:
        """The read token ("opening") and the layer whose heads are taken out ("heads_of"), 0-based."""
        _, _, read = common.check_read_target(fig, tokens, model)
        resolved = {"opening": read}
        if "heads_of" in fig.values:
            common.check_layer(fig, "heads_of", fig["heads_of"], model["n_layer"])
            resolved["heads_of"] = fig["heads_of"] - 1
        return resolved

    def extras(self, fig) -> dict:
        return {"knockouts": [ask(fig)]}

    def text_figure(self, fig, run) -> str:
        """The text, the read token, then one line for the intact model and one for each part taken out."""
        data = run.data(fig["text"])
        tokens = [t["text"] for t in data["tokens"]]
        whole, target = intact(fig, run), shown(entry(fig, run)["target"]["text"])
        rows = [("nothing (the intact model)", whole)] + [(part_label(r), r) for r in runs(fig, run)]
        width = max(len(name) for name, _ in rows) + 2
        lines = [common.heading(fig, self.TITLE), f"  {common.quoted(data['text'], len(tokens))}",
                 f"  the next token after {token_label(tokens, fig.opening)}: {target}, "
                 "with one part taken out at a time",
                 f"  {'taken out':<{width}}{'probability':>12}{'rank':>8}"]
        lines += [f"  {name:<{width}}{percent(r['p']):>12}{r['rank']:>8,}" for name, r in rows]
        lines.append(f"  {verdict(fig, run)}")
        return "\n".join(lines) + "\n"

    def context(self, fig, run) -> dict:
        data = run.data(fig["text"])
        tokens = [t["text"] for t in data["tokens"]]
        whole, target = intact(fig, run), shown(entry(fig, run)["target"]["text"])
        summary = (f"With every part in place, the model gives {target} {percent(whole['p'])} (rank {whole['rank']:,}) "
                   f"as the next token after {token_label(tokens, fig.opening)}. {verdict(fig, run)}")
        every = runs(fig, run)
        lowered = sum(change(r["p"], whole["p"]) < 0 for r in every)
        facts = [f"Taken out alone, {lowered} of the {len(every)} parts lower {target}'s probability and "
                 f"{len(every) - lowered} raise it or leave it as it is."]
        facts += [fact for fact in [heads_fact(fig, run)] if fact]
        return {"summary": summary, "reveals": [raise_reveal(fig, run)], "facts": facts}

    def tables(self, fig, run, spec: dict) -> dict:
        """One row for the intact model, then one per part taken out: layer and head numbered from 1."""
        whole = intact(fig, run)
        rows = [{"taken_out": "nothing", "layer": None, "head": None, "probability": whole["p"], "rank": whole["rank"]}]
        rows += [{"taken_out": r["part"], "layer": r["layer"] + 1, "head": None if r["head"] is None else r["head"] + 1,
                  "probability": r["p"], "rank": r["rank"]} for r in runs(fig, run)]
        return {"knockouts": rows}

    def chart(self, fig, run) -> alt.TopLevelMixin:
        """A panel of bars per kind of part (attention, feed-forward, heads of one layer), the intact model as a
        dashed line; a radio for probability or rank, a select that highlights one part."""
        whole, target = intact(fig, run), shown(entry(fig, run)["target"]["text"])
        every = runs(fig, run)
        scale, axis = y_scale_and_axis([r["p"] for r in every] + [whole["p"]],
                                       max([r["rank"] for r in every] + [whole["rank"]]))
        groups = [("attention", "Each layer's attention taken out", "layer"),
                  ("feed-forward", "Each layer's feed-forward step taken out", "layer")]
        if fig.resolved.get("heads_of") is not None:
            layer = fig.resolved["heads_of"] + 1
            groups.append(("head", f"Each head of layer {layer} taken out alone", f"head of layer {layer}"))
        panels = [panel(group, title, x_title, whole, target, scale, axis) for group, title, x_title in groups]
        tokens = [t["text"] for t in run.data(fig["text"])["tokens"]]
        after = token_label(tokens, fig.opening)
        title = alt.Title(common.wrapped(
            f"(show == 'rank' ? 'Rank of {js(target)} (1 = most likely)' : 'Probability of {js(target)}') + "
            f"' as the next token after {js(after)}, one part taken out at a time\\n' + "
            f"'The dashed line: the model with every part in place (' + (show == 'rank' ? "
            f"'rank {whole['rank']:,}' : '{percent(whole['p'])}') + ')'"), offset=12)
        return common.with_data(common.with_params(common.fits_column(alt.vconcat(*panels, spacing=20)),
                                                   *params(fig, run)).properties(title=title),
                                runs=chart_rows(fig, run))


# ---------------------------------------------------------------------------------------------- chart


def js(text: str) -> str:
    """A text inside a single-quoted Vega expression string."""
    return text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n")


def chart_rows(fig, run) -> list:
    """One row per run, as the bars draw it: group, the bar's place (layer or head, from 1), the numbers."""
    whole = intact(fig, run)
    rows = []
    for r in runs(fig, run):
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
    bars = base.mark_bar().encode(
        x=alt.X("x:O", title=x_title, axis=alt.Axis(labelAngle=0)),
        y=alt.Y("v:Q", scale=scale, axis=axis), y2=alt.Y2("v0:Q"),
        color=alt.condition("datum.key == part", alt.value(ACCENT), alt.value(MAIN)),
        tooltip=[alt.Tooltip("name:N", title="taken out"),
                 alt.Tooltip("p:Q", title=f"probability of {target}", format=".4p"),
                 alt.Tooltip("rank:Q", title="rank (1 = most likely)", format=","),
                 alt.Tooltip("change:N", title="against the intact model")],
    )
    intact_value = f"show == 'rank' ? -log({whole['rank']}) / LN10 : {whole['p']}"
    rule = alt.Chart(alt.Data(values=[{}])).transform_calculate(v=intact_value).mark_rule(
        color=RULE, strokeDash=[4, 3], strokeWidth=1.5).encode(y=alt.Y("v:Q", scale=scale))
    return alt.layer(bars, rule).properties(width="container", height=PANEL_HEIGHT,
                                            title=alt.Title(common.wrapped(common.literal(title))))


def params(fig, run) -> list:
    """`show` (probability or rank), `part` (the highlighted run, or none), and the words for each part."""
    whole, target = intact(fig, run), shown(entry(fig, run)["target"]["text"])
    every = runs(fig, run)
    show = alt.param(name="show", value="probability", bind=alt.binding_radio(
        options=["probability", "rank"], labels=["probability", "rank (1 = most likely)"], name="Show "))
    part = alt.param(name="part", value=NONE, bind=alt.binding_select(
        options=[NONE] + [part_key(r) for r in every], labels=["none"] + [part_label(r) for r in every],
        name="Highlight "))
    words = {NONE: Knockout().context(fig, run)["summary"]}
    words.update({part_key(r): without(r, whole, target) + "." for r in every})
    said = alt.param(name="descriptions", value=words)
    description = alt.param(name=DESCRIPTION, expr="descriptions[part]")
    return [show, part, said, description]
