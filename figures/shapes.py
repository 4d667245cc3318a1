"""Figure (f), shapes: the shape of the numbers at each step through the model, for one text.

Reads the shapes measured by forward hooks while the model read the text (run.shape): token ids, after the
embedding, after each layer, and the scores for the next token.
"""

from __future__ import annotations

import math


from figsite.config import Field
from figsite.data.shared_names import DESCRIPTION
from figures.kind import Kind
from figures.toolkit import charts, fields
from figures.toolkit.charts import alt
from figures.toolkit.colours import MAIN
from figures.toolkit.words import heading, thousands


def steps(fig, run) -> list:
    """(label, shape, how it is written) for each step the figure shows, in the order the numbers flow."""
    text = fig["text"]

    def written(shape):
        return " x ".join(thousands(d) for d in shape) if len(shape) > 1 else f"{thousands(shape[0])} numbers"

    rows = [("token ids", run.shape(text, "token ids")), ("after the embedding lookup", run.shape(text, "embedding"))]
    rows += [(f"after layer {layer}", run.shape(text, f"layer {layer}")) for layer in fig.resolved["layers"]]
    out = [(label, shape, written(shape)) for label, shape in rows]
    # The model scores every position; the guess for the next token is the last position's row.
    scores = run.shape(text, "scores")[-1:]
    out.append(("scores for the next token", scores,
                f"{thousands(scores[0])} numbers (one per token in the vocabulary)"))
    return out


class Shapes(Kind):
    KIND = "shapes"
    PRINTED_IN_BOOK = True  # the book prints it
    TITLE = "The shape of the numbers as they move through the model"
    CAPTION = "What goes into the model, what each layer hands on, and what comes out, measured during the run."
    GUIDE = "Each bar counts the numbers held at one step; the label gives their shape (tokens x width)."
    FIELDS = {
        "text": fields.TEXT_FIELD,
        "layers": Field("int_list", "a list of layers to show, numbered from 1 (all layers when left out)"),
    }

    def check(self, fig, tokens, model: dict) -> dict:
        """The layers shown: the config's, else every layer of the model."""
        fields.check_text(fig, "text", tokens(fig["text"]), model["n_ctx"])
        layers = fig.values.get("layers", list(range(1, model["n_layer"] + 1)))
        if not layers:
            raise fig.error("layers", "the list is empty", f"one or more layers from 1 to {model['n_layer']}")
        for layer in layers:
            fields.check_layer(fig, "layers", layer, model["n_layer"])
        return {"layers": layers}

    def text_figure(self, fig, run) -> str:
        lines = [heading(fig, self.TITLE)]
        lines += [f"  {label:<31}{shape_text}" for label, _, shape_text in steps(fig, run)]
        return "\n".join(lines) + "\n"

    def context(self, fig, run) -> dict:
        n, width = run.n_tokens(fig["text"]), run.d_model
        return {"summary": f"{n} tokens go in; every layer takes {n} rows of {width:,} numbers and gives back "
                           f"{n} rows of {width:,}: the same shape, other values.",
                "reveals": [], "facts": []}

    def chart(self, fig, run) -> alt.TopLevelMixin:
        """How many numbers each step holds (log scale), each bar under its step and shape: the words have the
        whole width of a phone's column (the tooltip gives the shape in full)."""
        rows = [{"step": label, "order": i, "count": math.prod(shape), "shape": shape_text}
                for i, (label, shape, shape_text) in enumerate(steps(fig, run))]
        top = max(row["count"] for row in rows)
        base = alt.Chart(alt.NamedData("steps")).encode(
            y=alt.Y("step:N", sort=[row["step"] for row in rows], title=None, axis=None),
            x=alt.X("count:Q", scale=alt.Scale(type="log", domain=[1, 10 ** len(str(top))]), stack=None,
                    title="how many numbers (log scale)",
                    axis=alt.Axis(values=[10 ** k for k in range(len(str(top)) + 1)], format="~s")),
            tooltip=[alt.Tooltip("step:N"), alt.Tooltip("shape:N"), alt.Tooltip("count:Q", format=",")],
        )
        # Bars start at the axis, not at 0 (log); each in the lower half of its row, its words in the upper.
        bars = base.mark_bar(color=MAIN, height={"band": 0.45}, yOffset=7).encode(x2=alt.value(0))
        labels = base.transform_calculate(label="datum.step + ': ' + split(datum.shape, ' (')[0]").mark_text(
            align="left", baseline="middle", dy=-8, fontSize=12).encode(x=alt.value(0), text="label:N")
        said = "; ".join(f"{label}: {shape_text}" for label, _, shape_text in steps(fig, run))
        return charts.with_data(alt.layer(bars, labels).add_params(alt.param(name=DESCRIPTION, value=said + ".")).properties(
            width="container", height=40 * len(rows)), steps=rows)
