"""Which head links two words: every head ranked by the share one token gives an earlier one.

Reads the text's tokens and every head's shares (run.token_texts, run.kept_row: a long text's head files keep
only shares of 0.5% or more). The reader picks the token to look from and the token it looks back to; the chart
ranks all heads by that share and shows the top ones.

What the page carries: one row per head, {"l": layer, "h": head, "u": shares as integers in units of 1e-4},
where u holds, one after the other, the rows of the 'from' tokens the reader can pick (each row: keys 0..from),
and the param `offsets` says where each row begins (-1: not offered). A text of up to MAX_TOKENS tokens offers
every pair; a longer one keeps the configured 'from' token and offers every token before it. A long text's data
(format 3) keep only shares of 0.5% or more; the others count as 0 here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from figsite.config import Field, Figure
from figsite.data.run import LEFT_OUT, MIN_SHARE, PER_SHARE, Run
from figsite.data.shared_names import DESCRIPTION, FROM, NAMES, WITHIN_META
from figures import recompute_heads
from figures.recompute_stored import storage
from figures.kind import Context, Kind, LiveOpening, LiveShape, Resolved, Table, Tokens
from figures.toolkit import charts, fields
from figures.toolkit.charts import alt
from figures.findhead_chart import BAR_HEIGHT, refusal, refusal_message, top_bars
from figures.findhead_chart import textless_chart as textless_findhead
from figures.toolkit.words import (
    LONG_TEXT_FACT,
    heading,
    number,
    number_expr,
    quoted,
    said,
    shown,
    token_choices,
    token_label,
    whole_percent,
)

if TYPE_CHECKING:
    from figsite.data.records import ModelRecord
    from figures.toolkit.charts import Spec

MAX_TOKENS = 24  # a text of up to this many tokens offers every pair; a longer one keeps its 'from' token


# ---------------------------------------------------------------------------------------------- data

Ranked = tuple[int, int, float]  # a head and its share: (layer, head, share), layer and head from 1


class HeadShares(TypedDict):
    """A head's row of the page's data (0-based): its shares of the offered rows, one after the other, in units."""

    l: int
    h: int
    u: list[int]


def ranking(run: Run, text: str, looking: int, looked_at: int) -> list[Ranked]:
    """Every head as (layer, head, share), 1-based, by the share `looking` gives `looked_at` (0-based),
    largest first; ties in layer and head order."""
    out: list[Ranked] = []
    for layer in range(run.n_layer):
        for head in range(run.n_head):
            share = dict(run.kept_row(text, layer, head, looking)).get(looked_at, 0.0)
            out.append((layer + 1, head + 1, share))
    return sorted(out, key=lambda t: (-t[2], t[0], t[1]))


def page_rows(run: Run, text: str, froms: Sequence[int]) -> tuple[list[int], list[HeadShares]]:
    """What the page carries: where each offered 'from' token's row begins in `u` (-1: not offered), and one
    row per head with the shares of those rows, one after the other, as integers (PER_SHARE to a share of 1)."""
    offsets, start = [-1] * run.n_tokens(text), 0
    for f in froms:
        offsets[f], start = start, start + f + 1
    heads_rows: list[HeadShares] = []
    for layer in range(run.n_layer):
        for head in range(run.n_head):
            units: list[int] = []
            for f in froms:
                cells = [0.0] * (f + 1)
                for k, s in run.kept_row(text, layer, head, f):
                    cells[k] = s
                units += [round(s * PER_SHARE) for s in cells]
            heads_rows.append({"l": layer, "h": head, "u": units})
    return offsets, heads_rows


def head_label(layer: int, head: int) -> str:
    return f"layer {layer}, head {head}"


def offered_froms(fig: Figure, run: Run) -> list[int]:
    """The 'from' tokens (0-based) the reader can pick: all of a short text, the configured one of a longer."""
    n = run.n_tokens(fig["text"])
    return list(range(n)) if n <= MAX_TOKENS else [fig.opening]


# ---------------------------------------------------------------------------------------------- chart


def describe(run: Run, text: str, tokens: Sequence[str], looking: int, looked_at: int) -> str:
    """One pair in words, for screen readers: the three heads that look hardest."""
    ranked = [(l, h, s) for l, h, s in ranking(run, text, looking, looked_at)[:3] if s >= MIN_SHARE]
    start = f"From {token_label(tokens, looking)} back to {token_label(tokens, looked_at)}: "
    if not ranked:
        return start + f"no head gives it {LEFT_OUT} or more."
    return start + ", ".join(f"{head_label(l, h)} gives {whole_percent(s)}%" for l, h, s in ranked) + "."


class FindHead(Kind[Run]):
    READS = ("attention",)
    KIND = "find-head"
    TITLE = "Which head links two words? Every head ranked by how hard one token looks back at another"
    CAPTION = (
        "Pick a token and an earlier token: of all the heads, which ones give the earlier token the largest "
        "share of the later one's attention?"
    )
    GUIDE = (
        "Choose the token to look from and the token it looks back to (the same one, or one before it). The bars "
        "rank the heads that give it the largest share, highest first."
    )
    KEY = (
        "Each bar is one head, as long as the share of attention the later token gives the earlier one; the "
        "largest first."
    )
    FIELDS = {
        "text": fields.TEXT_FIELD,
        "from": Field("position_or_text", "the token that looks: its number (1 = first) or its text; default the last"),
        "to": Field(
            "position_or_text", "the token looked at, at or before 'from': its number or its text; default the first"
        ),
        "top": Field("int", "how many heads the figure shows, from 1 to the model's number of heads", default=10),
    }
    EXPLORE = True
    LIVE = 5  # after the lens
    NOTEBOOK = recompute_heads.FIND_HEAD  # every head's share of each pair, and its rank, from the model's patterns

    def notebook_params(self, fig: Figure, run: Run) -> dict[str, Any]:
        """The notebook's recompute reads whether a start token leads the text (the page numbers it 0) and how the
        text's data keep a share (figures.recompute_stored)."""
        return {"START": run.token_texts(fig["text"]).start, **storage(run, fig["text"])}

    def live_opening(self, fig: Figure) -> LiveOpening:
        """A reader's text opens on its last token looking back to its first, as the book's default pair."""
        return {}

    def textless_chart(self, model: LiveShape, opening: LiveOpening, narrow: bool = False) -> alt.LayerChart | None:
        """The same bars with no text in them (figures.findhead_chart.textless_chart); the wide one serves a phone."""
        return None if narrow else textless_findhead(model["n_layer"], model["n_head"])

    def check(self, fig: Figure, tokens: Tokens, model: ModelRecord) -> Resolved:
        """The looking token ("opening") and the token it looks back to ("to"), 0-based."""
        text_tokens = tokens(fig["text"])
        fields.check_text(fig, "text", text_tokens, model["n_ctx"])
        looking = fields.opening(fig, "from", text_tokens)
        looked_at = fields.resolve_position(fig, "to", fig.values.get("to", 1), text_tokens)
        if looked_at > looking:
            raise fig.error(
                "to",
                f"token {number(text_tokens, looked_at)} ({said(text_tokens[looked_at])}) comes "
                f"after the 'from' token {number(text_tokens, looking)} ({said(text_tokens[looking])})",
                f"a token at or before token {number(text_tokens, looking)}: no token looks to the right",
            )
        n_heads = model["n_layer"] * model["n_head"]
        if not 1 <= fig["top"] <= n_heads:
            raise fig.error(
                "top",
                f"{fig['top']} heads is not a number the model's heads can fill",
                f"1 to {n_heads}, the model's number of heads",
            )
        return {"opening": looking, "to": looked_at}

    def text_figure(self, fig: Figure, run: Run) -> str:
        """The top heads for the configured pair, one line each: rank, layer and head, share in whole percent."""
        text = fig["text"]
        tokens = run.token_texts(text)
        f, t, top = fig.opening, fig.resolved["to"], fig["top"]
        ranked = ranking(run, text, f, t)[:top]
        if run.is_long(text):  # its data leave shares below 0.5% out: those heads can't be ranked
            ranked = [(l, h, s) for l, h, s in ranked if s >= MIN_SHARE]
        lines = [
            heading(fig, self.TITLE),
            f"  {quoted(text, len(tokens))}",
            f"  from {token_label(tokens, f)} back to {token_label(tokens, t)}: the {top} "
            f"of all {run.n_heads:,} heads that give it the largest share",
        ]
        rank_width = len(str(top))
        name_width = max([len(head_label(l, h)) for l, h, _ in ranked], default=0)
        for rank, (layer, head, share) in enumerate(ranked, start=1):
            lines.append(f"  {rank:>{rank_width}}. {head_label(layer, head):<{name_width}}  {whole_percent(share):>3}%")
        if len(ranked) < top:
            lines.append(
                f"  {'every head gives' if not ranked else 'the other heads give'} it less than {LEFT_OUT} "
                "(a long text's data leave such shares out)"
            )
        return "\n".join(lines) + "\n"

    def context(self, fig: Figure, run: Run) -> Context:
        text = fig["text"]
        tokens = run.token_texts(text)
        f, t = fig.opening, fig.resolved["to"]
        ranked = ranking(run, text, f, t)
        layer, head, share = ranked[0]
        a, b = f"{token_label(tokens, f)}", f"{token_label(tokens, t)}"
        if share < MIN_SHARE:
            summary = f"No head of the {run.n_heads:,} gives {b} {LEFT_OUT} or more of the attention of {a}."
        else:
            summary = (
                f"Of all {run.n_heads:,} heads, layer {layer}, head {head} looks hardest from {a} back to {b}: "
                f"{whole_percent(share)}% of its attention."
            )
        facts: list[str] = []
        runners = [(l, h, s) for l, h, s in ranked[1:3] if s >= MIN_SHARE]
        if share >= MIN_SHARE and runners:
            # Words of the pair the chart opens on: they name it, as the chart may show another pair by then.
            facts.append(
                f"Where the chart opens, from {a} back to {b}, the next are "
                + " and ".join(f"{head_label(l, h)} ({whole_percent(s)}%)" for l, h, s in runners)
                + "."
            )
        mean = sum(s for _, _, s in ranked) / len(ranked)
        facts.append(
            f"There, on average over all {run.n_heads:,} heads, {said(tokens[f])} gives {said(tokens[t])} "
            f"{whole_percent(mean)}% of its attention."
        )
        if len(tokens) > MAX_TOKENS:
            facts.append(
                f"The text has {len(tokens)} tokens: the chart keeps {a} as the token that looks and lets you "
                "choose the token it looks back to."
            )
        if run.is_long(text):
            facts.append(LONG_TEXT_FACT)
        return {"summary": summary, "reveals": [], "facts": facts}

    def tables(self, fig: Figure, run: Run, spec: Spec) -> Mapping[str, Table]:
        """The downloadable data: for every pair the chart offers, each head's share and its rank (1 = hardest).
        A long text's data keep only shares of 0.5% or more: only those are listed."""
        text = fig["text"]
        raw_tokens = run.token_texts(text)
        tokens = [shown(t) for t in raw_tokens]
        long = run.is_long(text)
        rows: list[dict[str, int | str | float]] = []
        for f in offered_froms(fig, run):
            for t in range(f + 1):
                for rank, (layer, head, share) in enumerate(ranking(run, text, f, t), start=1):
                    if not long or share >= MIN_SHARE:
                        rows.append(
                            {
                                "from_token": number(raw_tokens, f),
                                "from": tokens[f],
                                "to_token": number(raw_tokens, t),
                                "to": tokens[t],
                                "rank": rank,
                                "layer": layer,
                                "head": head,
                                "share": round(share, 6),
                            }
                        )
        return {"shares": rows}

    def chart(self, fig: Figure, run: Run) -> alt.LayerChart:
        """Two selects (from, to) and the top heads for that pair as bars, ranked in the page from the shares."""
        text = fig["text"]
        raw_tokens = run.token_texts(text)
        top = fig["top"]
        froms = offered_froms(fig, run)
        offsets, heads_rows = page_rows(run, text, froms)

        params = _params(fig, run, froms, offsets)
        description = alt.param(name=DESCRIPTION, expr=f"to > from ? {refusal(' ')} : descriptions[from + '|' + to]")
        layered: alt.LayerChart = charts.with_data(
            alt.layer(*top_bars(top), refusal_message())
            .add_params(*params, description)
            .properties(
                width="container",
                height=top * BAR_HEIGHT,
                title=alt.Title(
                    charts.wrapped(
                        "(to > from ? 'No token looks to the right' : 'From ' + names[from - 1] + ' (token ' + "
                        f"{number_expr('from', raw_tokens.start)} + ') back to ' + names[to - 1] + ' (token ' + "
                        f"{number_expr('to', raw_tokens.start)} + '): the top {top} of all {run.n_heads:,} heads')"
                    )
                ),
            ),
            heads=heads_rows,
        )
        # The menu of the token looked back to offers those at or before the token that looks (the page's script
        # hides the others and moves a choice past it back to it); the words for one past it stay, for an address.
        layered.usermeta = {WITHIN_META: {"to": FROM}}
        return layered


def _params(fig: Figure, run: Run, froms: list[int], offsets: list[int]) -> list[alt.Parameter]:
    """The two selects (from: the tokens `froms`; to: any token), the tokens' names, where each token's row starts in
    a head's shares (`offsets`), and each pair's words."""
    text = fig["text"]
    raw_tokens = run.token_texts(text)
    choices, labels = token_choices(raw_tokens)
    looking = alt.param(
        name=FROM,
        value=fig.opening + 1,
        bind=alt.binding_select(options=[f + 1 for f in froms], labels=[labels[f] for f in froms], name="From token "),
    )
    looked_at = alt.param(
        name="to",
        value=fig.resolved["to"] + 1,
        bind=alt.binding_select(options=choices, labels=labels, name="back to token "),
    )
    names = alt.param(name=NAMES, value=[shown(t) for t in raw_tokens])
    offsets_param = alt.param(name="offsets", value=offsets)
    said = alt.param(
        name="descriptions",
        value={f"{f + 1}|{t + 1}": describe(run, text, raw_tokens, f, t) for f in froms for t in range(f + 1)},
    )
    return [looking, looked_at, names, offsets_param, said]
