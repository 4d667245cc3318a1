"""A build that would not fit in memory stops before the weights load, in one line that names the model, the
text's length and what to change; and the estimate it goes by (figsite.model.memory) is held against the peak
resident memory of a real build, read from the build's own process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from build import cli
from conftest import gpt2_tokenizer, snapshot
from figsite.model import memory
from sitegen.site.output import MARKER
from builds.test_long_text import english_text, toml_string

REPO = Path(__file__).resolve().parents[2]

# Runs build.py's command in this process and prints the peak resident memory it reached and what the estimate
# said before the weights loaded. The peak is VmHWM from /proc/self/status: getrusage's ru_maxrss would keep the
# high-water mark of the process it was forked from (here pytest, gigabytes after a long-text test).
MEASURE = r"""
import json, re, runpy, sys
from figsite.model import memory
from sitegen.site.output import MARKER
said = []
check = memory.check
def noting(name, shape, lengths, knockouts, room=None):
    said.append(memory.estimate(shape, list(lengths.values()), knockouts))
    return check(name, shape, lengths, knockouts, room)
memory.check = noting
cli = runpy.run_path("build.py", run_name="build")["cli"]
try:
    cli(sys.argv[1:], standalone_mode=False)
finally:
    status = open("/proc/self/status").read()
    print("MEASURED " + json.dumps({"peak": int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) * 1024,
                                    "estimate": said[0] if said else None}))
"""


def long_config(path: Path, text: str) -> Path:
    path.write_text(
        f'[[figure]]\nkind = "attention"\nlabel = "long"\ntext = {toml_string(text)}\nfocus = 700\n'
        f'views = [[5, 4], [1, 1]]\n\n[[figure]]\nkind = "readout"\nlabel = "long-i"\n'
        f'text = {toml_string(text)}\ntarget = " France"\n',
        encoding="utf-8",
    )
    return path


@pytest.fixture(scope="module")
def long_text() -> str:
    return english_text(gpt2_tokenizer(), 1024)


def test_the_estimate_covers_the_measured_peak_of_a_1024_token_build_of_gpt2_smalls_shape_by_a_third_at_most(
    long_text, tmp_path
):
    config = long_config(tmp_path / "long.toml", long_text)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            MEASURE,
            "--model",
            "random",
            "--config",
            str(config),
            "--out",
            str(tmp_path / "site"),
            "--no-cache",
            "--quiet",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    measured = json.loads(done.stdout.split("MEASURED ")[-1])
    peak, estimate = measured["peak"], measured["estimate"]
    assert estimate is not None, "the build never estimated its memory before loading the weights"
    said = f"estimate {memory.gib(estimate)}, measured peak {memory.gib(peak)}"
    assert estimate >= peak, f"the estimate is below what the build took: {said}"
    assert estimate <= 1.35 * peak, f"the estimate is far above what the build took: {said}"


def test_a_build_that_would_not_fit_stops_before_the_weights_load_in_one_line_and_keeps_the_site(
    long_text, tmp_path, monkeypatch
):
    from figsite.model import load as capture

    config, out = long_config(tmp_path / "long.toml", long_text), tmp_path / "site"
    out.mkdir()
    (out / "index.html").write_text("the previous site", encoding="utf-8")
    (out / MARKER).write_text("Written by build.py; a rebuild replaces this folder.\n", encoding="utf-8")
    before = snapshot(out)
    monkeypatch.setattr(memory, "available", lambda: int(0.9 * memory.GIB))
    monkeypatch.setattr(capture, "random_gpt2", lambda *a, **k: pytest.fail("the weights were loaded"))
    result = CliRunner().invoke(cli, ["--model", "random", "--config", str(config), "--out", str(out), "--no-cache"])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    line = lines[0]
    assert line.startswith("error: --model: random") and "1,024 tokens" in line, line
    assert "0.9 GiB is available" in line and "at most" in line and "tokens fit" in line, line
    assert snapshot(out) == before


def test_the_tokens_that_fit_are_the_most_the_estimate_allows():
    shape = memory.Shape(n_layer=12, n_head=12, d_model=768, vocab=50257, n_ctx=1024, d_inner=3072)
    room = memory.estimate(shape, [600])
    with pytest.raises(Exception) as refused:
        memory.check("gpt2", shape, {"a text": 1024}, room=room)
    assert "at most 600 tokens fit" in str(refused.value)
    memory.check("gpt2", shape, {"a text": 600}, room=room)  # exactly what fits: no error


def test_the_weights_are_counted_as_gpt2_counts_them():
    # GPT-2 small and gpt2-xl as published: 124,439,808 and 1,557,611,200 weights.
    assert memory.Shape(12, 12, 768, 50257, 1024, 3072).weights == 124_439_808
    assert memory.Shape(48, 25, 1600, 50257, 1024, 6400).weights == 1_557_611_200


# Configs of every family unlike one another: biases or none, tied or not, key/value heads shared, Qwen3's norms.
FAMILY_CONFIGS = [
    ("GPT2Config", dict(n_layer=3, n_head=4, n_embd=64, n_positions=128, vocab_size=500, n_inner=96)),
    ("GPT2Config", dict(n_layer=2, n_head=4, n_embd=64, n_positions=128, vocab_size=500, tie_word_embeddings=False)),
    (
        "LlamaConfig",
        dict(
            vocab_size=400,
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=4,
            num_attention_heads=8,
            num_key_value_heads=2,
            tie_word_embeddings=False,
        ),
    ),
    (
        "Qwen2Config",
        dict(
            vocab_size=400,
            hidden_size=64,
            intermediate_size=96,
            num_hidden_layers=2,
            num_attention_heads=8,
            num_key_value_heads=4,
            tie_word_embeddings=True,
        ),
    ),
    (
        "Qwen3Config",
        dict(
            vocab_size=400,
            hidden_size=64,
            intermediate_size=96,
            num_hidden_layers=2,
            head_dim=12,
            num_attention_heads=8,
            num_key_value_heads=2,
            attention_bias=True,
        ),
    ),
    (
        "GPTNeoXConfig",
        dict(vocab_size=400, hidden_size=64, intermediate_size=128, num_hidden_layers=3, num_attention_heads=8),
    ),
    (
        "GPTNeoXConfig",
        dict(
            vocab_size=400,
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=2,
            num_attention_heads=8,
            attention_bias=False,
            tie_word_embeddings=True,
        ),
    ),
]


@pytest.mark.parametrize("class_name, values", FAMILY_CONFIGS, ids=lambda v: v if isinstance(v, str) else "")
def test_each_family_counts_its_weights_as_transformers_model_of_that_config_holds_them(class_name, values):
    import torch
    import transformers

    from figsite.model.load import FAMILIES

    config = getattr(transformers, class_name)(**values)
    with torch.device("meta"):  # the reference: transformers' own model, its weights never drawn
        theirs = transformers.AutoModelForCausalLM.from_config(config)
    held = sum(param.numel() for param in theirs.parameters())  # a tied weight once
    ours = FAMILIES[config.model_type].from_dict(config.to_dict())
    assert memory.Shape.of(ours).weights == ours.n_weights == held
