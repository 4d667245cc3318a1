"""The cost of attention: how many looks a text of n tokens takes, in one head and in all heads.

Every token looks at itself and at each token before it: 1 + 2 + ... + n = n(n + 1)/2 looks per head.
Reads the model's size (run.n_heads, run.n_ctx); the rest is arithmetic.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

from figsite.config import Field, Figure
from figsite.data.run import Run
from figsite.data.shared_names import DESCRIPTION
from figures import recompute_plain
from figures.kind import Context, Kind, Resolved, Table, Tokens
from figures.toolkit import charts
from figures.toolkit.charts import alt
from figures.toolkit.colours import DATA, REFERENCE
from figures.toolkit.words import agrees_expr, count, count_expr, heading, thousands

if TYPE_CHECKING:
    from figsite.data.records import ModelRecord
    from figures.toolkit.charts import Spec


def looks(n: int) -> int:
    """Looks in one head for a text of n tokens: token i looks at i tokens."""
    return n * (n + 1) // 2


class Cost(Kind[Run]):
    READS = ("attention",)  # the looks of attention
    KIND = "cost"
    TITLE = "Why attention costs so much work"
    CAPTION = "Each token looks at itself and at every token before it, in every head: the work grows with the square of the length."
    GUIDE = (
        "Set the length of a text and the shorter text to compare it with. The curve gives the looks in one "
        "head for every length up to the model's limit."
    )
    KEY = (
        "The curve is how many looks one head makes for a text of each length: it climbs ever faster. The "
        "points mark the two lengths you set."
    )
    FIELDS = {
        "lengths": Field("int_list", "[short, long]: two text lengths in tokens, 1 <= short < long", default=[9, 1000])
    }
    NOTEBOOK = recompute_plain.COST  # the looks of every length, from the model's layers and heads

    def check(self, fig: Figure, tokens: Tokens, model: ModelRecord) -> Resolved:
        lengths = fig["lengths"]
        if len(lengths) != 2 or not 1 <= lengths[0] < lengths[1]:
            raise fig.error(
                "lengths", f"{lengths} is not a short and a longer length", "[short, long] with 1 <= short < long"
            )
        return {}

    def text_figure(self, fig: Figure, run: Run) -> str:
        short, long = fig["lengths"]
        heads = run.n_heads
        lines = [
            heading(fig, self.TITLE),
            f"{'looks for a text of n tokens':<34}1 + 2 + 3 + ... + n   =  n x (n + 1) / 2   in one head",
            "",
        ]
        for n in (short, long):
            left = f"a text of {thousands(n):>4} {count(n, 'token').split(' ')[1]}"
            lines.append(
                f"{left:<25}{f'{thousands(n):>5} x {thousands(n + 1)} / 2':<27}={thousands(looks(n)):>14} looks"
            )
        lines.append(
            f"{f'in all {thousands(heads)} heads':<25}{f'{thousands(looks(long))} x {thousands(heads)}':<27}="
            f"{thousands(looks(long) * heads):>14} looks"
        )
        lines.append("")
        longer = round(long / short)
        more = round(looks(long) / looks(short))
        lines.append(
            f"{f'the text is {thousands(longer)} times longer':<31}{f'{thousands(long)} / {short}':<21}=  about {thousands(longer)}"
        )
        lines.append(
            f"{'the looks are':<31}{f'{thousands(looks(long))} / {thousands(looks(short))}':<21}"
            f"=  about {thousands(more)} times as many"
        )
        title, *table = lines
        return "\n".join([title] + ["  " + line if line else "" for line in table]) + "\n"

    def context(self, fig: Figure, run: Run) -> Context:
        short, long = fig["lengths"]
        return {
            "summary": f"A text {round(long / short):,} times longer takes about "
            f"{round(looks(long) / looks(short)):,} times as many looks: the work grows with the square "
            "of the length.",
            "reveals": [],
            "facts": [],
        }

    def tables(self, fig: Figure, run: Run, spec: Spec) -> Mapping[str, Table]:
        """The downloadable data: looks in one head and in all heads for every length up to the model's limit."""
        top = max(run.n_ctx, fig["lengths"][1])
        return {
            "looks": [
                {"tokens": n, "looks_in_one_head": looks(n), "looks_in_all_heads": looks(n) * run.n_heads}
                for n in range(1, top + 1)
            ]
        }

    def chart(self, fig: Figure, run: Run) -> alt.LayerChart:
        """Looks in one head against the text's length; the reader sets a length and a shorter one to compare."""
        short, long = fig["lengths"]
        heads = run.n_heads
        top = max(run.n_ctx, long)
        n = alt.param(name="n", value=long, bind=alt.binding_range(min=1, max=top, step=1, name="Tokens in the text "))
        base_n = alt.param(
            name="shorter", value=short, bind=alt.binding_range(min=1, max=top, step=1, name="Compared with a text of ")
        )
        curve = _curve(top)
        chosen = alt.Chart(
            alt.Data(  # type: ignore[no-untyped-call]  # untyped alt.Data
                values=[{"which": "text"}, {"which": "shorter"}]
            )
        ).transform_calculate(
            n="datum.which == 'text' ? n : shorter",
            looks="datum.n * (datum.n + 1) / 2",
            said=count_expr("datum.n", "token"),
        )
        marks = chosen.mark_point(filled=True, size=120).encode(
            x="n:Q",
            y="looks:Q",
            # A length is a point of the curve, in the data's blue (orange means a chosen token, part or head);
            # the length it is compared with stands aside, in grey. Each point has its words beside it.
            color=alt.Color(
                "which:N", scale=alt.Scale(domain=["text", "shorter"], range=[DATA, REFERENCE]), legend=None
            ),
            tooltip=[alt.Tooltip("n:Q", title="tokens", format=","), alt.Tooltip("looks:Q", format=",")],
        )
        one, all_heads = "n * (n + 1) / 2", f"n * (n + 1) / 2 * {heads}"
        heads_words = f"in all {count(heads, 'head')}" if heads > 1 else "in the model's one head"
        said = (
            f"{count_expr('n', 'token')} + ': ' + {count_expr(one, 'look')} + ' in one head, ' + "
            f"format({all_heads}, ',') + {charts.literal(' ' + heads_words + '.')} + '\\n' + {compared('n', 'shorter')}"
        )
        description = alt.param(
            name=DESCRIPTION,
            expr=(
                f"{count_expr('n', 'token')} + ' ' + {agrees_expr('n', 'takes', 'take')} + ' ' + {count_expr(one, 'look')} "
                f"+ ' in one head and ' + format({all_heads}, ',') + {charts.literal(' ' + heads_words + '. ')} + "
                f"{compared('n', 'shorter')}"
            ),
        )
        # The numbers in words above the chart, wrapped to its width (inside it they would cross the curve).
        title = alt.Title(
            charts.wrapped(f"({said})", em=7.4), anchor="start", fontSize=13, fontWeight="normal", lineHeight=18
        )
        return cast(
            "alt.LayerChart",
            alt.layer(curve, marks, point_labels(chosen, top))
            .add_params(n, base_n, description)
            .properties(width="container", height=280, title=title),
        )


def _curve(top: int) -> alt.Chart:
    """The looks in one head, n (n + 1) / 2, for every length of text from 1 to `top` tokens."""
    curve = (
        alt.Chart(alt.SequenceGenerator(sequence=alt.SequenceParams(start=1, stop=top + 1, step=1, **{"as": "n"})))
        .transform_calculate(looks="datum.n * (datum.n + 1) / 2")
        .mark_line(color=DATA)
        .encode(
            x=alt.X("n:Q", title="tokens in the text", scale=alt.Scale(domain=[0, top], nice=False)),
            y=alt.Y("looks:Q", title="looks in one head", axis=alt.Axis(format="~s")),
            tooltip=[alt.Tooltip("n:Q", title="tokens", format=","), alt.Tooltip("looks:Q", format=",")],
        )
    )
    return cast("alt.Chart", curve)


def compared(n: str, shorter: str) -> str:
    """A Vega expression: the text of `n` tokens against the one of `shorter` tokens, the larger over the smaller so
    that no ratio reads '0.0 times': "That is 3 times the length of a text of 9 tokens, and 9.3 times the looks.",
    "A text of 9 tokens is 9 times as long, with 45 times the looks.", or "That is the length it is compared with."."""
    ratio = "format({a} / {b}, ',.1~f') + ' times '"
    looks_ratio = "format(({a} * ({a} + 1)) / ({b} * ({b} + 1)), ',.1~f') + ' times the looks.'"
    longer = (
        f"'That is ' + {ratio.format(a=n, b=shorter)} + 'the length of a text of ' + "
        f"{count_expr(shorter, 'token')} + ', and ' + {looks_ratio.format(a=n, b=shorter)}"
    )
    shorter_words = (
        f"'A text of ' + {count_expr(shorter, 'token')} + ' is ' + {ratio.format(a=shorter, b=n)} + "
        f"'as long, with ' + {looks_ratio.format(a=shorter, b=n)}"
    )
    return (
        f"({n} > {shorter} ? {longer} : {n} < {shorter} ? {shorter_words} : "
        "'That is the length of the text it is compared with.')"
    )


def point_labels(chosen: alt.Chart, top: int) -> alt.Chart:
    """The direct labels of the two points the reader sets (`chosen`: their data): each one's length in tokens, on
    the side of the point that has room (left of it in the right half of the chart, right of it in the left
    half), the shorter text's a line higher, so that two points close together keep both."""
    right = f"datum.n > {top / 2}"
    return cast(
        "alt.Chart",
        chosen.mark_text(
            fontSize=12,
            align=alt.ExprRef(f"{right} ? 'right' : 'left'"),
            dx=alt.ExprRef(f"{right} ? -10 : 10"),
            dy=alt.ExprRef("datum.which == 'text' ? -10 : -26"),
        ).encode(
            x="n:Q",
            y="looks:Q",
            text="said:N",
            tooltip=[alt.Tooltip("n:Q", title="tokens", format=","), alt.Tooltip("looks:Q", format=",")],
        ),
    )
