"""The knockout figure's chart with no text in it (figures.knockout.Knockout.textless_chart: the reader's sentence's):
the book's panels (figures.knockout_chart.panel), a bar per part taken out, for whatever numbers the page puts in.

It reads the page's `runs` (figsite.data.live_data.RUNS: a row per part, which this chart lists for the model's size
and the page fills in with each run's chance and rank: templates/js/live/knockout.js), the params `intact_p` and
`intact_rank` (the model with every part in place), `follow_name` (the followed token as the pages write it) and
`names` (the text's tokens: the figure reads the last). What the book's chart works out in Python from its data, this
one works out in Vega from the page's: the axes' ends and ticks (figures.knockout_chart's rules), the words of each
bar and of the chart's description (figures.knockout's).
"""

from __future__ import annotations

import textwrap
from typing import TypedDict, cast

from figsite.data.shared_names import DESCRIPTION, KEY_WORDS
from figures.knockout_chart import MULTIPLES, choice_params, on_rank_axis, panel
from figures.toolkit import charts, textless
from figures.toolkit.charts import alt
from figures.toolkit.colours import HELPS_NAME, HURTS_NAME
from figures.toolkit.words import percent_expr

FOLLOWED = textless.FOLLOW_NAME  # the followed token's param, as the pages write it
ROWS = "data('runs')"
PLACES = range(7)  # the rank axis's ticks: 10 ** k places moved either side, k in PLACES
SUBTITLE = (
    "Each bar: how the chance of the watched token, as the next token after your text's last, changes without that "
    "part. Below the line: it got less likely. The line: every part in place."
)


class PartRow(TypedDict):
    """A row of `runs` (live_data.RUNS) as the chart lists it; the page puts its numbers in."""

    key: str  # figures.knockout.part_key
    group: str  # "attention", "feed-forward" or "head"
    x: int  # its layer or head, from 1
    layer: int  # from 1
    name: str  # figures.knockout.part_label
    part_name: str  # figures.knockout.part_name
    p: float
    rank: int
    dp: float
    dr: int


def parts(n_layer: int, n_head: int, heads_of: int | None) -> list[PartRow]:
    """The rows of `runs` before the page's numbers (p 0, rank 1): each layer's attention, each layer's feed-forward
    step, then each head of layer `heads_of` (from 1; None: none), named as figures.knockout names them."""
    listed: list[tuple[str, int, int | None]] = [("attention", layer, None) for layer in range(1, n_layer + 1)]
    listed += [("feed-forward", layer, None) for layer in range(1, n_layer + 1)]
    listed += [("head", heads_of, head) for head in range(1, n_head + 1)] if heads_of else []
    rows: list[PartRow] = []
    for group, layer, head in listed:
        step = "attention" if group == "attention" else "feed-forward step"
        key, name, said = (
            (f"{group}-{layer}", f"layer {layer}, {step}", f"layer {layer}'s {step}")
            if head is None
            else (f"head-{layer}-{head}", f"layer {layer}, head {head}", f"head {head} of layer {layer}")
        )
        x = layer if head is None else head
        rows.append(
            {
                "key": key,
                "group": group,
                "x": x,
                "layer": layer,
                "name": name,
                "part_name": said,
                "p": 0.0,
                "rank": 1,
                "dp": 0.0,
                "dr": 0,
            }
        )
    return rows


def _chance_axis() -> list[alt.Parameter]:
    """`p_ticks`, round steps of chance from below the lowest change to above the highest, 0 among them
    (knockout_chart.chance_ticks), and `p_decimals`, the decimals its labels need."""
    span = "(dp_high - dp_low)"
    power = f"pow(10, floor(log({span}) / LN10))"
    step = "1e-4"
    for m in reversed(MULTIPLES):
        step = f"({span} / ({m} * {power}) <= 5 ? {m} * {power} : {step})"
    return [
        alt.param(name="dp_low", expr=f"min(0, extent(pluck({ROWS}, 'dp'))[0])"),
        alt.param(name="dp_high", expr=f"max(0, extent(pluck({ROWS}, 'dp'))[1])"),
        alt.param(name="p_step", expr=f"dp_high > dp_low ? {step} : 1e-4"),
        alt.param(
            name="p_ticks",
            expr="sequence(floor(dp_low / p_step + 1e-9) * p_step, "
            "ceil(dp_high / p_step - 1e-9) * p_step + p_step / 2, p_step)",
        ),
        alt.param(name="p_decimals", expr="max(0, 1 - floor(log(p_step * 100) / LN10 + 1e-9))"),
    ]


def _rank_axis() -> list[alt.Parameter]:
    """`r_low` and `r_high`, the rank axis's ends, at the first power of ten past the farthest move either side
    (-1 and 1 where nothing moves), and `r_ticks`: 0 and 10 ** k places either side, which the scale shows within
    its ends; a tick at 1 only on a side that moves less than 10 (knockout_chart.place_ticks)."""
    up, down = f"max(0, extent(pluck({ROWS}, 'dr'))[1])", f"max(0, -extent(pluck({ROWS}, 'dr'))[0])"

    def end(reach: str) -> str:
        return f"log(1 + pow(10, ceil(log({reach}) / LN10 - 1e-9))) / LN10"

    one = on_rank_axis(1)
    ticks = [f"(dr_up >= 10 ? 0 : {one})", f"(dr_down >= 10 ? 0 : {-one})"]
    ticks += [f"{side * on_rank_axis(10**k)}" for k in PLACES[1:] for side in (1, -1)]
    return [
        alt.param(name="dr_up", expr=up),
        alt.param(name="dr_down", expr=down),
        alt.param(name="r_high", expr=f"dr_up > 0 ? {end('dr_up')} : (dr_down > 0 ? 0 : {one})"),
        alt.param(name="r_low", expr=f"dr_down > 0 ? -{end('dr_down')} : (dr_up > 0 ? 0 : {-one})"),
        alt.param(name="r_ticks", expr=f"[0, {', '.join(ticks)}]"),
    ]


def scale_and_axis() -> tuple[alt.Scale, alt.Axis]:
    """The bars' scale and axis, switched by `show` as the book's (knockout_chart.y_scale_and_axis), their ends and
    ticks from the params of _chance_axis and _rank_axis."""
    scale = alt.Scale(
        domain=alt.ExprRef(expr="show == 'rank' ? [r_low, r_high] : [p_ticks[0], peek(p_ticks)]"),
        nice=False,
        zero=False,
    )
    places = "(datum.value > 0 ? '+' : '-') + format(round(pow(10, abs(datum.value)) - 1), ',')"
    chance = "format(datum.value, '+.' + p_decimals + '~%')"
    axis = alt.Axis(
        values=alt.ExprRef(expr="show == 'rank' ? r_ticks : p_ticks"),
        # As many as the rank axis lists (Vega thins out ticks past tickCount); the scale shows those within its ends.
        tickCount=1 + 2 * len(PLACES),
        title=None,
        labelExpr=f"datum.value == 0 ? '0' : show == 'rank' ? {places} : {chance}",
    )
    return scale, axis


def _without(row: str, first: str) -> str:
    """figures.knockout.without as a Vega expression of a row of `runs`: "Without layer 10's feed-forward step,
    _France falls from 28.81% to 3.02% (rank 1 to rank 7)"."""
    p, before = f"{row}.p", "intact_p"
    moves = (
        f"({p} < {before} ? 'falls from ' + {percent_expr(before)} + ' to ' + {percent_expr(p)} : "
        f"{p} > {before} ? 'rises from ' + {percent_expr(before)} + ' to ' + {percent_expr(p)} : "
        f"'stays at ' + {percent_expr(p)})"
    )
    rank = (
        f"({row}.rank == intact_rank ? 'it stays at rank ' + format({row}.rank, ',') : "
        f"'rank ' + format(intact_rank, ',') + ' to rank ' + format({row}.rank, ','))"
    )
    return f"'{first} ' + {row}.part_name + ', ' + {FOLLOWED} + ' ' + {moves} + ' (' + {rank} + ')'"


def _words(n_parts: int) -> list[alt.Parameter]:
    """The description: with no part highlighted, the intact model and the costliest removal (knockout.verdict);
    else the highlighted part's run in words. The key's words, naming the followed token."""
    verdict = (
        f"worst.p < intact_p ? {_without('worst', 'Without')} + ': of the {n_parts} parts taken out one at a time, "
        f"that costs it the most.' : 'No part taken out alone lowers ' + {FOLLOWED} + ' (' + "
        f"{percent_expr('intact_p')} + ' with every part in place): the lowest, without ' + worst.part_name + "
        f"', is ' + {percent_expr('worst.p')} + '.'"
    )
    summary = (
        f"'With every part in place, the model gives ' + {FOLLOWED} + ' ' + {percent_expr('intact_p')} + ' (rank ' + "
        f"format(intact_rank, ',') + ') as the next token after ' + peek(names) + '. ' + ({verdict})"
    )
    key = (
        f"'Each bar is the model run without one part. {HELPS_NAME.capitalize()}: without it ' + {FOLLOWED} + ' got "
        f"less likely, so the part helps; {HURTS_NAME}: it got more likely.'"
    )
    return [
        alt.param(name="intact_p", value=0),
        alt.param(name="intact_rank", value=1),
        alt.param(name="worst", expr=f"{ROWS}[indexof(pluck({ROWS}, 'p'), extent(pluck({ROWS}, 'p'))[0])]"),
        alt.param(name="chosen_run", expr=f"{ROWS}[indexof(pluck({ROWS}, 'key'), part)]"),
        alt.param(name=DESCRIPTION, expr=f"part == 'none' ? {summary} : {_without('chosen_run', 'Without')} + '.'"),
        alt.param(name=KEY_WORDS, expr=key),
    ]


# Each bar's words, as figures.knockout.chart_rows writes them: its change against the intact model, and its run.
BAR_WORDS = {
    "change": f"datum.dp == 0 ? 'none' : (datum.dp > 0 ? '+' : '-') + {percent_expr('abs(datum.dp)')}",
    "said": f"'without ' + datum.part_name + ': ' + {FOLLOWED} + ' ' + {percent_expr('datum.p')} + ', change ' + "
    "datum.change + ', rank ' + format(datum.rank, ',')",
}


def textless_chart(n_layer: int, n_head: int, heads_of: int | None, narrow: bool = False) -> alt.VConcatChart:
    """The book's panels with no text in them: each layer's attention, each layer's feed-forward step and (where
    `heads_of`, from 1) each head of that layer taken out; the `show` switch and the `part` select; narrow, each bar's
    column charts.TAP px wide and the subtitle in a phone's lines."""
    rows = parts(n_layer, n_head, heads_of)
    scale, axis = scale_and_axis()
    groups = [
        ("attention", "Each layer's attention taken out", "layer"),
        ("feed-forward", "Each layer's feed-forward step taken out", "layer"),
    ]
    if heads_of:
        groups.append(("head", f"Each head of layer {heads_of} taken out alone", f"head of layer {heads_of}"))
    bar = charts.TAP if narrow else 0
    panels = [panel(g, title, x, "the token", scale, axis, bar, BAR_WORDS) for g, title, x in groups]
    title = alt.Title(
        charts.wrapped(
            f"(show == 'rank' ? 'Places ' + {FOLLOWED} + ' moves' : 'How ' + {FOLLOWED} + '\\'s chance changes') + "
            "' without each part'"
        ),
        subtitle=textwrap.wrap(SUBTITLE, 44 if narrow else 88),
        subtitleFontSize=12,
        subtitleFontWeight="normal",
        subtitlePadding=4,
        offset=12,
    )
    stack = alt.vconcat(*panels, spacing=20)
    params = [
        *choice_params([r["key"] for r in rows], [r["name"] for r in rows]),
        *textless.texts(),
        *_chance_axis(),
        *_rank_axis(),
        *_words(len(rows)),
    ]
    chart = charts.with_params(stack if bar else charts.fits_column(stack), *params).properties(title=title)
    return charts.with_clicks(charts.with_data(cast("alt.VConcatChart", chart), runs=rows), "part")
