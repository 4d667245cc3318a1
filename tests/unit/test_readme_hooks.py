"""docs/model.md's table of hook points is the model's: every hook point of layer 0 and of the model has a row, every
row names a hook point, and the shape each row gives is the shape that passes there on a small model."""

from __future__ import annotations

import re

import pytest

torch = pytest.importorskip("torch")

from conftest import read_doc  # noqa: E402
from figsite.model.gpt2 import GPT2Config  # noqa: E402
from figsite.model.load import random_model  # noqa: E402

MODEL_DOC = read_doc("model.md")
SIZES = {"batch": 2, "position": 5, "query": 5, "key": 5, "d_model": 12, "heads": 3, "d_head": 4, "d_mlp": 48}


def table_rows() -> dict:
    """hook point name (layer 0) -> the shape docs/model.md gives, as a tuple of words."""
    section = MODEL_DOC[MODEL_DOC.index("## Hook points and words") :]
    rows = {}
    for names, shape in re.findall(r"^\| (`[^|]+) \| \(([^)]*)\) \|", section, re.M):
        first, *others = re.findall(r"`([^`]+)`", names)
        full = [first] + [first.rsplit(".", 1)[0] + other for other in others]  # `.hook_k` after `...attn.hook_q`
        for name in full:
            rows[name.replace(".L.", ".0.")] = tuple(word.strip() for word in shape.split(","))
    return rows


@pytest.fixture(scope="module")
def seen() -> dict:
    """name -> the shape that passed there in one pass of a small model over a batch of 2 texts of 5 tokens."""
    config = GPT2Config(vocab_size=40, n_positions=8, n_embd=12, n_layer=2, n_head=3)
    model = random_model(0, config)
    shapes = {}
    record = {
        name: (lambda activation, name: shapes.__setitem__(name, tuple(activation.shape))) for name in model.hook_points
    }
    with model.hooks(record):
        model(torch.randint(0, 40, (2, 5)))
    return shapes


def test_every_hook_point_of_layer_0_and_of_the_model_has_a_row_and_every_row_is_a_hook_point(seen):
    documented = set(table_rows())
    real = {name for name in seen if not name.startswith("blocks.") or name.startswith("blocks.0.")}
    assert documented == real


def test_each_row_gives_the_shape_that_passes_there(seen):
    for name, words in table_rows().items():
        expected = tuple(1 if word == "1" else SIZES[word] for word in words)
        assert seen[name] == expected, name
