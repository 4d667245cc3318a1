"""A fault of a library the build calls ends the build, end to end, in one line naming the figure, with no
traceback, and the previous site kept byte for byte: vl-convert failing with a message of many lines (a stand-in
module the drawing processes import), its process dying, the tokenizer failing."""

from __future__ import annotations

import shutil

import pytest
from click.testing import CliRunner
from conftest import TWO_FIGURES, snapshot

from build import cli

FAKE_VL_CONVERT = {
    "raises": "def vegalite_to_vega(*a, **k):\n    raise ValueError('bad spec\\n  at line 3\\nStack backtrace:\\n  0: x')\n"
    "vegalite_to_svg = svg_to_png = vegalite_to_vega\n",
    "dies": "import os\ndef vegalite_to_vega(*a, **k):\n    os._exit(3)\nvegalite_to_svg = svg_to_png = vegalite_to_vega\n",
}


@pytest.fixture(scope="module")
def old_site(small_model_dir, tmp_path_factory):
    work = tmp_path_factory.mktemp("library-faults")
    (work / "chapter.toml").write_text(TWO_FIGURES, encoding="utf-8")
    result = CliRunner().invoke(
        cli,
        [
            "--model",
            str(small_model_dir),
            "--config",
            str(work / "chapter.toml"),
            "--out",
            str(work / "site"),
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    return work


def failed_build(old_site, small_model_dir, tmp_path):
    out = tmp_path / "site"
    shutil.copytree(old_site / "site", out)
    before = snapshot(out)
    result = CliRunner().invoke(
        cli,
        [
            "--model",
            str(small_model_dir),
            "--config",
            str(old_site / "chapter.toml"),
            "--out",
            str(out),
            "--no-cache",
            "--quiet",
        ],
    )
    lines = result.output.strip().splitlines()
    assert result.exit_code != 0 and len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert "Traceback" not in result.output
    assert snapshot(out) == before
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".site-")]
    return lines[0]


@pytest.mark.parametrize("fault", sorted(FAKE_VL_CONVERT))
def test_vl_convert_failing_or_its_process_dying_is_one_line_naming_the_figure(
    fault, old_site, small_model_dir, tmp_path, monkeypatch
):
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "vl_convert.py").write_text(FAKE_VL_CONVERT[fault], encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(fake))  # what the drawing processes import
    line = failed_build(old_site, small_model_dir, tmp_path)
    assert "could not be made with vl-convert" in line and "figure (" in line, line
    assert ("ValueError: bad spec at line 3" in line) if fault == "raises" else ("ended before it answered" in line)


def test_the_tokenizer_failing_is_one_line_naming_the_text(old_site, small_model_dir, tmp_path, monkeypatch):
    from figsite.model.tokens import Tokenizer

    real = Tokenizer.from_directory.__func__

    class Failing:
        def __init__(self, backend):
            self.backend = backend

        def encode(self, text, add_special_tokens=False):
            if "street" in text:
                raise RuntimeError("tokenizer panicked\n  in bpe\nStack backtrace:\n 0: x")
            return self.backend.encode(text, add_special_tokens=add_special_tokens)

        def __getattr__(self, name):
            return getattr(self.backend, name)

    monkeypatch.setattr(
        Tokenizer, "from_directory", classmethod(lambda cls, directory: cls(Failing(real(cls, directory).backend)))
    )
    line = failed_build(old_site, small_model_dir, tmp_path)
    assert "the tokenizer could not read the text" in line and "street" in line, line
    assert "RuntimeError: tokenizer panicked in bpe" in line
