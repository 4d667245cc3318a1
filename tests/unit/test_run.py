"""figsite/data/run.py's accessors, the only way the figures read a run: each is checked against values known
beforehand (a run written by hand here) or computed without it (the small model's tokenizer and the independent
reference forward pass, tests/reference.py), never against the accessor itself.

Layers, heads, stages and positions are 0-based in the accessors, as in the data files.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from figsite.data.asks import Asks
from figsite.data.paths import AVERAGE_FILE, head_file
from figsite.data.run import DATA_FORMAT, HEAD_FORMAT, LONG_DATA_FORMAT, Run, head_file_text

SHORT, LONG, OTHER = "A b c", "A long text", "A b d"
MODEL = {"name": "hand-made", "revision": None, "n_layer": 2, "n_head": 2, "d_model": 8, "vocab_size": 50, "n_ctx": 16}

# Two layers of two heads over three tokens: head (l, h) gives query q's shares over keys 0..q.
SHARES = [
    [[[1.0], [0.25, 0.75], [0.5, 0.25, 0.25]], [[1.0], [0.5, 0.5], [0.0, 0.0, 1.0]]],
    [[[1.0], [1.0, 0.0], [0.125, 0.125, 0.75]], [[1.0], [0.75, 0.25], [0.25, 0.5, 0.25]]],
]
# The read-out at each of the three stages (after the embedding, after layers 1 and 2) and three positions.
TOP = [
    [[[11, 0.5], [12, 0.25]], [[12, 0.6], [11, 0.1]], [[13, 0.9], [11, 0.05]]],
    [[[12, 0.4], [11, 0.3]], [[11, 0.7], [13, 0.2]], [[11, 0.8], [12, 0.1]]],
    [[[13, 0.3], [12, 0.2]], [[13, 0.5], [11, 0.4]], [[12, 0.95], [13, 0.01]]],
]
TARGET_P = [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]]  # [stage][position]


def short_data() -> dict:
    return {
        "format": DATA_FORMAT,
        "model": MODEL,
        "text": SHORT,
        "tokens": [{"id": 1, "text": "A"}, {"id": 2, "text": " b"}, {"id": 3, "text": " c"}],
        "attention": SHARES,
        "readout": [[{"top": cell} for cell in stage] for stage in TOP],
        "target": {"id": 12, "text": " X", "p": TARGET_P},
    }


def long_data() -> tuple[dict, dict]:
    """A text in format 3: its data file and its head files (layer 1, head 2 and the average only). Shares in
    units of 1e-4; below 0.5% left out: query 2 of layer 1, head 2 keeps keys 0 and 2 only."""
    data = {
        "format": LONG_DATA_FORMAT,
        "model": MODEL,
        "text": LONG,
        "tokens": [{"id": 4, "text": "A"}, {"id": 5, "text": " long"}, {"id": 6, "text": " text"}],
        "attention": {"files": [head_file(0, 1), AVERAGE_FILE], "unit": 0.0001, "min_share": 0.005},
        "readout": [[None, None, {"top": [[7, 0.5]]}] for _ in range(3)],
    }
    head = {
        "format": HEAD_FORMAT,
        "layer": 0,
        "head": 1,
        "keys": [[0], [0, 1], [0, 2]],
        "shares": [[10000], [2500, 7500], [6000, 3990]],
    }
    average = {
        "format": HEAD_FORMAT,
        "layer": None,
        "head": None,
        "keys": [[0], [1], [0, 1, 2]],
        "shares": [[10000], [10000], [2000, 3000, 5000]],
    }
    return data, {(LONG, head_file(0, 1)): head_file_text(head), (LONG, AVERAGE_FILE): head_file_text(average)}


@pytest.fixture
def run() -> Run:
    data, heads = long_data()
    return Run(
        model=MODEL,
        texts={SHORT: short_data(), LONG: data},
        slugs={SHORT: "a-b-c", LONG: "a-long-text"},
        shapes={
            text: {"token ids": [3], "embedding": [3, 8], "layer 1": [3, 8], "layer 2": [3, 8], "scores": [3, 50]}
            for text in (SHORT, LONG)
        },
        parameters={
            "parts": {"embedding": 528, "attention": 576, "feed-forward": 1088, "layer norm": 80, "other": 0},
            "total": 2272,
            "feed_forward_in": [8, 32],
            "feed_forward_out": [32, 8],
            "head_width": 4,
        },
        vocab={7: " seven", 11: " eleven", 12: " X", 13: " thirteen"},
        heads=heads,
        lens={
            SHORT: {
                "tokens": [13, 11],
                "p": [[[0.1 * s + 0.01 * q, 0.5] for q in range(3)] for s in range(3)],
                "rank": [[[s + q + 1, 40 + q] for q in range(3)] for s in range(3)],
            }
        },
        comparisons=[{"texts": [SHORT, OTHER], "shared": 2, "distance": [[0.0, 0.0, 1.5], [0.0, 0.0, 2.5]]}],
        parts={"scores": [{"ask": [SHORT, 1, 0, 2], "q": [1.0], "k": [[2.0]], "shares": [1.0]}]},
    )


# ---------------------------------------------------------------------------------------------- a hand-made run


def test_the_model_in_numbers(run):
    assert (run.n_layer, run.n_head, run.n_heads, run.n_stages, run.d_model, run.n_ctx) == (2, 2, 4, 3, 8, 16)
    assert (run.weights(), run.weights("feed-forward"), run.weights("layer norm")) == (2272, 1088, 80)
    assert run.feed_forward_shapes == ([8, 32], [32, 8])
    assert (run.n_neurons, run.head_width) == (32, 4)
    assert not run.is_random


def test_a_texts_tokens_as_records_and_as_texts(run):
    assert run.tokens(SHORT) == [{"id": 1, "text": "A"}, {"id": 2, "text": " b"}, {"id": 3, "text": " c"}]
    assert run.token_texts(SHORT) == ["A", " b", " c"]
    assert run.token_texts(LONG) == ["A", " long", " text"]
    assert run.n_tokens(LONG) == 3
    assert run.token_text(13) == " thirteen"


def test_the_readout_its_top_guess_and_the_target_at_a_stage_and_position(run):
    assert run.readout(SHORT, 1, 2) == [[11, 0.8], [12, 0.1]]
    assert run.top_guess(SHORT, 2, 0) == [13, 0.3]
    assert run.top_guess(SHORT, 0, 2) == [13, 0.9]
    assert run.readout(LONG, 2, 2) == [[7, 0.5]]  # a long text: read out where a figure reads it
    assert run.target(SHORT) == {"id": 12, "text": " X"}
    assert run.target(LONG) is None
    assert [run.target_p(SHORT, s, 1) for s in range(3)] == [0.2, 0.5, 0.8]


def test_a_lens_cell_is_found_by_the_followed_tokens_id_not_its_place(run):
    assert run.followed(SHORT) == [13, 11]
    assert run.lens_cell(SHORT, 2, 1, 13) == (pytest.approx(0.21), 4)  # p 0.1 * 2 + 0.01 * 1, rank 2 + 1 + 1
    assert run.lens_cell(SHORT, 0, 2, 11) == (0.5, 42)


def test_the_shares_of_a_short_text_head_by_head_and_averaged(run):
    assert run.head_rows(SHORT, 1, 0) == [[1.0], [1.0, 0.0], [0.125, 0.125, 0.75]]
    assert run.share(SHORT, 0, 1, 2, 2) == 1.0
    assert run.kept_row(SHORT, 0, 0, 1) == [(0, 0.25), (1, 0.75)]
    assert run.kept_rows(SHORT, 1, 1)[2] == [(0, 0.25), (1, 0.5), (2, 0.25)]
    # the mean of the four heads' shares, worked out here: query 1 -> (0.25 + 0.5 + 1 + 0.75) / 4 ...
    assert run.average_rows(SHORT) == [[1.0], [0.625, 0.375], [0.21875, 0.21875, 0.5625]]
    assert not run.is_long(SHORT)


def test_the_shares_of_a_long_text_come_from_its_head_files_and_left_out_shares_count_as_zero(run):
    assert run.is_long(LONG)
    assert run.head_rows(LONG, 0, 1) == [[1.0], [0.25, 0.75], [0.6, 0.0, 0.399]]
    assert run.kept_row(LONG, 0, 1, 2) == [(0, 0.6), (2, 0.399)]
    assert run.share(LONG, 0, 1, 2, 1) == 0.0 and run.share(LONG, 0, 1, 2, 2) == 0.399
    assert run.average_rows(LONG) == [[1.0], [0.0, 1.0], [0.2, 0.3, 0.5]]
    assert run.head_files(LONG)["1-2"] == "data/a-long-text/layer-00-head-01.js"
    assert run.head_files(LONG)["all"] == "data/a-long-text/average.js"


def test_shapes_comparisons_and_part_entries(run):
    assert run.shape(SHORT, "embedding") == [3, 8] and run.shape(SHORT, "scores") == [3, 50]
    assert run.distances(SHORT, OTHER) == [[0.0, 0.0, 1.5], [0.0, 0.0, 2.5]]
    assert run.shared_tokens(SHORT, OTHER) == 2
    assert run.part("scores", (SHORT, 1, 0, 2))["k"] == [[2.0]]  # an ask as a tuple or a list


def test_the_run_holds_a_figure_only_once_it_holds_every_text_and_each_part_says_it_holds_its_answer(run):
    torch = pytest.importorskip("torch")  # noqa: F841 - the registry's parts import it
    from figsite.capture.parts import EntryPart, registered

    class NewPart(EntryPart):  # a part added to the registry: the run is asked of it without a change to run.py
        name = "a new part"

    parts = (*registered(), NewPart())

    def holds(texts: list, asked: dict) -> bool:
        return run.holds(Asks(texts={text: None for text in texts}, parts=asked), parts)

    assert holds([SHORT], {"readout": [[SHORT, 2]], "lens": {SHORT: []}, "pairs": [[SHORT, OTHER]]})
    assert holds([SHORT], {"scores": [[SHORT, 1, 0, 2]]})
    assert not holds([SHORT], {"scores": [[SHORT, 1, 1, 2]]})
    assert not holds([SHORT, "another text"], {})
    assert not holds([LONG], {"lens": {LONG: []}})
    assert not holds([SHORT], {"pairs": [[OTHER, SHORT]]})
    assert not holds([SHORT], {"ledgers": [[SHORT, 2, " X", None]]})  # a part the run holds no entry of
    assert not holds([SHORT], {"a new part": [[SHORT]]})  # any part of data/parts.json, by its name
    run.parts["a new part"] = [{"ask": [SHORT]}]
    assert holds([SHORT], {"a new part": [[SHORT]]})


def test_the_run_asks_each_asked_part_whether_it_holds_the_answer_and_no_other(run):
    asked = []

    class Part:  # what holds reads of a part of the registry: its name, and whether the run holds its answer
        def __init__(self, name: str, answer: bool):
            self.name, self.answer = name, answer

        def answered(self, held_by, asks) -> bool:
            asked.append((self.name, asks))
            return held_by is run and self.answer

    registry = [Part("found", True), Part("missing", False), Part("unasked", False)]
    assert run.holds(Asks(texts={SHORT: None}, parts={"found": [1]}), registry)
    assert not run.holds(Asks(texts={SHORT: None}, parts={"found": [2], "missing": [3]}), registry)
    assert asked == [("found", [1]), ("found", [2]), ("missing", [3])]


def test_the_accessors_read_a_run_written_to_files_and_read_back(run, tmp_path):
    run.write_files(tmp_path)
    back = Run.from_files(lambda path: (tmp_path / path).read_text(encoding="utf-8"))
    assert back.token_texts(SHORT) == ["A", " b", " c"]
    assert back.head_rows(LONG, 0, 1)[2] == [0.6, 0.0, 0.399]
    assert back.lens_cell(SHORT, 0, 2, 11) == (0.5, 42)
    assert back.weights("attention") == 576 and back.distances(SHORT, OTHER)[1][2] == 2.5


# ---------------------------------------------------------------------------------------------- the small model

torch = pytest.importorskip("torch")

ANIMAL = "The animal didn't cross the street because it was too tired"  # conftest's SMALL_CONFIG
MAYA = "Maya lives in Paris, the capital of"


@pytest.fixture(scope="module")
def small_run(small_build) -> Run:
    data = Path(small_build) / "data"
    return Run.from_files(lambda path: (data / path).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def tokenizer(small_model_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(small_model_dir))


@pytest.fixture(scope="module")
def maya(small_model_dir, tokenizer):
    """MAYA's token ids and the reference forward pass over them."""
    import reference

    ids = tokenizer.encode(MAYA)
    return ids, reference.reference(small_model_dir, ids)


def test_the_small_models_size(small_run):
    from conftest import SMALL_SHAPE

    assert (small_run.n_layer, small_run.n_head, small_run.d_model) == (
        SMALL_SHAPE["n_layer"],
        SMALL_SHAPE["n_head"],
        SMALL_SHAPE["n_embd"],
    )
    assert small_run.head_width == SMALL_SHAPE["n_embd"] // SMALL_SHAPE["n_head"]
    assert small_run.n_neurons == 4 * SMALL_SHAPE["n_embd"]  # GPT-2's feed-forward step is four times as wide


def test_token_texts_are_the_tokenizers_tokens_decoded_one_by_one(small_run, tokenizer):
    for text in (ANIMAL, MAYA):
        ids = tokenizer.encode(text)
        assert small_run.token_texts(text) == [tokenizer.decode([i]) for i in ids]
        assert [t["id"] for t in small_run.tokens(text)] == ids
        assert small_run.shape(text, "embedding") == [len(ids), small_run.d_model]


def test_shares_are_the_reference_models_attention(small_run, maya):
    ids, ref = maya
    for layer in range(small_run.n_layer):
        for head in range(small_run.n_head):
            rows = small_run.head_rows(MAYA, layer, head)
            for q, row in enumerate(rows):
                assert row == pytest.approx(ref.attention[layer, head, q, : q + 1].tolist(), abs=1e-4)
    mean = ref.attention.mean(dim=(0, 1))
    for q, row in enumerate(small_run.average_rows(MAYA)):
        assert row == pytest.approx(mean[q, : q + 1].tolist(), abs=1e-4)


def test_the_readout_and_the_target_are_the_reference_models_probabilities(small_run, maya, tokenizer):
    ids, ref = maya
    target = tokenizer.encode(" France")[0]
    assert small_run.target(MAYA) == {"id": target, "text": " France"}
    last = len(ids) - 1
    for stage in range(small_run.n_stages):
        probs = ref.probs[stage, last]
        top = small_run.readout(MAYA, stage, last)
        assert len(top) == 10
        assert [p for _, p in top] == pytest.approx(torch.topk(probs, 10).values.tolist(), abs=1e-5)
        assert all(abs(probs[i].item() - p) <= 1e-5 for i, p in top)
        assert small_run.top_guess(MAYA, stage, last)[0] == top[0][0]
        assert small_run.target_p(MAYA, stage, last) == pytest.approx(probs[target].item(), abs=1e-5)
