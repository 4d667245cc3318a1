"""The names the figures' Python and the pages' scripts (templates/js/) must agree on, declared once.

The figures name their chart's params and data with these; the scripts import them from templates/js/shared/names.js,
a module this one writes (`python -m figsite.data.shared_names > templates/js/shared/names.js`), so no script spells
a name of its own. tests/unit/test_shared_names.py fails if the committed module is not what this one writes, or if
a script spells a shared name itself.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any, TypedDict

from figsite.data import live_data
from figsite.data.format import TOP_K  # noqa: F401 - written into names.js by its name (the list below)
from figsite.data.run import LEFT_OUT, MIN_SHARE, PER_SHARE  # noqa: F401 - likewise

# Params that choose the token a figure looks from: on a page of one text, choosing it in one figure chooses
# it in the others.
TOKEN = "token"  # attention, heads
POSITION = "position"  # lens
FROM = "from"  # find-head
TOKEN_PARAMS = (TOKEN, POSITION, FROM)
LOOKED_AT = "to"  # find-head: the token `from` looks back to; chosen from the text's tokens, not linked to the others
TOKEN_SELECTS = (*TOKEN_PARAMS, LOOKED_AT)  # the selects of a text's tokens, which a reader's text fills

DESCRIPTION = "description"  # the signal holding the chart's state in words, read out to screen readers
KEY_WORDS = "key_words"  # a signal holding the chart's key in words where the reader's choices change it (the
# page writes it in place of the key above the chart)
VIEW = "view"  # the attention figure's head (a key such as '5-12', or 'all')
NAMES = "names"  # the tokens as the chart writes them
OWN_FROM = "own_from"  # a chart with no text: where the tokens the model added to the reader's text begin (from 0)
LEFT_OUT_SIGNAL = "left_out"  # a long text: the share left out of the chosen row
SHARES = "shares"  # a long text: the dataset the script fills with the chosen row's shares
HEAD_PICTURES = "head_pictures"  # a reader's text: every head's picture (PNG data URLs), drawn by the page's script
PICTURE_PALETTE = "picture_palette"  # ... in these colours: {"stops": a scheme's, "levels", "masked"} (the dark page's)

# The function a figure's notebook script calls (paths.notebook_script): it hands the page the notebook as text, so
# that the page saves it with the figure's state (templates/js/figures/notebook.js) from file:// too.
NOTEBOOK_CALLBACK = "figsiteNotebook"
NOTEBOOK_STATE = "STATE = {}"  # the first line of a notebook's STATE cell as the build writes it (figures.notebook)

# Keys of a chart's `usermeta`.
ATTENTION_META = "attention"  # a long text's head files: {"files", "minShare", "unit", "callback"}
LOADS_META = "loads"  # a figure's files loaded on demand: {"on": [params], "key": param, "files": {value: path},
# "data": the dataset they fill, "opening": {param: value} the page's data already hold, "callback"}
RENDERER_META = "renderer"  # "svg" (default) or "canvas"
CLICKS_META = "clicks"  # what a click on a mark chooses: [{"field": a field of its datum, "param": a bound param}]
# A menu that offers only what the figure can use: {param: the param whose value it stays at or before}, as find-head's
# token looked back to stays at or before the token that looks (no token looks to the right).
WITHIN_META = "within"
PICK = "pick_"  # the datum field a clickable mark carries for the param it sets: "pick_token" (charts.clickable)
# The mark behind a grid's axis on its left (charts.backdrop): where the grid scrolls in its box, the page keeps that
# axis in view over it (scroll.js), filled with the page's colour (site.css).
BACKDROP = "backdrop"

NARROW_PX = 480  # a column narrower than this (a phone) draws a figure's narrow chart (figures.kind narrow_chart)
# The hint above a drawing wider than its column: its words with a mouse and on a touch screen, then what it shows
# where the marks stand for the text's tokens, or else (the build writes it above a phone's drawing, the script later).
SCROLL_HINT = {
    "mouse": "Scroll sideways",
    "touch": "Swipe sideways",
    "columns": " to see every position",
    "whole": " to see the whole chart",
}

# The live page's datasets and downloads (figsite.data.live_data): {name: [its fields, in order]}, {name: [columns]}.
LIVE_DATASETS = {name: list(dataset.fields) for name, dataset in live_data.DATASETS.items()}
LIVE_TABLES = {name: list(table.columns) for name, table in live_data.TABLES.items()}
LIVE_PANELS, LIVE_TOP, LIVE_FOLLOW = live_data.PANELS.name, live_data.TOP.name, live_data.FOLLOW.name  # their names
FOLLOW_NAME = live_data.FOLLOW_NAME  # the param of the followed token's text
PIECE_KEYS, NEAR = live_data.PIECE_KEYS, live_data.NEAR  # activation patching's runs' keys, and its texts' nearness
PATCH_CHOICE, PATCH_OPENING = live_data.PATCH_CHOICE, live_data.PATCH_OPENING  # its chosen run, its opening run
LIVE_PATCHED = live_data.PATCHED.name  # its dataset

# What templates/js/shared/names.js exports, each under its name here.
# TOP_K (the read-out's tokens kept per stage and position) and PER_SHARE (a share's units) are the live page's: its
# datasets and downloads lay out the model's outputs as the build's data files do.
FOR_SCRIPTS = (
    "TOKEN_PARAMS",
    "TOKEN",
    "POSITION",
    "FROM",
    "LOOKED_AT",
    "TOKEN_SELECTS",
    "DESCRIPTION",
    "KEY_WORDS",
    "VIEW",
    "NAMES",
    "OWN_FROM",
    "LEFT_OUT_SIGNAL",
    "SHARES",
    "HEAD_PICTURES",
    "PICTURE_PALETTE",
    "NOTEBOOK_CALLBACK",
    "NOTEBOOK_STATE",
    "ATTENTION_META",
    "LOADS_META",
    "RENDERER_META",
    "CLICKS_META",
    "WITHIN_META",
    "PICK",
    "BACKDROP",
    "NARROW_PX",
    "SCROLL_HINT",
    "LEFT_OUT",
    "MIN_SHARE",
    "TOP_K",
    "PER_SHARE",
    "LIVE_DATASETS",
    "LIVE_TABLES",
    "LIVE_PANELS",
    "LIVE_TOP",
    "LIVE_FOLLOW",
    "FOLLOW_NAME",
    "PIECE_KEYS",
    "NEAR",
    "PATCH_CHOICE",
    "PATCH_OPENING",
    "LIVE_PATCHED",
)


class TokenOption(TypedDict):
    """One token of a page's row of tokens (token_row): the token param's option, its text as the chapter writes it,
    whether the chart opens on it, its number as readers count, whether it is the model's start token."""

    value: int
    text: str
    chosen: bool
    number: int
    start: bool


def token_param(chart: Mapping[str, Any]) -> str | None:
    """The name of the param that chooses the token in a chart compiled to Vega, or None where it has none."""
    bound = [signal["name"] for signal in chart.get("signals", []) if "bind" in signal]
    return next((name for name in bound if name in TOKEN_PARAMS), None)


def token_row(chart: Mapping[str, Any]) -> list[TokenOption]:
    """The text as a row of tokens that chooses the chart's token (the page's token row): each option of the
    token param, {"value": its number, "text": the token as the chapter writes it ("_it"), "chosen": whether the
    chart opens on it, "number": its number as readers count, "start": whether it is the model's start token};
    [] where the chart chooses no token."""
    name = token_param(chart)
    if name is None:
        return []
    signal = next(signal for signal in chart["signals"] if signal["name"] == name)
    options, labels = signal["bind"]["options"], signal["bind"].get("labels") or signal["bind"]["options"]
    return [
        {
            "value": value,
            "text": str(label).split(": ", 1)[-1],
            "chosen": value == signal.get("value"),
            "number": _number(value, label),
            "start": str(label).startswith("0: "),
        }  # readers number a start token 0
        for value, label in zip(options, labels)
    ]


def _number(value: int, label: object) -> int:
    """An option's token as readers number it: its label's number ('6: _compiler'; after a start token, one less than
    the option's value), else the value."""
    head = str(label).split(": ", 1)[0]
    return int(head) if ": " in str(label) and head.isdigit() else value


def for_script() -> dict[str, object]:
    """Everything the scripts share with the figures: {name: value}, each name as this module spells it."""
    return {
        name: list(value) if isinstance(value, tuple) else value
        for name, value in ((name, globals()[name]) for name in FOR_SCRIPTS)
    }


def script_module() -> str:
    """templates/js/shared/names.js: every name of for_script() as an exported constant of an ES module."""
    lines = [
        "// The names the pages' scripts share with the figures' Python. Written by figsite/data/shared_names.py:",
        "//   python -m figsite.data.shared_names > templates/js/shared/names.js",
        "// Do not edit: change shared_names.py and write it again (tests/unit/test_shared_names.py checks it).",
        "",
    ]
    lines += [f"export const {name} = {json.dumps(value)};" for name, value in for_script().items()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(script_module())
