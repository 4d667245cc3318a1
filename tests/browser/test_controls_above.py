"""Each chart's controls sit above its drawing, where the reader acts before reading, and a slider is wide enough
to use: 240 px or more where the column allows, on a desktop and on a phone."""

from __future__ import annotations

import pytest

from .test_readers import FIGURE_PAGES

PLACES = """() => Array.from(document.querySelectorAll('[data-spec]')).map(chart => {
  const controls = chart.querySelector('.vega-bindings'), drawing = chart.querySelector('svg.marks, canvas');
  const sliders = Array.from(chart.querySelectorAll('input[type=range]')).map(s => s.getBoundingClientRect().width);
  return {id: chart.id, controls: controls && controls.children.length ? controls.getBoundingClientRect().bottom : null,
          drawing: drawing ? drawing.getBoundingClientRect().top : null, sliders: sliders,
          column: chart.getBoundingClientRect().width};
})"""


@pytest.mark.parametrize(
    "viewport", [{"width": 1280, "height": 900}, {"width": 360, "height": 800}], ids=["desktop", "phone"]
)
def test_every_charts_controls_are_above_its_drawing_and_its_sliders_are_240_px_or_the_column(opener, viewport):
    context = opener.context(viewport=viewport)
    with_controls = 0
    for name in FIGURE_PAGES:
        visit = opener.open(name, context=context)
        for chart in visit.page.evaluate(PLACES):
            if chart["controls"] is None:
                continue
            with_controls += 1
            assert chart["controls"] <= chart["drawing"] + 1, f"{name}: {chart['id']}'s controls are below its drawing"
            for width in chart["sliders"]:
                assert width >= min(240, chart["column"] - 40), f"{name}: {chart['id']}'s slider is {width:.0f} px"
        opener.done(visit)
    assert with_controls >= 8, f"only {with_controls} charts with controls: the check saw too little"
