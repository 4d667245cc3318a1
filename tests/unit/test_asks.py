"""What the figures ask of the run (figsite.data.asks.Asks), gathered from the config before the model loads
(sitegen.pipeline.gather_asks) and keying the run's cache entry: the same config gives the same key, and a change
of anything asked gives another, while a change the run does not depend on keeps it."""

from __future__ import annotations

from pathlib import Path

import pytest

from figsite.config import load_config
from figsite.data import cache
from figsite.data.asks import Asks
from figsite.errors import BuildError
from sitegen.pipeline import gather_asks
from figures import KINDS

TESTS = Path(__file__).resolve().parents[1]
EVERY_KIND = TESTS / "every_kind.toml"
IDENTITY = {"name": "random", "seed": 0}


def key_of(path: Path) -> str:
    return cache.key(IDENTITY, gather_asks(load_config(path, KINDS)), "cpu", {"texts": "v1"})


def changed(tmp_path: Path, old: str, new: str) -> Path:
    text = EVERY_KIND.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    config = tmp_path / "every_kind.toml"
    config.write_text(text.replace(old, new), encoding="utf-8")
    return config


def test_the_same_config_read_twice_asks_the_same_and_keys_the_same_entry(tmp_path):
    first, again = (gather_asks(load_config(EVERY_KIND, KINDS)) for _ in range(2))
    assert first == again and key_of(EVERY_KIND) == key_of(changed(tmp_path, "# Every kind", "# Every kind"))


@pytest.mark.parametrize(
    "old, new",
    [
        ('track = " cold"', 'track = " hot"'),  # what a lens follows
        ("heads_of = 2", "heads_of = 1"),  # a knockout's layer whose heads it takes out
        (
            'focus = "Vienna"\nhead = [3, 1]',
            'focus = "Vienna"\nhead = [3, 2]',
        ),  # the head the question-and-keys figure splits
        (
            'capital of"\ntarget = " Austria"\nposition = 6',
            'capital of"\ntarget = " Germany"\nposition = 6',
        ),  # a read-out's target
        ("position = 6", "position = 5"),  # where a long text is read out
        ('versus = " ice"', 'versus = " snow"'),  # the token a ledger compares the target with
        ('so the cook took"\ntarget', 'so a cook took"\ntarget'),  # a patching's changed text
    ],
)
def test_a_change_of_anything_asked_keys_another_entry(tmp_path, old, new):
    assert key_of(changed(tmp_path, old, new)) != key_of(EVERY_KIND)


@pytest.mark.parametrize(
    "old, new",
    [
        ('label = "ice-lens"', 'label = "ice-lens"\ncaption = "Other words."'),  # a caption
        ('position = "melts"', 'position = "water"'),  # the cell a lens opens on: the page's, not the run's
        ("focus = 4\nhead = [3, 4]", "focus = 5\nhead = [3, 4]"),  # the token the heads' grid opens on
    ],
)
def test_a_change_the_run_does_not_depend_on_keeps_the_entry(tmp_path, old, new):
    assert key_of(changed(tmp_path, old, new)) == key_of(EVERY_KIND)


def test_the_texts_are_read_once_each_in_the_configs_order_with_the_one_target_each_tracks():
    figures = load_config(EVERY_KIND, KINDS)
    asks = gather_asks(figures)
    texts = [text for fig in figures for text in KINDS[fig.kind].texts(fig)]
    assert list(asks.texts) == list(dict.fromkeys(texts))
    readout = next(fig for fig in figures if fig.kind == "readout")
    assert asks.texts[readout["text"]] == readout["target"]
    assert set(asks.strings) >= {*asks.texts, readout["target"], " cold"}  # " cold": the lens's track, named by text
    assert asks.parts == {}  # the parts come once the figures are resolved (sitegen.pipeline.with_parts)


def test_two_targets_for_one_text_are_refused_by_field(tmp_path):
    config = tmp_path / "two.toml"
    config.write_text(
        '[[figure]]\nkind = "readout"\nlabel = "a"\ntext = "Maya lives in"\ntarget = " Paris"\n'
        '[[figure]]\nkind = "readout"\nlabel = "b"\ntext = "Maya lives in"\ntarget = " France"\n',
        encoding="utf-8",
    )
    with pytest.raises(BuildError, match=r"figure 2 .*field 'target': ' France' differs from ' Paris'"):
        gather_asks(load_config(config, KINDS))


def test_the_strings_are_the_texts_their_targets_and_the_strings_named_each_once():
    asks = Asks(texts={"A b": " c", "D": None}, named=(" c", " e"))
    assert asks.strings == ["A b", "D", " c", " e"]
