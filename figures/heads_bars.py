"""The heads figure's bars (figures.heads): the chosen token's shares in the chosen square, as in figure (l), upright
with one column per token, or in a phone's chart lying sideways with every token's label. They read the page's
"panels" (figures.heads_data.panel_rows; with no text, the live page's) through the chosen square (chosen_square).
"""

from __future__ import annotations

from typing import cast

from figsite.data.run import MIN_SHARE
from figures.heads_chart import LOOKED_AT, key_x
from figures.heads_grid import AVERAGE, Grid
from figures.toolkit import charts
from figures.toolkit.charts import alt
from figures.toolkit.colours import ACCENT, MAIN, ON_DARK, ON_LIGHT, OUT_OF_REACH

BARS_HEIGHT = 200
NARROW_BARS = 220  # px: the sideways bars' view in a phone's chart whose pattern keeps its cells (Grid.cell)
ROW = 24  # px per token of the sideways bars in a phone's chart: its label fits the row


def bars_chart(grid: Grid, one: alt.Chart) -> alt.LayerChart:
    """The chosen token's shares in the chosen square, as in figure (l): upright, one column per token; or, in a
    phone's chart, lying sideways, one row per token with every token's label."""
    row_q, sideways = grid.row_q, grid.narrow
    picked = one.transform_filter(f"datum.q == {row_q}")
    across = alt.X if sideways else alt.Y
    key, value = ("y", "x") if sideways else ("x", "y")
    keys = _key_y(grid) if sideways else key_x(grid)
    share = across(
        "s:Q",
        scale=alt.Scale(domain=[0, 1]),
        title="share of attention",
        axis=alt.Axis(format="%", tickCount=4 if sideways else 5),
    )
    out_of_reach = (
        grid.keys()
        .transform_filter(f"datum.k > {row_q}")
        .mark_rect(color=OUT_OF_REACH, aria=False)
        .encode(**{key: keys, value: alt.value(0), value + "2": alt.value("width" if sideways else "height")})
    )
    # Each bar in words for a screen reader: "_animal: 61% of the attention".
    bars = picked.transform_calculate(said="datum.looked_at + ': ' + format(datum.s, '.0%') + ' of the attention'")
    tips = [alt.Tooltip("looked_at:N", title="looked at"), alt.Tooltip("s:Q", title="share", format=".1%")]
    bars = bars.mark_bar().encode(
        **{key: keys, value: share},
        description="said:N",
        color=alt.condition(f"datum.k == {row_q}", alt.value(ACCENT), alt.value(MAIN)),
        tooltip=tips,
    )
    bar_labels = picked.transform_filter(f"datum.s >= {MIN_SHARE}").encode(
        **{key: keys, value: across("s:Q", scale=alt.Scale(domain=[0, 1]))},
        text=alt.Text("s:Q", format=".0%"),
        tooltip=tips,
    )  # a bar's share written by it shows the bar's tooltip
    inside = alt.condition(f"datum.k == {row_q}", alt.value(ON_LIGHT), alt.value(ON_DARK))
    bar_labels = (
        charts.at_bar_ends(
            bar_labels, "s", NARROW_BARS if grid.cell else "width", inside=inside, fontSize=11, aria=False
        )
        if sideways
        else [bar_labels.mark_text(fontSize=11, aria=False, **charts.over_bars(grid.count))]
    )
    size = _size(grid)
    return cast(
        "alt.LayerChart",
        alt.layer(out_of_reach, bars, *bar_labels).properties(
            **size,
            title=alt.Title(
                charts.wrapped(
                    f"'Looking from ' + {grid.from_words} + ' in layer ' + layer + "
                    f"(head == '{AVERAGE}' ? ', average' : ', head ' + head)"
                )
            ),
        ),
    )


def _size(grid: Grid) -> dict[str, object]:
    """The bars' view: upright, the grid's width and BARS_HEIGHT; sideways (a phone's), a row of ROW px a token, as
    wide as NARROW_BARS where the pattern keeps its cells, else the column."""
    if not grid.narrow:
        return {"width": grid.width, "height": BARS_HEIGHT}
    return {
        "width": NARROW_BARS if grid.cell else "container",
        "height": alt.Step(ROW) if grid.textless else ROW * grid.blocks,
    }


def _key_y(grid: Grid) -> alt.Y:
    """The keys down y, one row each, every one labelled in full (a phone's sideways bars)."""
    return alt.Y(
        "k:O",
        scale=alt.Scale(domain=grid.band),
        title=LOOKED_AT,
        axis=alt.Axis(
            labelExpr=grid.label, labelFontSize=11, labelOverlap=False, labelLimit=0, labelFontStyle=grid.label_style
        ),
    )
