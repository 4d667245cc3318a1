"""What a reader sees first, and what stays in view: on every figure page of the chapter's site and of the site of
every kind, at a desktop's size and at a phone's, the text's token row, the first control and the top of the chart
it steers are within the first screen when the page opens; the chart's controls stay in a bar on top of the screen
while the chart scrolls past, a bar in the page's colour that covers at most a part of a phone's screen. On a text
page its one row of tokens stays on top, and each chart's bar below it. A drawing wider than a phone scrolls in its
own box, never the page."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from build import cli

from .browsing import Opener

SIZES = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 360, "height": 800}}
MIN_SEEN_PX = 100  # of the chart's drawing, within the first screen: more than its top edge
MAX_BAR_SHARE = 0.30  # of a phone's screen height, the most a chart's bar of controls may cover

# Where the first figure's parts lie, in px from the top of the screen: its text's row (the token row, or the plain
# row of a figure that chooses no token), its first control (the first input of its bar, else the first token of
# its row; an input hidden because the row repeats it does not count), its drawing, and its bar of controls.
FIRST_SCREEN = """() => {
  const box = el => { if (!el) return null; const r = el.getBoundingClientRect(); return {top: r.top, bottom: r.bottom}; };
  const chart = document.querySelector('[data-spec]');
  const row = document.querySelector('.token-row, .text-row');
  const control = [...chart.querySelectorAll('.vega-bindings input, .vega-bindings select')]
                    .find(input => input.checkVisibility()) || chart.querySelector('.token-row [data-token]');
  return {row: box(row), control: box(control), drawing: box(chart.querySelector('svg.marks, canvas')),
          bar: box(chart.querySelector('.control-bar')), height: innerHeight,
          barColour: getComputedStyle(chart.querySelector('.control-bar')).backgroundColor,
          pageColour: getComputedStyle(document.documentElement).backgroundColor};
}"""

# Scrolls the page until the middle of the first chart's drawing lies just below the bar of controls (the chart's
# top well above the screen), and says where the drawing and the bar are then.
AT_THE_CHARTS_MIDDLE = """async () => {
  const chart = document.querySelector('[data-spec]'), drawing = chart.querySelector('svg.marks, canvas');
  const r = drawing.getBoundingClientRect(), barHeight = chart.querySelector('.control-bar').offsetHeight;
  window.scrollTo(0, scrollY + r.top + r.height / 2 - barHeight);
  await new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  const bar = chart.querySelector('.control-bar').getBoundingClientRect(), now = drawing.getBoundingClientRect();
  return {chartTop: chart.getBoundingClientRect().top, bar: {top: bar.top, bottom: bar.bottom},
          drawing: {top: now.top, bottom: now.bottom}};
}"""


@pytest.fixture(scope="module")
def every_kind_site(tmp_path_factory):
    """tests/every_kind.toml (every kind and key) built with `--model random`."""
    out = tmp_path_factory.mktemp("every-kind") / "site"
    result = CliRunner().invoke(cli, ["--model", "random", "--config", "tests/every_kind.toml", "--out", str(out)])
    assert result.exit_code == 0, f"build failed (exit {result.exit_code}):\n{result.output}\n{result.exception!r}"
    return out


def figure_pages(*sites):
    return [(site, path.name) for site in sites for path in sorted(site.glob("figure-*.html"))]


def within(box, height: float) -> bool:
    return box is not None and box["top"] >= 0 and box["bottom"] <= height


def first_screen_problems(name: str, seen: dict) -> list[str]:
    """What of the first figure is not within the first screen, in words."""
    height, problems = seen["height"], []
    if seen["row"] is not None and not within(seen["row"], height):
        problems.append(f"{name}: its text's row lies at {seen['row']['top']:.0f}-{seen['row']['bottom']:.0f} px")
    if seen["control"] is not None and not within(seen["control"], height):
        problems.append(f"{name}: its first control lies at {seen['control']['top']:.0f} px")
    if seen["drawing"]["top"] > height - MIN_SEEN_PX:
        problems.append(f"{name}: its chart starts at {seen['drawing']['top']:.0f} px, in a screen {height} px high")
    return problems


@pytest.mark.parametrize("size", SIZES, ids=list(SIZES))
def test_every_figure_pages_row_first_control_and_chart_are_within_the_first_screen(
    browser, random_site, every_kind_site, size
):
    opener, problems, controls = Opener(browser, random_site), [], 0
    context = opener.context(viewport=SIZES[size])
    pages = figure_pages(random_site, every_kind_site)
    assert len(pages) >= 24, pages
    try:
        for site, name in pages:
            visit = opener.open((site / name).as_uri(), context=context)
            seen = visit.page.evaluate(FIRST_SCREEN)
            controls += seen["control"] is not None
            problems += first_screen_problems(f"{site.parent.name}/{name}", seen)
            visit.assert_clean()
            opener.done(visit)
    finally:
        opener.close()
    assert controls >= 18, f"only {controls} figure pages with a control: the check saw too little"
    assert not problems, f"at {size} size:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("size", SIZES, ids=list(SIZES))
def test_the_bar_of_controls_stays_in_view_while_the_chart_scrolls_past_and_covers_a_part_of_a_phone(
    browser, random_site, every_kind_site, size
):
    opener, problems, checked = Opener(browser, random_site), [], 0
    # The phone in the dark scheme: the bar takes the page's colour in both.
    context = opener.context(viewport=SIZES[size], color_scheme="dark" if size == "phone" else "light")
    try:
        for site, name in figure_pages(random_site, every_kind_site):
            visit = opener.open((site / name).as_uri(), context=context)
            seen = visit.page.evaluate(FIRST_SCREEN)
            if seen["control"] is None:  # a figure without controls has an empty bar
                opener.done(visit)
                continue
            checked += 1
            where = f"{site.parent.name}/{name}"
            if seen["barColour"] != seen["pageColour"]:
                problems.append(f"{where}: the bar is {seen['barColour']} on a page of {seen['pageColour']}")
            bar_height = seen["bar"]["bottom"] - seen["bar"]["top"]
            if size == "phone" and bar_height > MAX_BAR_SHARE * seen["height"]:
                problems.append(f"{where}: the bar is {bar_height:.0f} px high, on a screen of {seen['height']} px")
            # The chart's top has gone above the screen and its drawing passes under the bar, which stays on top.
            moved = visit.page.evaluate(AT_THE_CHARTS_MIDDLE)
            assert moved["chartTop"] < 0 and moved["drawing"]["top"] < moved["bar"]["bottom"], f"{where}: {moved}"
            if abs(moved["bar"]["top"]) > 1 or moved["drawing"]["bottom"] <= moved["bar"]["bottom"]:
                problems.append(
                    f"{where}: scrolled to the chart's middle, the bar lies at {moved['bar']['top']:.0f} px"
                    f" and the drawing at {moved['drawing']['top']:.0f}-{moved['drawing']['bottom']:.0f}"
                )
            visit.assert_clean()
            opener.done(visit)
    finally:
        opener.close()
    assert checked >= 18, f"only {checked} figure pages with controls"
    assert not problems, f"at {size} size:\n  " + "\n  ".join(problems)


# Where the first figure's reading key lies, whether it shows, and where its chart's drawing starts.
READING_KEY = """() => {
  const chart = document.querySelector('[data-spec]'), drawing = chart.querySelector('svg.marks, canvas');
  const key = document.getElementById(chart.getAttribute('aria-describedby').split(' ')[0]);
  if (!key || !key.classList.contains('reading-key')) return null;
  const k = key.getBoundingClientRect();
  return {text: key.textContent.trim(), visible: key.checkVisibility({visibilityProperty: true, opacityProperty: true}),
          top: k.top, bottom: k.bottom, drawingTop: drawing.getBoundingClientRect().top, height: innerHeight};
}"""


def reading_key_problems(where: str, key: dict | None) -> list[str]:
    """What is wrong with a figure page's reading key, in words: missing, hidden, below the drawing's top, or
    outside the first screen."""
    if key is None or not key["text"]:
        return [f"{where}: no reading key"]
    problems = [] if key["visible"] else [f"{where}: its reading key is hidden"]
    if key["bottom"] > key["drawingTop"] + 0.5:
        problems.append(
            f"{where}: its key ends at {key['bottom']:.0f} px, below the drawing's top ({key['drawingTop']:.0f} px)"
        )
    if not within(key, key["height"]):
        problems.append(
            f"{where}: its key lies at {key['top']:.0f}-{key['bottom']:.0f} px, in a screen {key['height']} px high"
        )
    return problems


@pytest.mark.parametrize("size", SIZES, ids=list(SIZES))
def test_every_figure_pages_reading_key_shows_above_its_drawing_within_the_first_screen(
    browser, random_site, every_kind_site, size
):
    """The key on how to read a chart (what a bar, a cell, a colour means) is the first thing read before it: on
    every page of the chapter's site and of the site of every kind, it is visible, it ends at or above the top of
    the chart's drawing, and it lies within the first screen, at a desktop's size and a phone's."""
    opener, problems = Opener(browser, random_site), []
    context = opener.context(viewport=SIZES[size])
    pages = figure_pages(random_site, every_kind_site)  # every kind is in tests/every_kind.toml (tests/kinds)
    assert len(pages) >= 24, pages
    try:
        for site, name in pages:
            visit = opener.open((site / name).as_uri(), context=context)
            key = visit.page.evaluate(READING_KEY)
            problems += reading_key_problems(f"{site.parent.name}/{name}", key)
            visit.assert_clean()
            opener.done(visit)
    finally:
        opener.close()
    assert not problems, f"at {size} size:\n  " + "\n  ".join(problems)


KEY_ABOVE_THE_STATIC_DRAWING = """(image) => {
  const key = document.querySelector('.reading-key'), drawing = document.querySelector(image);
  return {key: key.checkVisibility(), drawing: drawing.checkVisibility(),
          above: key.getBoundingClientRect().bottom <= drawing.getBoundingClientRect().top};
}"""


def test_printed_the_reading_key_stands_above_the_drawing_printed_instead_of_the_chart(opener):
    visit = opener.open("figure-ledger.html")
    visit.page.emulate_media(media="print")
    placed = visit.page.evaluate(KEY_ABOVE_THE_STATIC_DRAWING, "img.static-chart.print-only")
    assert placed == {"key": True, "drawing": True, "above": True}, placed
    visit.assert_clean()


def test_without_javascript_the_reading_key_stands_above_the_static_drawing(opener):
    visit = opener.open(
        "figure-patching.html", context=opener.context(java_script_enabled=False), wait_for_charts=False
    )
    visit.page.wait_for_load_state("load")
    placed = visit.page.evaluate(KEY_ABOVE_THE_STATIC_DRAWING, ".chart .first-drawing img")
    assert placed == {"key": True, "drawing": True, "above": True}, placed


TEXT_PAGE_FIRST_SCREEN = """() => {
  const chart = document.querySelector('[data-spec]'), drawing = chart.querySelector('svg.marks, canvas');
  return {heading: document.querySelector('h1').textContent, drawingTop: drawing.getBoundingClientRect().top,
          keyBottom: document.querySelector('.reading-key').getBoundingClientRect().bottom, height: innerHeight};
}"""


@pytest.mark.parametrize("size", SIZES, ids=list(SIZES))
def test_a_text_page_names_its_text_in_its_heading_and_its_first_chart_starts_within_the_first_screen(
    browser, random_site, every_kind_site, size
):
    opener, problems = Opener(browser, random_site), []
    context = opener.context(viewport=SIZES[size])
    pages = sorted([*random_site.glob("text-*.html"), *every_kind_site.glob("text-*.html")])
    assert len(pages) >= 4, pages
    try:
        for path in pages:
            visit = opener.open(path.as_uri(), context=context)
            seen, where = visit.page.evaluate(TEXT_PAGE_FIRST_SCREEN), f"{path.parent.parent.name}/{path.name}"
            words = visit.page.eval_on_selector_all(
                ".token-row[data-text] .token, .text-row .token", "tokens => tokens.map(t => t.textContent).join('')"
            )
            first = words.replace("_", " ").split()[:3]  # the text's first words, as its row of tokens writes them
            if not seen["heading"].startswith("Every figure of \u201c") or " ".join(first) not in seen["heading"]:
                problems.append(
                    f"{where}: its heading {seen['heading']!r} does not name its text ({' '.join(first)}...)"
                )
            if seen["drawingTop"] > seen["height"] - 1 or seen["keyBottom"] > seen["height"]:
                problems.append(
                    f"{where}: its first chart starts at {seen['drawingTop']:.0f} px, its key ends at "
                    f"{seen['keyBottom']:.0f} px, in a screen {seen['height']} px high"
                )
            visit.assert_clean()
            opener.done(visit)
    finally:
        opener.close()
    assert not problems, f"at {size} size:\n  " + "\n  ".join(problems)


# On a text page: where its row of tokens and each chart's bar lie once the page has scrolled each chart's drawing
# in turn until its middle lies just below the row and the bar.
TEXT_PAGE_BARS = """async () => {
  const row = document.querySelector('.token-row[data-text]'), out = [];
  for (const chart of document.querySelectorAll('[data-spec]')) {
    const drawing = chart.querySelector('svg.marks, canvas'), r = drawing.getBoundingClientRect();
    const above = row.offsetHeight + chart.querySelector('.control-bar').offsetHeight;
    window.scrollTo(0, scrollY + r.top + r.height / 2 - above);
    await new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const bar = chart.querySelector('.control-bar').getBoundingClientRect(), rowBox = row.getBoundingClientRect();
    out.push({chart: chart.id, row: [rowBox.top, rowBox.bottom], bar: [bar.top, bar.bottom],
              controls: chart.querySelectorAll('.vega-bind').length});
  }
  return out;
}"""


@pytest.mark.parametrize("size", SIZES, ids=list(SIZES))
def test_on_a_text_page_its_row_stays_on_top_and_each_charts_bar_just_below_it(opener, random_site, size):
    context = opener.context(viewport=SIZES[size])
    (path,) = random_site.glob("text-the-animal*.html")
    visit = opener.open(path.name, context=context)
    places = visit.page.evaluate(TEXT_PAGE_BARS)
    assert len(places) >= 2 and any(place["controls"] for place in places), places
    for place in places:
        assert abs(place["row"][0]) <= 1, f"{size}: the row left the top of the screen by {place}"
        if place["controls"]:
            assert abs(place["bar"][0] - place["row"][1]) <= 1, (
                f"{size}: {place['chart']}'s bar is not below the row: {place}"
            )
    visit.assert_clean()


WIDEN = """async ([label, width]) => {
  const chart = document.getElementById('chart-' + label), svg = chart.querySelector('svg.marks');
  svg.setAttribute('width', width);
  svg.style.width = width + 'px';
  window.dispatchEvent(new Event('resize'));
  await new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  const box = chart.querySelector('.chart-wrapper');
  return {boxScrolls: box.scrollWidth > box.clientWidth, keyboard: box.tabIndex,
          pageScrolls: document.documentElement.scrollWidth - document.documentElement.clientWidth,
          chartScrolls: chart.scrollWidth - chart.clientWidth};
}"""


def test_a_drawing_wider_than_a_phone_scrolls_in_its_own_box_which_the_keyboard_reaches_not_the_page(opener):
    visit = opener.open("figure-lens.html", context=opener.context(viewport=SIZES["phone"]))
    wide = visit.page.evaluate(WIDEN, ["lens", 900])
    assert wide["boxScrolls"] and wide["keyboard"] == 0, wide
    assert wide["pageScrolls"] == 0 and wide["chartScrolls"] <= 0, wide
    visit.assert_clean()
