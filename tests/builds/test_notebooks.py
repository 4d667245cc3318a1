"""A notebook for every figure that offers one (--notebooks, or the config's [notebooks] table): run headless with
nbclient in a fresh kernel, each recomputes its figure with transformers alone and finds every value on the page,
on GPT-2 small's shape with random weights and on a small Llama (its start token), for texts unlike the chapter's;
a page whose data changed by one value is reported and fails; two builds give the same bytes; without the flag or
the table, nothing is written."""

from __future__ import annotations

import json
import os
import re
import shutil
import tomllib
from pathlib import Path

import pytest
from conftest import built, every_kind_strings, llama_dir
from support.shared import once

from figures import KINDS

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

EVERY_KIND = (Path(__file__).parents[1] / "every_kind.toml").read_text(encoding="utf-8")
SUFFIX = ", 🌨 東京"  # an emoji and Japanese after each of every_kind.toml's texts (positions by number hold)
# The columns each kind's notebook checks, every row of each: its count of values must be theirs
CHECKED = {
    "attention": [("shares", "s")],
    "readout": [("line", "p"), ("top", "p")],
    "lens": [("cells", "p"), ("tops", "p"), ("follow", "p")],
    "shapes": [("steps", "tokens"), ("steps", "numbers_per_token"), ("steps", "numbers")],
    "numbers": [("parts", "share"), ("parts", "count")],
    "cost": [("looks", "looks_in_one_head"), ("looks", "looks_in_all_heads")],
    "side-by-side": [("chances", "p")],
    "habit-side-by-side": [("shares", "chosen"), ("shares", "strongest")],
    "compare": [("cells", "distance")],
    "heads": [("shares", "share")],
    "find-head": [("shares", "share"), ("shares", "rank")],
    "scores": [
        *(("shares", column) for column in ("fit", "scaled", "share", "running_total", "model_share")),
        ("vectors", "value"),
    ],
    "ledger": [
        *((table, column) for table in ("parts", "heads", "neurons") for column in ("target", "versus", "difference")),
        ("layers", "p"),
        ("layers", "residual"),
    ],
    "knockout": [("knockouts", "probability")],
    "patching": [("runs", "score_difference"), ("runs", "probability")],
    "head-roles": [
        ("heads", column) for column in ("previous", "first", "self", "duplicate", "induction", "duplicate_on_text")
    ],
}
BUILD_SETTINGS = ("MKL_DYNAMIC", "OMP_DYNAMIC", "MKL_CBWR")  # set by figsite.model on import, not by a reader
MATCH = re.compile(r"all (\d+) values match the page within 1e-05")


def unlike(config: str) -> str:
    """every_kind.toml with SUFFIX after each text (texts, clean and corrupted alike, so a pair keeps its length)."""
    config = re.sub(r'^((?:text|clean|corrupted) = ".*)"$', lambda m: f'{m.group(1)}{SUFFIX}"', config, flags=re.M)
    return re.sub(
        r'^texts = \["(.*)", "(.*)"\]$',
        lambda m: f'texts = ["{m.group(1)}{SUFFIX}", "{m.group(2)}{SUFFIX}"]',
        config,
        flags=re.M,
    )


def figures_of(config: str) -> list[dict]:
    return tomllib.loads(config)["figure"]


def offering(config: str) -> list[tuple[str, str]]:
    """(kind, label) of each figure of the config whose kind offers a notebook."""
    return [(fig["kind"], fig["label"]) for fig in figures_of(config) if KINDS[fig["kind"]].NOTEBOOK]


def executed(site: Path, label: str) -> tuple[str, list]:
    """Runs the figure's notebook in a fresh kernel in the site's notebooks/ folder, as a reader's Jupyter does:
    without the math library's settings the build's import set in this process (figsite.model: its kernel would
    inherit them and compute as the build does, more alike than a reader's): (its printed words, its outputs)."""
    notebook = nbformat.read(site / "notebooks" / f"figure-{label}.ipynb", as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3")
    reader = {name: value for name, value in os.environ.items() if name not in BUILD_SETTINGS}
    try:
        client.execute(cwd=str(site / "notebooks"), env=reader)
    finally:
        outputs = [out for cell in notebook.cells if cell.cell_type == "code" for out in cell.get("outputs", [])]
    return "".join(out.get("text", "") for out in outputs), outputs


@pytest.fixture(scope="module")
def random_site(tmp_path_factory) -> Path:
    """every_kind.toml, its texts made unlike (SUFFIX), built on --model random with --notebooks."""
    return once(tmp_path_factory, "notebooks-random", lambda folder: built_random(folder, "--notebooks"))


@pytest.fixture(scope="module")
def llama_site(tmp_path_factory) -> Path:
    """every_kind.toml built with its [notebooks] table on a small Llama (a start token), whose tokenizer was
    trained on its strings."""

    def make(folder: Path) -> Path:
        model = llama_dir(folder / "model", corpus=every_kind_strings() * 30, vocab_size=700)
        return built(model, EVERY_KIND + "\n[notebooks]\n", folder)

    return once(tmp_path_factory, "notebooks-llama", make)


def built_random(folder: Path, *options: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return built("random", unlike(EVERY_KIND), folder, *options)


def assert_all_match(site: Path, kind: str, label: str) -> None:
    """The figure's notebook runs, says every value matches, checks as many as the page's checked columns hold,
    and draws the chart with the notebook's own Vega (no script from a CDN)."""
    said, outputs = executed(site, label)
    tables = json.loads((site / "downloads" / f"figure-{label}.json").read_text(encoding="utf-8"))["tables"]
    found = MATCH.search(said)
    assert found, said
    assert int(found.group(1)) == sum(len(tables[table]) for table, _ in CHECKED[kind])
    drawn = [out["data"] for out in outputs if out.get("output_type") == "display_data"]
    assert drawn and "application/vnd.vegalite.v5+json" in drawn[-1]
    assert "cdn" not in json.dumps(drawn)


@pytest.mark.parametrize(("kind", "label"), offering(EVERY_KIND))
def test_each_notebook_recomputes_its_figure_and_finds_every_value_on_the_page(random_site, kind, label):
    assert_all_match(random_site, kind, label)


@pytest.mark.parametrize(("kind", "label"), offering(EVERY_KIND))
def test_a_llamas_notebook_reads_its_start_token_with_its_own_tokenizer(llama_site, kind, label):
    assert_all_match(llama_site, kind, label)


def test_every_kind_offers_a_notebook_and_checks_named_columns():
    assert sorted(kind for kind, _ in offering(EVERY_KIND)) == sorted(CHECKED)
    assert sorted(CHECKED) == sorted(KINDS)


def test_a_figure_whose_kind_offers_no_notebook_has_none_and_the_pages_link_those_that_do(random_site):
    names = sorted(f"figure-{label}.ipynb" for _, label in offering(EVERY_KIND))
    assert sorted(p.name for p in (random_site / "notebooks").glob("*.ipynb")) == names
    assert 'href="notebooks/figure-read.ipynb"' in (random_site / "figure-read.html").read_text(encoding="utf-8")
    about = (random_site / "about.html").read_text(encoding="utf-8")
    assert re.search(r'notebooks/figure-att\.ipynb</a> \(SHA-256 <code class="checksum">[0-9a-f]{64}</code>', about)


def test_a_page_value_changed_by_one_is_reported_and_the_notebook_fails(random_site, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(random_site, site)
    data = site / "downloads" / "figure-read.json"
    content = json.loads(data.read_text(encoding="utf-8"))
    content["tables"]["line"][3]["p"] = 0.25
    data.write_text(json.dumps(content), encoding="utf-8")
    with pytest.raises(nbclient.exceptions.CellExecutionError) as failed:
        executed(site, "read")
    assert "line row 3 p: the page shows 0.25, recomputed " in str(failed.value)
    assert "values differ from the page by more than 1e-05" in str(failed.value)
    assert "is not the file the page listed" in str(failed.value)


def test_two_builds_give_the_same_notebooks_the_cached_build_too_and_no_flag_none(random_site, tmp_path):
    again = built_random(tmp_path / "again", "--notebooks")
    cached = built_random(tmp_path / "again", "--notebooks")  # the same folder: every page from the cache
    for path in (random_site / "notebooks").iterdir():  # the notebooks and the scripts that hand them to the pages
        assert (again / "notebooks" / path.name).read_bytes() == path.read_bytes(), path.name
        assert (cached / "notebooks" / path.name).read_bytes() == path.read_bytes(), path.name
    plain = built_random(tmp_path / "plain")
    assert not (plain / "notebooks").exists()
    assert "notebooks/" not in (plain / "figure-read.html").read_text(encoding="utf-8")
    assert "notebooks/" not in (plain / "about.html").read_text(encoding="utf-8")


def test_heads_whose_shares_tie_within_the_tolerance_may_stand_in_either_order(tmp_path):
    """every_kind.toml as it is, on --model random: in its find-head figure two heads' shares lie within float32's
    noise of each other at the page's sixth decimal, and the page ranks them 77 and 78 where the notebook's own
    run, ranked strictly, gives them the other way round."""
    label = next(label for kind, label in offering(EVERY_KIND) if kind == "find-head")
    site = built("random", EVERY_KIND, tmp_path, "--notebooks")
    assert_all_match(site, "find-head", label)


def test_a_notebooks_table_with_keys_is_refused_in_one_line(small_model_dir, tmp_path):
    from click.testing import CliRunner

    from build import cli

    (tmp_path / "c.toml").write_text(EVERY_KIND + "\n[notebooks]\nkinds = 1\n", encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["--model", str(small_model_dir), "--config", str(tmp_path / "c.toml"), "--out", str(tmp_path / "s")]
    )
    assert result.exit_code != 0
    assert result.output.strip().splitlines()[-1].endswith("; allowed: an empty [notebooks] table")


# A long text: above about 117 tokens, GPT-2 small's data keep only shares of 0.5% or more, each to 0.0001 (data
# format 3). LONG puts 162 tokens after a text (positions given by number hold).
SENTENCE = (
    " Every morning the baker opens his shop before the sun is up, and the street smells of warm bread and coffee."
)
LONG = "," + SENTENCE * 7
# Kinds left out of the long config: those that read no text, the lens and patching (64 tokens at most), and
# side-by-side, which a long text does not build yet (its chance is read where a long text's read-out is not kept).
SHORT_ONLY = ("numbers", "cost", "lens", "patching", "side-by-side")


def lengthened(config: str) -> str:
    """The figures of every_kind.toml whose kind reads a text that may be long, LONG after each of their texts. The
    knockout reads where the read-out figure reads, for the same reason as side-by-side's."""
    kept = [block for block in config.split("[[figure]]")[1:] if tomllib.loads(block)["kind"] not in SHORT_ONLY]
    config = re.sub(r'^(text = ".*)"$', lambda m: f'{m.group(1)}{LONG}"', "[[figure]]".join(["", *kept]), flags=re.M)
    texts = re.compile(r'^texts = \["(.*)", "(.*)"\]$', flags=re.M)
    config = texts.sub(lambda m: f'texts = ["{m.group(1)}{LONG}", "{m.group(2)}{LONG}"]', config)
    return config.replace('position = "capital"', "position = 6")


LONG_CONFIG = lengthened(EVERY_KIND)


@pytest.fixture(scope="module")
def long_site(tmp_path_factory) -> Path:
    """LONG_CONFIG built on --model random with --notebooks."""
    return once(tmp_path_factory, "notebooks-long", lambda folder: built("random", LONG_CONFIG, folder, "--notebooks"))


@pytest.mark.parametrize(("kind", "label"), offering(LONG_CONFIG))
def test_a_long_texts_notebook_checks_every_value_as_its_page_keeps_the_shares(long_site, kind, label):
    assert_all_match(long_site, kind, label)


def test_every_text_of_the_long_config_is_long_and_each_figure_links_its_notebook(long_site):
    figures = figures_of(LONG_CONFIG)
    texts = {text for fig in figures for text in fig.get("texts", [fig.get("text")])}  # compare's two, or its one
    files = [json.loads(path.read_text(encoding="utf-8")) for path in (long_site / "data").rglob("*.json")]
    formats = {data["text"]: data["format"] for data in files if "tokens" in data}  # each text's data, each model's
    assert set(formats) == texts and set(formats.values()) == {"gpt2-figures/3"}
    labels = [label for _, label in offering(LONG_CONFIG)]
    assert len(labels) == len(figures) == len(KINDS) - len(SHORT_ONLY)
    assert sorted(path.stem for path in (long_site / "notebooks").glob("*.ipynb")) == sorted(
        f"figure-{label}" for label in labels
    )
    for label in labels:
        page = (long_site / f"figure-{label}.html").read_text(encoding="utf-8")
        assert f'href="notebooks/figure-{label}.ipynb"' in page
