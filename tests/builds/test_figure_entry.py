"""figsite.figure(kind, text=..., model=..., **keys), the figure made in a notebook without a config: the same chart
the site draws for a [[figure]] of those keys, for every kind (tests/every_kind.toml, on a small Llama: a family
other than GPT-2, texts and tokens unlike the chapter's), and a bad key refused in the build's own words."""

from __future__ import annotations

import json
import re
import tomllib

import pytest
from conftest import REPO_ROOT, read_doc

import figsite
from figsite.errors import BuildError
from figures import KINDS
from figures.toolkit.charts import spec

EVERY_KIND = tomllib.loads((REPO_ROOT / "tests" / "every_kind.toml").read_text(encoding="utf-8"))["figure"]


@pytest.mark.parametrize("table", EVERY_KIND, ids=[t["label"] for t in EVERY_KIND])
def test_a_figure_made_in_a_notebook_is_the_chart_the_site_draws(table, llama_every_kind_site):
    site, model = llama_every_kind_site, llama_every_kind_site.parent / "model"
    keys = {key: value for key, value in table.items() if key != "kind"}
    made = figsite.figure(table["kind"], model=str(model), **keys)
    drawn = json.loads(json.dumps(spec(made)))
    if KINDS[table["kind"]].SIDE_BY_SIDE:  # its models' data folders are the site's, named after its other models
        assert json.dumps(drawn).count("random") >= 2, "a side-by-side figure names each of its models"
        return
    assert drawn == json.loads((site / "downloads" / f"figure-{table['label']}.vega-lite.json").read_text())


def test_a_bad_key_is_refused_in_one_line_naming_it():
    with pytest.raises(BuildError, match=r"field 'tarrget': unknown key for a figure of kind 'readout'; allowed: "):
        figsite.figure("readout", text="The capital of France is", tarrget=" Paris", model="random")
    with pytest.raises(BuildError, match=r"field 'kind': 'pie' is not a figure kind; allowed: 'attention'"):
        figsite.figure("pie", text="x", model="random")


def examples() -> list[str]:
    """The calls docs/notebooks.md shows, one per kind."""
    return re.findall(r"^    (figsite\.figure\(.*\))$", read_doc("notebooks.md"), re.M)


def test_the_docs_show_one_call_per_kind():
    named = [re.match(r'figsite\.figure\("([a-z-]+)"', call).group(1) for call in examples()]
    assert sorted(named) == sorted(KINDS)


@pytest.mark.parametrize("call", examples())
def test_each_example_of_the_docs_makes_its_chart(call):
    """Each call as the docs write it, on GPT-2 small's shape with random weights in place of GPT-2's."""
    made = eval(call.replace('model="gpt2"', 'model="random"'), {"figsite": figsite})  # noqa: S307
    assert spec(made)["$schema"].startswith("https://vega.github.io/schema/vega-lite/")
