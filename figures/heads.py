"""Every head at a glance: each head's pattern of who looks at whom, all layers and heads in one grid.

Reads the text's tokens and every head's shares (run.token_texts, run.kept_rows, run.kept_row). The grid holds
one small query-by-key square per head (rows: layers; columns: heads, then each layer's average); the reader
picks one head, seen larger with every share on hover, and one token, whose shares in that head are drawn as
bars, as in figure (l). The squares and the page's data are worked out in figures.heads_data; the
chart's parts are in figures.heads_chart, figures.heads_bars and (with no text) figures.heads_textless.

What the page carries: one row per square, {"l": layer, "h": head (n_head: the layer's average), "u": the
square's shares row by row, query 0 first, keys 0..query each, as integers in units of 1e-4; "t": for each row
its three largest shares as [key, whole percent] x 3, -1 where none, for the words a screen reader hears}, and
the grid itself as one picture (a PNG data URL), drawn here from the same shares. A text of more than
MAX_BLOCKS tokens is shown in blocks of consecutive tokens instead (at most MAX_BLOCKS of them): a cell is then
the attention a block's tokens give, on average, to the tokens of another block. A long text's data (format 3)
keep only shares of 0.5% or more; the others count as 0 here.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from figsite.config import Field, Figure
from figsite.data.run import LEFT_OUT, MIN_SHARE, Run
from figures import recompute_heads
from figures.recompute_stored import storage
from figures.heads_bars import bars_chart
from figures.heads_chart import chart_params, chosen_square, detail_chart, grid_chart
from figures.heads_data import (
    MAX_BLOCKS as MAX_BLOCKS,
    Look,
    Squares,
    block_names as block_names,
    blocking as blocking,
    panel_rows as panel_rows,
    squares as squares,
    strongest,
)
from figures.heads_grid import AVERAGE, LEVELS, Grid
from figures.heads_textless import textless_chart
from figures.heads_wide import side_by_side
from figures.kind import Context, Kind, LiveOpening, LiveShape, Resolved, Reveal, Table, Tokens
from figures.picture import png, viridis
from figures.toolkit import charts, fields
from figures.toolkit.charts import alt
from figures.toolkit.colours import MASKED
from figures.toolkit.words import (
    LONG_TEXT_FACT,
    agrees,
    heading,
    number,
    quoted,
    said,
    shown,
    token_label,
    whole_percent,
)

if TYPE_CHECKING:
    from figsite.data.records import ModelRecord
    from figures.picture import RGB
    from figures.toolkit.charts import Spec

NARROW_CELL = charts.TAP  # px per row and column of the larger pattern on a phone: a cell a finger can tap (the guide
# says to tap one for its share), in which an 11 px label fits, turned 45 degrees


# ---------------------------------------------------------------------------------------------- page


def grid_picture(all_squares: Squares, n_layer: int, n_head: int, blocks: int, gap: int, pixels: int) -> str:
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
    palette = [(0, 0, 0), cast("RGB", tuple(int(MASKED[i : i + 2], 16) for i in (1, 3, 5)))] + [  # "#rrggbb"
        viridis(level / (LEVELS - 1)) for level in range(LEVELS)
    ]
    rows = [bytes(b for b in line for _ in range(pixels)) for line in grid]
    raw = b"".join(b"\x00" + r for r in rows for _ in range(pixels))
    return "data:image/png;base64," + base64.b64encode(png(width * pixels, height * pixels, raw, palette)).decode()


class Heads(Kind[Run]):
    READS = ("attention",)
    KIND = "heads"
    TITLE = "Every head at a glance: who looks at whom, in each layer and head"
    CAPTION = (
        "Every head of every layer at once, each drawn as a small picture of who looks at whom; the last "
        "column is each layer's average."
    )
    GUIDE = (
        "Choose a layer and a head (or the layer's average) to see its pattern larger ({hover} a cell for its "
        "share), and a token to see how it shares out its attention in that head. Grey cells (black on a dark "
        "page, darker than any share) are out of reach: a token cannot see the tokens after it. Choose a square "
        "of the grid (click or tap) to see it larger; the layer and head menus do the same from the keyboard."
    )
    KEY = (
        "Each small square is one head: a row for each token that looks, a column for each token looked at; the "
        "brighter a cell, the larger the share."
    )
    FIELDS = {
        "text": fields.TEXT_FIELD,
        "focus": fields.FOCUS_FIELD,
        "head": Field("int_list", "[layer, head] the larger pattern opens on, numbered from 1", default=[1, 1]),
    }
    EXPLORE = True
    REACH = True  # a token sees only itself and the tokens before it
    NOTEBOOK = recompute_heads.HEADS  # every cell of every square, from the model's own attention patterns

    def notebook_params(self, fig: Figure, run: Run) -> dict[str, Any]:
        """The notebook's recompute reads the tokens per block (1: single tokens), whether a start token leads the
        text (the page numbers it 0) and how the text's data keep a share (figures.recompute_stored)."""
        tokens = run.token_texts(fig["text"])
        return {"BLOCK": blocking(len(tokens))[0], "START": tokens.start, **storage(run, fig["text"])}

    def check(self, fig: Figure, tokens: Tokens, model: ModelRecord) -> Resolved:
        """The opening token, 0-based, and the head the detail opens on."""
        text_tokens = tokens(fig["text"])
        fields.check_text(fig, "text", text_tokens, model["n_ctx"])
        fields.check_view(fig, "head", fig["head"], model)
        return {"opening": fields.opening(fig, "focus", text_tokens)}

    def text_figure(self, fig: Figure, run: Run) -> str:
        """One line per layer: for each head, the token the focus token looks at hardest there, and its share."""
        text = fig["text"]
        tokens = run.token_texts(text)
        q = fig.opening
        n_layer, n_head = run.n_layer, run.n_head
        lines = [
            heading(fig, self.TITLE),
            f"  {quoted(text, len(tokens))}",
            f"  looking from {token_label(tokens, q)}: in each head, the token it looks at hardest and its share",
        ]
        width = len(str(n_layer))
        table: list[tuple[int, list[str]]] = []
        for layer in range(n_layer):
            looks = [strongest(run.kept_row(text, layer, head, q)) for head in range(n_head)]
            cells = [
                f"h{head + 1} "
                + (f"{shown(tokens[k])} {whole_percent(s)}%" if k is not None and s >= MIN_SHARE else "-")
                for head, (k, s) in enumerate(looks)
            ]
            table.append((layer, cells))
        widths = [max(len(cells[head]) for _, cells in table) for head in range(n_head)]  # each head's column
        for layer, cells in table:
            lines.append(
                f"  layer {layer + 1:>{width}}  " + "  ".join(f"{c:<{w}}" for c, w in zip(cells, widths)).rstrip()
            )
        if run.is_long(text):
            lines.append(f"  (a long text: shares below {LEFT_OUT} are left out)")
        return "\n".join(lines) + "\n"

    def context(self, fig: Figure, run: Run) -> Context:
        """The words beside the chart, from the data: the head that looks hardest from the focus token, how many
        heads look at the first token, and the heads that look one token back."""
        text = fig["text"]
        tokens = run.token_texts(text)
        n = len(tokens)
        q = fig.opening
        layer0, head0 = fig["head"]
        looks = hardest_looks(run, text, q)
        k0, s0 = looks[(layer0 - 1, head0 - 1)]
        opening = (
            f"{whole_percent(s0)}% to {token_label(tokens, k0)}"
            if k0 is not None and s0 >= MIN_SHARE
            else f"no token {LEFT_OUT} or more"
        )
        summary = (
            f"The grid shows all {run.n_heads:,} heads ({run.n_layer} layers of {run.n_head}) and each "
            f"layer's average, for the {n} tokens of the text. It opens on layer {layer0}, head {head0}, "
            f"where {token_label(tokens, q)} gives its largest share, {opening}."
        )
        facts: list[str] = []  # the hardest look of all is the answer of the "guess first" question below
        if q > 0:
            first = sum(1 for k, s in looks.values() if k == 0)
            facts.append(
                f"{first:,} of the {run.n_heads:,} heads {agrees(first, 'gives its', 'give their')} largest share "
                f"from {said(tokens[q])} to the "
                f"first token, {said(tokens[0])}."
            )
        if n > 2:
            facts.append(one_back_fact(run, text))
        size, _ = blocking(n)
        if size > 1:
            facts.append(
                f"The text has {n} tokens: the squares show blocks of {size} tokens, each cell the share a "
                "block's tokens give the tokens of another block, on average."
            )
        if run.is_long(text):
            facts.append(LONG_TEXT_FACT)
        return {"summary": summary, "reveals": hardest_reveal(run, tokens, q, looks), "facts": facts}

    def tables(self, fig: Figure, run: Run, spec: Spec) -> Mapping[str, Table]:
        """The downloadable data: every cell of every square, as readers count (layers, heads, tokens from 1)."""
        raw_tokens = run.token_texts(fig["text"])
        size, _ = blocking(len(raw_tokens))
        names = block_names(raw_tokens, size)
        n_head = run.n_head
        return {
            "shares": [
                {
                    "layer": layer + 1,
                    "head": AVERAGE if head == n_head else head + 1,
                    "from_token": number(raw_tokens, q * size),
                    "from": names[q],
                    "to_token": number(raw_tokens, k * size),
                    "to": names[k],
                    "share": round(s, 6),
                }
                for (layer, head), cells in squares(fig, run).items()
                for q, row_ in enumerate(cells)
                for k, s in enumerate(row_)
            ]
        }

    def chart(self, fig: Figure, run: Run) -> alt.VConcatChart:
        """The grid of every head, the chosen head larger, and the chosen token's bars in it (figures.heads_chart)."""
        return heads_chart(fig, run)

    def narrow_chart(self, fig: Figure, run: Run) -> alt.VConcatChart:
        """For a column narrower than 480 px: the grid with squares a finger can tap (charts.TAP px), with no room
        left empty under it, the larger pattern's cells of NARROW_CELL px, in which every token's label fits, and
        the chosen token's bars lying sideways, one row and one label per token, as in figure (l). Wider than a
        phone's column, the chart scrolls in its own box."""
        return heads_chart(fig, run, cell=NARROW_CELL, narrow=True)

    LIVE = 2

    def live_opening(self, fig: Figure) -> LiveOpening:
        """The live page opens on this figure's head."""
        return {"head": fig.values.get("head", [1, 1])}

    def textless_chart(self, model: LiveShape, opening: LiveOpening, narrow: bool = False) -> alt.VConcatChart:
        """The same chart with no text in it (figures.heads_textless.textless_chart): each head's picture drawn by the
        page's script, where the build draws them in Python."""
        return textless_chart(
            model["n_layer"], model["n_head"], opening.get("head", [1, 1]), opening.get("token"), narrow=narrow
        )


def heads_chart(fig: Figure, run: Run, cell: int = 0, narrow: bool = False) -> alt.VConcatChart:
    """The figure's chart: fitted to its column, or (cell, px) with cells of that size; `narrow`: a phone's (Grid).
    Reads the text's tokens and every head's shares (squares)."""
    raw_tokens = run.token_texts(fig["text"])
    size, blocks = blocking(len(raw_tokens))
    grid = Grid(
        run.n_layer,
        run.n_head,
        len(raw_tokens),
        size,
        blocks,
        block_names(raw_tokens, size),
        cell,
        narrow,
        start=raw_tokens.start,
    )
    all_squares = squares(fig, run)
    picture = grid_picture(all_squares, grid.n_layer, grid.n_head, blocks, grid.gap, grid.pixels)
    one = chosen_square(grid)
    # A phone's chart stacks the grid and the larger head; a wider column's sets them side by side (heads_wide).
    top = (
        [grid_chart(grid, picture, run.n_heads), detail_chart(grid, one)]
        if narrow
        else [side_by_side(grid, picture, run.n_heads, one)]
    )
    stack = alt.vconcat(*top, bars_chart(grid, one), spacing=30)
    return charts.with_clicks(
        charts.with_data(
            charts.with_params(
                stack if cell else charts.fits_column(stack), *chart_params(grid, fig["head"], fig.opening, run.n_heads)
            ),
            panels=panel_rows(grid, all_squares),
        ),
        "layer",
        "head",
    )


# ---------------------------------------------------------------------------------------------- words


def hardest_looks(run: Run, text: str, query: int) -> dict[tuple[int, int], Look]:
    """(layer, head), 0-based -> the (key, share) that `query` looks at hardest in that head."""
    return {(l, h): strongest(run.kept_row(text, l, h, query)) for l in range(run.n_layer) for h in range(run.n_head)}


def one_back_fact(run: Run, text: str) -> str:
    """The heads that give, on average over the text, most of each token's attention to the token just before it."""
    n = run.n_tokens(text)
    back: list[tuple[float, int, int]] = []
    for l in range(run.n_layer):
        for h in range(run.n_head):
            head_rows = run.kept_rows(text, l, h)
            mean = sum(dict(head_rows[p]).get(p - 1, 0.0) for p in range(1, n)) / (n - 1)
            if mean >= 0.5:
                back.append((mean, l, h))
    if not back:
        return "No head gives, on average over the text, most of each token's attention to the token just before it."
    back.sort(key=lambda t: (-t[0], t[1], t[2]))
    named = ", ".join(f"layer {l + 1}, head {h + 1} ({whole_percent(m)}%)" for m, l, h in back[:5])
    more = f" and {len(back) - 5} more" if len(back) > 5 else ""
    return (
        f"Heads that give most of each token's attention to the token just before it, on average over the text: "
        f"{named}{more}."
    )


def hardest_reveal(run: Run, tokens: Sequence[str], q: int, looks: Mapping[tuple[int, int], Look]) -> list[Reveal]:
    """The "guess first" question: of all heads, which one looks hardest from the focus token to a single token?"""
    (best_l, best_h), (best_k, best_s) = max(looks.items(), key=lambda item: (item[1][1], -item[0][0], -item[0][1]))
    if best_k is None or best_s < MIN_SHARE:
        return []
    size, _ = blocking(len(tokens))
    return [
        {
            "question": f"Guess first: of all {run.n_heads:,} heads, which one looks hardest from "
            f"{token_label(tokens, q)} to a single token?",
            "answer": f"Layer {best_l + 1}, head {best_h + 1}: it gives {token_label(tokens, best_k)} "
            f"{whole_percent(best_s)}% of the attention of {said(tokens[q])}.",
            "link": f"#layer={best_l + 1}&head={best_h + 1}&token={q // size * size + 1}",
            "link_text": f"Show layer {best_l + 1}, head {best_h + 1}",
        }
    ]
