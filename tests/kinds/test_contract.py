"""One contract test for every registered kind (figures.KINDS), generated: a kind added to the registry is
tested here with no new test code, only its figure in tests/every_kind.toml.

For each kind, a config of that kind's figure from tests/every_kind.toml (texts and values unlike chapter.toml's)
and, where the kind names tokens (keys of type position_or_text), a second figure with each such token named
the other way (a number for a text, a text for a number), is built over conftest's small model, every kind's figures in one config, twice: cold (an
empty --cache) and then from that cache into another --out. Both builds succeed and write the same site; each
figure has its page, its embed page, its printed figure in figures.txt and its downloads; the second build says
it used the stored run; the two ways of naming a token print the same figure.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

import figures
from build import cli
from conftest import CONFIG_FIGURES, gpt2_tokenizer, snapshot, text_blocks
from figsite.config import load_config

EVERY_KIND = Path(__file__).resolve().parents[1] / "every_kind.toml"
TOKEN_KEY = "position_or_text"  # a config key that names a token of the figure's text, by number or by text
SWAPPED = "-swapped"  # the label's suffix of the figure that names its tokens the other way
USED_THE_CACHE = "cache: using the stored run"
COLD = "cache: no run stored"


def entry_of(kind: str) -> dict:
    """The figure of `kind` in tests/every_kind.toml; fails, saying to add one, where there is none."""
    entries = [f for f in tomllib.loads(EVERY_KIND.read_text(encoding="utf-8"))["figure"] if f["kind"] == kind]
    if not entries:
        pytest.fail(
            f"kind {kind!r} is registered in figures.KINDS but tests/every_kind.toml has no figure of it: "
            f"add one [[figure]] with kind = {kind!r}, its keys given values unlike chapter.toml's "
            f"(another text, tokens by number and by text)",
            pytrace=False,
        )
    assert len(entries) == 1, f"tests/every_kind.toml has {len(entries)} figures of kind {kind!r}; keep one"
    return entries[0]


@functools.lru_cache(maxsize=None)
def token_texts(text: str) -> tuple[str, ...]:
    """The texts of the tokens of `text`, as GPT-2's tokenizer cuts it (the small model's tokenizer)."""
    tokenizer = gpt2_tokenizer()
    return tuple(tokenizer.decode([i]) for i in tokenizer.encode(text))


def named_the_other_way(value, text: str):
    """A token named by number as its text, or by text as its number; None where the other way is ambiguous
    (a token's text that reads the same as another's of the text, or an empty one)."""
    words = [t.strip() for t in token_texts(text)]
    if isinstance(value, int):
        word = words[value - 1]
        return word if word and words.count(word) == 1 else None
    matches = [i for i, word in enumerate(words) if word == value.strip()]
    return matches[0] + 1 if len(matches) == 1 else None


def swapped(kind, entry: dict) -> dict | None:
    """The entry with each token key it gives named the other way, under another label; None where the kind
    names no token (or the entry gives none)."""
    keys = [key for key, field in kind.FIELDS.items() if field.type == TOKEN_KEY and key in entry]
    if not keys:
        return None
    other = dict(entry, label=entry["label"] + SWAPPED)
    for key in keys:
        value = named_the_other_way(entry[key], entry.get("text", entry.get("clean")))  # a patching's: its clean
        if value is not None:
            other[key] = value
    changed = [key for key in keys if other[key] != entry[key]]
    assert changed, (
        f"tests/every_kind.toml: the {entry['kind']!r} figure's tokens ({', '.join(keys)}) can't be "
        f"named the other way: give at least one by a number or a text that occurs once"
    )
    return other


def toml(entries: list[dict]) -> str:
    return "".join(
        "[[figure]]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in entry.items()) for entry in entries
    )


def texts_of(entry: dict) -> set:
    return {entry[key] for key in ("text", "clean", "corrupted") if key in entry} | set(entry.get("texts", []))


def build(model: Path, config: Path, out: Path, cache: Path):
    result = CliRunner().invoke(
        cli, ["--model", str(model), "--config", str(config), "--out", str(out), "--cache", str(cache), "--verbose"]
    )
    assert result.exit_code == 0, (
        f"{out.name} build of {config.name} (exit {result.exit_code}):\n{result.output}\n{result.exception!r}"
    )
    return result.output


def assert_the_figure_is_all_there(site: Path, label: str, build_name: str) -> None:
    where = f"{build_name} build, figure {label!r}"
    for name in (
        f"figure-{label}.html",
        f"embed-{label}.html",
        f"img/figure-{label}.svg",
        f"img/figure-{label}.png",
        f"downloads/figure-{label}.json",
        f"downloads/figure-{label}.vega-lite.json",
    ):
        assert (site / name).is_file(), f"{where}: no {name}"
    tables = json.loads((site / "downloads" / f"figure-{label}.json").read_text(encoding="utf-8"))["tables"]
    assert tables, f"{where}: its downloads offer no table"
    for table in tables:
        assert (site / "downloads" / f"figure-{label}-{table}.csv").is_file(), f"{where}: no CSV of table {table!r}"
    printed = text_blocks((site / "figures.txt").read_text(encoding="utf-8"))
    assert len(printed.get(label, [])) > 1, f"{where}: figures.txt prints no figure ({label})"
    assert f'href="figure-{label}.html"' in (site / "index.html").read_text(encoding="utf-8"), (
        f"{where}: the index does not link to its page"
    )


def entries_of(kind_name: str) -> list[dict]:
    """The kind's figure of tests/every_kind.toml, checked to be unlike chapter.toml's, and the same figure with
    its tokens named the other way (where it names any)."""
    entry = entry_of(kind_name)
    chapter = [f for f in CONFIG_FIGURES if f["kind"] == kind_name]
    chapter_texts = set().union(*map(texts_of, CONFIG_FIGURES))
    assert not texts_of(entry) & chapter_texts, (
        f"tests/every_kind.toml's {kind_name!r} figure reads a text of chapter.toml: give it another"
    )
    unlike = {key: value for key, value in entry.items() if key not in ("label", "caption")}
    assert all(unlike != {k: v for k, v in f.items() if k not in ("label", "caption")} for f in chapter) or set(
        unlike
    ) == {"kind"}, f"tests/every_kind.toml's {kind_name!r} figure is chapter.toml's"
    other = swapped(figures.KINDS[kind_name], entry)
    return [entry] + ([other] if other else [])


@pytest.fixture(scope="module")
def builds(small_model_dir, tmp_path_factory) -> dict:
    """One config of every kind's figures (each kind's entries_of), built cold (an empty cache), then from that
    cache into another folder: what each kind's test reads. A kind whose entries can't be made fails its own
    test, not the others'."""
    work = tmp_path_factory.mktemp("kinds")
    entries = []
    for kind_name in sorted(figures.KINDS):
        try:
            entries += entries_of(kind_name)
        except (AssertionError, pytest.fail.Exception):
            pass  # reported by the kind's own test
    config, cache = work / "kinds.toml", work / "cache"
    config.write_text(toml(entries), encoding="utf-8")
    said = {name: build(small_model_dir, config, work / name, cache) for name in ("cold", "cached")}
    return {"folder": work, "config": config, "said": said}


def test_the_build_from_the_cache_runs_no_model_and_writes_the_same_site(builds):
    work, said = builds["folder"], builds["said"]
    assert COLD in said["cold"], f"the first build found a run in the empty cache:\n{said['cold']}"
    assert USED_THE_CACHE in said["cached"], f"the second build ran the model again:\n{said['cached']}"
    cold, cached = snapshot(work / "cold"), snapshot(work / "cached")
    assert cold == cached, "the build from the cache wrote another site: " + ", ".join(
        sorted(name for name in cold.keys() | cached.keys() if cold.get(name) != cached.get(name))
    )


@pytest.mark.parametrize("kind_name", sorted(figures.KINDS))
def test_the_kind_builds_cold_and_from_the_cache_with_every_part_of_its_figure(kind_name, builds):
    entries = entries_of(kind_name)
    (fig, *_) = [f for f in load_config(builds["config"], figures.KINDS) if f.label == entries[0]["label"]]
    work = builds["folder"]
    for site in ("cold", "cached"):
        for e in entries:
            assert_the_figure_is_all_there(work / site, e["label"], site)
    if len(entries) > 1:  # a token named by number and the same token named by text: the same printed figure
        entry, other = entries
        printed = text_blocks((work / "cached" / "figures.txt").read_text(encoding="utf-8"))
        named = {key: (entry[key], other[key]) for key in entry if entry[key] != other[key] and key != "label"}
        assert printed[entry["label"]][1:] == printed[other["label"]][1:], (
            f"naming the tokens the other way ({named}) printed another figure"
        )
    assert fig.kind == kind_name
