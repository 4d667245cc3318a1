"""The drawing process: the Vega bundle and the static drawings, made beside the build in a process of its own."""

from __future__ import annotations

import json
from concurrent.futures import Future

import pytest
import vl_convert

from sitegen.site.drawing import (
    NARROW_WIDTH,
    STATIC_WIDTH,
    Drawer,
    DrawingError,
    differences,
    fixed_width,
    one_line,
    shapes_only,
    stable_ids,
    vl_version,
)
from figsite.errors import BuildError
from sitegen.pipeline import kept_or_asked
from sitegen.site.lighter import lighter
from sitegen.site.render import CHART_THEMES

BARS = {
    "data": {"values": [{"a": "x", "b": 1}, {"a": "y", "b": 3}]},
    "mark": "bar",
    "width": "container",
    "encoding": {"x": {"field": "a", "type": "nominal"}, "y": {"field": "b", "type": "quantitative"}},
}


@pytest.fixture
def drawer():
    with Drawer() as drawer:
        yield drawer


def test_a_drawing_is_vl_converts_own_svg_and_its_png(drawer):
    theme = CHART_THEMES["light"]
    svg, png = drawer.drawings(BARS, theme).result(timeout=120)
    # Made here in this process, with vl-convert directly: the same picture, numbered the same way.
    spec = {**fixed_width(BARS), "config": {**theme, "background": "white"}}
    expected = stable_ids(vl_convert.vegalite_to_svg(spec, vl_version=vl_version()))
    assert svg.decode("utf-8") == expected
    assert png == vl_convert.svg_to_png(shapes_only(expected), scale=1)  # the small picture: shapes, no words
    assert fixed_width(BARS)["width"] == STATIC_WIDTH  # a container's width became the drawing's


def test_a_phones_first_drawing_is_the_chart_fitted_to_a_phones_column_on_the_pages_background(drawer):
    """A view as wide as its column (BARS) is fitted to it by Vega-Lite: drawn at a width in numbers, it is fitted
    still, as the live chart is."""
    theme = CHART_THEMES["dark"]
    (svg,) = drawer.drawings(BARS, theme, width=NARROW_WIDTH, png=False, background="transparent", fit=True).result(
        timeout=120
    )
    spec = {
        **fixed_width(BARS, NARROW_WIDTH),
        "autosize": {"type": "fit-x", "contains": "padding"},
        "config": {**theme, "background": "transparent"},
    }
    # made light, as every page's drawing is (sitegen.site.lighter)
    assert svg.decode("utf-8") == lighter(stable_ids(vl_convert.vegalite_to_svg(spec, vl_version=vl_version())))
    assert f'width="{NARROW_WIDTH}"' in svg.decode("utf-8")  # fitted: the whole drawing as wide as the column


def test_the_small_picture_keeps_every_shape_of_the_drawing_and_none_of_its_words():
    svg = (
        '<svg><g class="mark-rect"><path d="M0,0h5v5h-5Z"></path></g><g class="role-axis-label">'
        '<text x="1">x</text><text x="2"><tspan>two</tspan><tspan>lines</tspan></text></g></svg>'
    )
    assert (
        shapes_only(svg)
        == '<svg><g class="mark-rect"><path d="M0,0h5v5h-5Z"></path></g><g class="role-axis-label"></g></svg>'
    )


def test_the_small_picture_takes_an_empty_label_alone_and_keeps_the_groups_after_it():
    # Vega writes a label with no text (a token shown as nothing) as <text .../>, which must not reach the next
    # group's </text>: the picture's XML would lose a </g> and vl-convert refuse it.
    svg = (
        '<svg><g class="a"><text x="1" opacity="1"/></g><g class="b"><path d="M0,0h5"></path>'
        '<text x="2">two</text></g></svg>'
    )
    assert shapes_only(svg) == '<svg><g class="a"></g><g class="b"><path d="M0,0h5"></path></g></svg>'


def test_a_charts_dark_theme_is_its_light_one_with_the_differences_applied(drawer):
    vega, dark = drawer.compiled(BARS, CHART_THEMES).result(timeout=120)
    light, changes = json.loads(vega), json.loads(dark)
    expected = vl_convert.vegalite_to_vega({**BARS, "config": CHART_THEMES["dark"]}, vl_version=vl_version())
    assert changes and light != expected
    for change in changes:  # as assets/figures.js applies them
        *keys, last = change[0]
        at = light
        for key in keys:
            at = at[key]
        if len(change) > 1:
            at[last] = change[1]
        else:
            del at[last]
    assert light == expected
    assert differences(expected, expected) == []


def test_a_spec_vl_convert_rejects_fails_that_drawing_only(drawer):
    broken = drawer.drawings({"mark": "no-such-mark", "data": {"values": []}}, {})
    after = drawer.drawings(BARS, {})
    with pytest.raises(DrawingError):
        broken.result(timeout=120)
    svg, _ = after.result(timeout=120)
    assert svg.startswith(b"<svg")


def test_a_drawing_process_that_died_fails_what_waits_instead_of_hanging(drawer):
    first = drawer.warm_up()
    for worker in drawer._workers:
        worker.process.kill()
    with pytest.raises(DrawingError):
        first.result(timeout=60)
    later = drawer.drawings(BARS, {})
    with pytest.raises(DrawingError, match="ended"):
        later.result(timeout=60)


def test_drawings_go_to_a_process_still_alive_and_come_out_the_same_from_either(drawer):
    drawer.warm_up().result(timeout=120)
    first, second = drawer.drawings(BARS, {}), drawer.drawings(BARS, {})  # one each: the two draw side by side
    assert first.result(timeout=120) == second.result(timeout=120)
    drawer._workers[0].process.kill()
    drawer._workers[0].process.wait()
    import time

    deadline = time.time() + 30
    while not drawer._workers[0].ended and time.time() < deadline:
        time.sleep(0.01)
    svg, _ = drawer.drawings(BARS, {}).result(timeout=120)  # the other one draws it
    assert svg.startswith(b"<svg")


def test_a_failed_drawing_stops_the_build_with_one_line_naming_it(tmp_path):
    future = Future()
    future.set_exception(DrawingError("ValueError: no such mark"))
    result = kept_or_asked(tmp_path, ["drawing", "x"], ["svg", "png"], lambda: future, "figure (l)'s drawing")
    with pytest.raises(BuildError, match=r"^figure \(l\)'s drawing could not be made with vl-convert: ValueError"):
        result()


def test_what_was_drawn_once_is_kept_and_not_asked_for_again(tmp_path):
    made = Future()
    made.set_result([b"<svg/>", b"png"])
    asked = []

    def ask():
        asked.append(1)
        return made

    assert kept_or_asked(tmp_path, ["drawing", {"a": 1}], ["svg", "png"], ask, "d")() == [b"<svg/>", b"png"]
    assert kept_or_asked(tmp_path, ["drawing", {"a": 1}], ["svg", "png"], ask, "d")() == [b"<svg/>", b"png"]
    assert len(asked) == 1
    # Another spec is another drawing.
    kept_or_asked(tmp_path, ["drawing", {"a": 2}], ["svg", "png"], ask, "d")()
    assert len(asked) == 2


def test_without_a_cache_nothing_is_kept():
    made = Future()
    made.set_result([b"js"])
    asked = []
    for _ in range(2):
        kept_or_asked(None, ["a-drawing"], ["js"], lambda: asked.append(1) or made, "the drawing")()
    assert len(asked) == 2


def test_an_error_of_vl_convert_reaches_the_build_as_one_line_without_its_stack():
    """vl-convert's error for a raw control character in a drawing, as a build once printed it: a Rust stack backtrace
    of some 30 frames after the message. The build says the message alone, on one line."""
    frames = "".join(f"\n  {n}: <unknown>\n      at /rustc/src/lib.rs:{n}" for n in range(30))
    error = RuntimeError(f"a non-XML character '\\u{{b}}' found at 1:19870\n\nStack backtrace:{frames}")
    said = one_line(f"{type(error).__name__}: {error}")
    assert said == "RuntimeError: a non-XML character '\\u{b}' found at 1:19870"
    assert one_line("ValueError: no such\n  mark") == "ValueError: no such mark"


def test_a_chart_spec_never_holds_a_character_xml_cannot_hold_so_its_drawing_is_made(drawer):
    from figures.toolkit import charts
    from figures.toolkit.charts import alt

    chart = (
        alt.Chart(alt.Data(values=[{"word": "a\x0bb\x1b"}]))
        .mark_text()
        .encode(text="word:N")
        .properties(title="tab\there, line\nbreak")
    )
    spec = charts.spec(chart)
    assert spec["data"]["values"] == [{"word": "a\\vb\\x1b"}] and spec["title"] == "tab\there, line\nbreak"
    svg, _ = drawer.drawings(spec, {}).result(timeout=120)
    assert b"a\\vb\\x1b" in svg


def test_a_spec_fits_its_column_where_a_view_of_it_is_as_wide_as_the_column_whatever_its_data_say():
    from sitegen.site.drawing import fits_column

    assert fits_column({"vconcat": [{"mark": "bar"}, {"layer": [{"width": "container"}]}]})
    assert fits_column({"spec": {"width": "container"}, "facet": {"row": {"field": "layer"}}})
    assert not fits_column({"hconcat": [{"width": 300}, {"width": 120}]})
    # a datum or an encoding that says "container" is no view's width
    assert not fits_column(
        {
            "width": 300,
            "data": {"values": [{"width": "container"}]},
            "encoding": {"x": {"field": "width", "title": "container"}},
        }
    )


def test_a_first_drawings_words_wrap_to_the_column_it_is_drawn_for():
    from sitegen.site.drawing import in_column

    spec = {"title": {"text": {"expr": "containerSize()[0] > 0 ? containerSize()[0] - 40 : width"}}, "width": 306}
    assert in_column(spec, 306)["title"]["text"]["expr"] == "306 > 0 ? 306 - 40 : width"
    assert spec["title"]["text"]["expr"].startswith("containerSize()")  # the caller's spec is left as it was
