"""The code stays readable in pieces: no module over 400 lines and no function over 60 in figsite/ and figures/
(docstrings and comments count: they are read too), and no module over 400 lines in the pages' scripts, templates/js/
(their functions: ESLint's max-lines-per-function, eslint.config.js, run by tests/unit/test_scripts.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULE_LINES, FUNCTION_LINES = 400, 60
SOURCES = sorted(path for package in ("figsite", "figures", "sitegen") for path in (ROOT / package).rglob("*.py"))
# The pages' ES modules; not the bundles npm run bundle writes from them (templates/generated/).
SCRIPTS = sorted((ROOT / "templates" / "js").rglob("*.js"))


def functions_of(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_module_is_over_400_lines_and_no_function_over_60(path):
    source = path.read_text(encoding="utf-8")
    assert len(source.splitlines()) <= MODULE_LINES, f"{path.name}: {len(source.splitlines())} lines"
    long = [
        f"{node.name} (line {node.lineno}): {node.end_lineno - node.lineno + 1} lines"
        for node in functions_of(ast.parse(source))
        if node.end_lineno - node.lineno + 1 > FUNCTION_LINES
    ]
    assert not long, f"{path.name}: " + "; ".join(long)


def test_the_size_check_sees_every_package_and_counts_a_long_function():
    assert {path.parent.name for path in SOURCES} >= {
        "figures",
        "figsite",
        "model",
        "capture",
        "data",
        "site",
        "author",
    }
    body = "\n".join(f"    x{n} = {n}" for n in range(FUNCTION_LINES))
    (node,) = functions_of(ast.parse(f"def long():\n{body}\n"))
    assert node.end_lineno - node.lineno + 1 == FUNCTION_LINES + 1


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_script_module_is_over_400_lines(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MODULE_LINES, f"{path.relative_to(ROOT)}: {lines} lines"


def test_the_size_check_sees_the_shared_and_the_figure_pages_scripts():
    assert {path.parent.name for path in SCRIPTS} >= {"shared", "figures"}
