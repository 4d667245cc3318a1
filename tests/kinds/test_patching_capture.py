"""The captured part "patchings" (figsite/capture/parts/patchings.py): activation patching between two texts of
the same length, on the small seeded model, against the float64 reference (tests/reference.py: patched,
unpatched), which runs the clean text keeping its activations and then the corrupted text with one put back.

Three pairs: the chapter's (the texts differ at one token in the middle, read at the last position), one whose
texts differ at the first two tokens and read at a middle position, and one whose texts differ only at the read
position (there, putting back the clean stream at any layer gives the clean answer). Together they tell a patch
put back once from one put back again at every later layer by 10 times the tolerance in every row of every grid."""

from __future__ import annotations

from itertools import combinations

import pytest
import torch

import reference as ref_lib
from figsite.capture import api as capture
from figsite.capture.parts import patchings as patchings_module

DIFF, PROBABILITY = 1e-4, 1e-5
MARGIN = 10  # a patch put back again at every later layer moves some pair's cell by this many times DIFF or more
RELATIVE = 1e-3  # a probability also within 0.1% (and the data's rounding, 5e-9): the chapter's p are near 3e-6
N_LAYER, N_HEAD = 3, 4  # the small model's (tests/conftest.py SMALL_SHAPE)
PAIRS = {
    "chapter": ("Maya lives in Paris, the capital of", "Maya lives in Rome, the capital of", -1, " France", " Italy"),
    "first token": (
        "Cats chase mice in the garden at night",
        "Dogs chase mice in the garden at night",
        5,
        " the",
        " a",
    ),
    "last token": ("The cat sat on the", "The cat sat on a", -1, " the", " a"),
}  # clean, corrupted, read position, target, versus: the last two pairs' targets are likely there (p 0.01 to 0.06)


def tokens_only():
    """GPT-2's tokenizer without a model, as the token functions take it."""
    return capture.Loaded(None, capture.gpt2_tokenizer(), "", None, "cpu")


class Pair:
    """One pair's token ids, read position, target and versus ids, and the part's entry for it."""

    def __init__(self, loaded, clean: str, corrupted: str, position: int, target: str, versus: str):
        self.clean, self.corrupted = capture.token_ids(loaded, clean), capture.token_ids(loaded, corrupted)
        assert len(self.clean) == len(self.corrupted), "a pair's texts must have the same token count"
        (self.target,), (self.versus,) = capture.token_ids(loaded, target), capture.token_ids(loaded, versus)
        self.position = position % len(self.clean)
        self.entry = self.run(loaded)

    def run(self, loaded) -> dict:
        return capture.patchings(loaded, self.clean, self.corrupted, self.position, self.target, self.versus)

    @property
    def n(self) -> int:
        return len(self.clean)

    @property
    def first_difference(self) -> int:
        return next(q for q, (a, b) in enumerate(zip(self.clean, self.corrupted)) if a != b)

    def reference(self, weights, site: str, layer: int, index: int, clean_kept: dict) -> tuple[float, float]:
        return ref_lib.patched(
            weights,
            self.clean,
            self.corrupted,
            self.position,
            self.target,
            self.versus,
            site,
            layer,
            index,
            clean=clean_kept,
        )


@pytest.fixture(scope="module", params=list(PAIRS))
def pair(request, loaded) -> Pair:
    return Pair(loaded, *PAIRS[request.param])


def close_p(got: float, want: float) -> bool:
    return abs(got - want) <= min(PROBABILITY, RELATIVE * want + 5e-9)


def cells(pair: Pair):
    """(site, row, column) of every cell of every grid."""
    shapes = {
        "resid_pre": (N_LAYER + 1, pair.n),
        "attn_out": (N_LAYER, pair.n),
        "mlp_out": (N_LAYER, pair.n),
        "z": (N_LAYER, N_HEAD),
    }
    for site, (rows, cols) in shapes.items():
        for row in range(rows):
            for col in range(cols):
                yield site, row, col


@pytest.fixture(scope="module")
def reference_grids(pair, weights) -> dict:
    """The reference's (diff, p) of every cell, as grids[site][row][column]."""
    clean_kept = ref_lib.patch_run(weights, pair.clean)[1]
    grids = {}
    for site, row, col in cells(pair):
        grids.setdefault(site, {}).setdefault(row, []).append(pair.reference(weights, site, row, col, clean_kept))
    return {site: [rows[row] for row in sorted(rows)] for site, rows in grids.items()}


# ---------------------------------------------------------------------------------------------- against the reference


def test_the_clean_and_corrupted_runs_match_the_float64_reference(pair, weights):
    entry = pair.entry
    for run, ids in (("clean", pair.clean), ("corrupted", pair.corrupted)):
        diff, p = ref_lib.unpatched(weights, ids, pair.position, pair.target, pair.versus)
        assert entry[run]["diff"] == pytest.approx(diff, abs=DIFF), run
        assert close_p(entry[run]["p"], p), (run, entry[run]["p"], p)


def test_every_cell_of_every_grid_matches_the_float64_reference(pair, reference_grids):
    grids, wrong = pair.entry["grids"], []
    for site, row, col in cells(pair):
        diff, p = reference_grids[site][row][col]
        got_diff, got_p = grids[site]["diff"][row][col], grids[site]["p"][row][col]
        if abs(got_diff - diff) > DIFF or not close_p(got_p, p):
            wrong.append(f"{site}[{row}][{col}]: diff {got_diff} vs {diff}, p {got_p} vs {p}")
    assert not wrong, "\n".join(wrong)


def test_in_the_reference_each_layers_patch_is_told_apart_from_every_other_layers(pair, reference_grids):
    """Any two rows of a grid differ by several times the tolerance somewhere, so a patch put in at the wrong layer
    fails the comparison above (the small model's patches move the answer by 1e-3 to 1, no more). Not resid_pre
    where only the read position differs: there every row is the clean run (see the test by hand below)."""
    for site, grid in reference_grids.items():
        if site == "resid_pre" and pair.first_difference == pair.position:
            continue
        for a, b in combinations(range(len(grid)), 2):
            assert max(abs(x[0] - y[0]) for x, y in zip(grid[a], grid[b])) > 3 * DIFF, (site, a, b)


def moves_of_a_patch_put_back_again(loaded, weights, site: str, row: int):
    """How far the score difference moves when the patch at (site, row) is put back again at every later layer
    too (a patch left in place), cell after cell: pair after pair, from the read position back."""
    for clean_text, corrupted_text, position, target, versus in PAIRS.values():
        clean, corrupted = capture.token_ids(loaded, clean_text), capture.token_ids(loaded, corrupted_text)
        (target,), (versus,) = capture.token_ids(loaded, target), capture.token_ids(loaded, versus)
        position %= len(clean)
        clean_kept = ref_lib.patch_run(weights, clean)[1]
        first = next(q for q, (a, b) in enumerate(zip(clean, corrupted)) if a != b)
        # The positions a patch can move the answer from: not before the texts differ, nor after the read position.
        columns = range(N_HEAD) if site == "z" else range(position, first - 1, -1)
        for col in columns:
            once, again = (
                ref_lib.patched(
                    weights, clean, corrupted, position, target, versus, site, row, col, clean_kept, again=twice
                )[0]
                for twice in (False, True)
            )
            yield abs(again - once)


@pytest.mark.parametrize(
    "site, rows", [("resid_pre", N_LAYER), ("attn_out", N_LAYER - 1), ("mlp_out", N_LAYER - 1), ("z", N_LAYER - 1)]
)  # the rows with a later layer to put it back in
def test_a_patch_put_back_again_at_every_later_layer_would_move_a_cell_of_every_row_by_10_times_the_tolerance(
    loaded, weights, site, rows
):
    """The margin the comparison above stands on: in every row of every grid, some pair's cell moves by MARGIN
    times DIFF or more when the patch is put back again at every later layer, so the comparison cannot miss such a
    slip. Each pair alone need not: where only the read position differs, the stream put back once already makes
    every later layer the clean run's."""
    for row in range(rows):
        largest = 0.0
        for moved in moves_of_a_patch_put_back_again(loaded, weights, site, row):
            largest = max(largest, moved)
            if largest >= MARGIN * DIFF:
                break
        assert largest >= MARGIN * DIFF, (site, row, largest)


def test_the_reference_unpatched_run_is_the_reference_forward_pass(weights):
    ids = capture.token_ids(tokens_only(), PAIRS["chapter"][0])
    final, kept = ref_lib.patch_run(weights, ids)
    residual = ref_lib.forward(weights, ids).residual
    assert torch.allclose(final, residual[-1], rtol=0, atol=1e-12)
    for layer in range(N_LAYER + 1):
        assert torch.allclose(kept[("resid_pre", layer)], residual[layer], rtol=0, atol=1e-12), layer


# ---------------------------------------------------------------------------------------------- exact equalities


def test_the_clean_stream_after_the_last_layer_at_the_read_position_gives_exactly_the_clean_answer(pair):
    grids = pair.entry["grids"]["resid_pre"]
    assert grids["diff"][N_LAYER][pair.position] == pair.entry["clean"]["diff"]
    assert grids["p"][N_LAYER][pair.position] == pair.entry["clean"]["p"]


def test_the_stream_after_the_last_layer_elsewhere_gives_exactly_the_corrupted_answer(pair):
    grids, corrupted = pair.entry["grids"]["resid_pre"], pair.entry["corrupted"]
    for col in range(pair.n):
        if col != pair.position:
            assert (grids["diff"][N_LAYER][col], grids["p"][N_LAYER][col]) == (corrupted["diff"], corrupted["p"])


def test_a_shared_token_patched_at_the_first_layers_input_gives_exactly_the_corrupted_answer(pair):
    grids, corrupted = pair.entry["grids"]["resid_pre"], pair.entry["corrupted"]
    shared = [q for q, (a, b) in enumerate(zip(pair.clean, pair.corrupted)) if a == b]
    assert any(q > pair.first_difference for q in shared) or pair.first_difference == pair.n - 1
    for q in shared:
        assert (grids["diff"][0][q], grids["p"][0][q]) == (corrupted["diff"], corrupted["p"]), q


def test_a_position_before_the_first_difference_gives_exactly_the_corrupted_answer_in_every_row(pair):
    grids, corrupted = pair.entry["grids"], pair.entry["corrupted"]
    for site in ("resid_pre", "attn_out", "mlp_out"):
        for row in range(len(grids[site]["diff"])):
            for q in range(pair.first_difference):
                got = (grids[site]["diff"][row][q], grids[site]["p"][row][q])
                assert got == (corrupted["diff"], corrupted["p"]), (site, row, q)


def test_the_grids_have_layers_by_positions_and_layers_by_heads(pair):
    grids = pair.entry["grids"]
    shapes = {
        "resid_pre": (N_LAYER + 1, pair.n),
        "attn_out": (N_LAYER, pair.n),
        "mlp_out": (N_LAYER, pair.n),
        "z": (N_LAYER, N_HEAD),
    }
    assert set(grids) == set(shapes)
    for site, (rows, cols) in shapes.items():
        for kind in ("diff", "p"):
            assert len(grids[site][kind]) == rows, (site, kind)
            assert all(len(row) == cols for row in grids[site][kind]), (site, kind)


def test_the_entry_names_the_position_and_the_two_tokens(pair):
    entry = pair.entry
    assert entry["position"] == pair.position
    assert entry["target"]["id"] == pair.target and entry["versus"]["id"] == pair.versus
    texts = {
        capture.token_ids(tokens_only(), word)[0]: word
        for *_, target, versus in PAIRS.values()
        for word in (target, versus)
    }
    assert (entry["target"]["text"], entry["versus"]["text"]) == (texts[pair.target], texts[pair.versus])


# ---------------------------------------------------------------------------------------------- by hand


def test_texts_that_differ_only_at_the_read_position_give_the_clean_answer_for_its_stream_at_every_layer(loaded):
    """Before the read position the two runs are the same; the stream at it, put back at any layer, makes the
    rest of the run the clean one."""
    pair = Pair(loaded, *PAIRS["last token"])
    assert pair.first_difference == pair.position == pair.n - 1
    grids, clean = pair.entry["grids"]["resid_pre"], pair.entry["clean"]
    for row in range(N_LAYER + 1):
        assert grids["diff"][row][pair.position] == pytest.approx(clean["diff"], abs=DIFF), row
        assert grids["p"][row][pair.position] == pytest.approx(clean["p"], abs=PROBABILITY), row
    assert abs(clean["diff"] - pair.entry["corrupted"]["diff"]) > 100 * DIFF  # the patch has something to bring back


def test_identical_texts_give_the_same_answer_in_every_cell(loaded):
    text = PAIRS["chapter"][0]
    pair = Pair(loaded, text, text, -1, " France", " Italy")
    entry = pair.entry
    assert entry["clean"] == entry["corrupted"]
    for site, row, col in cells(pair):
        assert entry["grids"][site]["diff"][row][col] == entry["clean"]["diff"], (site, row, col)
        assert entry["grids"][site]["p"][row][col] == entry["clean"]["p"], (site, row, col)


# ---------------------------------------------------------------------------------------------- batches


def test_the_result_is_the_same_when_the_patched_runs_go_one_at_a_time(pair, loaded, monkeypatch):
    monkeypatch.setattr(patchings_module, "MAX_CHUNK", 1)
    one_at_a_time = pair.run(loaded)
    default = pair.entry
    for run in ("clean", "corrupted"):
        assert one_at_a_time[run] == default[run]
    for site, row, col in cells(pair):
        for kind in ("diff", "p"):
            got, want = one_at_a_time["grids"][site][kind][row][col], default["grids"][site][kind][row][col]
            assert got == pytest.approx(want, abs=1e-5), (site, kind, row, col)


def test_on_gpt2_xls_shape_one_batch_of_patched_runs_stays_within_its_share_of_the_memory_estimate():
    """The runs go through a layer CHUNK_BYTES at a time however long the text (up to the kind's 64 tokens), and
    the part's share of the estimate counts that batch and both runs' kept activations."""
    from figsite.capture.parts import patchings as part
    from figsite.model.memory import Shape

    xl = Shape(n_layer=48, n_head=25, d_model=1600, vocab=50257, n_ctx=1024, d_inner=6400)
    for n in (2, 10, 64):
        one = part._run_bytes(xl.d_model, xl.d_inner, xl.n_head, n)
        runs = part.runs_per_batch(xl.d_model, xl.d_inner, xl.n_head, n)
        kept = 2 * xl.n_layer * n * 4 * xl.d_model * 4
        assert 1 <= runs and runs * one <= part.CHUNK_BYTES
        assert part.PART.memory(xl, n) == runs * one + kept
        assert part.PART.memory(xl, n) <= part.CHUNK_BYTES + kept
