"""The model in numbers: heads, layers, width, and where the weights sit, counted from the loaded model.

Reads the run record: the model's size (run.n_layer, run.n_head, run.d_model) and its weights counted by part
(run.weights, run.feed_forward_shapes, run.head_width). Another model gives its own numbers.
"""

from __future__ import annotations

from typing import TypedDict, cast

from figsite.config import Figure
from figsite.data.records import WeightPart
from figsite.data.run import Run
from figsite.data.shared_names import DESCRIPTION
from figures import recompute_plain
from figures.kind import Context, Kind
from figures.toolkit import charts
from figures.toolkit.charts import alt
from figures.toolkit.colours import DATA
from figures.toolkit.words import heading, thousands

PARTS: list[WeightPart] = ["feed-forward", "attention", "embedding", "layer norm"]


class PartRow(TypedDict):
    """One bar of the chart: a part of the model and its weights."""

    part: WeightPart
    order: int
    share: float  # of all the model's weights
    count: int


def share(run: Run, part: WeightPart) -> float:
    """The share of all the model's weights that sit in one part."""
    return run.weights(part) / run.weights()


def _gate(run: Run, d_in: int, d_ff: int) -> list[str]:
    """A gated feed-forward step's second matrix (a Llama's: the run's model record says "gated"), as the printed
    figure lists it after the bend; none for GPT-2's."""
    if not run.model.get("gated"):
        return []
    return ["  " + _matrix("W3", d_in, d_ff) + "a second answer per neuron: the two are multiplied (the gate)"]


def _matrix(name: str, rows: int, cols: int) -> str:
    """'W1           768 x 3,072' padded so that the notes after it line up, as in the book."""
    return f"{name:<11}{thousands(rows):>5} x {thousands(cols)}".ljust(35)


class Numbers(Kind[Run]):
    READS = ("embedding", "attention", "feed-forward", "read-out")  # where the weights sit
    KIND = "numbers"
    TITLE = "The model in numbers"
    CAPTION = "How many heads and layers the model has, how wide it is, and where its weights sit, counted from the model itself."
    GUIDE = "The bars show the share of all weights in each part of the model; {hover} a bar for the exact count."
    KEY = "Each bar is one part of the model, as long as its share of all the model's weights."
    FIELDS = {}
    NOTEBOOK = recompute_plain.NUMBERS  # the weights of each part, counted from the model's parameters

    def text_figure(self, fig: Figure, run: Run) -> str:
        layers, heads, width = run.n_layer, run.n_head, run.d_model
        (d_in, d_ff), (d_ff2, d_out) = run.feed_forward_shapes
        lines = [
            heading(fig, self.TITLE),
            f"  {'heads in one layer':<23}{heads}",
            f"  {'layers':<23}{layers}",
            f"  {'heads in the model':<23}{layers} x {heads}  =  {thousands(layers * heads)}",
            "",
            f"  {'width of the model':<23}{thousands(width)}",
            f"  {'numbers for one head':<23}{thousands(width)} / {heads}  =  {run.head_width}",
            "",
            f"  {'in':<11}{thousands(d_in):>5} numbers of one token",
            "  " + _matrix("W1", d_in, d_ff) + f"widen: {thousands(d_ff)} neurons each ask one question",
            f"  {'bend':<13}negative answers are pushed towards 0",
            *_gate(run, d_in, d_ff),
            "  " + _matrix("W2", d_ff2, d_out) + f"narrow again: back to {thousands(d_out)} numbers",
            f"  {'out':<11}{thousands(d_out):>5} numbers, added to what the token had before",
            "",
        ]
        for part in PARTS:
            count = run.weights(part)
            lines.append(f"  {'weights in ' + part:<26}{thousands(count):>13}   {share(run, part) * 100:5.1f}%")
        lines.append(f"  {'all weights':<26}{thousands(run.weights()):>13}   100.0%")
        return "\n".join(lines) + "\n"

    def context(self, fig: Figure, run: Run) -> Context:
        ff, attn = share(run, "feed-forward") * 100, share(run, "attention") * 100
        return {
            "summary": f"Of {thousands(run.weights())} weights, {ff:.1f}% sit in the feed-forward steps "
            f"and {attn:.1f}% in attention; the layer norms hold "
            f"{thousands(run.weights('layer norm'))}.",
            "reveals": [],
            "facts": [],
        }

    def chart(self, fig: Figure, run: Run) -> alt.LayerChart:
        """The share of all weights in each part of the model."""
        rows: list[PartRow] = [
            {"part": part, "order": i, "share": round(share(run, part), 5), "count": run.weights(part)}
            for i, part in enumerate(PARTS)
        ]
        base = alt.Chart(alt.NamedData("parts")).encode(
            y=alt.Y("part:N", sort=[row["part"] for row in rows], title=None, axis=alt.Axis(labelFontSize=12)),
            x=alt.X("share:Q", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format="%"), title="share of all weights"),
            tooltip=[
                alt.Tooltip("part:N"),
                alt.Tooltip("count:Q", format=",", title="weights"),
                alt.Tooltip("share:Q", format=".1%"),
            ],
        )
        bars = base.mark_bar(color=DATA)
        labels = base.mark_text(align="left", dx=4, fontSize=12).encode(text=alt.Text("share:Q", format=".1%"))
        said = "; ".join(f"{row['part']}: {row['share'] * 100:.1f}% of the weights" for row in rows)
        layered = (
            alt.layer(bars, labels)
            .add_params(alt.param(name=DESCRIPTION, value=said + "."))
            .properties(width="container", height=150)
        )
        return charts.with_data(cast("alt.LayerChart", layered), parts=rows)
