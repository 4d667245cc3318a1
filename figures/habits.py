"""One habit of the heads, model by model: how strongly a chosen head, and the strongest head, show one habit (the
head-roles figure's: looking at the token before, at the first token, at itself, at an earlier copy, or after an
earlier copy) in each of several models; several revisions of one model show the habit forming over training.

A side-by-side kind (Kind.SIDE_BY_SIDE): `run` is a figsite.data.side_by_side.Runs. Reads each member's entry of the
part "roles" (the head-roles figure's, figsite/capture/parts/roles.py): "scores" {role: [layer][head]}.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypedDict, cast

from figsite.config import Field, Figure
from figsite.data import paths
from figsite.data.asks import Asks
from figsite.data.side_by_side import Runs
from figures import recompute_plain, roles
from figures.kind import Context, Kind, Resolved, Table, Tokens
from figures.side_by_side import MODELS_FIELD, check_models, labels
from figures.toolkit import fields
from figures.toolkit.charts import alt
from figures.toolkit.colours import CHOSEN, CHOSEN_NAME, DATA, DATA_NAME
from figures.toolkit.words import heading

if TYPE_CHECKING:
    from figsite.data.part_records import Role
    from figsite.data.records import ModelRecord
    from figures.toolkit.charts import Spec

ROLE_FIELD = Field(
    "str",
    "the habit: "
    + ", ".join(f"'{role}' ({name})" for role, (name, _) in roles.ROLES.items())
    + "; default 'induction'",
    default="induction",
)
HEAD_FIELD = Field(
    "int_list",
    "[layer, head], numbered from 1, that every model has; default the head that shows "
    "the habit most in the last model",
)
Line = Literal["chosen", "strongest"]  # a line of the chart: a HabitRow's score
LINES: dict[Line, tuple[str, str]] = {"chosen": ("the chosen head", CHOSEN), "strongest": ("the strongest head", DATA)}


class HabitRow(TypedDict):
    """One model's scores at the habit (a share of attention from 0 to 1): the chosen head's, the strongest head's,
    and which head that is ("layer 5 head 1")."""

    model: str  # the model's label
    chosen: float
    strongest: float
    strongest_head: str


def scores(fig: Figure, runs: Runs) -> list[HabitRow]:
    """Per model, in the config's order: the chosen head's score, the strongest head's, and which that is."""
    role: Role = fig["role"]
    rows: list[HabitRow] = []
    entries = [roles.Roles().entry(member.fig, member.run) for member in runs.members]
    layer, head = chosen_head(fig, entries[-1]["scores"][role])
    for name, entry in zip(labels(runs), entries):
        grid = entry["scores"][role]  # (layers, heads)
        best = max(((l, h) for l in range(len(grid)) for h in range(len(grid[0]))), key=lambda lh: grid[lh[0]][lh[1]])
        rows.append(
            {
                "model": name,
                "chosen": grid[layer][head],
                "strongest": grid[best[0]][best[1]],
                "strongest_head": f"layer {best[0] + 1} head {best[1] + 1}",
            }
        )
    return rows


def chosen_head(fig: Figure, grid: Sequence[Sequence[float]]) -> tuple[int, int]:
    """The head the figure follows, 0-based: its `head`, else the last model's strongest at the habit."""
    if "head" in fig.values:
        return fig["head"][0] - 1, fig["head"][1] - 1
    return max(((l, h) for l in range(len(grid)) for h in range(len(grid[0]))), key=lambda lh: grid[lh[0]][lh[1]])


class HabitSideBySide(Kind[Runs]):
    KIND = "habit-side-by-side"
    READS = ("attention",)
    SIDE_BY_SIDE = True
    EXPLORE = True
    DATA_FILES = (paths.PARTS,)
    TITLE = "One habit of the heads, model by model"
    CAPTION = (
        "How strongly the heads show one habit in each of several models, such as one model at several points "
        "of its training: one chosen head, and the head that shows the habit most in each."
    )
    GUIDE = "{Hover} a point to read its share and, for the strongest head, which head it is."
    FIELDS = {
        "text": fields.TEXT_FIELD,
        "models": MODELS_FIELD,
        "role": ROLE_FIELD,
        "head": HEAD_FIELD,
        "repeat_length": roles.Roles.FIELDS["repeat_length"],
        "seed": roles.Roles.FIELDS["seed"],
    }
    NOTEBOOK = recompute_plain.HABIT  # each model's heads scored at the habit again, from its attention patterns

    def notebook_params(self, fig: Figure, runs: Runs) -> dict[str, Any]:
        """The notebook's recompute reads, in the figure's order, each model's name on the page and the random tokens
        the build drew for it (SEQUENCES, the first copy: a reader's torch may draw others from the same seed); the
        habit; and the chosen head as the config gives it (layer and head from 1), or [] where it gives none."""
        return {
            "MODELS": labels(runs),
            "SEQUENCES": [roles.Roles().entry(member.fig, member.run)["sequence"] for member in runs.members],
            "ROLE": fig["role"],
            "HEAD": fig.values.get("head", []),
        }

    def asks(self, fig: Figure) -> Asks:
        """Its text, and once resolved against a model the head-roles part of it (each model scores its heads)."""
        return Asks(
            texts={fig["text"]: None},
            config=self.config_of(fig, *roles.Roles.FIELDS),
            parts={roles.Roles.PART: [roles.Roles().ask(fig)]} if fig.resolved else {},
        )

    def check(self, fig: Figure, tokens: Tokens, model: ModelRecord) -> Resolved:
        check_models(fig)
        if fig["role"] not in roles.ROLES:
            raise fig.error("role", f"{fig['role']!r} is not a habit", ROLE_FIELD.allowed)
        if "head" in fig.values:
            fields.check_view(fig, "head", fig["head"], model)
        return roles.Roles().check(fig, tokens, model)

    def key(self, fig: Figure, runs: Runs) -> str:
        return (
            f"Each point is the share of its attention a head gives that way in one model: {CHOSEN_NAME} the "
            f"chosen head, {DATA_NAME} the head that gives the most there."
        )

    def chart(self, fig: Figure, runs: Runs) -> alt.LayerChart:
        # each `line` a Line: the checker reads the pairs' first members as str
        rows = [
            {"model": row["model"], "line": LINES[cast(Line, line)][0], "share": row[cast(Line, line)], "head": head}
            for row in scores(fig, runs)
            for line, head in (("chosen", self.head_name(fig, runs)), ("strongest", row["strongest_head"]))
        ]
        names = labels(runs)
        base = alt.Chart(alt.Data(values=rows)).encode(  # type: ignore[no-untyped-call]  # untyped alt.Data
            x=alt.X("model:N", sort=names, title="model", axis=alt.Axis(labelAngle=0, labelLimit=140)),
            y=alt.Y(
                "share:Q",
                scale=alt.Scale(domain=[0, 1]),
                axis=alt.Axis(format="%"),
                title=f"share of attention: {roles.ROLES[fig['role']][0]}",
            ),
            color=alt.Color(
                "line:N",
                scale=alt.Scale(
                    domain=[name for name, _ in LINES.values()], range=[colour for _, colour in LINES.values()]
                ),
                legend=alt.Legend(title=None, orient="bottom"),
            ),
            detail="line:N",
        )
        return cast(
            "alt.LayerChart",
            alt.layer(
                base.mark_line(),
                base.mark_point(filled=True, size=60).encode(
                    tooltip=[
                        alt.Tooltip("model:N"),
                        alt.Tooltip("line:N", title="which"),
                        alt.Tooltip("head:N"),
                        alt.Tooltip("share:Q", format=".0%"),
                    ]
                ),
            ).properties(
                # two short lines: a phone's column holds each
                width="container",
                height=220,
                title=["One habit, model by model:", roles.ROLES[fig["role"]][0]],
            ),
        )

    def head_name(self, fig: Figure, runs: Runs) -> str:
        entry = roles.Roles().entry(runs.members[-1].fig, runs.members[-1].run)
        role: Role = fig["role"]
        layer, head = chosen_head(fig, entry["scores"][role])
        return f"layer {layer + 1} head {head + 1}"

    def text_figure(self, fig: Figure, runs: Runs) -> str:
        """A line per model: the chosen head's score and the strongest head's, in whole percent."""
        rows, width = scores(fig, runs), max(len(name) for name in labels(runs)) + 2
        out = [
            heading(fig, self.TITLE),
            f"  looking at {roles.ROLES[fig['role']][1]}; the chosen head: {self.head_name(fig, runs)}",
        ]
        out += [
            f"  {row['model']:<{width}}chosen {row['chosen']:4.0%}   strongest {row['strongest']:4.0%} "
            f"({row['strongest_head']})"
            for row in rows
        ]
        return "\n".join(out) + "\n"

    def context(self, fig: Figure, runs: Runs) -> Context:
        rows, head = scores(fig, runs), self.head_name(fig, runs)
        habit = roles.ROLES[fig["role"]][1]
        first, last = rows[0], rows[-1]
        grew = "more" if last["chosen"] > first["chosen"] else "less"
        return {
            "summary": f"{head.capitalize()} looks at {habit} for {first['chosen']:.0%} of its attention in "
            f"{first['model']} and {last['chosen']:.0%} in {last['model']}.",
            "reveals": [
                {
                    "question": f"Guess first: does {head} look more or less at {habit} in {last['model']} "
                    f"than in {first['model']}?",
                    "answer": f"{grew.capitalize()}: {first['chosen']:.0%}, then {last['chosen']:.0%}.",
                }
            ],
            "facts": [
                f"In {row['model']} the head that looks most at {habit} is {row['strongest_head']} "
                f"({row['strongest']:.0%})."
                for row in rows
            ],
        }

    def tables(self, fig: Figure, runs: Runs, spec: Spec) -> Mapping[str, Table]:
        return {"shares": scores(fig, runs)}
