"""The `scores` kind: how one share is worked out from a head's query and keys, checked against the model's own
attention and the float64 reference, on the small seeded model (random layer norms and biases)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import reference as ref_lib
from build import cli
from figsite.capture import api as capture

TEXT = "The animal didn't cross the street because it was too tired"
CONFIG = f'''
[[figure]]
kind = "scores"
label = "qk"
text = "{TEXT}"
focus = "it"
head = [2, 3]

[[figure]]
kind = "scores"
label = "first"
text = "{TEXT}"
focus = 1
head = [3, 4]
'''


@pytest.fixture(scope="module")
def site(small_model_dir, tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("scores")
    (work / "scores.toml").write_text(CONFIG, encoding="utf-8")
    result = CliRunner().invoke(cli, ["--model", str(small_model_dir), "--config", str(work / "scores.toml"),
                                      "--out", str(work / "site"), "--no-cache"])
    assert result.exit_code == 0, result.output
    return work / "site"


@pytest.fixture(scope="module")
def ids(small_model_dir) -> list:
    return capture.token_ids(capture.Loaded(None, capture.gpt2_tokenizer(), "", None, "cpu"), TEXT)


def shares_table(site: Path, label: str) -> list:
    return json.loads((site / "downloads" / f"figure-{label}.json").read_text(encoding="utf-8"))["tables"]["shares"]


def attention_row(site: Path, layer: int, head: int, query: int) -> list:
    data = json.loads(next(p for p in (site / "data").glob("*.json") if p.name not in {"run.json", "parts.json"})
                      .read_text(encoding="utf-8"))
    return data["attention"][layer][head][query]


@pytest.mark.parametrize("label, layer, head, query", [("qk", 1, 2, 8), ("first", 2, 3, 0)])
def test_the_shares_worked_out_from_query_and_keys_are_the_models_attention(site, label, layer, head, query):
    rows = shares_table(site, label)
    assert [row["token"] for row in rows] == list(range(1, query + 2))
    model = attention_row(site, layer, head, query)  # rounded to 6 decimals in the data file
    assert max(abs(row["share"] - m) for row, m in zip(rows, model)) <= 5e-7 + 1e-9
    assert max(abs(row["share"] - row["model_share"]) for row in rows) < 1e-6
    assert abs(rows[-1]["running_total"] - 1) < 1e-9


@pytest.mark.parametrize("label, layer, head, query", [("qk", 1, 2, 8), ("first", 2, 3, 0)])
def test_fits_scaled_fits_and_shares_are_the_references(site, small_model_dir, ids, label, layer, head, query):
    q, k, pattern = ref_lib.head_query_keys(ref_lib.load_weights(small_model_dir), ids, layer, head, query)
    fits = (k @ q).tolist()
    rows = shares_table(site, label)
    root = math.sqrt(q.shape[0])
    for row, fit, share in zip(rows, fits, pattern.tolist()):
        assert abs(row["fit"] - fit) < 1e-4 and abs(row["scaled"] - fit / root) < 1e-4
        assert abs(row["share"] - share) < 1e-6


def test_the_page_carries_the_query_and_keys_whose_products_add_up_to_each_fit(site):
    spec = json.loads((site / "downloads" / "figure-qk.vega-lite.json").read_text(encoding="utf-8"))
    products, bars = spec["datasets"]["products"], spec["datasets"]["bars"]
    for bar in bars:
        if bar["masked"]:
            assert "fit" not in bar and bar["j"] > 9
            continue
        added = sum(p["v"] for p in products if p["j"] == bar["j"])
        assert abs(added - bar["fit"]) < 1e-3, bar  # the page's products are rounded to 5 decimals
    temperature = next(p for p in spec["params"] if p["name"] == "T")
    assert temperature["value"] == 1 and temperature["bind"]["min"] < 1 < temperature["bind"]["max"]


def test_the_printed_table_lists_every_token_and_masks_those_after_the_asking_one(site):
    printed = (site / "figures.txt").read_text(encoding="utf-8")
    block = printed[printed.index("(qk) "):printed.index("(first) ")].splitlines()
    assert block[3].split() == ["token", "fit", "fit", "/", "4", "share"]  # width 16: divided by 4
    rows = [row for row in block[4:] if row.strip()]
    assert len(rows) == 12 and all("masked" in row for row in rows[9:]) and not any("masked" in r for r in rows[:9])
    shares = [float(row.split()[-1].rstrip("%")) for row in rows[:9]]
    assert abs(sum(shares) - 100) < 0.05


def test_the_page_names_the_largest_share_and_its_check_against_the_model(site):
    rows = shares_table(site, "qk")
    best = max(rows, key=lambda row: row["share"])
    html = (site / "figure-qk.html").read_text(encoding="utf-8")
    assert f"takes {best['share'] * 100:.2f}% of its attention" in html
    assert "agree with the model&#39;s own attention to within" in html
    assert f"#key={best['token']}" in html  # the guess-first answer opens the page on that key


@pytest.mark.parametrize("change, field, allowed", [
    ('head = [2, 3]', 'head = [4, 1]', "layers 1 to 3"),
    ('head = [2, 3]', 'head = [2, 5]', "heads 1 to 4"),
    ('head = [2, 3]', 'head = [2]', "[layer, head]"),
    ('focus = "it"', 'focus = 13', "a token number from 1 to 12"),
])
def test_a_head_or_focus_outside_the_model_or_text_is_refused_in_one_line(small_model_dir, tmp_path, change, field,
                                                                          allowed):
    config = tmp_path / "bad.toml"
    config.write_text(CONFIG.replace(change, field), encoding="utf-8")
    result = CliRunner().invoke(cli, ["--model", str(small_model_dir), "--config", str(config),
                                      "--out", str(tmp_path / "site"), "--no-cache"])
    assert result.exit_code == 2
    line = result.output.strip()
    assert len(line.splitlines()) == 1 and "label 'qk'" in line and allowed in line, line
