"""The site as its readers meet it: by keyboard, by permalink, in a book's iframe, with a screen reader's
eyes (axe), without JavaScript, on paper, in the dark and with reduced motion.

Every page is opened from file:// in headless Chromium with a route that lets file: URLs through and aborts
(and records) every other request, and with listeners that collect console errors and page errors; each
test asserts that none happened. The site is conftest's ``random_site`` (one ``--model random`` build); the
browser is the session's one Chromium, and ``opener`` opens the pages (tests/browser/browsing.py).
"""

from __future__ import annotations

import re
import shutil
import time
import warnings
from html import unescape
from pathlib import Path

import pytest
from conftest import CONFIG_FIGURES
from .browsing import (
    ALL_RENDERED,
    CHANGE_TIMEOUT_MS,
    RENDER_TIMEOUT_MS,
    Visit,
    description,
    playwright_or_skip,
    signal,
    wait_for_signal,
)

sync_api = playwright_or_skip()

LABELS = [figure["label"] for figure in CONFIG_FIGURES]
FIGURE_PAGES = [f"figure-{label}.html" for label in LABELS]
EMBED_PAGES = [f"embed-{label}.html" for label in LABELS]
ALL_PAGES = ["index.html", "about.html"] + FIGURE_PAGES + EMBED_PAGES
MAX_TABS = 40  # more Tab presses than any page has focusable elements before the one wanted


# ---------------------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def site(random_site) -> Path:
    """The chapter's site built once with the seeded random model (conftest's random_site)."""
    return random_site


# ---------------------------------------------------------------------------------------------- helpers


def stale_description(page, label: str, *, contains: str = "") -> str | None:
    """Waits for the description under the chart to say what the chart shows now (its description signal).

    Returns None when it does (and contains ``contains``), else a line saying what it says instead.
    """
    try:
        page.wait_for_function(
            "([label, contains]) => { const text = document.getElementById('description-' + label).textContent.trim();"
            " const now = document.getElementById('chart-' + label).vegaView.signal('description');"
            " return text === now && text.includes(contains); }",
            arg=[label, contains],
            timeout=1_000,
        )
        return None
    except sync_api.TimeoutError:
        state = page.evaluate(
            "id => { const v = document.getElementById(id).vegaView;"
            " return Object.fromEntries(['token', 'view', 'stage', 'n', 'shorter']"
            ".filter(n => { try { v.signal(n); return true; } catch (e) { return false; } })"
            ".map(n => [n, v.signal(n)])); }",
            f"chart-{label}",
        )
        return (
            f"with {state} the description reads {description(page, label)!r}"
            f" but the chart's description is {signal(page, label, 'description')!r}"
            + (f" (expected it to mention {contains!r})" if contains else "")
        )


def assert_no_stale_descriptions(problems: list, what: str) -> None:
    assert not [p for p in problems if p], (
        f"{what}: the description under the chart does not say what the chart "
        f"shows now:\n  " + "\n  ".join(p for p in problems if p)
    )


FOCUSED = """() => {
    const el = document.activeElement;
    if (!el || el === document.body) return null;
    const style = getComputedStyle(el);
    return {tag: el.tagName.toLowerCase(), type: el.type || null, name: el.getAttribute('name'), value: el.value ?? null,
            text: (el.textContent || '').trim().slice(0, 80), inChart: !!el.closest('.chart'),
            inReveal: !!el.closest('details.reveal'), focusVisible: el.matches(':focus-visible'),
            outlineStyle: style.outlineStyle, outlineWidth: parseFloat(style.outlineWidth) || 0};
}"""


def tab_to(page, wanted, *, backwards: bool = False) -> dict:
    """Presses Tab (or Shift+Tab) until ``wanted(focused)`` holds; returns the focused element's description."""
    seen = []
    for _ in range(MAX_TABS):
        page.keyboard.press("Shift+Tab" if backwards else "Tab")
        focused = page.evaluate(FOCUSED)
        seen.append(focused and (focused["tag"], focused["name"], focused["text"][:30]))
        if focused and wanted(focused):
            return focused
    raise AssertionError(
        f"never reached the wanted element by {'Shift+' if backwards else ''}Tab; focus went to {seen}"
    )


def assert_focus_is_visible(focused: dict) -> None:
    assert focused["focusVisible"], f"{focused} is focused by keyboard but does not match :focus-visible"
    assert focused["outlineStyle"] != "none" and focused["outlineWidth"] > 0, (
        f"no visible focus ring on {focused['tag']} {focused['name']!r}: outline {focused['outlineStyle']} {focused['outlineWidth']}px"
    )


def relative_luminance(css_colour: str) -> float:
    """WCAG relative luminance of a computed colour 'rgb(r, g, b)' / 'rgba(r, g, b, a)'."""
    numbers = [float(x) for x in re.findall(r"[\d.]+", css_colour)[:3]]
    assert len(numbers) == 3, f"not an rgb colour: {css_colour!r}"

    def channel(c):
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in numbers)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


PAGE_BACKGROUND = """() => {
    for (const el of [document.body, document.documentElement]) {
        const colour = getComputedStyle(el).backgroundColor;
        if (colour && colour !== 'transparent' && !/rgba\\(.*,\\s*0\\)$/.test(colour)) return colour;
    }
    return null;
}"""


def axis_label_fills(page, label: str) -> list[str]:
    return page.eval_on_selector_all(
        f"#chart-{label} svg .role-axis-label text", "nodes => nodes.map(n => getComputedStyle(n).fill)"
    )


# ---------------------------------------------------------------------------------------------- 1. keyboard


def in_token_row(focused: dict) -> bool:
    """The focus is on the chart's row of tokens (its chosen token, the group's one Tab stop)."""
    return focused["tag"] == "button" and focused["inChart"]


def test_figure_l_can_be_worked_with_the_keyboard_alone_and_shows_where_the_focus_is(opener):
    visit = opener.open("figure-l.html")
    page = visit.page
    assert signal(page, "l", "token") == 9 and signal(page, "l", "view") == "5-4"
    stale = [stale_description(page, "l", contains="_it (token 9), layer 5, head 4")]

    # The token is chosen on the row of tokens above the chart, one radio group (the chart's own select for it is
    # hidden: it would repeat the row).
    focused = tab_to(page, in_token_row)
    assert focused["text"] == "_it"
    assert_focus_is_visible(focused)
    page.keyboard.press("ArrowRight")
    wait_for_signal(page, "l", "token", 10)
    assert page.locator("#chart-l select[name='token']").input_value() == "10"
    stale.append(stale_description(page, "l", contains="_was (token 10), layer 5, head 4"))
    assert page.evaluate("() => document.activeElement.dataset.token") == "10", "the row lost the focus"

    focused = tab_to(page, lambda f: f["type"] == "radio" and f["name"] == "view")
    assert focused["value"] == "5-4", f"Tab into the view radios should land on the checked one, got {focused}"
    assert_focus_is_visible(focused)
    page.keyboard.press("ArrowRight")
    wait_for_signal(page, "l", "view", "1-1")
    assert page.locator("#chart-l input[name='view'][value='1-1']").is_checked()
    stale.append(stale_description(page, "l", contains="_was (token 10), layer 1, head 1"))
    page.keyboard.press("ArrowRight")
    wait_for_signal(page, "l", "view", "5-12")
    stale.append(stale_description(page, "l", contains="_was (token 10), layer 5, head 12"))

    # Shift+Tab goes back to the row of tokens, and the keyboard still works it.
    focused = tab_to(page, in_token_row, backwards=True)
    assert_focus_is_visible(focused)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    wait_for_signal(page, "l", "token", 7)
    stale.append(stale_description(page, "l", contains="_street (token 7), layer 5, head 12"))

    # The "guess first" question opens with Enter and closes and opens with Space.
    focused = tab_to(page, lambda f: f["tag"] == "summary" and f["inReveal"])
    assert_focus_is_visible(focused)
    is_open = "() => document.querySelector('details.reveal').open"
    assert page.evaluate(is_open) is False
    page.keyboard.press("Enter")
    assert page.evaluate(is_open) is True
    assert page.locator("details.reveal > p").is_visible()
    page.keyboard.press("Space")
    assert page.evaluate(is_open) is False
    page.keyboard.press("Space")
    assert page.evaluate(is_open) is True

    # The answer's link is reached by Tab and followed with Enter: the figure jumps to the answer's state.
    tab_to(page, in_token_row, backwards=True)
    page.keyboard.press("Home")  # away from the answer's state
    wait_for_signal(page, "l", "token", 1)
    stale.append(stale_description(page, "l", contains="The (token 1), layer 5, head 12"))
    focused = tab_to(page, lambda f: f["tag"] == "a" and f["inReveal"])
    assert_focus_is_visible(focused)
    page.keyboard.press("Enter")
    wait_for_signal(page, "l", "token", 7)
    wait_for_signal(page, "l", "view", "5-12")
    stale.append(stale_description(page, "l", contains="_street (token 7), layer 5, head 12"))
    visit.assert_clean("figure-l.html by keyboard")
    assert_no_stale_descriptions(stale, "figure-l.html by keyboard")


def test_figure_i_slider_moves_by_arrow_keys(opener):
    visit = opener.open("figure-i.html")
    page = visit.page
    assert signal(page, "i", "stage") == 12
    stale = [stale_description(page, "i")]

    focused = tab_to(page, lambda f: f["type"] == "range" and f["name"] == "stage")
    assert focused["inChart"]
    assert_focus_is_visible(focused)
    page.keyboard.press("ArrowLeft")
    wait_for_signal(page, "i", "stage", 11)
    stale.append(stale_description(page, "i", contains="11"))
    page.keyboard.press("Home")
    wait_for_signal(page, "i", "stage", 0)
    stale.append(stale_description(page, "i", contains="Before any layer"))
    page.keyboard.press("ArrowRight")
    wait_for_signal(page, "i", "stage", 1)
    stale.append(stale_description(page, "i", contains="1"))

    focused = tab_to(page, lambda f: f["tag"] == "summary" and f["inReveal"])
    assert_focus_is_visible(focused)
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.querySelector('details.reveal').open") is True
    visit.assert_clean("figure-i.html by keyboard")
    assert_no_stale_descriptions(stale, "figure-i.html by keyboard")


def test_figure_cost_sliders_move_by_arrow_home_and_end_keys(opener):
    visit = opener.open("figure-cost.html")
    page = visit.page
    assert signal(page, "cost", "n") == 1000 and signal(page, "cost", "shorter") == 9
    stale = [stale_description(page, "cost", contains="1,000")]

    focused = tab_to(page, lambda f: f["type"] == "range" and f["name"] == "n")
    assert_focus_is_visible(focused)
    page.keyboard.press("ArrowLeft")
    wait_for_signal(page, "cost", "n", 999)
    stale.append(stale_description(page, "cost", contains="999"))
    page.keyboard.press("End")
    wait_for_signal(page, "cost", "n", 1024)
    stale.append(stale_description(page, "cost", contains="1,024"))
    page.keyboard.press("Home")
    wait_for_signal(page, "cost", "n", 1)
    stale.append(stale_description(page, "cost"))

    focused = tab_to(page, lambda f: f["type"] == "range" and f["name"] == "shorter")
    assert_focus_is_visible(focused)
    page.keyboard.press("ArrowRight")
    wait_for_signal(page, "cost", "shorter", 10)
    stale.append(stale_description(page, "cost"))
    visit.assert_clean("figure-cost.html by keyboard")
    assert_no_stale_descriptions(stale, "figure-cost.html by keyboard")


# ---------------------------------------------------------------------------------------------- 2. permalinks


def test_a_permalink_to_figure_l_reopens_the_token_and_view_in_a_new_page(opener):
    visit = opener.open("figure-l.html")
    page = visit.page
    history_length = page.evaluate("() => history.length")
    page.click(".token-row [data-token='7']")
    wait_for_signal(page, "l", "token", 7)
    page.locator("#chart-l input[name='view'][value='5-12']").check()
    wait_for_signal(page, "l", "view", "5-12")
    page.wait_for_function(
        "() => /view=5-12/.test(location.hash) && /token=7/.test(location.hash)", timeout=CHANGE_TIMEOUT_MS
    )
    href = page.evaluate("() => location.href")
    assert href.startswith("file:") and "figure-l.html#" in href, href
    assert page.evaluate("() => history.length") == history_length, (
        "changing a control should replace the address, not push history"
    )

    again = opener.open(href)
    fresh = again.page
    assert fresh is not page
    assert signal(fresh, "l", "token") == 7
    assert signal(fresh, "l", "view") == "5-12"
    assert fresh.locator("#chart-l select[name='token']").input_value() == "7"
    assert fresh.locator("#chart-l input[name='view'][value='5-12']").is_checked()
    text = description(fresh, "l")
    assert "_street (token 7)" in text and "layer 5, head 12" in text, text
    visit.assert_clean("figure-l.html")
    again.assert_clean(href)


def test_a_permalink_to_figure_i_reopens_the_stage(opener):
    visit = opener.open("figure-i.html")
    page = visit.page
    page.locator("#chart-i input[type='range'][name='stage']").fill("9")
    wait_for_signal(page, "i", "stage", 9)
    # The chance axis's switch, left on the whole scale, is in the address too.
    page.wait_for_function("() => location.hash === '#stage=9&chance_scale=whole'", timeout=CHANGE_TIMEOUT_MS)
    href = page.evaluate("() => location.href")

    again = opener.open(href)
    fresh = again.page
    assert signal(fresh, "i", "stage") == 9
    assert fresh.locator("#chart-i input[name='stage']").input_value() == "9"
    assert signal(fresh, "i", "description") == signal(page, "i", "description")
    assert description(fresh, "i") == signal(fresh, "i", "description")
    visit.assert_clean("figure-i.html")
    again.assert_clean(href)


def test_a_permalink_to_figure_cost_reopens_both_lengths(opener):
    visit = opener.open("figure-cost.html")
    page = visit.page
    page.locator("#chart-cost input[name='n']").fill("100")
    wait_for_signal(page, "cost", "n", 100)
    page.locator("#chart-cost input[name='shorter']").fill("12")
    wait_for_signal(page, "cost", "shorter", 12)
    page.wait_for_function(
        "() => /n=100(&|$)/.test(location.hash) && /shorter=12/.test(location.hash)", timeout=CHANGE_TIMEOUT_MS
    )
    href = page.evaluate("() => location.href")

    again = opener.open(href)
    fresh = again.page
    assert signal(fresh, "cost", "n") == 100 and signal(fresh, "cost", "shorter") == 12
    assert fresh.locator("#chart-cost input[name='n']").input_value() == "100"
    assert fresh.locator("#chart-cost input[name='shorter']").input_value() == "12"
    assert signal(fresh, "cost", "description") == signal(page, "cost", "description")
    assert description(fresh, "cost") == signal(fresh, "cost", "description")
    assert description(fresh, "cost").startswith("100 tokens"), description(fresh, "cost")
    visit.assert_clean("figure-cost.html")
    again.assert_clean(href)


def test_a_hand_written_permalink_sets_every_figure(opener):
    page = opener.open("figure-l.html#token=7&view=5-12").page
    assert (signal(page, "l", "token"), signal(page, "l", "view")) == (7, "5-12")
    page = opener.open("figure-i.html#stage=9").page
    assert signal(page, "i", "stage") == 9
    page = opener.open("figure-cost.html#n=100&shorter=9").page
    assert (signal(page, "cost", "n"), signal(page, "cost", "shorter")) == (100, 9)
    for visit in opener.visits:
        visit.assert_clean(visit.page.url)


OPENING_STATE = {"l": {"token": 9, "view": "5-4"}, "i": {"stage": 12}, "cost": {"n": 1000, "shorter": 9}}
BOGUS_HASHES = [
    "token=99&view=nope&stage=x",
    "token=0&view=5-4x&stage=13&n=-5&shorter=100000&garbage&&=&==&token=7.5&stage=NaN&n=Infinity&shorter=",
    "token=%E0%A4%A&view=%&stage=9%&n=100%&shorter=%zz",  # broken percent escapes, as a mangled link gives
]


def wait_for_charts_or_errors(visit: Visit, timeout_s: float = RENDER_TIMEOUT_MS / 1000) -> bool:
    """Waits until every chart is drawn (True), or a page error is thrown or time runs out (False)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if visit.page.evaluate(ALL_RENDERED):
            return True
        if visit.page_errors:
            visit.page.wait_for_timeout(300)
            return visit.page.evaluate(ALL_RENDERED)
        visit.page.wait_for_timeout(100)
    return False


@pytest.mark.parametrize("fragment", BOGUS_HASHES)
@pytest.mark.parametrize("label", ["l", "i", "cost"])
def test_a_bogus_permalink_keeps_the_opening_state_without_errors(opener, label, fragment):
    visit = opener.open(f"figure-{label}.html#{fragment}", wait_for_charts=False)
    page = visit.page
    if not wait_for_charts_or_errors(visit):
        pytest.fail(
            f"figure-{label}.html#{fragment}: the chart was never drawn; "
            f"page errors {visit.page_errors}, console errors {visit.console_errors}"
        )
    assert page.get_attribute(f"#chart-{label}", "data-rendered") == "true", page.text_content(f"#chart-{label}")
    for name, value in OPENING_STATE[label].items():
        assert signal(page, label, name) == value, f"#{fragment} changed {name}"
    assert description(page, label) == signal(page, label, "description")
    visit.assert_clean(f"figure-{label}.html#{fragment}")


def test_the_answer_link_of_figure_l_sets_the_figure_without_reloading_the_page(opener):
    visit = opener.open("figure-l.html")
    page = visit.page
    page.evaluate("() => { window.__notReloaded = true; }")
    page.locator("details.reveal summary").click()
    link = page.locator("details.reveal a[href^='#']")
    assert link.count() == 1
    assert link.get_attribute("href") == "#token=7&view=5-12"
    link.click()
    wait_for_signal(page, "l", "token", 7)
    wait_for_signal(page, "l", "view", "5-12")
    assert page.evaluate("() => window.__notReloaded") is True, "following the answer's link reloaded the page"
    assert page.locator("#chart-l select[name='token']").input_value() == "7"
    assert page.locator("#chart-l input[name='view'][value='5-12']").is_checked()
    stale = stale_description(page, "l", contains="_street (token 7), layer 5, head 12")

    # Changing the figure and following the same link again jumps back to the answer.
    page.click(".token-row [data-token='3']")
    wait_for_signal(page, "l", "token", 3)
    link.click()
    wait_for_signal(page, "l", "token", 7)
    assert page.evaluate("() => window.__notReloaded") is True
    visit.assert_clean("figure-l.html")
    assert_no_stale_descriptions(
        [stale, stale_description(page, "l", contains="_street (token 7), layer 5, head 12")],
        "figure-l.html after following the answer's link",
    )


def test_an_answer_link_on_figure_i_if_the_run_has_one_sets_the_stage_without_reloading(opener):
    visit = opener.open("figure-i.html")
    page = visit.page
    link = page.locator("details.reveal a[href^='#stage=']")
    if link.count() == 0:  # with this run's numbers the tracked token may never enter the top three
        assert "never" in page.locator("details.reveal > :not(summary)").first.text_content()
        visit.assert_clean("figure-i.html")
        return
    stage = int(link.get_attribute("href").split("=")[1])
    page.evaluate("() => { window.__notReloaded = true; }")
    page.locator("details.reveal summary").click()
    link.click()
    wait_for_signal(page, "i", "stage", stage)
    assert page.evaluate("() => window.__notReloaded") is True
    visit.assert_clean("figure-i.html")


# ---------------------------------------------------------------------------------------------- 3. narrow columns


def embed_snippet(site: Path, label: str) -> str:
    html = (site / f"figure-{label}.html").read_text(encoding="utf-8")
    match = re.search(r'<details class="embed[^"]*">.*?<pre[^>]*><code>(.*?)</code></pre>', html, re.S)
    assert match, f"figure-{label}.html shows no embed snippet"
    return unescape(match.group(1))


@pytest.fixture(scope="module")
def book(site, tmp_path_factory) -> Path:
    """A book's folder: the site copied in as site/, as the embed snippet expects."""
    book = tmp_path_factory.mktemp("book")
    shutil.copytree(site, book / "site")
    return book


SIDEWAYS = """() => {
    const root = document.documentElement, w = root.clientWidth;
    return {scrollWidth: root.scrollWidth, clientWidth: w,
            wide: Array.from(document.querySelectorAll('body *')).filter(el => el.getBoundingClientRect().right > w + 0.5)
                .map(el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
                     + (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).join('.') : '')
                     + ' right=' + Math.round(el.getBoundingClientRect().right)).slice(0, 6)};
}"""


@pytest.mark.parametrize("label", LABELS)
def test_the_embed_snippet_shows_the_figure_in_a_360_pixel_book_column(opener, book, label):
    snippet = embed_snippet(book / "site", label)
    assert f'src="site/embed-{label}.html"' in snippet, snippet
    chapter = book / f"chapter-{label}.html"
    chapter.write_text(
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>A chapter</title></head>"
        "<body style='margin: 0'><p>Some text of the chapter.</p>"
        f"<div class='column' style='width: 360px'>{snippet}</div><p>More text.</p></body></html>",
        encoding="utf-8",
    )

    visit = opener.open(chapter.as_uri(), wait_for_charts=False)
    page = visit.page
    iframe = page.locator("iframe")
    assert iframe.bounding_box()["width"] == pytest.approx(360, abs=1)
    frame = iframe.element_handle().content_frame()
    frame.wait_for_url(f"**/embed-{label}.html", timeout=RENDER_TIMEOUT_MS)
    frame.wait_for_load_state("load", timeout=RENDER_TIMEOUT_MS)
    frame.wait_for_function(ALL_RENDERED, timeout=RENDER_TIMEOUT_MS)
    assert frame.url == (book / "site" / f"embed-{label}.html").as_uri(), frame.url
    assert frame.get_attribute(f"#chart-{label}", "data-rendered") == "true", frame.text_content(f"#chart-{label}")
    assert frame.locator(f"#chart-{label} svg").count() >= 1
    sideways = frame.evaluate(SIDEWAYS)
    assert sideways["scrollWidth"] <= sideways["clientWidth"], (
        f"embed-{label}.html scrolls sideways in a 360 px column: {sideways}"
    )
    # The drawing's box fits the frame; a drawing wider than it (the lens's table on a phone) scrolls in that box.
    chart_box = frame.locator(f"#chart-{label} .chart-wrapper").first.bounding_box()
    frame_box = iframe.bounding_box()
    assert chart_box["x"] + chart_box["width"] <= frame_box["x"] + frame_box["width"] + 0.5, (
        f"the chart ({chart_box}) runs out of the 360 px frame ({frame_box})"
    )
    visit.assert_clean(f"chapter.html with embed-{label}.html")


COLUMN_WIDTHS = [320, 360, 768, 1200]


@pytest.mark.parametrize("label", LABELS)
def test_the_bare_page_fits_every_column_from_320_to_1200_pixels_without_sideways_scrolling(opener, label):
    """Opened at 320 px, then widened step by step (the chart follows its container's width)."""
    context = opener.context(viewport={"width": COLUMN_WIDTHS[0], "height": 900})
    visit = opener.open(f"embed-{label}.html", context=context)
    page = visit.page
    wide = []
    for width in COLUMN_WIDTHS:
        if width != COLUMN_WIDTHS[0]:
            page.set_viewport_size({"width": width, "height": 900})
            try:  # wait for the chart to follow the new width, if it overflowed
                page.wait_for_function(
                    "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth", timeout=2_000
                )
            except sync_api.TimeoutError:
                pass
        sideways = page.evaluate(SIDEWAYS)
        if sideways["scrollWidth"] > sideways["clientWidth"]:
            wide.append(f"at {width} px: {sideways}")
    assert not wide, f"embed-{label}.html scrolls sideways: " + "; ".join(wide)
    visit.assert_clean(f"embed-{label}.html")


# ---------------------------------------------------------------------------------------------- 4. axe


def axe_lines(name: str, violations: list) -> tuple[list, list]:
    serious, lesser = [], []
    for violation in violations:
        targets = [" ".join(map(str, node["target"])) for node in violation["nodes"]][:4]
        line = f"{name}: {violation['id']} ({violation['impact']}): {violation['help']} at {targets}"
        (serious if violation["impact"] in ("serious", "critical") else lesser).append(line)
    return serious, lesser


# The rules axe runs: WCAG 2.0, 2.1 and 2.2 at levels A and AA, and axe's best practices. By tag, so that the rule
# target-size (WCAG 2.2, 2.5.8: a target of 24 x 24 px, or that much room around it), which axe leaves out by
# default, runs too.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa", "best-practice"]


def test_axe_finds_no_serious_or_critical_problem_on_any_page_in_light_or_dark(opener, random_site):
    """Each page is scanned drawn light, then (but for the bare pages) switched to the dark scheme, which
    figures.js follows by redrawing, and scanned again; the rules are WCAG 2.2 AA's with target size."""
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    # preload False: axe would fetch the style sheets with XMLHttpRequest, which file:// refuses (a console
    # error of axe's own); only the rule css-orientation-lock needs them.
    options = {"resultTypes": ["violations"], "preload": False, "runOnly": {"type": "tag", "values": AXE_TAGS}}
    context = opener.context(color_scheme="light")
    serious, lesser = [], []
    for name in ALL_PAGES + sorted(path.name for path in random_site.glob("text-*.html")):
        visit = opener.open(name, context=context)
        page = visit.page
        # A bare page holds the same figure with the same style sheet as its figure page: light is enough.
        for scheme in ("light",) if name.startswith("embed-") else ("light", "dark"):
            if scheme == "dark":
                page.emulate_media(color_scheme="dark")
                page.wait_for_function("() => matchMedia('(prefers-color-scheme: dark)').matches")
                page.wait_for_function(ALL_RENDERED, timeout=RENDER_TIMEOUT_MS)
            response = axe.run(page, options=options).response
            ran = {
                rule["id"]
                for kind in ("passes", "violations", "incomplete", "inapplicable")
                for rule in response.get(kind, [])
            }
            assert "target-size" in ran, f"axe did not run the rule target-size on {name}"
            found = axe_lines(f"{name} ({scheme})", response["violations"])
            serious += found[0]
            lesser += found[1]
        visit.assert_clean(name)
        opener.done(visit)
    assert not serious, (
        "serious or critical accessibility problems:\n  "
        + "\n  ".join(serious)
        + ("\nand lesser ones:\n  " + "\n  ".join(lesser) if lesser else "")
    )
    if lesser:
        warnings.warn("moderate or minor accessibility problems:\n  " + "\n  ".join(lesser), stacklevel=1)


# ---------------------------------------------------------------------------------------------- 5. no JS, print


# An image inside an element not shown (the chart's box in print) counts as not shown.
STATIC_IMAGE_STATE = """img => ({display: img.checkVisibility() ? getComputedStyle(img).display : 'none',
    complete: img.complete, naturalWidth: img.naturalWidth, width: img.getBoundingClientRect().width,
    inChartBox: !!img.closest('.chart .first-drawing')})"""


def shown_static_images(page) -> list[dict]:
    return [
        state
        for state in page.eval_on_selector_all("img.static-chart", f"imgs => imgs.map({STATIC_IMAGE_STATE})")
        if state["display"] != "none"
    ]


@pytest.mark.parametrize("label", LABELS)
def test_without_javascript_a_figure_page_shows_the_static_drawing_and_the_text_figure_and_prints_them_once(
    opener, label
):
    context = opener.context(java_script_enabled=False)
    visit = opener.open(f"figure-{label}.html", context=context, wait_for_charts=False)
    page = visit.page
    page.wait_for_load_state("load")
    shown = shown_static_images(page)
    assert len(shown) == 1, f"figure-{label}.html without JavaScript shows {len(shown)} static drawings: {shown}"
    assert shown[0]["inChartBox"], shown  # the drawing every page shows first, in the chart's box (issue 34)
    assert shown[0]["naturalWidth"] > 0 and shown[0]["width"] > 0, f"the static drawing did not load: {shown[0]}"
    assert page.locator(".chart .first-drawing").inner_html().count(f'src="img/figure-{label}.svg"') == 1
    pre = page.locator(".text-figure pre")
    assert pre.is_visible() and pre.text_content().startswith(page.text_content("h1.figure-title").strip() + "\n")

    page.emulate_media(media="print")
    shown = shown_static_images(page)
    assert len(shown) == 1, (
        f"figure-{label}.html printed without JavaScript shows {len(shown)} static drawings: {shown}"
    )
    assert shown[0]["naturalWidth"] > 0 and shown[0]["width"] > 0, shown[0]
    assert pre.is_visible()
    visit.assert_clean(f"figure-{label}.html without JavaScript")


@pytest.mark.parametrize("label", LABELS)
def test_in_print_a_figure_page_shows_the_static_drawing_and_the_text_figure_but_no_controls(opener, label):
    visit = opener.open(f"figure-{label}.html")
    page = visit.page
    page.emulate_media(media="print")
    hidden = page.evaluate("""() => ['.chart', '.vega-bindings', '.site-header', 'nav', 'details.embed', 'details.reveal',
                                     '.chart-description']
        .flatMap(sel => Array.from(document.querySelectorAll(sel)).map(el => [sel, getComputedStyle(el).display]))""")
    shown_controls = [sel for sel, display in hidden if display != "none"]
    assert not shown_controls, f"figure-{label}.html prints {shown_controls}"
    if label in OPENING_STATE:  # the figures with controls: the check above is not vacuous
        assert any(sel == ".vega-bindings" for sel, _ in hidden), f"figure-{label}.html has no .vega-bindings"
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('img.print-only')).every(i => i.complete)",
        timeout=CHANGE_TIMEOUT_MS,
    )
    shown = shown_static_images(page)
    assert len(shown) == 1, f"figure-{label}.html prints {len(shown)} static drawings: {shown}"
    assert not shown[0]["inChartBox"] and shown[0]["naturalWidth"] > 0 and shown[0]["width"] > 0, shown[0]
    assert page.locator(".text-figure pre").is_visible()
    visit.assert_clean(f"figure-{label}.html in print")


@pytest.mark.parametrize("label", LABELS)
def test_the_small_picture_of_a_figure_on_the_index_and_in_link_previews_is_a_png_in_the_site(site, label):
    # Link previews (og:image) name it only where [site] gives a base_url: tests/builds/test_author_site.py.
    html = (site / "index.html").read_text(encoding="utf-8")
    match = re.search(rf'<img class="preview" src="([^"]+)"[^>]*>\s*<div>\s*<a href="figure-{label}.html">', html)
    assert match, f"the index has no small picture of figure-{label}.html"
    image = site / unescape(match.group(1))
    assert image.is_file(), f"the picture {match.group(1)} is not in the site"
    data = image.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{image.name} is not a PNG"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width >= 200 and height >= 100, f"{image.name} is only {width} x {height}"


# ---------------------------------------------------------------------------------------------- 6. dark, 7. motion


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_the_page_and_the_charts_follow_the_readers_colour_scheme(opener, scheme):
    context = opener.context(color_scheme=scheme)
    problems = []
    for label in LABELS:
        visit = opener.open(f"figure-{label}.html", context=context)
        page = visit.page
        background = page.evaluate(PAGE_BACKGROUND)
        assert background, f"figure-{label}.html sets no page background"
        page_dark = relative_luminance(background) < 0.2
        fills = axis_label_fills(page, label)
        if fills:
            text_light = [relative_luminance(fill) > 0.4 for fill in fills]
            if scheme == "dark" and not all(text_light):
                problems.append(f"figure-{label}.html: axis labels not light in the dark scheme: {sorted(set(fills))}")
            if scheme == "light" and any(text_light):
                problems.append(f"figure-{label}.html: axis labels light in the light scheme: {sorted(set(fills))}")
        if page_dark != (scheme == "dark"):
            problems.append(f"figure-{label}.html: page background {background} in the {scheme} scheme")
        visit.assert_clean(f"figure-{label}.html ({scheme})")
        opener.done(visit)
    assert not problems, "\n".join(problems)
    # Figure l has axes for certain: the check above is not vacuous.
    page = opener.open("figure-l.html", context=context).page
    assert axis_label_fills(page, "l"), "figure-l.html has no axis labels"


def test_the_chart_turns_dark_when_the_reader_switches_scheme_with_the_page_open(opener):
    visit = opener.open("figure-l.html#token=7&view=5-12")
    page = visit.page
    assert all(relative_luminance(fill) < 0.4 for fill in axis_label_fills(page, "l"))
    page.emulate_media(color_scheme="dark")
    page.wait_for_function(
        "() => { const t = document.querySelector('#chart-l svg .role-axis-label text');"
        " return document.getElementById('chart-l').getAttribute('data-rendered') === 'true' && t"
        " && getComputedStyle(t).fill !== 'rgb(51, 51, 51)'; }",
        timeout=RENDER_TIMEOUT_MS,
    )
    assert all(relative_luminance(fill) > 0.4 for fill in axis_label_fills(page, "l"))
    assert (signal(page, "l", "token"), signal(page, "l", "view")) == (7, "5-12"), "the redraw lost the reader's state"
    visit.assert_clean("figure-l.html switched to dark")


def test_with_reduced_motion_the_figures_render_and_controls_do_not_animate(opener):
    context = opener.context(reduced_motion="reduce")
    visit = opener.open("figure-l.html", context=context)
    page = visit.page
    assert page.evaluate("() => matchMedia('(prefers-reduced-motion: reduce)').matches")
    for selector in ["#chart-l select[name='token']", "#chart-l input[name='view']", "details.reveal summary"]:
        durations = page.eval_on_selector(selector, "el => getComputedStyle(el).transitionDuration")
        assert all(d.strip() == "0s" for d in durations.split(",")), f"{selector} transition-duration {durations}"
    visit.assert_clean("figure-l.html with reduced motion")
