"""Every figure kind builds on a Llama-style model and on a GPT-NeoX one (tests/every_kind.toml over a seeded random
LlamaForCausalLM or GPTNeoXForCausalLM of transformers' saved with save_pretrained, with a tokenizer trained on the
config's own texts: a Llama's start tokenizer, Pythia's byte-level one with no start token): a Llama's start token
is the first token of every text the model reads, marked as the model's own, never counted among the reader's
tokens nor taken as a target; Pythia's texts begin with their own first token; no page or file holds U+FFFD; the
ledger's parts add up to the score; the pages say what each family changes."""

from __future__ import annotations

import json
import re
import tomllib

import pytest

from conftest import REPO_ROOT, assert_bad_config_keeps_the_site, built, every_kind_strings as config_strings
from conftest import llama_dir, neox_dir

EVERY_KIND = (REPO_ROOT / "tests" / "every_kind.toml").read_text(encoding="utf-8")


@pytest.fixture(scope="module", params=["llama", "neox"])
def site(request, tmp_path_factory):
    """(family, the every-kind site on it): the Llama's is conftest's llama_every_kind_site, built once."""
    family = request.param
    if family == "llama":
        return family, request.getfixturevalue("llama_every_kind_site")
    model = neox_dir(tmp_path_factory.mktemp("every-kind-neox"), corpus=config_strings() * 30, vocab_size=700)
    return family, built(model, EVERY_KIND, tmp_path_factory.mktemp("every-kind-neox-site"))


def test_every_kind_builds_a_page(site):
    family, site = site
    labels = [fig["label"] for fig in tomllib.loads(EVERY_KIND)["figure"]]
    assert sorted(path.name for path in site.glob("figure-*.html")) == sorted(
        f"figure-{label}.html" for label in labels
    )
    run = json.loads((site / "data" / "run.json").read_text(encoding="utf-8"))
    assert run["model"]["n_head"] == 8 and run["model"].get("n_kv_head") == (2 if family == "llama" else None)


def test_the_start_token_leads_every_text_where_there_is_one_and_no_file_holds_a_replacement_character(site):
    family, site = site
    special = {"llama": "<s>", "neox": "<|endoftext|>"}[family]
    texts = 0
    for path in (site / "data").glob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        if "tokens" in data:  # a start token marked as the model's own: the pages count the reader's tokens after it
            texts += 1
            if family == "llama":
                assert data["tokens"][0] == {"id": 1, "text": "<s>", "start": True}
            assert all(
                token["text"] != special and "start" not in token for token in data["tokens"][family == "llama" :]
            )
    assert texts
    damaged = [path.name for path in site.rglob("*") if path.is_file() and "\ufffd".encode() in path.read_bytes()]
    assert not damaged


def test_the_ledgers_parts_add_up_to_the_score(site):
    site = site[1]
    parts = json.loads((site / "data" / "parts.json").read_text(encoding="utf-8"))
    (entry,) = parts["ledgers"]
    names = [row["part"] for row in entry["parts"]]
    assert "position embedding" not in names
    for side in ("target", "versus"):
        assert sum(row[side] for row in entry["parts"]) == pytest.approx(entry["score"][side], abs=1e-4)


def figure(label: str) -> dict:
    return next(fig for fig in tomllib.loads(EVERY_KIND)["figure"] if fig["label"] == label)


def test_the_configs_token_numbers_count_the_readers_tokens_only(llama_every_kind_site):
    site = llama_every_kind_site
    """every_kind.toml names tokens by number (heads: focus = 4; ledger: position = 4) and by text (attention:
    focus = "compiler"): each is the reader's own token of that number, numbered so on the page, as on GPT-2."""
    printed = (site / "figures.txt").read_text(encoding="utf-8")
    run = json.loads((site / "data" / "run.json").read_text(encoding="utf-8"))
    assert run["model"]["start_token"] == "<s>"
    for label in ("grid", "split"):
        fig = figure(label)
        number = fig.get("focus", fig.get("position"))
        word = fig["text"].split()[number - 1]  # the toy tokenizer gives each word of these texts a token
        assert f"_{word} (token {number})" in printed, label
    words = figure("att")["text"].split()
    assert f"_compiler (token {words.index('compiler') + 1})" in printed


def test_a_llamas_pages_say_what_its_family_changes(llama_every_kind_site):
    site = llama_every_kind_site
    about = (site / "about.html").read_text(encoding="utf-8")
    assert "Llama family" in about and "4 heads share each set of keys" in about
    attention = (site / "figure-att.html").read_text(encoding="utf-8")
    for words in (
        "is the start token: the model puts it in front of every text",
        "4 heads share each set of keys",
        "the positions are turned into the question and the description rather than added",
        'data-start title="the start token',
    ):
        assert words in attention, words
    ledger = (site / "figure-split.html").read_text(encoding="utf-8")
    assert "takes no mean away and adds no fixed part" in ledger and "one from its position" not in ledger
    parts = json.loads((site / "data" / "parts.json").read_text(encoding="utf-8"))
    assert "final layer norm bias" not in [row["part"] for row in parts["ledgers"][0]["parts"]]


READOUT_TEXT = "The river runs through Vienna, the capital of"
SHORT = f'''[[figure]]
kind = "readout"
label = "bad"
text = "{READOUT_TEXT}"
target = " Austria"
'''


@pytest.mark.parametrize(
    "key, value, words",
    [
        ("target", '"<s>"', ["the model's start token"]),
        ("position", '"<s>"', ["the model's start token", "a token of the text's words"]),
        (
            "position",
            "0",
            [
                "token 0 is outside the text",  # the reader's tokens: each word and the comma, no <s>
                f"1 to {len(READOUT_TEXT.replace(',', ' ,').split())}",
            ],
        ),
    ],
)
def test_the_start_token_is_never_a_target_or_a_token_of_the_text(tmp_path_factory, key, value, words):
    model = llama_dir(tmp_path_factory.mktemp("start-llama"), corpus=config_strings() * 30, vocab_size=700)
    lines = [line for line in SHORT.splitlines() if not line.startswith(f"{key} =")]
    bad = "\n".join([*lines, f"{key} = {value}"]) + "\n"
    assert_bad_config_keeps_the_site(model, tmp_path_factory.mktemp("start-bad"), SHORT, bad, key, words)


def test_every_printed_table_keeps_its_column_headings_apart(site):
    """A head of 8 numbers divides by 2.82843: the scores' table heads its column 'fit / 2.82843', wider than
    GPT-2's 'fit / 8', and it must not run into the 'fit' before it."""
    _, site = site
    printed = (site / "figures.txt").read_text(encoding="utf-8")
    headings = [line for line in printed.splitlines() if line.lstrip().startswith("token ") and "fit /" in line]
    assert headings, "no scores table in figures.txt"
    for line in headings:
        assert re.search(r"\bfit\s+fit / [0-9.]+\s+share$", line), line


def test_the_guess_first_answer_names_the_token_as_readers_count_it(llama_every_kind_site):
    """The answer's link says the token's number as the page's words count it (the start token is token 0), while
    its address counts as the model does (the start token is 1), as every address of the page does."""
    page = (llama_every_kind_site / "figure-att.html").read_text(encoding="utf-8")
    link = re.search(r'href="#token=(\d+)&amp;view=[^"]+"[^>]*>Show token (\d+) in', page)
    assert link, "no guess-first answer with its link on the attention page"
    assert int(link.group(2)) == int(link.group(1)) - 1


def test_the_shapes_say_the_start_token_goes_in_beside_the_readers_tokens(llama_every_kind_site):
    """The rows of every block count the start token; the words count the reader's tokens and name it apart."""
    page = (llama_every_kind_site / "figure-sizes.html").read_text(encoding="utf-8")
    said = re.search(r"(\d+) tokens and the start token go in; every layer takes (\d+) rows", page)
    assert said, "the shapes page does not name the start token beside the reader's tokens"
    assert int(said.group(2)) == int(said.group(1)) + 1


def test_a_ledger_shows_no_fixed_part_a_family_lacks_and_names_its_norms_divisor(site):
    family, site = site
    tables = json.loads((site / "downloads" / "figure-split.json").read_text(encoding="utf-8"))["tables"]
    fixed = [row for name in ("heads", "neurons") for row in tables[name] if row["item"] == "the fixed part"]
    page = (site / "figure-split.html").read_text(encoding="utf-8")
    if family == "llama":  # no bias in its attention's output or its feed-forward step, and RMSNorm
        assert not fixed and "root mean square" in page and "σ =" not in page
        assert "its heads and its fixed part" not in page
    else:  # Pythia's parts have biases, and its norm is LayerNorm
        assert fixed and "σ =" in page and "root mean square," not in page
