"""Figure (l)'s chart (figures.attention): the chosen token's shares over every token, upright or (sideways) one row
per token, the tokens after it shaded as out of its reach; a click on a bar or a column looks from its token.

One chart function, `share_chart`, for the build and the live page: its `Source` says where the bars read. The
build's reads the datasets `shares` and `keys` of a text (figures.attention.short_parts); the live page's
(`textless_chart`) has no text in it and reads the dataset `panels` of figsite.data.live_data, which the page fills
with the reader's text (figures.toolkit.textless). A long text's chart (figures.attention.long_chart) lays its
keys on a number line: `out_of_reach` and `long_bars` here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypedDict, cast

from figsite.data.shared_names import DESCRIPTION, TOKEN
from figsite.data.shared_names import VIEW as VIEW  # figures.attention reads it from here too
from figures.toolkit import charts, textless
from figures.toolkit.charts import Rows, alt

if TYPE_CHECKING:
    from altair.utils.schemapi import UndefinedType
from figures.toolkit.colours import ACCENT, MAIN, ON_DARK, ON_LIGHT, OUT_OF_REACH
from figures.toolkit.words import number_expr

HEIGHT = 260
ROW = 24  # px per token in the sideways chart: its label fits the row
LABELLED = 24  # tokens up to which the upright chart's labels all fit a 480 px column, turned to 45 degrees
LISTED = 5  # shares the live page's words name, largest first
HEADING_LINE = 16  # px: a line of the words above the bars
# Each bar in words, for a screen reader (its `t`: the token's name): "_because: 11% of the attention".
SAID = "datum.t + ': ' + format(datum.s, '.0%') + ' of the attention'"
PICKED = "datum.v == view && datum.q == token - 1"  # the build's shares of the chosen view, from the chosen token


class Labels(TypedDict, total=False):
    """The upright chart's axis labels (Source.upright_labels): which show, how overlapping ones are dropped, and
    (with no text) the model's own tokens slanted."""

    labelExpr: str
    labelOverlap: bool | Literal["greedy"]
    labelFontStyle: alt.ExprRef


@dataclass(frozen=True)
class Source:
    """Where the bars read: `shares`, one datum per key the chosen token sees (k, its name t, its share s); `keys`,
    one datum per token (k); `chosen`, the chosen token from 0 and `number`, from 1, as Vega expressions; `n`, the
    text's tokens, or None where the chart has no text (its domains then come from the data)."""

    shares: alt.Chart
    keys: alt.Chart
    chosen: str = "token - 1"
    number: str = "token"
    n: int | None = None

    @property
    def after(self) -> str:  # the keys after the chosen token: out of its reach
        return f"datum.k > {self.chosen}"

    @property
    def scale(self) -> alt.Scale | UndefinedType:
        return alt.Undefined if self.n is None else alt.Scale(domain=list(range(self.n)))

    def height(self, sideways: bool) -> int | alt.Step:
        if not sideways:
            return HEIGHT
        return alt.Step(ROW) if self.n is None else ROW * self.n

    def upright_labels(self) -> Labels:
        """Every token's label where they fit (a text of up to LABELLED tokens), else as many as fit."""
        if self.n is None:
            return {"labelExpr": textless.every_label(), "labelOverlap": False, "labelFontStyle": textless.own_style()}
        return {"labelExpr": "names[datum.value]", "labelOverlap": False if self.n <= LABELLED else "greedy"}


def built(n: int, start: int = 0) -> Source:
    """The build's source: the datasets `shares` ({v, q, k, s}) and `keys` ({k, t}) of a text of `n` tokens, the
    first `start` of them the model's start token (readers number their tokens after it)."""
    shares = alt.Chart(alt.NamedData("shares")).transform_filter(PICKED).transform_calculate(t="names[datum.k]")
    return Source(shares, alt.Chart(alt.NamedData("keys")), number=number_expr("token", start), n=n)


def view_choices(pairs: Sequence[Sequence[int]], n_heads: int) -> list[tuple[str, str]]:
    """The views of figure (l), as (key, label): the [layer, head] `pairs` (from 1), then the average of all heads;
    the key ('5-12', 'all') names the view in a permalink."""
    return [(f"{layer}-{head}", f"layer {layer}, head {head}") for layer, head in pairs] + [
        ("all", f"all {n_heads:,} heads, averaged")
    ]


def view_param(choices: Sequence[tuple[str, str]]) -> alt.Parameter:
    """The radio of the views (`choices`: view_choices'), opening on the first."""
    return alt.param(
        name=VIEW,
        value=choices[0][0],
        bind=alt.binding_radio(
            options=[key for key, _ in choices], labels=[label for _, label in choices], name="View "
        ),
    )


def share_chart(
    source: Source, params: Sequence[alt.Parameter], datasets: Mapping[str, Rows], sideways: bool = False
) -> alt.LayerChart:
    """Figure (l): upright bars, one column per token, or (sideways) one row per token with its label on the left,
    for a column narrower than 480 px; `params` and `datasets` put in once, at the top."""
    marks = sideways_marks(source) if sideways else upright_marks(source)
    heading = above_bars(f"'Looking from ' + names[{source.chosen}] + ' (token ' + {source.number} + ')'")
    layered: alt.LayerChart = (
        alt.layer(*marks, heading).add_params(*params).properties(width="container", height=source.height(sideways))
    )
    return charts.with_clicks(charts.with_data(layered, **datasets), TOKEN)


def above_bars(expr: str) -> alt.Chart:
    """The line above the bars, a Vega expression of the chosen token; it wraps to the chart's width, upwards."""
    # Vega writes a text's further lines below its first: the first goes up a line for each, so that the last ends
    # above the bars (and the pointer on the bars is never on the words).
    return cast(
        "alt.Chart",
        alt.Chart(
            alt.Data(  # type: ignore[no-untyped-call]  # untyped alt.Data
                values=[{}]
            )
        )
        .mark_text(
            align="left",
            baseline="bottom",
            fontSize=13,
            fontWeight="bold",
            lineBreak="\n",
            lineHeight=HEADING_LINE,
            dy=alt.ExprRef(f"-{HEADING_LINE} * (length(split(datum.heading, '\\n')) - 1)"),
        )
        .encode(x=alt.value(0), y=alt.value(-8), text="heading:N")
        .transform_calculate(heading=charts.wrap_lines(f"({expr})", em=charts.TITLE_EM)),
    )


def _bars(source: Source, key: alt.X | alt.Y, share: alt.X | alt.Y) -> alt.Chart:
    """The chosen token's shares, one bar per key, the chosen token's own in the chosen colour, each said in words;
    a click on one looks from its token."""
    return cast(
        "alt.Chart",
        charts.clickable(source.shares.transform_calculate(said=SAID), **{TOKEN: "datum.k + 1"})
        .mark_bar(cursor="pointer")
        .encode(
            key,
            share,
            description="said:N",
            color=alt.condition(f"datum.k == {source.chosen}", alt.value(ACCENT), alt.value(MAIN)),
            tooltip=[alt.Tooltip("t:N", title="token"), alt.Tooltip("s:Q", title="share", format=".1%")],
        ),
    )


def _keys(source: Source, **clicks: str) -> alt.Chart:
    """One datum per token; with `clicks`, a click on it looks from that token (the token row: by keyboard)."""
    return charts.clickable(source.keys, **clicks)


def _share_words(source: Source) -> alt.Chart:
    """Each bar's share written by it: the bar's tooltip and click on its words too."""
    return cast(
        "alt.Chart",
        charts.clickable(source.shares, **{TOKEN: "datum.k + 1"}).encode(
            tooltip=[alt.Tooltip("t:N", title="token"), alt.Tooltip("s:Q", title="share", format=".1%")]
        ),
    )


def upright_marks(source: Source) -> list[alt.Chart]:
    """The upright chart's layers: keys along x (labels turned 45 degrees; all of them for a text of up to LABELLED
    tokens), shares up y; the keys after the chosen token shaded, "out of reach" written up their columns."""
    x = alt.X(
        "k:O",
        title=None,
        scale=source.scale,
        axis=alt.Axis(labelAngle=-45, labelFontSize=12, **source.upright_labels()),
    )
    share = alt.Y(
        "s:Q", scale=alt.Scale(domain=[0, 1]), title="share of attention", axis=alt.Axis(format="%", tickCount=5)
    )
    column = {"x": x, "y": alt.value(0), "y2": alt.value(HEIGHT)}
    count = textless.N if source.n is None else source.n
    return [
        _keys(source)
        .mark_rect(color=OUT_OF_REACH, stroke=None, aria=False)
        .encode(**column)
        .transform_filter(source.after),
        _keys(source)
        .mark_text(angle=270, align="right", dx=-10, fontSize=11, opacity=0.8, aria=False)
        .encode(x=x, y=alt.value(0), text=alt.value("out of reach"))
        .transform_filter(source.after),
        _keys(source, **{TOKEN: "datum.k + 1"})
        .mark_rect(fill="transparent", cursor="pointer", aria=False)
        .encode(**column),
        _bars(source, x, share),
        _share_words(source)
        .mark_text(fontSize=11, aria=False, cursor="pointer", **charts.over_bars(count))
        .encode(x=x, y=alt.Y("s:Q", scale=alt.Scale(domain=[0, 1])), text=alt.Text("s:Q", format=".0%")),
    ]


def sideways_marks(source: Source) -> list[alt.Chart]:
    """The sideways chart's layers: one row per key, its token's label on the left (every one: none is dropped or
    cut short), shares along x; the keys after the chosen token shaded, "out of reach" at the end of their rows."""
    y = alt.Y(
        "k:O",
        title=None,
        scale=source.scale,
        axis=alt.Axis(
            labelExpr="names[datum.value]",
            labelFontSize=12,
            labelOverlap=False,
            labelLimit=0,
            labelFontStyle=textless.own_style() if source.n is None else alt.Undefined,
        ),
    )
    share = alt.X(
        "s:Q", scale=alt.Scale(domain=[0, 1]), title="share of attention", axis=alt.Axis(format="%", tickCount=4)
    )
    row = {"y": y, "x": alt.value(0), "x2": alt.value("width")}
    return [
        _keys(source)
        .mark_rect(color=OUT_OF_REACH, stroke=None, aria=False)
        .encode(**row)
        .transform_filter(source.after),
        _keys(source)
        .mark_text(align="right", dx=-6, fontSize=11, opacity=0.8, aria=False)
        .encode(y=y, x=alt.value("width"), text=alt.value("out of reach"))
        .transform_filter(source.after),
        _keys(source, **{TOKEN: "datum.k + 1"})
        .mark_rect(fill="transparent", cursor="pointer", aria=False)
        .encode(**row),
        _bars(source, y, share),
        # A share after its bar, or inside a bar that reaches the edge ("100%"), on the bar's colour.
        *charts.at_bar_ends(
            _share_words(source).encode(
                y=y, x=alt.X("s:Q", scale=alt.Scale(domain=[0, 1])), text=alt.Text("s:Q", format=".0%")
            ),
            "s",
            inside=alt.condition(f"datum.k == {source.chosen}", alt.value(ON_LIGHT), alt.value(ON_DARK)),
            fontSize=11,
            aria=False,
            cursor="pointer",
        ),
    ]


# ---------------------------------------------------------------------------------------------- with no text


def textless_chart(
    views: Sequence[Sequence[int]], n_layer: int, n_head: int, opening_token: int | None = None, narrow: bool = False
) -> alt.LayerChart:
    """Figure (l) with no text in it (the live page's): the chosen view ([layer, head] from 1 of `views`, or 'all':
    `panels`' last row), upright or (narrow) sideways. Reads `panels`, `names`; the select "token" (opening on
    `opening_token`, from 1; None: the last) and the radio "view" ('5-4' ... 'all')."""
    choices = view_choices(views, n_layer * n_head)
    places = [[l - 1, h - 1, (l - 1) * (n_head + 1) + h - 1] for l, h in views] + [
        [n_layer, n_head, n_layer * (n_head + 1)]
    ]
    keyed = [(key, label, at) for (key, label), at in zip(choices, places)]
    view = view_param(choices)
    views_at = alt.param(name="views_at", value={key: [*at, label] for key, label, at in keyed})  # l, h, place, label
    ranked, words = textless.ranked("views_at[view][2]", LISTED)
    after = f"({textless.N} - at - 1)"
    description = alt.param(
        name=DESCRIPTION,
        expr=(
            f"'Looking from ' + names[at] + ' (token ' + (at + 1) + '), ' + views_at[view][3] + ': ' + {words} + '.' + "
            f"({after} > 0 ? ' The ' + {after} + ({after} == 1 ? ' token after it is' : ' tokens after it are') + "
            "' out of its reach.' : '')"
        ),
    )
    shares = textless.panel_keys("datum.l == views_at[view][0] && datum.h == views_at[view][1]")
    source = Source(shares.transform_filter("datum.k <= at"), textless.every_token(), "at", "(at + 1)")
    params = [*textless.chosen(TOKEN, opening_token, "Looking from token "), view, views_at, *ranked, description]
    return share_chart(source, params, {"panels": textless.empty(n_layer, n_head)["panels"]}, sideways=narrow)


# ---------------------------------------------------------------------------------------------- a long text's bars


def out_of_reach(n: int) -> alt.Chart:
    """The shading over the keys after the chosen token (the param `token`) up to the text's `n` tokens."""
    chart = (
        alt.Chart(alt.Data(values=[{}]))  # type: ignore[no-untyped-call]  # untyped alt.Data
        .transform_calculate(start="token", end=str(n))
        .mark_rect(color=OUT_OF_REACH)
        .encode(
            x=alt.X("start:Q", scale=alt.Scale(domain=[0, n], nice=False)),
            x2="end:Q",
            y=alt.value(0),
            y2=alt.value(HEIGHT),
        )
    )
    return cast("alt.Chart", chart)


def long_bars(shares: alt.Data, x: alt.X, y: alt.Y) -> alt.Chart:
    """A bar per kept share (`shares`) on the keys' number line, each a token wide; a click chooses its token."""
    chart = (
        charts.clickable(
            alt.Chart(shares).transform_calculate(k2="datum.k + 1", t="names[datum.k]").transform_calculate(said=SAID),
            **{TOKEN: "datum.k + 1"},
        )
        .mark_bar(color=MAIN, minBandSize=2, cursor="pointer")
        .encode(
            x=x,
            x2="k2:Q",
            y=y,
            description="said:N",
            tooltip=[
                alt.Tooltip("t:N", title="token"),
                alt.Tooltip("k:Q", title="position (from 0)"),
                alt.Tooltip("s:Q", title="share", format=".2%"),
            ],
        )
    )
    return cast("alt.Chart", chart)
