"""A notebook for every figure that offers one (--notebooks, or the config's [notebooks] table): run headless with
nbclient in a fresh kernel, each recomputes its figure with transformers alone and finds every value on the page,
on GPT-2 small's shape with random weights and on a small Llama (its start token), for texts unlike the chapter's;
a page whose data changed by one value is reported and fails; two builds give the same bytes; without the flag or
the table, nothing is written."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import built
from support.shared import once

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

CONFIG = """\
[[figure]]
kind = "attention"
label = "snow"
text = "Snow 🌨 falls on 東京 tonight, and the trains stop"
views = [[3, 2]]

[[figure]]
kind = "readout"
label = "river"
text = "The river runs through Vienna, the capital of"
target = " Austria"
position = 6

[[figure]]
kind = "lens"
label = "lens"
text = "The river runs through Vienna, the capital of"
track = " Austria"

[[figure]]
kind = "shapes"
label = "sizes"
text = "The river runs through Vienna, the capital of"
layers = [3, 1]
"""
CHECKED = ("shares", "line", "top", "cells", "tops", "follow")  # the tables whose every value a notebook checks
MATCH = re.compile(r"all (\d+) values match the page within 1e-05")


def executed(site: Path, label: str) -> tuple[str, list]:
    """Runs the figure's notebook in a fresh kernel in the site's notebooks/ folder: (its printed words, its outputs)."""
    notebook = nbformat.read(site / "notebooks" / f"figure-{label}.ipynb", as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3")
    try:
        client.execute(cwd=str(site / "notebooks"))
    finally:
        outputs = [out for cell in notebook.cells if cell.cell_type == "code" for out in cell.get("outputs", [])]
    return "".join(out.get("text", "") for out in outputs), outputs


@pytest.fixture(scope="module")
def random_site(tmp_path_factory) -> Path:
    """The config built on --model random with --notebooks."""
    return once(tmp_path_factory, "notebooks-random", lambda folder: built_random(folder, "--notebooks"))


def built_random(folder: Path, *options: str) -> Path:
    from click.testing import CliRunner

    from build import cli

    (folder / "nb.toml").write_text(CONFIG, encoding="utf-8")
    out = folder / "site"
    result = CliRunner().invoke(
        cli, ["--model", "random", "--config", str(folder / "nb.toml"), "--out", str(out), *options]
    )
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize("label", ["snow", "river", "lens"])
def test_each_notebook_recomputes_its_figure_and_finds_every_value_on_the_page(random_site, label):
    said, outputs = executed(random_site, label)
    tables = json.loads((random_site / "downloads" / f"figure-{label}.json").read_text(encoding="utf-8"))["tables"]
    checked = int(MATCH.search(said).group(1))
    assert checked == sum(len(rows) for name, rows in tables.items() if name in CHECKED)
    drawn = [out["data"] for out in outputs if out.get("output_type") == "display_data"]
    assert drawn and "application/vnd.vegalite.v5+json" in drawn[-1]  # the notebook's own Vega draws it
    assert "cdn" not in json.dumps(drawn)


def test_a_figure_whose_kind_offers_no_notebook_has_none_and_the_pages_link_those_that_do(random_site):
    names = ["figure-lens.ipynb", "figure-river.ipynb", "figure-snow.ipynb"]
    assert sorted(p.name for p in (random_site / "notebooks").iterdir()) == names
    assert 'href="notebooks/figure-river.ipynb"' in (random_site / "figure-river.html").read_text(encoding="utf-8")
    assert "notebooks/" not in (random_site / "figure-sizes.html").read_text(encoding="utf-8")
    about = (random_site / "about.html").read_text(encoding="utf-8")
    assert re.search(r'notebooks/figure-snow\.ipynb</a> \(SHA-256 <code class="checksum">[0-9a-f]{64}</code>', about)


def test_a_page_value_changed_by_one_is_reported_and_the_notebook_fails(random_site, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(random_site, site)
    data = site / "downloads" / "figure-river.json"
    content = json.loads(data.read_text(encoding="utf-8"))
    content["tables"]["line"][3]["p"] = 0.25
    data.write_text(json.dumps(content), encoding="utf-8")
    with pytest.raises(nbclient.exceptions.CellExecutionError) as failed:
        executed(site, "river")
    assert "line row 3 p: the page shows 0.25, recomputed " in str(failed.value)
    assert "values differ from the page by more than 1e-05" in str(failed.value)
    assert "is not the file the page listed" in str(failed.value)


def test_two_builds_give_the_same_notebooks_and_no_flag_none(random_site, tmp_path):
    (tmp_path / "again").mkdir()
    again = built_random(tmp_path / "again", "--notebooks")
    for path in (random_site / "notebooks").iterdir():
        assert (again / "notebooks" / path.name).read_bytes() == path.read_bytes(), path.name
    (tmp_path / "plain").mkdir()
    plain = built_random(tmp_path / "plain")
    assert not (plain / "notebooks").exists()
    assert "notebooks/" not in (plain / "figure-river.html").read_text(encoding="utf-8")
    assert "notebooks/" not in (plain / "about.html").read_text(encoding="utf-8")


def test_a_llamas_notebook_reads_its_start_token_with_its_own_tokenizer(llama_model_dir, tmp_path):
    config = CONFIG.split('[[figure]]\nkind = "shapes"')[0] + "\n[notebooks]\n"
    site = built(llama_model_dir, config.replace(" Austria", " the"), tmp_path)
    for label in ("snow", "river", "lens"):
        said, _ = executed(site, label)
        assert MATCH.search(said), said


def test_a_notebooks_table_with_keys_is_refused_in_one_line(small_model_dir, tmp_path):
    from click.testing import CliRunner

    from build import cli

    (tmp_path / "c.toml").write_text(CONFIG + "\n[notebooks]\nkinds = 1\n", encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["--model", str(small_model_dir), "--config", str(tmp_path / "c.toml"), "--out", str(tmp_path / "s")]
    )
    assert result.exit_code != 0
    assert result.output.strip().splitlines()[-1].endswith("; allowed: an empty [notebooks] table")
