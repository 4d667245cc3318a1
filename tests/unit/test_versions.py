"""The cache's one registry of versions (figsite/data/versions.py): each namespace's version is derived from the
source of the modules that compute it and of those they import, so that an edit to a file, made in a copy of the
project, changes exactly the namespaces whose code reads it, and an edit elsewhere changes none."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from figsite.data import versions

ROOT = versions.ROOT


@pytest.fixture()
def copy(tmp_path) -> Path:
    """figsite/ and figures/ copied, to be edited."""
    for package in versions.PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def changed_by(copy: Path, file: str) -> set[str]:
    """The namespaces whose version changes when `file` (a path in the project) is edited in the copy."""
    before = {namespace: versions.version(namespace, copy) for namespace in versions.NAMESPACES}
    with (copy / file).open("a", encoding="utf-8") as handle:
        handle.write("\n# an edit\n")
    return {namespace for namespace in versions.NAMESPACES if versions.version(namespace, copy) != before[namespace]}


DRAWN = {"chart", "drawing", "first drawing", "print", "narrow"}


@pytest.mark.parametrize(
    "file, namespaces",
    [
        # the writers' module imports the drawing processes' (the downloads' and the notebooks' writers read its Site)
        ("sitegen/site/lighter.py", DRAWN | {"downloads", "notebooks"}),
        ("sitegen/site/printing.py", DRAWN | {"downloads", "notebooks"}),
        ("figures/notebook.py", {"page", "notebooks", "downloads"}),  # the cells; the writers import its writer
        ("figures/roles.py", {"page"}),  # a kind: its pages alone (their downloads are the pages' tables, kept by them)
        ("sitegen/content.py", {"page"}),
        ("sitegen/pages.py", set()),  # it asks for drawings and keys them: it computes none
        ("figsite/model/llama.py", {"live-model"}),
        ("figsite/model/__init__.py", {"live-model", "page"}),  # the BLAS's settings; the page's cache reads model.hub
        ("figsite/capture/live_export.py", {"live-model"}),
        ("figsite/data/run.py", {"page", "downloads", "loads", "live-model", "notebooks"}),
        ("sitegen/author/serve.py", set()),
        ("sitegen/cli.py", set()),
    ],
)
def test_an_edit_changes_exactly_the_namespaces_whose_code_reads_the_file(copy, file, namespaces):
    assert changed_by(copy, file) == namespaces


def test_every_file_of_a_namespace_changes_its_version_when_edited(copy):
    for namespace in versions.NAMESPACES:
        for path in versions.sources(namespace, copy)[:3]:  # a few per namespace: each edit re-reads its sources
            before = versions.version(namespace, copy)
            path.write_text(path.read_text(encoding="utf-8") + "\n# an edit\n", encoding="utf-8")
            assert versions.version(namespace, copy) != before, (namespace, path)


def test_the_registry_names_modules_that_exist():
    for namespace, modules in versions.NAMESPACES.items():
        assert len(versions.sources(namespace)) >= len(modules), namespace


def parsed_imports(path: Path) -> set[str]:
    """The reference: the project's modules a file imports, from its parsed syntax tree (what figsite reads by a
    pattern, to be quick)."""
    import ast

    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    parents = {".".join(name.split(".")[:n]) for name in names for n in range(1, name.count(".") + 1)}
    return {name for name in names | parents if name.split(".")[0] in versions.PACKAGES}


def test_the_imports_read_by_a_pattern_are_those_of_the_parsed_source_in_every_file_of_the_project():
    files = [path for package in versions.PACKAGES for path in sorted((ROOT / package).rglob("*.py"))]
    assert len(files) > 100
    differing = {
        str(path): (versions.imported(path), parsed_imports(path))
        for path in files
        if versions.imported(path) != parsed_imports(path)
    }
    assert not differing


def test_an_import_over_lines_in_brackets_with_comments_and_names_renamed_is_read_whole(tmp_path):
    source = tmp_path / "example.py"
    source.write_text(
        '"""A docstring."""\n'
        "from figures.toolkit import (  # why\n    charts as c,\n    colours,\n)\n"
        "def f():\n    import figsite.model.hub as hub, sitegen.pages\n"
        "from . import nothing\nimport json\n",
        encoding="utf-8",
    )
    assert (
        versions.imported(source)
        == parsed_imports(source)
        == {
            "figures",
            "figures.toolkit",
            "figures.toolkit.charts",
            "figures.toolkit.colours",
            "figsite",
            "figsite.model",
            "figsite.model.hub",
            "sitegen",
            "sitegen.pages",
        }
    )
