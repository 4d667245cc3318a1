"""The written contract for figure kinds (figures/kind.py): a new kind is one module and one line in the
registry, and a kind that needs a new activation one more module, a captured part, and one line in its registry.
docs/kinds.md's examples are taken from that page itself, registered, and built into a site."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
import types

import pytest
from click.testing import CliRunner

import figures
from build import cli
from conftest import read_doc
from figsite.config import Figure
from figures.kind import Kind

ADDING_A_KIND = read_doc("kinds.md")
TEXT = "Snow falls in the mountains of"


def readme_blocks() -> list[str]:
    """The ```python blocks of docs/kinds.md, "Adding a kind": the tokens kind, the firing part, the firing kind."""
    section = ADDING_A_KIND[ADDING_A_KIND.index("# Adding a kind") :]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def as_module(code: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(compile(code, f"docs/kinds.md (Adding a kind: {name})", "exec"), module.__dict__)
    return module


def readme_example() -> types.ModuleType:
    """docs/kinds.md's first example, the tokens kind, as a module."""
    return as_module(readme_blocks()[0], "figures.tokens")


@pytest.fixture
def example_kind(monkeypatch) -> Kind:
    kind = readme_example().Tokens()
    monkeypatch.setitem(figures.KINDS, kind.KIND, kind)
    return kind


def test_the_readme_example_kind_builds_a_page_an_embed_a_text_figure_and_downloads(
    example_kind, small_model_dir, tmp_path
):
    config = tmp_path / "tokens.toml"
    config.write_text(f'[[figure]]\nkind = "tokens"\nlabel = "cut"\ntext = "{TEXT}"\n', encoding="utf-8")
    out = tmp_path / "site"
    result = CliRunner().invoke(
        cli, ["--model", str(small_model_dir), "--config", str(config), "--out", str(out), "--no-cache"]
    )
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
        for member in ("chart", "text_figure", "context"):  # check, asks...: defaults fit some kinds
            assert getattr(type(kind), member) is not getattr(Kind, member), f"{name} lacks {member}"


@pytest.fixture
def firing(monkeypatch, tmp_path) -> Kind:
    """docs/kinds.md's second example: the part figsite/capture/parts/firing.py (from a file, as a module of the
    parts' package) with its line in NAMES, and the kind figures/firing.py with its line in the registry."""
    from figsite.capture import parts

    part_code, kind_code = readme_blocks()[1:3]
    source = tmp_path / "firing.py"
    source.write_text(part_code, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("figsite.capture.parts.firing", source)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    monkeypatch.setattr(parts, "NAMES", parts.NAMES + ("firing",))
    for cached in (parts.registered, parts.versions):
        cached.cache_clear()
    kind = as_module(kind_code, "figures.firing").Firing()
    monkeypatch.setitem(figures.KINDS, kind.KIND, kind)
    yield kind
    monkeypatch.undo()
    for cached in (parts.registered, parts.versions):
        cached.cache_clear()


def test_the_readme_kind_with_a_new_part_builds_and_counts_the_neurons_that_fire_as_the_reference_does(
    firing, small_model_dir, weights, tmp_path
):
    import torch

    import reference
    from conftest import gpt2_tokenizer

    config = tmp_path / "firing.toml"
    config.write_text(f'[[figure]]\nkind = "firing"\nlabel = "fire"\ntext = "{TEXT}"\n', encoding="utf-8")
    cache = tmp_path / "cache"
    said = {}
    for name in ("cold", "cached"):
        result = CliRunner().invoke(
            cli,
            [
                "--model",
                str(small_model_dir),
                "--config",
                str(config),
                "--out",
                str(tmp_path / name),
                "--cache",
                str(cache),
                "--verbose",
            ],
        )
        assert result.exit_code == 0, result.output
        said[name] = result.output
    assert "cache: using the stored run" in said["cached"]
    for name in ("figure-fire.html", "embed-fire.html", "img/figure-fire.svg", "downloads/figure-fire-firing.csv"):
        assert (tmp_path / "cached" / name).is_file(), name
    parts_file = json.loads((tmp_path / "cached" / "data" / "parts.json").read_text(encoding="utf-8"))
    (entry,) = parts_file["firing"]

    # The reference: each layer's neurons after GELU, worked out in float64 from the weights alone.
    ids = gpt2_tokenizer()(TEXT)["input_ids"]
    x = weights["transformer.wte.weight"][ids] + weights["transformer.wpe.weight"][torch.arange(len(ids))]
    expected = []
    for layer in range(weights.n_layer):
        p = f"transformer.h.{layer}"
        normed = reference.layer_norm(x, weights[p + ".ln_1.weight"], weights[p + ".ln_1.bias"], weights.eps)
        x = x + reference.attention_layer(normed, weights, layer)[0]
        normed = reference.layer_norm(x, weights[p + ".ln_2.weight"], weights[p + ".ln_2.bias"], weights.eps)
        neurons = reference.gelu_new(reference.conv1d(normed, weights, p + ".mlp.c_fc"))  # (position, d_mlp)
        expected.append((neurons > 0).sum(dim=-1).tolist())
        x = x + reference.conv1d(neurons, weights, p + ".mlp.c_proj")
    assert entry == {"ask": [TEXT], "firing": expected}
    printed = (tmp_path / "cached" / "figures.txt").read_text(encoding="utf-8")
    assert printed.startswith(f"(fire) {firing.TITLE}\n  layer  1: ")
