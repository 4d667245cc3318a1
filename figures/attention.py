"""Figure (l), attention: the share of attention one token gives to itself and to each earlier token.

Reads the text's tokens and shares (run.token_texts, run.head_rows, run.average_rows; a long text's head files
by run.head_files). The reader picks the token to look from and one of the views: the config's (layer, head)
pairs and the average of all heads. A short text's chart is figures.attention_chart's, which gives the live page's
chart too (Attention.textless_chart).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from figsite.config import Field, Figure
from figsite.data.run import JS_CALLBACK, LEFT_OUT, MIN_SHARE, SHARE_UNIT, Run
from figsite.data.shared_names import ATTENTION_META, DESCRIPTION, LEFT_OUT_SIGNAL, NAMES, SHARES, TOKEN
from figures import attention_chart, recompute
from figures.attention_chart import HEIGHT, above_bars, long_bars, out_of_reach
from figures.kind import Context, Kind, LiveOpening, LiveShape, Resolved, Reveal, Table, Tokens
from figures.recompute_stored import storage
from figures.toolkit import charts, fields
from figures.toolkit.charts import Rows, alt
from figures.toolkit.colours import CHOSEN_NAME
from figures.toolkit.words import (
    agrees,
    count,
    escaped,
    heading,
    number,
    number_expr,
    said,
    shown,
    token_choices,
    token_label,
    whole_percent,
)

if TYPE_CHECKING:
    from figsite.data.records import ModelRecord
    from figures.toolkit.charts import Spec

SHARE_DECIMALS = 4  # what a page needs to show 0.01%; the data file keeps more


# ---------------------------------------------------------------------------------------------- data

# A view's shares: rows[query] is the shares over keys 0..query
ViewRows = list[list[float]]


def views(fig: Figure, run: Run, key: str = "views") -> list[tuple[str, ViewRows]]:
    """Each view as (label, rows): rows[query] is the shares over keys 0..query. The average comes last.

    `key` says which list of heads: "views" (what the reader can pick) or "printed_views" (the print edition,
    as the figure's check resolved it).
    """
    return [(label, rows) for _, label, rows in keyed_views(fig, run, key)]


def keyed_views(fig: Figure, run: Run, key: str = "views") -> list[tuple[str, str, ViewRows]]:
    """Views as (key, label, rows); the key ('5-12', 'all') names the view in a permalink."""
    text, pairs = fig["text"], fig.resolved[key] if key in fig.resolved else fig[key]
    rows = [run.head_rows(text, layer - 1, head - 1) for layer, head in pairs] + [run.average_rows(text)]
    return [
        (view, label, view_rows)
        for (view, label), view_rows in zip(attention_chart.view_choices(pairs, run.n_heads), rows)
    ]


def strongest_key(rows: Sequence[Sequence[float]], query: int) -> tuple[int, float]:
    """The key that `query` gives its largest share to, and that share."""
    shares = rows[query]
    key = max(range(len(shares)), key=lambda k: shares[k])
    return key, shares[key]


# ---------------------------------------------------------------------------------------------- print


def _reach(query: int, start: int = 0) -> str:
    """What the token at `query` can see; a model's start token (start: 1) is counted apart from the text's."""
    if query == start:
        return "It can only see itself" + (" and the start token" if start else "") + ", never the tokens after it."
    before = "the start token and " if start else ""
    return f"It can only see {before}the {query + 1 - start} tokens up to itself, never the ones after."


# ---------------------------------------------------------------------------------------------- page


def _largest(tokens: Sequence[str], key: int, share: float) -> str:
    """Which token gets the largest share; a long text's data leave shares below 0.5% out, so say so."""
    if share < MIN_SHARE:
        return f"which gives no token {LEFT_OUT} or more of its attention"
    return f"which gives its largest share, {whole_percent(share)}%, to {token_label(tokens, key)}"


def describe(tokens: Sequence[str], query: int, label: str, shares: Sequence[float]) -> str:
    """One state of the chart in words, for screen readers: the shares of 1% or more, largest first."""
    ranked = sorted(range(len(shares)), key=lambda k: -shares[k])
    parts = ", ".join(f"{said(tokens[k])} {whole_percent(shares[k])}%" for k in ranked if shares[k] >= 0.005)
    after = len(tokens) - query - 1
    reach = f" The {count(after, 'token')} after it {agrees(after, 'is', 'are')} out of its reach." if after else ""
    return f"Looking from {token_label(tokens, query)}, {label}: {parts}.{reach}"


def controls(
    fig: Figure, raw_tokens: Sequence[str], all_views: Sequence[tuple[str, str, ViewRows]]
) -> list[alt.Parameter]:
    """The token select, the view radio and the tokens' names: the same for a short and a long text.
    all_views: (key, label, rows) as keyed_views gives them."""
    token_values, token_labels = token_choices(raw_tokens)
    token = alt.param(
        name=TOKEN,
        value=fig.opening + 1,
        bind=alt.binding_select(options=token_values, labels=token_labels, name="Looking from token "),
    )
    view = attention_chart.view_param([(key, label) for key, label, _ in all_views])
    return [token, view, alt.param(name=NAMES, value=[shown(t) for t in raw_tokens])]


def long_chart(fig: Figure, run: Run) -> alt.LayerChart:
    """The same figure for a long text (data format 3): the page carries the opening view's shares only and
    loads another head's file when the reader picks it (assets/figures.js, `usermeta.attention`).

    Keys lie on a number line rather than one labelled band each; token names show on hover.
    """
    raw_tokens = run.token_texts(fig["text"])
    n, q = len(raw_tokens), fig.opening
    all_views = keyed_views(fig, run)
    _, first_label, opening = all_views[0]
    row = opening[q]
    files = run.head_files(fig["text"])
    token, view, names = controls(fig, raw_tokens, all_views)
    left_out = alt.param(name=LEFT_OUT_SIGNAL, value=round(1 - sum(s for s in row if s >= MIN_SHARE), 4))
    description = alt.param(name=DESCRIPTION, value=describe(raw_tokens, q, first_label, row))

    shares = alt.Data(
        name=SHARES,
        values=[  # type: ignore[no-untyped-call]  # untyped alt.Data
            {"k": k, "s": round(s, SHARE_DECIMALS)} for k, s in enumerate(row) if s >= MIN_SHARE
        ],
    )
    x = alt.X(
        "k:Q",
        title="the token looked at (its position in the text)",
        scale=alt.Scale(domain=[0, n], nice=False),
        axis=alt.Axis(format="d"),
    )
    y = alt.Y("s:Q", scale=alt.Scale(domain=[0, 1]), title="share of attention", axis=alt.Axis(format="%"))
    reach, bars = out_of_reach(n), long_bars(shares, x, y)
    start = run.token_texts(fig["text"]).start  # a start token is no token of the reader's: not counted
    said = above_bars(
        f"'Looking from ' + names[token - 1] + ' (token ' + {number_expr('token', start)} + ' of ' + "
        f"{number_expr('length(names)', start)} + '); "
        f"shares below {LEFT_OUT}, left out, add up to ' + format(left_out, '.1%')"
    )
    layered: alt.LayerChart = (
        alt.layer(reach, bars, said)
        .add_params(token, view, names, left_out, description)
        .properties(
            width="container",
            height=HEIGHT,
            usermeta={
                ATTENTION_META: {
                    "files": {k: files[k] for k, _, _ in all_views},
                    "minShare": MIN_SHARE,
                    "unit": SHARE_UNIT,
                    "callback": JS_CALLBACK,
                }
            },
        )
    )
    return charts.with_clicks(layered, TOKEN)


class Attention(Kind[Run]):
    READS = ("attention",)
    NOTEBOOK = recompute.ATTENTION  # every share the page lists, from the model's attention patterns

    def notebook_params(self, fig: Figure, run: Run) -> dict[str, Any]:
        """The notebook's recompute reads how the text's data keep a share (figures.recompute_stored)."""
        return storage(run, fig["text"])

    def tables(self, fig: Figure, run: Run, spec: Spec) -> Mapping[str, Table]:
        """The chart's datasets. A long text's page carries the opening token's row in the opening view and loads
        the others from the head files: its table lists the opening token's kept shares in every view."""
        if not run.is_long(fig["text"]):
            return super().tables(fig, run, spec)
        q, tokens = fig.opening, [shown(t) for t in run.token_texts(fig["text"])]
        kept = [(v, k, s) for v, _, rows in keyed_views(fig, run) for k, s in enumerate(rows[q]) if s >= MIN_SHARE]
        return {
            "shares": [{"v": v, "q": q, "k": k, "s": round(s, SHARE_DECIMALS)} for v, k, s in kept],
            "keys": [{"k": k, "t": t} for k, t in enumerate(tokens)],
        }

    KIND = "attention"
    PRINTED_IN_BOOK = True  # the book prints it
    REACH = True  # a token sees only itself and the tokens before it
    TITLE = "Attention: which earlier tokens does one token look at?"
    CAPTION = (
        "Every token takes in a mix of itself and the tokens before it. The bars show how one token "
        "shares out its attention; the shares add up to 100%."
    )
    GUIDE = (
        "Choose the token to look from and one of the views: a single head, or the average of all heads. "
        "Tokens after the chosen one are shaded: it cannot see them. Choose a token's bar (click or tap) to "
        "look from that token; the row of tokens does the same from the keyboard."
    )
    KEY = (
        f"Each bar is the share of attention the chosen token (in {CHOSEN_NAME}) gives one token: itself or an "
        "earlier one. The shaded part is what it cannot see."
    )
    FIELDS = {
        "text": fields.TEXT_FIELD,
        "focus": fields.FOCUS_FIELD,
        "views": Field("pair_list", "a list of [layer, head] pairs, numbered from 1", default=[]),
        "printed_views": Field(
            "pair_list",
            "the [layer, head] pairs the printed figure shows (all views when left "
            "out); the average of all heads is always printed",
        ),
        "guess_token": Field("position_or_text", "the token of the 'guess first' question: its number or its text"),
        "guess_view": Field("int_list", "[layer, head] of the 'guess first' question, numbered from 1"),
    }

    def check(self, fig: Figure, tokens: Tokens, model: ModelRecord) -> Resolved:
        """The opening token, the printed views (all views by default) and the "guess first" token."""
        text_tokens = tokens(fig["text"])
        fields.check_text(fig, "text", text_tokens, model["n_ctx"])
        resolved: Resolved = {
            "opening": fields.opening(fig, "focus", text_tokens),
            "printed_views": fig.values.get("printed_views", fig["views"]),
        }
        for key, pairs in (("views", fig["views"]), ("printed_views", resolved["printed_views"])):
            for pair in pairs:
                fields.check_view(fig, key, pair, model)
        has_token, has_view = "guess_token" in fig.values, "guess_view" in fig.values
        if has_token != has_view:
            missing = "guess_view" if has_token else "guess_token"
            raise fig.error(
                missing,
                "missing while the other half of the question is given",
                "both guess_token and guess_view, or neither",
            )
        if has_view:
            fields.check_view(fig, "guess_view", fig["guess_view"], model)
            resolved["guess"] = fields.resolve_position(fig, "guess_token", fig["guess_token"], text_tokens)
        return resolved

    def printed_spec(self, fig: Figure, spec: Spec) -> Spec:
        """The chart on the first view the book prints (printed_views'; the average where it prints no head), where
        the chart holds it (a printed view the reader cannot pick is not in the chart's data)."""
        printed = fig.resolved.get("printed_views", fig["views"])
        first = f"{printed[0][0]}-{printed[0][1]}" if printed else "all"
        params = spec.get("params", [])
        options: list[str] = next(
            (
                param["bind"]["options"]
                for param in params
                if param.get("name") == attention_chart.VIEW and "bind" in param
            ),
            [],
        )
        if first not in options:
            return spec
        return {
            **spec,
            "params": [
                {**param, "value": first} if param.get("name") == attention_chart.VIEW else param for param in params
            ],
        }

    def text_figure(self, fig: Figure, run: Run) -> str:
        """The figure in the book's printed format: one line per view, shares below 0.5% left out."""
        tokens = run.token_texts(fig["text"])
        q = fig.opening
        lines = [
            heading(fig, self.TITLE),
            f'  "{escaped(fig["text"])}"',
            f"  looking from {token_label(tokens, q)}. {_reach(q, tokens.start)}",
        ]
        for label, rows in views(fig, run, "printed_views"):
            parts = [f"{shown(tokens[k])} {whole_percent(s)}%" for k, s in enumerate(rows[q]) if s * 100 >= 0.5]
            lines.append(f"     {label + ':':<28}" + "  ".join(parts))
        return "\n".join(lines) + "\n"

    def context(self, fig: Figure, run: Run) -> Context:
        """What the page says beside the chart, all from the data: the opening state and the guess's answer."""
        tokens = run.token_texts(fig["text"])
        q = fig.opening
        all_views = views(fig, run)
        label, rows = all_views[0]
        key, share = strongest_key(rows, q)
        summary = f"It opens on {token_label(tokens, q)} in {label}, " + _largest(tokens, key, share) + "."
        reveals: list[Reveal] = []
        if "guess_view" in fig.values:
            layer, head = fig["guess_view"]
            g = fig.resolved["guess"]
            key, share = strongest_key(run.head_rows(fig["text"], layer - 1, head - 1), g)
            reveals.append(
                {
                    "question": f"Guess first: which token does {said(tokens[g])} look at hardest in layer {layer}, head {head}?",
                    "answer": (
                        f"{token_label(tokens, key)}, with {whole_percent(share)}% of its attention."
                        if share >= MIN_SHARE
                        else f"No token gets {LEFT_OUT} or more of its attention there."
                    ),
                    "link": f"#token={g + 1}&view={layer}-{head}",
                    "link_text": f"Show token {number(tokens, g)} in layer {layer}, head {head}",  # as readers count
                }
            )
        return {"summary": summary, "reveals": reveals, "facts": []}

    def chart(self, fig: Figure, run: Run) -> alt.LayerChart:
        """Bars of the shares from the picked token to each key; keys after it are shaded as out of reach."""
        if run.is_long(fig["text"]):
            return long_chart(fig, run)
        return short_chart(fig, run)

    def narrow_chart(self, fig: Figure, run: Run) -> alt.LayerChart | None:
        """The same bars lying sideways, one row per token, for a phone's column: every token keeps its label.
        A long text has none: its keys lie on a number line, which drops no label."""
        return None if run.is_long(fig["text"]) else short_chart(fig, run, sideways=True)

    LIVE = 1

    def live_opening(self, fig: Figure) -> LiveOpening:
        """The live page opens on this figure's text and views (where no figure (i) gives a text with a target)."""
        return {"views": fig.resolved.get("views", fig.values.get("views", [])), "text": fig.values["text"]}

    def textless_chart(self, model: LiveShape, opening: LiveOpening, narrow: bool = False) -> alt.LayerChart:
        """The same bars with no text in them (figures.attention_chart.textless_chart), upright or sideways."""
        return attention_chart.textless_chart(
            opening.get("views", []), model["n_layer"], model["n_head"], opening.get("token"), narrow=narrow
        )


# ---------------------------------------------------------------------------------------------- a short text's chart


def short_parts(fig: Figure, run: Run) -> tuple[list[str], list[alt.Parameter], dict[str, Rows]]:
    """What both charts of a short text share: the tokens as the chapter writes them, the params (token, view,
    names, every state's words and the chosen one's) and the data, put in once at the top by name (Altair copies
    inline data at every step of building a chart). Reads the text's tokens and every view's shares."""
    raw_tokens = run.token_texts(fig["text"])
    all_views = keyed_views(fig, run)
    token, view, names = controls(fig, raw_tokens, all_views)
    said = alt.param(
        name="descriptions",
        value={
            f"{q + 1}|{key}": describe(raw_tokens, q, label, row)
            for key, label, rows in all_views
            for q, row in enumerate(rows)
        },
    )
    description = alt.param(name=DESCRIPTION, expr="descriptions[token + '|' + view]")
    tokens = [shown(t) for t in raw_tokens]
    datasets: dict[str, Rows] = {
        "shares": [
            {"v": key, "q": q, "k": k, "s": round(s, SHARE_DECIMALS)}
            for key, _, rows in all_views
            for q, row in enumerate(rows)
            for k, s in enumerate(row)
        ],
        "keys": [{"k": k, "t": t} for k, t in enumerate(tokens)],
    }
    return tokens, [token, view, names, said, description], datasets


def short_chart(fig: Figure, run: Run, sideways: bool = False) -> alt.LayerChart:
    """Figure (l) for a short text: upright bars, one column per token, or (sideways) one row per token with its
    label on the left, for a column narrower than 480 px. Both have the same params, data, words and clicks
    (figures.attention_chart.share_chart, the live page's chart too)."""
    tokens, params, datasets = short_parts(fig, run)
    start = run.token_texts(fig["text"]).start
    return attention_chart.share_chart(attention_chart.built(len(tokens), start), params, datasets, sideways)
