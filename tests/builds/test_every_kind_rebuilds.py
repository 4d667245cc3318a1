"""Every kind and key, with values unlike chapter.toml's, built twice: cold, then from the cache.

Other texts, other targets, tokens given by number and by text, a lens that follows a token no read-out
figure targets. Both builds must succeed and write the same site; the figures must show what the config asked.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from build import cli
from conftest import reserved_heights, snapshot

HOPPER = "Grace Hopper wrote the first compiler in 1952, and she kept a nanosecond of wire"
RIVER = "The river runs through Vienna, the capital of"
ICE = "Ice melts into water when it gets"

CONFIG = Path(__file__).resolve().parents[1] / "every_kind.toml"  # its texts are HOPPER, RIVER and ICE


@pytest.fixture(scope="module")
def builds(small_model_dir, tmp_path_factory) -> dict:
    """The config built cold (an empty cache), then again into another folder from the cache."""
    work = tmp_path_factory.mktemp("every-kind")
    config = CONFIG
    outputs = {}
    for name in ("cold", "cached"):
        out = work / name
        result = CliRunner().invoke(
            cli,
            [
                "--model",
                str(small_model_dir),
                "--config",
                str(config),
                "--out",
                str(out),
                "--cache",
                str(work / "cache"),
                "--verbose",
            ],
        )
        assert result.exit_code == 0, f"{name} build: {result.output}"
        outputs[name] = (out, result.output)
    return outputs


def spec_of(site: Path, label: str) -> dict:
    """The figure's chart as its Vega-Lite spec (the site offers it as a download; the page carries it compiled)."""
    return json.loads((site / "downloads" / f"figure-{label}.vega-lite.json").read_text(encoding="utf-8"))


def param(spec: dict, name: str) -> dict:
    return next(p for p in spec["params"] if p["name"] == name)


def test_every_kind_builds_cold_and_again_from_the_cache_into_the_same_site(builds):
    (cold, _), (cached, said) = builds["cold"], builds["cached"]
    assert "cache: using the stored run" in said, "the second build ran the model again"
    assert snapshot(cold) == snapshot(cached)
    labels = [
        "att",
        "read",
        "sizes",
        "count",
        "work",
        "grid",
        "ice-lens",
        "warm-or-hot",
        "who",
        "fit",
        "split",
        "without",
    ]
    assert all((cold / f"figure-{label}.html").is_file() for label in labels)


def test_a_lens_track_that_no_readout_targets_is_followed_and_opens_the_figure(builds):
    for name in ("cold", "cached"):
        site = builds[name][0]
        run = json.loads((site / "data" / "run.json").read_text(encoding="utf-8"))
        lens = next(t["lens"] for t in run["texts"] if t["text"] == f"{ICE} warm")
        cold_id = next(int(i) for i, text in run["vocab"].items() if text == " cold")
        assert cold_id in lens["tokens"], f"{name}: ' cold' is not in the follow table"
        track = param(spec_of(site, "ice-lens"), "track")
        assert track["value"] == cold_id, f"{name}: the figure opens on another token"
        assert cold_id in track["bind"]["options"]


def test_tokens_named_by_text_and_by_number_open_where_the_config_says(builds):
    site = builds["cached"][0]
    assert param(spec_of(site, "att"), "token")["value"] == 8  # "compiler" is token 8
    assert param(spec_of(site, "ice-lens"), "position")["value"] == 2  # "melts"
    who = spec_of(site, "who")
    assert param(who, "from")["value"] == 8 and param(who, "to")["value"] == 2  # from 8 (" capital") to " river"
    assert param(spec_of(site, "grid"), "token")["value"] == 4
    printed = (site / "figures.txt").read_text(encoding="utf-8")
    assert "(read) " in printed and "_Austria" in printed
    assert "looking from _compiler (token 8)" in printed
    parts = json.loads((site / "data" / "parts.json").read_text(encoding="utf-8"))
    assert [entry["ask"] for entry in parts["scores"]] == [[RIVER, 2, 0, 4]]  # "Vienna" is token 5
    ledger = parts["ledgers"][0]
    assert ledger["ask"] == [f"{ICE} warm", 3, " cold", " ice"] and ledger["versus"]["text"] == " ice"
    knockout = parts["knockouts"][0]
    assert knockout["ask"] == [RIVER, 7, " Austria", 1] and len(knockout["runs"]) == 3 + 3 + 4


def test_the_text_pages_of_both_builds_keep_the_room_of_each_chart_drawing_and_name_its_token_param(builds):
    for name in ("cold", "cached"):
        site = builds[name][0]
        charts = reserved_heights(site)
        assert {label for _, label, _, _ in charts} >= {"att", "grid"}, f"{name}: {charts}"  # Hopper's page
        for page, label, height, drawn in charts:
            assert height == round(drawn), f"{name}: {page}: chart-{label}"
        hopper = next(site.glob("text-grace-hopper*.html")).read_text(encoding="utf-8")
        for label in ("att", "grid"):  # both choose a token, by the param named token
            assert re.search(r'id="chart-%s"[^>]*?data-token-param="token"' % label, hopper, re.S), (name, label)


FIRST_DRAWING_BYTES = 200_000  # issue 44: head-roles' first drawing of 708 KB held its page's first paint back


@pytest.fixture(scope="module")
def book_sized(tmp_path_factory) -> Path:
    """The config built with `--model random`: GPT-2 small's shape (12 layers of 12 heads of 64 numbers), whose
    grids have the cells the book's have (the small model's are a tenth of that)."""
    out = tmp_path_factory.mktemp("every-kind-random") / "site"
    result = CliRunner().invoke(cli, ["--model", "random", "--config", str(CONFIG), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_no_page_of_any_kind_shows_a_first_drawing_over_200_kb(book_sized):
    """Every drawing a page shows until its chart is live (light and dark, a desktop's and a phone's: the files the
    pages name) is at most 200 KB: a dense grid is one picture in it (sitegen.site.lighter), its words vectors."""
    site = book_sized
    shown = sorted(
        {
            name
            for page in site.glob("*.html")
            for name in re.findall(r'(?:src|srcset)="img/(figure-[^"]+\.svg)"', page.read_text(encoding="utf-8"))
        }
    )
    labels = {path.name.removeprefix("figure-").removesuffix(".html") for path in site.glob("figure-*.html")}
    assert {name.removeprefix("figure-").split(".")[0] for name in shown} == labels  # every figure's drawings
    assert any(".narrow" in name for name in shown) and any(".dark" in name for name in shown)
    sizes = {name: (site / "img" / name).stat().st_size for name in shown}
    assert not {name: size for name, size in sizes.items() if size > FIRST_DRAWING_BYTES}, sizes
    # The scores' grids (640 cells a side here) are pictures, their words still words.
    for name in ("figure-fit.svg", "figure-fit.narrow-dark.svg"):
        svg = (site / "img" / name).read_text(encoding="utf-8")
        assert "<image" in svg and ">5: _Vienna</text>" in svg, name
