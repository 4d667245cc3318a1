"""What a kind's chart needs to be drawn with no text in it (the live page, `python build.py --live`): the kind's
chart function gives its chart so, for any text of 1 to live_data.MAX_TOKENS tokens, and the page's script puts
the datasets of figsite.data.live_data and the params named here in before it embeds it. Every size is then a step
or the column's, every domain of positions comes from the data or from `length(names)`.

The params the page's script fills: `names`, the text's tokens as the pages write them ("The", "_animal"),
`follow_name`, the followed token's text so written, and `own_from`, where the tokens the model added begin (their
labels slanted: own_style); the selects `token` ((l), heads) and `position` (lens), here
with options [1] and labels ["1"]: the page sets options 1..n, labels "9: _it", a value among them (the charts
read one past the text as its last).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from figsite.data.format import TOP_K
from figsite.data.live_data import MAX_TOKENS, PLACEHOLDER
from figsite.data.live_data import FOLLOW_NAME as FOLLOW_NAME, empty as empty  # the kinds read these from here too
from figsite.data.run import MIN_SHARE, PER_SHARE
from figsite.data.shared_names import NAMES, OWN_FROM
from figures.toolkit import charts
from figures.toolkit.charts import ChartT, alt

N = f"length({NAMES})"  # the text's length, in Vega
LAST = f"({N} - 1)"
START = "(at * (at + 1) / 2)"  # where the chosen token's row starts in a panel's "u"
LABEL_ROOM = 17  # px a token's label needs beside the next, turned 45 degrees; closer, only every `every`th shows
WIDTH = "(width > 0 ? width : 640)"  # the view's width (in a stack, the column's); 640 px in a drawing made here


def chosen(name: str, value: int | None, words: str, rows: int = 0, follow: bool = False) -> list[alt.Parameter]:
    """`names` (and `follow_name`); the select `name` of the text's tokens (`value` None: the last); `at`, the chosen
    token from 0, within the text; `every`: label every this many tokens, so that labels LABEL_ROOM px apart fit the
    view's width (and, with `rows`, a view that many px tall at 12 px a label)."""
    tall = f", ceil({N} * 12 / {rows})" if rows else ""
    return [
        *texts(follow),
        alt.param(
            name=name,
            value=MAX_TOKENS if value is None else value,
            bind=alt.binding_select(options=[1], labels=["1"], name=words),
        ),
        alt.param(name="at", expr=f"clamp({name}, 1, {N}) - 1"),
        alt.param(name="every", expr=f"max(1, ceil({N} * {LABEL_ROOM} / max(1, {WIDTH} - 70)){tall})"),
    ]


def texts(follow: bool = True) -> list[alt.Parameter]:
    """The params of the text's tokens and (`follow`) of the followed token, holding the placeholder; and OWN_FROM,
    where the model's own tokens begin (more.js: the page went on from the reader's text), at first past any text."""
    return [
        alt.param(name=NAMES, value=[PLACEHOLDER]),
        *([alt.param(name=FOLLOW_NAME, value=PLACEHOLDER)] if follow else []),
        alt.param(name=OWN_FROM, value=MAX_TOKENS),
    ]


def own_style() -> alt.ExprRef:
    """A token axis's labels (its values the tokens' places, from 0): the model's own tokens slanted, as the page's row
    of tokens slants them."""
    return alt.ExprRef(expr=f"datum.value >= {OWN_FROM} ? 'italic' : 'normal'")


def ranked(panel: str, count: int) -> tuple[list[alt.Parameter], str]:
    """Params: `row`, the chosen token's shares (units) in the panel at place `panel` of the data, and its `count`
    largest and their keys (ties: the first key first); and the words naming those of 0.5% or more: "_animal 85%"."""
    params = [
        alt.param(name="row", expr=f"slice(data('panels')[{panel}].u, {START}, {START} + at + 1)"),
        alt.param(name="ranked", expr="reverse(sort(row))"),
    ]
    words = []
    for i in range(count):
        value, key, before = f"ranked[{i}]", f"ranked_{i}", f"ranked_{i - 1}"
        tie = f"{value} == ranked[{i - 1}] ? {before} + 1 + indexof(slice(row, {before} + 1), {value}) : " if i else ""
        params.append(alt.param(name=key, expr=f"{tie}indexof(row, {value})"))
        words.append(
            f"({value} >= {MIN_SHARE * PER_SHARE:g} ? '{', ' if i else ''}' + names[{key}] + ' ' + "
            f"floor({value} / 100 + 0.5) + '%' : '')"
        )
    return params, " + ".join(words)


def panel_keys(panel: str) -> alt.Chart:
    """One datum per token of the text, from the panel `panel` chooses: k, its name t, and s, the share the chosen
    token gives it (0 after it: out of reach)."""
    keys = alt.Chart(alt.NamedData("panels")).transform_filter(panel).transform_calculate(k=f"sequence(0, {N})")
    return cast(
        "alt.Chart",
        keys.transform_flatten(["k"]).transform_calculate(
            s=f"datum.k <= at ? datum.u[{START} + datum.k] / {PER_SHARE} : 0", t="names[datum.k]"
        ),
    )


def every_token() -> alt.Chart:
    """One datum per token of the text: k, from 0."""
    return cast(
        "alt.Chart",
        alt.Chart(alt.Data(values=[{}]))  # type: ignore[no-untyped-call]  # untyped alt.Data
        .transform_calculate(k=f"sequence(0, {N})")
        .transform_flatten(["k"]),
    )


def every_label(name: str = NAMES) -> str:
    """An axis's label of a token: its name, every `every`th one, so that labels never run together."""
    return f"datum.value % every == 0 ? {name}[datum.value] : ''"


def row_at(dataset: str, stage: str, q: str, rank: int = 0) -> str:
    """A row of `follow`, or of `top` at `rank`, by its place in the data (figsite.data.live_data): Vega expressions
    of the stage and the position."""
    place = f"({stage}) * {N} + {q}"
    return f"data('{dataset}')[" + (f"({place}) * {TOP_K} + {rank - 1}" if rank else place) + "]"


def finished(
    chart: ChartT, params: Sequence[alt.Parameter], clicks: Sequence[str], n_layer: int, n_head: int, *datasets: str
) -> ChartT:
    """The chart with its params and its `datasets` (placeholders of a text of one token: live_data.empty) at its
    top, saying which params a click sets."""
    placeholders = empty(n_layer, n_head)
    data = {name: placeholders[name] for name in datasets}
    return charts.with_clicks(charts.with_data(charts.with_params(chart, *params), **data), *clicks)
