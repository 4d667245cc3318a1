"""Figure (f), shapes: the shape of the numbers at each step through the model, for one text.

Reads the shapes measured by forward hooks while the model read the text (run.shape): token ids, after the
embedding, after each layer, and the scores for the next token; the text's tokens (run.n_tokens) and the
feed-forward step's width, from the loaded model's weights (run.n_neurons).

The chart draws each shape as a block to its proportions, as the chapter means them: one strip per token, as
wide as the numbers each token holds, the same scale for every block; the block of the scores, far wider than
a page, is cut, and says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict, cast

from figsite.config import Field, Figure
from figsite.data.records import ModelRecord
from figsite.data.run import Run
from figsite.data.shared_names import DESCRIPTION
from figures import recompute_plain
from figures.kind import Context, Kind, Resolved, Table, Tokens
from figures.toolkit import charts, fields
from figures.toolkit.charts import alt
from figures.toolkit.colours import DATA, ON_DATA
from figures.toolkit.words import agrees, count, heading, thousands

TOKEN_PX = 4  # how tall one token's strip is drawn
BLOCK_PX = 44  # no block is drawn taller: a long text's strips are thinner
THIN_PX = 3  # a block one token tall is drawn at least this tall
NAME_PX = 18  # room above a block for the step's name
GAP_PX = 12  # room below a block
NOTE_PX = 50  # room below a cut block for the words that say so (up to three lines)
CUT_ROOM = 0.25  # a block wider than the widest drawn to scale runs on past it by this share of it, then is cut
CUT_GAP = 0.03  # the gap where a cut block is broken, as a share of the drawn width
THINNEST = 1 / 150  # a block one number wide (the token ids) is drawn this share of the width at least: a line
SMALLEST_VIEW = 280  # px: a block's numbers are written inside it where they fit in a view this wide


def written(shape: Sequence[int]) -> str:
    """A shape as the book writes it: '9 x 768', or '50,257 numbers' for a list."""
    return " x ".join(thousands(d) for d in shape) if len(shape) > 1 else f"{thousands(shape[0])} numbers"


def steps(fig: Figure, run: Run) -> list[tuple[str, list[int], str]]:
    """(label, shape, how it is written) for each step the printed figure shows, in the order the numbers flow."""
    text = fig["text"]
    rows = [("token ids", run.shape(text, "token ids")), ("after the embedding lookup", run.shape(text, "embedding"))]
    rows += [(f"after layer {layer}", run.shape(text, f"layer {layer}")) for layer in fig.resolved["layers"]]
    out = [(label, shape, written(shape)) for label, shape in rows]
    # The model scores every position; the guess for the next token is the last position's row.
    scores = run.shape(text, "scores")[-1:]
    out.append(
        ("scores for the next token", scores, f"{thousands(scores[0])} numbers (one per token in the vocabulary)")
    )
    return out


# ---------------------------------------------------------------------------------------------- the blocks


class _BlockBase(TypedDict):
    order: int
    name: str  # the step
    rows: int  # its tokens (0: the row that says layers are left out)
    width: int  # its numbers per token
    shape: str  # its numbers, written
    top: float  # px from the chart's top
    bottom: float
    drawn: float  # its width as drawn, in numbers per token
    cut: bool
    inside: bool  # its numbers are written inside it
    name_y: float


class Block(_BlockBase, total=False):
    """A block as the chart reads it (block_rows); "note", the words beside or under it, is added by the chart."""

    note: str


def blocks(fig: Figure, run: Run) -> list[tuple[str, int, int, str]]:
    """Each block the chart draws, in order, as (name, tokens, numbers per token, its numbers written): the steps
    of the printed figure, with the feed-forward step of the first layer shown opened up before that layer's
    block, and a row that says so where layers are left out between two shown."""
    n, widened = run.n_tokens(fig["text"]), run.n_neurons
    out: list[tuple[str, int, int, str]] = []
    before: int | None = None
    for label, shape, shape_text in steps(fig, run):
        layer = int(label.split()[-1]) if label.startswith("after layer ") else None
        if layer is not None and before is None:
            out.append((f"inside layer {layer}'s feed-forward step", n, widened, written([n, widened])))
        if layer is not None and before is not None and layer > before + 1:
            skipped = f"layer {before + 1}" if layer == before + 2 else f"layers {before + 1} to {layer - 1}"
            out.append((f"... and {skipped}: the same shape", 0, 0, ""))
        before = layer if layer is not None else before
        if label == "token ids":
            out.append((label, shape[0], 1, shape_text))
        elif len(shape) == 1:  # the scores: one list, for the last token
            out.append((label, 1, shape[0], shape_text))
        else:
            out.append((label, shape[0], shape[-1], shape_text))
    return out


def block_rows(fig: Figure, run: Run) -> tuple[list[Block], float, int]:
    """The blocks as the chart reads them, laid out from the top in px; the width of the view in numbers per
    token; and the chart's height. A block wider than the widest drawn to scale is cut ("cut": its drawn end)."""
    found = blocks(fig, run)
    widest = max(width for _, _, width, _ in found[:-1])  # all but the scores, the last
    room = widest * (1 + CUT_ROOM)
    strip = min(TOKEN_PX, BLOCK_PX / max(tokens for _, tokens, _, _ in found))
    rows: list[Block] = []
    top = 0.0
    for i, (name, tokens, width, shape_text) in enumerate(found):
        height = max(THIN_PX, tokens * strip) if tokens else 0
        drawn = min(max(width, room * THINNEST), room) if width else 0
        inside = height >= 14 and drawn / room * SMALLEST_VIEW >= len(shape_text) * charts.TEXT_EM + 8
        rows.append(
            {
                "order": i,
                "name": name,
                "rows": tokens,
                "width": width,
                "shape": shape_text,
                "top": top + NAME_PX,
                "bottom": top + NAME_PX + height,
                "drawn": drawn,
                "cut": width > room,
                "inside": inside,
                "name_y": top + NAME_PX - 5,
            }
        )
        top += NAME_PX + height + GAP_PX + (NOTE_PX if width > room else 0)
    return rows, room, round(top)


def note(row: Block, widest: int) -> str:
    """What a block's numbers say where they are not written inside it; for a cut block, that it is cut."""
    if not row["cut"]:
        return row["shape"]
    times = row["width"] / widest
    return (
        f"{row['shape']}. The block is cut: drawn to the same scale it would be {times:,.0f} times as wide as "
        f"the {thousands(widest)}-wide block."
    )


class Shapes(Kind[Run]):
    READS = ("tokens", "embedding", "attention", "feed-forward", "numbers", "read-out")
    KIND = "shapes"
    PRINTED_IN_BOOK = True  # the book prints it
    TITLE = "The shape of the numbers as they move through the model"
    CAPTION = "What goes into the model, what each layer hands on, and what comes out, measured during the run."
    GUIDE = (
        "Each block is the numbers held at one step, drawn to their proportions: one thin strip for each token, "
        "as wide as the numbers each token holds, every block to the same scale; its shape is written in it "
        "(tokens x numbers). The scores for the next token are far too wide for the page: that block is cut."
    )
    KEY = (
        "Each block is the numbers held at one step, drawn to scale: as tall as the tokens, as wide as the "
        "numbers each token holds."
    )
    FIELDS = {
        "text": fields.TEXT_FIELD,
        "layers": Field("int_list", "a list of layers to show, numbered from 1 (all layers when left out)"),
    }
    NOTEBOOK = recompute_plain.SHAPES  # each step's size, off the tensors of one pass (the step names the layer)

    def check(self, fig: Figure, tokens: Tokens, model: ModelRecord) -> Resolved:
        """The layers shown: the config's, else every layer of the model."""
        fields.check_text(fig, "text", tokens(fig["text"]), model["n_ctx"])
        layers = fig.values.get("layers", list(range(1, model["n_layer"] + 1)))
        if not layers:
            raise fig.error("layers", "the list is empty", f"one or more layers from 1 to {model['n_layer']}")
        for layer in layers:
            fields.check_layer(fig, "layers", layer, model["n_layer"])
        return {"layers": layers}

    def text_figure(self, fig: Figure, run: Run) -> str:
        lines = [heading(fig, self.TITLE)]
        lines += [f"  {label:<31}{shape_text}" for label, _, shape_text in steps(fig, run)]
        return "\n".join(lines) + "\n"

    def context(self, fig: Figure, run: Run) -> Context:
        n, width, widened = run.n_tokens(fig["text"]), run.d_model, run.n_neurons
        rows, start = count(n, "row"), run.token_texts(fig["text"]).start  # a Llama's <s> goes in too
        going = count(n - start, "token") + (" and the start token" if start else "")
        return {
            "summary": f"{going} {agrees(n, 'goes', 'go')} in; every layer takes {rows} of {width:,} "
            f"numbers and gives back {rows} of {width:,}: the same shape, other values. Inside each layer's feed-forward "
            f"step the rows widen to {widened:,} numbers, then narrow back to {width:,}.",
            "reveals": [],
            "facts": [],
        }

    def tables(self, fig: Figure, run: Run, spec: charts.Spec) -> dict[str, Table]:
        """Each block: its step, its tokens and numbers per token, and its shape as written."""
        rows, _, _ = block_rows(fig, run)
        return {
            "steps": [
                {
                    "step": r["name"],
                    "tokens": r["rows"],
                    "numbers_per_token": r["width"],
                    "numbers": r["rows"] * r["width"],
                    "shape": r["shape"],
                }
                for r in rows
                if r["rows"]
            ]
        }

    def chart(self, fig: Figure, run: Run) -> alt.LayerChart:
        """Each step's numbers as a block to scale under its name, its shape written in it (or beside it)."""
        rows, room, height = block_rows(fig, run)
        widest = max(r["width"] for r in rows if not r["cut"])
        for row in rows:
            row["note"] = "" if row["inside"] else note(row, widest)
        said = "; ".join(f"{r['name']}: {r['shape']}" for r in rows if r["rows"]) + "."
        layers = alt.layer(*block_marks(room, height)).add_params(alt.param(name=DESCRIPTION, value=said))
        return charts.with_data(
            cast(
                "alt.LayerChart",
                layers.properties(width="container", height=height, view=alt.ViewBackground(stroke=None)),
            ),
            blocks=rows,
        )


def block_marks(room: float, height: int) -> list[alt.Chart]:
    """The marks of the blocks chart: the blocks (a cut one in two pieces with a break between), the names above
    them, the shapes written inside or beside them."""
    xs = alt.Scale(domain=[0, room], nice=False, zero=True)
    ys = alt.Scale(domain=[0, height], reverse=True, nice=False, zero=True)
    x, y = alt.X("x0:Q", scale=xs, axis=None), alt.Y("top:Q", scale=ys, axis=None)
    base = alt.Chart(alt.NamedData("blocks")).transform_filter("datum.rows > 0")
    cut_at = room * (1 - 2 * CUT_GAP)
    left = base.transform_calculate(x0="0", x1=f"datum.cut ? {cut_at} : datum.drawn")
    right = base.transform_filter("datum.cut").transform_calculate(x0=f"{cut_at + room * CUT_GAP}", x1=f"{room}")
    tooltip = [alt.Tooltip("name:N", title="step"), alt.Tooltip("shape:N", title="shape")]
    # Each block says its step and shape to a screen reader; the words drawn beside it are not read twice.
    said = "datum.name + ': ' + (datum.cut ? datum.note : datum.shape)"
    marks = [
        part.transform_calculate(said=said)
        .mark_rect(color=DATA)
        .encode(x=x, x2="x1:Q", y=y, y2="bottom:Q", tooltip=tooltip, description="said:N")
        for part in (left, right)
    ]
    # The break in a cut block: two slanted strokes across the gap, taller than the block.
    for offset in (0.1, 0.5):
        slash = (
            base.transform_filter("datum.cut")
            .transform_calculate(
                a=f"{cut_at + room * CUT_GAP * offset}",
                b=f"{cut_at + room * CUT_GAP * (offset + 0.4)}",
                y0="datum.top - 6",
                y1="datum.bottom + 6",
            )
            .mark_rule(color=DATA, strokeWidth=1.5, aria=False)
        )
        marks.append(slash.encode(x=alt.X("a:Q", scale=xs), x2="b:Q", y=alt.Y("y1:Q", scale=ys), y2="y0:Q"))
    names = (
        alt.Chart(alt.NamedData("blocks"))
        .mark_text(align="left", baseline="alphabetic", fontSize=12, aria=False)
        .encode(x=alt.value(0), y=alt.Y("name_y:Q", scale=ys), text="name:N", tooltip=tooltip)
    )
    inside = (
        base.transform_filter("datum.inside")
        .mark_text(align="left", baseline="middle", dx=6, fontSize=12, fontWeight="bold", color=ON_DATA, aria=False)
        .encode(x=alt.value(0), y=alt.Y("middle:Q", scale=ys), text="shape:N", tooltip=tooltip)
        .transform_calculate(middle="(datum.top + datum.bottom) / 2")
    )
    beside = (
        base.transform_filter("!datum.inside && !datum.cut")
        .mark_text(align="left", baseline="middle", dx=6, fontSize=12, aria=False)
        .encode(x=alt.X("drawn:Q", scale=xs), y=alt.Y("middle:Q", scale=ys), text="note:N", tooltip=tooltip)
        .transform_calculate(middle="(datum.top + datum.bottom) / 2")
    )
    under = (
        base.transform_filter("datum.cut")
        .transform_calculate(said=charts.wrap_lines("datum.note"))
        .mark_text(align="left", baseline="top", dy=4, fontSize=12, lineBreak="\n", aria=False)
        .encode(x=alt.value(0), y=alt.Y("bottom:Q", scale=ys), text="said:N", tooltip=tooltip)
    )
    return marks + [names, inside, beside, under]
