"""Two texts that share a beginning: how far each token's numbers (the residual stream) differ between them,
token by token and layer by layer.

Reads the comparison of the two texts (run.distances: the length of the difference of the two residual
vectors at every stage and position; run.shared_tokens) and both texts' tokens (run.token_texts). Up to the
last shared token the difference is exactly zero, because no token looks to the right; after it, the numbers
part ways.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypedDict, cast

from figsite.config import Field, Figure
from figsite.data.asks import Asks
from figsite.data.run import Run
from figsite.data.shared_names import DESCRIPTION
from figures import recompute_stream
from figures.kind import Context, Kind, LiveOpening, LiveShape, Resolved, Tokens
from figures.toolkit import charts, fields, textless
from figures.toolkit.charts import alt
from figures.toolkit.colours import ASIDE, CELL_LINE
from figures.toolkit.words import count, escaped, heading, number, said, shown, token_label

if TYPE_CHECKING:
    from figsite.data.records import ModelRecord

MARK = "\u25b6 "  # before the name of the row the question asks about: "▶ 9: _it"
ASKED = " it"  # the token the chapter's question asks about, where the config names none and the texts share it


class _CellBase(TypedDict):
    stage: int
    position: int
    token: str  # the two texts' tokens there: one where they are the same ("_it"), else both ("_tired / _wide")
    distance: float


class Cell(_CellBase, total=False):
    """One cell of the grid: a stage and a position both texts have, and how far apart their numbers are there;
    "name", the row's name as the chart writes it ("9: _it"), put in by grid_chart."""

    name: str


def shared_count(a: Sequence[str], b: Sequence[str]) -> int:
    """How many tokens the two texts share at their start."""
    return next((q for q, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def rows(fig: Figure, run: Run) -> list[Cell]:
    """One row per stage and position both texts have: the distance and the two tokens there."""
    a, b = (run.token_texts(text) for text in fig["texts"])
    return [
        {"stage": s, "position": q, "token": label(a[q], b[q]), "distance": d}
        for s, row in enumerate(run.distances(*fig["texts"]))
        for q, d in enumerate(row)
    ]


def label(token_a: str, token_b: str) -> str:
    return shown(token_a) if token_a == token_b else f"{shown(token_a)} / {shown(token_b)}"


def sentence(fig: Figure, run: Run) -> str:
    """The finding in words, from the data."""
    a = run.token_texts(fig["texts"][0])
    shared, distance = run.shared_tokens(*fig["texts"]), run.distances(*fig["texts"])
    zero_until = next((q for q in range(len(distance[0])) if any(row[q] != 0 for row in distance)), len(distance[0]))
    n_layer = len(distance) - 1
    words: list[str] = []
    if zero_until > a.start:  # the start token alone is no text of the reader's to be the same in
        words.append(
            f"Up to token {number(a, zero_until - 1)} ({said(a[zero_until - 1])}) the numbers of both texts are "
            f"exactly the same before and after every layer: no token looks to the right, so what comes later "
            f"cannot change them."
        )
    if zero_until < len(distance[0]):
        first = number(a, zero_until)
        words.append(
            f"From token {first} on they differ; after layer {n_layer} token {first} "
            f"is {distance[-1][zero_until]:.3g} apart."
        )
    if zero_until != shared:
        words.append(f"(The texts share {count(shared, 'token')}.)")
    return " ".join(words)


class Compare(Kind[Run]):
    READS = ("numbers",)
    KIND = "compare"
    TITLE = "Two texts with the same beginning: where do their numbers part?"
    CAPTION = (
        "The same words at the start give the same numbers, layer after layer, because no token looks to "
        "the right. Each cell shows how far one token's numbers differ between the two texts."
    )
    GUIDE = (
        f"Rows are tokens, columns are layers: after layer N (0: before any layer). A cell that reads 0 is "
        "exactly zero: there the two texts' numbers are the same. Otherwise, the brighter a cell (from dark "
        f"purple to yellow), the further apart the two texts' numbers are there. The row marked {MARK.strip()} "
        "is the token the question below asks about. {Hover} a cell for the value."
    )
    KEY = (
        "Each cell is one token (a row) after one layer (a column): 0 where both texts' numbers are the same, "
        "and the brighter, the further apart."
    )
    FIELDS = {
        "texts": Field(
            "text_pair",
            'two different texts that share a beginning, e.g. "...too tired" and "...too wide"',
            required=True,
        ),
        "focus": Field(
            "position_or_text",
            "the token the 'guess first' question asks about, marked in the chart: "
            "its number or its text; default 'it' where the texts share that token, "
            "else the last token they share",
        ),
    }
    EXPLORE = True
    LIVE = 6  # after find-head
    NOTEBOOK = recompute_stream.COMPARE  # both texts' residual streams at every stage, and how far apart they are

    def notebook_params(self, fig: Figure, run: Run) -> dict[str, Any]:
        """The notebook reads the first text (its IDS); its recompute, the ids of the second."""
        return {"IDS_B": [token["id"] for token in run.tokens(fig["texts"][1])]}

    def textless_chart(self, model: LiveShape, opening: LiveOpening, narrow: bool = False) -> alt.LayerChart:
        """The grid with no text in it: the page puts in the reader's two texts' `cells` (live_data.CELLS) and says
        in `description` where their numbers part (templates/js/live/pair.js)."""
        return textless_grid(model["n_layer"], narrow)

    def asks(self, fig: Figure) -> Asks:
        return Asks(
            texts={text: None for text in fig["texts"]},
            parts={"pairs": [list(fig["texts"])]},
            config=self.config_of(fig, "texts"),
        )

    def check(self, fig: Figure, tokens: Tokens, model: ModelRecord) -> Resolved:
        a, b = (tokens(text) for text in fig["texts"])
        for text_tokens in (a, b):
            fields.check_text(fig, "texts", text_tokens, model["n_ctx"])
        start = fields.start_of(a)  # the model's start token leads both: the texts' own first tokens must agree
        if a[start] != b[start]:
            raise fig.error(
                "texts", "the two texts begin with different tokens", "two texts that share at least their first token"
            )
        shared = shared_count(a, b)
        if "focus" not in fig.values:
            asked = [q for q in range(shared) if a[q] == ASKED]
            return {"opening": asked[0] if len(asked) == 1 else shared - 1}
        focus = fields.resolve_position(fig, "focus", fig["focus"], a)
        if focus >= len(b):
            raise fig.error(
                "focus",
                f"token {focus + 1 - start} is past the end of the second text",
                f"a token both texts have: 1 to {len(b) - start}",
            )
        return {"opening": focus}

    def text_figure(self, fig: Figure, run: Run) -> str:
        distance = run.distances(*fig["texts"])
        a, b = (run.token_texts(text) for text in fig["texts"])
        lines = [
            heading(fig, self.TITLE),
            f'  A: "{escaped(fig["texts"][0])}"',
            f'  B: "{escaped(fig["texts"][1])}"',
            "  distance between A's and B's numbers, token by token (rows), after each layer (columns; 0: "
            "before any layer)",
        ]
        stages = len(distance)
        lines.append("  " + " " * 24 + "".join(f"{s:>9}" for s in range(stages)))
        for q in range(len(distance[0])):
            cells = "".join(f"{distance[s][q]:>9.3g}" if distance[s][q] else f"{'0':>9}" for s in range(stages))
            lines.append(f"  {number(a, q):>3} {label(a[q], b[q])[:20]:<20}" + cells)
        lines.append("  " + sentence(fig, run))
        return "\n".join(lines) + "\n"

    def context(self, fig: Figure, run: Run) -> Context:
        words, q = sentence(fig, run), fig.opening
        a = run.token_texts(fig["texts"][0])
        changed = any(row[q] != 0 for row in run.distances(*fig["texts"]))
        answer = (
            f"Yes: {token_label(a, q)} comes where the texts differ, or after. "
            if changed
            else f"Not at all, in any layer: {token_label(a, q)} comes before the words that differ. "
        )
        return {
            "summary": words,
            "reveals": [
                {
                    "question": f"Guess first: does the word at the end change the numbers of {said(a[q])}?",
                    "answer": answer + words,
                }
            ],
            "facts": [],
        }

    def chart(self, fig: Figure, run: Run) -> alt.LayerChart:
        """A token x layer grid; exactly-zero cells drawn empty with a 0 in them, so that 'the same' reads at a
        glance; the row the question asks about marked."""
        return grid_chart(fig, run)

    def narrow_chart(self, fig: Figure, run: Run) -> alt.LayerChart:
        """For a column narrower than 480 px: the legend under the grid, and cells charts.TAP px wide, which a finger
        can tap and in which the 0s stay readable; wider than a phone's column (GPT-2's 13 stages), the chart scrolls
        in its own box."""
        return grid_chart(fig, run, narrow=True)


def grid_chart(fig: Figure, run: Run, narrow: bool = False) -> alt.LayerChart:
    """The token x layer grid of the two texts' distances (rows), its legend beside it or (narrow) under it."""
    data, first = rows(fig, run), run.token_texts(fig["texts"][0])
    for row in data:
        row["name"] = f"{number(first, row['position'])}: {row['token']}"
    labels = sorted({row["name"] for row in data}, key=lambda name: int(name.split(":")[0]))
    asked = f"datum.value == {charts.literal(labels[fig.opening])}"
    axis = alt.Axis(
        labelFontSize=12,
        labelFontWeight=alt.ExprRef(f"{asked} ? 'bold' : 'normal'"),
        labelExpr=f"({asked} ? {charts.literal(MARK)} : '') + datum.value",
    )
    grid = _grid(alt.Y("name:N", title=None, sort=labels, axis=axis), narrow)
    return charts.with_data(
        cast(
            "alt.LayerChart",
            grid.add_params(alt.param(name=DESCRIPTION, value=sentence(fig, run))).properties(
                width=alt.Step(charts.TAP) if narrow else "container", height=max(120, 26 * len(labels))
            ),
        ),
        cells=data,
    )


def textless_grid(n_layer: int, narrow: bool = False) -> alt.LayerChart:
    """The grid for two texts the page puts in (`cells`, rows in the order of their positions; the reader's texts
    have no question, so no row is marked), 26 px a row; its `description` the page's sentence."""
    y = alt.Y("name:N", title=None, sort=alt.EncodingSortField("position", op="min"), axis=alt.Axis(labelFontSize=12))
    grid = _grid(y, narrow).add_params(alt.param(name=DESCRIPTION, value=""))
    sized = grid.properties(width=alt.Step(charts.TAP) if narrow else "container", height=alt.Step(26))
    return charts.with_data(cast("alt.LayerChart", sized), cells=textless.empty(n_layer, 1)["cells"])


def _grid(y: alt.Y, narrow: bool) -> alt.LayerChart:
    """The cells of `cells` by stage (columns) and row (`y`), coloured by distance, an exact 0 written in an empty
    cell; the legend beside the grid, or (narrow) under it."""
    base = charts.named_stages(alt.Chart(alt.NamedData("cells"))).encode(
        x=alt.X("stage:O", title="after layer (0: before any layer)", axis=alt.Axis(labelAngle=0)),
        y=y,
        # The "0" written in a cell shows the cell's tooltip too.
        tooltip=[alt.Tooltip("name:N", title="token"), charts.stage_tip(), alt.Tooltip("distance:Q", format=".4g")],
    )
    grid = base.mark_rect(stroke=CELL_LINE, strokeWidth=0.5).encode(
        color=alt.condition(
            "datum.distance == 0",
            alt.value("transparent"),
            alt.Color(
                "distance:Q",
                scale=charts.sequential(),
                title=["distance", "(exactly 0: an empty cell)"],
                legend=alt.Legend(orient="bottom", direction="horizontal") if narrow else alt.Undefined,
            ),
        )
    )
    zeros = (
        base.mark_text(fontSize=10, opacity=ASIDE).encode(text=alt.value("0")).transform_filter("datum.distance == 0")
    )
    return cast("alt.LayerChart", alt.layer(grid, zeros))
