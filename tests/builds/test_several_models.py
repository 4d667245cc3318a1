"""Several models in one site (docs/config.md, "Several models in one site"): a figure names the model it reads, a
side-by-side figure several; the build loads each once, keeps each run under its own identity, and writes another
model's data files under data/models/<name>/. Each model's figures read as a site of that model alone would, and
the side-by-side figure's chances are each model's own, checked against transformers in float64."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import assert_bad_config_keeps_the_site, built, hub_cache, llama_dir, other_model, snapshot

from build import cli

TEXT = "Maya lives in Paris, the capital of"
TARGET = " France"


def readout(label: str, model: str | None = None) -> str:
    return f'[[figure]]\nkind = "readout"\nlabel = "{label}"\ntext = "{TEXT}"\ntarget = "{TARGET}"\n' + (
        f'model = "{model}"\n' if model else ""
    )


def side_by_side(label: str, models: list[str]) -> str:
    return (
        f'[[figure]]\nkind = "side-by-side"\nlabel = "{label}"\ntext = "{TEXT}"\ntarget = "{TARGET}"\n'
        f"models = {json.dumps(models)}\n"
    )


@pytest.fixture(scope="module")
def llama(tmp_path_factory) -> Path:
    """A small Llama-style model whose tokenizer has a start token (conftest.llama_dir)."""
    return llama_dir(tmp_path_factory.mktemp("several") / "tiny-llama")


@pytest.fixture(scope="module")
def sites(small_model_dir, llama, tmp_path_factory) -> dict:
    """The site of three figures over two models (the command's small GPT-2 and a Llama-style model in a folder),
    built cold and then again from the cache, with what each build said (--verbose); and a site of the Llama-style
    model alone."""
    work = tmp_path_factory.mktemp("several-sites")
    config = work / "chapter.toml"
    config.write_text(
        readout("main") + readout("other", str(llama)) + side_by_side("both", [str(small_model_dir), str(llama)]),
        encoding="utf-8",
    )
    said = []
    for folder in ("cold", "cached"):
        result = CliRunner().invoke(
            cli,
            [
                "--model",
                str(small_model_dir),
                "--config",
                str(config),
                "--out",
                str(work / folder),
                "--cache",
                str(work / "cache"),
                "--verbose",
            ],
        )
        assert result.exit_code == 0, result.output
        said.append(result.output)
    (work / "alone").mkdir()
    alone = built(llama, readout("other"), work / "alone", "--no-cache")
    return {"cold": work / "cold", "cached": work / "cached", "alone": alone, "said": said}


def download(site: Path, label: str) -> dict:
    return json.loads((site / "downloads" / f"figure-{label}.json").read_text(encoding="utf-8"))


def test_a_figure_of_another_model_reads_it_as_a_site_of_that_model_alone_would(sites, llama):
    several, alone = sites["cold"], sites["alone"]
    text_file = next(path.name for path in (alone / "data").glob("*.json") if path.name != "run.json")
    assert (several / "data" / "models" / "tiny-llama" / text_file).read_bytes() == (
        alone / "data" / text_file
    ).read_bytes()
    assert download(several, "other")["tables"] == download(alone, "other")["tables"]
    assert download(several, "other")["model"]["family"] == "llama"
    assert "Computed in one run of <strong>the Llama model in the folder tiny-llama</strong>" in (
        several / "figure-other.html"
    ).read_text(encoding="utf-8")
    about = (several / "about.html").read_text(encoding="utf-8")
    assert "the Llama model in the folder tiny-llama" in about and "data/models/tiny-llama/run.json" in about


def test_the_main_models_data_stay_where_they_were(sites, small_model_dir, tmp_path):
    alone = built(small_model_dir, readout("main"), tmp_path, "--no-cache")
    for path in (alone / "data").iterdir():
        assert (sites["cold"] / "data" / path.name).read_bytes() == path.read_bytes(), path.name


def test_each_model_loads_once_cold_and_not_at_all_from_the_cache(sites):
    cold, cached = sites["said"]
    assert cold.count("model load ...") == 2 and "and 1 other model:" in cold.splitlines()[-1]
    assert cached.count("cache: using the stored run") == 2 and "model load" not in cached
    assert snapshot(sites["cold"]) == snapshot(sites["cached"])


def test_the_side_by_side_chances_are_each_models_own_against_transformers_in_float64(sites, small_model_dir, llama):
    import torch
    from transformers import AutoModelForCausalLM

    rows = download(sites["cold"], "both")["tables"]["chances"]
    for folder, data in ((small_model_dir, sites["cold"] / "data"), (llama, sites["cold"] / "data/models/tiny-llama")):
        record = json.loads((data / "run.json").read_text(encoding="utf-8"))
        [entry] = [entry for entry in record["texts"] if entry["text"] == TEXT]
        ids = [token["id"] for token in json.loads((sites["cold"] / entry["data"]).read_text())["tokens"]]
        target = next(int(i) for i, text in record["vocab"].items() if text == TARGET)
        model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float64, attn_implementation="eager")
        with torch.no_grad():
            expected = torch.softmax(model(torch.tensor([ids])).logits[0, -1], -1)[target].item()
        n_layer = record["model"]["n_layer"]
        label = "tiny-llama" if folder == llama else folder.name
        [last] = [row for row in rows if row["model"] == label and row["after_layer"] == n_layer]
        # the page's chances: to 8 decimals, and below 0.1% to 3 significant digits (charts.kept_chance)
        assert math.isclose(last["p"], expected, rel_tol=5e-3, abs_tol=1e-8), (label, last["p"], expected)
        assert expected > 10 * 1e-8  # well above the rounding: the relative comparison tells it from another


def test_the_side_by_side_page_shows_each_models_tokens_and_names_each_model(sites):
    page = (sites["cold"] / "figure-both.html").read_text(encoding="utf-8")
    assert "as the Llama model in the folder tiny-llama cuts it" in page
    assert "Computed in one run of each of" in page
    assert "(its start token among them)" in page


def test_two_revisions_of_one_hub_model_side_by_side(small_model_dir, tmp_path, monkeypatch):
    hub = hub_cache(
        tmp_path / "hub",
        "tiny/steps",
        {"step1": small_model_dir, "step2": other_model(small_model_dir, tmp_path / "other")},
    )
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(hub))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    site = built(
        "tiny/steps",
        side_by_side("steps", ["tiny/steps@step1", "tiny/steps@step2"]) + readout("late", "tiny/steps@step2"),
        tmp_path,
        "--no-cache",
        "--revision",
        "step1",
    )
    rows = download(site, "steps")["tables"]["chances"]
    assert {row["model"] for row in rows} == {"steps@step1", "steps@step2"}
    early, late = ([row["p"] for row in rows if row["model"] == name] for name in ("steps@step1", "steps@step2"))
    assert early != late
    revisions = [
        json.loads((site / path).read_text())["model"]["revision"]
        for path in ("data/run.json", "data/models/tiny-steps-step2/run.json")
    ]
    assert revisions == ["1" * 40, "2" * 40]  # each the commit its revision resolved to
    assert download(site, "late")["model"]["revision"] == "2" * 40


ROSE = "A rose is a rose is a rose, and a cat is a cat"


def roles_figure(label: str, model: str) -> str:
    return (
        f'[[figure]]\nkind = "head-roles"\nlabel = "{label}"\ntext = "{ROSE}"\nrepeat_length = 6\nmodel = "{model}"\n'
    )


def test_a_habit_across_two_revisions_scores_each_as_its_own_head_roles_figure_does(
    small_model_dir, tmp_path, monkeypatch
):
    hub = hub_cache(
        tmp_path / "hub",
        "tiny/steps",
        {"step1": small_model_dir, "step2": other_model(small_model_dir, tmp_path / "other")},
    )
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(hub))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    habit = (
        f'[[figure]]\nkind = "habit-side-by-side"\nlabel = "habit"\ntext = "{ROSE}"\nrepeat_length = 6\n'
        'role = "previous"\nhead = [2, 3]\nmodels = ["tiny/steps@step1", "tiny/steps@step2"]\n'
    )
    site = built(
        "random",
        habit + roles_figure("early", "tiny/steps@step1") + roles_figure("late", "tiny/steps@step2"),
        tmp_path,
        "--no-cache",
    )
    rows = download(site, "habit")["tables"]["shares"]
    assert [row["model"] for row in rows] == ["steps@step1", "steps@step2"]
    for row, label in zip(rows, ("early", "late")):
        heads = download(site, label)["tables"]["heads"]
        assert row["chosen"] == next(h["previous"] for h in heads if (h["layer"], h["head"]) == (2, 3))
        assert row["strongest"] == max(h["previous"] for h in heads)
    assert rows[0]["chosen"] != rows[1]["chosen"]
    assert "random" not in (site / "figure-habit.html").read_text(encoding="utf-8").split("<footer")[1]


GOOD = readout("good")


@pytest.mark.parametrize(
    "bad, field, words",
    [
        (readout("bad", "random@x"), "model", ["'x' is no seed"]),
        (readout("bad", "@main"), "model", ["no model or no revision"]),
        (side_by_side("bad", ["random"]), "models", ["1 model", "2 to 4 models"]),
        (side_by_side("bad", ["random", "random@0"]), "models", ["a model is named twice"]),
        (
            '[[figure]]\nkind = "habit-side-by-side"\nlabel = "bad"\ntext = "A rose is a rose is a rose, and a cat"\n'
            'models = ["random", "random@1"]\nrole = "sleep"\n',
            "role",
            ["'sleep' is not a habit", "'induction'"],
        ),
    ],
)
def test_a_bad_model_is_one_line_naming_the_field_and_the_site_stays(small_model_dir, tmp_path, bad, field, words):
    assert_bad_config_keeps_the_site(small_model_dir, tmp_path, GOOD, GOOD + bad, field, words)


def test_a_folders_model_with_a_revision_is_refused(small_model_dir, llama, tmp_path):
    bad = readout("bad", f"{llama}@main")
    assert_bad_config_keeps_the_site(small_model_dir, tmp_path, GOOD, GOOD + bad, "model", ["has no revisions"])


def test_a_page_warns_of_its_own_models_random_weights_not_of_the_sites(llama, tmp_path):
    site = built("random", readout("main") + readout("other", str(llama)), tmp_path, "--no-cache")
    assert "Not GPT-2." in (site / "figure-main.html").read_text(encoding="utf-8")
    other = (site / "figure-other.html").read_text(encoding="utf-8")
    assert "Not GPT-2." not in other and "random weights" not in other.split("<footer")[1]


def test_a_start_token_is_set_apart_in_a_row_of_tokens(sites):
    page = (sites["cold"] / "figure-both.html").read_text(encoding="utf-8")
    assert page.count("data-start") == 1  # the Llama's <s>; GPT-2 has none
