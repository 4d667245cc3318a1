"""`python build.py --live`, as files: the figures' pages that take the reader's sentence, the model exported for
them in files under 100 MB with the checksums each page is given, the libraries from npm, live.html (the index of
those figures); a second build reads the export from the cache; without --live no trace of it; without the npm
libraries one line that names ./setup.sh --live, and the previous site kept. The numbers the page computes are tests/browser/test_live_page.py's; the export's against torch,
tests/live/test_live_export.py's."""

from __future__ import annotations

import hashlib
import html
import json
import re

import pytest
from click.testing import CliRunner
from conftest import built

from build import cli
from builds.test_names import labels_shown
from sitegen.site import live_assets
from figures.toolkit import terms
from figures.toolkit.words import shown
from reader_pages import pages_of, reader_text, unexplained

pytest.importorskip("onnx", reason="--live exports the model with onnx (pip install -e '.[live]')")
if live_assets.problems():
    pytest.skip("the live page's npm libraries are not installed (./setup.sh --live)", allow_module_level=True)

CONFIG = """\
[[figure]]
kind = "attention"
label = "look"
text = "Der Hund bellte laut, weil er hungrig war."
views = [[2, 3]]

[[figure]]
kind = "readout"
label = "guess"
text = "Der Hund bellte laut, weil er hungrig war."
target = " the"

[[figure]]
kind = "cost"
label = "sum"

[[figure]]
kind = "lens"
label = "lens"
text = "Der Hund bellte laut, weil er hungrig war."
position = 3

[[figure]]
kind = "heads"
label = "every-head"
text = "Der Hund bellte laut, weil er hungrig war."
focus = 4
"""
TEXT = "Der Hund bellte laut, weil er hungrig war."
FILE_LIMIT = 100_000_000  # bytes: what common static hosts take in one file


def live_config(site, label: str = "look") -> dict:
    """The configuration a figure's page gives its script for the reader's sentence."""
    page = (site / f"figure-{label}.html").read_text(encoding="utf-8")
    raw = re.search(r'<script type="application/json" id="live-config">(.*?)</script>', page, re.S).group(1)
    return json.loads(raw)


def counting_loads(monkeypatch) -> list:
    """Counts the model's loads from here on (figsite.capture.api.load: the run's and the live export's)."""
    from figsite.capture import api

    loads, load = [], api.load
    monkeypatch.setattr(api, "load", lambda *args, **kwargs: loads.append(args) or load(*args, **kwargs))
    return loads


@pytest.fixture(scope="module")
def live_build(small_model_dir, tmp_path_factory):
    """A cold --live build, and the model's loads it made."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        loads = counting_loads(monkeypatch)
        return built(small_model_dir, CONFIG, tmp_path_factory.mktemp("live"), "--live", "--no-cache"), loads


@pytest.fixture(scope="module")
def live_site(live_build):
    return live_build[0]


def test_a_cold_live_build_loads_the_model_once_for_the_run_and_the_export(live_build, small_model_dir):
    assert [args[0] for args in live_build[1]] == [str(small_model_dir)]


def test_the_live_page_lists_every_file_of_the_model_with_its_real_size_and_checksum(live_site):
    model = live_config(live_site)["model"]
    assert model["files"] and model["files"][0]["name"].endswith(".onnx")
    for entry in model["files"]:
        raw = (live_site / entry["path"]).read_bytes()
        assert len(raw) == entry["bytes"] < FILE_LIMIT
        assert hashlib.sha256(raw).hexdigest() == entry["sha256"]
    assert model["bytes"] == sum(entry["bytes"] for entry in model["files"])
    assert (model["n_layer"], model["n_head"], model["max_tokens"]) == (3, 4, 64)  # the small model's shape


def test_the_live_page_carries_its_libraries_from_npm_and_loads_nothing_from_the_network(live_site):
    for site_path in [*live_assets.LIVE_ASSETS, *live_assets.LIVE_SCRIPTS, "live/live.js"]:
        assert (live_site / site_path).is_file(), site_path
    for name in ("live.html", "figure-look.html"):
        page = (live_site / name).read_text(encoding="utf-8")
        assert not re.search(r'(src|href)="(https?:)?//', page), name
    assert live_config(live_site)["defaults"]["text"] == "Der Hund bellte laut, weil er hungrig war."
    assert live_config(live_site)["defaults"]["target"] == " the"


def test_the_live_page_reads_the_models_own_tokenizer_json(live_site, small_model_dir):
    from figsite.data import paths
    from figsite.model.tokens import Tokenizer

    script = (live_site / paths.LIVE_TOKENIZER).read_text(encoding="ascii")
    value = json.loads(re.search(r"^globalThis\.liveTokenizerJson = (.*);$", script, re.M).group(1))
    assert value == json.loads(Tokenizer.from_directory(small_model_dir).backend.to_str())
    page = (live_site / "figure-look.html").read_text(encoding="utf-8")
    # The page's own script at once; the tokenizer's, in order, when the reader asks (live.js, scripts.js).
    assert re.findall(r'<script src="(live/[^"]+)"', page) == ["live/live.js"]
    scripts = live_config(live_site)["scripts"]
    assert scripts.index(paths.LIVE_TOKENIZER) < scripts.index("live/tokenize.js")
    assert "gpt-tokenizer" not in page and not (live_site / "live" / "gpt-tokenizer").exists()


def test_each_figure_the_model_computes_takes_a_sentence_in_its_page_and_live_html_lists_them(live_site):
    assert 'href="live.html"' in (live_site / "index.html").read_text(encoding="utf-8")
    live_page = (live_site / "live.html").read_text(encoding="utf-8")
    others = re.search(r'<p class="live-others">(.*?)</p>', live_page, re.S).group(1)
    assert 'id="live-config"' not in live_page and "data-live-chart" not in live_page  # nothing of its own to draw
    for label, covered in (("look", True), ("guess", True), ("sum", False), ("lens", True), ("every-head", True)):
        page = (live_site / f"figure-{label}.html").read_text(encoding="utf-8")
        assert ("Try your own sentence" in page) == covered, label
        assert ('id="live-config"' in page) == covered, label
        # live.html links the figures that take a sentence, opening their form, and names the others as built.
        assert (f'href="figure-{label}.html#try-own" data-own-link' in live_page) == covered, label
        assert (f'href="figure-{label}.html"' in others) != covered, label


def own_form(site, label: str) -> dict:
    """What a figure's "Try your own sentence" opens on: its text box's text and the token to follow."""
    page = (site / f"figure-{label}.html").read_text(encoding="utf-8")
    text = re.search(r'<textarea id="live-text"[^>]*>(.*?)</textarea>', page, re.S).group(1)
    target = re.search(r'<input type="text" id="live-target" name="target" value="([^"]*)"', page).group(1)
    return {"text": html.unescape(text), "target": html.unescape(target)}


def test_each_figures_form_opens_on_its_own_text_and_the_token_it_follows(live_site):
    lens = json.loads((live_site / "downloads" / "figure-lens.json").read_text(encoding="utf-8"))["tables"]
    # The lens follows first its opening cell's top guess (it has no `track`): after the last layer, at token 3.
    lens_top = next(cell["top"] for cell in lens["cells"] if cell["after_layer"] == 3 and cell["q"] == 2)
    assert own_form(live_site, "guess") == {"text": TEXT, "target": " the"}
    form = own_form(live_site, "lens")
    assert (form["text"], shown(form["target"])) == (TEXT, lens_top)
    for label in ("look", "every-head"):  # they follow no token: the box (hidden) holds the config's (i)'s
        assert own_form(live_site, label) == {"text": TEXT, "target": " the"}
    # Each page carries its own kind's chart (and a phone's), no other.
    assert {key.removeprefix("narrow-") for key in live_config(live_site, "every-head")["charts"]} == {"heads"}
    assert {key.removeprefix("narrow-") for key in live_config(live_site, "guess")["charts"]} == {"readout"}


def test_no_page_of_a_live_site_names_a_figure_by_its_config_label(live_site):
    labels = re.findall(r'^label = "([^"]+)"', CONFIG, re.M)
    assert len(labels) == 5 and (live_site / "live.html").is_file()
    assert labels_shown(live_site, labels) == {}


def test_the_live_page_explains_every_term_it_uses_and_names_its_model_as_every_page_does(live_site):
    """The term list (figures/toolkit/terms.py) holds the live page and the index that links it as every other page
    (tests/kinds/test_terms.py); the model, from a folder here, is "the model", never GPT-2 (GPT-2's own is only
    the way the text is cut into tokens)."""
    pages = pages_of(live_site)
    assert not {name: found for name, html in pages.items() if (found := unexplained(html))}
    own = " ".join(reader_text(pages["figure-guess.html"])[0].split())
    assert "Load the model in this page" in own and "Run the model on this text" in own
    assert "GPT-2" not in own.replace("as GPT-2 does", "") and terms.SPACE in own
    live = " ".join(reader_text(pages["live.html"])[0].split())
    assert "the model runs in that page" in live and "GPT-2" not in live
    assert "the guess at every position for it" in reader_text(pages["index.html"])[0]


def test_a_build_without_live_has_no_live_page_no_model_and_no_link(small_model_dir, tmp_path):
    site = built(small_model_dir, CONFIG, tmp_path, "--no-cache")
    assert not (site / "live.html").exists() and not (site / "live").exists()
    assert not any("live.html" in page.read_text(encoding="utf-8") for page in site.glob("*.html"))


def test_a_second_live_build_reads_the_export_from_the_cache_and_writes_the_same_site(
    small_model_dir, tmp_path, monkeypatch
):
    cache = tmp_path / "cache"
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    first = built(small_model_dir, CONFIG, tmp_path / "a", "--live", "--cache", str(cache))
    files = {path.relative_to(first): path.read_bytes() for path in first.rglob("*") if path.is_file()}

    def no_export(*args, **kwargs):
        raise AssertionError("the model was exported again")

    monkeypatch.setattr("figsite.capture.live_export.export", no_export)
    loads = counting_loads(monkeypatch)
    second = built(small_model_dir, CONFIG, tmp_path / "b", "--live", "--cache", str(cache))
    assert loads == []  # the run and the export from the cache: the model never loads
    again = {path.relative_to(second): path.read_bytes() for path in second.rglob("*") if path.is_file()}
    assert again.keys() == files.keys()
    assert [path for path in files if files[path] != again[path]] == []


def test_another_text_in_the_config_measures_the_light_weights_again_and_exports_nothing_again(
    small_model_dir, tmp_path, monkeypatch
):
    cache = tmp_path / "cache"
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    first = built(small_model_dir, CONFIG, tmp_path / "a", "--live", "--cache", str(cache))

    def no_export(*args, **kwargs):
        raise AssertionError("the model was exported again")

    monkeypatch.setattr("figsite.capture.live_export.export", no_export)
    other = CONFIG.replace(TEXT, "Ice melts into water when it gets warm", 1)  # figure (l)'s text: two texts now
    second = built(small_model_dir, other, tmp_path / "b", "--live", "--cache", str(cache))
    # the same light weights, from the cache, and their error measured on the config's two texts
    assert live_config(second)["light"]["files"] == live_config(first)["light"]["files"]
    assert "on the 1 example sentence of this site's figures<" in (first / "figure-look.html").read_text(
        encoding="utf-8"
    )
    assert "on the 2 example sentences of this site's figures<" in (second / "figure-look.html").read_text(
        encoding="utf-8"
    )


def test_without_the_npm_libraries_a_live_build_ends_in_one_line_naming_setup_live_and_keeps_the_site(
    small_model_dir, tmp_path, monkeypatch
):
    site = built(small_model_dir, CONFIG, tmp_path, "--no-cache")
    kept = (site / "index.html").read_bytes()
    monkeypatch.setattr(live_assets, "NODE_MODULES", tmp_path / "node_modules")  # none there
    result = CliRunner().invoke(
        cli,
        [
            "--model",
            str(small_model_dir),
            "--config",
            str(tmp_path / "chapter.toml"),
            "--out",
            str(site),
            "--live",
            "--no-cache",
        ],
    )
    assert result.exit_code != 0
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --live:") and "./setup.sh --live" in lines[0]
    assert "onnxruntime-web" in lines[0]
    assert (site / "index.html").read_bytes() == kept and not (site / "live.html").exists()
