"""The names a figure asks by beyond its texts (the captured parts), and PartKind, the base of the kinds
that read a part of data/parts.json: the names a kind asks by stay the strings the run and the cache know, and a
part kind's ask, asks, entry and data file come from its PART and its `ask`. What a kind asks before its figure is
resolved (the texts, the strings, the config) is what the build reads before the model loads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from figsite.config import Figure
from figsite.data.run import DATA_FORMAT, Run
from figures import KINDS
from figsite.capture.parts import NAMES  # the registry of captured parts (no torch)
from figures.kind import Kind, PartKind
from figures.toolkit import colours

TEXT = "The river runs through Vienna, the capital of"  # 9 tokens
EVERY_KIND = Path(__file__).resolve().parents[1] / "every_kind.toml"
PAIR = ["Ice melts into water when it gets warm", "Ice melts into water when it gets hot"]


def figure(kind: str, values: dict, resolved: dict) -> Figure:
    return Figure("test.toml", 1, kind, "x", None, values).with_resolved(resolved)


FIGURES = {  # a resolved figure of each kind that asks for more than its texts' data, and what it asks (0-based)
    "readout": (figure("readout", {"text": TEXT, "target": " Austria"}, {"opening": 8}), {"readout": [[TEXT, 8]]}),
    "lens": (figure("lens", {"text": TEXT, "track": " cold"}, {"opening": 3}), {"lens": {TEXT: [" cold"]}}),
    "compare": (figure("compare", {"texts": PAIR}, {}), {"pairs": [PAIR]}),
    "scores": (
        figure("scores", {"text": TEXT, "head": [3, 1]}, {"opening": 4, "layer": 2, "head": 0}),
        {"scores": [[TEXT, 2, 0, 4]]},
    ),
    "ledger": (
        figure("ledger", {"text": TEXT, "target": " Austria", "versus": " Germany"}, {"opening": 5}),
        {"ledgers": [[TEXT, 5, " Austria", " Germany"]]},
    ),
    "knockout": (
        figure("knockout", {"text": TEXT, "target": " Austria", "heads_of": 2}, {"opening": 7, "heads_of": 1}),
        # and the read-out at its read position, which a long text keeps only where a figure asks
        {"knockouts": [[TEXT, 7, " Austria", 1]], "readout": [[TEXT, 7]]},
    ),
    "patching": (
        figure(
            "patching",
            {"clean": TEXT, "corrupted": TEXT.replace("Vienna", "Rome"), "target": " Austria", "versus": " Italy"},
            {"opening": 8},
        ),
        {"patchings": [[TEXT, TEXT.replace("Vienna", "Rome"), 8, " Austria", " Italy"]]},
    ),
    "head-roles": (
        figure("head-roles", {"text": TEXT, "seed": 3}, {"repeat_length": 40, "seed": 3}),
        {"roles": [[TEXT, 40, 3]]},
    ),
}


def test_the_names_a_figure_asks_by_are_the_ones_the_run_and_the_cache_know():
    assert set(NAMES) == {"readout", "lens", "pairs", "scores", "ledgers", "knockouts", "patchings", "roles"}


@pytest.mark.parametrize("kind", sorted(FIGURES))
def test_each_kind_asks_by_the_name_of_a_captured_part_for_what_its_resolved_figure_reads(kind):
    fig, asked = FIGURES[kind]
    assert KINDS[kind].asks(fig).parts == asked
    assert set(asked) <= set(NAMES)


@pytest.mark.parametrize("kind", sorted(FIGURES))
def test_before_its_figure_is_resolved_a_kind_asks_for_its_texts_strings_and_config_and_for_no_part_yet(kind):
    resolved, _ = FIGURES[kind]
    unresolved = resolved.with_resolved({})
    before, after = KINDS[kind].asks(unresolved), KINDS[kind].asks(resolved)
    assert (before.texts, before.strings, before.config) == (after.texts, after.strings, after.config)
    assert set(before.texts) == set(KINDS[kind].texts(resolved)) and set(before.texts) <= set(before.strings)
    assert before.config and before.config[0][0] == kind, "no config keys: a changed config would reuse the run"
    assert all(fig_value == resolved.values[key] for key, fig_value in before.config[0][1].items())
    # A lens's and a comparison's parts read nothing resolved; the others' do, and wait for it.
    assert before.parts == (after.parts if kind in ("lens", "compare") else {})


def test_the_kinds_that_read_a_part_are_part_kinds_each_naming_its_part_and_reading_data_parts_json():
    parts = {name: kind.PART for name, kind in KINDS.items() if isinstance(kind, PartKind)}
    assert parts == {
        "scores": "scores",
        "ledger": "ledgers",
        "knockout": "knockouts",
        "patching": "patchings",
        "head-roles": "roles",
    }
    for name in parts:
        assert KINDS[name].DATA_FILES == ("parts.json",)
    # a side-by-side kind may read a part of each of its models' runs: the habit across models reads their head roles
    assert all(
        kind.DATA_FILES == ()
        for kind in KINDS.values()
        if not isinstance(kind, PartKind) and kind.KIND != "habit-side-by-side"
    )
    assert KINDS["habit-side-by-side"].DATA_FILES == ("parts.json",) and KINDS["habit-side-by-side"].SIDE_BY_SIDE


def test_a_part_kinds_entry_is_the_one_of_its_part_that_answers_its_ask():
    fig, _ = FIGURES["scores"]
    answer = {"ask": [TEXT, 2, 0, 4], "q": [0.5], "k": [[1.0]], "shares": [1.0]}
    other = {"ask": [TEXT, 2, 1, 4], "q": [9.0], "k": [[9.0]], "shares": [1.0]}
    run = Run(
        model={"name": "hand-made", "n_layer": 3, "n_head": 4},
        texts={TEXT: {"format": DATA_FORMAT}},
        parts={"scores": [other, answer]},
    )
    assert KINDS["scores"].entry(fig, run) is answer


def test_a_part_kind_left_without_its_ask_says_so():
    class Unasked(PartKind):
        KIND = "unasked"
        PART = "scores"

    with pytest.raises(NotImplementedError, match=r"Unasked \(kind 'unasked'\) lacks ask\(fig\)"):
        Unasked().asks(FIGURES["scores"][0])
    assert issubclass(PartKind, Kind)


# ---------------------------------------------------------------------------------------------- the reading key

SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
KEY_CHARS = 150  # at most: the key fits three lines of a phone's column, and the chart still starts on its first screen


def every_kind_figure(kind: str) -> Figure:
    """The figure of `kind` in tests/every_kind.toml, with what a scores figure's check would resolve."""
    (values,) = [dict(f) for f in tomllib.loads(EVERY_KIND.read_text(encoding="utf-8"))["figure"] if f["kind"] == kind]
    resolved = {"opening": 4, "layer": 2, "head": 0} if kind == "scores" else {}
    return figure(kind, {key: value for key, value in values.items() if key not in ("kind", "label")}, resolved)


def hand_made_run(head_width: int) -> Run:
    return Run(model={"name": "hand-made", "n_layer": 3, "n_head": 4}, parameters={"head_width": head_width})


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_has_a_reading_key_of_one_or_two_short_sentences(kind):
    key = KINDS[kind].key(every_kind_figure(kind), hand_made_run(64))
    assert key.strip() and key == key.strip(), f"{kind}: no reading key ({key!r})"
    assert key[0].isupper() and key.endswith("."), f"{kind}: the key is not whole sentences: {key!r}"
    assert 1 <= len(SENTENCE_END.findall(key)) <= 2, f"{kind}: more than two sentences: {key!r}"
    assert len(key) <= KEY_CHARS, f"{kind}: the key has {len(key)} characters, more than {KEY_CHARS}: {key!r}"


@pytest.mark.parametrize("kind", ["ledger", "knockout", "patching"])
def test_the_keys_of_who_did_it_name_the_colours_of_helps_and_hurts_the_answer(kind):
    key = KINDS[kind].key(every_kind_figure(kind), hand_made_run(64))
    assert colours.HELPS_NAME in key.lower() and colours.HURTS_NAME in key.lower(), key
    assert key.lower().index(colours.HELPS_NAME) < key.lower().index(colours.HURTS_NAME), key


@pytest.mark.parametrize("width", [16, 64, 128])
def test_the_question_and_keys_key_counts_the_numbers_of_the_models_head(width):
    key = KINDS["scores"].key(every_kind_figure("scores"), hand_made_run(width))
    assert f"one of the head's {width} numbers" in key, key


def test_a_kind_without_its_own_key_reads_its_key_constant():
    class Plain(Kind):
        KIND = "plain"
        KEY = "Each bar is one thing."

    assert Plain().key(every_kind_figure("numbers"), hand_made_run(64)) == "Each bar is one thing."
