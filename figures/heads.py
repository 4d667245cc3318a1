"""Every head at a glance: each head's pattern of who looks at whom, all layers and heads in one grid.

Reads the data file of the figure's text: `tokens` and every head's shares (`attention[layer][head][query]`,
or a long text's head files). The grid holds one small query-by-key square per head (rows: layers; columns:
heads, then each layer's average); the reader picks one head, seen larger with every share on hover, and one
token, whose shares in that head are drawn as bars, as in figure (l).

What the page carries: one row per square, {"l": layer, "h": head (n_head: the layer's average), "u": the
square's shares row by row, query 0 first, keys 0..query each, as integers in units of 1e-4; "t": for each row
its three largest shares as [key, whole percent] x 3, -1 where none, for the words a screen reader hears}, and
the grid itself as one picture (a PNG data URL), drawn here from the same shares. A text of more
than MAX_BLOCKS tokens is shown in blocks of consecutive tokens instead (at most MAX_BLOCKS of them): a cell is
then the attention a block's tokens give, on average, to the tokens of another block. A long text's data
(format 3) keep only shares of 0.5% or more; the others count as 0 here.
"""

from __future__ import annotations

import base64
import math
from dataclasses import dataclass


from figsite.config import Field
from figsite.data.run import LEFT_OUT, MIN_SHARE, PER_SHARE
from figsite.data.shared_names import DESCRIPTION, NAMES, TOKEN
from figures import common
from figures.kind import Kind
from figures.common import ACCENT, MAIN, alt, shown, token_label, whole_percent
from figures.picture import png, viridis


MAX_BLOCKS = 24  # a text of more tokens is shown in blocks of tokens: at most this many rows per square
AVERAGE = "avg"  # the head select's value for the layer's average (in a permalink: head=avg)
SHARE_SCALE = {"scheme": "viridis", "domain": [0, 1]}  # colour-blind safe; one scale for every square
MASKED = "#bdbdbd"  # out of reach (a key after the query): a neutral grey that no share's colour is
GRID_HEIGHT = 320  # the grid's view: as wide as the column, the grid in it as large as this height allows
GRID_PIXELS = 560  # the grid's picture is drawn about this wide, a whole number of pixels per cell
DETAIL_HEIGHT = 360
BARS_HEIGHT = 200


# ---------------------------------------------------------------------------------------------- data

def strongest(pairs: list) -> tuple:
    """The (key, share) with the largest share (the first such key on a tie), or (None, 0) if none is kept."""
    best = (None, 0.0)
    for k, s in pairs:
        if s > best[1]:
            best = (k, s)
    return best


def blocking(n: int) -> tuple[int, int]:
    """(tokens per block, number of blocks): single tokens for a text of up to MAX_BLOCKS tokens."""
    size = math.ceil(n / MAX_BLOCKS)
    return size, math.ceil(n / size)


def block_names(tokens: list, size: int) -> list:
    """What each row and column of a square is called: the token ('_it'), or a block ('tokens 25-48')."""
    if size == 1:
        return [shown(t) for t in tokens]
    n = len(tokens)
    return [f"tokens {start + 1}-{min(n, start + size)}" for start in range(0, n, size)]


def square(head_rows: list, n: int, size: int) -> list:
    """One head's square, row by row: cell (Q, K) is the share block Q's tokens give block K's, on average."""
    if size == 1:
        return [[s for _, s in sorted(r)] if len(r) == q + 1 else _spread(r, q + 1) for q, r in enumerate(head_rows)]
    blocks = math.ceil(n / size)
    out = [[0.0] * (Q + 1) for Q in range(blocks)]
    for q, pairs in enumerate(head_rows):
        cells = out[q // size]
        for k, s in pairs:
            cells[k // size] += s
    for Q, cells in enumerate(out):
        count = min(n, (Q + 1) * size) - Q * size
        out[Q] = [s / count for s in cells]
    return out


def _spread(pairs: list, length: int) -> list:
    cells = [0.0] * length
    for k, s in pairs:
        cells[k] = s
    return cells


def squares(fig, run) -> dict:
    """Every square of the grid: (layer, head) -> rows, 0-based; head n_head is the layer's average."""
    text = fig["text"]
    n = len(run.data(text)["tokens"])
    size, _ = blocking(n)
    n_layer, n_head = run.model["n_layer"], run.model["n_head"]
    out = {}
    for layer in range(n_layer):
        for head in range(n_head):
            out[(layer, head)] = square(run.kept_rows(text, layer, head), n, size)
        out[(layer, n_head)] = [[sum(out[(layer, h)][q][k] for h in range(n_head)) / n_head for k in range(q + 1)]
                                for q in range(len(out[(layer, 0)]))]
    return out


# ---------------------------------------------------------------------------------------------- chart

LEVELS = 254  # shares in the picture: 254 steps of colour (palette index 2 + level); 0 is a gap, 1 out of reach


def grid_picture(all_squares: dict, n_layer: int, n_head: int, blocks: int, gap: int, pixels: int) -> str:
    """The grid of every square as a PNG data URL: `pixels` x `pixels` per cell, out-of-reach cells grey,
    gaps transparent. A palette image: index 0 gap, 1 out of reach, 2 + round(share * (LEVELS - 1)) a share."""
    step = blocks + gap
    width, height = (n_head + 1) * step, n_layer * step - gap
    grid = [bytearray(width) for _ in range(height)]
    for (layer, head), cells in all_squares.items():
        left, top = head * step + (gap if head == n_head else 0), layer * step
        for q in range(blocks):
            line = grid[top + q]
            for k in range(blocks):
                line[left + k] = 2 + round(min(max(cells[q][k], 0.0), 1.0) * (LEVELS - 1)) if k <= q else 1
    palette = [(0, 0, 0), tuple(int(MASKED[i:i + 2], 16) for i in (1, 3, 5))] + [
        viridis(level / (LEVELS - 1)) for level in range(LEVELS)]
    rows = [bytes(b for b in line for _ in range(pixels)) for line in grid]
    raw = b"".join(b"\x00" + r for r in rows for _ in range(pixels))
    return "data:image/png;base64," + base64.b64encode(png(width * pixels, height * pixels, raw, palette)).decode()


def top_looks(cells: list, count: int = 3) -> list:
    """The `count` largest shares of one row as [key, whole percent, ...], those under 1% left out, padded
    with -1 so that every row takes the same room."""
    ranked = sorted(range(len(cells)), key=lambda k: (-cells[k], k))[:count]
    out = []
    for k in ranked:
        if whole_percent(cells[k]) >= 1:
            out += [k, whole_percent(cells[k])]
    return out + [-1, -1] * (count - len(out) // 2)


class Heads(Kind):
    KIND = "heads"
    TITLE = "Every head at a glance: who looks at whom, in each layer and head"
    CAPTION = ("Each small square is one head: its rows are the tokens looking, its columns the tokens looked at, "
               "and the brighter a cell, the larger the share of attention. The last column is each layer's average.")
    GUIDE = ("Choose a layer and a head (or the layer's average) to see its pattern larger, with each share on hover, "
             "and a token to see how it shares out its attention in that head. Grey cells are out of reach: a token "
             "cannot see the tokens after it.")
    FIELDS = {
        "text": common.TEXT_FIELD,
        "focus": Field("position_or_text", "the token the figure opens on: its number (1 = first) or its text"),
        "head": Field("int_list", "[layer, head] the larger pattern opens on, numbered from 1", default=[1, 1]),
    }
    EXPLORE = True

    def check(self, fig, tokens, model: dict) -> dict:
        """The opening token, 0-based, and the head the detail opens on."""
        text_tokens = tokens(fig["text"])
        common.check_text(fig, "text", text_tokens, model["n_ctx"])
        common.check_view(fig, "head", fig["head"], model)
        return {"opening": common.opening(fig, "focus", text_tokens)}

    def text_figure(self, fig, run) -> str:
        """One line per layer: for each head, the token the focus token looks at hardest there, and its share."""
        text = fig["text"]
        data = run.data(text)
        tokens = [t["text"] for t in data["tokens"]]
        q = fig.opening
        n_layer, n_head = run.model["n_layer"], run.model["n_head"]
        lines = [common.heading(fig, self.TITLE), f"  {common.quoted(data['text'], len(tokens))}",
                 f"  looking from {token_label(tokens, q)}: in each head, the token it looks at hardest "
                 "and its share"]
        width = len(str(n_layer))
        table = []
        for layer in range(n_layer):
            looks = [strongest(run.kept_row(text, layer, head, q)) for head in range(n_head)]
            cells = [f"h{head + 1} " + (f"{shown(tokens[k])} {whole_percent(s)}%" if k is not None and s >= MIN_SHARE
                                        else "-")
                     for head, (k, s) in enumerate(looks)]
            table.append((layer, cells))
        widths = [max(len(cells[head]) for _, cells in table) for head in range(n_head)]  # each head's column
        for layer, cells in table:
            lines.append(f"  layer {layer + 1:>{width}}  " + "  ".join(f"{c:<{w}}" for c, w in zip(cells, widths)).rstrip())
        if run.is_long(text):
            lines.append(f"  (a long text: shares below {LEFT_OUT} are left out)")
        return "\n".join(lines) + "\n"

    def context(self, fig, run) -> dict:
        """The words beside the chart, from the data: the head that looks hardest from the focus token, how many
        heads look at the first token, and the heads that look one token back."""
        text = fig["text"]
        data = run.data(text)
        tokens = [t["text"] for t in data["tokens"]]
        n = len(tokens)
        q = fig.opening
        n_layer, n_head = run.model["n_layer"], run.model["n_head"]
        layer0, head0 = fig["head"]
        looks = {(l, h): strongest(run.kept_row(text, l, h, q)) for l in range(n_layer) for h in range(n_head)}
        (best_l, best_h), (best_k, best_s) = max(looks.items(), key=lambda item: (item[1][1], -item[0][0], -item[0][1]))
        k0, s0 = looks[(layer0 - 1, head0 - 1)]
        opening = (f"{whole_percent(s0)}% to {token_label(tokens, k0)}" if k0 is not None and s0 >= MIN_SHARE
                   else f"no token {LEFT_OUT} or more")
        summary = (f"The grid shows all {run.n_heads:,} heads ({n_layer} layers of {n_head}) and each layer's average, "
                   f"for the {n} tokens of the text. It opens on layer {layer0}, head {head0}, where "
                   f"{token_label(tokens, q)} gives its largest share, {opening}.")
        facts = []  # the hardest look of all is the answer of the "guess first" question below
        if q > 0:
            first = sum(1 for k, s in looks.values() if k == 0)
            facts.append(f"{first} of the {run.n_heads:,} heads give their largest share from {shown(tokens[q])} to the "
                         f"first token, {shown(tokens[0])}.")
        if n > 2:
            back = []
            for l in range(n_layer):
                for h in range(n_head):
                    head_rows = run.kept_rows(text, l, h)
                    mean = sum(dict(head_rows[p]).get(p - 1, 0.0) for p in range(1, n)) / (n - 1)
                    if mean >= 0.5:
                        back.append((mean, l, h))
            if back:
                back.sort(key=lambda t: (-t[0], t[1], t[2]))
                named = ", ".join(f"layer {l + 1}, head {h + 1} ({whole_percent(m)}%)" for m, l, h in back[:5])
                more = f" and {len(back) - 5} more" if len(back) > 5 else ""
                facts.append(f"Heads that give most of each token's attention to the token just before it, on average "
                             f"over the text: {named}{more}.")
            else:
                facts.append("No head gives, on average over the text, most of each token's attention to the token "
                             "just before it.")
        size, _ = blocking(n)
        if size > 1:
            facts.append(f"The text has {n} tokens: the squares show blocks of {size} tokens, each cell the share a "
                         "block's tokens give the tokens of another block, on average.")
        if run.is_long(text):
            facts.append(common.LONG_TEXT_FACT)
        reveals = []
        if best_k is not None and best_s >= MIN_SHARE:
            reveals.append({
                "question": f"Guess first: of all {run.n_heads:,} heads, which one looks hardest from "
                            f"{token_label(tokens, q)} to a single token?",
                "answer": f"Layer {best_l + 1}, head {best_h + 1}: it gives {token_label(tokens, best_k)} "
                          f"{whole_percent(best_s)}% of the attention of {shown(tokens[q])}.",
                "link": f"#layer={best_l + 1}&head={best_h + 1}&token={q // size * size + 1}",
                "link_text": f"Show layer {best_l + 1}, head {best_h + 1}",
            })
        return {"summary": summary, "reveals": reveals, "facts": facts}

    def tables(self, fig, run, spec: dict) -> dict:
        """The downloadable data: every cell of every square, as readers count (layers, heads, tokens from 1)."""
        text = fig["text"]
        raw_tokens = [t["text"] for t in run.data(text)["tokens"]]
        size, _ = blocking(len(raw_tokens))
        names = block_names(raw_tokens, size)
        n_head = run.model["n_head"]
        return {"shares": [
            {"layer": layer + 1, "head": AVERAGE if head == n_head else head + 1,
             "from_token": q * size + 1, "from": names[q], "to_token": k * size + 1, "to": names[k], "share": round(s, 6)}
            for (layer, head), cells in squares(fig, run).items() for q, row_ in enumerate(cells) for k, s in enumerate(row_)
        ]}

    def chart(self, fig, run) -> alt.TopLevelMixin:
        """The grid of every head, the chosen head larger, and the chosen token's bars in it."""
        raw_tokens = [t["text"] for t in run.data(fig["text"])["tokens"]]
        size, blocks = blocking(len(raw_tokens))
        grid = Grid(run.model["n_layer"], run.model["n_head"], len(raw_tokens), size, blocks,
                    block_names(raw_tokens, size))
        all_squares = squares(fig, run)
        one = _chosen_square(grid)
        return common.with_data(common.with_params(common.fits_column(alt.vconcat(
            _grid_chart(grid, all_squares, run.n_heads), _detail_chart(grid, one), _bars_chart(grid, one), spacing=30,
        )), *_params(fig, run, grid)), panels=_panel_rows(grid, all_squares))


@dataclass(frozen=True)
class Grid:
    """Where each square lies in the grid, in cells, and the Vega expressions the chart's parts share."""

    n_layer: int
    n_head: int
    n: int  # tokens in the text
    size: int  # tokens per block (1: a row per token)
    blocks: int  # rows per square
    names: list  # each row's name

    @property
    def gap(self) -> int:  # between squares; twice that before the averages
        return max(1, round(self.blocks / 4))

    @property
    def step(self) -> int:
        return self.blocks + self.gap

    @property
    def units(self) -> tuple[int, int]:
        return (self.n_head + 1) * self.step, self.n_layer * self.step - self.gap

    @property
    def pixels(self) -> int:  # each cell a whole number of pixels: crisp squares
        return max(1, round(GRID_PIXELS / self.units[0]))

    @property
    def x0(self) -> str:
        return f"(datum.h * {self.step} + (datum.h == {self.n_head} ? {self.gap} : 0))"

    @property
    def y0(self) -> str:
        return f"(datum.l * {self.step})"

    @property
    def chosen_h(self) -> str:  # the chosen head, 0-based; n_head is the layer's average
        return f"(head == '{AVERAGE}' ? {self.n_head} : head - 1)"

    @property
    def row_q(self) -> str:  # the chosen token's row in a square
        return f"floor((token - 1) / {self.size})"

    @property
    def from_words(self) -> str:
        return f"names[{self.row_q}] + ' (token ' + token + ')'" if self.size == 1 else f"names[{self.row_q}]"

    @property
    def band(self) -> list:
        return list(range(self.blocks))


def _params(fig, run, grid: Grid) -> list:
    """The layer, head and token selects, the row names, and the live description of the chosen state."""
    n_layer, n_head, size = grid.n_layer, grid.n_head, grid.size
    layer_param = alt.param(name="layer", value=fig["head"][0], bind=alt.binding_select(
        options=list(range(1, n_layer + 1)), name="Layer "))
    head_param = alt.param(name="head", value=fig["head"][1], bind=alt.binding_select(
        options=list(range(1, n_head + 1)) + [AVERAGE],
        labels=[str(h) for h in range(1, n_head + 1)] + ["average of the layer's heads"], name="Head "))
    starts = list(range(1, grid.n + 1, size))
    token_labels = ([f"{i}: {name}" for i, name in zip(starts, grid.names)] if size == 1 else grid.names)
    token_param = alt.param(name=TOKEN, value=fig.opening // size * size + 1, bind=alt.binding_select(
        options=starts, labels=token_labels, name="Looking from token " if size == 1 else "Looking from "))
    names_param = alt.param(name=NAMES, value=grid.names)
    # The words read the chosen square's row "t" (its rows' largest shares) from the page's data, in place: as
    # params, thousands of numbers would be copied by Altair at every step of building the chart.
    looks = alt.param(name="looks", expr=f"data('panels')[(layer - 1) * {n_head + 1} + {grid.chosen_h}].t")
    look_at = alt.param(name="look_at", expr=f"{grid.row_q} * 6")
    top_words = " + ".join(
        f"(looks[look_at + {2 * i}] >= 0 ? '{', ' if i else ''}' + names[looks[look_at + {2 * i}]] + ' ' + "
        f"looks[look_at + {2 * i + 1}] + '%' : '')" for i in range(3))
    chosen_words = f"'layer ' + layer + (head == '{AVERAGE}' ? ', the average of its {n_head} heads' : ', head ' + head)"
    description = alt.param(name=DESCRIPTION, expr=(
        f"'All {run.n_heads:,} heads ({n_layer} layers of {n_head}) and each layer\\'s average, as squares of who "
        f"looks at whom. Shown larger: ' + {chosen_words} + '. Looking from ' + {grid.from_words} + ' there, the "
        f"largest shares: ' + (looks[look_at] >= 0 ? {top_words} : 'none of 1% or more') + '.'"))
    return [layer_param, head_param, token_param, names_param, looks, look_at, description]


def _grid_chart(grid: Grid, all_squares: dict, n_heads: int) -> alt.TopLevelMixin:
    """Every square as one picture, with each square's outline (its tooltip, the axes) and the chosen one.

    The view is as wide as the column; the grid keeps its squares square, as wide as the view or as GRID_HEIGHT
    allows, whichever is less (the expressions `grid_w` and `grid_h`, in px)."""
    panels, n_head, blocks, step, gap = alt.NamedData("panels"), grid.n_head, grid.blocks, grid.step, grid.gap
    (units_x, units_y), pixels = grid.units, grid.pixels
    grid_w = f"min(width, {GRID_HEIGHT * units_x / units_y:.6g})"
    grid_h = f"{grid_w} * {units_y / units_x:.6g}"
    x_scale = alt.Scale(domain=[0, units_x], nice=False, zero=False, range=[0, alt.ExprRef(grid_w)])
    y_scale = alt.Scale(domain=[0, units_y], nice=False, zero=False, range=[0, alt.ExprRef(grid_h)])
    centre = blocks / 2
    # Every head and every layer named: the values given, and as many ticks (Vega keeps no more than tickCount).
    heads_at = [h * step + (gap if h == n_head else 0) + centre for h in range(n_head + 1)]
    layers_at = [l * step + centre for l in range(grid.n_layer)]
    x_axis = alt.Axis(values=heads_at, tickCount=len(heads_at), orient="top", title="head", grid=False, ticks=False,
                      domain=False, labelFontSize=11, labelOverlap=False,
                      labelExpr=f"datum.value > {n_head * step} ? 'avg' : '' + (round((datum.value - {centre}) / {step}) + 1)")
    y_axis = alt.Axis(values=layers_at, tickCount=len(layers_at), title="layer", grid=False, ticks=False, domain=False,
                      labelFontSize=11, labelOverlap=False, labelExpr=f"'' + (round((datum.value - {centre}) / {step}) + 1)")

    # The grid is one picture drawn here, a pixel block per cell: thousands of marks would take the browser
    # seconds to draw. Over it: each square's outline (for its tooltip and the axes) and the chosen square.
    picture = alt.Chart(alt.Data(values=[{}])).mark_image(
        url=grid_picture(all_squares, grid.n_layer, n_head, blocks, gap, pixels),
        width=alt.ExprRef(grid_w), height=alt.ExprRef(grid_h), align="left", baseline="top", aspect=False,
        smooth=False, aria=False,
    ).encode(x=alt.value(0), y=alt.value(0))
    outlines = alt.Chart(panels).transform_calculate(
        gx=grid.x0, gy=grid.y0).transform_calculate(
        gx2=f"datum.gx + {blocks}", gy2=f"datum.gy + {blocks}",
        view=f"'layer ' + (datum.l + 1) + (datum.h == {n_head} ? ', average of its heads' : ', head ' + (datum.h + 1))",
    ).mark_rect(fill="transparent", aria=False).encode(
        x=alt.X("gx:Q", scale=x_scale, axis=x_axis), x2="gx2:Q",
        y=alt.Y("gy:Q", scale=y_scale, axis=y_axis), y2="gy2:Q",
        tooltip=[alt.Tooltip("view:N", title="square")],
    )
    chosen = alt.Chart(panels).transform_filter(
        f"datum.l == layer - 1 && datum.h == {grid.chosen_h}").transform_calculate(
        gx=f"{grid.x0} - 0.5", gy=f"{grid.y0} - 0.5").transform_calculate(
        gx2=f"datum.gx + {blocks + 1}", gy2=f"datum.gy + {blocks + 1}").mark_rect(
        fill=None, stroke=ACCENT, strokeWidth=2.5, aria=False).encode(
        x=alt.X("gx:Q", scale=x_scale), x2="gx2:Q", y=alt.Y("gy:Q", scale=y_scale), y2="gy2:Q")
    swatch = alt.Chart(alt.Data(values=[{}])).mark_rect(color=MASKED, aria=False).encode(
        x=alt.value(0), x2=alt.value(12), y=alt.value(alt.ExprRef(f"{grid_h} + 10")),
        y2=alt.value(alt.ExprRef(f"{grid_h} + 22")))
    note = alt.Chart(alt.Data(values=[{}])).mark_text(align="left", baseline="top", fontSize=11, lineBreak="\n").encode(
        x=alt.value(18), y=alt.value(alt.ExprRef(f"{grid_h} + 10")),
        text=alt.value("grey: out of reach\n(a token cannot see the tokens after it)"))
    return alt.layer(picture, outlines, chosen, swatch, note).properties(
        width="container", height=GRID_HEIGHT, view=alt.ViewBackground(stroke=None), title=alt.Title(common.wrapped(
            common.literal(f"All {n_heads:,} heads, and each layer's average")), anchor="start"))


def _chosen_square(grid: Grid) -> alt.Chart:
    """The chosen square's cells, one row each: query q, key k, share s, decoded from the page's data."""
    return alt.Chart(alt.NamedData("panels")).transform_filter(
        f"datum.l == layer - 1 && datum.h == {grid.chosen_h}").transform_flatten(
        ["u"]).transform_window(i="row_number()").transform_calculate(
        q="floor((sqrt(8 * (datum.i - 1) + 1) - 1) / 2)").transform_calculate(
        k="datum.i - 1 - datum.q * (datum.q + 1) / 2", s=f"datum.u / {PER_SHARE}").transform_calculate(
        looking="names[datum.q]", looked_at="names[datum.k]")


def _key_x(grid: Grid) -> alt.X:
    return alt.X("k:O", scale=alt.Scale(domain=grid.band), title="looked at (key)",
                 axis=alt.Axis(labelExpr="names[datum.value]", labelAngle=-45, labelFontSize=11, labelOverlap="greedy"))


def _detail_chart(grid: Grid, one: alt.Chart) -> alt.TopLevelMixin:
    """The chosen square, larger: every share on hover, the chosen token's row outlined."""
    share_color = alt.Color("s:Q", scale=alt.Scale(**SHARE_SCALE), title="share of attention",  # one legend
                            legend=alt.Legend(format="%", orient="top", direction="horizontal", gradientLength=160))
    query_y = alt.Y("q:O", scale=alt.Scale(domain=grid.band), title="looking (query)",
                    axis=alt.Axis(labelExpr="names[datum.value]", labelFontSize=11, labelOverlap="greedy"))
    detail_bg = alt.Chart(alt.Data(values=[{}])).mark_rect(color=MASKED, aria=False).encode(
        x=alt.value(0), x2=alt.value("width"), y=alt.value(0), y2=alt.value("height"))
    detail_cells = one.transform_calculate(
        said="datum.looking + ' looks at ' + datum.looked_at + ': ' + format(datum.s, '.2%')").mark_rect().encode(
        x=_key_x(grid), y=query_y, color=share_color, description="said:N",
        tooltip=[alt.Tooltip("looking:N", title="looking"), alt.Tooltip("looked_at:N", title="looked at"),
                 alt.Tooltip("s:Q", title="share", format=".2%")],
    )
    detail_row = alt.Chart(alt.Data(values=[{}])).transform_calculate(q=grid.row_q).mark_rect(
        fill=None, stroke=ACCENT, strokeWidth=2, aria=False).encode(y=alt.Y("q:O", scale=alt.Scale(domain=grid.band)))
    return alt.layer(detail_bg, detail_cells, detail_row).properties(
        width="container", height=DETAIL_HEIGHT,
        title=alt.Title(common.wrapped(f"'Layer ' + layer + (head == '{AVERAGE}' ? ', average of its heads' : "
                                       "', head ' + head) + ', larger'")))


def _bars_chart(grid: Grid, one: alt.Chart) -> alt.TopLevelMixin:
    """The chosen token's shares in the chosen square, as in figure (l)."""
    key_x, row_q = _key_x(grid), grid.row_q
    picked = one.transform_filter(f"datum.q == {row_q}")
    share_y = alt.Y("s:Q", scale=alt.Scale(domain=[0, 1]), title="share of attention",
                    axis=alt.Axis(format="%", tickCount=5))
    out_of_reach = alt.Chart(alt.Data(values=[{"k": k} for k in grid.band])).transform_filter(
        f"datum.k > {row_q}").mark_rect(color="#8883").encode(
        x=key_x, y=alt.value(0), y2=alt.value("height"))
    bars = picked.mark_bar().encode(
        x=key_x, y=share_y,
        color=alt.condition(f"datum.k == {row_q}", alt.value(ACCENT), alt.value(MAIN)),
        tooltip=[alt.Tooltip("looked_at:N", title="looked at"), alt.Tooltip("s:Q", title="share", format=".1%")],
    )
    bar_labels = picked.transform_filter(f"datum.s >= {MIN_SHARE}").mark_text(
        fontSize=11, **common.over_bars(grid.blocks)).encode(
        x=key_x, y=alt.Y("s:Q", scale=alt.Scale(domain=[0, 1])), text=alt.Text("s:Q", format=".0%"))
    return alt.layer(out_of_reach, bars, bar_labels).properties(
        width="container", height=BARS_HEIGHT,
        title=alt.Title(common.wrapped(f"'Looking from ' + {grid.from_words} + ' in layer ' + layer + "
                                       f"(head == '{AVERAGE}' ? ', average' : ', head ' + head)")))


def _panel_rows(grid: Grid, all_squares: dict) -> list:
    """The page's data: each square's shares in units (u), row after row, and its rows' largest shares (t)."""
    return [{"l": layer, "h": head, "u": [round(s * PER_SHARE) for cells in all_squares[(layer, head)] for s in cells],
             "t": [v for cells in all_squares[(layer, head)] for v in top_looks(cells)]}
            for layer in range(grid.n_layer) for head in range(grid.n_head + 1)]
