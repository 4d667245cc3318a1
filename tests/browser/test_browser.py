"""The built site in headless Chromium, from file:// with every other request refused.

One build of the site (``--model random``, conftest's ``random_site``) and the session's one browser serve
the whole module (tests/browser/browsing.py); the tests that only read a page share it (``open_once``). Every page
is opened with a route that lets file: URLs through and aborts (and records) everything else, and with
listeners that collect console errors, page errors and Vega's own warnings.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest
from conftest import CONFIG_FIGURES
from .browsing import CHANGE_TIMEOUT_MS, chart_svg, chart_texts, playwright_or_skip, signal, wait_for_svg_change

sync_api = playwright_or_skip()

LABELS = [figure["label"] for figure in CONFIG_FIGURES]
PAGES = ["index.html"] + [f"figure-{label}.html" for label in LABELS]
REVEAL_LABELS = ["l", "i"]  # the figures with a "guess first" question


# ---------------------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def site(random_site) -> Path:
    """The chapter's site built once with the seeded random model (conftest's random_site)."""
    return random_site


# ---------------------------------------------------------------------------------------------- helpers


def figures_txt_blocks(site: Path) -> dict[str, str]:
    """figures.txt split into its figures: a block starts at a line "(label) ..." after a blank line."""
    text = (site / "figures.txt").read_text(encoding="utf-8")
    blocks = {}
    for block in re.split(r"\n\n(?=\()", text.strip("\n")):
        label = re.match(r"\(([^)]+)\)", block).group(1)
        blocks[label] = block.rstrip("\n")
    return blocks


# ---------------------------------------------------------------------------------------------- tests


@pytest.mark.parametrize("name", PAGES)
def test_every_page_renders_its_charts_without_errors_or_requests_outside_file(open_once, name):
    visit = open_once(name)
    states = visit.page.eval_on_selector_all(
        "[data-spec]",
        "els => els.map(el => [el.getAttribute('data-spec'), el.getAttribute('data-rendered'), "
        "el.getAttribute('data-rendered') === 'true' ? '' : el.textContent])",
    )
    if name != "index.html":
        assert states, f"{name} has no chart ([data-spec])"
    failed = [state for state in states if state[1] != "true"]
    assert not failed, f"{name}: charts not drawn: {failed}; console errors: {visit.console_errors}"
    for spec_id, _, _ in states:  # every chart is drawn as SVG with a live view
        assert visit.page.evaluate(
            "id => { const el = document.querySelector(`[data-spec=\"${id}\"]`); return !!(el.vegaView && el.querySelector('svg')); }",
            spec_id,
        ), f"{name}: {spec_id} has no SVG or no vegaView"
    assert visit.console_errors == [], f"{name}: console errors"
    assert visit.page_errors == [], f"{name}: page errors"
    assert visit.refused == [], f"{name}: requests outside file://"
    if visit.vega_warnings:  # reported, not failed
        warnings.warn(f"{name}: Vega warnings: {visit.vega_warnings}", stacklevel=1)


def test_picking_a_token_on_figure_l_changes_what_is_shown(opener):
    visit = opener.open("figure-l.html")
    page = visit.page
    assert signal(page, "l", "token") == 9
    select = page.locator("#chart-l .vega-bindings select[name='token']")
    assert select.input_value() == "9"
    assert "Looking from _it (token 9)" in chart_texts(page, "l")

    before = chart_svg(page, "l")
    page.click(".token-row [data-token='7']")  # the select is hidden: the row above the chart chooses the token
    wait_for_svg_change(page, "l", before)
    assert select.input_value() == "7"
    assert signal(page, "l", "token") == 7
    assert chart_svg(page, "l") != before
    assert "Looking from _street (token 7)" in chart_texts(page, "l")
    assert visit.console_errors == [] and visit.page_errors == []


def test_choosing_another_view_on_figure_l_changes_what_is_shown(opener):
    visit = opener.open("figure-l.html")
    page = visit.page
    assert signal(page, "l", "view") == "5-4"  # views are named layer-head, as in a permalink
    radios = page.locator("#chart-l .vega-bindings input[type='radio'][name='view']")
    assert radios.count() == 4
    assert page.locator("#chart-l input[name='view'][value='5-4']").is_checked()

    before = chart_svg(page, "l")
    page.locator("#chart-l input[name='view'][value='1-1']").check()
    wait_for_svg_change(page, "l", before)
    assert signal(page, "l", "view") == "1-1"
    assert chart_svg(page, "l") != before

    before = chart_svg(page, "l")
    page.locator("#chart-l input[name='view'][value='all']").check()  # the average of all heads
    wait_for_svg_change(page, "l", before)
    assert signal(page, "l", "view") == "all"
    assert visit.console_errors == [] and visit.page_errors == []


def top_title(site: Path, stage: int, said: str) -> str:
    """The upper chart's title of (i) after `stage`: the top 3, and the target where it is drawn below them (as the
    site's downloads of the bars say)."""
    rows = json.loads((site / "downloads" / "figure-i.json").read_text(encoding="utf-8"))["tables"]["top"]
    below = [row["token"] for row in rows if row["after_layer"] == stage and row["target"] and row["rank"] > 3]
    return f"The top 3 {said}" + (f", and {below[0]}" if below else "")


def test_moving_the_slider_on_figure_i_changes_what_is_shown(opener, random_site):
    visit = opener.open("figure-i.html")
    page = visit.page
    slider = page.locator("#chart-i .vega-bindings input[type='range'][name='stage']")
    assert signal(page, "i", "stage") == 12
    assert slider.input_value() == "12"
    assert top_title(random_site, 12, "after layer 12") in chart_texts(page, "i", ".role-title-text")

    before = chart_svg(page, "i")
    slider.focus()
    page.keyboard.press("ArrowLeft")
    wait_for_svg_change(page, "i", before)
    assert signal(page, "i", "stage") == 11
    assert top_title(random_site, 11, "after layer 11") in chart_texts(page, "i", ".role-title-text")

    before = chart_svg(page, "i")
    slider.fill("0")  # sets the value and fires input and change
    wait_for_svg_change(page, "i", before)
    assert signal(page, "i", "stage") == 0
    assert top_title(random_site, 0, "before any layer") in chart_texts(page, "i", ".role-title-text")
    assert visit.console_errors == [] and visit.page_errors == []


def test_the_cost_figure_reacts_to_its_n_slider(opener):
    visit = opener.open("figure-cost.html")
    page = visit.page
    assert signal(page, "cost", "n") == 1000
    assert signal(page, "cost", "shorter") == 9
    svg_text = page.eval_on_selector("#chart-cost svg", "svg => svg.textContent")
    assert "500,500" in svg_text and "72,072,000" in svg_text  # 1,000 tokens: 1000 x 1001 / 2 looks, x 144

    before = chart_svg(page, "cost")
    page.locator("#chart-cost input[type='range'][name='n']").fill("100")
    wait_for_svg_change(page, "cost", before)
    assert signal(page, "cost", "n") == 100
    svg_text = page.eval_on_selector("#chart-cost svg", "svg => svg.textContent")
    assert "5,050" in svg_text, svg_text  # 100 x 101 / 2
    assert "727,200" in svg_text, svg_text  # 5,050 x 144
    assert "500,500" not in svg_text
    assert visit.console_errors == [] and visit.page_errors == []


def test_the_shares_on_figure_l_add_up_to_about_100_percent(open_once):
    page = open_once("figure-l.html").page
    token = signal(page, "l", "token")
    labels = [text for text in chart_texts(page, "l", "g.role-mark text") if re.fullmatch(r"\d+%", text)]
    assert len(labels) == token, f"expected one percent label per visible token ({token}), got {labels}"
    total = sum(int(text[:-1]) for text in labels)
    assert abs(total - 100) <= 5, f"the shown shares add up to {total}%: {labels}"

    # The exact shares behind the bars (the data of the drawn rect marks) add up to 1.
    shares = page.evaluate(
        """id => {
        const shares = [];
        const walk = node => {
            if (!node) return;
            if (node.marktype === 'rect' && node.role === 'mark') {
                for (const item of node.items || []) if (item.datum && typeof item.datum.s === 'number') shares.push(item.datum.s);
            }
            for (const child of node.items || []) if (child.items) walk(child);
        };
        walk(document.getElementById(id).vegaView.scenegraph().root);
        return shares;
    }""",
        "chart-l",
    )
    assert len(shares) == token, shares
    assert sum(shares) == pytest.approx(1.0, abs=0.01), shares


@pytest.mark.parametrize("label", REVEAL_LABELS)
def test_the_guess_first_reveal_is_closed_at_first_and_opens_on_click(opener, label):
    page = opener.open(f"figure-{label}.html").page
    details = page.locator("details.reveal")
    assert details.count() == 1
    answer = details.locator(":scope > :not(summary)").first
    assert details.evaluate("d => d.open") is False
    assert not answer.is_visible()

    details.locator("summary").click()
    page.wait_for_function("() => document.querySelector('details.reveal').open", timeout=CHANGE_TIMEOUT_MS)
    assert answer.is_visible()
    assert answer.inner_text().strip(), "the revealed answer is empty"


@pytest.mark.parametrize("label", LABELS)
def test_the_text_figure_is_on_every_figure_page_and_matches_figures_txt_but_for_its_label(open_once, site, label):
    page = open_once(f"figure-{label}.html").page
    pre = page.locator("section.text-figure pre")
    assert pre.count() == 1
    shown = pre.text_content().rstrip("\n")
    blocks = figures_txt_blocks(site)
    assert label in blocks, f"figures.txt has no block for ({label}); it has {sorted(blocks)}"
    # figures.txt prints the book's label line, "(l) title"; the page names the figure by its title alone.
    assert blocks[label].startswith(f"({label}) ") and shown == blocks[label].removeprefix(f"({label}) ")
    assert shown.split("\n")[0] == page.text_content("h1.figure-title").strip()
    assert pre.is_visible()


def test_the_index_links_to_every_figure_page_and_every_link_resolves(open_once, site):
    page = open_once("index.html").page
    hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.getAttribute('href'))")
    figure_hrefs = page.eval_on_selector_all(
        ".figure-list a[href^='figure-']", "links => links.map(a => a.getAttribute('href'))"
    )
    assert figure_hrefs == [f"figure-{label}.html" for label in LABELS]
    for href in hrefs:
        assert not re.match(r"^[a-z][a-z0-9+.-]*:", href, re.I), f"index links outside the site: {href}"
        target = (site / href.split("#")[0]).resolve()
        assert target.is_file(), f"index links to {href}, which is not in the site"
