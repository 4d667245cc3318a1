"""Each figure's page, gathered from its run with its kind's pure functions, and its drawings and compiled charts
asked of the drawing processes at once (sitegen.site.drawing); the pipeline calls these as the runs come in."""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

# The parts' registry imports no torch until a part is asked of (registered()): a cached rebuild reads versions() only.
from figsite.capture.parts import registered
from figsite.config import Figure
from figsite.data import cache, paths
from figsite.data.versions import version
from figsite.data.run import Run
from figsite.errors import BuildError
from figsite.print_config import PrintInfo
from sitegen.site import printing, schemes
from sitegen.site.drawing import NARROW_WIDTH, WIDE_WIDTH, Drawer, DrawingError, fits_column
from sitegen.site.built import BuiltFigure, Made
from sitegen.site.render import CHART_THEMES, Page, PerObject
from sitegen.content import gather_page, tool_versions
from figures import KINDS


class Pages:
    """Each figure's page, built as soon as the run holds its data, and its drawings asked for at once.

    A fresh run calls gather_ready after each text the model reads, so that the drawing processes draw the
    first figures while the model reads on; a run from the cache is complete at once.
    """

    def __init__(self, drawer: Drawer, cache_dir: Path | None, print_info: PrintInfo | None = None):
        self.drawer, self.cache_dir, self.print_info = drawer, cache_dir, print_info
        self.built: dict[str, BuiltFigure] = {}  # label -> the figure, its page and what is made of its chart
        self.live_charts: dict[str, Made] = {}  # the live page's charts (sitegen.live), compiled as a figure's are
        # a spec's digest for its cache keys, worked out once (a spec can be several MB: a rebuild from the cache spent
        # a third of its time writing specs as JSON for their keys)
        self.digest = PerObject(spec_digest)

    def gather_ready(self, run: Run, figures: list[Figure], run_key: str | None, complete: bool = False) -> None:
        """Builds the page of each figure the run holds (all of them where it is `complete`: then the parts' registry,
        which a run the model is still filling asks, is not imported, nor torch with it)."""
        # The explore kinds' drawings take longest: asked for first, they are drawn while the main thread
        # builds the other charts, and the build does not end waiting for them.
        for fig in sorted(figures, key=lambda fig: not KINDS[fig.kind].EXPLORE):
            if fig.label in self.built or not (complete or run.holds(KINDS[fig.kind].asks(fig), registered())):
                continue
            self.add(fig, gather_page(fig, run, self.cache_dir, run_key))

    def add(self, fig: Figure, page: Page) -> None:
        """Takes a gathered page, and asks for its compiled charts and drawings (kept in the cache by their spec)."""
        self.built[fig.label] = BuiltFigure(
            figure=fig,
            page=page,
            chart=self.compiled(page.spec, f"figure ({page.label})'s chart"),
            narrow=(
                None
                if page.narrow_spec is None
                else self.compiled(page.narrow_spec, f"figure ({page.label})'s narrow chart")
            ),
            # the drawing print and link previews show, and a light page's chart box until the chart is live: drawn
            # as the live chart draws in a desktop's column
            drawing=kept_or_asked(
                self.cache_dir,
                [
                    "drawing",
                    version("drawing"),
                    *tool_versions(),
                    self.digest(page.spec),
                    CHART_THEMES["light"],
                    WIDE_WIDTH,
                ],
                ["svg", "png"],
                functools.partial(self.drawer.drawings, page.spec, CHART_THEMES["light"], width=WIDE_WIDTH, fit=True),
                f"figure ({page.label})'s drawing",
            ),
            first_drawings={variant: self.first_drawing(page, variant) for variant in first_variants(page)},
            printed=None if self.print_info is None else self.printed_drawing(fig, page),
        )

    def printed_drawing(self, fig: Figure, page: Page):
        """The figure drawn for the book ([print]; sitegen.site.printing): its printed state (Kind.printed_spec) at
        the column's width in the config's font, with its number and title where `captions` asks. Kept in the cache
        by the spec and every setting of [print], the font by its bytes."""
        info = self.print_info
        spec = KINDS[fig.kind].printed_spec(fig, page.spec)
        if info.greyscale:
            spec = printing.in_greys(spec)
        caption = page.full_name if info.captions else None
        settings = {
            "font": str(info.font),
            "family": info.font_family,
            "width_pt": info.width_pt,
            "font_size_pt": info.font_size_pt,
            "caption": caption,
            "greyscale": info.greyscale,
        }
        theme = CHART_THEMES["light"]
        ask = functools.partial(self.drawer.printed, spec, theme, settings)
        return kept_or_asked(
            self.cache_dir,
            ["print", version("print"), *tool_versions(), self.digest(spec), theme, info.key(), caption],
            ["svg", "pdf"],
            ask,
            f"figure ({page.label})'s print drawing",
        )

    def first_drawing(self, page: Page, variant: str):
        """The drawing a page shows until its live chart replaces it (a variant of paths.FIRST_DRAWINGS): drawn as the
        live chart draws in a desktop's column or a phone's (the narrow chart, where the figure has one), on the page's
        own background (a desktop's light drawing is `drawings`'). Kept in the cache as that one is."""
        dark, narrow = variant.endswith("dark"), "narrow" in variant
        theme = CHART_THEMES["dark" if dark else "light"]
        spec, width = (page.narrow_spec or page.spec, NARROW_WIDTH) if narrow else (page.spec, WIDE_WIDTH)
        ask = functools.partial(
            self.drawer.drawings, spec, theme, width=width, png=False, background="transparent", fit=True, dark=dark
        )  # a dark page's own colours too (sitegen.site.schemes)
        return kept_or_asked(
            self.cache_dir,
            [
                "first drawing",
                version("first drawing"),
                *tool_versions(),
                self.digest(spec),
                theme,
                width,
                schemes.CACHE_KEY,
            ],
            ["svg"],
            ask,
            f"figure ({page.label})'s {variant} drawing",
        )

    def compiled(self, spec: dict, what: str):
        """A chart's spec compiled to Vega, with its dark theme's changes: kept in the cache by the spec's content,
        so that a narrow chart and a main chart are compiled and kept alike (kept_or_asked)."""
        return kept_or_asked(
            self.cache_dir,
            ["chart", version("chart"), *tool_versions(), self.digest(spec), CHART_THEMES, schemes.CACHE_KEY],
            ["vega", "dark"],
            functools.partial(self.drawer.compiled, spec, CHART_THEMES),
            what,
        )

    def in_order(self, figures: list[Figure]) -> list[BuiltFigure]:
        """The figures in the config's order."""
        return [self.built[fig.label] for fig in figures]


def first_variants(page: Page) -> list[str]:
    """The first drawings a figure's page shows besides its light drawing (paths.FIRST_DRAWINGS): for a desktop's
    column in dark, and for a phone's, light and dark, where the figure draws otherwise there (its narrow chart, or its
    chart at the column's width)."""
    narrow = page.narrow_spec is not None or fits_column(page.spec)
    return [variant for variant in paths.FIRST_DRAWINGS if narrow or "narrow" not in variant]


def spec_digest(spec: dict) -> str:
    """The SHA-256 of a chart's spec as JSON, keys sorted: what names it in the cache."""
    return hashlib.sha256(json.dumps(spec, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def kept_or_asked(cache_dir: Path | None, parts: list, names: list, ask, what: str):
    """The bytes kept in the cache for `parts`, else asked of the drawing process now (`ask` returns a Future)
    and kept once they come. Returns a function that returns them as a list (one per name)."""
    kept = cache.recall_each(cache_dir, parts, names)
    if all(raw is not None for raw in kept):
        return lambda: kept
    future = ask()

    @functools.cache
    def result() -> list:
        try:
            made = future.result()
        except DrawingError as exc:
            raise BuildError(f"{what} could not be made with vl-convert: {exc}") from None
        for name, raw in zip(names, made):
            cache.keep(cache_dir, [*parts, name], raw)
        return made

    return result
