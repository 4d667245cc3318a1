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


def test_figure_l_opens_with_its_text_as_a_row_of_tokens_in_the_chapters_notation_and_its_focus_chosen(
    opener, random_site
):
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
    for key, expected in (
        ("ArrowLeft", 4),
        ("ArrowRight", 5),
        ("ArrowDown", 6),
        ("Home", 1),
        ("End", 12),
        ("ArrowRight", 1),
    ):
        page.keyboard.press(key)
        wait_for_signal(page, "l", "token", expected, f"after {key}")
        assert chosen(page) == expected and address(page).get("token") == str(expected), key
        assert page.evaluate("document.activeElement.getAttribute('data-token')") == str(expected), key
    visit.assert_clean()


def test_the_row_follows_a_choice_made_in_the_charts_own_hidden_control(opener):
    visit = opener.open("figure-l.html")
    page = visit.page
    # The select is hidden (the row repeats it) but still sets the chart, as bench/browser.py sets it.
    page.eval_on_selector(
        "#chart-l .vega-bindings select[name='token']",
        "s => { s.value = '3'; s.dispatchEvent(new Event('change', {bubbles: true})); }",
    )
    wait_for_signal(page, "l", "token", 3)
    page.wait_for_function(
        "() => document.querySelector(\".token-row [data-token='3']\").getAttribute('aria-checked') === 'true'"
    )
    assert chosen(page) == 3
    visit.assert_clean()


def test_on_a_text_page_one_row_steers_every_figure_of_the_text(opener, random_site):
    (path,) = random_site.glob("text-the-animal*.html")
    visit = opener.open(path.name)
    page = visit.page
    assert page.eval_on_selector_all(".token-row", "els => els.length") == 1, "one row for the whole page"
    linked = page.eval_on_selector_all(
        ".linked [data-token-param]", "els => els.map(e => [e.id.replace(/^chart-/, ''), e.dataset.tokenParam])"
    )
    assert len(linked) >= 2, f"{path.name}: fewer than two figures choose a token: {linked}"
    page.click(".token-row [data-token='2']")
    state = address(page)
    for label, param in linked:
        drawn = page.eval_on_selector(f"#chart-{label}", "e => !!e.vegaView")
        if drawn:
            wait_for_signal(page, label, param, 2, f"on {path.name} after a click on the row")
        assert state.get(f"{label}.{param}") == "2", f"{path.name}: the address {state} lacks {label}.{param}=2"
    visit.assert_clean()


def test_a_text_page_opened_from_its_address_shows_its_token_in_the_row_at_once_and_every_chart_opens_on_it(
    opener, random_site
):
    # On a phone only the first chart is drawn at first: the address names the token of one drawn only once the
    # reader scrolls to it. The row shows it at once, and the chart on top opens on it, as after a choice in the row.
    (path,) = random_site.glob("text-the-animal*.html")
    context = opener.context(viewport={"width": 360, "height": 800})
    visit = opener.open(path.name + "#all-heads.token=4", context=context, wait_for_charts=False)
    page = visit.page
    assert page.eval_on_selector("#chart-all-heads", "e => !e.vegaView"), "the chart below was drawn at once"
    assert chosen(page) == 4, "the row does not show the token the address chose"
    wait_for_signal(page, "l", "token", 4, "though the address chose token 4 for the text")
    assert chosen(page) == 4
    page.locator("#chart-all-heads").scroll_into_view_if_needed()
    wait_for_signal(page, "all-heads", "token", 4, "once drawn")
    assert chosen(page) == 4
    visit.assert_clean()


# ---------------------------------------------------------------------------------------------- reach


def shaded(page, row: str = ".token-row") -> list[int]:
    """The numbers of the row's tokens shaded as out of reach, in order."""
    return page.eval_on_selector_all(f"{row} [data-token][data-out-of-reach]", "els => els.map(e => +e.dataset.token)")


def background(page, selector: str) -> str:
    return page.eval_on_selector(selector, "e => getComputedStyle(e).backgroundColor")


def as_computed(colour: str) -> str:
    """A '#rgba' or '#rrggbbaa' colour (colours.py) as Chromium computes it: 'rgba(136, 136, 136, 0.2)'."""
    hexes = colour.lstrip("#")
    pairs = [digit * 2 for digit in hexes] if len(hexes) == 4 else [hexes[i : i + 2] for i in range(0, 8, 2)]
    r, g, b, a = (int(pair, 16) for pair in pairs)
    return f"rgba({r}, {g}, {b}, {round(a / 255, 2):g})"


def test_where_the_figure_has_a_reach_the_tokens_after_the_chosen_one_are_shaded_in_the_charts_grey(opener):
    from figures.toolkit.colours import OUT_OF_REACH

    visit = opener.open("figure-l.html")  # it opens on _it, token 9 of 12
    page = visit.page
    assert shaded(page) == [10, 11, 12]
    assert background(page, ".token-row [data-token='10']") == as_computed(OUT_OF_REACH)
    assert background(page, ".token-row [data-token='8']") != as_computed(OUT_OF_REACH)
    assert page.get_attribute(".token-row [data-token='10']", "aria-label") == "token 10: _was, out of reach"
    assert page.get_attribute(".token-row [data-token='8']", "aria-label") == "token 8: _because"
    page.click(".token-row [data-token='3']")
    wait_for_signal(page, "l", "token", 3)
    assert shaded(page) == list(range(4, 13))
    # A choice made by the address (a link within the page) shades the row too.
    page.evaluate("() => { location.hash = '#token=12'; }")
    page.wait_for_function("() => !document.querySelector('.token-row [data-out-of-reach]')")
    assert shaded(page) == [] and page.get_attribute(".token-row [data-token='10']", "aria-label") == "token 10: _was"
    visit.assert_clean()


def test_a_figure_without_a_reach_shades_no_token_of_its_row(opener):
    visit = opener.open("figure-lens.html")
    page = visit.page
    assert page.locator(".token-row [data-token]").count() >= 8 and shaded(page) == []
    page.click(".token-row [data-token='2']")
    wait_for_signal(page, "lens", "position", 2)
    assert shaded(page) == []
    visit.assert_clean()


def test_a_text_pages_row_shades_where_every_figure_it_steers_has_a_reach(opener, random_site):
    (animal,) = random_site.glob("text-the-animal*.html")
    visit = opener.open(animal.name)
    visit.page.click(".token-row [data-token='2']")
    assert shaded(visit.page) == list(range(3, 13))
    opener.done(visit)
    (maya,) = random_site.glob("text-maya*.html")  # its lens and find-head figures have no reach
    visit = opener.open(maya.name)
    visit.page.click(".token-row [data-token='2']")
    assert visit.page.locator(".token-row [data-token]").count() >= 8 and shaded(visit.page) == []
    visit.assert_clean()


# The look of a row's first two tokens: its border on each side, its background, its corners.
TOKEN_LOOK = """row => Array.from(row.querySelectorAll('.token')).slice(0, 2).map(t => { const s = getComputedStyle(t);
    return {borders: [s.borderTopWidth, s.borderRightWidth, s.borderBottomWidth, s.borderLeftWidth].map(parseFloat),
            background: s.backgroundColor, radius: parseFloat(s.borderTopLeftRadius), tag: t.tagName}; })"""


def test_the_plain_text_row_looks_nothing_like_the_buttons_of_a_token_row(opener):
    visit = opener.open("figure-f.html")  # figure (f) chooses no token: its text is a plain row
    plain = visit.page.eval_on_selector(".text-row", TOKEN_LOOK)
    opener.done(visit)
    visit = opener.open("figure-l.html")
    buttons = visit.page.eval_on_selector(".token-row", TOKEN_LOOK)
    assert all(token["tag"] == "BUTTON" and min(token["borders"]) >= 1 and token["radius"] > 0 for token in buttons)
    for token in plain:
        assert token["tag"] == "SPAN" and token["radius"] == 0, token
        assert token["borders"][:3] == [0, 0, 0] and token["background"] == "rgba(0, 0, 0, 0)", token
    visit.assert_clean()
