"""The index's map of the model: every kind says where it reads the model (Kind.READS) with places of one fixed set
(figures.kind.PLACES), the map draws each of those places, and a figure is listed at the one step its kind reads,
with the layer where it reads several of a layer's parts, else with the whole model."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from sitegen.site.model_map import LAYER, MODEL, model_map, place_of
from figures import KINDS
from figures.kind import PLACES

GPT2_SMALL = {"n_layer": 12, "n_head": 12, "d_model": 768, "vocab_size": 50257}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_says_where_it_reads_the_model_with_places_of_the_fixed_set_in_their_order(kind):
    reads = KINDS[kind].READS
    assert isinstance(reads, tuple) and reads, f"{kind} declares no READS"
    assert set(reads) <= set(PLACES), f"{kind} reads {set(reads) - set(PLACES)}, not places of {PLACES}"
    assert list(reads) == sorted(set(reads), key=PLACES.index), f"{kind}'s READS repeats a place or is out of order"


def test_the_map_draws_every_place_a_kind_can_read_once():
    drawn = [step.place for step in model_map(GPT2_SMALL, []).steps()]
    assert sorted(place for place in drawn if place not in (LAYER, MODEL)) == sorted(PLACES)
    assert len(drawn) == len(set(drawn)) == len(PLACES) + 2


def test_a_figure_reading_one_place_is_listed_there_several_parts_of_a_layer_with_the_layer_more_with_the_model():
    assert place_of(("attention",)) == "attention"
    assert place_of(("read-out",)) == "read-out"
    assert place_of(("attention", "feed-forward")) == LAYER
    assert place_of(("attention", "feed-forward", "numbers")) == LAYER
    assert place_of(("embedding", "attention")) == MODEL
    assert place_of(PLACES) == MODEL
    assert place_of(()) == MODEL


def test_the_chapters_kinds_sit_where_the_chapter_says_they_read():
    # Written out by hand from the chapter: what each figure looks at, not derived from READS.
    expected = {
        "attention": "attention",
        "heads": "attention",
        "find-head": "attention",
        "scores": "attention",
        "head-roles": "attention",
        "cost": "attention",
        "readout": "read-out",
        "lens": "read-out",
        "compare": "numbers",
        "ledger": LAYER,
        "knockout": LAYER,
        "patching": LAYER,
        "shapes": MODEL,
        "numbers": MODEL,
        "side-by-side": "read-out",
        "habit-side-by-side": "attention",
    }
    assert {kind: place_of(KINDS[kind].READS) for kind in KINDS} == expected


def test_each_page_is_listed_once_in_the_index_order_at_the_step_its_kind_reads():
    pages = [SimpleNamespace(kind=kind, label=f"{kind}-{n}") for n in range(2) for kind in sorted(KINDS)]
    steps = model_map(GPT2_SMALL, pages).steps()
    listed = [page.label for step in steps for page in step.pages]
    assert sorted(listed) == sorted(page.label for page in pages)
    for step in steps:
        assert step.pages == [page for page in pages if place_of(KINDS[page.kind].READS) == step.place]


def test_the_map_says_the_models_own_sizes_in_words_true_for_one_layer_and_one_head():
    def words(model) -> str:
        return " ".join(f"{step.name} {step.does}" for step in model_map(model, []).steps())

    small = words(GPT2_SMALL)
    for said in ("A layer, 12 times", "Attention (12 heads)", "768 numbers", "50,257 tokens"):
        assert said in small
    tiny = words({"n_layer": 1, "n_head": 1, "d_model": 64, "vocab_size": 50257})
    assert "A layer " in tiny and "1 times" not in tiny and "(1 head)" in tiny and "64 numbers" in tiny
