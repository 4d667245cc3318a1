"""A figure's notebook opens where the reader is (issue 48, point 3): the page's link saves the notebook with its
STATE cell holding the chart's choices as the address holds them, so that the notebook's chart opens there; a chart
as it opens saves the build's own file, byte for byte."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest

from conftest import built
from tests.support.shared import once

from .browsing import Opener

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

CONFIG = """\
[[figure]]
kind = "attention"
label = "snow"
text = "Snow 🌨 falls on 東京 tonight, and the trains stop"
views = [[3, 2], [1, 4]]

[notebooks]
"""

# Every bound param of the page's chart: its name, its value now, and a value it allows other than that one.
OTHER_VALUES = """() => document.querySelector('[data-spec]').boundParams.map(p => {
  const now = document.querySelector('[data-spec]').vegaView.signal(p.name);
  const other = p.bind.options ? p.bind.options.find(o => String(o) !== String(now)) : p.bind.max;
  return [p.name, other];
})"""


@pytest.fixture(scope="module")
def site(small_model_dir, tmp_path_factory) -> Path:
    return once(tmp_path_factory, "notebook-state", lambda folder: built(small_model_dir, CONFIG, folder))


def saved_notebook(opener: Opener, target: str) -> bytes:
    """The notebook the page's link saves, opened at `target` (a page and its address)."""
    visit = opener.open(target)
    with visit.page.expect_download() as saving:
        visit.page.click("a[data-notebook]")
    return Path(saving.value.path()).read_bytes()


def state_of(notebook: bytes) -> dict:
    """The STATE the notebook's parameters cell holds (a Python dict literal)."""
    cells = json.loads(notebook)["cells"]
    (cell,) = [c for c in cells if "parameters" in c["metadata"].get("tags", [])]
    source = "".join(cell["source"])
    return ast.literal_eval(source.splitlines()[0].removeprefix("STATE = "))


def test_a_chart_as_it_opens_saves_the_builds_own_notebook(browser, site):
    opener = Opener(browser, site)
    try:
        saved = saved_notebook(opener, "figure-snow.html")
    finally:
        opener.close()
    assert saved == (site / "notebooks" / "figure-snow.ipynb").read_bytes()


def test_the_notebook_saved_from_an_address_opens_its_chart_there(browser, site, tmp_path):
    opener = Opener(browser, site)
    try:
        chosen = dict(opener.open("figure-snow.html").page.evaluate(OTHER_VALUES))
        address = "&".join(f"{name}={value}" for name, value in chosen.items())
        saved = saved_notebook(opener, f"figure-snow.html#{address}")
    finally:
        opener.close()
    assert chosen and state_of(saved) == chosen
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    (copy / "notebooks" / "figure-snow.ipynb").write_bytes(saved)
    notebook = nbformat.reads(saved.decode("utf-8"), as_version=4)
    nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3").execute(cwd=str(copy / "notebooks"))
    drawn = [out["data"] for cell in notebook.cells for out in cell.get("outputs", []) if "data" in out]
    spec = drawn[-1]["application/vnd.vegalite.v5+json"]
    opening = {p["name"]: p.get("value") for p in spec["params"] if "bind" in p}
    assert {name: opening[name] for name in chosen} == chosen
    said = "".join(out.get("text", "") for cell in notebook.cells for out in cell.get("outputs", []))
    assert "values match the page" in said
