"""No back and forth: a cold build checks the figures against the tokens and the model once (before the weights
load, where the memory check needs what they ask), and hands those resolved figures to the run and the pages. The
live export's single load is tests/live/test_live_build.py's."""

from __future__ import annotations

from conftest import SMALL_CONFIG, built

from sitegen import pipeline


def test_a_cold_build_resolves_the_figures_once_and_a_rebuild_from_the_cache_once(
    small_model_dir, tmp_path, monkeypatch
):
    calls, resolve = [], pipeline.resolve
    monkeypatch.setattr(
        pipeline, "resolve", lambda figures, *args: calls.append(len(figures)) or resolve(figures, *args)
    )
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    cold = built(small_model_dir, SMALL_CONFIG, tmp_path / "a", "--cache", str(tmp_path / "cache"))
    assert calls == [3]
    again = built(small_model_dir, SMALL_CONFIG, tmp_path / "b", "--cache", str(tmp_path / "cache"))
    assert calls == [3, 3]
    assert (cold / "figure-l.html").read_bytes() == (again / "figure-l.html").read_bytes()
