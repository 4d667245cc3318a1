"""Any model of GPT-2's architecture: every range, label and count comes from the loaded model's config.

Seeded random models of distilgpt2's, gpt2-medium's, gpt2-large's and gpt2-xl's shapes (layers x heads),
narrowed in width so the tests stay fast, with layer norms and biases drawn too.
"""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from build import cli
from conftest import gpt2_tokenizer, text_blocks

SHAPES = {"distilgpt2": (6, 12), "gpt2-medium": (24, 16), "gpt2-large": (36, 20), "gpt2-xl": (48, 25)}
TEXT = "Maya lives in Paris, the capital of"


def config_for(n_layer: int, n_head: int) -> str:
    return f'''
[[figure]]
kind = "attention"
label = "l"
text = "{TEXT}"
views = [[{n_layer}, {n_head}], [1, 1]]

[[figure]]
kind = "readout"
label = "i"
text = "{TEXT}"
target = " France"

[[figure]]
kind = "shapes"
label = "f"
text = "{TEXT}"
layers = [1, {n_layer}]

[[figure]]
kind = "numbers"
label = "n"

[[figure]]
kind = "cost"
label = "c"

[[figure]]
kind = "lens"
label = "lens"
text = "{TEXT}"

[[figure]]
kind = "heads"
label = "grid"
text = "{TEXT}"
head = [{n_layer}, {n_head}]

[[figure]]
kind = "find-head"
label = "find"
text = "{TEXT}"
from = "of"
to = "Paris"

[[figure]]
kind = "compare"
label = "cmp"
texts = ["{TEXT}", "Maya lives in Rome, the capital of"]
'''


@pytest.fixture(scope="module", params=list(SHAPES), ids=list(SHAPES))
def shaped(request, tmp_path_factory):
    """A narrow seeded model of one shape saved with save_pretrained, and the site built from it."""
    from figsite.capture import random_gpt2

    n_layer, n_head = SHAPES[request.param]
    work = tmp_path_factory.mktemp(request.param)
    model = random_gpt2(seed=5, n_layer=n_layer, n_head=n_head, n_embd=4 * n_head)
    model.save_pretrained(work / "model")
    gpt2_tokenizer().save_pretrained(work / "model")
    config = work / "chapter.toml"
    config.write_text(config_for(n_layer, n_head), encoding="utf-8")
    out = work / "site"
    result = CliRunner().invoke(cli, ["--model", str(work / "model"), "--config", str(config), "--out", str(out),
                                      "--no-cache"])
    assert result.exit_code == 0, result.output
    return n_layer, n_head, work, out


def test_every_count_and_label_comes_from_the_models_config(shaped):
    n_layer, n_head, _, out = shaped
    printed = text_blocks((out / "figures.txt").read_text(encoding="utf-8"))
    heads = n_layer * n_head
    assert any(line.strip().startswith(f"all {heads:,} heads, averaged:") for line in printed["l"])
    assert any(line.strip().startswith(f"layer {n_layer}, head {n_head}:") for line in printed["l"])
    assert len(printed["i"]) == 1 + n_layer + 1  # the title, the embedding, each layer
    assert printed["i"][-1].startswith(f"  after layer {n_layer} ")
    assert f"  after layer {n_layer}" in "\n".join(printed["f"])
    assert f"heads in the model     {n_layer} x {n_head}  =  {heads:,}" in "\n".join(printed["n"])
    assert f"in all {heads:,} heads" in "\n".join(printed["c"])
    assert sum(line.lstrip().startswith("layer") for line in printed["grid"]) >= n_layer
    ranked = [line for line in printed["find"] if re.match(r"\s+\d+\. layer \d+, head \d+", line)]
    assert ranked and all(1 <= int(re.search(r"layer (\d+)", line).group(1)) <= n_layer for line in ranked)


def test_pages_offer_every_layer_and_say_how_many_heads(shaped):
    n_layer, n_head, _, out = shaped

    def spec(label):
        html = (out / f"figure-{label}.html").read_text(encoding="utf-8")
        return json.loads(re.search(rf'id="spec-{label}">(.*?)</script>', html, re.S).group(1))

    stage = next(p for p in spec("i")["params"] if p["name"] == "stage")
    assert stage["bind"]["max"] == n_layer and stage["value"] == n_layer
    view = next(p for p in spec("l")["params"] if p["name"] == "view")
    assert view["bind"]["options"] == [f"{n_layer}-{n_head}", "1-1", "all"]
    assert view["bind"]["labels"][-1] == f"all {n_layer * n_head:,} heads, averaged"
    run = json.loads((out / "data" / "run.json").read_text(encoding="utf-8"))
    assert (run["model"]["n_layer"], run["model"]["n_head"]) == (n_layer, n_head)
    assert len(run["comparisons"][0]["distance"]) == n_layer + 1


def test_a_layer_or_head_the_model_lacks_is_refused(shaped):
    n_layer, n_head, work, out = shaped
    config = work / "too-far.toml"
    config.write_text(config_for(n_layer, n_head).replace(f"views = [[{n_layer}, {n_head}]",
                                                          f"views = [[{n_layer + 1}, {n_head}]"), encoding="utf-8")
    result = CliRunner().invoke(cli, ["--model", str(work / "model"), "--config", str(config), "--out",
                                      str(out), "--no-cache"])
    assert result.exit_code == 2
    assert f"layers 1 to {n_layer}" in result.output and len(result.output.strip().splitlines()) == 1
    config.write_text(config_for(n_layer, n_head).replace(f"views = [[{n_layer}, {n_head}]",
                                                          f"views = [[{n_layer}, {n_head + 1}]"), encoding="utf-8")
    result = CliRunner().invoke(cli, ["--model", str(work / "model"), "--config", str(config), "--out",
                                      str(out), "--no-cache"])
    assert result.exit_code == 2 and f"heads 1 to {n_head}" in result.output
