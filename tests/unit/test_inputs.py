"""The inputs the build writes into a chart's bar (sitegen.site.inputs) are Vega's: the values written as JavaScript
writes them (checked against Node itself), a range's value on its step as the page puts it (address.js `onStep`,
run in Node), the options, labels, chosen values and ranges as the spec gives them, and
none where Vega would work an input out from an expression. tests/browser/test_before_the_chart_is_live.py compares
them with the inputs Vega writes in Chromium, on every page with inputs."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from figsite.data.shared_names import WITHIN_META
from sitegen.site.inputs import Input, Option, chart_inputs, js_string, on_step

ROOT = Path(__file__).resolve().parents[2]
NUMBERS = [
    0,
    1,
    -3,
    2.5,
    0.1,
    0.05,
    1 / 3,
    1e-7,
    1.5e-7,
    1e-6,
    0.000123,
    123456.789,
    1e21,
    1.5e300,
    2.0**60,
    -0.0,
    1e20,
    4.0,
]


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js, the reference for JavaScript's String()")
def test_numbers_are_written_as_javascript_writes_them():
    script = "for (const v of JSON.parse(process.argv[1])) console.log(String(v));"
    written = subprocess.run(
        ["node", "-e", script, json.dumps(NUMBERS)], capture_output=True, text=True, check=True
    ).stdout.split("\n")[:-1]
    assert [js_string(v) for v in NUMBERS] == written


def test_other_values_are_written_as_javascript_writes_them():
    assert [js_string(v) for v in (True, False, None, "_it", [1, "a"])] == ["true", "false", "null", "_it", "1,a"]


def signal(signal_name, value, **bind):
    return {"name": signal_name, "value": value, "bind": bind}


def test_a_select_lists_its_options_with_their_labels_and_chooses_the_signals_value():
    chart = {
        "signals": [
            {"name": "width", "value": 300},
            signal("head", 4, input="select", options=[1, 4, 12], labels=["one", "", "twelve"], name="Head "),
        ]
    }
    assert chart_inputs(chart) == [
        Input(
            "head",
            "Head ",
            "select",
            options=(Option("1", "one", False), Option("4", "4", True), Option("12", "twelve", False)),
        )
    ]


def test_a_radio_group_keeps_its_order_and_the_steered_token_is_hidden():
    chart = {
        "signals": [
            signal("view", "5-4", input="radio", options=["all", "5-4"]),
            signal("token", 9, input="select", options=[8, 9]),
        ]
    }
    view, token = chart_inputs(chart, steered="token")
    assert (view.kind, view.label, [o.chosen for o in view.options], view.hidden) == (
        "radio",
        "view",
        [False, True],
        False,
    )
    assert token.hidden and [o.chosen for o in token.options] == [False, True]


def test_a_select_within_another_params_value_hides_the_options_past_it():
    """Find-head's token looked back to stays at or before the token that looks (usermeta "within"): the build writes
    the options past it as beyond (hidden and disabled), as the page's script then keeps them."""
    chart = {
        "signals": [
            signal("from", 3, input="select", options=[1, 2, 3, 4]),
            signal("to", 2, input="select", options=[1, 2, 3, 4]),
        ],
        "usermeta": {WITHIN_META: {"to": "from"}},
    }
    looking, looked_at = chart_inputs(chart, steered="from")
    assert looked_at.within == "from" and [o.beyond for o in looked_at.options] == [False, False, False, True]
    assert looking.within == "" and not any(o.beyond for o in looking.options)
    assert not any(o.beyond for made in chart_inputs({"signals": chart["signals"]}) for o in made.options)


def test_a_range_writes_its_bounds_step_and_value_as_javascript_does():
    chart = {"signals": [signal("T", 1.0, input="range", min=0.1, max=4, step=0.05, name="Spread ")]}
    (made,) = chart_inputs(chart)
    assert dict(made.attributes) == {"min": "0.1", "max": "4", "step": "0.05", "value": "1"} and made.shown == "1"


def test_a_ranges_value_off_its_steps_is_written_on_its_nearest_step_with_the_steps_digits():
    chart = {"signals": [signal("T", 0.1 + 28 * 0.05, input="range", min=0.1, max=4, step=0.05)]}  # 1.5000000000000002
    (made,) = chart_inputs(chart)
    assert dict(made.attributes)["value"] == "1.5" and made.shown == "1.5"


# Ranges, and values on and off their steps (a float's tail among them, beyond max, between two steps).
RANGES = [(0.1, 4, 0.05), (0, 1, 0.1), (1, 50, 1), (-1, 1, 0.25), (0.001, 0.01, 0.0005), (0, 11, 2), (0, 1e-6, 1e-7)]


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js, to run the page's own onStep")
def test_the_build_puts_a_value_on_its_ranges_step_as_the_page_does():
    cases = [
        [low, high, step, value]
        for low, high, step in RANGES
        for value in [low + k * step for k in range(int((high - low) / step) + 1)] + [high * 0.999, (low + high) / 3]
    ]
    script = (
        "import('./templates/js/shared/address.js').then(a => { for (const [min, max, step, v] of "
        "JSON.parse(process.argv[1])) console.log(String(a.onStep({min, max, step}, v))); });"
    )
    written = subprocess.run(
        ["node", "-e", script, json.dumps(cases)], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.split("\n")[:-1]
    assert [js_string(on_step(v, low, high, step)) for low, high, step, v in cases] == written
    assert not [text for text in written if len(text.partition(".")[2]) >= 10], "a step written with a float's tail"


@pytest.mark.parametrize(
    "bound",
    [
        {"name": "stage", "update": "length(data('x'))", "bind": {"input": "range", "min": 0, "max": 9, "step": 1}},
        {"name": "n", "value": 5, "bind": {"input": "range", "min": 0, "max": 9}},  # Vega works out its step
        {"name": "t", "value": 1, "bind": {"element": "#elsewhere"}},
    ],
)
def test_no_inputs_where_vega_would_work_one_out_or_write_it_elsewhere(bound):
    assert chart_inputs({"signals": [signal("a", 1, input="checkbox"), bound]}) is None


def test_a_chart_without_inputs_has_none_to_write():
    assert chart_inputs({"signals": [{"name": "width", "value": 3}]}) == []
    assert chart_inputs({}) == []
