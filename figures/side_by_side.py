"""Several models read one text side by side: the chance each gives the followed token after each of its layers (0:
before any layer), at the text's last token, one line per model, so that a reader sees where they agree.

A side-by-side kind (Kind.SIDE_BY_SIDE): `run` is a figsite.data.side_by_side.Runs, each member a model's run with
the figure resolved against that model (its tokenizer cuts the text its own way). Reads each run's target and its
chance at the read position after every stage (run.target, run.target_p), and its number of layers (run.n_layer).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypedDict, cast

from figsite.config import Field, Figure
from figsite.data.asks import Asks
from figsite.data.live_data import STAGE_COLUMN
from figsite.data.model_choice import is_directory
from figsite.data.records import ModelRecord, TokenRef
from figsite.data.side_by_side import Member, Runs
from figures import recompute_plain
from figures.kind import Context, Kind, Resolved, Table, Tokens
from figures.toolkit import charts, fields, model_names
from figures.toolkit.charts import alt
from figures.toolkit.colours import FOLLOWED, FOLLOWED_NAME
from figures.toolkit.words import after_layer, count, heading, percent, said, shown

MAX_MODELS = 4
# One line per model, all in the followed token's colour (what each line is), told apart by its dashes and points.
DASHES = [[1, 0], [6, 3], [2, 2], [8, 3, 2, 3]]
SHAPES = ["circle", "square", "triangle-up", "diamond"]
MODELS_FIELD = Field(
    "text_list",
    f"2 to {MAX_MODELS} models, each a hub id, a directory saved with save_pretrained "
    "or 'random', optionally with '@' and a hub revision ('EleutherAI/pythia-160m@step3000') "
    "or a random model's seed ('random@7')",
    required=True,
)


def check_models(fig: Figure) -> None:
    """A side-by-side figure names 2 to MAX_MODELS models (each checked for its form by the pipeline)."""
    if not 2 <= len(fig["models"]) <= MAX_MODELS:
        raise fig.error("models", count(len(fig["models"]), "model"), MODELS_FIELD.allowed)


def label(member: Member) -> str:
    """A model as the chart's legend names it, short: 'GPT-2 small', 'tiny' (a folder), 'pythia-160m@step3000' (a
    revision the config names, not the commit it resolved to)."""
    name, revision = member.choice.name, member.choice.revision
    if model_names.seed(member.run.model) is not None:
        return f"random model {model_names.seed(member.run.model)}"  # the page explains no seed
    short = model_names.HUB_NAMES.get(name) or (Path(name).name if is_directory(name) else name.rpartition("/")[2])
    return f"{short}@{revision}" if revision else short


def labels(runs: Runs) -> list[str]:
    """Each model's label (`label`), made unique where two would read the same."""
    out: list[str] = []
    for member in runs.members:
        name, n = label(member), 2
        while name in out:
            name, n = f"{label(member)} ({n})", n + 1
        out.append(name)
    return out


class Line(TypedDict):
    """One point of a model's line: its chance of the followed token after a stage (0: before any layer)."""

    model: str  # its label
    stage: int
    p: float


def lines(fig: Figure, runs: Runs) -> list[Line]:
    """One row per model and stage: the followed token's chance there at the read position."""
    rows: list[Line] = []
    for member, name in zip(runs.members, labels(runs)):
        run, text, q = member.run, fig["text"], member.fig.opening
        rows += [
            {"model": name, "stage": s, "p": charts.kept_chance(run.target_p(text, s, q))} for s in range(run.n_stages)
        ]
    return rows


class SideBySide(Kind[Runs]):
    KIND = "side-by-side"
    READS = ("read-out",)
    SIDE_BY_SIDE = True
    EXPLORE = True
    TITLE = "Several models read one sentence"
    CAPTION = (
        "The same sentence read by several models: the chance each gives one next token after each of its "
        "layers, side by side, so that you can see where they agree."
    )
    GUIDE = (
        "{Hover} a point to read that model's chance after that layer; the chance axis zooms in on small chances. "
        "The models may have different numbers of layers."
    )
    FIELDS = {"text": fields.TEXT_FIELD, "target": fields.TARGET_FIELD, "models": MODELS_FIELD}
    NOTEBOOK = recompute_plain.SIDE_BY_SIDE  # each model's chance of the target at every stage, from its stream

    def asks(self, fig: Figure) -> Asks:
        """Its text, tracking its target; a long text is read out only where a figure reads it (once resolved)."""
        return Asks(
            texts={fig["text"]: fig["target"]}, parts={"readout": [[fig["text"], fig.opening]]} if fig.resolved else {}
        )

    def check(self, fig: Figure, tokens: Tokens, model: ModelRecord) -> Resolved:
        """The read token ("opening"): the text's last, as this model cuts the text."""
        check_models(fig)
        return {"opening": fields.check_read_target(fig, tokens, model)[2]}

    def notebook_params(self, fig: Figure, runs: Runs) -> dict[str, Any]:
        """The notebook's recompute reads, in the figure's order, each model's name on the page, its id of the target
        and its read position (0-based), each as its own tokenizer cuts the text."""
        members = runs.members
        return {
            "MODELS": labels(runs),
            "TARGET_IDS": [cast("TokenRef", member.run.target(fig["text"]))["id"] for member in members],
            "POSITIONS": [member.fig.opening for member in members],
        }

    def key(self, fig: Figure, runs: Runs) -> str:
        return (
            f"Each line is one model: the chance it gives {shown(fig['target'])} ({FOLLOWED_NAME}) after each of "
            "its layers, told apart by their dashes and points."
        )

    def chart(self, fig: Figure, runs: Runs) -> alt.LayerChart:
        names, target = labels(runs), shown(fig["target"])
        n_layer = max(member.run.n_layer for member in runs.members)
        data = alt.Data(values=lines(fig, runs))  # type: ignore[no-untyped-call]  # Altair's Data takes **kwds
        base = charts.said_chance(charts.named_stages(alt.Chart(data))).encode(
            x=alt.X(
                "stage:Q",
                title=["after layer", "(0: before any layer)"],
                scale=alt.Scale(domain=[0, n_layer], nice=False),
                axis=alt.Axis(tickMinStep=1, format="d"),
            ),
            # the whole scale at first, where a chance of 2e-9 is the nothing it is; the switch zooms in
            y=alt.Y(
                "p:Q",
                scale=charts.chance_scale(),
                axis=alt.Axis(format=charts.CHANCE_FORMAT, tickCount=5),
                title=f"chance of {target}",
            ),
            strokeDash=alt.StrokeDash(
                "model:N",
                scale=alt.Scale(domain=names, range=DASHES[: len(names)]),
                legend=alt.Legend(title="model", orient="bottom", direction="vertical"),
            ),
        )
        points = base.mark_point(color=FOLLOWED, filled=True, size=50).encode(
            shape=alt.Shape(
                "model:N",
                scale=alt.Scale(domain=names, range=SHAPES[: len(names)]),
                legend=alt.Legend(title="model", orient="bottom", direction="vertical"),
            ),
            tooltip=[alt.Tooltip("model:N"), charts.stage_tip(), charts.chance_tip(target)],
        )
        return cast(
            "alt.LayerChart",
            alt.layer(base.mark_line(color=FOLLOWED), points)
            .add_params(charts.chance_switch())
            .properties(width="container", height=240, title=f"{target}'s chance in each model"),
        )

    def tables(self, fig: Figure, runs: Runs, spec: charts.Spec) -> dict[str, Table]:
        """Each model's chance of the target after each layer (0: before any layer)."""
        return {
            "chances": [{"model": row["model"], STAGE_COLUMN: row["stage"], "p": row["p"]} for row in lines(fig, runs)]
        }

    def text_figure(self, fig: Figure, runs: Runs) -> str:
        """A column per model, a line per stage: its chance of the target there, in percent to two decimals (blank past
        a model's last layer)."""
        names, rows = labels(runs), lines(fig, runs)
        chance = {(row["model"], row["stage"]): row["p"] for row in rows}
        widths = [max(len(name), 8) for name in names]
        out = [
            heading(fig, self.TITLE),
            f"  the chance of {shown(fig['target'])} at the text's last token",
            "  after layer     " + "  ".join(f"{name:>{width}}" for name, width in zip(names, widths)),
        ]
        for stage in range(max(row["stage"] for row in rows) + 1):
            cells = [f"{chance[name, stage] * 100:.2f} %" if (name, stage) in chance else "" for name in names]
            first = f"{stage} (before)" if stage == 0 else str(stage)
            out.append(f"  {first:<14}  " + "  ".join(f"{cell:>{width}}" for cell, width in zip(cells, widths)))
        return "\n".join(line.rstrip() for line in out) + "\n"

    def context(self, fig: Figure, runs: Runs) -> Context:
        names, target = labels(runs), said(fig["target"])
        last = [
            (name, m.run.target_p(fig["text"], m.run.n_layer, m.fig.opening), m.run.n_layer)
            for name, m in zip(names, runs.members)
        ]
        ends = ", ".join(f"{name} {percent(p)} after its {n} layers" for name, p, n in last)
        surest = max(last, key=lambda item: item[1])
        facts = [
            f"{name} cuts the text into {len(m.run.token_texts(fig['text']))} tokens"
            f"{' (its start token among them)' if m.run.token_texts(fig['text']).start else ''}."
            for name, m in zip(names, runs.members)
        ]
        return {
            "summary": f"The chance of {target} as the next token at the end of the text: {ends}.",
            "reveals": [
                {
                    "question": f"Guess first: which model is surest of {target} at the end?",
                    "answer": f"{surest[0]}, with {percent(surest[1])} {after_layer(surest[2])}.",
                }
            ],
            "facts": facts,
        }
