"""The names the figures' Python and the page's script (templates/static/figures.js) must agree on, declared once.

The figures name their chart's params and data with these; the build renders figures.js with them (render.py),
so the script never spells a name of its own. tests/unit/test_shared_names.py fails if the two disagree.
"""

from __future__ import annotations

from figsite.data.run import LEFT_OUT, MIN_SHARE

# Params that choose the token a figure looks from: on a page of one text, choosing it in one figure chooses
# it in the others.
TOKEN = "token"  # attention, heads
POSITION = "position"  # lens
FROM = "from"  # find-head
TOKEN_PARAMS = (TOKEN, POSITION, FROM)

DESCRIPTION = "description"  # the signal holding the chart's state in words, read out to screen readers
VIEW = "view"  # the attention figure's head (a key such as '5-12', or 'all')
NAMES = "names"  # the tokens as the chart writes them
LEFT_OUT_SIGNAL = "left_out"  # a long text: the share left out of the chosen row
SHARES = "shares"  # a long text: the dataset the script fills with the chosen row's shares

# Keys of a chart's `usermeta`.
ATTENTION_META = "attention"  # a long text's head files: {"files", "minShare", "unit", "callback"}
LOADS_META = "loads"  # a figure's files loaded on demand: {"on": [params], "key": param, "files": {value: path},
# "data": the dataset they fill, "opening": {param: value} the page's data already hold, "callback"}
RENDERER_META = "renderer"  # "svg" (default) or "canvas"
CLICKS_META = "clicks"  # what a click on a mark chooses: [{"field": a field of its datum, "param": a bound param}]
PICK = "pick_"  # the datum field a clickable mark carries for the param it sets: "pick_token" (charts.clickable)


def token_param(chart: dict) -> str | None:
    """The name of the param that chooses the token in a chart compiled to Vega, or None where it has none."""
    bound = [signal["name"] for signal in chart.get("signals", []) if "bind" in signal]
    return next((name for name in bound if name in TOKEN_PARAMS), None)


def token_row(chart: dict) -> list[dict]:
    """The text as a row of tokens that chooses the chart's token (the page's token row): each option of the
    token param, {"value": its number, "text": the token as the chapter writes it ("_it"), "chosen": whether the
    chart opens on it}; [] where the chart chooses no token."""
    name = token_param(chart)
    if name is None:
        return []
    signal = next(signal for signal in chart["signals"] if signal["name"] == name)
    options, labels = signal["bind"]["options"], signal["bind"].get("labels") or signal["bind"]["options"]
    return [{"value": value, "text": str(label).split(": ", 1)[-1], "chosen": value == signal.get("value")}
            for value, label in zip(options, labels)]


def for_script() -> dict:
    """Everything above, as figures.js reads it."""
    return {"token_params": list(TOKEN_PARAMS), "token": TOKEN, "description": DESCRIPTION, "view": VIEW,
            "names": NAMES, "left_out_signal": LEFT_OUT_SIGNAL, "shares": SHARES, "attention_meta": ATTENTION_META,
            "loads_meta": LOADS_META, "renderer_meta": RENDERER_META, "clicks_meta": CLICKS_META, "left_out": LEFT_OUT, "min_share": MIN_SHARE}
