"""A figure's page data is kept in the cache under a key that names everything it depends on: the run, the
figure's keys and resolved values, the figures' code, and the versions of Altair and vl-convert. And what a cached
rebuild reads from the cache besides (its downloads, a narrow chart's changes, the compiled templates)."""

from __future__ import annotations

import json
from importlib import metadata

import pytest

import figures
from sitegen import content as pipeline  # where the pages are gathered
from figsite.config import Figure
from figsite.data import cache, paths
from figsite.data.run import Run
from sitegen.site import render

MODEL = {
    "name": "random (seed 0)",
    "revision": None,
    "n_layer": 2,
    "n_head": 3,
    "d_model": 12,
    "vocab_size": 50257,
    "n_ctx": 1024,
}


@pytest.fixture
def charts_built(monkeypatch) -> list:
    """Counts the charts the cost kind builds."""
    kind, built = figures.KINDS["cost"], []
    original = kind.chart
    monkeypatch.setattr(kind, "chart", lambda fig, run: built.append(fig.label) or original(fig, run))
    return built


def cost_figure(lengths=(9, 1000)) -> Figure:
    return Figure("x.toml", 1, "cost", "c", None, {"lengths": list(lengths)}).with_resolved({})


def test_a_figure_is_computed_once_then_read_from_the_cache(charts_built, tmp_path):
    first = pipeline.gather_page(cost_figure(), Run(model=MODEL), tmp_path, "run-key")
    second = pipeline.gather_page(cost_figure(), Run(model=MODEL), tmp_path, "run-key")
    assert charts_built == ["c"] and first == second


def test_another_altair_version_computes_the_page_again(charts_built, tmp_path, monkeypatch):
    pipeline.gather_page(cost_figure(), Run(model=MODEL), tmp_path, "run-key")
    vl_convert, _ = pipeline.tool_versions()
    assert pipeline.tool_versions() == (metadata.version("vl-convert-python"), metadata.version("altair"))
    monkeypatch.setattr(pipeline, "tool_versions", lambda: (vl_convert, "0.0-another"))
    pipeline.gather_page(cost_figure(), Run(model=MODEL), tmp_path, "run-key")
    assert charts_built == ["c", "c"]


def test_other_keys_or_another_run_compute_the_page_again(charts_built, tmp_path):
    pipeline.gather_page(cost_figure(), Run(model=MODEL), tmp_path, "run-key")
    pipeline.gather_page(cost_figure((5, 50)), Run(model=MODEL), tmp_path, "run-key")
    pipeline.gather_page(cost_figure(), Run(model=MODEL), tmp_path, "other-run")
    assert charts_built == ["c", "c", "c"]


# ------------------------------------------------------------------------------------------- the cached rebuild
# What a cached rebuild reads from the cache rather than making again (issue 34: the cached rebuild under 0.5 s):
# each must give the bytes it would have made, and make them again where the cache does not hold them.


def test_files_kept_together_are_made_once_then_read_back(tmp_path):
    made = []

    def make() -> list[bytes]:
        made.append(1)
        return [b"a,b\n", b"{}"]

    first = cache.memo_each(tmp_path, ["downloads", "page"], ["x.csv", "x.json"], make)
    second = cache.memo_each(tmp_path, ["downloads", "page"], ["x.csv", "x.json"], make)
    assert first == second == [b"a,b\n", b"{}"] and made == [1]


def test_files_kept_together_are_all_made_again_where_one_is_damaged(tmp_path):
    cache.memo_each(tmp_path, ["downloads", "page"], ["x.csv", "x.json"], lambda: [b"a,b\n", b"{}"])
    damaged = next(path for path in (tmp_path / "assets").rglob("*") if path.is_file() and path.suffix != ".sha256")
    damaged.write_bytes(b"not what was kept")
    assert cache.memo_each(tmp_path, ["downloads", "page"], ["x.csv", "x.json"], lambda: [b"new", b"new"]) == [
        b"new",
        b"new",
    ]


def test_several_names_are_kept_where_each_name_alone_would_be(tmp_path):
    parts = ["chart", 1, {"b": "é", "a": [1.5, None]}]
    cache.keep(tmp_path, [*parts, "vega"], b"v")
    assert cache.recall_each(tmp_path, parts, ["vega", "dark"]) == [b"v", None]


def test_a_run_read_back_hands_back_its_files_as_read(tmp_path):
    run = Run(model=MODEL, parts={"p": [1]})
    run.write_files(tmp_path)
    (tmp_path / paths.PARTS).write_text('{"p": [1]}', encoding="utf-8")  # not as the run writes it: spaced
    back = Run.from_files(lambda path: (tmp_path / path).read_text(encoding="utf-8"))
    assert back.files()[paths.PARTS] == '{"p": [1]}' and back.files()[paths.RUN_RECORD] == run.files()[paths.RUN_RECORD]


def test_a_page_from_a_cached_run_names_what_it_was_computed_from(tmp_path):
    figure = Figure("x.toml", 1, "cost", "c", None, {"lengths": [9, 1000]}).with_resolved({})
    kept = pipeline.gather_page(figure, Run(model=MODEL), tmp_path, "run-key").kept_as
    assert kept and kept == pipeline.gather_page(figure, Run(model=MODEL), tmp_path, "run-key").kept_as
    assert pipeline.gather_page(figure, Run(model=MODEL), tmp_path, "other-run").kept_as != kept
    assert pipeline.gather_page(figure, Run(model=MODEL), tmp_path, None).kept_as is None


def test_the_templates_are_compiled_once_and_kept_in_the_cache(tmp_path, monkeypatch):
    first = render.environment(tmp_path).get_template("about.html")
    again = render.environment(tmp_path)
    monkeypatch.setattr(again, "compile", lambda *args, **kwargs: (_ for _ in ()).throw(AssertionError("compiled")))
    assert again.get_template("about.html").name == first.name == "about.html"


def test_templates_are_compiled_as_ever_where_the_cache_cannot_be_written(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache folder would be", encoding="utf-8")
    assert render.environment(blocked).get_template("about.html").name == "about.html"


def test_a_narrow_charts_changes_are_the_same_read_from_the_cache(tmp_path):
    from sitegen.site.writers import Site

    wide, narrow = {"width": 600, "data": [1, 2]}, {"width": 300, "data": [1, 2]}
    raw = [json.dumps(wide).encode(), json.dumps(narrow).encode()]
    from sitegen.site.built import BuiltFigure

    figure = Figure("x.toml", 1, "cost", "c", None, {"lengths": [9, 1000]}).with_resolved({})
    page = pipeline.gather_page(figure, Run(model=MODEL), tmp_path, "run-key")
    shown = []
    for _ in range(2):
        built = BuiltFigure(
            figure=figure,
            page=page,
            chart=lambda: [raw[0], raw[0]],
            drawing=lambda: [],
            narrow=lambda: [raw[1], raw[1]],
        )
        site = Site(
            run=Run(model=MODEL),
            figures=[built],
            bundle=lambda: b"",
            kept=lambda parts, names, make: cache.memo_each(tmp_path, parts, names, make),
        )
        shown.append(site.shown(page).narrow)
    assert shown[0] == shown[1] == [[["width"], 300]]


def test_a_spec_is_worked_out_once_per_object_and_again_for_another_object_equal_to_it():
    calls = []
    digest = render.PerObject(lambda spec: calls.append(1) or len(calls))
    spec, twin = {"mark": "bar"}, {"mark": "bar"}
    assert [digest(spec), digest(spec), digest(twin), digest(spec)] == [1, 1, 2, 1]
    del twin  # kept by the memo: a new object never takes its id and its result
    assert digest({"mark": "bar"}) == 3
