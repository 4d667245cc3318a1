"""Any model of GPT-2's architecture: every range, label and count comes from the loaded model's config.

Seeded random models of distilgpt2's, gpt2-medium's, gpt2-large's and gpt2-xl's shapes (layers x heads),
narrowed in width so the tests stay fast, with layer norms and biases drawn too. Each shape's run is captured
and its figures gathered in this process (no model saved, no drawing, no site written); one shape is also
built whole with the command.
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

[[figure]]
kind = "head-roles"
label = "habits"
text = "{TEXT}"
repeat_length = 10
'''


def build_in_process(model, config_text: str, tmp_path) -> tuple:
    """The run and every figure's page, gathered in this process from an in-memory model: the build's own
    phases (config, checks, capture, figures) without saving the model, drawing or writing a site."""
    from figsite.capture import api as capture
    from sitegen import pipeline
    from figsite.config import load_config
    from figures import KINDS

    config = tmp_path / "chapter.toml"
    config.write_text(config_text, encoding="utf-8")
    loaded = capture.Loaded(model, gpt2_tokenizer(), "random (seed 5)", None, "cpu")
    figures = load_config(config, KINDS)
    asks = pipeline.gather_asks(figures)
    tokens = {
        string: [capture.token_text(loaded, i) for i in capture.token_ids(loaded, string)] for string in asks.strings
    }
    figures = pipeline.resolve(figures, tokens, loaded.info)
    run = capture.capture_run(loaded, pipeline.with_parts(asks, figures))
    return run, {fig.label: pipeline.gather_page(fig, run) for fig in figures}


@pytest.fixture(scope="module", params=list(SHAPES), ids=list(SHAPES))
def shaped(request, tmp_path_factory):
    """A narrow seeded model of one shape, and every figure of the config gathered from its run."""
    from figsite.model.load import random_gpt2

    n_layer, n_head = SHAPES[request.param]
    work = tmp_path_factory.mktemp(request.param)
    model = random_gpt2(seed=5, n_layer=n_layer, n_head=n_head, n_embd=4 * n_head)
    run, pages = build_in_process(model, config_for(n_layer, n_head), work)
    printed = text_blocks("\n".join(page.text_figure for page in pages.values()))
    return n_layer, n_head, model, work, run, pages, printed


def test_every_count_and_label_comes_from_the_models_config(shaped):
    n_layer, n_head, _, _, _, _, printed = shaped
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
    n_layer, n_head, _, _, run, pages, _ = shaped

    def param(label, name):
        return next(p for p in pages[label].spec["params"] if p["name"] == name)

    stage = param("i", "stage")
    assert stage["bind"]["max"] == n_layer and stage["value"] == n_layer
    view = param("l", "view")
    assert view["bind"]["options"] == [f"{n_layer}-{n_head}", "1-1", "all"]
    assert view["bind"]["labels"][-1] == f"all {n_layer * n_head:,} heads, averaged"
    assert (run.model["n_layer"], run.model["n_head"]) == (n_layer, n_head)
    assert len(run.comparisons[0]["distance"]) == n_layer + 1


def test_the_head_roles_grid_has_a_square_per_head_and_on_a_phone_squares_to_tap_scrolling_where_they_do_not_fit(
    shaped,
):
    from figures.roles import NARROW_SQUARE
    from figures.toolkit.charts import TAP

    n_layer, n_head, _, _, _, pages, _ = shaped
    page = pages["habits"]
    assert {(row["l"], row["h"]) for row in page.spec["datasets"]["heads"]} == {
        (layer, head) for layer in range(1, n_layer + 1) for head in range(1, n_head + 1)
    }
    assert len(page.loads) == n_layer  # a file per layer of patterns over the random tokens
    # On a phone the grid keeps squares a finger can tap, in which a head's number fits, and the chart scrolls in
    # its own box where they are wider than the column.
    narrow = page.narrow_spec
    assert NARROW_SQUARE >= TAP
    assert narrow["vconcat"][0]["width"] == narrow["vconcat"][0]["height"] == {"step": NARROW_SQUARE}
    assert "autosize" not in narrow


def test_a_layer_or_head_the_model_lacks_is_refused(shaped):
    from figsite.errors import BuildError

    n_layer, n_head, model, work, _, _, _ = shaped
    for views, allowed in (
        (f"views = [[{n_layer + 1}, {n_head}]", f"layers 1 to {n_layer}"),
        (f"views = [[{n_layer}, {n_head + 1}]", f"heads 1 to {n_head}"),
    ):
        with pytest.raises(BuildError, match=allowed):
            build_in_process(model, config_for(n_layer, n_head).replace(f"views = [[{n_layer}, {n_head}]", views), work)


def test_one_real_build_of_a_narrowed_shape_writes_every_count_from_its_config(tmp_path):
    """The whole command once, on a model saved with save_pretrained: what the synthetic runs above skip."""
    from figsite.model.load import random_gpt2

    n_layer, n_head = SHAPES["gpt2-medium"]
    random_gpt2(seed=5, n_layer=n_layer, n_head=n_head, n_embd=4 * n_head).save_pretrained(tmp_path / "model")
    gpt2_tokenizer().save_pretrained(tmp_path / "model")
    config = tmp_path / "chapter.toml"
    config.write_text(config_for(n_layer, n_head), encoding="utf-8")
    result = CliRunner().invoke(
        cli,
        ["--model", str(tmp_path / "model"), "--config", str(config), "--out", str(tmp_path / "site"), "--no-cache"],
    )
    assert result.exit_code == 0, result.output
    printed = text_blocks((tmp_path / "site" / "figures.txt").read_text(encoding="utf-8"))
    assert any(line.strip().startswith(f"all {n_layer * n_head:,} heads, averaged:") for line in printed["l"])
    run = json.loads((tmp_path / "site" / "data" / "run.json").read_text(encoding="utf-8"))
    assert (run["model"]["n_layer"], run["model"]["n_head"]) == (n_layer, n_head)
