"""The site as files: self-contained for reading offline from disk, honest about its model, and lean."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import CONFIG_FIGURES, built, reserved_heights

from .site_loads import files_read, network_loads

EVERY_KIND = Path(__file__).resolve().parents[1] / "every_kind.toml"
PAGES = ["index.html"] + [f"figure-{figure['label']}.html" for figure in CONFIG_FIGURES]
TEXTS = {
    text
    for figure in CONFIG_FIGURES
    for text in figure.get("texts", [figure.get("text"), figure.get("clean"), figure.get("corrupted")])
    if text
}


@pytest.fixture(scope="module")
def pages(random_site) -> dict:
    return {name: (random_site / name).read_text(encoding="utf-8") for name in PAGES}


def embedded_spec(html: str, label: str) -> dict:
    match = re.search(rf'<script type="application/json" id="spec-{label}">(.*?)</script>', html, re.S)
    assert match, f"no spec for figure {label}"
    return json.loads(match.group(1))


def test_every_page_the_config_names_is_written(random_site):
    bare = [f"embed-{name[len('figure-') :]}" for name in PAGES if name.startswith("figure-")]
    written = [p.name for p in random_site.glob("*.html")]
    assert sorted(name for name in written if not name.startswith("text-")) == sorted(PAGES + bare + ["about.html"])
    # A page per text that two or more figures read on their own.
    readers = {}
    for figure in CONFIG_FIGURES:
        if "text" in figure:
            readers[figure["text"]] = readers.get(figure["text"], 0) + 1
    assert len([name for name in written if name.startswith("text-")]) == sum(n >= 2 for n in readers.values())


@pytest.fixture(scope="module")
def every_kind_live_site(small_model_dir, tmp_path_factory) -> Path:
    """tests/every_kind.toml (every registered kind) built over the small model with the live page (`--live`):
    its live.html, its scripts and the model's runtime are files of the site too."""
    from sitegen.site import live_assets

    missing = live_assets.problems()
    if missing:
        pytest.skip(f"the live page's libraries are not installed ({'; '.join(missing)}): run ./setup.sh --live")
    return built(small_model_dir, EVERY_KIND.read_text(encoding="utf-8"), tmp_path_factory.mktemp("offline"), "--live")


@pytest.mark.parametrize("which", ["the chapter", "every kind, with the live page", "the author's [site] table"])
def test_no_page_loads_anything_from_the_network(request, which):
    """Every file of the site a browser reads (every page: index, figures, texts, about, embeds, live.html; the
    CSS; every script and SVG drawing) loads nothing from the network nor from an absolute path: the site is
    read offline from disk (file://) and under any sub-path. What counts as a load, and what does not (a link the
    reader follows, an XML namespace, a canonical address): tests/builds/site_loads.py's docstring."""
    site = request.getfixturevalue(
        {
            "the chapter": "random_site",
            "every kind, with the live page": "every_kind_live_site",
            "the author's [site] table": "site_table_build",
        }[which]
    )
    read = files_read(site)
    assert read.get(".html", 0) >= 4 and read.get(".css") and read.get(".js") and read.get(".svg"), read
    if which.endswith("live page"):
        assert (site / "live.html").is_file() and read.get(".mjs"), read
    assert network_loads(site) == {}
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        for url in re.findall(r'(?:src|href)="([^"]*)"', text):
            assert not url.startswith("/"), f"{page.name} uses the absolute path {url}"
        assert "@import" not in text and "fonts.googleapis" not in text


def test_the_network_check_finds_a_load_written_in_any_of_the_ways_a_browser_reads(random_site, tmp_path):
    """A copy of the chapter's site, given one remote load at a time in each way site_loads reads, is caught each
    time; the addresses that load nothing (a link, a namespace, a canonical address, a spec's schema) are not."""
    site = tmp_path / "site"
    shutil.copytree(random_site, site)
    assert network_loads(site) == {}
    index = (site / "index.html").read_text(encoding="utf-8")
    harmless = (
        '<a href="https://example.org/book">the book</a><link rel="canonical" href="https://example.org/">'
        '<meta property="og:image" content="https://example.org/a.png">'
        '<script type="application/json">{"$schema": "https://vega.github.io/schema/vega/v6.json"}</script>'
        '<svg xmlns="http://www.w3.org/2000/svg"></svg>'
    )
    (site / "index.html").write_text(index.replace("</body>", harmless + "</body>"), encoding="utf-8")
    assert network_loads(site) == {}
    remote = "https://cdn.example.com/x"
    pages = {
        "index.html": [
            '<script src="{}"></script>',
            '<img srcset="a.png 1x, {} 2x">',
            '<link rel="preload" href="{}" as="script">',
            '<link rel="icon" href="{}">',
            '<link rel="manifest" href="{}">',
            '<meta http-equiv="refresh" content="0; url={}">',
            '<div style="background: url({})"></div>',
            '<style>@import "{}";</style>',
            '<script>fetch("{}")</script>',
            "<script>new Worker('{}')</script>",
            '<iframe src="{}"></iframe>',
            '<img src="//cdn.example.com/y">',
        ],
        "assets/site.css": ["body {{ background: url('{}') }}", '@import url("{}");'],
        "assets/figures.js": [
            'import("{}");',
            'importScripts("{}");',
            'x.open("GET", "{}");',
            'el.src = "{}";',
            'el.setAttribute("href", "{}");',
            "root.innerHTML = '<img src=\"{}\">';",
            'import {{ a }} from "{}";',
        ],
    }
    svg = next(p.relative_to(site).as_posix() for p in (site / "img").glob("*.svg"))
    pages[svg] = ['<image href="{}"/>', '<image xlink:href="{}"/>']
    clean = {name: (site / name).read_text(encoding="utf-8") for name in pages}
    for name, ways in pages.items():
        for way in ways:
            text = clean[name]
            added = way.format(remote)
            at = (
                text.rindex("</svg>")
                if name.endswith(".svg")
                else text.rindex("</body>")
                if name.endswith(".html")
                else len(text)
            )
            (site / name).write_text(text[:at] + added + text[at:], encoding="utf-8")
            assert name in network_loads(site), f"{name}: {added} is not seen"
            (site / name).write_text(clean[name], encoding="utf-8")


def test_every_local_link_and_script_points_to_a_file_in_the_site(random_site, pages):
    for name, page in pages.items():
        for url in re.findall(r'(?:src|href)="([^"#]+)"', page):
            assert (random_site / url).is_file(), f"{name} points to missing {url}"


def test_vega_is_written_once_and_shared_by_every_figure_page(random_site, pages):
    # (The data files a page loads on demand are scripts too, data/**/*.js: not bundles.)
    bundles = [
        p
        for p in random_site.rglob("*.js")
        if p.stat().st_size > 100_000 and p.relative_to(random_site).parts[0] != "data"
    ]
    assert [p.relative_to(random_site).as_posix() for p in bundles] == ["assets/vega.js"]
    for name, page in pages.items():
        if name != "index.html":  # named once by the page's script, which loads it once the page is painted
            assert page.count('<script src="assets/figures.js" data-vega="assets/vega.js"></script>') == 1, name
    assert "vegaEmbed" in (random_site / "assets" / "vega.js").read_text(encoding="utf-8")


def test_every_page_of_a_random_model_says_its_numbers_are_not_gpt2s(pages):
    for name, page in pages.items():
        assert "Not GPT-2." in page, name
        assert "A model of GPT-2 small&#39;s shape with random weights: its numbers say nothing about GPT-2." in page, (
            name
        )


def test_pages_and_data_record_the_model(random_site, pages):
    run = json.loads((random_site / "data" / "run.json").read_text(encoding="utf-8"))
    assert run["model"]["name"] == "random (seed 0)" and run["model"]["revision"] is None
    assert {"torch", "tokenizers", "device", "dtype"} <= set(run["environment"])
    for entry in run["texts"]:
        data = json.loads((random_site / entry["data"]).read_text(encoding="utf-8"))
        assert data["model"] == run["model"] and data["text"] == entry["text"]
    # Every page's footer names the model and links to the About page, which names the libraries.
    about = (random_site / "about.html").read_text(encoding="utf-8")
    assert "torch " + run["environment"]["torch"] in about
    for page in pages.values():
        assert "Computed in one run of <strong>a model of GPT-2 small&#39;s shape with random weights</strong>." in page
        assert 'href="about.html"' in page


def test_the_model_runs_once_per_distinct_text(random_site):
    run = json.loads((random_site / "data" / "run.json").read_text(encoding="utf-8"))
    texts = [entry["text"] for entry in run["texts"]]
    assert sorted(texts) == sorted(TEXTS)
    records = {"run.json"} | ({"parts.json"} if "parts" in run else set())  # the run record and its parts
    assert sorted(p.name for p in (random_site / "data").glob("*.json") if p.name not in records) == sorted(
        Path(entry["data"]).name for entry in run["texts"]
    )
    assert len(texts) == len(set(texts))


def test_pages_carry_rounded_shares_not_full_precision_dumps(pages):
    spec = embedded_spec(pages["figure-l.html"], "l")  # Vega: the datasets are its named data
    values = [row["s"] for row in next(d for d in spec["data"] if d["name"] == "shares")["values"]]
    assert values, "the attention chart carries no shares"
    assert all(round(v, 4) == v for v in values)
    assert len(pages["figure-l.html"]) < 100_000


def test_readers_count_tokens_from_1(pages):
    spec = embedded_spec(pages["figure-l.html"], "l")  # Vega: the params are its signals
    token = next(p for p in spec["signals"] if p["name"] == "token")
    assert token["value"] == 9 and token["bind"]["options"][0] == 1
    assert token["bind"]["labels"][8] == "9: _it"


def test_readout_slider_runs_over_every_stage_and_starts_after_the_last_layer(pages):
    spec = embedded_spec(pages["figure-i.html"], "i")
    stage = next(p for p in spec["signals"] if p["name"] == "stage")
    assert (stage["bind"]["min"], stage["bind"]["max"], stage["value"]) == (0, 12, 12)


def test_each_figure_page_shows_its_text_figure(random_site, pages):
    printed = (random_site / "figures.txt").read_text(encoding="utf-8")
    for name, page in pages.items():
        if name != "index.html":
            block = html.unescape(re.search(r"<pre[^>]*>(.*?)</pre>", page, re.S).group(1))
            label = re.search(r'<figure class="figure" id="figure-([^"]+)"', page).group(1)
            # As figures.txt prints it, but named by its title alone: the book's "(l)" is left out.
            assert f"({label}) {block}" in printed and not block.startswith("("), name


def test_every_chart_spec_is_valid_vega_lite_and_the_page_carries_it_compiled_to_vega(random_site, pages):
    """The build writes specs unvalidated (for speed); here each one (offered as a download) is checked against
    Vega-Lite's schema, and the page's own is Vega, compiled at build time, so the page compiles nothing."""
    import altair as alt
    import jsonschema

    schema = alt.vegalite.v6.schema.core.load_schema()
    for name, page in pages.items():
        if name.startswith("figure-"):
            label = name[len("figure-") : -len(".html")]
            spec = json.loads((random_site / "downloads" / f"figure-{label}.vega-lite.json").read_text("utf-8"))
            jsonschema.validate(spec, schema)
            compiled = embedded_spec(page, label)
            assert compiled["$schema"].startswith("https://vega.github.io/schema/vega/v"), compiled["$schema"]
            assert "marks" in compiled and "params" not in compiled, sorted(compiled)


@pytest.mark.parametrize(
    "environment, said",
    [
        (
            {"torch": "2.13.0", "tokenizers": "0.23.3", "device": "cpu", "dtype": "float32"},
            "torch 2.13.0, tokenizers 0.23.3, on cpu in float32.",
        ),
        # A run kept in the cache by an earlier version, whose model transformers ran.
        (
            {"torch": "2.4.0", "transformers": "4.45.0", "device": "cuda", "dtype": "float32"},
            "torch 2.4.0, transformers 4.45.0, on cuda in float32.",
        ),
    ],
)
def test_the_about_page_names_the_libraries_its_run_was_made_with_also_for_a_run_cached_by_an_earlier_version(
    environment, said
):
    from figsite.config import SiteInfo
    from figsite.data import paths
    from figsite.data.run import Run
    from sitegen.site import render

    run = Run(
        model={"name": "gpt2", "revision": None, "n_layer": 12, "n_head": 12, "d_model": 768},
        environment=environment,
        slugs={"A text": "a-text"},
    )
    html = (
        render.environment()
        .get_template("about.html")
        .render(
            run=run,
            others=[],
            paths=paths,
            notice=None,
            pages=[],
            checksums={},
            site=SiteInfo(),
            share=None,
            printed=[],
            notebooks=[],
            model_name=render.model_name(run),
        )
    )
    assert said in " ".join(html.split())


def test_a_text_page_keeps_the_room_of_each_chart_drawing_until_the_chart_is_drawn(random_site):
    charts = reserved_heights(random_site)
    assert charts, "the chapter's site has no text page"
    for page, label, height, drawn in charts:
        assert height == round(drawn), f"{page}: chart-{label}"
    assert {label for _, label, _, _ in charts} >= {"l", "i"}, charts


def map_of_the_model(index: str) -> dict:
    """The index's map of the model: each step's place (its class map-at-<place>) -> the pages it links, in order,
    each as (file, link text with its tags taken out)."""
    found = re.search(r'<nav class="model-map".*?</nav>', index, re.S)
    assert found, "the index has no map of the model"
    pieces = re.split(r'<(?:li|div) class="map-step map-at-([a-z-]+)">', found.group(0))
    return {
        place: [
            (href, " ".join(html.unescape(re.sub(r"<[^>]+>", "", text)).split()))
            for href, text in re.findall(r'<a href="([^"]+)">(.*?)</a>', chunk, re.S)
        ]
        for place, chunk in zip(pieces[1::2], pieces[2::2])
    }


def test_the_index_maps_every_figure_once_beside_the_step_of_the_model_its_kind_reads(pages):
    from sitegen.site.model_map import place_of
    from figures import KINDS

    steps = map_of_the_model(pages["index.html"])
    assert {"tokens", "embedding", "layer", "attention", "feed-forward", "numbers", "read-out", "model"} == set(steps)
    linked = [href for links in steps.values() for href, _ in links]
    assert sorted(linked) == sorted(f"figure-{figure['label']}.html" for figure in CONFIG_FIGURES), (
        "the map links a figure twice, misses one, or links another page"
    )
    for figure in CONFIG_FIGURES:
        kind = KINDS[figure["kind"]]
        [(place, text)] = [
            (place, text)
            for place, links in steps.items()
            for href, text in links
            if href == f"figure-{figure['label']}.html"
        ]
        assert place == place_of(kind.READS), f"{figure['label']} is at {place}; its kind reads {kind.READS}"
        assert text.endswith(kind.TITLE), f"{figure['label']}'s link in the map reads {text!r}"
