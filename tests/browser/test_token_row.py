"""The text on top of a figure, as a row of tokens that chooses the chart's token: a click or a tap, the arrow keys
(one radio group), the address; on a text page the one row steers every figure of the text."""

from __future__ import annotations

import json
from urllib.parse import unquote

from .browsing import signal, wait_for_signal

TEXT_L = "The animal didn't cross the street because it was too tired"


def row_state(page, row: str = ".token-row") -> tuple[list[str], list[str]]:
    """The row's tokens as written, and which are checked (their aria-checked), in order."""
    tokens = page.eval_on_selector_all(f"{row} [data-token]", "els => els.map(e => e.textContent)")
    checked = page.eval_on_selector_all(f"{row} [data-token]", "els => els.map(e => e.getAttribute('aria-checked'))")
    return tokens, checked


def address(page) -> dict[str, str]:
    pairs = [pair.split("=", 1) for pair in page.evaluate("location.hash").lstrip("#").split("&") if "=" in pair]
    return {unquote(key): unquote(value) for key, value in pairs}


def chosen(page, row: str = ".token-row") -> int:
    """The number of the row's one checked token (1-based, as readers count)."""
    _, checked = row_state(page, row)
    assert checked.count("true") == 1, f"{checked.count('true')} tokens checked in the row"
    return checked.index("true") + 1


def test_figure_l_opens_with_its_text_as_a_row_of_tokens_in_the_chapters_notation_and_its_focus_chosen(opener,
                                                                                                     random_site):
    visit = opener.open("figure-l.html")
    tokens, _ = row_state(visit.page)
    data = json.loads(next((random_site / "data").glob("the-animal*.json")).read_text(encoding="utf-8"))
    assert data["text"] == TEXT_L
    assert tokens == [token["text"].replace(" ", "_") for token in data["tokens"]]
    assert tokens[1] == "_animal" and tokens[8] == "_it"
    assert chosen(visit.page) == signal(visit.page, "l", "token")
    visit.assert_clean()


def test_clicking_a_token_chooses_it_in_the_chart_and_the_address(opener):
    visit = opener.open("figure-l.html")
    page = visit.page
    page.click(".token-row [data-token='2']")
    wait_for_signal(page, "l", "token", 2, "after a click on _animal in the row")
    assert chosen(page) == 2
    assert address(page).get("token") == "2"
    visit.assert_clean()


def test_the_arrow_keys_home_and_end_move_the_choice_as_in_a_radio_group(opener):
    visit = opener.open("figure-l.html#token=5")
    page = visit.page
    assert chosen(page) == 5, "the row does not show the token the address chose"
    assert page.eval_on_selector(".token-row [aria-checked='true']", "e => e.tabIndex") == 0
    assert page.eval_on_selector_all(".token-row [aria-checked='false']", "els => els.every(e => e.tabIndex === -1)")
    page.focus(".token-row [aria-checked='true']")
    for key, expected in (("ArrowLeft", 4), ("ArrowRight", 5), ("ArrowDown", 6), ("Home", 1), ("End", 12),
                          ("ArrowRight", 1)):
        page.keyboard.press(key)
        wait_for_signal(page, "l", "token", expected, f"after {key}")
        assert chosen(page) == expected and address(page).get("token") == str(expected), key
        assert page.evaluate("document.activeElement.getAttribute('data-token')") == str(expected), key
    visit.assert_clean()


def test_the_row_follows_a_choice_made_in_the_charts_own_control(opener):
    visit = opener.open("figure-l.html")
    page = visit.page
    page.locator("#chart-l .vega-bindings select[name='token']").select_option("3")
    wait_for_signal(page, "l", "token", 3)
    page.wait_for_function("() => document.querySelector(\".token-row [data-token='3']\")"
                           ".getAttribute('aria-checked') === 'true'")
    assert chosen(page) == 3
    visit.assert_clean()


def test_on_a_text_page_one_row_steers_every_figure_of_the_text(opener, random_site):
    (path,) = random_site.glob("text-the-animal*.html")
    visit = opener.open(path.name)
    page = visit.page
    assert page.eval_on_selector_all(".token-row", "els => els.length") == 1, "one row for the whole page"
    linked = page.eval_on_selector_all(
        ".linked [data-token-param]", "els => els.map(e => [e.id.replace(/^chart-/, ''), e.dataset.tokenParam])")
    assert len(linked) >= 2, f"{path.name}: fewer than two figures choose a token: {linked}"
    page.click(".token-row [data-token='2']")
    state = address(page)
    for label, param in linked:
        drawn = page.eval_on_selector(f"#chart-{label}", "e => !!e.vegaView")
        if drawn:
            wait_for_signal(page, label, param, 2, f"on {path.name} after a click on the row")
        assert state.get(f"{label}.{param}") == "2", f"{path.name}: the address {state} lacks {label}.{param}=2"
    visit.assert_clean()
