"""A figure's page data is kept in the cache under a key that names everything it depends on: the run, the
figure's keys and resolved values, the figures' code, and the versions of Altair and vl-convert."""

from __future__ import annotations

from importlib import metadata

import pytest

import figures
from figsite import pipeline
from figsite.config import Figure
from figsite.data.run import Run

MODEL = {"name": "random (seed 0)", "revision": None, "n_layer": 2, "n_head": 3, "d_model": 12, "vocab_size": 50257,
         "n_ctx": 1024}


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
    vl_convert, _ = pipeline.TOOL_VERSIONS
    assert pipeline.TOOL_VERSIONS == (metadata.version("vl-convert-python"), metadata.version("altair"))
    monkeypatch.setattr(pipeline, "TOOL_VERSIONS", (vl_convert, "0.0-another"))
    pipeline.gather_page(cost_figure(), Run(model=MODEL), tmp_path, "run-key")
    assert charts_built == ["c", "c"]


def test_other_keys_or_another_run_compute_the_page_again(charts_built, tmp_path):
    pipeline.gather_page(cost_figure(), Run(model=MODEL), tmp_path, "run-key")
    pipeline.gather_page(cost_figure((5, 50)), Run(model=MODEL), tmp_path, "run-key")
    pipeline.gather_page(cost_figure(), Run(model=MODEL), tmp_path, "other-run")
    assert charts_built == ["c", "c", "c"]
