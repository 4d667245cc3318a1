"""Building a chart: Altair (imported when first used), the chart's data and params put in once at its top, its
spec as plain data, and the column's width that every chart takes, with words that wrap to it."""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal, TypedDict, TypeVar, Union, cast

from figsite.data.shared_names import BACKDROP, CLICKS_META, PICK
from figures.toolkit.colours import DIVERGING, HELPS, HELPS_OR_HURTS, HURTS, ON_DARK, SEQUENTIAL
from figures.toolkit.words import STAGE_AXIS, after_layer_expr, has_non_xml, percent_expr, xml_safe


class LazyModule:
    """A module imported when one of its names is first used, and `prepared(module)` called once then.

    Altair takes a third of a second to import, and a rebuild from the cache builds no chart: the figures
    use `alt` from here, so that only a build that draws pays for it.
    """

    def __init__(self, name: str, prepared: Callable[[ModuleType], None] | None = lambda module: None) -> None:
        self._name, self._prepared = name, prepared

    def __getattr__(self, attribute: str) -> Any:  # whatever the module holds under that name
        module = importlib.import_module(self._name)
        if self._prepared is not None:
            self._prepared(module)
            self._prepared = None
        return getattr(module, attribute)


def _unchecked(altair: ModuleType) -> None:
    """Altair's debug mode off: it checks each object against Vega-Lite's schema as it is made, a tenth of the
    time the chapter's charts take. The specs are checked whole instead (tests/builds/test_site.py validates
    each one); what a chart's spec holds is the same either way."""
    altair.utils.schemapi.disable_debug_mode()


# For the checker, `alt` is Altair itself, so that `alt.Chart` and the rest resolve (exported as at run time).
# Altair's methods return Self, which it imports from typing on Python 3.11 and later only: checked as 3.10, the
# oldest Python the site runs on, a chart built by a chain of them (`chart.mark_bar().encode(...)`) is Any. Each of
# them returns the chart's own class, so a figure casts such a chain back to it: `cast("alt.Chart", ...)`.
if TYPE_CHECKING:
    import altair

    alt = altair
else:
    alt = LazyModule("altair", _unchecked)

# Any chart a figure builds, as a whole or as a part (a view, a layer, a stack...): each an object of Altair's schema,
# whose properties (datasets, params, usermeta...) are read and set as attributes
AnyChart = Union[
    "alt.Chart",
    "alt.LayerChart",
    "alt.VConcatChart",
    "alt.HConcatChart",
    "alt.ConcatChart",
    "alt.FacetChart",
    "alt.RepeatChart",
]
ChartT = TypeVar("ChartT", bound=AnyChart)
Spec = dict[str, Any]  # a chart's Vega-Lite spec as plain data (spec): an open shape, Vega-Lite's
Rows = Sequence[Mapping[str, object]]  # a dataset's rows, each a field's name -> its value


# ---------------------------------------------------------------------------------------------- data and params


def with_data(chart: ChartT, **datasets: Rows) -> ChartT:
    """Puts the chart's data in at the top, by name (charts read them with alt.NamedData).

    Set directly rather than with .properties(), which checks every row against the schema, and after the
    chart is built, since Altair copies inline data at every step of building one.
    """
    chart.datasets = datasets
    return chart


def with_params(chart: ChartT, *params: alt.Parameter) -> ChartT:
    """The chart with variable params (a value, an expression, an input) at its top level: where add_params
    puts them on a concatenated chart too, but without copying every subchart twice on the way, which for
    the larger figures takes longer than all the rest of building them."""
    chart.params = [param.param for param in params]
    return chart


def clickable(chart: ChartT, **picks: str) -> ChartT:
    """A chart whose marks a click chooses from: each param in `picks` gets, from a clicked mark, the value of a
    Vega expression of its datum (`token="datum.k + 1"`), carried as the datum's field PICK + param. Only marks
    that carry the field choose; the chart's top level lists what they set (with_clicks). Give those marks
    `cursor="pointer"`; the param's own input stays its keyboard equivalent."""
    return cast(ChartT, chart.transform_calculate(**{PICK + param: expr for param, expr in picks.items()}))


# A clickable mark however small it is drawn (a bar of a tiny change, a square of a phone's grid) is hit over at
# least TAP x TAP px on a touch screen (WCAG 2.2, 2.5.8): grids that readers tap keep squares of TAP px on a phone,
# and a mark that may be drawn smaller lies over a transparent hit mark as large as its band (hit_band).
TAP = 24  # px
BAND_PADDING = 0.1  # Vega-Lite's padding between bars, as a share of a band's step: a hit band covers it too


def hit_band(chart: alt.Chart, band: str = "x") -> alt.Chart:
    """A transparent bar filling each band of `chart`'s band axis (`band`: "x" or "y", encoded on `chart`) across
    the whole view: layered under the chart's own marks, it catches the pointer where they are drawn thin (a bar of
    a change near zero), with their tooltip and click (`chart`: their clickable base, its tooltip encoded)."""
    # width or height, whichever the band axis is: the checker cannot tell which key, so the property is Any
    size: dict[str, Any] = {"width" if band == "x" else "height": alt.RelativeBandSize(1 / (1 - BAND_PADDING))}
    return cast("alt.Chart", chart.mark_bar(color="transparent", cursor="pointer", aria=False, **size))


def hit_points(chart: alt.Chart) -> alt.Chart:
    """Transparent points a tap wide over each of `chart`'s points (its tooltip encoded): laid over a curve, they
    catch the pointer near a small point, so that its tooltip shows where the reader points."""
    return cast(
        "alt.Chart", chart.mark_point(size=TAP * TAP, filled=True, aria=False).encode(color=alt.value("transparent"))
    )


SHARE_ROOM = "30"  # px after a bar for its share in words ("100%", 11 px), and the gap before it


def at_bar_ends(
    words: alt.Chart,
    length: str,
    width: int | str = "width",
    room: str = SHARE_ROOM,
    inside: str | Mapping[str, object] = ON_DARK,
    **mark: Any,
) -> list[alt.Chart]:
    """Words at the ends of bars lying sideways, as two layers: `words` (their chart, encoded but for its mark) by
    bars from 0 to the field `length`, 0 to 1 of the view's `width` (px, or an expression of them). Each stands after
    its bar where `room` px (an expression of the datum) are left before the view's right edge, else just inside the
    bar's end, in `inside` (a colour, or a condition of the datum): no word is cut by the drawing's edge, whatever
    its bar's length. (A zoomed chance axis, chance_scale, leaves its longest bar room for its words: they go after.)"""
    after = f"datum.{length} * {width} + {room} <= {width}"
    inside = alt.value(inside) if isinstance(inside, str) else inside
    return [
        words.transform_filter(after).mark_text(align="left", dx=4, baseline="middle", **mark),
        words.transform_filter(f"!({after})")
        .mark_text(align="right", dx=-4, baseline="middle", **mark)
        .encode(color=inside),
    ]


def backdrop(left: int, top: int) -> alt.Chart:
    """A transparent rect behind a grid's axis on its left, `left` px wide, from `top` px above the view (its axis
    on top) to its foot, drawn over the grid's marks and under that axis (give the top axis zindex 0). Where the
    grid is wider than a phone's column and scrolls in its own box, the page keeps that axis, with the views beside
    the grid, in view over the grid (scroll.js) and fills this rect with its own colour (site.css), so that the
    cells slide under the axis; elsewhere, and in a drawing, nothing shows."""
    return cast(
        "alt.Chart",
        alt.Chart(
            alt.Data(  # type: ignore[no-untyped-call]  # untyped alt.Data
                values=[{}]
            )
        )
        .mark_rect(fill="transparent", aria=False)
        .encode(x=alt.value(-left), x2=alt.value(0), y=alt.value(-top), y2=alt.value("height"))
        .properties(name=BACKDROP),
    )


def with_clicks(chart: ChartT, *params: str) -> ChartT:
    """The chart, saying in its usermeta (CLICKS_META) which params a click on its clickable marks sets: the
    page's script (figures.js) sets the param to the clicked datum's PICK + param, where the param's input
    allows that value, and the address follows as for any choice."""
    meta = {} if chart.usermeta is alt.Undefined else dict(chart.usermeta)
    meta[CLICKS_META] = [{"field": PICK + param, "param": param} for param in params]
    chart.usermeta = meta
    return chart


def spec(chart: AnyChart) -> Spec:
    """The chart's Vega-Lite spec as plain data, as pages embed it (tests/builds/test_site.py validates each one).

    The datasets go in after the conversion: they are plain data already, and Altair would walk every row and
    value of them, which for the larger figures takes longer than converting all the rest of the chart. They are
    taken off the chart itself for the conversion and put back after, not off a copy: a copy of a layered or
    concatenated chart is made anew, and Altair deep-copies every one of its subcharts to make it (a third of
    the conversion's time).
    """
    datasets = chart.datasets
    chart.datasets = alt.Undefined
    try:
        out = chart.to_dict(validate=False)
    finally:
        chart.datasets = datasets
    if datasets is not alt.Undefined:
        out["datasets"] = datasets
    # A character that XML cannot hold (a control character in a text) would make vl-convert refuse the drawing.
    return xml_safe(out) if has_non_xml(out) else out


def stage_slider(n_layer: int, value: int) -> alt.Parameter:
    """The slider over the stages: 0 is before any layer (the embedding alone), n_layer after the last layer."""
    return alt.param(
        name="stage",
        value=value,
        bind=alt.binding_range(min=0, max=n_layer, step=1, name=f"{STAGE_AXIS[0].upper()}{STAGE_AXIS[1:]} "),
    )


def named_stages(chart: ChartT) -> ChartT:
    """The chart with each row's stage (its field "stage") named as the chapter names it, 'before any layer' or
    'after layer 3', in the field "layer" that stage_tip shows: a tooltip of the number would say 'after layer 0'."""
    return cast(ChartT, chart.transform_calculate(layer=after_layer_expr("datum.stage")))


def stage_tip() -> alt.Tooltip:
    """A tooltip's stage, in words: 'layer: before any layer', 'layer: after layer 3' (a chart with named_stages)."""
    return alt.Tooltip("layer:N", title="layer")


# A chart of chances opens on the whole scale, 0 to 100%, so that a chance of 2e-9 is drawn as the nothing it is;
# the switch zooms in, the axis then ending at the largest chance drawn.
CHANCE_SWITCH = "chance_scale"
CHANCE_FORMAT = ".2~p"  # percent to 2 significant digits: '20%' on the whole scale, '0.0000002%' zoomed in


def said_chance(chart: ChartT, field: str = "p") -> ChartT:
    """The chart with the field `field` + "_said": the chance in `field` as the page's sentences write it
    (words.percent: '28.81%', '0.0195%'), for its tooltips (chance_tip) and labels."""
    return cast(ChartT, chart.transform_calculate(**{f"{field}_said": percent_expr(f"datum.{field}")}))


def chance_tip(title: str = "chance", field: str = "p") -> alt.Tooltip:
    """A chance in a tooltip, in the digits of the page's sentences (a chart with said_chance)."""
    return alt.Tooltip(f"{field}_said:N", title=title)


def chance_switch(value: str = "whole") -> alt.Parameter:
    """The switch between a chance axis from 0 to 100% ("whole", where it opens) and one zoomed in to the chances
    drawn ("zoom"); its words the same on every chart that has one."""
    return alt.param(
        name=CHANCE_SWITCH,
        value=value,
        bind=alt.binding_radio(options=["whole", "zoom"], labels=["0 to 100%", "zoomed in"], name="Chance axis "),
    )


TOP_ENDS = "top_ends"  # the lens's param: the largest chance of each cell's top 10


class TopCell(TypedDict):
    """One of a cell's top 10 as top_ends reads it (the lens's rows hold more): its stage, position and chance."""

    stage: int
    q: int
    p: float


def top_ends(tops: Sequence[TopCell], n: int) -> alt.Parameter:
    """The lens's param TOP_ENDS: the largest chance of each cell's top 10 (`tops`: rows of "stage", "q", "p"), cell
    by cell (stage by stage, `n` positions each, as the lens's top-10 chart reads it)."""
    ends = [0.0] * (max(row["stage"] for row in tops) + 1) * n
    for row in tops:
        at = row["stage"] * n + row["q"]
        ends[at] = max(ends[at], row["p"])
    return alt.param(name=TOP_ENDS, value=ends)


def kept_chance(p: float) -> float:
    """A chance as a chart with the switch keeps it: to 5 decimals, and a smaller one to 3 significant digits, which
    the zoomed-in axis draws (rounded to 5 decimals, 2e-9 would be 0)."""
    return round(p, 5) if p >= 1e-3 else float(f"{p:.3g}")


def chance_scale(largest: str | None = None, room: int = 0, width: int | str = "width") -> alt.Scale:
    """The chance axis's scale, which follows chance_switch: 0 to 1, or 0 to the largest chance drawn.

    Bars with words past their ends (a chance, a token) give `largest`, a Vega expression of the largest chance the
    view draws in its state (its data's extent counts what is filtered out too): zoomed in, the axis then ends
    where that bar leaves `room` px for its words (at most half the view), in a view `width` px wide (a number, or
    the signal of a view as wide as its column; where it reads 0, a drawing of fixed width, half the view), and
    never past 100%."""
    zoomed = "null" if largest is None else f"min(1, ({largest}) / max(1 - {room} / max({width}, 1), 0.5))"
    return alt.Scale(zero=True, domainMin=0, domainMax=alt.ExprRef(f"{CHANCE_SWITCH} == 'whole' ? 1 : {zoomed}"))


def words_room(words: Sequence[str]) -> int:
    """px: the room the longest of `words` (of 11 to 12 px) takes past a bar's end, drawn 4 px after it."""
    return math.ceil(max(map(len, words), default=0) * TEXT_EM) + 4


# ---------------------------------------------------------------------------------------------- colour scales
#
# The scales of figures/toolkit/colours.py's meanings, so that every chart that shows which way a mark moves the
# answer, a plain number's side of zero, or a scale from none to most, shows it in the same colours.


def sides(helps: str, hurts: str, **others: str) -> alt.Scale:
    """A colour scale for a field that names which way a mark moves the answer: `helps` in the colour of what helps
    the answer, `hurts` in that of what works against it, and any `others` (a name: its colour) after them, in the
    legend's order. Every "who did it" figure (ledger, knockout, patching) says it in these two colours."""
    return alt.Scale(domain=[helps, hurts, *others], range=[HELPS, HURTS, *others.values()])


def diverging(**options: Any) -> alt.Scale:
    """The colour scale of plain numbers either side of zero, which neither help nor hurt: one colour below, the
    page's own colour at zero (colours.ZERO; a dark page's on a dark page), another above (interpolated in CIELAB,
    so that the steps look even)."""
    return alt.Scale(domainMid=0, range=list(DIVERGING), interpolate="lab", **options)


def helps_or_hurts(**options: Any) -> alt.Scale:
    """The colour scale of how much a piece helps the answer, centred on 0 (no help): the colour of what works
    against the answer below, the page's own colour at 0 (colours.ZERO), the colour of what helps it above."""
    return alt.Scale(domainMid=0, range=list(HELPS_OR_HURTS), interpolate="lab", **options)


def sequential(**options: Any) -> alt.Scale:
    """The colour scale from none to most (a share, a chance, a distance): dark purple for little, yellow for most,
    the same way round in every chart."""
    return alt.Scale(scheme=SEQUENTIAL, **options)


# ---------------------------------------------------------------------------------------------- Vega expressions


def escaped(text: str) -> str:
    """A text as it goes inside a single-quoted Vega expression string."""
    return text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n")


def literal(text: str) -> str:
    """A text as a single-quoted Vega expression string."""
    return "'" + escaped(text) + "'"


# ---------------------------------------------------------------------------------------------- the column's width
#
# Every chart takes the width of its column, from a 360 px phone to a desktop: a single or layered view with
# width "container", a stack of views (vconcat) with every view "container" and the stack fitted to the column
# (FIT_COLUMN), so that axes and legends fit inside it too. Views side by side (hconcat) cannot follow the
# column, so the figures stack their views instead. Words drawn in a chart wrap to its width (wrapped), and the
# drawings made at build time (sitegen.site.drawing) give "container" a fixed width.

FIT_COLUMN = {"type": "fit-x", "contains": "padding"}
TITLE_EM = 7.5  # about how wide a character of a chart's title (13 px, bold) is, in px
TEXT_EM = 6.6  # the same for words of 11 to 12 px in a chart
MIN_LINE = 16  # characters: a line never wraps shorter
AXES_ROOM = 70  # px of the column a line of words leaves to the axes beside the view


def fits_column(chart: ChartT) -> ChartT:
    """A stack of views (each of width "container") fitted to its column, axes and legends inside it; a little
    more room on the right, which Vega's measure of a slanted label can fall short of."""
    chart.autosize = FIT_COLUMN
    chart.padding = {"left": 5, "top": 5, "right": 10, "bottom": 5}
    return chart


def wrap_lines(text_expr: str, em: float = TEXT_EM) -> str:
    """A Vega expression: the string `text_expr` (an expression) with a line break put in wherever a line would
    be wider than the view, at `em` px a character; lines already broken stay broken.

    The view's width is taken from its column (containerSize), less AXES_ROOM, rather than from the `width`
    signal: the fitted layout works `width` out from what is drawn, and words that wrapped again after it
    would leave the drawing's height as it was. A drawing made at build time has no column: there, `width`."""
    room = f"(containerSize()[0] > 0 ? containerSize()[0] - {AXES_ROOM} : width)"
    per_line = f"max({MIN_LINE}, floor({room} / {em}))"
    pattern = f"'(?![^\\\\n]{{1,' + {per_line} + '}}$)([^\\\\n]{{1,' + {per_line} + '}})[ \\\\t]+'"
    return f"replace({text_expr}, regexp({pattern}, 'gm'), '$1\\n')"


def wrapped(text_expr: str, em: float = TITLE_EM) -> alt.ExprRef:
    """A title's text that wraps to the view's width: an expression of its lines, for alt.Title(...)."""
    return alt.ExprRef(expr=f"split({wrap_lines(text_expr, em)}, '\\n')")


class OverBars(TypedDict):
    """Mark properties of a value written over a bar (over_bars)."""

    angle: alt.ExprRef
    align: alt.ExprRef
    dx: alt.ExprRef
    dy: alt.ExprRef
    baseline: Literal["middle"]
    opacity: alt.ExprRef


def over_bars(count: int | str, room: int = 26) -> OverBars:
    """Mark properties for a value written over each of `count` bars side by side (a number, or a Vega expression of
    one): across, above the bar, where the bars are `room` px wide or more; else turned upright, so that neighbours'
    words never run together; left out where even upright they would (the tooltip still says it)."""
    band = f"width / {count}"
    narrow = f"{band} < {room}"
    return {
        "angle": alt.ExprRef(f"{narrow} ? 270 : 0"),
        "align": alt.ExprRef(f"{narrow} ? 'left' : 'center'"),
        "dx": alt.ExprRef(f"{narrow} ? 4 : 0"),
        "dy": alt.ExprRef(f"{narrow} ? 0 : -7"),
        "baseline": "middle",
        "opacity": alt.ExprRef(f"{band} >= 13 ? 1 : 0"),
    }
