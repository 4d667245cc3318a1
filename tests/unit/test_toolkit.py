"""figures/toolkit/: the colours are spelled in one place, the shared fields are defined once, and no kind reads a
run's raw data (the accessors of figsite/data/run.py do)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from figures import KINDS
from figures.toolkit import colours, fields
from figures.toolkit.charts import escaped, literal

FIGURES = Path(__file__).resolve().parents[2] / "figures"
MODULES = sorted(FIGURES.rglob("*.py"))
COLOUR = re.compile(r"^#[0-9a-fA-F]{3,8}$")
RAW = [
    "run.data(",
    '["tokens"]',
    "run.model[",
    "run.parameters",
    "run.lens[",
    "run.shapes[",
    "run.texts",
    "run.comparisons",
    "run.vocab",
]


def colours_spelled(path: Path) -> list:
    return [
        node.value
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and COLOUR.match(node.value)
    ]


def test_every_colour_a_figure_gives_its_marks_is_spelled_in_colours_py_only():
    assert colours_spelled(FIGURES / "toolkit" / "colours.py")
    spelled = {
        str(path.relative_to(FIGURES)): colours_spelled(path)
        for path in MODULES
        if path != FIGURES / "toolkit" / "colours.py"
    }
    assert not {path: found for path, found in spelled.items() if found}
    assert colours.MASKED != colours.GREY != colours.MAIN != colours.ACCENT


# The notebooks' code (figures/recompute*.py) is text a notebook runs on the page's tables, not on the run
READ_RUN = [path for path in MODULES if not path.name.startswith("recompute")]


@pytest.mark.parametrize("path", READ_RUN, ids=lambda path: str(path.relative_to(FIGURES)))
def test_no_figure_module_reads_a_runs_raw_data(path):
    source = path.read_text(encoding="utf-8")
    assert not [raw for raw in RAW if raw in source], "read the run through figsite.data.run.Run's accessors"


def test_the_shared_fields_are_one_definition_each():
    assert KINDS["attention"].FIELDS["focus"] is KINDS["heads"].FIELDS["focus"] is fields.FOCUS_FIELD
    for key, shared in (("target", fields.TARGET_FIELD), ("position", fields.POSITION_FIELD)):
        assert all(KINDS[kind].FIELDS[key] is shared for kind in ("readout", "ledger", "knockout")), key
    assert all(kind.FIELDS["text"] is fields.TEXT_FIELD for kind in KINDS.values() if "text" in kind.FIELDS)
    assert fields.POSITION_FIELD.type == "position_or_text" and fields.TARGET_FIELD.required


def test_a_text_in_a_vega_expression_string_keeps_its_quotes_backslashes_and_line_breaks():
    assert literal("it's a\\b\nc") == "'it\\'s a\\\\b\\nc'"
    assert literal("x") == "'" + escaped("x") + "'"
