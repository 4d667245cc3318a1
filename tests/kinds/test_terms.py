"""Every page a reader opens holds to the term list (figures/toolkit/terms.py): a term is either never used, or
explained in the sentence where the page first uses it; the "_" of a token that begins with a space is said on
every page that shows one, before it shows one. And what the list cannot catch: a question after "Guess first:" goes
on in lower case, as the chapter writes it; shares add up to 100%, never to 1; the model is named by
figures/toolkit/model_names.py, and a random model is never called GPT-2.

The sites: conftest's random_site (the chapter's figures on GPT-2 small's shape), tests/every_kind.toml and
tests/site_table.toml on conftest's small model, and tests/every_kind.toml on a small Llama (what its pages say of
its family: the start token, the shared keys, the turned positions, the norm). The page's words are read as tests/reader_pages.py says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import built
from figures.toolkit import terms
from figures.toolkit import model_names
from reader_pages import pages_of, reader_text, unexplained

EVERY_KIND = Path(__file__).resolve().parents[1] / "every_kind.toml"
SITES = ["random_site", "every_kind", "site_table_build", "llama_every_kind_site"]


@pytest.fixture(scope="module")
def every_kind(small_model_dir, tmp_path_factory):
    return built(small_model_dir, EVERY_KIND.read_text(encoding="utf-8"), tmp_path_factory.mktemp("terms"))


def page(body: str, spec: str = "") -> str:
    """A page as the site writes one: its words in <main>, a chart's Vega spec where `spec` is given."""
    chart = (
        (f'<div class="chart" data-spec="spec-x"></div><script type="application/json" id="spec-x">{spec}</script>')
        if spec
        else ""
    )
    return f"<!DOCTYPE html><html><head><title>The spec</title></head><body><main>{body}{chart}</main></body></html>"


# ---------------------------------------------------------------------------------------------- the check itself


def test_the_check_finds_a_term_used_before_its_explanation_and_one_no_page_may_use():
    assert unexplained(page("<p>Download the chart's Vega-Lite spec.</p>")) == {
        "spec": "Download the chart's Vega-Lite spec.",
        "Vega-Lite": "Download the chart's Vega-Lite spec.",
    }
    late = page(f"<p>Its score is 2.</p><p>{terms.SCORE}</p>")
    assert unexplained(late) == {"score": "Its score is 2."}
    assert unexplained(page(f"<p>{terms.SCORE} Its score is 2.</p>")) == {}
    tokens = page(f"<p>The top guess is _Paris.</p><p>{terms.SPACE}</p>")
    assert unexplained(tokens) == {"_ (a space)": "The top guess is _Paris."}
    assert unexplained(page(f"<p>{terms.SPACE}</p><p>The top guess is _Paris.</p>")) == {}


def test_the_check_reads_a_charts_words_and_screen_readers_words_but_not_its_data_names_or_tokens():
    tooltip = '{"marks": [{"encode": {"update": {"tooltip": {"signal": "{\\"temperature\\": datum[\\"T\\"]}"}}}}]}'
    assert unexplained(page("<p>A chart.</p>", tooltip)) == {"temperature": "temperature"}
    field = '{"marks": [{"encode": {"update": {"x": {"signal": "datum[\\"score\\"] * 2"}}}}]}'
    assert unexplained(page("<p>A chart.</p>", field)) == {}
    assert unexplained(page('<img alt="The lens at work" src="a.png">')) == {"lens": "The lens at work"}
    # The model's own words: a token the page shows in a row of tokens, or with its space; a file's name.
    shown = page(
        f'<p>{terms.SPACE}</p><span class="token">score</span><p>The guess is score, then _lens.</p>'
        '<a href="embed-lens.html">embed-lens.html</a>'
    )
    assert unexplained(shown) == {}
    assert reader_text(shown)[1] == {"score"}


# ---------------------------------------------------------------------------------------------- every page


@pytest.mark.parametrize("site_name", SITES)
def test_every_page_explains_a_term_where_it_first_uses_it_or_never_uses_it(request, site_name):
    pages = pages_of(request.getfixturevalue(site_name))
    assert len(pages) >= 9 and "about.html" in pages and "index.html" in pages
    found = {name: unexplained(html) for name, html in pages.items()}
    assert not {name: words for name, words in found.items() if words}, {
        name: words for name, words in found.items() if words
    }


@pytest.mark.parametrize("site_name", SITES)
def test_every_page_that_shows_a_token_says_what_its_underscore_is(request, site_name):
    """Not only the live page: every figure page, bare page and text page that shows a token, and the index."""
    pages = pages_of(request.getfixturevalue(site_name))
    showing = {name for name, html in pages.items() if re.search(r"(?<![\w\"'])_[^\W_]", reader_text(html)[0])}
    figures = {name for name in pages if name.startswith(("figure-", "embed-", "text-"))}
    assert len(showing) > len(figures) / 2 and "index.html" in showing
    assert not {name for name in showing if terms.SPACE not in reader_text(pages[name])[0]}


@pytest.mark.parametrize("site_name", ["random_site", "every_kind"])
def test_a_question_after_guess_first_goes_on_in_lower_case(request, site_name):
    text = "\n".join(reader_text(html)[0] for html in pages_of(request.getfixturevalue(site_name)).values())
    questions = re.findall(r"Guess first: (\S+)", text)
    assert len(questions) >= 5 and all(word[0].islower() for word in questions), questions


@pytest.mark.parametrize("site_name", ["random_site", "every_kind"])
def test_shares_add_up_to_100_percent_on_every_page_never_to_1(request, site_name):
    pages = pages_of(request.getfixturevalue(site_name))
    text = "\n".join(reader_text(html)[0] for html in pages.values())
    assert not re.search(r"add up to 1(?![\d,.%]|\.\d)", text)
    assert "(its shares, which add up to 100%)" in reader_text(pages["about.html"])[0]


# ---------------------------------------------------------------------------------------------- the model's name

# Where a page of a random model may say "GPT-2": its shape, what it is not, and what the live page's tokens follow.
GPT2_SAID = re.compile(r"GPT-2 small's shape|Not GPT-2\.|say nothing about GPT-2|as GPT-2 does")


def test_a_random_model_is_named_in_one_sentence_and_never_called_gpt2(random_site):
    pages = pages_of(random_site)
    for name, html in pages.items():
        text = " ".join(reader_text(html)[0].split())
        assert "GPT-2" not in GPT2_SAID.sub("", text), name
        if not name.startswith("embed-"):
            assert (
                "Computed in one run of a model of GPT-2 small's shape with random weights. About these figures: "
                "the model, the libraries and the data files."
            ) in text, name
    about = " ".join(reader_text(pages["about.html"])[0].split())
    assert terms.SEED.format(seed=0) in about
    assert "revision" not in about and "(seed 0)" not in about


def test_the_model_names_say_where_a_model_comes_from():
    commit = "607a30d783dfa663caf39e06633721c8d4cfcd7e"
    gpt2 = {"name": "gpt2", "revision": commit}
    assert model_names.full_name(gpt2) == "GPT-2 small (Hugging Face's gpt2, version 607a30d783df)"
    assert model_names.full_name(gpt2, digits=40).endswith(f"version {commit})")
    assert model_names.short_name(gpt2) == "GPT-2"
    assert model_names.short_name({"name": "openai-community/gpt2-xl", "revision": commit}) == "GPT-2 XL"
    random = {"name": "random (seed 7)", "revision": None}
    assert model_names.full_name(random) == "a model of GPT-2 small's shape with random weights"
    assert model_names.short_name(random) == "the random model"
    assert model_names.seed_sentence(random).startswith("Its weights were drawn at random from seed 7:")
    assert model_names.seed_sentence(gpt2) is None
    folder = {"name": "/tmp/models/small-gpt2", "revision": None}
    assert model_names.full_name(folder) == "the model in the folder small-gpt2"
    # Another family's folder says which family it is (a Llama's footer named no design at all).
    assert (
        model_names.full_name({**folder, "name": "/m/tiny", "family": "llama"}) == "the Llama model in the folder tiny"
    )
    assert (
        model_names.full_name({**folder, "name": "/m/p", "family": "gpt_neox"})
        == "the GPT-NeoX (Pythia) model in the folder p"
    )
    assert model_names.short_name(folder) == "the model"
    assert (
        model_names.full_name({"name": "someone/tiny", "revision": "abc"}) == "Hugging Face's someone/tiny, version abc"
    )
