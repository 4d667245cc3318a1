"""A chart's inputs written at build time, as Vega will write them: the page shows them in the chart's bar of controls
from its first paint, so that the bar has its height before Vega has loaded, and nothing moves when the live chart
takes its place (issue 34). A reader may use them before then: the page's script reads what they hold when it draws
the live chart (templates/js/figures/draw.js), which then writes its own inputs in their place.

The markup is vega-view's (node_modules/vega-view/src/bind.js, `generate`): the same elements, classes and text,
so that the bar is laid out alike before and after. Only what a chart's spec states is written: a signal whose
opening value or range the spec leaves to an expression gives no inputs at all (the bar is then Vega's alone).
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from dataclasses import dataclass, replace

from figsite.data.shared_names import WITHIN_META

# The input types vega-view draws; any other is an <input> of that type.
SELECT, RADIO, RANGE, CHECKBOX = "select", "radio", "range", "checkbox"


@dataclass(frozen=True)
class Option:
    """One choice of a select or radio input: its value as the page writes it, its label, and whether it is chosen."""

    value: str
    label: str
    chosen: bool
    beyond: bool = False  # past the value of the param its select stays within (hidden and disabled)


@dataclass(frozen=True)
class Input:
    """One input of a chart, as vega-view writes it for a signal bound to an input.

    signal: the signal's name (the input's name); label: the words before it; kind: its input type; options: the
    choices of a select or radio; attributes: a range's min, max, step and value, an <input>'s own; shown: the value
    a range writes beside it; hidden: a token choice that the page's row of tokens makes instead (figures.js hides
    Vega's input where a row steers the chart, and the build hides this one alike); within: the signal whose value
    a select's value stays at or before (the chart's usermeta WITHIN_META), its options past it `beyond`."""

    signal: str
    label: str
    kind: str
    options: tuple = ()
    attributes: tuple = ()
    shown: str = ""
    checked: bool = False
    hidden: bool = False
    within: str = ""


def chart_inputs(chart: dict, steered: str | None = None) -> list[Input] | None:
    """The inputs of a chart compiled to Vega, in the order Vega writes them (its signals' order); `steered` names
    the signal a row of tokens chooses (hidden). None where a bound signal's input cannot be known before Vega runs
    its expressions."""
    inputs, within = [], chart.get("usermeta", {}).get(WITHIN_META, {})
    values = {signal["name"]: signal.get("value") for signal in chart.get("signals", [])}
    for signal in chart.get("signals", []):
        if "bind" not in signal:
            continue
        made = _input(signal, signal["bind"], signal["name"] == steered)
        if made is not None and signal["name"] in within:
            made = _within(made, signal["bind"], within[signal["name"]], values.get(within[signal["name"]]))
        if made is None:
            return None
        inputs.append(made)
    return inputs


def _input(signal: dict, bind: dict, hidden: bool) -> Input | None:
    if "value" not in signal or "element" in bind or not isinstance(bind.get("input"), str):
        return None  # its value comes from an expression, or Vega writes it elsewhere
    value, kind = signal["value"], bind["input"]
    label = js_string(bind.get("name") or signal["name"])
    common = {"signal": signal["name"], "label": label, "kind": kind, "hidden": hidden}
    if kind in (SELECT, RADIO):
        labels, chosen = bind.get("labels") or [], js_string(value)
        texts = [js_string(option) for option in bind["options"]]
        # vega-view's valuesEqual: the same value, or the same as text
        options = tuple(Option(text, js_string(labels[i]) if i < len(labels) and labels[i] else text, text == chosen)
                        for i, text in enumerate(texts))
        return Input(**common, options=options)
    if kind == RANGE:
        if any(key not in bind for key in ("min", "max", "step")) or not _number(value):
            return None  # vega-view would work out the missing ones from d3's ticks
        value = on_step(value, bind["min"], bind["max"], bind["step"])
        attributes = tuple((key, js_string(bind[key])) for key in ("min", "max", "step")) + (("value", js_string(value)),)
        return Input(**common, attributes=attributes, shown=js_string(value))
    if kind == CHECKBOX:
        return Input(**common, checked=bool(value))
    skipped = {"input", "name", "element", "debounce", "signal"}
    attributes = (("type", kind),) + tuple((key, js_string(v)) for key, v in bind.items() if key not in skipped)
    return Input(**common, attributes=attributes + (("value", js_string(value)),))


def on_step(value: float, low: float, high: float, step: float) -> float:
    """The step of a range nearest `value` (low and a whole number of steps, at most high), with no more digits than
    low and step have: as the page's script takes a range's value (templates/js/shared/address.js `onStep`, which
    rounds alike), so that the build's input shows 1.5 where its spec says 1.5000000000000002."""
    step = step or 1
    steps = max(0, min(math.floor((value - low) / step + 0.5), math.floor((high - low) / step + 1e-9)))  # JS's round
    digits = max(_decimals(low), _decimals(step))
    return float(f"{low + steps * step:.{digits}f}")


def _decimals(number: float) -> int:
    """The digits after the point JavaScript writes a number with: 2 for 0.05, 0 for 3, 7 for 1e-7."""
    mantissa, _, exponent = js_string(number).lower().partition("e")
    _, _, fraction = mantissa.partition(".")
    return max(0, len(fraction) - int(exponent or 0))


def _within(made: Input, bind: dict, other: str, most) -> Input:
    """A select that stays at or before the signal `other`'s value `most` (a number): its options past it beyond."""
    if made.kind != SELECT or not _number(most):
        return made
    options = tuple(replace(option, beyond=_number(raw) and raw > most) for option, raw in zip(made.options, bind["options"]))
    return replace(made, options=options, within=other)


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def js_string(value) -> str:
    """A JSON value as JavaScript writes it as text (String(value)), as vega-view writes values into the page."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _js_number(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ",".join("" if v is None else js_string(v) for v in value)
    return "[object Object]" if isinstance(value, dict) else json.dumps(value)


def _js_number(value: float) -> str:
    """A float as JavaScript's Number#toString writes it: the shortest digits that read back as the same number,
    integers without ".0", exponents from 1e21 and under 1e-6 ("1e+21", "1e-7")."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value.is_integer() and abs(value) < 2 ** 53:  # exact: past 2**53 JavaScript writes the shortest digits
        return str(int(value))
    text = repr(value)  # the shortest text that reads back as the same float, as JavaScript's
    if "e" not in text:
        return text
    if 1e-6 <= abs(value) < 1e21:  # JavaScript writes these without an exponent
        return format(Decimal(text), "f")
    mantissa, exponent = text.split("e")
    return f"{mantissa}e{'-' if exponent.startswith('-') else '+'}{int(exponent.lstrip('+-'))}"
