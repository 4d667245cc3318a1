"""The scores figure (figures/scores.py, from the part figsite/capture/parts/scores.py) gives the shares the model
gives, read against transformers run in float64 with eager attention: on a GPT-2 that divides its fits by the
layer's number too (scale_attn_by_inverse_layer_idx), a Llama (positions turned into the query and key: the part
holds the turned ones) and a Mistral whose sliding window hides the keys too far back. The reference is
transformers, never our own code."""

from __future__ import annotations

import math

import pytest
import torch
from conftest import SMALL_SEED, gpt2_tokenizer, llama_dir

from figsite.capture.parts.scores import scores
from figsite.model.load import load
from figsite.model.tokens import token_ids
from figures.scores import divided_by, divisor, rows_of, worked_out

TEXT = "The animal didn't cross the street because it was too tired"
TOLERANCE = 1e-5
WINDOW = 3


def scaled_gpt2(directory):
    """A small seeded GPT-2 whose attention divides each fit by the layer's number too."""
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(SMALL_SEED)
    config = GPT2Config(
        n_layer=3, n_head=4, n_embd=64, n_positions=64, vocab_size=50257, scale_attn_by_inverse_layer_idx=True
    )
    model = GPT2LMHeadModel(config)
    with torch.no_grad():
        for name, param in model.named_parameters():
            if name.endswith("c_attn.weight"):
                param.mul_(8.0)  # fits large enough that the layer's scale changes the shares a lot
    model.eval().save_pretrained(directory)
    gpt2_tokenizer().save_pretrained(directory)
    return directory


@pytest.fixture(scope="module", params=["gpt2-scaled", "llama", "mistral-window"])
def pair(request, tmp_path_factory):
    """(ours as the build loads it, transformers' model of the same directory in float64, the text's ids, the kind)."""
    import transformers

    directory = tmp_path_factory.mktemp(request.param)
    if request.param == "gpt2-scaled":
        scaled_gpt2(directory)
        theirs_class = transformers.GPT2LMHeadModel
    elif request.param == "llama":
        llama_dir(directory)
        theirs_class = transformers.LlamaForCausalLM
    else:
        llama_dir(directory, "mistral", sliding_window=WINDOW)
        theirs_class = transformers.MistralForCausalLM
    loaded = load(str(directory), None, 0, "cpu")
    theirs = theirs_class.from_pretrained(str(directory), dtype=torch.float64, attn_implementation="eager").eval()
    return loaded, theirs, token_ids(loaded, TEXT), request.param


def their_shares(theirs, ids: list[int]) -> tuple:
    with torch.no_grad():
        return theirs(torch.tensor([ids]), output_attentions=True).attentions


@pytest.mark.parametrize("layer", [0, 2])
def test_the_figures_shares_are_transformers_shares(pair, layer):
    loaded, theirs, ids, kind = pair
    query = len(ids) - 1
    attentions = their_shares(theirs, ids)
    for head in (0, 3):
        entry = scores(loaded, ids, layer, head, query)
        shares = [row["share"] for row in rows_of(entry)]
        expected = attentions[layer][0, head, query, : query + 1].tolist()
        assert max(abs(a - b) for a, b in zip(shares, expected)) < TOLERANCE, (kind, layer, head)
        plain = worked_out(entry["q"], entry["k"])  # q . k / sqrt(d_head) over every key: what the page did before
        gap = max(abs(row["share"] - b) for row, b in zip(plain, expected))
        if kind == "gpt2-scaled" and layer > 0 or kind == "mistral-window":
            assert "scores" in entry and gap > 1e-3, (kind, layer, gap)  # the plain formula is wrong here
        else:
            assert "scores" not in entry and gap < TOLERANCE  # the model's scores are the plain formula's


def test_the_scaled_gpt2s_divisor_is_the_root_of_the_width_times_the_layers_number(pair):
    loaded, _, ids, kind = pair
    if kind != "gpt2-scaled":
        pytest.skip("the layer's own scale is GPT-2's variant")
    entry = scores(loaded, ids, 2, 1, len(ids) - 1)
    width = len(entry["q"])
    assert divisor(entry) == pytest.approx(math.sqrt(width) * 3, rel=1e-4)
    assert "times 3, the model's own scale" in divided_by(width, divisor(entry))


def test_a_sliding_window_hides_the_keys_too_far_back(pair):
    loaded, _, ids, kind = pair
    if kind != "mistral-window":
        pytest.skip("only Mistral's window hides keys")
    query = len(ids) - 1
    entry = scores(loaded, ids, 1, 2, query)
    hidden = [j for j, score in enumerate(entry["scores"]) if score is None]
    assert hidden == list(range(query - WINDOW + 1))
    rows = rows_of(entry)
    assert all(rows[j]["share"] == 0 and rows[j]["hidden"] for j in hidden)
    assert math.fsum(row["share"] for row in rows) == pytest.approx(1.0)


def test_a_llama_part_holds_the_turned_query_and_keys(pair):
    loaded, _, ids, kind = pair
    if kind != "llama":
        pytest.skip("rotary positions are the Llama's")
    from figsite.capture.hooks import point, run_with_cache

    entry = scores(loaded, ids, 1, 5, len(ids) - 1)
    cached = run_with_cache(loaded, ids, [point(1, "attn.hook_q"), point(1, "attn.hook_rot_q")])
    turned, plain = (
        cached[point(1, "attn.hook_rot_q")][len(ids) - 1, 5],
        cached[point(1, "attn.hook_q")][len(ids) - 1, 5],
    )
    assert entry["q"] == pytest.approx(turned.tolist(), abs=1e-6)
    assert (turned - plain).abs().max() > 1e-3  # the last token is turned far from where it started
