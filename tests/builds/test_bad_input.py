"""Bad input ends with one line naming the figure, the field and what is allowed; exit code 2; no traceback;
and the site an earlier build wrote stays exactly as it was."""

from __future__ import annotations

import pytest
from conftest import TWO_FIGURES, snapshot
from click.testing import CliRunner

from build import cli

GOOD = TWO_FIGURES  # a config that builds


def figure(**fields) -> str:
    """One [[figure]] table in TOML, from keyword arguments."""

    def toml(value):
        if isinstance(value, str):
            return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
        return repr(value).replace("'", '"')

    return "[[figure]]\n" + "".join(f"{key} = {toml(value)}\n" for key, value in fields.items())


@pytest.fixture(scope="module")
def built(small_model_dir, tmp_path_factory):
    """A site built from a good config, which every bad build below must leave untouched."""
    work = tmp_path_factory.mktemp("bad-input")
    config = work / "good.toml"
    config.write_text(GOOD, encoding="utf-8")
    out = work / "site"
    result = CliRunner().invoke(cli, ["--model", str(small_model_dir), "--config", str(config), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out, snapshot(out)


def build_with(small_model_dir, built, tmp_path, config_text=None, args=()):
    out, _ = built
    config = tmp_path / "chapter.toml"
    if config_text is not None:
        config.write_text(config_text, encoding="utf-8")
    return CliRunner().invoke(cli, ["--model", str(small_model_dir), "--config", str(config), "--out", str(out), *args])


def assert_one_line_error(result, *names):
    output = result.output.strip()
    assert result.exit_code == 2, output
    assert "Traceback" not in output
    assert len(output.splitlines()) == 1, output
    assert output.startswith("error: ")
    for name in names:
        assert name in output, f"{name!r} not named in: {output}"
    return output


LONG_TEXT = "the cat sat on the mat " * 200  # 1,200 tokens, over the 1,024 positions
ATTENTION = dict(kind="attention", label="a", text="The animal didn't cross the street", views=[[1, 1]])

BAD_CONFIGS = {
    "an empty text": (figure(**{**ATTENTION, "text": "  "}), ["figure 1", "'a'", "'text'", "allowed"]),
    "a text over the model's positions": (figure(**{**ATTENTION, "text": LONG_TEXT}), ["figure 1", "'text'", "1,024"]),
    "a target of two tokens": (
        figure(kind="readout", label="r", text="Maya lives in Paris", target=" France and"),
        ["figure 1", "'r'", "'target'", "exactly one token"],
    ),
    "a target of no tokens": (
        figure(kind="readout", label="r", text="Maya lives in Paris", target=""),
        ["figure 1", "'target'"],
    ),
    "a view in a layer the model lacks": (
        figure(**{**ATTENTION, "views": [[4, 1]]}),
        ["'views'", "layer 4", "layers 1 to 3"],
    ),
    "a view in a head the model lacks": (
        figure(**{**ATTENTION, "views": [[1, 5]]}),
        ["'views'", "head 5", "heads 1 to 4"],
    ),
    "a layer 0": (figure(kind="shapes", label="s", text="Maya", layers=[0, 1]), ["'layers'", "layers 1 to 3"]),
    "a focus outside the text": (figure(**{**ATTENTION, "focus": 40}), ["'focus'", "token 40", "1 to 7"]),
    "a focus naming no token": (figure(**{**ATTENTION, "focus": "tiger"}), ["'focus'", "'tiger'"]),
    "an unknown key": (figure(**{**ATTENTION, "colour": "red"}), ["'colour'", "unknown key", "allowed"]),
    "an unknown kind": (figure(kind="pie", label="p"), ["'kind'", "'pie'", "'attention'"]),
    "a missing label": (figure(kind="numbers"), ["'label'", "missing"]),
    "a label used twice": (
        figure(kind="numbers", label="n") + figure(kind="cost", label="n"),
        ["figure 2", "'label'", "already"],
    ),
    "views that are not pairs": (figure(**{**ATTENTION, "views": [5, 4]}), ["'views'", "[layer, head]"]),
    "a malformed config": ("[[figure]\nkind = \n", ["chapter.toml", "not valid TOML"]),
    "a config with no figures": ("# nothing here\n", ["chapter.toml", "no figures"]),
    "an unknown top-level key": ("title = 'x'\n" + figure(kind="numbers", label="n"), ["'title'", "top level"]),
    "a [print] key at the top level": (
        "width_mm = 120\n" + figure(kind="numbers", label="n"),
        ["'width_mm'", "top level", "[print]"],
    ),
    "a column too narrow": (
        figure(kind="numbers", label="n") + "[print]\nwidth_mm = 5\n",
        ["[print]", "'width_mm'", "5", "30 to 400"],
    ),
    "a column width in words": (
        figure(kind="numbers", label="n") + "[print]\nwidth_mm = '12 cm'\n",
        ["[print]", "'width_mm'", "not a number", "millimetres"],
    ),
    "a font that is not there": (
        figure(kind="numbers", label="n") + "[print]\nfont = 'fonts/Missing.ttf'\n",
        ["[print]", "'font'", "fonts/Missing.ttf", "does not exist", ".ttf or .otf"],
    ),
    "a font that is no font file": (
        figure(kind="numbers", label="n") + "[print]\nfont = 'chapter.toml'\n",
        ["[print]", "'font'", "chapter.toml", "not a .ttf or .otf"],
    ),
    "a font size too large": (
        figure(kind="numbers", label="n") + "[print]\nfont_size_pt = 72\n",
        ["[print]", "'font_size_pt'", "72", "4 to 24"],
    ),
    "greyscale as a word": (
        figure(kind="numbers", label="n") + "[print]\ngreyscale = 'yes'\n",
        ["[print]", "'greyscale'", "true or false"],
    ),
    "a misspelt [print] key": (
        figure(kind="numbers", label="n") + "[print]\nwidth = 100\n",
        ["[print]", "'width'", "did you mean 'width_mm'?", "font_size_pt"],
    ),
}


@pytest.mark.parametrize("case", list(BAD_CONFIGS))
def test_bad_config_ends_in_one_line_naming_figure_and_field_and_leaves_site_untouched(
    case, small_model_dir, built, tmp_path
):
    config_text, names = BAD_CONFIGS[case]
    result = build_with(small_model_dir, built, tmp_path, config_text)
    assert_one_line_error(result, *names)
    assert snapshot(built[0]) == built[1]


def test_missing_config_is_named_with_what_is_allowed(small_model_dir, built, tmp_path):
    result = build_with(small_model_dir, built, tmp_path, None)
    assert_one_line_error(result, "--config", "does not exist", "TOML")
    assert snapshot(built[0]) == built[1]


def test_missing_model_directory_is_named_with_the_ways_out(built, tmp_path):
    out, _ = built
    result = CliRunner().invoke(cli, ["--model", str(tmp_path / "no-such-model"), "--out", str(out)])
    assert_one_line_error(result, "--model", "does not exist", "random")
    assert snapshot(out) == built[1]


def test_directory_without_a_model_is_refused(built, tmp_path):
    out, _ = built
    empty = tmp_path / "empty-model"
    empty.mkdir()
    result = CliRunner().invoke(cli, ["--model", str(empty), "--out", str(out)])
    assert_one_line_error(result, "--model", "save_pretrained")
    assert snapshot(out) == built[1]


def test_weights_that_cannot_be_had_say_what_happened_and_the_ways_out(built, tmp_path, monkeypatch):
    # An empty cache and a hub id nobody has: whether or not a network is reachable, no weights come.
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    out, _ = built
    result = CliRunner().invoke(cli, ["--model", "no-such-owner/no-such-gpt2", "--out", str(out)])
    message = assert_one_line_error(result, "--model", "no-such-owner/no-such-gpt2")
    assert "network" in message and "--model DIR" in message and "--model random" in message
    assert snapshot(out) == built[1]


def test_cuda_where_there_is_none_is_refused(small_model_dir, built, tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    result = build_with(small_model_dir, built, tmp_path, GOOD, ["--device", "cuda"])
    assert_one_line_error(result, "--device", "cuda", "cpu")
    assert snapshot(built[0]) == built[1]


def test_an_unknown_option_value_is_one_line_too(small_model_dir, built, tmp_path):
    result = build_with(small_model_dir, built, tmp_path, GOOD, ["--device", "tpu"])
    assert_one_line_error(result, "--device", "tpu")


def test_out_folder_not_written_by_the_build_is_never_replaced(small_model_dir, tmp_path):
    precious = tmp_path / "home"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work", encoding="utf-8")
    config = tmp_path / "good.toml"
    config.write_text(GOOD, encoding="utf-8")
    result = CliRunner().invoke(cli, ["--model", str(small_model_dir), "--config", str(config), "--out", str(precious)])
    assert_one_line_error(result, "--out", "did not write")
    assert (precious / "thesis.tex").read_text(encoding="utf-8") == "years of work"


def test_two_readouts_of_one_text_with_different_targets_are_refused(small_model_dir, built, tmp_path):
    config = figure(kind="readout", label="r1", text="Maya lives in Paris", target=" France") + figure(
        kind="readout", label="r2", text="Maya lives in Paris", target=" Europe"
    )
    result = build_with(small_model_dir, built, tmp_path, config)
    assert_one_line_error(result, "figure 2", "'target'", "one target per text")


def test_a_good_rebuild_replaces_the_site(small_model_dir, built, tmp_path):
    """The counterpart of the tests above: a good config does change the site, so they could fail."""
    out, before = built
    config = GOOD.replace("focus = 9", "focus = 3")
    result = build_with(small_model_dir, built, tmp_path, config)
    assert result.exit_code == 0, result.output
    after = snapshot(out)
    assert after["figures.txt"] != before["figures.txt"]
    # Put the first site back for the tests that follow in this module.
    result = build_with(small_model_dir, built, tmp_path, GOOD)
    assert result.exit_code == 0 and snapshot(out) == before


def test_the_installed_command_is_build_py_with_the_same_options_and_the_same_one_line_errors(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    from conftest import REPO_ROOT

    command = Path(sys.executable).parent / "figsite-build"
    assert command.is_file(), "the package's [project.scripts] command is not installed (pip install -e .)"
    runs = [[str(command)], [sys.executable, str(REPO_ROOT / "build.py")]]
    helps = [
        subprocess.run([*run, "--help"], capture_output=True, text=True, cwd=tmp_path, timeout=120) for run in runs
    ]
    assert helps[0].returncode == helps[1].returncode == 0
    assert helps[0].stdout.split("\n", 1)[1] == helps[1].stdout.split("\n", 1)[1]  # all but "Usage: <name>"
    wrong = [
        subprocess.run([*run, "--seed", "many"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
        for run in runs
    ]
    assert [w.returncode for w in wrong] == [2, 2]
    assert wrong[0].stderr == wrong[1].stderr and len(wrong[0].stderr.strip().splitlines()) == 1, wrong[0].stderr
    assert "--seed" in wrong[0].stderr
