"""Every mark a reader can point at says what it is (issue 32, the reader review's item 3): each kind's chart in
tests/every_kind.toml, walked as its Vega-Lite download holds it, gives every visible mark a tooltip, by an encoding
or on the mark itself, its own or one its layer passes down. A line's tooltip is carried by its points (and a wide
transparent hit mark where the points are small); the marks that are pure decoration are named below, each with
its reason, so that a new mark without a tooltip fails here. The unit tests at the end show the walk failing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import built

ROOT = Path(__file__).resolve().parents[2]
EVERY_KIND = ROOT / "tests" / "every_kind.toml"
# Marks that draw a reference, not a datum: the reader points at what they mark, not at them.
REFERENCE_MARKS = {"rule"}
# Marks of one kind that are decoration, by (kind, mark type, the field of its words), each with its reason.
# Outlines (no fill: they frame a cell that has its own tooltip) and aria=False shading are decoration everywhere.
DECORATION = {
    ("attention", "text", None): "'not read yet' written over the cells out of reach: the words say it all",
    ("attention", "text", "heading"): "the words of the chart's title ('Looking from ...')",
    ("scores", "text", None): "'out of reach: comes after' written over the cells out of reach",
    ("scores", "text", "running"): "each row's share written at its end: the words are the value",
    ("heads", "text", None): "the key under the grid ('grey: out of reach ...'), words of a legend",
    ("heads", "text", "title"): "the larger head's title beside the grid ('Layer 5, head 4, larger'), a title's words",
    ("find-head", "text", "said"): "the sentence written in the chart when no token can look right, a title's words",
}


def mark_of(unit: dict) -> dict:
    mark = unit["mark"]
    return {"type": mark} if isinstance(mark, str) else mark


def invisible(mark: dict, encoding: dict) -> bool:
    """A transparent mark (a hit mark: it catches the pointer for the marks it lies under) or one drawn at no
    opacity."""
    return (
        mark.get("color") == "transparent"
        or mark.get("fill") == "transparent"
        or mark.get("opacity") == 0
        or encoding.get("opacity", {}).get("value") == 0
        or encoding.get("color", {}).get("value") == "transparent"
    )


def decoration(mark: dict) -> bool:
    """An outline (a stroke with no fill) or a shape hidden from screen readers that is not words."""
    return ("fill" in mark and mark["fill"] is None) or (mark.get("aria") is False and mark["type"] != "text")


def says(mark: dict, encoding: dict) -> bool:
    return bool(encoding.get("tooltip")) or mark.get("tooltip") not in (None, False)


def label(mark: dict, encoding: dict) -> tuple:
    """What tells a mark apart from its kind's others: its type and the field of its words."""
    text = encoding.get("text", {})
    return mark["type"], text.get("field") if isinstance(text, dict) else None


def points_say(layer: list, encoding: dict) -> bool:
    """Whether a layer's points carry a tooltip: then its line is told by them."""
    return any(
        "mark" in part
        and mark_of(part)["type"] in ("point", "circle")
        and says(mark_of(part), {**encoding, **part.get("encoding", {})})
        for part in layer
    )


def unsaid(spec, inherited: dict | None = None, told_by_points: bool = False) -> list:
    """Every visible mark of the spec that has no tooltip: (mark type, the field of its words). A line is told by
    the points layered with it where they carry one."""
    found = []
    if isinstance(spec, dict):
        encoding = {**(inherited or {}), **spec.get("encoding", {})}
        if "mark" in spec:
            mark = mark_of(spec)
            told = mark["type"] == "line" and told_by_points
            if (
                mark["type"] not in REFERENCE_MARKS
                and not told
                and not invisible(mark, encoding)
                and not decoration(mark)
                and not says(mark, encoding)
            ):
                found.append(label(mark, encoding))
        for key in ("layer", "vconcat", "hconcat", "concat"):
            for part in spec.get(key, []):
                found += unsaid(
                    part, encoding if key == "layer" else None, key == "layer" and points_say(spec["layer"], encoding)
                )
        if "spec" in spec:
            found += unsaid(spec["spec"], encoding)
    return found


@pytest.fixture(scope="module")
def downloads(small_model_dir, tmp_path_factory) -> dict:
    """Each kind of tests/every_kind.toml: its chart's Vega-Lite download."""
    import tomllib

    site = built(small_model_dir, EVERY_KIND.read_text(encoding="utf-8"), tmp_path_factory.mktemp("every-mark"))
    return {
        figure["kind"]: json.loads(
            (site / "downloads" / f"figure-{figure['label']}.vega-lite.json").read_text(encoding="utf-8")
        )
        for figure in tomllib.loads(EVERY_KIND.read_text(encoding="utf-8"))["figure"]
    }


def test_every_mark_a_reader_can_point_at_has_a_tooltip(downloads):
    found = {kind: [m for m in unsaid(spec) if (kind, *m) not in DECORATION] for kind, spec in downloads.items()}
    assert not {kind: marks for kind, marks in found.items() if marks}, found


def test_the_walk_finds_a_drawn_mark_with_no_tooltip_and_passes_a_layers_own():
    """A bare line and words fail; a line told by its points, marks under a layer's tooltip, an outline, a hit mark
    and a rule pass."""
    spec = {
        "vconcat": [
            {"layer": [{"mark": "line"}, {"mark": {"type": "point", "tooltip": True}}]},
            {"mark": {"type": "line", "point": True}},
            {"encoding": {"tooltip": [{"field": "p"}]}, "layer": [{"mark": "circle"}]},
            {
                "layer": [
                    {"mark": {"type": "rect", "fill": None, "stroke": "#000"}},
                    {"mark": {"type": "point", "color": "transparent"}},
                    {"mark": "rule"},
                    {"mark": "text", "encoding": {"text": {"field": "w"}}},
                ]
            },
        ]
    }
    assert unsaid(spec) == [("line", None), ("text", "w")]
