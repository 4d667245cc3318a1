"""The README's tables of figure kinds and keys say what the code accepts, no more and no less (as datasette
checks its documentation against its code)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from figures import KINDS

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
ROW = re.compile(r"^\| `([a-z-]+)` \| (.*?) \| .* \|$", re.M)
KEY = re.compile(r"`([a-z_]+)(?: = [^`]*)?`")


def documented() -> dict:
    """kind -> the keys the README's kind tables give it (backticked names in the keys column)."""
    out = {}
    for kind, keys in ROW.findall(README):
        if kind in KINDS:
            out[kind] = set(KEY.findall(keys))
    return out


def test_every_kind_in_the_code_is_in_the_readme_and_no_other():
    assert set(documented()) == set(KINDS)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_key_of_a_kind_is_documented_and_every_documented_key_exists(kind):
    assert documented()[kind] == set(KINDS[kind].FIELDS), kind


def test_the_readme_shows_how_to_add_a_kind_with_the_contracts_members():
    section = README[README.index("## Adding a kind"):]
    for member in ("KIND", "FIELDS", "check", "chart", "text_figure", "context", "REGISTRY"):
        assert member in section, member
