"""How one share is worked out: in one head, the asking token's query meets every earlier token's key.

Reads the figure's entry of the part "scores" (Scores.entry; computed by figsite/capture/parts/scores.py): the
query "q" of the asking token, the key "k" of every token up to it in that head, and the "shares" the model
gave; and the text's tokens (run.token_texts). The page
multiplies q and each k_j number by number, adds the products up to the fit q . k_j, divides by the square root
of the head's width, and turns the fits into shares with the softmax; a temperature slider divides the scaled
fits once more, worked out again in the page. The chart's parts are in figures.scores_chart.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, cast

from figsite.config import Field, Figure
from figsite.data.part_records import Ask, ScoresEntry
from figsite.data.records import ModelRecord
from figsite.data.run import Run
from figsite.data.shared_names import DESCRIPTION
from figsite.data.token_texts import TokenTexts
from figures import recompute_heads
from figures.kind import Context, PartKind, Resolved, Reveal, Table, Tokens
from figures.records import KeyRow
from figures.scores_chart import FOLLOWED_MARK, OUT_OF_WINDOW, QUESTION, bars_charts, products_chart, strips_chart
from figures.toolkit import charts, fields, terms
from figures.toolkit.charts import alt
from figures.toolkit.colours import CHOSEN_NAME, NEGATIVE_NAME, POSITIVE_NAME
from figures.toolkit.words import agrees, count, escaped, heading, number, said, shown, token_label, token_name


# ---------------------------------------------------------------------------------------------- data


def worked_out(
    q: Sequence[float], keys: Sequence[Sequence[float]], scores: Sequence[float | None] | None = None
) -> list[KeyRow]:
    """For each key: its fit q . k (the sum of the products), the fit scaled (by the square root of the width, or
    the model's own scaled fits `scores`, None for a key the model hides: "hidden"), its share (the softmax of the
    scaled fits) and the running total of the shares, in float64."""
    root = math.sqrt(len(q))
    fits = [math.fsum(a * b for a, b in zip(q, k)) for k in keys]
    scaled = [fit / root for fit in fits] if scores is None else scores
    top = max(s for s in scaled if s is not None)
    weights = [0.0 if s is None else math.exp(s - top) for s in scaled]
    total = math.fsum(weights)
    rows: list[KeyRow] = []
    running = 0.0
    for j, (fit, s, w) in enumerate(zip(fits, scaled, weights)):
        running += w / total
        row: KeyRow = {"key": j, "fit": fit, "scaled": s, "share": w / total, "running": running}
        if s is None:
            row["hidden"] = True
        rows.append(row)
    return rows


def divisor(found: ScoresEntry) -> float:
    """What the model divides each fit by: the square root of the head's width, or where the entry holds the model's
    own scores (a GPT-2 that divides by the layer's number too), the fit over the score of the key it scores
    furthest from 0."""
    if "scores" not in found:
        return math.sqrt(len(found["q"]))
    rows = worked_out(found["q"], found["k"])
    j, score = max(((j, s) for j, s in enumerate(found["scores"]) if s is not None), key=lambda js: abs(js[1]))
    return rows[j]["fit"] / score if score else math.sqrt(len(found["q"]))


def rows_of(found: ScoresEntry) -> list[KeyRow]:
    """worked_out for the figure's head and token (its entry), with the model's own share beside each computed one."""
    rows = worked_out(found["q"], found["k"], found.get("scores"))
    for row, model_share in zip(rows, found["shares"]):
        row["model_share"] = model_share
    return rows


def describe(tokens: TokenTexts, query: int, row: KeyRow) -> str:
    """One key in words: how well it fits the asking token, and its share (a key the model hides: too far back)."""
    if row["scaled"] is None:
        return f"{token_label(tokens, row['key'])}: {OUT_OF_WINDOW} for {token_label(tokens, query)}, share 0%"
    return (
        f"{token_label(tokens, row['key'])}: fit {row['fit']:.3f}, scaled {row['scaled']:.3f}, "
        f"share {row['share'] * 100:.2f}% of what {token_label(tokens, query)} takes in"
    )


class Scores(PartKind):
    READS = ("attention",)
    KIND = "scores"
    TITLE = "How one share of attention is worked out: a question meets each token's description"
    CAPTION = (
        "In one head, the token that looks forms a question: a list of numbers. Every token up to it offers a "
        "description: a list of numbers too. Multiplying them number by number and adding up says how well "
        "each token fits the question; the fits become shares that add up to 100%."
    )
    GUIDE = (
        f"The strips show the question and each token's description, one cell per number: {NEGATIVE_NAME} "
        f"below zero, {POSITIVE_NAME} above, faint near zero (the page's own colour); below them, their "
        f"products. Choose a token to see its description: drawn in {CHOSEN_NAME}, its name marked "
        f"{FOLLOWED_MARK.strip()}. The bars give how well each description fits the question, and the share of "
        "attention it earns."
    )
    FIELDS = {
        "text": fields.TEXT_FIELD,
        "focus": fields.token_field("the token that asks"),
        "head": Field("int_list", "[layer, head], numbered from 1", required=True),
    }
    EXPLORE = True
    PART = "scores"
    NOTEBOOK = recompute_heads.SCORES  # the head's query and keys as its attention receives them, and the shares

    def notebook_params(self, fig: Figure, run: Run) -> dict[str, Any]:
        """The notebook's recompute reads the layer, the head and the asking token (0-based, the token as the
        model counts), and whether a start token leads the text (the page numbers it 0)."""
        start = run.token_texts(fig["text"]).start
        return {"LAYER": fig.resolved["layer"], "HEAD": fig.resolved["head"], "QUERY": fig.opening, "START": start}

    def check(self, fig: Figure, tokens: Tokens, model: ModelRecord) -> Resolved:
        """The asking token ("opening") and the head, 0-based."""
        text_tokens = tokens(fig["text"])
        fields.check_text(fig, "text", text_tokens, model["n_ctx"])
        layer, head = fields.check_view(fig, "head", fig["head"], model)
        return {"opening": fields.opening(fig, "focus", text_tokens), "layer": layer - 1, "head": head - 1}

    def ask(self, fig: Figure) -> Ask:
        """The head (0-based layer and head) and the asking token."""
        return [fig["text"], fig.resolved["layer"], fig.resolved["head"], fig.opening]

    def entry(self, fig: Figure, run: Run) -> ScoresEntry:
        return run.part("scores", self.ask(fig))

    def key(self, fig: Figure, run: Run) -> str:
        """What a cell of a strip is, with the model's head width."""
        return (
            f"Each cell of a strip is one of the head's {run.head_width} numbers. A token's strip "
            "times the question's, cell by cell, added up, is how well it fits."
        )

    def text_figure(self, fig: Figure, run: Run) -> str:
        """The table: token | fit | fit divided by the root of the width | share; tokens after the asking one masked."""
        tokens, q, found = run.token_texts(fig["text"]), fig.opening, self.entry(fig, run)
        rows, width, scale = rows_of(found), len(found["q"]), divisor(found)
        names = [token_name(tokens, j) for j in range(len(tokens))]
        name_width = max(12, *(len(n) + 2 for n in names))
        divided = f"fit / {scale:g}"
        column = max(12, len(divided) + 2)  # 'fit / 11.3137' (heads of 128 numbers) keeps a gap before it
        lines = [
            heading(fig, self.TITLE),
            f'  "{escaped(fig["text"])}"',
            f"  {token_label(tokens, q)} asks in layer {fig['head'][0]}, head {fig['head'][1]}: "
            f"fit = question . description over {width} numbers, {divided_by(width, scale)}",
            f"  {'token':<{name_width}}{'fit':>10}{divided:>{column}}{'share':>10}",
        ]
        for j, name in enumerate(names):
            if j <= q and rows[j].get("hidden"):
                lines.append(f"  {name:<{name_width}}{OUT_OF_WINDOW:>{column + 20}}")
            elif j <= q:
                row = rows[j]
                lines.append(
                    f"  {name:<{name_width}}{row['fit']:>10.3f}{row['scaled']:>{column}.3f}{row['share'] * 100:>9.2f}%"
                )
            else:
                lines.append(f"  {name:<{name_width}}{'out of reach: it comes after':>{column + 20}}")
        return "\n".join(lines) + "\n"

    def context(self, fig: Figure, run: Run) -> Context:
        """The words beside the chart: the largest share, the check against the model, the guess-first answer."""
        tokens, q, found = run.token_texts(fig["text"]), fig.opening, self.entry(fig, run)
        rows = rows_of(found)
        best = max(rows, key=lambda row: (row["share"], -row["key"]))
        layer, head = fig["head"]
        width = len(found["q"])
        gap = max(abs(row["share"] - row["model_share"]) for row in rows)
        summary = (
            f"In layer {layer}, head {head}, {token_label(tokens, q)} asks its question; the description of "
            f"{token_label(tokens, best['key'])} fits best, and it takes {best['share'] * 100:.2f}% of its attention."
        )
        facts: list[str] = []
        # Technical extras, folded away under "More detail" on the page.
        details = [
            f"Worked out here from the {width} numbers of the question (the query) and of each description (a key), "
            f"the shares agree with the model's own attention to within {max(gap, 1e-9):.0e}.",
            (
                f"Each fit is divided by {math.sqrt(width):g}, the square root of the {width} numbers a head works with"
                if divisor(found) == math.sqrt(width)
                else f"Each fit is {divided_by(width, divisor(found))}"
            )
            + ": without it, wide heads would give fits so large that one token would take almost everything.",
            terms.SPREAD,
        ]
        if q + 1 < len(tokens):
            after = len(tokens) - q - 1
            facts.append(
                f"The {count(after, 'token')} after {said(tokens[q])} {agrees(after, 'is', 'are')} out of its "
                "reach: a token "
                "never looks at the ones after it."
            )
        reveal: Reveal = {
            "question": f"Guess first: which token gets the largest share of {token_label(tokens, q)}'s "
            f"attention in layer {layer}, head {head}?",
            "answer": f"{token_label(tokens, best['key'])}, with {best['share'] * 100:.2f}%.",
            "link": f"#key={best['key'] + 1}",
            "link_text": f"Show token {number(tokens, best['key'])}'s description",
        }
        return {"summary": summary, "reveals": [reveal], "facts": facts, "details": details}

    def tables(self, fig: Figure, run: Run, spec: charts.Spec) -> dict[str, Table]:
        """The downloads: each token's fit, scaled fit, share and running total; the query's and keys' numbers."""
        tokens, found = run.token_texts(fig["text"]), self.entry(fig, run)
        return {
            "shares": [
                {
                    "token": number(tokens, row["key"]),
                    "text": shown(tokens[row["key"]]),
                    "fit": round(row["fit"], 6),
                    "scaled": None if row["scaled"] is None else round(row["scaled"], 6),
                    "share": round(row["share"], 8),
                    "running_total": round(row["running"], 8),
                    "model_share": row["model_share"],
                }
                for row in rows_of(found)
            ],
            "vectors": [
                {"vector": "query", "token": number(tokens, fig.opening), "number": i + 1, "value": v}
                for i, v in enumerate(found["q"])
            ]
            + [
                {"vector": "key", "token": number(tokens, j), "number": i + 1, "value": v}
                for j, k in enumerate(found["k"])
                for i, v in enumerate(k)
            ],
        }

    def chart(self, fig: Figure, run: Run) -> alt.VConcatChart:
        """The strips of the query and the keys, their products, and the fit, scaled fit and share of each token."""
        tokens, q = run.token_texts(fig["text"]), fig.opening
        found = self.entry(fig, run)
        rows = rows_of(found)
        names = [token_name(tokens, j) for j in range(len(tokens))]
        strips, products, bars = chart_rows(found, rows, names, q)
        params = chart_params(tokens, q, rows, names)
        return charts.with_data(
            charts.with_params(
                charts.fits_column(
                    alt.vconcat(
                        strips_chart(names, q, len(found["q"])),
                        products_chart(names, q, len(found["q"])),
                        *bars_charts(names, len(found["q"]), divisor(found), "scores" in found),
                        spacing=24,
                    )
                ),
                *params,
            ),
            strips=strips,
            products=products,
            bars=bars,
        )


def chart_rows(
    found: ScoresEntry, rows: list[KeyRow], names: list[str], q: int
) -> tuple[list[dict[str, object]], list[dict[str, object]], list[dict[str, object]]]:
    """The page's data: every number of the query and the keys, every product, and each token's bar values."""
    width = len(found["q"])
    strips = [{"row": QUESTION, "i": i + 1, "v": round(v, 5)} for i, v in enumerate(found["q"])]
    strips += [
        {"row": names[j], "j": j + 1, "i": i + 1, "v": round(v, 5)}
        for j, k in enumerate(found["k"])
        for i, v in enumerate(k)
    ]
    products = [
        {"row": names[j], "j": j + 1, "i": i + 1, "v": round(found["q"][i] * k[i], 5)}
        for j, k in enumerate(found["k"])
        for i in range(width)
    ]
    bars = [
        {
            "row": names[j],
            "j": j + 1,
            "masked": j > q or "hidden" in rows[j],  # a key not hidden is scaled:
            **(
                {"fit": round(rows[j]["fit"], 6), "scaled": round(cast(float, rows[j]["scaled"]), 9)}
                if j <= q and "hidden" not in rows[j]
                else {}
            ),
            **({"far": True} if j <= q and "hidden" in rows[j] else {}),
        }
        for j in range(len(names))
    ]
    return strips, products, bars


def chart_params(tokens: TokenTexts, q: int, rows: list[KeyRow], names: list[str]) -> list[alt.Parameter]:
    """The key select, the temperature slider ("Spread"), and the words for the followed key."""
    best = max(rows, key=lambda row: (row["share"], -row["key"]))
    key = alt.param(
        name="key",
        value=best["key"] + 1,
        bind=alt.binding_select(options=[j + 1 for j in range(q + 1)], labels=names[: q + 1], name="Chosen token "),
    )
    temperature = alt.param(
        name="T", value=1, bind=alt.binding_range(min=0.1, max=4, step=0.05, name="Spread the shares (1: the model's) ")
    )
    said = alt.param(name="keys_said", value={str(row["key"] + 1): describe(tokens, q, row) for row in rows})
    description = alt.param(
        name=DESCRIPTION,
        expr=(
            "keys_said[key + ''] + (T == 1 ? ', as the model gives it.' : ' as the model gives it; with the shares spread "
            "at ' + T + ' the fits are divided by ' + T + ' before they become shares.')"
        ),
    )
    return [key, temperature, said, description]


def divided_by(width: int, scale: float) -> str:
    """What each fit is divided by, in words: the square root of the head's width, or the model's own scale."""
    root = math.sqrt(width)
    if scale == root:
        return f"divided by the square root of {width}, {root:g}"
    return (
        f"divided by {scale:.6g}: the square root of {width}, {root:g}, times {scale / root:.4g}, the model's own scale"
    )
