"""Readers on phones: no page scrolls sideways in a 360 px wide window, light or dark; wide things (a checksum, a
printed figure, a grid wider than the phone) wrap or scroll in their own box. Every chart takes its column's width
there, or scrolls sideways in its own box, and stays readable: its words 10 px or more, none cut off. Every control is a target a finger can hit (24 x 24 px, WCAG 2.2, 2.5.8);
the index shows a small picture of each figure. On a desktop the column still uses the width."""

from __future__ import annotations

import pytest

SIDEWAYS = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
PHONE = {"width": 360, "height": 800}
MIN_TEXT_PX = 10  # the smallest word a chart may draw, in CSS px as drawn
MIN_TARGET_PX = 24  # WCAG 2.2, 2.5.8 (AA)


def every_page(site):
    return sorted(path.name for path in site.glob("*.html"))


def every_figure_page(site):
    return sorted(path.name for path in site.glob("figure-*.html"))


def one_page_of_each_sort(site):
    """The index, the widest figure page, a page of one text, a bare page: the dark scheme changes colours only."""
    return [
        "index.html",
        "figure-ledger.html",
        next(p for p in every_page(site) if p.startswith("text-")),
        "embed-lens.html",
    ]


@pytest.mark.parametrize("scheme, which", [("light", every_page), ("dark", one_page_of_each_sort)])
def test_no_page_scrolls_sideways_at_360_px(opener, random_site, scheme, which):
    context = opener.context(viewport=PHONE, color_scheme=scheme)
    pages = which(random_site)
    assert len(pages) >= 4
    wide = {}
    for name in pages:
        visit = opener.open(name, context=context)
        overflow = visit.page.evaluate(SIDEWAYS)
        if overflow > 0:
            wide[name] = overflow
        visit.assert_clean()
        opener.done(visit)
    assert wide == {}, f"pages wider than 360 px by (px): {wide}"


# Each chart of a page, as drawn: how wide its drawing is against the room its drawing's box gives it (the box less
# its padding, where the chart's menu sits), whether that box scrolls sideways, and every word it draws that is smaller than MIN_TEXT_PX as drawn (its
# font size times the drawing's scale on the page) or reaches outside the drawing; an axis's or legend's label or
# a title cut short by Vega ("...") counts as cut off too. Words hidden by Vega (opacity 0) are not drawn.
CHARTS_AS_DRAWN = """([minPx]) => Array.from(document.querySelectorAll('[data-spec]')).map(chart => {
    const svg = chart.querySelector('svg.marks'), box = svg.getBoundingClientRect();
    const drawing = chart.querySelector('.chart-drawing'), style = getComputedStyle(drawing);
    const room = drawing.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const scroller = chart.querySelector('.chart-wrapper');
    const hidden = el => { for (let n = el; n && n !== svg; n = n.parentElement) {
        const s = getComputedStyle(n);
        if (s.display === 'none' || s.visibility === 'hidden' || parseFloat(s.opacity) === 0) return true; }
        return false; };
    const small = [], cut = [];
    for (const text of svg.querySelectorAll('text')) {
        const words = text.textContent.trim();
        if (!words || hidden(text)) continue;
        const role = (text.closest('g[class*="role-"]') || svg).getAttribute('class').replace(/^mark-\\w+ /, '');
        const m = text.getScreenCTM(), px = parseFloat(getComputedStyle(text).fontSize) * Math.hypot(m.a, m.b);
        if (px < minPx - 0.05) small.push(`${words} (${role}): ${px.toFixed(1)} px`);
        const r = text.getBoundingClientRect();
        const outside = [r.left < box.left - 1 && 'left', r.right > box.right + 1 && 'right',
                         r.top < box.top - 1 && 'top', r.bottom > box.bottom + 1 && 'bottom'].filter(Boolean);
        if (outside.length) cut.push(`${words} (${role}) reaches out of the drawing at the ${outside.join(', ')}`);
        else if (/role-(axis|legend|title)/.test(role) && words.endsWith('\\u2026')) cut.push(`${words} (${role}) is cut short`);
    }
    return {chart: chart.id, room: room, drawn: box.width, scrolls: scroller.scrollWidth > scroller.clientWidth + 1,
            keyboard: scroller.tabIndex >= 0, small: small, cut: cut,
            chartScrolls: chart.scrollWidth > chart.clientWidth + 1};
})"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_chart_takes_its_columns_width_at_360_px_with_words_of_10_px_or_more_and_none_cut_off(
    opener, random_site, scheme
):
    """The site has every kind of figure (chapter.toml): each figure page's chart, in the scheme the reader set."""
    context = opener.context(viewport=PHONE, color_scheme=scheme)
    problems, charts = [], 0
    for name in every_figure_page(random_site):
        visit = opener.open(name, context=context)
        for chart in visit.page.evaluate(CHARTS_AS_DRAWN, [MIN_TEXT_PX]):
            charts += 1
            where = f"{name} {chart['chart']}"
            # A drawing as wide as its column, or a wider one (a grid) that scrolls in its own box, which the
            # keyboard reaches; never the chart with its controls.
            wider = chart["drawn"] > chart["room"] + 1
            if (
                (abs(chart["drawn"] - chart["room"]) > 1 and not wider)
                or wider != chart["scrolls"]
                or chart["chartScrolls"]
                or chart["scrolls"] != chart["keyboard"]
            ):
                problems.append(
                    f"{where}: drawn {chart['drawn']:.0f} px wide in a column of {chart['room']:.0f} px"
                    + (" (its box scrolls)" if chart["scrolls"] else "")
                    + (" (the keyboard reaches its box)" if chart["keyboard"] else "")
                    + (" (the chart with its controls scrolls)" if chart["chartScrolls"] else "")
                )
            problems += [f"{where}: smaller than {MIN_TEXT_PX} px: {words}" for words in chart["small"]]
            problems += [f"{where}: {words}" for words in chart["cut"]]
        visit.assert_clean()
        opener.done(visit)
    assert charts >= 12, f"only {charts} charts on the figure pages"
    assert not problems, f"charts on a 360 px phone ({scheme}):\n  " + "\n  ".join(problems)


# Every control a reader works, as laid out: sliders, selects, radios, checkboxes, buttons, and the summaries
# that open a <details> (a closed one's content is not laid out, and not a target).
TARGETS = """() => Array.from(document.querySelectorAll('input, select, button, summary, textarea'))
    .filter(el => el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden')
    .map(el => { const r = el.getBoundingClientRect();
                 return {what: el.tagName.toLowerCase() + (el.type ? '[type=' + el.type + ']' : '')
                               + (el.name ? ' ' + el.name : ''), width: r.width, height: r.height}; })"""


def test_every_control_on_every_page_is_a_target_of_24_by_24_px_or_more_at_360_px(opener, random_site):
    context = opener.context(viewport=PHONE)
    small, kinds = [], set()
    for name in every_page(random_site):
        visit = opener.open(name, context=context)
        for target in visit.page.evaluate(TARGETS):
            kinds.add(target["what"].split(" ")[0])
            if target["width"] < MIN_TARGET_PX or target["height"] < MIN_TARGET_PX:
                small.append(f"{name}: {target['what']} is {target['width']:.1f} x {target['height']:.1f} px")
        opener.done(visit)
    # The check reaches every sort of control the figures have.
    assert {"input[type=range]", "input[type=radio]", "select[type=select-one]", "summary"} <= kinds, kinds
    assert not small, f"targets smaller than {MIN_TARGET_PX} x {MIN_TARGET_PX} px:\n  " + "\n  ".join(small)


LONG_WORD = "x" * 300  # a string with nowhere to break: a token list, a text without spaces, a long path

# Puts LONG_WORD into one element of each sort that holds words on the page: it must wrap there, not widen the page.
PUT_IN_LONG_WORDS = """([word]) => {
    const sorts = ['main p', 'main li', 'main h1', 'main h2', 'figcaption', 'summary', '.vega-bind label', 'option'];
    const put = [];
    for (const sort of sorts) {
        const el = document.querySelector(sort);
        if (el) { el.append(' ' + word); put.push(sort); }
    }
    return put;
}"""

PRINTED_FIGURES = """() => Array.from(document.querySelectorAll('pre')).filter(pre => pre.getClientRects().length)
    .map(pre => { const s = getComputedStyle(pre), r = pre.getBoundingClientRect();
        return {embed: !!pre.closest('details.embed'), whiteSpace: s.whiteSpace, overflowX: s.overflowX,
                monospace: /mono/.test(s.fontFamily), left: r.left, right: r.right,
                scrollWidth: pre.scrollWidth, clientWidth: pre.clientWidth, focusable: pre.tabIndex >= 0}; })"""


@pytest.mark.parametrize("name", ["figure-ledger.html", "figure-lens.html", "index.html", "embed-l.html"])
def test_long_strings_wrap_and_printed_figures_keep_their_layout_in_a_box_that_scrolls_on_its_own(opener, name):
    visit = opener.open(name, context=opener.context(viewport=PHONE))
    page = visit.page
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
    put = page.evaluate(PUT_IN_LONG_WORDS, [LONG_WORD])
    assert "main p" in put and len(put) >= 3, put
    assert page.evaluate(SIDEWAYS) == 0, f"{name}: a long string in one of {put} widens the page"

    printed = page.evaluate(PRINTED_FIGURES)
    if name.startswith("figure-"):
        text_figures = [pre for pre in printed if not pre["embed"]]
        snippets = [pre for pre in printed if pre["embed"]]
        assert text_figures and snippets, printed
        # The printed figure keeps its lines and columns (monospaced, never wrapped) and scrolls in its own box,
        # which the keyboard reaches; the ledger's and the lens's are wider than a phone.
        for pre in text_figures:
            assert pre["whiteSpace"] == "pre" and pre["monospace"], pre
            assert pre["overflowX"] in ("auto", "scroll") and pre["focusable"], pre
            assert pre["left"] >= 0 and pre["right"] <= PHONE["width"], pre
        assert any(pre["scrollWidth"] > pre["clientWidth"] for pre in text_figures), (
            f"{name}: no printed figure is wider than a phone: the check above is vacuous"
        )
        # The embed snippet wraps: it never scrolls.
        for pre in snippets:
            assert pre["whiteSpace"] == "pre-wrap" and pre["scrollWidth"] <= pre["clientWidth"], pre
    visit.assert_clean()


PREVIEWS = """() => Array.from(document.querySelectorAll('.figure-list li')).filter(li => li.querySelector('a[href^="figure-"]'))
    .map(li => { const img = li.querySelector('img');
        if (!img) return {link: li.querySelector('a').getAttribute('href'), img: null};
        const r = img.getBoundingClientRect();
        return {link: li.querySelector('a').getAttribute('href'), img: img.getAttribute('src'), alt: img.getAttribute('alt'),
                loading: img.getAttribute('loading'), widthAttr: img.getAttribute('width'),
                heightAttr: img.getAttribute('height'), left: r.left, right: r.right, width: r.width, height: r.height}; })"""


def test_every_figure_on_the_index_has_a_small_picture_with_words_that_loads_lazily_and_fits_360_px(
    opener, random_site
):
    visit = opener.open("index.html", context=opener.context(viewport=PHONE))
    page = visit.page
    before = page.evaluate(PREVIEWS)  # as laid out before any picture loaded: the room each keeps is its own
    figures = every_figure_page(random_site)
    assert sorted(p["link"] for p in before) == figures
    for preview in before:
        assert preview["img"], f"{preview['link']} has no picture on the index"
        assert (random_site / preview["img"]).is_file() and preview["img"].endswith(".png"), preview
        assert preview["alt"] and len(preview["alt"].split()) >= 5, f"{preview['link']}: no words for its picture"
        assert preview["loading"] == "lazy", preview
        assert preview["widthAttr"] and preview["heightAttr"], f"{preview['link']}: the picture's size is not given"
        assert preview["left"] >= 0 and preview["right"] <= PHONE["width"] and preview["height"] > 0, preview
    # Scrolled through, every picture loads, and the layout does not move as they come in.
    page.evaluate(
        "async () => { for (const img of document.querySelectorAll('img.preview')) {"
        " img.scrollIntoView(); await new Promise(r => setTimeout(r, 20)); } window.scrollTo(0, 0); }"
    )
    page.wait_for_function("() => Array.from(document.querySelectorAll('img.preview')).every(i => i.complete)")
    loaded = page.eval_on_selector_all("img.preview", "imgs => imgs.map(i => [i.getAttribute('src'), i.naturalWidth])")
    assert all(width > 0 for _, width in loaded), f"pictures that did not load: {loaded}"
    after = page.evaluate(PREVIEWS)
    assert [(p["width"], p["height"]) for p in after] == [(p["width"], p["height"]) for p in before]
    assert page.evaluate(SIDEWAYS) == 0
    visit.assert_clean()


def test_the_desktop_layout_still_uses_the_width(opener):
    context = opener.context(viewport={"width": 1200, "height": 900})
    visit = opener.open("figure-ledger.html", context=context)
    column = visit.page.evaluate("() => document.querySelector('main').getBoundingClientRect().width")
    chart = visit.page.evaluate("() => document.querySelector('[data-spec] svg').getBoundingClientRect().width")
    assert column > 800 and chart > 700, (column, chart)
    assert visit.page.evaluate(SIDEWAYS) == 0
