"""Where each square of the heads figure's grid lies (figures.heads_chart, figures.heads_wide): the grid's record,
`Grid`, with the Vega expressions the chart's parts share. A record of its own: the chart's parts read it, and
figures.roles draws a square as the heads figure does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, cast

from figsite.data.shared_names import NAMES
from figures.toolkit import textless
from figures.toolkit.charts import alt

if TYPE_CHECKING:
    from altair.utils.schemapi import UndefinedType

AVERAGE = "avg"  # the head select's value for the layer's average (in a permalink: head=avg)
GRID_PIXELS = 560  # the grid's picture is drawn about this wide, a whole number of pixels per cell
LEVELS = 254  # shares in the picture: 254 steps of colour (palette index 2 + level); 0 is a gap, 1 out of reach


@dataclass(frozen=True)
class Grid:
    """Where each square lies in the grid, in cells, and the Vega expressions the chart's parts share."""

    n_layer: int
    n_head: int
    n: int  # tokens in the text
    size: int  # tokens per block (1: a row per token)
    blocks: int  # rows per square
    names: list[str]  # each row's name
    cell: int = 0  # px per row and column of the larger pattern; 0: as the column's width allows
    narrow: bool = False  # the chart for a phone's column: the grid at its size, the bars lying sideways
    data: str = "panels"  # the dataset of the squares (panel_rows): another figure may show its own squares
    names_param: str = NAMES  # the param holding `names`, for the axes' labels
    label_every: int = 1  # every row and column labelled, or only every this many (a long pattern's)
    textless: bool = False  # no text in the chart (the live page's, figures.toolkit.textless): n, names unknown
    start: int = 0  # 1 where the model's start token leads the text: readers number their tokens after it

    @property
    def width(self) -> alt.Step | Literal["container"]:
        """The width of the larger pattern's and the upright bars' views: the column's, or one `cell` per row."""
        return alt.Step(self.cell) if self.cell else "container"

    @property
    def gap(self) -> int:  # between squares; twice that before the averages
        return max(1, round(self.blocks / 4))

    @property
    def step(self) -> int:
        return self.blocks + self.gap

    @property
    def units(self) -> tuple[int, int]:
        return (self.n_head + 1) * self.step, self.n_layer * self.step - self.gap

    @property
    def pixels(self) -> int:  # each cell a whole number of pixels: crisp squares
        return max(1, round(GRID_PIXELS / self.units[0]))

    @property
    def x0(self) -> str:
        return f"(datum.h * {self.step} + (datum.h == {self.n_head} ? {self.gap} : 0))"

    @property
    def y0(self) -> str:
        return f"(datum.l * {self.step})"

    @property
    def chosen_h(self) -> str:  # the chosen head, 0-based; n_head is the layer's average
        return f"(head == '{AVERAGE}' ? {self.n_head} : head - 1)"

    @property
    def row_q(self) -> str:  # the chosen token's row in a square
        return "at" if self.textless else f"floor((token - 1) / {self.size})"

    @property
    def from_words(self) -> str:
        if self.textless:
            return "names[at] + ' (token ' + (at + 1) + ')'"
        number = f"(token - {self.start})" if self.start else "token"  # readers number the tokens after a start token
        return f"names[{self.row_q}] + ' (token ' + {number} + ')'" if self.size == 1 else f"names[{self.row_q}]"

    @property
    def label(self) -> str:
        """The axes' label of a row or column: its name, or every `label_every`th one's (with no text: `every`th)."""
        name = f"{self.names_param}[datum.value]"
        if self.textless:
            return textless.every_label(self.names_param)
        return name if self.label_every == 1 else f"datum.value % {self.label_every} == 0 ? {name} : ''"

    @property
    def label_style(self) -> alt.ExprRef | UndefinedType:
        """The axes' labels' style: with no text, the model's own tokens slanted (textless.own_style)."""
        return textless.own_style() if self.textless else alt.Undefined

    @property
    def band(self) -> list[int] | UndefinedType:  # the rows of a square; with no text, the data's
        return alt.Undefined if self.textless else list(range(self.blocks))

    @property
    def count(self) -> int | str:  # rows per square, as a number or (no text) a Vega expression
        return textless.N if self.textless else self.blocks

    def keys(self) -> alt.Chart:
        """One datum per row of a square: k, from 0."""
        return (
            textless.every_token()
            if self.textless
            else alt.Chart(
                alt.Data(  # type: ignore[no-untyped-call]  # untyped alt.Data
                    values=[{"k": k} for k in cast("list[int]", self.band)]
                )
            )
        )  # with a text, the band is a list
