"""One figure as the pipeline hands it to the writers: a record per figure, whatever the writer needs of it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from figsite.config import Figure
from sitegen.site.render import Page

# What the drawing processes make, asked for at once and waited for only when a writer reads it: a function that
# returns the files' bytes (sitegen.pages.kept_or_asked).
Made = Callable[[], list[bytes]]


@dataclass(frozen=True, kw_only=True)
class BuiltFigure:
    """A figure of the config: its resolved config, its page (render.Page: every table, the spec, the words), and
    what its chart becomes: compiled to Vega with the dark theme's changes (`chart`, and `narrow` where a phone's
    column has a chart of its own), drawn for link previews and print (`drawing`: SVG and PNG), drawn for its page's
    first screen (`first_drawings`: variant of paths.FIRST_DRAWINGS -> SVG), and drawn for the book (`printed`: SVG
    and PDF, with a [print] table only)."""

    figure: Figure
    page: Page
    chart: Made  # [Vega, dark]
    drawing: Made  # [SVG, PNG]
    narrow: Made | None = None  # [Vega, dark] of the narrow chart
    first_drawings: dict[str, Made] = field(default_factory=dict)
    printed: Made | None = None  # [SVG, PDF]

    @property
    def label(self) -> str:
        return self.page.label
