"""The live page's figures (`python build.py --live`): (l), every head, (i) and the lens for the reader's own text,
GPT-2 run in the browser. Each is one Vega-Lite spec with no text in it, for any text of 1 to MAX_TOKENS tokens: every
size is a step or the column's, every domain of positions comes from the data or from `length(names)`.

What the page's script puts in before it embeds a spec (layers, heads, positions, stages from 0; readers see them
from 1); rows in the order given, as the words a screen reader hears (`description`) find rows by their place:
- params `names`, the text's tokens as the pages write them ("The", "_animal"), and `follow_name`, the followed
  token's text so written; the selects `token` ((l), heads) and `position` (lens), options [1] and labels ["1"]
  here: the page sets options 1..n, labels "9: _it", a value among them (the charts read one past the text as its last).
- dataset `panels` ((l), heads): {"l", "h", "u"}, a row per head (h < n_head) and per layer's average (h == n_head),
  by l then h, as figures.heads.panel_rows writes them less "t"; then ONE MORE ROW, {"l": n_layer, "h": n_head}: the
  average of all heads, (l)'s view 'all'. "u": the lower triangle of the shares, row after row (query q's shares to
  keys 0..q), in units of 1e-4 (PER_SHARE), integers.
- dataset `top`: {"stage", "q", "rank" (1..TOP_K), "token" (as names), "id", "p"}: the TOP_K most likely next tokens
  at each stage (0: before any layer, s: after layer s) and position, by stage, then q, then rank; dataset
  `follow`: {"stage", "q", "p", "rank" (1 = most likely)}: the followed token at each stage and position, by stage
  then q.
The grid of every head is one rect per head (no picture), coloured by the largest share the chosen token gives a
token other than the first (the first token: itself), that token named in it where it fits (GRID_CAPTION).
"""

from __future__ import annotations

from figsite.data.format import TOP_K
from figsite.data.run import MIN_SHARE, PER_SHARE
from figsite.data.shared_names import DESCRIPTION, NAMES, POSITION, TOKEN, VIEW
from figures.attention import HEIGHT, ROW, SAID, Attention, above_bars
from figures.heads import Heads
from figures.heads_chart import AVERAGE, BARS_HEIGHT, DETAIL_HEIGHT, LOOKED_AT, Grid, chosen_square, detail_chart
from figures.lens import NARROW_WIDTH, Lens, rank_ticks
from figures.readout import OUTSIDE, Readout
from figures.toolkit import charts
from figures.toolkit.charts import alt
from figures.toolkit.colours import CELL_LINE, CHOSEN, DATA, FOLLOWED, ON_DARK, ON_LIGHT, OUT_OF_REACH, REFERENCE
from figures.toolkit.words import after_layer_expr

MAX_TOKENS = 64  # the longest text the page reads
PLACEHOLDER = "…"  # the one token of the build's text, until the page puts the reader's in
GPT2_VOCABULARY = 50_257
N = "length(names)"  # the text's length, in Vega
LAST = f"({N} - 1)"
START = "(at * (at + 1) / 2)"  # where the chosen token's row starts in a panel's "u"
LABEL_ROOM = 17  # px a token's label needs beside the next, turned 45 degrees; closer, only every `every`th shows
WIDTH = "(width > 0 ? width : 640)"  # the view's width (in a stack, the column's); 640 px in a drawing made here
GRID_ROW = 24  # px per layer of the grid: a row a finger can tap (charts.TAP)
NARROW_CELL = 56  # px per position of the lens's table in a phone's chart (it scrolls in its own box)
LISTED = 5  # shares (l)'s words name, largest first
GIVES = "(at > 0 ? ') gives a token other than the first' : ') gives itself')"
GRID_CAPTION = ("Each square is one head (the last column: each layer's average). Its colour shows the largest share "
                "the chosen token gives any token but the first (many heads park their attention there), and the "
                "square names that token where it fits.")
# Captions of (i) and the lens that name what the live page shows, where the built ones name figure labels.
READOUT_CAPTION = "After each layer, what the model would guess as the next token after the text's last token."
LENS_CAPTION = "The same read-out as the chart above, at every token of the text at once, after each layer."
CHANCE = {"domain": [0, 1]}  # the scale of a share or a chance
LEGEND = {"orient": "bottom", "direction": "horizontal", "gradientLength": 160, "format": "%", "values": [0, 0.5, 1]}


def empty_data(n_layer: int, n_head: int) -> dict:
    """Placeholder datasets for a text of one token: every share on it, every chance 0, the followed token ranked 1."""
    panels = [{"l": l, "h": h, "u": [PER_SHARE]} for l in range(n_layer) for h in range(n_head + 1)]
    return {"panels": panels + [{"l": n_layer, "h": n_head, "u": [PER_SHARE]}],
            "top": [{"stage": s, "q": 0, "rank": r, "token": "", "id": -1, "p": 0.0}
                    for s in range(n_layer + 1) for r in range(1, TOP_K + 1)],
            "follow": [{"stage": s, "q": 0, "p": 0.0, "rank": 1} for s in range(n_layer + 1)]}


def _chosen(name: str, value, words: str, rows: int = 0, follow: bool = False) -> list:
    """`names` (and `follow_name`); the select `name` of the text's tokens (`value` None: the last); `at`, the chosen
    token from 0, within the text; `every`: label every this many tokens, so that labels LABEL_ROOM px apart fit the
    view's width (and, with `rows`, a view that many px tall at 12 px a label)."""
    tall = f", ceil({N} * 12 / {rows})" if rows else ""
    return [alt.param(name=NAMES, value=[PLACEHOLDER]),
            *([alt.param(name="follow_name", value=PLACEHOLDER)] if follow else []),
            alt.param(name=name, value=MAX_TOKENS if value is None else value,
                      bind=alt.binding_select(options=[1], labels=["1"], name=words)),
            alt.param(name="at", expr=f"clamp({name}, 1, {N}) - 1"),
            alt.param(name="every", expr=f"max(1, ceil({N} * {LABEL_ROOM} / max(1, {WIDTH} - 70)){tall})")]


def _ranked(panel: str, count: int) -> tuple[list, str]:
    """Params: `row`, the chosen token's shares (units) in the panel at place `panel` of the data, and its `count`
    largest and their keys (ties: the first key first); and the words naming those of 0.5% or more: "_animal 85%"."""
    params = [alt.param(name="row", expr=f"slice(data('panels')[{panel}].u, {START}, {START} + at + 1)"),
              alt.param(name="ranked", expr="reverse(sort(row))")]
    words = []
    for i in range(count):
        value, key, before = f"ranked[{i}]", f"ranked_{i}", f"ranked_{i - 1}"
        tie = f"{value} == ranked[{i - 1}] ? {before} + 1 + indexof(slice(row, {before} + 1), {value}) : " if i else ""
        params.append(alt.param(name=key, expr=f"{tie}indexof(row, {value})"))
        words.append(f"({value} >= {MIN_SHARE * PER_SHARE:g} ? '{', ' if i else ''}' + names[{key}] + ' ' + "
                     f"floor({value} / 100 + 0.5) + '%' : '')")
    return params, " + ".join(words)


def _keys(panel: str) -> alt.Chart:
    """One datum per token of the text, from the panel `panel` chooses: k, its name t, and s, the share the chosen
    token gives it (0 after it: out of reach), in words (said)."""
    keys = alt.Chart(alt.NamedData("panels")).transform_filter(panel).transform_calculate(k=f"sequence(0, {N})")
    return keys.transform_flatten(["k"]).transform_calculate(
        s=f"datum.k <= at ? datum.u[{START} + datum.k] / {PER_SHARE} : 0", t="names[datum.k]", said=SAID)


def _share_layers(keys: alt.Chart, sideways: bool, key_title, clicks: bool, least: float = 0) -> list:
    """(l)'s bars over `keys`: upright (labels turned, every `every`th where they would touch) or sideways, one
    row and one label per token; the tokens after the chosen one shaded; `clicks`: a bar or a column chooses its
    token, and "out of reach" marks the shaded ones; a share's label where it is `least` or more."""
    label = "names[datum.value]" if sideways else "datum.value % every == 0 ? names[datum.value] : ''"
    axis = alt.Axis(labelExpr=label, labelFontSize=12, labelOverlap=False,
                    **({"labelLimit": 0} if sideways else {"labelAngle": -45}))
    across, key, value = (alt.X, "y", "x") if sideways else (alt.Y, "x", "y")
    k = (alt.Y if sideways else alt.X)("k:O", title=key_title, axis=axis)
    whole = {key: k, value: alt.value(0), value + "2": alt.value("width" if sideways else "height")}
    reach, seen = keys.transform_filter("datum.k > at"), keys.transform_filter("datum.k <= at")
    layers = [reach.mark_rect(color=OUT_OF_REACH, stroke=None, aria=False).encode(**whole)]
    if clicks:
        words = {"align": "right", "dx": -6} if sideways else {"angle": 270, "align": "right", "dx": -10}
        layers.append(reach.mark_text(fontSize=11, opacity=0.8, aria=False, **words).encode(
            **{key: k, value: alt.value("width" if sideways else 0)}, text=alt.value("out of reach")))
        layers.append(charts.clickable(keys, **{TOKEN: "datum.k + 1"}).mark_rect(
            fill="transparent", cursor="pointer", aria=False).encode(**whole))
    share = across("s:Q", scale=CHANCE, title="share of attention",
                   axis=alt.Axis(format="%", tickCount=4 if sideways else 5))
    layers.append((charts.clickable(seen, **{TOKEN: "datum.k + 1"}) if clicks else seen).mark_bar(
        cursor="pointer" if clicks else "default").encode(
        **{key: k, value: share}, description="said:N",
        color=alt.condition("datum.k == at", alt.value(CHOSEN), alt.value(DATA)),
        tooltip=[alt.Tooltip("t:N", title="token"), alt.Tooltip("s:Q", title="share", format=".1%")]))
    placed = {"align": "left", "dx": 4, "baseline": "middle"} if sideways else charts.over_bars(N)
    layers.append(seen.transform_filter(f"datum.s >= {least}").mark_text(fontSize=11, aria=False, **placed).encode(
        **{key: k, value: across("s:Q", scale=CHANCE)}, text=alt.Text("s:Q", format=".0%")))
    return layers


def _finished(chart, params: list, clicks: tuple, placeholders: dict, *datasets: str):
    """The chart with its params and its `datasets` of `placeholders` at its top, saying which params a click sets."""
    data = {name: placeholders[name] for name in datasets}
    return charts.with_clicks(charts.with_data(charts.with_params(chart, *params), **data), *clicks)


# ---------------------------------------------------------------------------------------------- (l)

def attention_chart(views: list, n_layer: int, n_head: int, opening_token: int | None = None,
                    narrow: bool = False) -> alt.TopLevelMixin:
    """Figure (l): the chosen token's shares over every token in the chosen view ([layer, head] from 1 of `views`, or
    'all': `panels`' last row), upright or (narrow) sideways; the tokens after it shaded. Reads `panels`, `names`; the
    select "token" (opening on `opening_token`, from 1; None: the last) and the radio "view" ('5-4' ... 'all')."""
    keyed = [(f"{l}-{h}", f"layer {l}, head {h}", [l - 1, h - 1, (l - 1) * (n_head + 1) + h - 1]) for l, h in views]
    keyed.append(("all", f"all {n_layer * n_head:,} heads, averaged", [n_layer, n_head, n_layer * (n_head + 1)]))
    view = alt.param(name=VIEW, value=keyed[0][0], bind=alt.binding_radio(
        options=[key for key, _, _ in keyed], labels=[label for _, label, _ in keyed], name="View "))
    views_at = alt.param(name="views_at", value={key: [*at, label] for key, label, at in keyed})  # l, h, place, label
    ranked, words = _ranked("views_at[view][2]", LISTED)
    after = f"({N} - at - 1)"
    description = alt.param(name=DESCRIPTION, expr=(
        f"'Looking from ' + names[at] + ' (token ' + (at + 1) + '), ' + views_at[view][3] + ': ' + {words} + '.' + "
        f"({after} > 0 ? ' The ' + {after} + ({after} == 1 ? ' token after it is' : ' tokens after it are') + "
        "' out of its reach.' : '')"))
    keys = _keys("datum.l == views_at[view][0] && datum.h == views_at[view][1]")
    heading = above_bars("'Looking from ' + names[at] + ' (token ' + (at + 1) + ')'")
    layered = alt.layer(*_share_layers(keys, narrow, None, clicks=True), heading).properties(
        width="container", height=alt.Step(ROW) if narrow else HEIGHT)
    params = [*_chosen(TOKEN, opening_token, "Looking from token "), view, views_at, *ranked, description]
    return _finished(layered, params, (TOKEN,), empty_data(n_layer, n_head), "panels")


# ---------------------------------------------------------------------------------------------- every head

class LiveGrid(Grid):
    """The heads figure's Grid with no text: domains from the data, the chosen row `at`, every `every`th label."""
    band = property(lambda self: alt.Undefined)
    row_q = property(lambda self: "at")
    label = property(lambda self: f"datum.value % every == 0 ? {self.names_param}[datum.value] : ''")


def heads_chart(n_layer: int, n_head: int, opening_head: list = (1, 1), opening_token: int | None = None,
                narrow: bool = False) -> alt.TopLevelMixin:
    """Every head at a glance: the grid of every head and layer's average (a rect each, GRID_CAPTION; a click chooses
    one), the chosen one's pattern larger (heads_chart.detail_chart) and the chosen token's bars in it, upright or
    (narrow) sideways. Reads `panels`, `names`; the selects "layer", "head" (1.., 'avg'), opening on `opening_head`
    ([layer, head] from 1), and "token" (`opening_token`; None: the last)."""
    grid = LiveGrid(n_layer, n_head, 0, 1, 0, [])
    layer = alt.param(name="layer", value=opening_head[0], bind=alt.binding_select(
        options=list(range(1, n_layer + 1)), name="Layer "))
    head = alt.param(name="head", value=opening_head[1], bind=alt.binding_select(
        options=list(range(1, n_head + 1)) + [AVERAGE],
        labels=[str(h) for h in range(1, n_head + 1)] + ["average of the layer's heads"], name="Head "))
    ranked, words = _ranked(f"(layer - 1) * {n_head + 1} + {grid.chosen_h}", 3)
    description = alt.param(name=DESCRIPTION, expr=(
        f"'All {n_layer * n_head:,} heads ({n_layer} layers of {n_head}) and each layer\\'s average, each coloured by "
        f"the largest share ' + names[at] + ' (token ' + (at + 1) + {GIVES} + '. Shown larger: layer ' + layer + "
        f"(head == '{AVERAGE}' ? ', the average of its {n_head} heads' : ', head ' + head) + '. Looking from ' + "
        f"names[at] + ' there, the largest shares: ' + {words} + '.'"))
    keys = _keys(f"datum.l == layer - 1 && datum.h == {grid.chosen_h}")
    bars = alt.layer(*_share_layers(keys, narrow, LOOKED_AT, clicks=False, least=MIN_SHARE)).properties(
        width="container", height=alt.Step(ROW) if narrow else BARS_HEIGHT, title=alt.Title(charts.wrapped(
            "'Looking from ' + names[at] + ' (token ' + (at + 1) + ') in layer ' + layer + "
            f"(head == '{AVERAGE}' ? ', average' : ', head ' + head)")))
    stack = alt.vconcat(_grid_view(n_layer, n_head, grid.chosen_h), detail_chart(grid, chosen_square(grid)), bars,
                        spacing=30).resolve_scale(color="independent")
    params = [layer, head, *_chosen(TOKEN, opening_token, "Looking from token ", DETAIL_HEIGHT), *ranked, description]
    return _finished(charts.fits_column(stack), params, ("layer", "head"), empty_data(n_layer, n_head), "panels")


def _grid_view(n_layer: int, n_head: int, chosen_h: str) -> alt.TopLevelMixin:
    """One rect per head and layer's average, coloured by the largest share the chosen token gives a token other
    than the first (the first token: itself), that token named in it where it fits; the chosen one outlined."""
    rest = "(at > 0 ? slice(datum.r, 1) : datum.r)"  # the shares to every token but the first (the first: itself)
    squares = alt.Chart(alt.NamedData("panels")).transform_filter(f"datum.l < {n_layer}").transform_calculate(
        r=f"slice(datum.u, {START}, {START} + at + 1)").transform_calculate(
        best=f"extent({rest})[1]").transform_calculate(
        k=f"indexof({rest}, datum.best) + (at > 0 ? 1 : 0)", s=f"datum.best / {PER_SHARE}",
        first=f"datum.r[0] / {PER_SHARE}", looked_at="names[datum.k]",
        view=f"'layer ' + (datum.l + 1) + (datum.h == {n_head} ? ', average of its heads' : ', head ' + (datum.h + 1))")
    squares = charts.clickable(squares, layer="datum.l + 1", head=f"datum.h == {n_head} ? '{AVERAGE}' : datum.h + 1")
    squares = squares.encode(
        x=alt.X("h:O", scale=alt.Scale(domain=list(range(n_head + 1))), axis=alt.Axis(
            orient="top", title="head", labelAngle=0, labelOverlap=False,
            labelExpr=f"datum.value == {n_head} ? 'avg' : '' + (datum.value + 1)")),
        y=alt.Y("l:O", scale=alt.Scale(domain=list(range(n_layer))), axis=alt.Axis(
            title="layer", labelOverlap=False, labelExpr="'' + (datum.value + 1)")))
    chosen = f"datum.l == layer - 1 && datum.h == {chosen_h}"
    tips = [alt.Tooltip("view:N", title="square"), alt.Tooltip("looked_at:N", title="looks hardest at"),
            alt.Tooltip("s:Q", title="its share", format=".1%"),
            alt.Tooltip("first:Q", title="share to the first token", format=".1%")]
    rects = squares.mark_rect(cursor="pointer").encode(
        color=alt.Color("s:Q", scale=charts.sequential(**CHANCE), title="largest share", legend=alt.Legend(**LEGEND)),
        stroke=alt.condition(chosen, alt.value(CHOSEN), alt.value(CELL_LINE)),
        strokeWidth=alt.condition(chosen, alt.value(3), alt.value(0.5)), tooltip=tips)
    cell = f"{WIDTH} / {n_head + 1}"  # px per square
    words = squares.mark_text(fontSize=10, cursor="pointer", aria=False, limit=alt.ExprRef(f"{cell} - 4"),
                              opacity=alt.ExprRef(f"{cell} >= 30 ? 1 : 0")).encode(
        text="looked_at:N", color=alt.condition("datum.s < 0.45", alt.value(ON_DARK), alt.value(ON_LIGHT)), tooltip=tips)
    heading = charts.literal(f"All {n_layer * n_head:,} heads, and each layer's average: the largest share ")
    return alt.layer(rects, words).properties(width="container", height=alt.Step(GRID_ROW), title=alt.Title(
        charts.wrapped(f"{heading} + names[at] + ' (token ' + (at + 1) + {GIVES}"), anchor="start"))


# ---------------------------------------------------------------------------------------------- (i)

def _at_stage(dataset: str, stage: str, q: str, rank: int = 0) -> str:
    """A row of `follow`, or of `top` at `rank`, by its place in the data (see the module's docstring)."""
    place = f"({stage}) * {N} + {q}"
    return f"data('{dataset}')[" + (f"({place}) * {TOP_K} + {rank - 1}" if rank else place) + "]"


def readout_chart(n_layer: int, opening_stage: int | None = None) -> alt.TopLevelMixin:
    """Figure (i) at the text's last token: the top TOP_K guesses after the chosen stage as bars (the followed token
    in its colour, drawn below them where it is not among them), and the followed token's chance after each
    layer. Reads `top`, `follow`, `names` and `follow_name`; the slider "stage" (`opening_stage`; None: the last)."""
    stage = charts.stage_slider(n_layer, n_layer if opening_stage is None else opening_stage)
    followed = _at_stage("follow", "stage", LAST)
    top3 = " + ', ' + ".join(f"{_at_stage('top', 'stage', LAST, r)}.token + ' ' + "
                             f"format({_at_stage('top', 'stage', LAST, r)}.p, '{charts.TIP_CHANCE}')" for r in (1, 2, 3))
    description = alt.param(name=DESCRIPTION, expr=(
        f"{after_layer_expr('stage', capital=True)} + ': the top 3 guesses are ' + "
        f"{top3} + '; ' + follow_name + ' has ' + format({followed}.p, '.2%') + '.'"))
    outside = alt.param(name="outside", expr=f"{followed}.rank > {TOP_K}")
    texts = [alt.param(name=NAMES, value=[PLACEHOLDER]), alt.param(name="follow_name", value=PLACEHOLDER)]
    return _finished(charts.fits_column(alt.vconcat(_readout_top(), _readout_line(n_layer), spacing=28)),
                     [stage, *texts, outside, description], ("stage",), empty_data(n_layer, 0), "top", "follow")


def _readout_top() -> alt.TopLevelMixin:
    """The top TOP_K at the chosen stage and the last token, and below them the followed token where it is not."""
    here = f"datum.stage == stage && datum.q == {LAST}"
    y = alt.Y("row:O", scale=alt.Scale(domain=[*range(1, TOP_K + 1), OUTSIDE]), title=None, axis=None)
    layers = []
    for base in (alt.Chart(alt.NamedData("top")).transform_filter(here).transform_calculate(
                     row="datum.rank", followed="datum.token == follow_name"),
                 alt.Chart(alt.NamedData("follow")).transform_filter(f"{here} && datum.rank > {TOP_K}")
                 .transform_calculate(row=str(OUTSIDE), token="follow_name", followed="true")):
        base = base.encode(y=y, x=alt.X("p:Q", scale=CHANCE, axis=alt.Axis(format="%", tickCount=5),
                                        title="chance of being the next token"))
        tooltip = [alt.Tooltip("token:N"), alt.Tooltip("p:Q", title="chance", format=".2%"), alt.Tooltip("rank:Q")]
        layers += [base.mark_bar().encode(color=alt.condition("datum.followed", alt.value(FOLLOWED), alt.value(DATA)),
                                          tooltip=tooltip),
                   base.mark_text(align="left", dx=4, fontSize=12).encode(text=alt.Text("p:Q", format=".2%")),
                   base.mark_text(align="right", dx=-6, fontSize=13, fontWeight=alt.ExprRef(
                       "datum.followed ? 'bold' : 'normal'")).encode(x=alt.value(0), text="token:N")]
    return alt.layer(*layers).properties(width="container", height=alt.Step(20), title=alt.Title(charts.wrapped(
        f"'The top {TOP_K} guesses after the last token (' + names[{LAST}] + '), ' + "
        f"{after_layer_expr('stage')} + (outside ? ', and ' + follow_name : '')")))


def _readout_line(n_layer: int) -> alt.TopLevelMixin:
    """The followed token's chance at the last token, stage by stage; a point or its column chooses the stage."""
    base = charts.named_stages(alt.Chart(alt.NamedData("follow"))).transform_filter(f"datum.q == {LAST}").encode(
        x=alt.X("stage:Q", title=["after layer", "(0: before any layer)"], scale=alt.Scale(
            domain=[0, n_layer], nice=False), axis=alt.Axis(values=list(range(n_layer + 1)), format="d")),
        y=alt.Y("p:Q", scale=CHANCE, axis=alt.Axis(format="%", tickCount=5), title="chance (the followed token's)"))
    tooltip = [charts.stage_tip(), alt.Tooltip("p:Q", title="chance", format=".2%")]
    line = base.mark_line(color=FOLLOWED) + charts.clickable(base, stage="datum.stage").mark_point(
        color=FOLLOWED, filled=True, cursor="pointer").encode(
        size=alt.condition("datum.stage == stage", alt.value(140), alt.value(30)), tooltip=tooltip)
    rule = alt.Chart(alt.Data(values=[{}])).mark_rule(color=REFERENCE, strokeDash=[4, 3]).encode(
        x=alt.X("stage:Q")).transform_calculate(stage="stage")
    columns = charts.clickable(base, stage="datum.stage").mark_rect(
        fill="transparent", cursor="pointer", aria=False, clip=True, width=alt.ExprRef(f"width / {n_layer}")).encode(
        y=alt.value(0), y2=alt.value("height"), tooltip=tooltip)
    return alt.layer(line, rule, columns).properties(width="container", height=180, title=alt.Title(alt.ExprRef(
        "follow_name + '\\'s chance, layer by layer'")))


# ---------------------------------------------------------------------------------------------- the lens

def lens_chart(n_layer: int, vocabulary: int = GPT2_VOCABULARY, opening_stage: int | None = None,
               opening_position: int | None = None, narrow: bool = False) -> alt.TopLevelMixin:
    """The lens: the top guess at every stage (rows) and position (columns); the chosen cell's top TOP_K; the followed
    token's chance and rank (1 to `vocabulary`) across the stages, at the chosen position or all. Narrow: the table's
    cells NARROW_CELL px wide (it scrolls). Reads `top`, `follow`, `names`, `follow_name`; "stage", "position",
    "where"."""
    stage = charts.stage_slider(n_layer, n_layer if opening_stage is None else opening_stage)
    where = alt.param(name="where", value="one", bind=alt.binding_radio(
        options=["one", "all"], labels=["at the chosen position", "at every position"], name="Follow the token "))
    cell = _at_stage("top", "stage", "at", 1)
    description = alt.param(name=DESCRIPTION, expr=(
        f"{after_layer_expr('stage', capital=True)} + ', position ' + (at + 1) + ' (' + names[at] + '): the top guess "
        f"is ' + {cell}.token + ' with ' + format({cell}.p, '{charts.TIP_CHANCE}') + '; following ' + follow_name + ' ' + "
        "(where == 'one' ? 'at this position' : 'at every position') + '.'"))
    width = NARROW_WIDTH if narrow else "container"
    stack = alt.vconcat(_lens_table(n_layer, narrow), _lens_top(width), *_lens_follow(n_layer, vocabulary, width),
                        spacing=24).resolve_scale(color="independent")
    return _finished(stack if narrow else charts.fits_column(stack),
                     [stage, *_chosen(POSITION, opening_position, "Position ", follow=True), where, description],
                     ("stage", POSITION), empty_data(n_layer, 0), "top", "follow")


def _lens_table(n_layer: int, narrow: bool) -> alt.TopLevelMixin:
    """Every cell's top guess (rank 1 of `top`) coloured by its chance, the chosen cell outlined; a click chooses it."""
    label = "(datum.value + 1) + ': ' + names[datum.value]"
    base = charts.clickable(charts.named_stages(alt.Chart(alt.NamedData("top"))).transform_filter("datum.rank == 1").transform_calculate(
        pos="(datum.q + 1) + ': ' + names[datum.q]"), stage="datum.stage", **{POSITION: "datum.q + 1"}).encode(
        x=alt.X("q:O", title=None, axis=alt.Axis(labelAngle=-40, orient="top", labelOverlap=False, labelExpr=(
            label if narrow else f"datum.value % every == 0 ? {label} : ''"))),
        y=alt.Y("stage:O", scale=alt.Scale(domain=list(range(n_layer + 1))), title="after layer (0: before any layer)"))
    tips = [alt.Tooltip("pos:N", title="position"), charts.stage_tip(),
            alt.Tooltip("token:N", title="top guess"), alt.Tooltip("p:Q", title="chance", format=charts.TIP_CHANCE)]
    table = base.mark_rect(cursor="pointer").encode(
        color=alt.Color("p:Q", scale=charts.sequential(**CHANCE), title="chance", legend=alt.Legend(**LEGEND)),
        stroke=alt.condition("datum.stage == stage && datum.q == at", alt.value(CHOSEN), alt.value(None)),
        strokeWidth=alt.value(3), tooltip=tips)
    # Each guess cut short to its cell, and left out where no word would fit (the tooltip says it whole).
    words = (base if narrow else base.transform_filter(f"{WIDTH} / {N} >= 24")).mark_text(
        fontSize=10, cursor="pointer", limit=NARROW_CELL - 4 if narrow else alt.ExprRef(f"{WIDTH} / {N} - 2")).encode(
        text="token:N", color=alt.condition("datum.p < 0.45", alt.value(ON_DARK), alt.value(ON_LIGHT)), tooltip=tips)
    return alt.layer(table, words).properties(
        width=alt.Step(NARROW_CELL) if narrow else "container", height=charts.TAP * (n_layer + 1),
        title=alt.Title(charts.wrapped(charts.literal("The top guess at every position, after every layer")),
                        anchor="start"))


def _lens_top(width) -> alt.TopLevelMixin:
    """The chosen cell's top TOP_K, as bars."""
    top = alt.Chart(alt.NamedData("top")).transform_filter("datum.stage == stage && datum.q == at").encode(
        y=alt.Y("rank:O", title="rank"), x=alt.X("p:Q", scale=CHANCE, axis=alt.Axis(format="%"), title="chance"))
    title = f"'The top {TOP_K} at position ' + (at + 1) + ': ' + names[at] + ', ' + {after_layer_expr('stage')}"
    return alt.layer(top.mark_bar(color=DATA), top.mark_text(align="left", dx=4).encode(text="token:N")).properties(
        width=width, height=180, title=alt.Title(charts.wrapped(title)))


def _lens_follow(n_layer: int, vocabulary: int, width) -> list:
    """The followed token's chance and rank across the stages, at the chosen position (in the followed token's
    colour) or at every one; the rank from 1 (the most likely) to the vocabulary's size."""
    followed = charts.named_stages(alt.Chart(alt.NamedData("follow"))).transform_filter(
        "where == 'all' || datum.q == at").transform_calculate(pos="(datum.q + 1) + ': ' + names[datum.q]")
    stage_x = alt.X("stage:Q", scale=alt.Scale(domain=[0, n_layer]), axis=alt.Axis(format="d"),
                    title="after layer (0: before any layer)")
    colour = alt.condition("datum.q == at", alt.value(FOLLOWED), alt.value(DATA))
    where = [alt.Tooltip("pos:N", title="position"), charts.stage_tip()]
    at = "(where == 'one' ? ' at position ' + (at + 1) + ': ' + names[at] : ' at every position')"
    chance = followed.mark_line(point=True).encode(
        x=stage_x, y=alt.Y("p:Q", axis=alt.Axis(format="%"), title="chance"), color=colour, detail="pos:N",
        tooltip=[*where, alt.Tooltip("p:Q", title="chance", format=".2%"), alt.Tooltip("rank:Q", format=",")],
    ).properties(width=width, height=160, title=alt.Title(charts.wrapped(f"follow_name + '\\'s chance' + {at}")))
    rank = followed.mark_line(point=True).encode(
        x=stage_x, color=colour, detail="pos:N", tooltip=[*where, alt.Tooltip("rank:Q", format=",")],
        y=alt.Y("rank:Q", scale=alt.Scale(type="log", reverse=True, domain=[1, vocabulary], nice=False),
                axis=alt.Axis(values=rank_ticks(vocabulary), format=","), title="rank (1 = most likely)"),
    ).properties(width=width, height=160, title=alt.Title(charts.wrapped(
        f"follow_name + {charts.literal(chr(39) + f's rank among all {vocabulary:,} tokens')} + {at}")))
    return [chance, rank]


# ---------------------------------------------------------------------------------------------- what the build iterates

# (key, title, caption, chart): chart(model, opening, narrow) -> the chart, or None where the wide one serves a phone
# too; model: {"n_layer", "n_head", "vocab_size"}; opening, each key optional: "views" ([[layer, head]]), "token",
# "head" ([layer, head] or [layer, "avg"]), "stage", "position", all as readers count (from 1; None: the last).
LIVE_FIGURES = [
    ("attention", Attention.TITLE, Attention.CAPTION, lambda model, opening, narrow: attention_chart(
        opening.get("views", []), model["n_layer"], model["n_head"], opening.get("token"), narrow=narrow)),
    ("heads", Heads.TITLE, GRID_CAPTION, lambda model, opening, narrow: heads_chart(
        model["n_layer"], model["n_head"], opening.get("head", [1, 1]), opening.get("token"), narrow=narrow)),
    ("readout", Readout.TITLE, READOUT_CAPTION, lambda model, opening, narrow: None if narrow else readout_chart(
        model["n_layer"], opening.get("stage"))),
    ("lens", Lens.TITLE, LENS_CAPTION, lambda model, opening, narrow: lens_chart(
        model["n_layer"], model.get("vocab_size", GPT2_VOCABULARY), opening.get("stage"), opening.get("position"),
        narrow=narrow)),
]
