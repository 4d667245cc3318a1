"""The kinds' charts with no text in them, which the live page draws ((l), every head, (i), the lens, which head, two
texts compared: each kind's
`textless_chart`, from the same chart functions as the build's): one spec each, drawn for texts of different lengths
once the page's data are put in as figsite.data.live_data and figures.toolkit.textless say (here from seeded random
shares and guesses, in the shape the page's script computes them from GPT-2's outputs). Drawn with vl-convert as the build draws (sitegen.site.drawing),
each drawing must name every token of its text, and the words a screen reader hears (the `description` signal, drawn
here as a line of words under the chart) must say what the data hold, worked out again here.
"""

from __future__ import annotations

import base64
import copy
import html
import math
import random
import re

import pytest

from figsite.data import live_data
from figures.picture import png
from figsite.data.run import PER_SHARE
from sitegen.live import COVERED_KINDS
from sitegen.site.drawing import fixed_width, vl_version
from figures import KINDS, attention_chart, heads_textless
from figures.toolkit.charts import spec
from figures.toolkit.words import percent

vlc = pytest.importorskip("vl_convert")

MODEL = {"n_layer": 3, "n_head": 4, "vocab_size": 50_257}  # a small model's shape keeps the drawings quick
GPT2 = {"n_layer": 12, "n_head": 12, "vocab_size": 50_257}
OPENING = {"views": [[2, 3], [1, 1]], "head": [2, 3], "heads_of": 2}
SHORT = ["The", "_&", "'t"]  # 3 tokens: a sign and a quote that the drawing must escape
LONG = "The _animal _didn 't _cross _the _street _because _it _was _too".split()  # 11 tokens
FOLLOWED = "_France"
CHARTS = {key: KINDS[key].textless_chart for key in COVERED_KINDS}
WIDE_AND_NARROW = [
    (key, narrow) for key in CHARTS for narrow in (False, True) if CHARTS[key](MODEL, OPENING, narrow) is not None
]


# ---------------------------------------------------------------------------------------------- the page's data


def units(rng: random.Random, n: int) -> list:
    """One head's lower triangle in units of 1e-4: each row's shares drawn at random (some far larger than others)."""
    out = []
    for q in range(n):
        weights = [rng.random() ** 4 for _ in range(q + 1)]
        out += [round(w / sum(weights) * PER_SHARE) for w in weights]
    return out


def page_data(names: list, model: dict = MODEL, seed: int = 0) -> dict:
    """The datasets as the page's script fills them in: every head, each layer's average and the average of all,
    the top 10 at every stage and position (chances in thousandths: no rounding is in doubt), the followed token."""
    rng, n = random.Random(seed), len(names)
    n_layer, n_head = model["n_layer"], model["n_head"]
    heads = {(l, h): units(rng, n) for l in range(n_layer) for h in range(n_head)}
    mean = lambda rows: [round(sum(column) / len(rows)) for column in zip(*rows)]  # noqa: E731
    panels = []
    for l in range(n_layer):
        panels += [{"l": l, "h": h, "u": heads[(l, h)]} for h in range(n_head)]
        panels.append({"l": l, "h": n_head, "u": mean([heads[(l, h)] for h in range(n_head)])})
    panels.append({"l": n_layer, "h": n_head, "u": mean(list(heads.values()))})
    top, follow = [], []
    for s in range(n_layer + 1):
        for q in range(n):
            chances = sorted(rng.sample(range(1, 400), 10), reverse=True)
            top += [
                {"stage": s, "q": q, "rank": r, "token": f"_guess{s}x{q}x{r}", "id": 1000 + r, "p": p / 1000}
                for r, p in enumerate(chances, start=1)
            ]
            follow.append({"stage": s, "q": q, "p": rng.randrange(0, 300) / 1000, "rank": rng.choice([1, 4, 12, 3000])})
    # Two texts compared (figures.compare): the text, and the same with its last token changed; 0 before it.
    cells = [
        {
            "stage": s,
            "position": q,
            "token": names[q] if q < n - 1 else f"{names[q]} / _other",
            "distance": 0.0 if q < n - 1 else rng.randrange(1, 900) / 100,
            "name": f"{q + 1}: {names[q]}" + ("" if q < n - 1 else " / _other"),
        }
        for s in range(n_layer + 1)
        for q in range(n)
    ]
    return {"panels": panels, "top": top, "follow": follow, "cells": cells}


def filled(chart_spec: dict, names: list, data: dict, **values) -> dict:
    """The spec as the page embeds it: its datasets and the text's params put in, the token selects' options set to
    the text's tokens, any `values` given to params; and (for the test) a line of words drawing `description`."""
    out = copy.deepcopy(chart_spec)
    out["datasets"] = {name: data[name] for name in out["datasets"]}
    for param in out["params"]:
        param["value"] = {"names": names, "follow_name": FOLLOWED}.get(param["name"], param.get("value"))
        if param["name"] in ("token", "position", "from", "to"):  # as the page's script does (specs.js)
            param["bind"].update(
                options=list(range(1, len(names) + 1)), labels=[f"{i}: {t}" for i, t in enumerate(names, start=1)]
            )
            param["value"] = min(param["value"], len(names))
        if param["name"] in values:
            param["value"] = values[param["name"]]
    said = {"data": {"values": [{}]}, "mark": {"type": "text", "text": {"expr": "'SAID: ' + description"}}}
    out["layer" if "layer" in out else "vconcat"].append(said)
    return out


def drawn(chart_spec: dict) -> tuple[str, list]:
    """The drawing as the build makes it (sitegen.site.drawing: fixed widths, no fitting), and its words."""
    svg = vlc.vegalite_to_svg(
        {k: v for k, v in fixed_width(chart_spec).items() if k != "autosize"}, vl_version=vl_version()
    )
    return svg, [
        html.unescape(re.sub(r"<[^>]+>", "", text)) for text in re.findall(r"<text\b[^>]*>(.*?)</text>", svg, re.S)
    ]


def said(words: list) -> str:
    (line,) = [w for w in words if w.startswith("SAID: ")]
    return line[len("SAID: ") :]


# ---------------------------------------------------------------------------------------------- the words, worked out again


def largest(row: list, names: list, count: int) -> str:
    """The `count` largest shares of a row (units) of 0.5% or more, largest first (ties: the first token first)."""
    ranked = sorted(range(len(row)), key=lambda k: (-row[k], k))[:count]
    return ", ".join(f"{names[k]} {math.floor(row[k] / 100 + 0.5)}%" for k in ranked if row[k] >= 50)


def row_of(panel: dict, q: int) -> list:
    return panel["u"][q * (q + 1) // 2 : q * (q + 1) // 2 + q + 1]


def expected(key: str, names: list, data: dict, token: int, view: str = "2-3") -> str:
    """What `description` says in the opening state (the last token; (l) in `view`, heads in layer 2, head 3)."""
    n, q, (n_layer, n_head) = len(names), token - 1, (MODEL["n_layer"], MODEL["n_head"])
    if key == "attention":
        l, h, label = (n_layer, n_head, "all 12 heads, averaged") if view == "all" else (1, 2, "layer 2, head 3")
        panel = next(p for p in data["panels"] if (p["l"], p["h"]) == (l, h))
        after = n - q - 1
        reach = (
            ""
            if not after
            else f" The {after} token{' after it is' if after == 1 else 's after it are'} out of its reach."
        )
        return f"Looking from {names[q]} (token {q + 1}), {label}: {largest(row_of(panel, q), names, 5)}.{reach}"
    if key == "heads":
        panel = next(p for p in data["panels"] if (p["l"], p["h"]) == (1, 2))
        return (
            "All 12 heads (3 layers of 4) and each layer's average, each drawn as a small picture of who looks at "
            f"whom. Shown larger: layer 2, head 3. Looking from {names[q]} there, the largest shares: "
            f"{largest(row_of(panel, q), names, 3)}."
        )
    if key == "find-head":  # from the last token back to the first, as the book's default pair
        return (
            f"From {names[q]} (token {q + 1}) back to {names[0]} (token 1): the 10 of all 12 heads that give it "
            "the largest share, highest first."
        )
    top = [r for r in data["top"] if r["stage"] == n_layer and r["q"] == q]
    follow = next(r for r in data["follow"] if r["stage"] == n_layer and r["q"] == q)
    if key == "readout":
        # A chance as every sentence writes it (words.percent), in the page's expression as in the build's words.
        guesses = ", ".join(f"{r['token']} {percent(r['p'])}" for r in top[:3])
        return f"After layer {n_layer}: the top 3 guesses are {guesses}; {FOLLOWED} has {percent(follow['p'])}."
    return (
        f"After layer {n_layer}, position {q + 1} ({names[q]}): the top guess is {top[0]['token']} with "
        f"{percent(top[0]['p'])}; following {FOLLOWED} at this position."
    )


# ---------------------------------------------------------------------------------------------- tests


@pytest.mark.parametrize("key, narrow", WIDE_AND_NARROW)
def test_one_spec_draws_texts_of_3_and_11_tokens_naming_every_token_and_saying_what_it_shows(key, narrow):
    chart_spec = spec(CHARTS[key](MODEL, OPENING, narrow))
    for names in (SHORT, LONG):
        if key == "knockout":  # a bar a part; the words the book's figure would say of the same numbers
            assert_the_knockout_says_what_the_book_would(chart_spec, names)
            continue
        if key == "patching":  # a square a run; the words the book's figure would say of the same numbers
            assert_the_patching_says_what_the_book_would(chart_spec, names)
            continue
        data = page_data(names)
        svg, words = drawn(filled(chart_spec, names, data))
        named = names
        if key == "readout":  # it reads the last token's guesses: the top 3 after the last layer, and the followed
            named = [r["token"] for r in data["top"] if r["stage"] == MODEL["n_layer"] and r["q"] == len(names) - 1]
            beyond, named = named[3:], named[:3] + [FOLLOWED]
            assert not [name for name in beyond if name in words], (key, narrow)  # the book's top 3, no more
        if key == "compare":  # a row a token, named as the page names it; the sentence is the page's
            rows = [c["name"] for c in data["cells"] if c["stage"] == 0]
            svg, words = drawn(filled(chart_spec, names, data, description="The page's own sentence."))
            assert [w for w in words if w in rows] == rows and said(words) == "The page's own sentence."
            zeros = re.findall(r'<text aria-label="[^"]*distance: 0\.000"[^>]*>0</text>', svg)  # the exact zeros
            assert len(zeros) == (MODEL["n_layer"] + 1) * (len(names) - 1)
            continue
        if key == "find-head":  # it names the pair: the token that looks and the one it looks back to
            named = [names[-1], names[0]]
            ranked = sorted(
                (p for p in data["panels"] if p["l"] < MODEL["n_layer"] and p["h"] < MODEL["n_head"]),
                key=lambda p: (-row_of(p, len(names) - 1)[0], p["l"], p["h"]),
            )
            bars = [w for w in words if w.startswith("layer ")]
            assert bars == [f"layer {p['l'] + 1}, head {p['h'] + 1}" for p in ranked[:10]], bars
        assert not [name for name in named if not any(name in w for w in words)], (key, narrow, words)
        assert said(words) == expected(key, names, data, len(names))


def knockout_runs(rows: list, intact: dict, seed: int) -> list:
    """The page's runs: each listed part's chance and rank put in (chances whose percents all differ), and their
    changes from the intact model."""
    rng = random.Random(seed)
    chances = rng.sample(range(1, 900), len(rows))
    out = []
    for row, p in zip(rows, chances):
        rank = rng.choice([1, 2, 3, 7, 40, 3000])
        out.append({**row, "p": p / 1000, "rank": rank, "dp": p / 1000 - intact["p"], "dr": intact["rank"] - rank})
    return out


def assert_the_knockout_says_what_the_book_would(chart_spec: dict, names: list) -> None:
    """Drawn for the page's runs, every bar's part is named and the description is what figures.knockout says of the
    same numbers: the intact model, then the costliest removal (or that none lowers the token); a part highlighted,
    its run."""
    from figures.knockout import verdict, without
    from figures.records import Outcome

    for seed, intact in enumerate([{"p": 0.2881, "rank": 3}, {"p": 0.0005, "rank": 900}]):  # the second: none lower it
        runs = knockout_runs(chart_spec["datasets"]["runs"], intact, seed)
        as_book = [
            {"part": r["group"], "layer": r["layer"] - 1, "head": r["x"] - 1 if r["group"] == "head" else None}
            | {"p": r["p"], "rank": r["rank"]}
            for r in runs
        ]
        outcome = Outcome(FOLLOWED, intact, as_book)
        values = {"intact_p": intact["p"], "intact_rank": intact["rank"]}
        svg, words = drawn(filled(chart_spec, names, {"runs": runs}, **values))
        assert said(words) == (
            f"With every part in place, the model gives {FOLLOWED} {percent(intact['p'])} (rank {intact['rank']:,}) as "
            f"the next token after {names[-1]}. {verdict(outcome)}"
        )
        assert len(re.findall(r'aria-roledescription="bar"', svg)) >= len(runs)
        svg, words = drawn(
            filled(chart_spec, names, {"runs": runs}, **values, part=runs[(seed * 5 + 1) % len(runs)]["key"])
        )
        assert said(words) == without(as_book[(seed * 5 + 1) % len(runs)], intact, FOLLOWED) + "."


def patched_runs(n: int, seed: int, original: float, changed: float) -> tuple[dict, list]:
    """Made-up grids of a model of MODEL's shape for two texts of n tokens (each run's score difference between the
    changed text's and past the original's, chances all different), and the page's rows of them, in
    Patched.cells' order, keyed as the book's chart keys them."""
    from figures.patching_chart import cell_key
    from figures.records import PIECES

    rng = random.Random(seed)
    sizes = {"resid_pre": (MODEL["n_layer"] + 1, n), "attn_out": (MODEL["n_layer"], n)}
    sizes |= {"mlp_out": (MODEL["n_layer"], n), "z": (MODEL["n_layer"], MODEL["n_head"])}
    low, high = min(original, changed) - 0.4, max(original, changed) + 0.6
    grids = {
        piece: {
            "diff": [[round(rng.uniform(low, high), 5) for _ in range(cols)] for _ in range(rows)],
            "p": [[rng.randrange(1, 99_000) / 100_000 for _ in range(cols)] for _ in range(rows)],
        }
        for piece, (rows, cols) in sizes.items()
    }
    rows = [
        {"key": cell_key({"piece": piece, "row": r, "col": c}), "piece": piece, "row": r, "col": c}
        | {"diff": grids[piece]["diff"][r][c], "p": grids[piece]["p"][r][c]}
        for piece in PIECES
        for r in range(sizes[piece][0])
        for c in range(sizes[piece][1])
    ]
    return grids, rows


def assert_the_patching_says_what_the_book_would(chart_spec: dict, names: list) -> None:
    """Drawn for the page's runs, the description is what figures.patching says of the same numbers: the two texts'
    chances and the stream's strongest run (the book's summary where it names no carrying token), then the chosen
    run; each run's square is drawn, and the menu's labels are the runs' names."""
    from figures.patching import said as run_said
    from figures.records import Patched

    changed_names = [*names[:1], "_Rome", *names[2:]] if len(names) > 1 else ["_Rome"]
    for seed, (original, changed) in enumerate([(2.5, -0.5), (-1.0, 0.75)]):  # the second: the answer falls back
        grids, rows = patched_runs(len(names), seed, original, changed)
        o = Patched(
            names,
            changed_names,
            len(names) - 1,
            FOLLOWED,
            "_Italy",
            {"diff": original, "p": 0.3141},
            {"diff": changed, "p": 0.0271},
            grids,
        )
        values = {"names_b": changed_names, "versus_name": "_Italy", "original_p": 0.3141, "changed_p": 0.0271}
        values |= {"original_diff": original, "changed_diff": changed}
        chosen = o.cells()[(seed * 7 + 5) % len(rows)]
        svg, words = drawn(
            filled(chart_spec, names, {"patched": rows}, **values, cell=rows[(seed * 7 + 5) % len(rows)]["key"])
        )
        start = (
            f"With the original text, the model gives {FOLLOWED} a chance of {percent(0.3141)}; with the changed text, "
            f"{percent(0.0271)}."
        )
        assert said(words) == f"{start} {run_said(o, o.strongest('resid_pre'))} {run_said(o, chosen)}"
        assert len(re.findall(r'aria-roledescription="rect mark"', svg)) == len(rows)  # a square a run


@pytest.mark.parametrize("key", ["attention", "heads", "lens"])
def test_the_tokens_the_model_added_are_slanted_on_every_token_axis_and_the_readers_are_not(key):
    names = LONG[:6]
    chart_spec = spec(CHARTS[key](MODEL, OPENING, False))
    svg, _ = drawn(filled(chart_spec, names, page_data(names), own_from=4, token=6, position=6))
    style = {}  # a token's label -> whether it is slanted
    for attributes, text in re.findall(r"<text\b([^>]*)>([^<]*)</text>", svg):
        label = html.unescape(text)
        if any(label.endswith(name) for name in names):
            style[label] = 'font-style="italic"' in attributes
    added = [label for label, slanted in style.items() if slanted]
    assert added and all(label.endswith(tuple(names[4:])) for label in added), style
    assert not any(slanted for label, slanted in style.items() if label.endswith(tuple(names[:4]))), style


def test_the_attention_bars_follow_the_text_and_the_chosen_token_and_view():
    chart_spec = spec(attention_chart.textless_chart([[2, 3]], MODEL["n_layer"], MODEL["n_head"]))
    for names in (SHORT, LONG):
        data = page_data(names, seed=len(names))
        for token, view in ((1, "all"), (2, "2-3"), (len(names), "all"), (live_data.MAX_TOKENS, "2-3")):
            svg, words = drawn(filled(chart_spec, names, data, token=token, view=view))
            token = min(token, len(names))  # a token past the text reads as its last
            # One bar per token up to the chosen one, each said in words for a screen reader.
            assert len(re.findall(r'aria-label="[^"]*of the attention', svg)) == token
            assert said(words) == expected("attention", names, data, token, view)


def test_the_grid_draws_each_heads_picture_in_its_square_layer_by_layer_the_averages_last():
    """The page's script gives the pictures (templates/js/live/pictures.js); the chart puts each in its square: layer
    by layer, head by head, the layer's average last, none for the average of every head."""
    n_layer, n_head = MODEL["n_layer"], MODEL["n_head"]
    chart_spec = spec(heads_textless.textless_chart(n_layer, n_head, [2, 3]))
    data = page_data(LONG, seed=3)
    # A picture a square, each its own colour: one pixel of grey whose level is the square's place.
    pictures = [
        "data:image/png;base64," + base64.b64encode(png(1, 1, b"\x00\x01", [(0, 0, 0), (i, i, i)])).decode()
        for i in range(n_layer * (n_head + 1))
    ]
    svg, _ = drawn(filled(chart_spec, LONG, data, token=6, head_pictures=pictures))
    drawn_urls = re.findall(r'<image\b[^>]*href="([^"]+)"', svg)
    assert drawn_urls == pictures
    # Where the script has drawn none yet (the placeholder's []), no square shows a broken picture.
    svg, _ = drawn(filled(chart_spec, LONG, data, token=6))
    assert re.findall(r'<image\b[^>]*href="(data:[^"]+)"', svg) == []


def test_the_page_finds_every_param_and_dataset_where_the_module_says():
    for key, chart in CHARTS.items():
        for narrow in (False, True):
            made = chart(GPT2, {}, narrow)
            if made is None:
                continue
            chart_spec = spec(made)
            params = {param["name"]: param for param in chart_spec["params"]}
            if key == "patching":  # its runs, their keys and the menu's options are the page's (patching.js)
                assert set(chart_spec["datasets"]) == {"patched"} and chart_spec["datasets"]["patched"] == []
                assert params["names"]["value"] == params["names_b"]["value"] == [live_data.PLACEHOLDER]
                assert "expr" in params["description"] and params["cell"]["bind"]["labels"] == ["…"]
                assert [click["param"] for click in chart_spec["usermeta"]["clicks"]] == ["cell"]
                continue
            if key == "knockout":  # its parts listed for the model's size, the page's numbers put in (knockout.js)
                rows = chart_spec["datasets"]["runs"]
                assert set(chart_spec["datasets"]) == {"runs"} and len(rows) == 2 * 12
                assert all(list(row) == list(live_data.RUNS.fields) for row in rows)
                assert params["names"]["value"] == [live_data.PLACEHOLDER] and "expr" in params["description"]
                assert [click["param"] for click in chart_spec["usermeta"]["clicks"]] == ["part"]
                continue
            if key == "compare":  # its rows are named in its data, its sentence is the page's (pair.js)
                assert set(chart_spec["datasets"]) == {"cells"} and params["description"]["value"] == ""
                assert chart_spec["datasets"]["cells"] == live_data.empty(12, 12)["cells"]
                assert all(list(row) == list(live_data.CELLS.fields) for row in chart_spec["datasets"]["cells"])
                continue
            assert params["names"]["value"] == [live_data.PLACEHOLDER]
            for select in {"token", "position", "from", "to"} & set(params):
                assert params[select]["bind"]["options"] == [1] and params[select]["bind"]["labels"] == ["1"]
            wanted = {"panels"} if key in ("attention", "heads", "find-head") else {"top", "follow"}
            assert set(chart_spec["datasets"]) == wanted
            assert all(chart_spec["datasets"][name] == live_data.empty(12, 12)[name] for name in wanted)
            # Each dataset's rows hold the fields figsite.data.live_data declares, which the page's script fills by
            # the same names (templates/js/shared/names.js).
            assert all(
                list(row) == list(live_data.DATASETS[name].fields)
                for name in wanted
                for row in chart_spec["datasets"][name]
            )
            if wanted == {"top", "follow"}:
                assert params["follow_name"]["value"] == live_data.PLACEHOLDER
            assert "description" in params and "expr" in params["description"]
            clicks = {
                "attention": ["token"],
                "heads": ["layer", "head"],
                "readout": ["stage"],
                "lens": ["stage", "position"],
                "find-head": [],
            }
            assert [click["param"] for click in chart_spec["usermeta"]["clicks"]] == clicks[key]


def test_gpt2s_heads_draw_a_text_of_64_tokens_labelling_every_few_tokens_where_all_would_run_together():
    names = [f"_t{i}" for i in range(live_data.MAX_TOKENS)]
    data = page_data(names, GPT2, seed=64)
    svg, words = drawn(filled(spec(heads_textless.textless_chart(12, 12, [5, 4])), names, data))
    assert "Shown larger: layer 5, head 4. Looking from _t63 there" in said(words)
    svg, words = drawn(filled(spec(attention_chart.textless_chart([[5, 4]], 12, 12)), names, data))
    assert said(words).startswith("Looking from _t63 (token 64), layer 5, head 4: ")
    labelled = [name for name in names if name in words]  # 640 px: 570 for the bars, labels 17 px apart at least
    assert labelled == names[::2]


def test_the_lens_table_writes_each_cells_top_guess_where_the_cells_are_wide_enough():
    data = page_data(SHORT, seed=5)  # 3 tokens: a 640 px drawing gives each cell some 200 px
    svg, words = drawn(filled(spec(KINDS["lens"].textless_chart(MODEL, {}, False)), SHORT, data))
    tops = {r["token"] for r in data["top"] if r["rank"] == 1}
    assert len(tops) == (MODEL["n_layer"] + 1) * len(SHORT)
    # The table's words: one text mark a cell, said with its position ("q: 0; ..."), drawn (not see-through).
    cells = re.findall(r'<text aria-label="q: [^>]*>[^<]*</text>', svg)
    assert len(cells) == len(tops) and not [cell for cell in cells if 'opacity="0"' in cell]
    assert {html.unescape(re.sub(r"<[^>]+>", "", cell)) for cell in cells} == tops
