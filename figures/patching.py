"""Where does the model carry the fact? Activation patching between two texts of the same length: the model reads
the changed text (the config's `corrupted`) with one piece of the original text's run (`clean`) put back, and the
figure shows how much of the original answer comes back, as four grids: a token's numbers after each layer, a
layer's attention at one token, a layer's feed-forward step at one token, one head at every token.

The answer is measured as the score difference, score(target) - score(versus) at `position`; "back" is how far a
run's difference went from the changed text's towards the original's: (patched - changed) / (original - changed),
1 all the way, 0 not at all. Where the two texts' differences are too close for that to mean anything (NEAR), the
figure shows the differences themselves.

Reads the figure's entry of the part "patchings" (Patching.entry; computed by figsite/capture/parts/patchings.py):
"clean" and "corrupted" {diff, p}, "target" and "versus" {id, text}, and "grids" {resid_pre, attn_out, mlp_out, z},
each {"diff": rows, "p": rows}, layers, positions and heads 0-based; and both texts' tokens (run.token_texts).
"""

from __future__ import annotations

from typing import Any, cast

from figsite.config import Field, Figure
from figsite.data.part_records import Ask, PatchingEntry
from figsite.data.records import ModelRecord
from figsite.data.run import Run
from figures import patching_chart, patching_textless, recompute_interventions
from figures.records import NEAR as NEAR, PIECES as PIECES, Cell as Cell, Patched as Patched
from figures.kind import Context, LiveOpening, LiveShape, PartKind, Resolved, Reveal, Table, Tokens
from figures.toolkit import charts, fields, terms
from figures.toolkit.charts import alt
from figures.toolkit.colours import HELPS_NAME, HURTS_NAME
from figures.toolkit.words import after_layer, heading, percent, quoted, said as token_said, shown

MAX_TOKENS = 64  # a text's tokens, at most: the runs grow with the square of its length


# ---------------------------------------------------------------------------------------------- words


def share(back: float) -> str:
    """How much of the way back, in whole percent: '85%'."""
    return f"{back * 100:.0f}%"


def comes_back(back: float) -> str:
    """How much of the original answer a run brings back, in words true past either end: '85% of the original
    answer comes back', 'more than all of the original answer comes back (122%)', 'it pushes the answer further
    away (-20%)'."""
    if back > 1.005:
        return f"more than all of the original answer comes back ({share(back)})"
    if back < -0.005:
        return f"it pushes the answer further away ({share(back)})"
    return f"{share(back)} of the original answer comes back"


def token_at(o: Patched, q: int) -> str:
    """A position as a page names it: '_Paris / _Rome (token 5)' where the texts differ, else '_of (token 9)'."""
    both = o.clean[q] if o.clean[q] == o.corrupted[q] else f"{o.clean[q]} / {o.corrupted[q]}"
    return f"{both} (token {q + 1 - o.start})"


def piece_name(o: Patched, cell: Cell) -> str:
    """A run's piece in a sentence: "the numbers of _Paris / _Rome (token 5) after layer 3", "layer 4's attention
    at _of (token 9)", "head 2 of layer 10"."""
    piece, row, col = cell["piece"], cell["row"], cell["col"]
    if piece == "resid_pre":
        after = after_layer(row)
        return f"the numbers of {token_at(o, col)} {after}"
    if piece == "z":
        return f"head {col + 1} of layer {row + 1}"
    step = "attention" if piece == "attn_out" else "feed-forward step"
    return f"layer {row + 1}'s {step} at {token_at(o, col)}"


def difference(o: Patched, diff: float) -> str:
    """A score difference in words (More detail says what a score is): '_France scores 2.31 more than _Italy'."""
    return f"{o.target} scores {abs(diff):.2f} {'more' if diff >= 0 else 'less'} than {o.versus}"


def said(o: Patched, cell: Cell) -> str:
    """One run in words: what was put back, how much of the original answer comes back (where the texts do not
    differ on it, the score difference), the target's chance."""
    back = comes_back(cell["back"]) if cell["back"] is not None else difference(o, cell["diff"])
    return (
        f"Put back {piece_name(o, cell)}: {back}; the chance of {o.target} is {percent(cell['p'])} (original "
        f"text {percent(o.original['p'])}, changed text {percent(o.changed['p'])})."
    )


def carried(o: Patched) -> str | None:
    """Which token's numbers carry the answer at which layers, from the first grid: "the numbers of _Paris / _Rome
    (token 5) carry the answer up to after layer 6; from after layer 8 on, those of _of (token 9)"."""
    if not o.differs or not o.different:
        return None
    rows = o.grids["resid_pre"]["diff"]
    # The texts differ: back is a number at every position (Patched.back).
    best = [max(range(len(row)), key=lambda q: cast(float, o.back(row[q]))) for row in rows]
    early = [r for r, q in enumerate(best) if q in o.different]
    late = [r for r, q in enumerate(best) if q == o.position]
    if not early or not late or max(early) >= min(late) or o.position in o.different:
        return None
    return (
        f"The numbers of {token_at(o, best[max(early)])} carry the answer up to after layer {max(early)}; "
        f"from after layer {min(late)} on, those of {token_at(o, o.position)} do."
    )


def summary(o: Patched) -> str:
    """The figure in words: the two texts' chances, and where the answer travels or which piece brings back most."""
    start = (
        f"With the original text, the model gives {o.target} a chance of {percent(o.original['p'])}; with the "
        f"changed text, {percent(o.changed['p'])}."
    )
    if not o.differs:
        return (
            f"{start} Against {o.versus}, the two texts answer nearly alike, so there is nothing to bring back. "
            f"{terms.SCORE} The grids show how far each run moves the score of {o.target} less that of {o.versus}."
        )
    best = o.strongest("resid_pre")
    return f"{start} {carried(o) or said(o, best)}"


def reveal(o: Patched) -> Reveal:
    """The "guess first" question: which head, put back alone, brings back the most? From the data."""
    best = o.strongest("z")
    question = (
        f"Guess first: of all {len(o.grids['z']['diff']) * len(o.grids['z']['diff'][0])} heads, which one, "
        f"put back alone, brings back the most of the original answer?"
    )
    back = comes_back(best["back"]) if best["back"] is not None else difference(o, best["diff"])
    return {
        "question": question,
        "answer": f"{piece_name(o, best)[0].upper()}{piece_name(o, best)[1:]}: {back}.",
        "link": f"#cell={patching_chart.cell_key(best)}",
        "link_text": "Show it in the chart",
    }


def details(o: Patched) -> list[str]:
    """What the words on the chart leave out, one sentence each: score, logit, lead, and how "comes back" is
    measured from them."""
    return [
        terms.SCORE,
        terms.LOGIT,
        f"Lead: how far {o.target}'s score is ahead of {o.versus}'s, the score of one minus that of the other; "
        f"the original text gives a lead of {o.original['diff']:+.3f}, the changed text {o.changed['diff']:+.3f}.",
        "How much comes back: a run's lead, measured from the changed text's (0%) to the original's (100%); "
        "below 0% the piece pushes the answer further away, and past 100% more than all of it comes back.",
    ]


# ---------------------------------------------------------------------------------------------- the kind


class Patching(PartKind):
    READS = ("attention", "feed-forward", "numbers")
    KIND = "patching"
    TITLE = "Where does the model carry the fact? Put one piece back and see"
    CAPTION = (
        "Two texts differ in a word, and the model answers them differently. We let the model read the changed "
        "text, put back one piece of what it worked out for the original text, and see how much of the "
        "original answer comes back. Where a piece brings it back, that piece carries the fact."
    )
    GUIDE = (
        "Each square is one run of the model on the changed text with one piece of the original's put back. "
        f"{HELPS_NAME.capitalize()}: that piece brings the original answer back (the stronger the colour, the "
        f"more); {HURTS_NAME}: it pushes the answer further away; faint, near the page's own colour: it changes "
        "little. The first grid puts "
        "back one token's numbers after a layer; the next two, one layer's attention or feed-forward step at "
        "one token; the last, one head at every token. {Hover} a square for "
        "its numbers. Choose a square (click or tap) to see the chance of the answer in that run beside the "
        'two texts\'; the "Put back" menu does the same from the keyboard.'
    )
    KEY = f"Each square puts one piece back: {HELPS_NAME} brings the answer back, {HURTS_NAME} pushes it away."
    FIELDS = {
        "clean": Field("text", f"the original text: 1 to {MAX_TOKENS} tokens", required=True),
        "corrupted": Field("text", "the changed text: as many tokens as `clean`, and not the same text", required=True),
        "target": fields.TARGET_FIELD,
        "versus": Field(
            "text", "one token other than the target that the changed text favours, e.g. ' Italy'", required=True
        ),
        "position": fields.POSITION_FIELD,
    }
    EXPLORE = True
    TEXT_NAMES = ("The original text", "The changed text")
    PART = "patchings"
    LIVE = 8  # after the knockout
    NOTEBOOK = recompute_interventions.PATCHING  # every run again, its piece put back by a hook

    def notebook_params(self, fig: Figure, run: Run) -> dict[str, Any]:
        """The notebook's recompute reads the changed text's ids (the original's are its IDS), the target's and the
        versus token's ids, the read position (0-based) and START (1 where the model's start token leads both
        texts: the page counts the tokens after it)."""
        found = self.entry(fig, run)
        return {
            "CORRUPTED_IDS": [token["id"] for token in run.tokens(fig["corrupted"])],
            "TARGET_ID": found["target"]["id"],
            "VERSUS_ID": found["versus"]["id"],
            "POSITION": fig.opening,
            "START": run.token_texts(fig["clean"]).start,
        }

    def live_target(self, fig: Figure, run: Run) -> str:
        """The token whose score the figure measures: the reader's texts open measuring it too (and its versus:
        live_versus)."""
        return cast(str, fig["target"])

    def live_versus(self, fig: Figure, run: Run) -> str:
        """The token the target is measured against: the reader's texts open measuring against it too."""
        return cast(str, fig["versus"])

    def textless_chart(self, model: LiveShape, opening: LiveOpening, narrow: bool = False) -> alt.VConcatChart:
        """The same chart with no text in it (figures.patching_textless), the page's runs put in."""
        return patching_textless.textless_chart(model["n_layer"], model["n_head"], narrow)

    def texts(self, fig: Figure) -> list[str]:
        return [fig["clean"], fig["corrupted"]]

    def named(self, fig: Figure) -> tuple[str, ...]:
        return (fig["target"], fig["versus"])

    def check(self, fig: Figure, tokens: Tokens, model: ModelRecord) -> Resolved:
        """Both texts the same length and not the same; target and versus one token each, and not the same; the
        read token ("opening", 0-based, default the last)."""
        clean, corrupted = tokens(fig["clean"]), tokens(fig["corrupted"])
        for key, found in (("clean", clean), ("corrupted", corrupted)):
            fields.check_text(fig, key, found, min(model["n_ctx"], MAX_TOKENS))
        if len(clean) != len(corrupted):
            start = fields.start_of(clean)  # the model's start token is no token of either text
            raise fig.error(
                "corrupted",
                f"{len(corrupted) - start} tokens ({' '.join(map(shown, corrupted[start:]))}) "
                f"against clean's {len(clean) - start} ({' '.join(map(shown, clean[start:]))})",
                "a text of as many tokens as `clean`",
            )
        if fig["clean"] == fig["corrupted"]:
            raise fig.error("corrupted", "the same text as `clean`", "a text that differs from `clean`")
        for key in ("target", "versus"):
            fields.check_one_token(fig, key, tokens(fig[key]))
        if tokens(fig["target"]) == tokens(fig["versus"]):
            raise fig.error("versus", f"{fig['versus']!r} is the target itself", "one token other than the target")
        return {"opening": fields.opening(fig, "position", clean)}

    def ask(self, fig: Figure) -> Ask:
        """Both texts, the read position (0-based), the target and the versus token."""
        return [fig["clean"], fig["corrupted"], fig.opening, fig["target"], fig["versus"]]

    def entry(self, fig: Figure, run: Run) -> PatchingEntry:
        return run.part("patchings", self.ask(fig))

    def patched(self, fig: Figure, run: Run) -> Patched:
        found = self.entry(fig, run)
        return Patched(
            [token_said(t) for t in run.token_texts(fig["clean"])],
            [token_said(t) for t in run.token_texts(fig["corrupted"])],
            fig.opening,
            token_said(found["target"]["text"]),
            token_said(found["versus"]["text"]),
            found["clean"],
            found["corrupted"],
            found["grids"],
            run.token_texts(fig["clean"]).start,
        )

    def text_figure(self, fig: Figure, run: Run) -> str:
        """Both texts, the two answers, then the first grid as a table of how much comes back (or of differences),
        and each grid's strongest piece."""
        o = self.patched(fig, run)
        n = len(o.clean)
        lines = [
            heading(fig, self.TITLE),
            f"  original: {quoted(fig['clean'], n)}",
            f"  changed:  {quoted(fig['corrupted'], n)}",
            f"  read after {token_at(o, o.position)}: the score of {o.target} minus the score of {o.versus}",
            f"  original {o.original['diff']:+.3f}, changed {o.changed['diff']:+.3f}",
        ]
        lines += patching_chart.text_table(o)
        lines += [f"  most: {said(o, o.strongest(piece))}" for piece in PIECES]
        return "\n".join(lines) + "\n"

    def context(self, fig: Figure, run: Run) -> Context:
        o = self.patched(fig, run)
        facts = (
            [
                f"The texts differ at {', '.join(token_at(o, q) for q in o.different)}. Before the first of these, "
                "both texts' numbers are the same, so putting them back changes nothing."
            ]
            if o.different
            else []
        )
        return {"summary": summary(o), "reveals": [reveal(o)], "facts": facts, "details": details(o)}

    def tables(self, fig: Figure, run: Run, spec: charts.Spec) -> dict[str, Table]:
        """One row per run: the piece, its layer (for the stream: after_layer), its position or head (from 1),
        the score difference, how much came back (empty where the texts do not differ on it), the chance."""
        o = self.patched(fig, run)
        rows: list[dict[str, object]] = []  # its layer's column named after_layer for the stream's runs
        for cell in o.cells():
            stream = cell["piece"] == "resid_pre"
            rows.append(
                {
                    "piece": cell["piece"],
                    ("after_layer" if stream else "layer"): cell["row"] + (not stream),
                    "position": None if cell["piece"] == "z" else cell["col"] + 1 - o.start,
                    "head": cell["col"] + 1 if cell["piece"] == "z" else None,
                    "score_difference": cell["diff"],
                    "back": cell["back"],
                    "probability": cell["p"],
                }
            )
        return {"runs": rows}

    def chart(self, fig: Figure, run: Run, square: int = 0) -> alt.VConcatChart:
        """The four grids stacked, coloured by how much comes back, and the chosen run's chance beside the texts'."""
        o = self.patched(fig, run)
        return patching_chart.chart(
            o,
            summary(o),
            {patching_chart.cell_key(c): (piece_name(o, c), said(o, c)) for c in o.cells()},
            patching_chart.cell_key(o.strongest("resid_pre")),
            square,
        )

    def narrow_chart(self, fig: Figure, run: Run) -> alt.VConcatChart:
        """For a phone's column: the same with squares a finger can tap (charts.TAP px), the grids wider than the
        column where they must be, scrolling in its own box."""
        return self.chart(fig, run, square=charts.TAP)
