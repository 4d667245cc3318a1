"""The read-out at every position: a table of the model's guesses at every position after every layer (0: before
any layer), a cell's top 10, and one token's chance and rank followed through the layers.

Reads the text's read-out at every stage and position (run.readout, run.top_guess), its lens: the followed
tokens' chance and rank, 1 = most likely, at every stage and position (run.followed, run.lens_cell), and the size
of the model's vocabulary, where the rank axis ends (run.shape).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

from figsite.config import Field, Figure
from figsite.data.asks import Asks
from figsite.data.records import ModelRecord
from figsite.data.run import Run
from figsite.data.shared_names import DESCRIPTION, NAMES, POSITION
from figures.kind import Context, Kind, LiveOpening, LiveShape, Resolved, Tokens
from figures.records import CellRow, FollowRow, Reads, TopGuess, TopWord
from figures.toolkit import charts, fields, textless
from figures.toolkit.charts import alt
from figures.toolkit.colours import ACCENT, FOLLOWED, MAIN, ON_DARK, ON_LIGHT
from figures.toolkit.words import (
    STAGE_AXIS,
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
LABELLED = 24  # positions up to which the table's labels all fit a 480 px column, turned; more: some are left out
TOP_ENDS = charts.TOP_ENDS  # the param of the largest chance in each cell's top 10 (charts.top_ends)
NARROW_WIDTH = 210  # px: the narrow chart's top 10 and followed token's charts, which fit a 320 px column
MIN_CELL = 32  # px: the narrow table's narrowest cell
CELL_ROOM = 8  # px a cell keeps beside its word
PHONE_TABLE = 240  # px: about the width the chart fitted to a 360 px phone's column leaves the table
NARROW_CELL = 56  # px per position of the table with no text in a phone's chart (it scrolls in its own box)
AXIS_ROOM, TOP_LABELS = 64, 64  # px: a phone's table's layer numbers, left of it; its positions' labels, above it
# A phone's table's legend: above it, its title beside it, close to the positions' labels (in the chart's first screen).
PHONE_LEGEND = {"orient": "top", "titleOrient": "left", "titleAnchor": "middle", "offset": 4}
GPT2_VOCABULARY = 50_257
# The caption of the chart with no text: it names what the live page shows, where the build's names figure labels.
LIVE_CAPTION = "The same read-out as the chart above, at every token of the text at once, after each layer."


def opening_track(fig: Figure, run: Run) -> int:
    """The token id the figure follows first: the configured one if followed, else the opening cell's top."""
    if "track" in fig.values:
        wanted = [i for i in run.followed(fig["text"]) if run.token_text(i) == fig["track"]]
        if wanted:
            return wanted[0]
    return run.top_guess(fig["text"], run.n_layer, fig.opening)[0]


class Lens(Kind[Run]):
    READS = ("read-out",)
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

    LIVE_CAPTION = LIVE_CAPTION
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
        _stack(names, n_layer, vocabulary_size(fig, run), cell_width(cells) if narrow else None, room=room),
        *_params(fig, run, names, cells),
        charts.top_ends(tops, len(names)),
    )
    return charts.with_clicks(charts.with_data(stack, cells=cells, tops=tops, follow=follow), "stage", POSITION)


def _stack(
    names: list[str] | None, n_layer: int, vocabulary: int, cell: int | None, reads: Reads | None = None, room: int = 0
) -> alt.VConcatChart:
    """The figure's parts, one above the other: the table, the chosen cell's top 10 (`room` px for the words past
    its bars), the followed token's chance and rank; fitted to the column, or (`cell`, px: narrow) the table's cells
    that wide and the charts below it NARROW_WIDTH px. `reads`: the build's datasets and params (None: BUILT), or
    TEXTLESS."""
    reads, width = reads or BUILT, NARROW_WIDTH if cell else "container"
    # Each view's colours its own: the table's legend of chances sits just under the table, not under the stack.
    stack = cast(
        "alt.VConcatChart",
        alt.vconcat(
            _table(names, n_layer, cell, reads),
            _top_chart(width, reads, room),
            *_follow_charts(n_layer, vocabulary, width, reads),
            spacing=24,
        ).resolve_scale(color="independent"),
    )
    if cell:  # the backdrop behind the table's layer numbers reaches the drawing's left edge (charts.backdrop)
        stack.padding = {"left": 0, "top": 5, "right": 5, "bottom": 5}
    return stack if cell else charts.fits_column(stack)


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
    where = alt.param(
        name="where",
        value="one",
        bind=alt.binding_radio(options=["one", "all"], labels=["here", "everywhere"], name="Follow it "),
    )
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


# What the lens's parts read (figures.records.Reads): the build's, or with no text the live page's.
BUILT = Reads()
TEXTLESS = Reads("top", "at", "(at + 1) + ': ' + names[at]", textless.FOLLOW_NAME, "")
POSITION_NAME = "(datum.q + 1) + ': ' + names[datum.q]"  # a position in words, with no text


def _cells(reads: Reads, names: list[str] | None, cell: int | None) -> tuple[alt.Chart, alt.X, int | str]:
    """The table's cells (each cell's top guess) and its x: the build's `cells` by their position's name, or with
    no text the top guesses of `top` by their position, labelled every `every`th (narrow: every one)."""
    if not reads.textless:
        n = len(cast("list[str]", names))  # the build's reads come with the text's names
        axis = alt.Axis(
            labelAngle=-40,
            orient="top",
            labelOverlap=False if cell or n <= LABELLED else "greedy",
            zindex=0 if cell else alt.Undefined,
        )
        return alt.Chart(alt.NamedData("cells")), alt.X("pos:N", sort=names, title=None, axis=axis), n
    label = "(datum.value + 1) + ': ' + names[datum.value]"
    axis = alt.Axis(
        labelAngle=-40,
        orient="top",
        labelOverlap=False,
        zindex=0 if cell else alt.Undefined,
        labelExpr=label if cell else f"datum.value % every == 0 ? {label} : ''",
    )
    top = (
        alt.Chart(alt.NamedData(reads.tops))
        .transform_filter("datum.rank == 1")
        .transform_calculate(pos=POSITION_NAME, top="datum.token")
    )
    return top, alt.X("q:O", title=None, axis=axis), textless.N


def _table(names: list[str] | None, n_layer: int, cell: int | None = None, reads: Reads = BUILT) -> alt.LayerChart:
    """The top guess of every cell, coloured by its chance; the chosen cell outlined. A click on a cell chooses its
    stage and position (the slider and the select: by keyboard).

    As wide as the column, each cell's guess cut short where the cell is narrow and left out where no word would
    fit; or (narrow) each cell `cell` px wide, every guess whole (with no text: cut short to the cell) and every
    position labelled."""
    cells, x, n = _cells(reads, names, cell)
    table_base = charts.clickable(
        charts.said_chance(charts.named_stages(cells)), stage="datum.stage", **{POSITION: "datum.q + 1"}
    ).encode(
        x=x,
        y=alt.Y("stage:O", title=STAGE_AXIS),
        # The cell's words say it too: the pointer on them shows it as on the rest of the cell.
        tooltip=[
            alt.Tooltip("pos:N", title="position"),
            charts.stage_tip(),
            alt.Tooltip("top:N", title="top guess"),
            charts.chance_tip(),
        ],
    )
    table = table_base.mark_rect(cursor="pointer").encode(
        color=alt.Color(
            "p:Q",
            scale=charts.sequential(domain=[0, 1]),
            title="chance",
            legend=alt.Legend(
                direction="horizontal",
                gradientLength=160,
                format="%",
                values=[0, 0.5, 1],
                **PHONE_LEGEND if cell else {"orient": "bottom"},
            ),
        ),
        stroke=alt.condition(f"datum.stage == stage && datum.q == {reads.q}", alt.value(ACCENT), alt.value(None)),
        strokeWidth=alt.value(3),
    )
    # Fitted to the column, a cell's guess is cut short in a narrow cell and left out where no word would fit (the
    # tooltip says it whole); the narrow chart's cells fit every guess.
    # With no text, the view's width is textless.WIDTH's (640 px in a drawing made here, where `width` is 0).
    width = textless.WIDTH if reads.textless else "width"
    fitted = (
        ({"limit": cell - 4} if reads.textless else {})
        if cell
        else {"limit": alt.ExprRef(f"{width} / {n} - 2"), "opacity": alt.ExprRef(f"{width} / {n} >= 24 ? 1 : 0")}
    )
    table_text = table_base.mark_text(fontSize=10, cursor="pointer", **fitted).encode(
        text="top:N", color=alt.condition("datum.p < 0.45", alt.value(ON_DARK), alt.value(ON_LIGHT))
    )
    if cell:  # a phone's: see _phone_table
        layered = alt.layer(table, table_text, charts.backdrop(AXIS_ROOM, TOP_LABELS))
        return _phone_table(cast("alt.LayerChart", layered), cell, n_layer)  # no facets in its layers: no FacetChart
    return cast(
        "alt.LayerChart",
        alt.layer(table, table_text).properties(
            width="container",
            height=charts.TAP * (n_layer + 1),
            title=alt.Title(
                charts.wrapped(charts.literal("The top guess at every position, after every layer")), anchor="start"
            ),
        ),
    )


def _phone_table(table: alt.LayerChart, cell: int, n_layer: int) -> alt.LayerChart:
    """A phone's table, its cells `cell` px wide: wider than the column, it scrolls in its box under its layer numbers,
    which stay in view over a backdrop (charts.backdrop), as do its legend above it and the charts below. It has no
    title: the figure's heading and key just above say what it is, and the chart's first screen, from the key, holds
    the legend, every layer and the chosen cell."""
    return cast("alt.LayerChart", table.properties(width=alt.Step(cell), height=charts.TAP * (n_layer + 1)))


def _top_chart(width: int | str, reads: Reads = BUILT, room: int = 0) -> alt.LayerChart:
    """The chosen cell's top 10, as bars, on a chance axis that follows the switch (zoomed in, the cell's largest
    bar, its TOP_ENDS, leaves `room` px for its token's name); with no text (no switch), from 0 to 100%."""
    scale, axis = alt.Scale(domain=[0, 1]), alt.Axis(format="%")
    if not reads.textless:
        scale = charts.chance_scale(
            f"{TOP_ENDS}[stage * length({NAMES}) + {reads.q}]", room, width if isinstance(width, int) else "width"
        )
        axis = alt.Axis(format=charts.CHANCE_FORMAT, tickCount=5)
    top10 = (
        charts.said_chance(alt.Chart(alt.NamedData(reads.tops)))
        .transform_filter(f"datum.stage == stage && datum.q == {reads.q}")
        .encode(
            y=alt.Y("rank:O", title="rank"),
            x=alt.X("p:Q", scale=scale, axis=axis, title="chance"),
            tooltip=[alt.Tooltip("rank:O"), alt.Tooltip("token:N"), charts.chance_tip()],
        )
    )
    title = f"'The top 10 at position ' + {reads.position} + ', ' + {after_layer_expr('stage')}"
    # Each token after its bar, or inside a bar too long to leave it room (about TEXT_EM px a character).
    words = charts.at_bar_ends(
        top10.encode(text="token:N"),
        "p",
        NARROW_WIDTH if width == NARROW_WIDTH else "width",
        room=f"length(datum.token) * {charts.TEXT_EM} + 8",
    )
    return cast(
        "alt.LayerChart",
        alt.layer(top10.mark_bar(color=MAIN), *words).properties(
            width=width, height=180, title=alt.Title(charts.wrapped(title))
        ),
    )


def rank_ticks(vocabulary: int) -> list[int]:
    """The rank axis's ticks: 1, 10, 100, ... and the vocabulary's size, where the axis ends; a power of ten too near
    the end (within a factor of 3) is left out, so that no two labels run together."""
    ticks, power = [], 1
    while power * 3 <= vocabulary:
        ticks.append(power)
        power *= 10
    return ticks + [vocabulary]


def follow_title(what: str, reads: Reads = BUILT) -> alt.Title:
    """A title that names the followed token, as the chapter writes it, and where it is read: "_France's chance at
    position 9: _of" (`what`: "chance"), or "... at every position"."""
    where = f"(where == 'one' ? ' at position ' + {reads.position} : ' at every position')"
    return alt.Title(charts.wrapped(f"{reads.followed} + {charts.literal(chr(39) + 's ' + what)} + {where}"))


def _follow_charts(n_layer: int, vocabulary: int, width: int | str, reads: Reads = BUILT) -> list[alt.LayerChart]:
    """The followed token's chance and rank across the stages, at the chosen position or at all, each titled with
    the token's name. The rank axis runs from 1 (the most likely) to the vocabulary's size (the least likely).
    With no text, the chance's axis ends at the largest chance drawn (no switch)."""
    followed = charts.said_chance(charts.named_stages(alt.Chart(alt.NamedData("follow")))).transform_filter(
        f"{reads.follows}(where == 'all' || datum.q == {reads.q})"
    )
    if reads.textless:
        followed = followed.transform_calculate(pos=POSITION_NAME)
    stage_x = alt.X("stage:Q", scale=alt.Scale(domain=[0, n_layer]), axis=alt.Axis(format="d"), title=STAGE_AXIS)
    # One line per position, in the data's colour; the chosen position's in the followed token's colour.
    colour = alt.condition(f"datum.q == {reads.q}", alt.value(FOLLOWED), alt.value(MAIN))
    where = [alt.Tooltip("pos:N", title="position"), charts.stage_tip()]
    p_line = followed.encode(
        x=stage_x,
        y=alt.Y(
            "p:Q",
            **(
                {"axis": alt.Axis(format="%")}
                if reads.textless
                else {"scale": charts.chance_scale(), "axis": alt.Axis(format=charts.CHANCE_FORMAT)}
            ),
            title="chance",
        ),
        color=colour,
        detail="pos:N",
        tooltip=[*where, charts.chance_tip(), alt.Tooltip("rank:Q", format=",")],
    )
    p_line = alt.layer(p_line.mark_line(point=True), charts.hit_points(p_line)).properties(
        width=width, height=160, title=follow_title("chance", reads)
    )
    rank_line = followed.encode(
        x=stage_x,
        y=alt.Y(
            "rank:Q",
            scale=alt.Scale(type="log", reverse=True, domain=[1, vocabulary], nice=False),
            axis=alt.Axis(values=rank_ticks(vocabulary), format=","),
            title="rank (1 = most likely)",
        ),
        color=colour,
        detail="pos:N",
        tooltip=[*where, alt.Tooltip("rank:Q", format=",")],
    )
    rank_line = alt.layer(rank_line.mark_line(point=True), charts.hit_points(rank_line)).properties(
        width=width, height=160, title=follow_title(f"rank among all {vocabulary:,} tokens", reads)
    )
    return [p_line, rank_line]


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
    where = alt.param(
        name="where",
        value="one",
        bind=alt.binding_radio(
            options=["one", "all"], labels=["at the chosen position", "at every position"], name="Follow the token "
        ),
    )
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
        _stack(None, n_layer, vocabulary, NARROW_CELL if narrow else None, TEXTLESS),
        [stage, *textless.chosen(POSITION, opening_position, "Position ", follow=True), where, description],
        ("stage", POSITION),
        n_layer,
        0,
        "top",
        "follow",
    )
