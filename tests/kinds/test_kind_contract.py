"""The written contract for figure kinds (figures/kind.py): a new kind is one module and one line in the
registry. The README's example kind is taken from the README itself, registered, and built into a site."""

from __future__ import annotations

import json
import re
import types
from pathlib import Path

import pytest
from click.testing import CliRunner

import figures
from build import cli
from figsite.config import Figure
from figures.kind import Kind

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
TEXT = "Snow falls in the mountains of"


def readme_example() -> types.ModuleType:
    """The ```python block of the README's "Adding a kind", as a module."""
    section = README[README.index("## Adding a kind"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    module = types.ModuleType("figures.tokens")
    exec(compile(code, "README.md (Adding a kind)", "exec"), module.__dict__)
    return module


@pytest.fixture
def example_kind(monkeypatch) -> Kind:
    kind = readme_example().Tokens()
    monkeypatch.setitem(figures.KINDS, kind.KIND, kind)
    return kind


def test_the_readme_example_kind_builds_a_page_an_embed_a_text_figure_and_downloads(example_kind, small_model_dir,
                                                                                     tmp_path):
    config = tmp_path / "tokens.toml"
    config.write_text(f'[[figure]]\nkind = "tokens"\nlabel = "cut"\ntext = "{TEXT}"\n', encoding="utf-8")
    out = tmp_path / "site"
    result = CliRunner().invoke(cli, ["--model", str(small_model_dir), "--config", str(config), "--out", str(out),
                                      "--no-cache"])
    assert result.exit_code == 0, result.output
    for name in ("figure-cut.html", "embed-cut.html", "img/figure-cut.svg", "downloads/figure-cut-tokens.csv"):
        assert (out / name).is_file(), name
    printed = (out / "figures.txt").read_text(encoding="utf-8")
    assert printed.startswith(f"(cut) {example_kind.TITLE}\n  Snow | _falls | _in | _the | _mountains | _of\n")
    table = json.loads((out / "downloads/figure-cut.json").read_text(encoding="utf-8"))["tables"]["tokens"]
    assert [row["length"] for row in table] == [4, 6, 3, 4, 10, 3]
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "figure-cut.html" in index and "Explore further" in index


def test_a_kind_left_incomplete_says_which_member_it_lacks():
    class Incomplete(Kind):
        KIND = "incomplete"

    fig = Figure("x.toml", 1, "incomplete", "x", None, {"text": TEXT})
    for member in ("chart", "text_figure", "context"):
        expected = rf"^Incomplete \(kind 'incomplete'\) lacks {member}\(fig, run\): see figures/kind\.py$"
        with pytest.raises(NotImplementedError, match=expected):
            getattr(Incomplete(), member)(fig, run=None)


def test_check_returns_what_it_resolved_and_leaves_the_config_values_as_written():
    kind = figures.KINDS["attention"]
    fig = Figure("x.toml", 1, "attention", "l", None, {"text": TEXT, "focus": "mountains", "views": [[1, 1]]})
    tokens = {TEXT: ["Snow", " falls", " in", " the", " mountains", " of"]}
    resolved = kind.check(fig, tokens.__getitem__, {"n_layer": 2, "n_head": 2, "n_ctx": 1024})
    assert resolved == {"opening": 4, "printed_views": [[1, 1]]}
    assert fig.values == {"text": TEXT, "focus": "mountains", "views": [[1, 1]]}
    assert fig.with_resolved(resolved).opening == 4


def test_every_registered_kind_follows_the_contract():
    for name, kind in figures.KINDS.items():
        assert isinstance(kind, Kind) and kind.KIND == name
        assert kind.TITLE and kind.CAPTION and kind.GUIDE, name
        for member in ("chart", "text_figure", "context"):  # check, requests...: defaults fit some kinds
            assert getattr(type(kind), member) is not getattr(Kind, member), f"{name} lacks {member}"
