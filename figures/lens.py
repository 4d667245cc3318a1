"""The read-out at every position: a table of the model's guesses at every position after every layer (0: before
any layer), a cell's top 10, and one token's chance and rank followed through the layers.

Reads the text's read-out at every stage and position (run.readout, run.top_guess), its lens: the followed
tokens' chance and rank, 1 = most likely, at every stage and position (run.followed, run.lens_cell), and the size
of the model's vocabulary, where the rank axis ends (run.shape). The chart's parts are in figures.lens_chart.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from figsite.config import Field, Figure
from figsite.data.asks import Asks
from figsite.data.records import ModelRecord
from figsite.data.run import Run
from figsite.data.shared_names import DESCRIPTION, NAMES, POSITION
from figures import recompute
from figures.kind import Context, Kind, LiveOpening, LiveShape, Resolved, Tokens
from figures.lens_chart import TEXTLESS, parts_stack
from figures.records import CellRow, FollowRow, TopGuess, TopWord
from figures.toolkit import charts, fields, textless
from figures.toolkit.charts import alt
from figures.toolkit.words import (
    after_layer,
    after_layer_expr,
    escaped,
    heading,
    percent,
    percent_expr,
    said,
    shown,
    token_label,
    token_name,
    whole_percent,
)

MAX_TOKENS = 64  # the lens keeps every position's guesses: a page per text of at most this many tokens
TOP_SHOWN = 10
MIN_CELL = 32  # px: the narrow table's narrowest cell
CELL_ROOM = 8  # px a cell keeps beside its word
PHONE_TABLE = 240  # px: about the width the chart fitted to a 360 px phone's column leaves the table
NARROW_CELL = 56  # px per position of the table with no text in a phone's chart (it scrolls in its own box)
GPT2_VOCABULARY = 50_257
# The caption of the chart with no text: it names what the live page shows, where the build's names figure labels.


def opening_track(fig: Figure, run: Run) -> int:
    """The token id the figure follows first: the configured one if followed, else the opening cell's top."""
    if "track" in fig.values:
        wanted = [i for i in run.followed(fig["text"]) if run.token_text(i) == fig["track"]]
        if wanted:
            return wanted[0]
    return run.top_guess(fig["text"], run.n_layer, fig.opening)[0]


class Lens(Kind[Run]):
    READS = ("read-out",)
    NOTEBOOK = recompute.LENS  # every stage's read-out at every position, from the model's stream
    KIND = "lens"
    TITLE = "The guess at every position, layer by layer"
    CAPTION = (
        "The guess taking shape layer by layer, read at every token of the text at once: what the model would "
        "guess next at each position, after each layer."
    )
    GUIDE = (
        "Each cell holds the most likely next token at that position after that layer (0: before any layer), "
        "coloured by its chance. Choose a layer and a position to see that cell's top 10; choose a token to "
        "follow its chance and rank through the layers, at that position or at all of them. Choose a cell "
        "(click or tap) to see its layer and position; from the keyboard, the row of tokens above chooses the "
        "position and the slider the layer."
    )
    KEY = (
        "Each cell is the likeliest next token at one position (a column) after one layer (a row); the brighter "
        "the cell, the surer the model."
    )
    FIELDS = {
        "text": fields.TEXT_FIELD,
        "position": fields.token_field("the position the figure opens on"),
        "track": Field("text", "the token the figure follows first, e.g. ' France' (default: the opening cell's top)"),
    }
    EXPLORE = True

    def asks(self, fig: Figure) -> Asks:
        """The lens follows the tokens the table shows most often, and the one the config names first."""
        track = [fig["track"]] if "track" in fig.values else []
        return Asks(
            texts={fig["text"]: None},
            named=tuple(track),
            parts={"lens": {fig["text"]: track}},
            config=self.config_of(fig, "track"),
        )

    def check(self, fig: Figure, tokens: Tokens, model: ModelRecord) -> Resolved:
        """The opening cell's position, 0-based; a followed token must be one token."""
        text_tokens = tokens(fig["text"])
        fields.check_text(fig, "text", text_tokens, model["n_ctx"])
        if len(text_tokens) > MAX_TOKENS:
            raise fig.error(
                "text", f"the text is {len(text_tokens):,} tokens long", f"at most {MAX_TOKENS} tokens for a lens"
            )
        if "track" in fig.values:
            fields.check_one_token(fig, "track", tokens(fig["track"]))
        return {"opening": fields.opening(fig, "position", text_tokens)}

    def live_target(self, fig: Figure, run: Run) -> str:
        """The token it follows first: the configured `track`, else the opening cell's top guess."""
        return run.token_text(opening_track(fig, run))

    def text_figure(self, fig: Figure, run: Run) -> str:
        """The table: for each stage a line with each position's top token and its probability in whole percent."""
        text = fig["text"]
        tokens = [shown(t) for t in run.token_texts(text)]
        lines = [heading(fig, self.TITLE), f'  "{escaped(text)}"']
        width = max(12, *(len(t) + 2 for t in tokens))
        lines.append("  " + " " * 20 + "".join(f"{t[: width - 1]:<{width}}" for t in tokens))
        for s in range(run.n_stages):
            guesses = (run.top_guess(text, s, q) for q in range(len(tokens)))
            cells = "".join(
                f"{(shown(run.token_text(i)) + ' ' + str(whole_percent(p)) + '%')[: width - 1]:<{width}}"
                for i, p in guesses
            )
            lines.append(f"  {after_layer(s):<20}{cells}")
        return "\n".join(lines) + "\n"

    def context(self, fig: Figure, run: Run) -> Context:
        text = fig["text"]
        tokens, q = run.token_texts(text), fig.opening
        top = run.top_guess(text, run.n_layer, q)
        return {
            "summary": f"After the last layer, the guess after {token_label(tokens, q)} is "
            f"{said(run.token_text(top[0]))} with {percent(top[1])}. {first_top_words(fig, run)}".strip(),
            "reveals": [],
            "facts": [],
        }

    def chart(self, fig: Figure, run: Run) -> alt.VConcatChart:
        """The stage x position table, the chosen cell's top 10, and the followed token's chance and rank."""
        return lens_chart(fig, run)

    def narrow_chart(self, fig: Figure, run: Run) -> alt.VConcatChart | None:
        """For a column narrower than 480 px, where the table fitted to it would cut guesses short: the same with
        each cell as wide as the longest guess, which it shows whole, the table wider than a phone's column (it
        scrolls in its own box) and the charts below it as wide as a 320 px column. None where every guess fits the
        fitted table's cells on a phone."""
        text, n = fig["text"], run.n_tokens(fig["text"])
        cells: list[TopWord] = [
            {"top": shown(run.token_text(run.top_guess(text, s, q)[0]))} for s in range(run.n_stages) for q in range(n)
        ]
        return None if cell_width(cells) * n <= PHONE_TABLE else lens_chart(fig, run, narrow=True)

    LIVE = 4

    def textless_chart(self, model: LiveShape, opening: LiveOpening, narrow: bool = False) -> alt.VConcatChart:
        """The chart with no text in it (textless_chart); narrow, its table's cells NARROW_CELL px wide."""
        return textless_chart(
            model["n_layer"],
            model.get("vocab_size", GPT2_VOCABULARY),
            opening.get("stage"),
            opening.get("position"),
            narrow=narrow,
        )


def first_top_words(fig: Figure, run: Run) -> str:
    """When the followed token first becomes the most likely guess at the opening position, or that it never does;
    nothing where the opening token is not followed."""
    text, q, track = fig["text"], fig.opening, opening_track(fig, run)
    if track not in run.followed(text):
        return ""
    ranks = [run.lens_cell(text, s, q, track)[1] for s in range(run.n_stages)]
    first_top = next((s for s, r in enumerate(ranks) if r == 1), None)
    name, after = said(run.token_text(track)), said(run.token_texts(text)[q])
    if first_top is None:
        return f"{name} is never the most likely guess after {after}, at any layer."
    return f"{name} after {after} is first the most likely guess {after_layer(first_top)}."


def lens_chart(fig: Figure, run: Run, narrow: bool = False) -> alt.VConcatChart:
    """The figure's chart, fitted to its column or (narrow) with cells that keep their words whole. Reads the text's
    tokens, its read-out and its followed tokens (lens_rows), and the vocabulary's size (vocabulary_size)."""
    n_layer = run.n_layer
    tokens = run.token_texts(fig["text"])
    names = [token_name(tokens, q) for q in range(len(tokens))]
    cells, tops, follow = lens_rows(fig, run, names)
    room = charts.words_room([row["token"] for row in tops])
    stack = charts.with_params(
        parts_stack(names, n_layer, vocabulary_size(fig, run), cell_width(cells) if narrow else None, room=room),
        *_params(fig, run, names, cells),
        charts.top_ends(tops, len(names)),
    )
    return charts.with_clicks(charts.with_data(stack, cells=cells, tops=tops, follow=follow), "stage", POSITION)


def vocabulary_size(fig: Figure, run: Run) -> int:
    """How many tokens the model knows: the number of scores it gives each token (the shape measured at 'scores')."""
    return run.shape(fig["text"], "scores")[-1]


def cell_width(cells: Sequence[TopWord]) -> int:
    """px: a narrow table's cell, wide enough for the longest top guess of any cell, whole."""
    return max(MIN_CELL, math.ceil(max(len(row["top"]) for row in cells) * charts.TEXT_EM) + CELL_ROOM)


def lens_rows(fig: Figure, run: Run, names: list[str]) -> tuple[list[CellRow], list[TopGuess], list[FollowRow]]:
    """The page's data: each cell's top guess, each cell's top 10, and each followed token at every cell."""
    text, n = fig["text"], len(names)
    cells_at = [(s, q) for s in range(run.n_stages) for q in range(n)]
    cells: list[CellRow] = [
        {"stage": s, "q": q, "pos": names[q], "top": shown(run.token_text(i)), "p": charts.kept_chance(p)}
        for s, q in cells_at
        for i, p in [run.top_guess(text, s, q)]
    ]
    tops: list[TopGuess] = [
        {"stage": s, "q": q, "rank": r + 1, "token": shown(run.token_text(i)), "p": charts.kept_chance(p)}
        for s, q in cells_at
        for r, (i, p) in enumerate(run.readout(text, s, q)[:TOP_SHOWN])
    ]
    follow: list[FollowRow] = [
        {"stage": s, "q": q, "pos": names[q], "t": token_id, "p": charts.kept_chance(p), "rank": rank}
        for token_id in run.followed(text)
        for s in range(run.n_stages)
        for q in range(n)
        for p, rank in [run.lens_cell(text, s, q, token_id)]
    ]
    return cells, tops, follow


def _params(fig: Figure, run: Run, names: list[str], cells: list[CellRow]) -> list[alt.Parameter]:
    """The stage slider, the position and followed-token selects, 'where', and the live description."""
    n, n_layer, followed = len(names), run.n_layer, run.followed(fig["text"])
    stage = charts.stage_slider(n_layer, n_layer)
    position = alt.param(
        name=POSITION,
        value=fig.opening + 1,
        bind=alt.binding_select(options=list(range(1, n + 1)), labels=names, name="Position "),
    )
    track = alt.param(
        name="track",
        value=opening_track(fig, run),
        bind=alt.binding_select(
            options=followed, labels=[shown(run.token_text(i)) for i in followed], name="Follow the token "
        ),
    )
    where = where_param()
    # Names in sentences and titles: a comma or a space in quotes (words.said).
    vocab = alt.param(name="vocab", value={str(i): said(run.token_text(i)) for i in followed})
    cell_words = alt.param(
        name="cells_said",
        value={
            f"{row['stage']}|{row['q'] + 1}": f"the top guess is {said(run.token_text(top))} with {percent(p)}"
            for row in cells
            for top, p in [run.top_guess(fig["text"], row["stage"], row["q"])]
        },
    )
    tokens_said = alt.param(name="tokens_said", value=[said(t) for t in run.token_texts(fig["text"])])
    description = alt.param(
        name=DESCRIPTION,
        expr=(
            f"{after_layer_expr('stage', capital=True)} + ', position ' + position + ' (' + tokens_said[position - 1] + '): ' + "
            "cells_said[stage + '|' + position] + '; following ' + "
            "vocab[track + ''] + ' ' + (where == 'one' ? 'at this position' : 'at every position') + '.'"
        ),
    )
    names_param = alt.param(name=NAMES, value=names)
    return [
        stage,
        position,
        track,
        where,
        charts.chance_switch(),
        vocab,
        names_param,
        cell_words,
        tokens_said,
        description,
    ]


# ---------------------------------------------------------------------------------------------- with no text


def textless_chart(
    n_layer: int,
    vocabulary: int = GPT2_VOCABULARY,
    opening_stage: int | None = None,
    opening_position: int | None = None,
    narrow: bool = False,
) -> alt.VConcatChart:
    """The lens with no text in it (the live page's): the table, the chosen cell's top 10 and the followed token's
    chance and rank (1 to `vocabulary`), the build's parts reading TEXTLESS. Narrow: the table's cells NARROW_CELL px
    wide (it scrolls). Reads `top`, `follow` (figsite.data.live_data), `names`, `follow_name`; "stage",
    "position", "where"."""
    stage = charts.stage_slider(n_layer, n_layer if opening_stage is None else opening_stage)
    where = where_param()
    cell = textless.row_at("top", "stage", "at", 1)
    description = alt.param(
        name=DESCRIPTION,
        expr=(
            f"{after_layer_expr('stage', capital=True)} + ', position ' + (at + 1) + ' (' + names[at] + '): the top guess "
            f"is ' + {cell}.token + ' with ' + {percent_expr(cell + '.p')} + '; following ' + follow_name + ' ' + "
            "(where == 'one' ? 'at this position' : 'at every position') + '.'"
        ),
    )
    return textless.finished(
        parts_stack(None, n_layer, vocabulary, NARROW_CELL if narrow else None, TEXTLESS),
        [
            stage,
            *textless.chosen(POSITION, opening_position, "Position ", follow=True),
            where,
            charts.chance_switch(),
            description,
        ],
        ("stage", POSITION),
        n_layer,
        0,
        "top",
        "follow",
    )


def where_param() -> alt.Parameter:
    """The choice of following the token at the chosen position only ("one") or at every position ("all"): the same
    words on the book's figure and on the one drawn for the reader's text."""
    return alt.param(
        name="where",
        value="one",
        bind=alt.binding_radio(options=["one", "all"], labels=["here", "everywhere"], name="Follow it "),
    )
