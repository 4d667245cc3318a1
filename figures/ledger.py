"""Who wrote the answer: the target's final score at one position split into the parts that add up to it.

GPT-2's residual stream at the end is a sum (the token's embedding, the position's embedding, and what each
layer's attention and feed-forward step add), and with the final layer norm's scale held at the value the model
computed, the score (logit) of a token is that sum read through the unembedding, plus the layer norm's bias: so
the score splits into parts that add up to it exactly (see figsite/capture/parts/ledgers.py).

Reads the figure's entry of the part "ledgers" (Ledger.entry; computed by figsite/capture/parts/ledgers.py):
"parts" (each part's share of the target's and the versus token's score), "score" (the model's own scores),
"heads" (each layer's attention part split into its heads and bias), "neurons" (each feed-forward part's largest
neurons, the others together, the bias), "stages" (the target's probability after each half-layer, the size of
each correction and of the stream it is added to), "sigma" (the final layer norm's divisor); and the text's
tokens (run.token_texts), the feed-forward step's neurons (run.n_neurons). The numbers are worked out in
figures.ledger_parts, the marks drawn in figures.ledger_chart.
"""

from __future__ import annotations

from typing import Any, cast

from figsite.config import Field, Figure
from figsite.data.part_records import Ask, LedgerEntry
from figsite.data.records import ModelRecord
from figsite.data.run import Run
from figsite.data.shared_names import DESCRIPTION
from figures import recompute_stream
from figures.kind import Context, PartKind, Resolved, Reveal, Table, Tokens
from figures.ledger_parts import (
    DECIMALS,
    KEPT,
    describe,
    head_table,
    inside,
    inside_title,
    largest,
    layer_parts,
    neuron_table,
    opening_part,
    rows,
    score_names,
    signed,
    stage_name,
    stage_x,
    totals,
)
from figures.records import Score
from figures.ledger_chart import SIZES, TOTAL, curve_charts, inside_chart, split_chart
from figures.toolkit import charts, fields, terms
from figures.toolkit.charts import alt
from figures.toolkit.colours import DATA_NAME, FOLLOWED_NAME, HELPS_NAME, HURTS_NAME
from figures.toolkit.words import escaped, heading, said, shown, token_label


# ---------------------------------------------------------------------------------------------- the kind


class Ledger(PartKind):
    READS = ("attention", "feed-forward")  # what each part adds to the score
    KIND = "ledger"
    TITLE = "Each layer adds a correction: who wrote the answer?"
    CAPTION = (
        f"{terms.SCORE} That score is a sum: a part from the token's own embedding, one from its position, "
        "one from each layer's attention and feed-forward step, and a fixed part, the same for every text. "
        "Here one token's score is taken apart, so you can see which layers wrote the answer."
    )
    GUIDE = (
        "Choose whose score to split: the target's alone, or how far it is ahead of its rival. Each bar "
        "starts where the one above it ended, so the last bar (in "
        + DATA_NAME
        + ") is the model's score: in "
        + HELPS_NAME
        + ", a part "
        "that raises the score and so helps the answer; in " + HURTS_NAME + ", one that lowers it and works "
        "against the answer. Choose a layer's attention or feed-forward part to see it split into its heads or "
        "its neurons. The curves follow the target's chance after every half-layer (in " + FOLLOWED_NAME + "), "
        'and how large each correction is next to the numbers it is added to. Choose a layer\'s bar (click or tap) to see it split; the "Look inside" '
        "menu does the same from the keyboard."
    )
    KEY = f"Each bar starts where the one above ended: {HELPS_NAME} raises the score, {HURTS_NAME} lowers it."

    def caption(self, model: ModelRecord) -> str:
        """CAPTION, or for a model that adds no position numbers (its positions turned into the question and the
        description) and whose layer normalisation adds no fixed part, the parts it has."""
        if model.get("positions") != "rotary" and model.get("norm") != "rmsnorm":
            return self.CAPTION
        parts = ["a part from the token's own embedding"]
        if model.get("positions") != "rotary":
            parts.append("one from its position")
        parts.append("one from each layer's attention and feed-forward step")
        if model.get("norm") != "rmsnorm":
            parts.append("and a fixed part, the same for every text")
        return self.CAPTION.replace(
            "a part from the token's own embedding, one from its position, one from each "
            "layer's attention and feed-forward step, and a fixed part, the same for every "
            "text",
            ", ".join(parts),
        )

    FIELDS = {
        "text": fields.TEXT_FIELD,
        "target": fields.TARGET_FIELD,
        "position": fields.POSITION_FIELD,
        "versus": Field(
            "text",
            "one token other than the target to compare it with, e.g. ' Germany' (default: "
            "the model's top guess other than the target)",
        ),
    }
    EXPLORE = True
    PART = "ledgers"
    NOTEBOOK = recompute_stream.LEDGER  # what every part, head and neuron writes into the stream towards each score

    def notebook_params(self, fig: Figure, run: Run) -> dict[str, Any]:
        """The notebook's recompute reads the read position (0-based), the target's id and the versus token's (the
        one the figure names, or the model's top guess other than the target)."""
        ledger = self.entry(fig, run)
        return {"POSITION": fig.opening, "TARGET_ID": ledger["target"]["id"], "VERSUS_ID": ledger["versus"]["id"]}

    def named(self, fig: Figure) -> tuple[str, ...]:
        return (fig["target"], *([fig["versus"]] if "versus" in fig.values else []))

    def ask(self, fig: Figure) -> Ask:
        """The read position (0-based), the target, and the versus token or None (the model's top other guess)."""
        return [fig["text"], fig.opening, fig["target"], fig.values.get("versus")]

    def entry(self, fig: Figure, run: Run) -> LedgerEntry:
        return run.part("ledgers", self.ask(fig))

    def check(self, fig: Figure, tokens: Tokens, model: ModelRecord) -> Resolved:
        """The read token ("opening", 0-based); the target and versus must be one token each, and differ."""
        _, target, read = fields.check_read_target(fig, tokens, model)
        if "versus" in fig.values:
            versus = tokens(fig["versus"])
            fields.check_one_token(fig, "versus", versus)
            if versus == target:
                raise fig.error(
                    "versus",
                    f"{fig['versus']!r} is the target itself",
                    "one token other than the target, e.g. ' Germany'",
                )
        return {"opening": read}

    def text_figure(self, fig: Figure, run: Run) -> str:
        """One line per part, numbered from 1: its share of the target's score, the versus token's and their
        difference; the last line the sums beside the model's own scores."""
        ledger = self.entry(fig, run)
        tokens = run.token_texts(fig["text"])
        target, versus = shown(ledger["target"]["text"]), shown(ledger["versus"]["text"])
        width = max(20, len(target) + 2, len(versus) + 2)  # the last line's "sum (score)" fits
        lines = [
            heading(fig, self.TITLE),
            f'  "{escaped(fig["text"])}"',
            f"  the next-token scores at {token_label(tokens, fig.opening)}, split into parts",
            f"  {'':>3}  {'part':<24}{target:>{width}}{versus:>{width}}{'difference':>{width}}",
        ]
        for r in rows(ledger):
            lines.append(
                f"  {r['n']:>3}  {r['part']:<24}"
                + "".join(f"{signed(r[key]):>{width}}" for key in ("target", "versus", "difference"))
            )
        sums = totals(ledger)
        lines.append(
            f"  {'':>3}  {'sum (the model)':<24}"
            + "".join(
                f"{sums['sum'][key]:.{DECIMALS}f} ({sums['score'][key]:.{DECIMALS}f})".rjust(width)
                for key in ("target", "versus", "difference")
            )
        )
        return "\n".join(lines) + "\n"

    def context(self, fig: Figure, run: Run) -> Context:
        """The opening state, the check that the parts add up, what the split holds fixed, and a guess first."""
        ledger = self.entry(fig, run)
        tokens = run.token_texts(fig["text"])
        target, versus = said(ledger["target"]["text"]), said(ledger["versus"]["text"])
        score = ledger["score"]
        rival = "" if "versus" in fig.values else f", its top guess other than {target},"
        summary = (
            f"At {token_label(tokens, fig.opening)}, the model scores {target} {score['target']:.{DECIMALS}f} "
            f"and {versus}{rival} {score['versus']:.{DECIMALS}f}. "
            + describe(run, ledger, "target", opening_part(ledger))
        )
        sums = totals(ledger)
        facts = [
            f"{name}: the parts add up to {sums['sum'][key]:.{DECIMALS}f}; the model's score is "
            f"{sums['score'][key]:.{DECIMALS}f}."
            for key, name in (
                ("target", f"The score of {target}"),
                ("versus", f"The score of {versus}"),
                ("difference", f"{target} minus {versus}"),
            )
        ]
        details = [_scale_fact(ledger, run.model)]  # technical: folded away under "More detail" on the page
        return {"summary": summary, "reveals": _reveals(ledger, target, versus), "facts": facts, "details": details}

    def tables(self, fig: Figure, run: Run, spec: charts.Spec) -> dict[str, Table]:
        """The downloads, as readers count (layers, heads, neurons from 1), unrounded: the parts, the heads, the
        neurons and the target's chance after each half-layer ("layers": after_layer 1.5 is after layer 2's
        attention)."""
        ledger = self.entry(fig, run)
        return {
            "parts": [
                {k: r[k] for k in ("n", "part", "layer", "target", "versus", "difference")} for r in rows(ledger)
            ],
            "heads": head_table(ledger),
            "neurons": neuron_table(ledger),
            "layers": [
                {
                    "after_layer": stage_x(s),
                    "after": stage_name(st),
                    "p": st["p"],
                    "correction": st["correction"],
                    "residual": st["residual"],
                }
                for s, st in enumerate(ledger["stages"])
            ],
        }

    def chart(self, fig: Figure, run: Run) -> alt.VConcatChart:
        """The waterfall of the parts beside the two curves, and the chosen part's inside below the waterfall."""
        ledger = self.entry(fig, run)
        # One above the other, each as wide as the column: the waterfall, the chosen part's inside, the curves.
        bars = alt.vconcat(split_chart(), inside_chart(), spacing=30)
        # The sizes' legend right above their chart, not above both curves: each curve's colours its own.
        curves = alt.vconcat(*curve_charts(shown(ledger["target"]["text"]), run.n_layer), spacing=30).resolve_scale(
            color="independent"
        )
        # The curves' colours say which size; the bars', whether a part raises or lowers the score.
        stack = cast("alt.VConcatChart", alt.vconcat(bars, curves, spacing=36).resolve_scale(color="independent"))
        return charts.with_clicks(
            charts.with_data(
                charts.with_params(charts.fits_column(stack), *_params(run, ledger)),
                parts=_split_rows(ledger),
                inside=_inside_rows(ledger, run.n_neurons),
                layers=[
                    {"x": stage_x(s), "after": stage_name(st), "p": round(st["p"], KEPT + 2)}
                    for s, st in enumerate(ledger["stages"])
                ],
                sizes=[
                    {"x": stage_x(s), "after": stage_name(st), "what": what, "size": round(size, 4)}
                    for s, st in enumerate(ledger["stages"])
                    if st["correction"] is not None
                    for size, what in ((st["correction"], SIZES[0]), (st["residual"], SIZES[1]))
                ],
            ),
            "part",
        )


def _scale_fact(ledger: LedgerEntry, model: ModelRecord) -> str:
    """What the split holds fixed, and why the curve can tell another story, in words for any reader: the divisor is
    the numbers' σ where the last normalisation centres them (LayerNorm), their root mean square where it does not
    (RMSNorm)."""
    sigma = f"{ledger['sigma']:.{DECIMALS}f}"
    divisor = f"their root mean square, {sigma}" if model.get("norm") == "rmsnorm" else f"σ = {sigma}"
    return (
        "The split holds one thing fixed: before the model reads its scores, it brings the token's numbers "
        f"to a standard size (its last layer normalisation; here it divides them by {divisor}). The split "
        "divides every part by that same number, so the parts add up exactly. The chance curve instead "
        "works the scale out again after every half-layer, as if the model stopped there. So a part can add "
        "a lot to the final score while the curve hardly moves, or the other way round: the split says who "
        "wrote the final answer; the curve says what the model would have guessed along the way."
    )


def _reveals(ledger: LedgerEntry, target: str, versus: str) -> list[Reveal]:
    """Guess first: which layer part adds most to the target's score, and to its lead over the versus token."""
    out: list[Reveal] = []
    score: Score
    for score, question in (
        ("target", f"which layer's part adds most to {target}'s score?"),
        ("difference", f"which layer's part does most to put {target} ahead of {versus}?"),
    ):
        top = largest(ledger, score)
        if top[score] > 0:
            answer = f"{top['part'].capitalize()}: it adds {signed(top[score])}."
        else:
            answer = f"None adds: every layer's part lowers it; {top['part']} lowers it least ({signed(top[score])})."
        out.append(
            {
                "question": f"Guess first: {question}",
                "answer": answer,
                "link": f"#score={score}&part={top['key']}",
                "link_text": f"Show {top['part']}",
            }
        )
    return out


# ---------------------------------------------------------------------------------------------- the page's data


def _params(run: Run, ledger: LedgerEntry) -> list[alt.Parameter]:
    """The score radio, the part select, and the maps the chart's words read."""
    names = score_names(ledger)
    target, versus = shown(ledger["target"]["text"]), shown(ledger["versus"]["text"])
    layer_rows = layer_parts(ledger)
    keys = [r["key"] for r in layer_rows]
    score = alt.param(
        name="score",
        value="target",
        bind=alt.binding_radio(
            options=["target", "difference"], labels=[target, f"{target} minus {versus}"], name="Split the score of "
        ),
    )
    part = alt.param(
        name="part",
        value=opening_part(ledger),
        bind=alt.binding_select(options=keys, labels=[r["part"] for r in layer_rows], name="Look inside "),
    )
    said = {f"{s}|{k}": describe(run, ledger, s, k) for s in ("target", "difference") for k in keys}
    titles = {f"{s}|{k}": inside_title(ledger, k, s) for s in ("target", "difference") for k in keys}
    return [
        score,
        part,
        alt.param(name="score_names", value={s: f"{name}, part by part" for s, name in names.items()}),
        alt.param(name="part_names", value={r["key"]: r["part"] for r in layer_rows}),
        alt.param(name="part_x", value={r["key"]: (r["n"] - 2) / 2 for r in layer_rows}),
        alt.param(name="inside_titles", value=titles),
        alt.param(name="descriptions", value=said),
        alt.param(name=DESCRIPTION, expr="descriptions[score + '|' + part]"),
    ]


def _split_rows(ledger: LedgerEntry) -> list[dict[str, object]]:
    """The waterfall: each part from where the running sum stood before it, for both scores; the model's score
    last, from 0."""
    out: list[dict[str, object]] = []
    before: dict[Score, float] = {"target": 0.0, "difference": 0.0}
    for r in rows(ledger):
        out.append(
            {
                "n": r["n"],
                "name": r["part"],
                "key": r["key"],
                "t": round(r["target"], KEPT),
                "d": round(r["difference"], KEPT),
                "t0": round(before["target"], KEPT),
                "d0": round(before["difference"], KEPT),
            }
        )
        before = {key: before[key] + r[key] for key in before}
    score = totals(ledger)["score"]
    out.append(
        {
            "n": len(out) + 1,
            "name": TOTAL,
            "key": "",
            "t": round(score["target"], KEPT),
            "d": round(score["difference"], KEPT),
            "t0": 0,
            "d0": 0,
        }
    )
    return out


def _inside_rows(ledger: LedgerEntry, others: int) -> list[dict[str, object]]:
    return [
        {"key": r["key"], "score": score, "order": i, "item": label, "v": round(value, KEPT)}
        for r in layer_parts(ledger)
        for score in ("target", "difference")
        for i, (label, value) in enumerate(inside(ledger, r["key"], score, others))
    ]
