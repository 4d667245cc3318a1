"""Figures "heads" (every head at a glance) and "find-head" (which head links two words), checked against the
independent reference (tests/reference.py) on the small seeded model (conftest's small_model_dir).

One build serves the module: three texts, one of them longer than figures.heads.MAX_BLOCKS tokens (its squares
are drawn in blocks of tokens). What the pages carry (the spec embedded in each page), the grid's picture, the
printed figures and the words on the page are compared with the reference's attention; bad input ends with one
line and exit code 2. tests/browser/test_heads_and_findhead_pages.py drives both pages in headless Chromium.

The two kinds are registered here for the module (figures.KINDS is the dict the build reads), so the tests run
whether or not figures/__init__.py lists them yet.
"""

from __future__ import annotations

import base64
import json
import math
import re
import struct
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner

import figures
import reference as ref_lib
from build import cli
from conftest import SMALL_SHAPE, built, text_blocks
from figsite.data.run import PER_SHARE
from figures import findhead, heads, picture
from figures.toolkit.words import shown, whole_percent

N_LAYER, N_HEAD = SMALL_SHAPE["n_layer"], SMALL_SHAPE["n_head"]
N_HEADS = N_LAYER * N_HEAD
TOLERANCE = 1e-4  # shares in a page: within 1e-4 of the reference
TIE = 2e-4  # two heads whose reference shares are this close may come in either order

ANIMAL = "The animal didn't cross the street because it was too tired"  # 12 tokens; "it" is token 9
PARIS = "Maya lives in Paris, the capital of"  # 9 tokens: May a lives in Paris , the capital of
RIVER = (
    "The river runs slowly through the old town, past the mill and the market square, and every morning the "
    "baker opens his shop before the sun is up."
)  # more than MAX_BLOCKS tokens: drawn in blocks

CONFIG = f'''\
[[figure]]
kind = "heads"
label = "grid"
text = "{ANIMAL}"
focus = "it"
head = [2, 3]

[[figure]]
kind = "find-head"
label = "fh"
text = "{PARIS}"
from = "of"
to = "Paris"
top = 5

[[figure]]
kind = "find-head"
label = "fh-all"
text = "{ANIMAL}"
top = {N_HEADS}

[[figure]]
kind = "heads"
label = "grid-blocks"
text = "{RIVER}"
'''


# ---------------------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module", autouse=True)
def kinds():
    """The two kinds in the dict the build reads (a no-op once figures/__init__.py registers them)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(figures.KINDS, heads.Heads.KIND, heads.Heads())
        patch.setitem(figures.KINDS, findhead.FindHead.KIND, findhead.FindHead())
        yield


@pytest.fixture(scope="module")
def site(small_model_dir, tmp_path_factory) -> Path:
    return built(small_model_dir, CONFIG, tmp_path_factory.mktemp("heads-findhead"))


@pytest.fixture(scope="module")
def run_data(site) -> dict:
    """Each text's data file, by text."""
    record = json.loads((site / "data" / "run.json").read_text(encoding="utf-8"))
    return {entry["text"]: json.loads((site / entry["data"]).read_text(encoding="utf-8")) for entry in record["texts"]}


@pytest.fixture(scope="module")
def refs(small_model_dir, run_data) -> dict:
    """The reference's attention (layers, heads, query, key) for each text, from the token ids the build used."""
    weights = ref_lib.load_weights(small_model_dir)
    return {
        text: ref_lib.forward(weights, [t["id"] for t in data["tokens"]]).attention for text, data in run_data.items()
    }


@pytest.fixture(scope="module")
def printed(site) -> dict:
    return text_blocks((site / "figures.txt").read_text(encoding="utf-8"))


def embedded_spec(site: Path, label: str) -> dict:
    """The figure's chart as its Vega-Lite spec (the site offers it as a download; the page carries it compiled)."""
    return json.loads((site / "downloads" / f"figure-{label}.vega-lite.json").read_text(encoding="utf-8"))


def param(spec: dict, name: str) -> dict:
    return next(p for p in spec["params"] if p["name"] == name)


def tokens_of(run_data: dict, text: str) -> list:
    return [t["text"] for t in run_data[text]["tokens"]]


def triangle(units: list, n: int) -> list:
    """A square's rows from the page's flat list (query 0 first, keys 0..query each, units of 1e-4)."""
    assert len(units) == n * (n + 1) // 2, "a square holds exactly the cells a token can see: none after it"
    rows, at = [], 0
    for q in range(n):
        rows.append([u / PER_SHARE for u in units[at : at + q + 1]])
        at += q + 1
    return rows


def ranked_reference(att, looking: int, looked_at: int) -> list:
    """(layer, head, share), 1-based, by the reference's share, largest first."""
    out = [(l + 1, h + 1, float(att[l, h, looking, looked_at])) for l in range(N_LAYER) for h in range(N_HEAD)]
    return sorted(out, key=lambda t: (-t[2], t[0], t[1]))


def assert_same_ranking(got: list, att, looking: int, looked_at: int, tolerance: float = TOLERANCE) -> None:
    """`got` [(layer, head, share)] ranks the heads as the reference does, ties aside, with its shares."""
    want = ranked_reference(att, looking, looked_at)
    assert len(got) <= len(want)
    for rank, ((layer, head, share), (_, _, want_share)) in enumerate(zip(got, want), start=1):
        ref_share = float(att[layer - 1, head - 1, looking, looked_at])
        assert abs(share - ref_share) <= tolerance, f"rank {rank}: layer {layer}, head {head}: {share} vs {ref_share}"
        assert ref_share >= want_share - TIE, (
            f"rank {rank}: layer {layer}, head {head} ({ref_share}) is not the reference's rank {rank} ({want_share})"
        )


# ---------------------------------------------------------------------------------------------- the grid


def read_png(data_url: str) -> tuple[int, int, list, list]:
    """(width, height, rows of palette indices, palette [(r, g, b, a)]) of an 8-bit palette PNG data URL."""
    raw = base64.b64decode(data_url.removeprefix("data:image/png;base64,"))
    assert raw[:8] == b"\x89PNG\r\n\x1a\n"
    at, chunks = 8, {}
    while at < len(raw):
        length, tag = struct.unpack(">I4s", raw[at : at + 8])
        body = raw[at + 8 : at + 8 + length]
        assert zlib.crc32(tag + body) & 0xFFFFFFFF == struct.unpack(">I", raw[at + 8 + length : at + 12 + length])[0]
        chunks[tag] = chunks.get(tag, b"") + body
        at += 12 + length
    width, height, depth, colour_type = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    assert (depth, colour_type) == (8, 3), "an 8-bit palette image"
    plte, alpha = chunks[b"PLTE"], chunks.get(b"tRNS", b"")
    palette = [(*plte[i : i + 3], alpha[i // 3] if i // 3 < len(alpha) else 255) for i in range(0, len(plte), 3)]
    pixels = zlib.decompress(chunks[b"IDAT"])
    rows = []
    for y in range(height):
        line = pixels[y * (width + 1) : (y + 1) * (width + 1)]
        assert line[0] == 0, "rows without a filter"
        rows.append(list(line[1:]))
    return width, height, rows, palette


def image_url(spec: dict) -> str:
    found = []

    def walk(node):
        if isinstance(node, dict):
            mark = node.get("mark")
            if isinstance(mark, dict) and mark.get("type") == "image":
                found.append(mark["url"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)
    assert len(found) == 1, "one picture of the grid"
    return found[0]


def test_every_square_carries_the_references_shares_and_nothing_after_the_query(site, run_data, refs):
    spec = embedded_spec(site, "grid")
    n = len(tokens_of(run_data, ANIMAL))
    att = refs[ANIMAL]
    rows = spec["datasets"]["panels"]
    assert sorted((r["l"], r["h"]) for r in rows) == [(l, h) for l in range(N_LAYER) for h in range(N_HEAD + 1)]
    worst = 0.0
    for r in rows:
        square = triangle(r["u"], n)
        for q in range(n):
            for k in range(q + 1):
                want = float(att[r["l"], :, q, k].mean()) if r["h"] == N_HEAD else float(att[r["l"], r["h"], q, k])
                worst = max(worst, abs(square[q][k] - want))
    assert worst <= TOLERANCE, f"a share in the page is {worst:.2e} from the reference"


def test_the_grid_picture_draws_out_of_reach_cells_grey_and_the_others_by_their_share(site, run_data, refs):
    spec = embedded_spec(site, "grid")
    n = len(tokens_of(run_data, ANIMAL))
    att = refs[ANIMAL]
    width, height, pixels, palette = read_png(image_url(spec))
    gap = max(1, round(n / 4))
    step = n + gap
    scale = width // ((N_HEAD + 1) * step)
    assert (width, height) == ((N_HEAD + 1) * step * scale, (N_LAYER * step - gap) * scale)
    grey = tuple(int(heads.MASKED[i : i + 2], 16) for i in (1, 3, 5))
    assert grey != picture.viridis(0.0)
    for layer in range(N_LAYER):
        for head in range(N_HEAD + 1):
            left, top = head * step + (gap if head == N_HEAD else 0), layer * step
            for q in range(n):
                for k in range(n):
                    colour = palette[pixels[(top + q) * scale][(left + k) * scale]]
                    assert colour[3] == 255, "every cell of a square is opaque"
                    if k > q:
                        assert colour[:3] == grey, f"layer {layer + 1}, square {head + 1}: cell ({q}, {k}) out of reach"
                        continue
                    share = float(att[layer, :, q, k].mean()) if head == N_HEAD else float(att[layer, head, q, k])
                    want = picture.viridis(share)
                    assert colour[:3] != grey
                    assert max(abs(a - b) for a, b in zip(colour[:3], want)) <= 4, (layer, head, q, k, colour, want)
    gap_colour = palette[pixels[0][(n + gap // 2) * scale]]
    assert gap_colour[3] == 0, "the gaps between squares are transparent"


def test_the_viridis_of_the_picture_is_vegas():
    # Vega's scheme has 31 stops, interpolated in RGB: t = 0, 1/2 and 1 fall on stops 0, 15 and 30, and
    # t = 1/60 halfway between stops 0 and 1 (the browser test compares with Vega itself)
    assert picture.viridis(0.0) == (0x44, 0x01, 0x54)
    assert picture.viridis(0.5) == (0x21, 0x91, 0x8D)
    assert picture.viridis(1.0) == (0xFD, 0xE7, 0x25)
    assert picture.viridis(1 / 60) == (round((0x44 + 0x47) / 2), round((0x01 + 0x0E) / 2), round((0x54 + 0x61) / 2))


def test_a_long_text_is_drawn_in_blocks_whose_cells_are_the_references_averages(site, run_data, refs):
    spec = embedded_spec(site, "grid-blocks")
    n = len(tokens_of(run_data, RIVER))
    assert n > heads.MAX_BLOCKS
    size = math.ceil(n / heads.MAX_BLOCKS)
    blocks = math.ceil(n / size)
    att = refs[RIVER]
    token = param(spec, "token")
    assert token["bind"]["options"] == list(range(1, n + 1, size))
    worst = 0.0
    for r in spec["datasets"]["panels"]:
        square = triangle(r["u"], blocks)
        pattern = att[r["l"]].mean(0) if r["h"] == N_HEAD else att[r["l"], r["h"]]
        for Q in range(blocks):
            queries = range(Q * size, min(n, (Q + 1) * size))
            for K in range(Q + 1):
                want = sum(float(pattern[q, K * size : (K + 1) * size].sum()) for q in queries) / len(queries)
                worst = max(worst, abs(square[Q][K] - want))
    assert worst <= TOLERANCE


def test_the_heads_controls_open_on_the_config_and_count_from_1(site):
    spec = embedded_spec(site, "grid")
    assert param(spec, "layer")["value"] == 2 and param(spec, "layer")["bind"]["options"] == [1, 2, 3]
    head = param(spec, "head")
    assert head["value"] == 3 and head["bind"]["options"] == [1, 2, 3, 4, heads.AVERAGE]
    token = param(spec, "token")
    assert token["value"] == 9 and token["bind"]["labels"][8] == "9: _it"
    assert "description" in [p["name"] for p in spec["params"]]


def test_the_heads_text_figure_names_each_heads_hardest_look_from_the_focus(printed, run_data, refs):
    lines = printed["grid"]
    assert lines[0] == f"(grid) {heads.Heads.TITLE}"
    tokens = tokens_of(run_data, ANIMAL)
    att = refs[ANIMAL]
    q = 8  # "it"
    layer_lines = [line for line in lines if re.match(r"\s+layer\s+\d", line)]
    assert len(layer_lines) == N_LAYER
    for layer, line in enumerate(layer_lines):
        cells = re.findall(r"h(\d+) (\S+) (\d+)%", line)
        assert [int(h) for h, _, _ in cells] == list(range(1, N_HEAD + 1)), line
        for head, (_, token, percent) in enumerate(cells):
            row = [float(x) for x in att[layer, head, q, : q + 1]]
            best = max(row)
            assert int(percent) == whole_percent(best) or abs(int(percent) - best * 100) <= 0.51, line
            named = [k for k in range(q + 1) if shown(tokens[k]) == token]
            assert named and max(row[k] for k in named) >= best - TIE, f"layer {layer + 1}, h{head + 1}: {token}"


def test_the_heads_page_names_the_hardest_look_of_all_heads(site, run_data, refs):
    html = (site / "figure-grid.html").read_text(encoding="utf-8")
    att = refs[ANIMAL]
    q = 8
    best = max(float(att[l, h, q, k]) for l in range(N_LAYER) for h in range(N_HEAD) for k in range(q + 1))
    assert "Guess first: of all 12 heads, which one looks hardest from _it (token 9) to a single token?" in html
    match = re.search(r"Layer (\d), head (\d): it gives (\S+) \(token (\d+)\) (\d+)% of the attention of _it", html)
    assert match, "the answer names the hardest look"
    layer, head, _, key, percent = (int(g) if g.isdigit() else g for g in match.groups())
    assert f'href="#layer={layer}&amp;head={head}&amp;token=9"' in html
    assert float(att[layer - 1, head - 1, q, key - 1]) >= best - TIE
    assert percent == whole_percent(float(att[layer - 1, head - 1, q, key - 1]))


# ---------------------------------------------------------------------------------------------- find-head


def pair_shares(spec: dict, looking: int, looked_at: int) -> list:
    """(layer, head, share), 1-based, as the page holds them for one pair (0-based positions)."""
    start = param(spec, "offsets")["value"][looking]
    assert start >= 0, f"token {looking + 1} is not offered"
    return [(r["l"] + 1, r["h"] + 1, r["u"][start + looked_at] / PER_SHARE) for r in spec["datasets"]["heads"]]


@pytest.mark.parametrize("label,text", [("fh", PARIS), ("fh-all", ANIMAL)])
def test_find_head_carries_every_pairs_shares_and_ranks_them_as_the_reference(site, run_data, refs, label, text):
    spec = embedded_spec(site, label)
    att = refs[text]
    n = len(tokens_of(run_data, text))
    assert param(spec, "from")["bind"]["options"] == list(range(1, n + 1))
    assert param(spec, "to")["bind"]["options"] == list(range(1, n + 1))
    descriptions = param(spec, "descriptions")["value"]
    assert len(descriptions) == n * (n + 1) // 2
    for looking in range(n):
        for looked_at in range(looking + 1):
            shares = pair_shares(spec, looking, looked_at)
            for layer, head, share in shares:
                assert abs(share - float(att[layer - 1, head - 1, looking, looked_at])) <= TOLERANCE
            ranked = sorted(shares, key=lambda t: (-t[2], t[0], t[1]))
            assert_same_ranking(ranked, att, looking, looked_at)
            said = descriptions[f"{looking + 1}|{looked_at + 1}"]
            first = re.search(r": layer (\d), head (\d) gives (\d+)%", said)
            assert first, said
            top = ranked_reference(att, looking, looked_at)[0][2]
            assert float(att[int(first[1]) - 1, int(first[2]) - 1, looking, looked_at]) >= top - TIE


def test_find_head_opens_on_the_config_and_its_defaults(site, run_data):
    fh = embedded_spec(site, "fh")
    assert (param(fh, "from")["value"], param(fh, "to")["value"]) == (9, 5)  # "of" and "Paris"
    every = embedded_spec(site, "fh-all")
    assert (param(every, "from")["value"], param(every, "to")["value"]) == (len(tokens_of(run_data, ANIMAL)), 1)


@pytest.mark.parametrize(
    "label,text,looking,looked_at,top", [("fh", PARIS, 8, 4, 5), ("fh-all", ANIMAL, 11, 0, N_HEADS)]
)
def test_the_find_head_text_figure_is_the_references_ranking(printed, refs, label, text, looking, looked_at, top):
    lines = printed[label]
    assert lines[0] == f"({label}) {findhead.FindHead.TITLE}"
    ranked = [re.fullmatch(r"\s+(\d+)\. layer (\d+), head (\d+)\s+(\d+)%", line) for line in lines[3:]]
    assert all(ranked) and len(ranked) == top, lines
    assert [int(m[1]) for m in ranked] == list(range(1, top + 1))
    got = [(int(m[2]), int(m[3]), float(refs[text][int(m[2]) - 1, int(m[3]) - 1, looking, looked_at])) for m in ranked]
    assert_same_ranking(got, refs[text], looking, looked_at)
    for m, (_, _, share) in zip(ranked, got):
        assert abs(int(m[4]) - share * 100) <= 0.51


def test_the_find_head_page_says_which_head_looks_hardest(site, refs):
    html = (site / "figure-fh.html").read_text(encoding="utf-8")
    match = re.search(
        r"Of all 12 heads, layer (\d), head (\d) looks hardest from _of \(token 9\) back to _Paris "
        r"\(token 5\): (\d+)% of its attention",
        html,
    )
    assert match, "the finding in words"
    top = ranked_reference(refs[PARIS], 8, 4)[0][2]
    share = float(refs[PARIS][int(match[1]) - 1, int(match[2]) - 1, 8, 4])
    assert share >= top - TIE and int(match[3]) == whole_percent(share)
    # The other words name the pair the chart opens on: a reader may have chosen another by the time they read them.
    assert "Where the chart opens, from _of (token 9) back to _Paris (token 5), the next are " in html
    assert "There, on average over all 12 heads, _of gives _Paris " in html


# ---------------------------------------------------------------------------------------------- bad input


def figure(**fields) -> str:
    return "[[figure]]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in fields.items())


@pytest.mark.parametrize(
    "fields,key,phrase",
    [
        (dict(kind="find-head", label="x", text=PARIS, **{"from": "Paris", "to": "capital"}), "to", "comes after"),
        (dict(kind="find-head", label="x", text=PARIS, **{"from": 3, "to": 4}), "to", "no token looks to the right"),
        (dict(kind="find-head", label="x", text=PARIS, top=0), "top", "1 to 12"),
        (dict(kind="find-head", label="x", text=PARIS, top=13), "top", "1 to 12"),
        (dict(kind="find-head", label="x", text=PARIS, **{"from": 10}), "from", "1 to 9"),
        (dict(kind="heads", label="x", text=ANIMAL, head=[4, 1]), "head", "layers 1 to 3"),
        (dict(kind="heads", label="x", text=ANIMAL, head=[1, 5]), "head", "heads 1 to 4"),
        (dict(kind="heads", label="x", text=ANIMAL, head=[1]), "head", "[layer, head]"),
        (dict(kind="heads", label="x", text=ANIMAL, focus="elephant"), "focus", "no token of the text"),
    ],
)
def test_bad_input_ends_with_one_line_and_exit_code_2(small_model_dir, site, tmp_path, fields, key, phrase):
    config = tmp_path / "bad.toml"
    config.write_text(figure(**fields), encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["--model", str(small_model_dir), "--config", str(config), "--out", str(tmp_path / "site")]
    )
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: bad.toml: figure 1 (label 'x'), "), result.output
    assert f"field '{key}'" in lines[0] and phrase in lines[0], lines[0]
    assert not (tmp_path / "site").exists()
