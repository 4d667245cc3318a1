"""A fault of the libraries the build calls (vl-convert, torch's ONNX exporter, the tokenizer) ends in one line
naming what it was making, with no traceback: the library's own message, however many lines, is cut to one."""

from __future__ import annotations

import io
import json
import struct
import sys
import types

import pytest

from figsite.errors import BuildError, one_line

MANY_LINES = "the spec is bad\n  at line 3\n\nStack backtrace:\n   0: vl_convert::frame\n   1: deno::frame"


class PanicException(BaseException):  # what pyo3 raises for a Rust panic: not an Exception
    pass


def test_a_library_error_of_many_lines_becomes_one_without_its_backtrace():
    assert one_line(ValueError(MANY_LINES)) == "ValueError: the spec is bad at line 3"
    long = one_line(RuntimeError("x" * 1000))
    assert len(long) == 300 and long.endswith("…") and "\n" not in long


def answers(stream: bytes) -> list[tuple[bytes, list[bytes]]]:
    """The drawing process's answers as (status, parts)."""
    out, reader = [], io.BytesIO(stream)
    while status := reader.read(1):
        (count,) = struct.unpack(">I", reader.read(4))
        out.append((status, [reader.read(struct.unpack(">Q", reader.read(8))[0]) for _ in range(count)]))
    return out


@pytest.mark.parametrize("error", [ValueError(MANY_LINES), RuntimeError(MANY_LINES), PanicException(MANY_LINES)])
def test_the_drawing_process_answers_a_vl_convert_error_or_panic_in_one_line_and_draws_on(monkeypatch, error):
    from sitegen.site import drawing

    calls = []

    def vegalite_to_vega(spec, vl_version=None):
        calls.append(spec)
        if len(calls) == 1:
            raise error
        return {"marks": []}

    monkeypatch.setitem(sys.modules, "vl_convert", types.SimpleNamespace(vegalite_to_vega=vegalite_to_vega))
    monkeypatch.setattr(drawing, "vl_version", lambda: "6.4")
    request = json.dumps({"job": "compile", "spec": {"mark": "point"}, "themes": {"light": {}, "dark": {}}})
    out = io.BytesIO()
    drawing.serve(io.BytesIO(f"{request}\n{request}\n".encode()), out)
    (status, parts), (then, _) = answers(out.getvalue())
    assert status == b"-" and parts == [f"{type(error).__name__}: the spec is bad at line 3".encode()]
    assert then == b"+"  # the process lives on and draws the next


def test_a_drawing_process_that_dies_fails_its_figure_in_one_line(monkeypatch, tmp_path):
    """The build side: a worker that ends at once (os._exit) leaves every future it owed a DrawingError."""
    from sitegen.site import drawing

    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "vl_convert.py").write_text("import os\nos._exit(3)\n", encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(fake))
    with drawing.Drawer(processes=1) as drawer:
        future = drawer.compiled({"mark": "point"}, {"light": {}, "dark": {}})
        with pytest.raises(drawing.DrawingError) as failed:
            future.result(timeout=60)
    assert "\n" not in str(failed.value) and "ended before it answered" in str(failed.value)


class Failing:
    """A tokenizers backend that fails as a Rust library does, with a message of several lines."""

    def encode(self, text, add_special_tokens=False):
        raise RuntimeError("tokenizer panicked\n  somewhere in bpe\nStack backtrace:\n 0: tokenizers::x")

    def decode(self, ids, skip_special_tokens=False):
        raise ValueError("bad id\nmore")


def test_a_tokenizer_that_fails_names_the_text_in_one_line():
    from figsite.model.tokens import Tokenizer

    with pytest.raises(BuildError) as failed:
        Tokenizer(Failing())("The animal didn't cross the street")
    assert str(failed.value) == (
        'the tokenizer could not read the text "The animal didn\'t cross the street" '
        "(RuntimeError: tokenizer panicked somewhere in bpe); allowed: a text the model's "
        "tokenizer reads; the previous site is unchanged"
    )
    with pytest.raises(BuildError) as failed:
        Tokenizer(Failing()).decode([7])
    assert "\n" not in str(failed.value) and "[7]" in str(failed.value)


def test_an_onnx_export_that_fails_is_one_line_naming_the_live_page(monkeypatch, tmp_path):
    pytest.importorskip("torch")
    from sitegen import live
    from figsite.capture import live_export
    from sitegen.pipeline import Progress, Settings

    def export(*args, **kwargs):
        raise RuntimeError("Failed to export the model with torch.export.\n" + "  frame\n" * 50)

    monkeypatch.setattr(live_export, "export", export)
    settings = Settings(config=tmp_path / "chapter.toml", model="random", cache_dir=None, live=True)
    with pytest.raises(BuildError) as failed:
        live.live_model(settings, tmp_path, Progress(verbosity=0), loaded=object())
    line = str(failed.value)
    assert line.startswith(
        "--live: the model could not be exported to ONNX for the live page (RuntimeError: "
        "Failed to export the model with torch.export. frame frame"
    )
    assert line.endswith("frame…); the previous site is unchanged") and "frame " * 49 not in line  # cut short
