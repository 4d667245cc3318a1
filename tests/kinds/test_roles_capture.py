"""The captured part "roles": every head's role scores (previous token, first token, self, duplicate token,
induction) equal the float64 reference's (tests/reference.py, written apart from the code), the repeated sequence
they are measured on is drawn as said, and a GPT-2 whose one head was made by hand to look at the previous token
scores as one."""

from __future__ import annotations

import math

import pytest
import torch

import reference as ref_lib
from figsite.capture import api as capture
from figsite.capture.parts.roles import PART, repeated
from figsite.model.gpt2 import GPT2Config, Tokenizer
from figsite.model.load import random_model

STREET = "The animal didn't cross the street because it was too tired"
ROSE = "A rose is a rose is a rose"  # " rose", " is" and " a" come back: "duplicate_text" has something to measure
REPEAT_LENGTH = 12
ROLES = ("previous", "first", "self", "duplicate_text", "duplicate", "induction")


@pytest.fixture(scope="module")
def end_of_text(loaded) -> int:
    """<|endoftext|>'s id, as the tokenizer gives it (50256 for GPT-2's)."""
    (found,) = loaded.tokenizer.encode("<|endoftext|>")
    return found


@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize("text", [STREET, ROSE])
def test_every_score_of_every_head_equals_the_float64_reference(loaded, weights, text, seed):
    entry = PART.compute(loaded, [text, REPEAT_LENGTH, seed])
    sequence = repeated(loaded, REPEAT_LENGTH, seed)
    assert entry["repeat_length"] == REPEAT_LENGTH and entry["sequence"] == sequence[:REPEAT_LENGTH]
    expected = ref_lib.head_role_scores(weights, capture.token_ids(loaded, text), sequence, REPEAT_LENGTH)
    assert set(entry["scores"]) == set(ROLES)
    assert (expected["duplicate_text"] is None) == (text == STREET)  # the rose text does measure it
    for role in ROLES:
        got, want = entry["scores"][role], expected[role]
        if want is None:
            assert got is None, f"{role}: {got}, but no token of the text repeats"
            continue
        assert len(got) == weights.n_layer and all(len(row) == weights.n_head for row in got), role
        for layer in range(weights.n_layer):
            for head in range(weights.n_head):
                assert got[layer][head] == pytest.approx(want[layer][head], abs=1e-6), (role, layer, head)


def blocks_of(shares: list, size: int) -> list:
    """The lower triangle of one head's pattern (a list of rows) in blocks of `size` tokens, row after row: the
    share a block's tokens give another block's tokens, on average over the first block's tokens."""
    n = len(shares)
    blocks = math.ceil(n / size)
    cells = []
    for q_block in range(blocks):
        queries = range(q_block * size, min(n, (q_block + 1) * size))
        for k_block in range(q_block + 1):
            keys = range(k_block * size, min(n, (k_block + 1) * size))
            cells.append(sum(shares[q][k] for q in queries for k in keys) / len(queries))
    return cells


@pytest.mark.parametrize("max_pattern, size", [(96, 1), (10, 3)])
def test_every_heads_pattern_over_the_repeated_sequence_equals_the_float64_reference(
    loaded, weights, monkeypatch, max_pattern, size
):
    monkeypatch.setattr("figsite.capture.parts.roles.MAX_PATTERN", max_pattern)
    entry = PART.compute(loaded, [STREET, REPEAT_LENGTH, 5])
    pattern = entry["pattern"]
    assert pattern["size"] == size and pattern["blocks"] == math.ceil(2 * REPEAT_LENGTH / size)
    attention = ref_lib.forward(weights, repeated(loaded, REPEAT_LENGTH, 5)).attention.tolist()
    for layer in range(weights.n_layer):
        for head in range(weights.n_head):
            want = blocks_of(attention[layer][head], size)
            got = pattern["shares"][layer][head]
            assert len(got) == len(want)
            # Shares are kept in units of 1e-4, rounded: within half a unit, and a little for float32.
            assert all(abs(g / 10_000 - w) <= 5.1e-5 for g, w in zip(got, want)), (layer, head)


@pytest.mark.parametrize("seed", [0, 3])
def test_the_repeated_sequence_is_its_first_half_twice_and_the_same_for_the_same_seed(loaded, end_of_text, seed):
    sequence = repeated(loaded, REPEAT_LENGTH, seed)
    assert len(sequence) == 2 * REPEAT_LENGTH
    assert sequence[REPEAT_LENGTH:] == sequence[:REPEAT_LENGTH]
    assert repeated(loaded, REPEAT_LENGTH, seed) == sequence
    assert repeated(loaded, REPEAT_LENGTH, seed + 1) != sequence
    assert all(0 <= token < loaded.model.config.vocab_size for token in sequence)
    assert end_of_text not in sequence


def test_the_repeated_sequence_never_draws_a_special_token(tmp_path):
    """Over a vocabulary of three tokens, one of them <|endoftext|>, 200 draws would hold it about 67 times if it
    were drawn; they must hold the two others only (both of them)."""
    tokenizer = Tokenizer.from_vocab({"a": 0, "<|endoftext|>": 1, "b": 2}, [])
    (special,) = tokenizer.encode("<|endoftext|>")
    tiny = random_model(0, GPT2Config(vocab_size=3, n_positions=8, n_embd=8, n_layer=1, n_head=1))
    sequence = repeated(capture.Loaded(tiny, tokenizer, "tiny", None, "cpu"), 200, 0)
    assert special == 1 and set(sequence) == {0, 2}


# ---------------------------------------------------------------------------------------------- a head made by hand

N_EMBD, N_POSITIONS, QUERY_SCALE = 64, 32, 2.0
ORDINARY = "The quick brown fox jumps over the lazy dog by the river"


def position_vector(p: int) -> torch.Tensor:
    """d_p = e_(2p) - e_(2p+1): mean 0, so layer norm only scales it; d_p . d_q = 2 if p == q else 0."""
    d = torch.zeros(N_EMBD)
    d[2 * p], d[2 * p + 1] = 1.0, -1.0
    return d


@pytest.fixture(scope="module")
def previous_token_model_dir(tmp_path_factory):
    """GPT-2's vocabulary and tokenizer, one layer, one head of width 64 that looks at the previous token (see
    test_a_head_made_to_look_at_the_previous_token_scores_as_one)."""
    directory = tmp_path_factory.mktemp("previous-token-gpt2")
    config = GPT2Config(vocab_size=50257, n_positions=N_POSITIONS, n_embd=N_EMBD, n_layer=1, n_head=1)
    model = random_model(0, config)  # layer norms gain 1 bias 0, biases 0; values, output and MLP stay drawn
    shift = torch.zeros(N_EMBD, N_EMBD)  # (in, out): d_j -> d_(j+1)
    for j in range(N_POSITIONS - 1):
        shift[2 * j, 2 * j + 2] = shift[2 * j + 1, 2 * j + 3] = 1.0
    with torch.no_grad():
        model.transformer.wte.weight.zero_()
        model.transformer.wpe.weight.copy_(torch.stack([position_vector(p) for p in range(N_POSITIONS)]))
        model.transformer.h[0].attn.c_attn.weight[:, :N_EMBD] = QUERY_SCALE * torch.eye(N_EMBD)  # query
        model.transformer.h[0].attn.c_attn.weight[:, N_EMBD : 2 * N_EMBD] = shift  # key
    model.save_pretrained(directory)
    capture.gpt2_tokenizer().save_pretrained(directory)
    return directory


def test_a_head_made_to_look_at_the_previous_token_scores_as_one(previous_token_model_dir):
    """Every token embedding is 0, so position p enters the layer as x_p = d_p = e_(2p) - e_(2p+1). Its mean is
    0 and its variance 2/64, so layer norm (gain 1, bias 0) gives d_p / s with s = sqrt(1/32 + eps). The query
    weights are 2 I: q_p = 2 d_p / s; the key weights send d_j to d_(j+1): k_j = d_(j+1) / s. The fit of query
    p with key j is q_p . k_j / sqrt(64) = 2 (d_p . d_(j+1)) / (8 s^2) = 16 when j = p - 1, and 0 for every
    other key (s^2 = 1/32 up to eps). So query p gives its previous token e^16 / (e^16 + p) > 1 - p e^-16,
    about 1 - 1e-6 for the text's dozen positions, and the others share the rest: "previous" is above 0.99.
    "self" is 1/n for n tokens: only query 0, which has no other key, looks at itself. And the key after the
    earlier copy (i - L + 1, not i - 1 for L > 2) gets nearly nothing, so "induction" is near 0."""
    loaded = capture.load(str(previous_token_model_dir), None, 0, "cpu")
    ids = capture.token_ids(loaded, ORDINARY)
    assert 10 <= len(ids) <= N_POSITIONS
    assert 1 - len(ids) * math.exp(-16) > 0.99  # the bound above, for this text's length
    scores = PART.compute(loaded, [ORDINARY, 8, 0])["scores"]
    assert scores["previous"][0][0] > 0.99
    assert scores["self"][0][0] == pytest.approx(1 / len(ids), abs=1e-3)
    assert scores["induction"][0][0] < 0.01
