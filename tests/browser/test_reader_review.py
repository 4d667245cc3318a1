"""What a newcomer met reading the site on a phone (360 x 800, touch) and on a desktop, and what the pages do about
it: the bar on top of a phone's screen stays small (the row of tokens one line that scrolls sideways, the bar's first
line of inputs only), a chart's own input for its token is hidden where a row of tokens repeats it, a grid wider than
the phone opens on the chosen token's column and says that it scrolls, a text page's row says which figures follow
it and the others which token they read, the read token of a plain row is not marked in the chosen token's orange,
and the guides say "Tap" on a touch screen. Pages of conftest's random_site, in Chromium."""

from __future__ import annotations

import pytest

from .browsing import signal, wait_for_signal

PHONE = {"viewport": {"width": 360, "height": 800}, "has_touch": True}  # has_touch: (hover: none), as a phone
PHONE_WITH_MOUSE = {"viewport": {"width": 360, "height": 800}}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
MAX_ON_TOP_PX = 240  # 30 % of the phone's 800 px

# Each chart of the page scrolled in turn until the middle of its drawing lies just below what stays on top: where
# the page's row (on a text page) and the chart's bar lie then, and whether the bar has any input.
ON_TOP = """async () => {
  const row = document.querySelector('.token-row[data-text]'), out = [];
  for (const chart of document.querySelectorAll('[data-spec]')) {
    const bar = chart.querySelector('.control-bar'), drawing = chart.querySelector('svg.marks, canvas');
    const r = drawing.getBoundingClientRect();
    window.scrollTo(0, scrollY + r.top + r.height / 2 - (row ? row.offsetHeight : 0) - bar.offsetHeight);
    await new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const b = bar.getBoundingClientRect();
    out.push({chart: chart.id, top: row ? row.getBoundingClientRect().top : b.top, barTop: b.top, bottom: b.bottom,
              controls: !!bar.querySelector('[data-token], .vega-bind:not([hidden])')});
  }
  return out;
}"""


def pages_with_charts(site) -> list[str]:
    return sorted(path.name for path in site.glob("*.html") if path.name.startswith(("figure-", "text-")))


def test_on_a_phone_what_stays_on_top_covers_at_most_30_percent_of_the_screen_on_every_page(opener, random_site):
    context = opener.context(**PHONE)
    covered, checked = {}, 0
    for name in pages_with_charts(random_site):
        visit = opener.open(name, context=context)
        for place in visit.page.evaluate(ON_TOP):
            if not place["controls"]:
                continue
            checked += 1
            assert abs(place["top"]) <= 1, f"{name}: {place['chart']}: what stays on top left the screen's top: {place}"
            covered[f"{name} {place['chart']}"] = round(place["bottom"] - place["top"])
        visit.assert_clean()
        opener.done(visit)
    assert checked >= 12, covered
    too_high = {where: px for where, px in covered.items() if px > MAX_ON_TOP_PX}
    assert not too_high, f"on top of a 360 x 800 screen, more than {MAX_ON_TOP_PX} px (px): {too_high}"


ROW = """row => { const list = row.querySelector('.tokens'), box = list.getBoundingClientRect();
  const tokens = [...list.querySelectorAll('[data-token]')], chosen = list.querySelector("[aria-checked='true']");
  const at = chosen.getBoundingClientRect();
  return {lines: new Set(tokens.map(t => Math.round(t.getBoundingClientRect().top))).size,
          scrolls: list.scrollWidth > list.clientWidth, chosenInView: at.left >= box.left - 1 && at.right <= box.right + 1,
          moreLeft: list.hasAttribute('data-more-left'), moreRight: list.hasAttribute('data-more-right'),
          page: document.documentElement.scrollWidth - document.documentElement.clientWidth}; }"""


def test_on_a_phone_the_token_row_is_one_line_that_scrolls_sideways_with_the_chosen_token_in_view(opener):
    visit = opener.open("figure-l.html#token=12", context=opener.context(**PHONE))
    page = visit.page
    seen = page.eval_on_selector(".token-row", ROW)
    assert seen["lines"] == 1 and seen["scrolls"] and seen["page"] == 0, seen
    assert seen["chosenInView"] and seen["moreLeft"] and not seen["moreRight"], seen
    page.focus(".token-row [aria-checked='true']")
    page.keyboard.press("Home")
    wait_for_signal(page, "l", "token", 1)
    page.wait_for_function("() => document.querySelector('.token-row .tokens').scrollLeft === 0")
    seen = page.eval_on_selector(".token-row", ROW)
    assert seen["chosenInView"] and seen["moreRight"] and not seen["moreLeft"], seen
    opener.done(visit)
    visit = opener.open("figure-l.html", context=opener.context(**DESKTOP))  # a desktop wraps a long row instead
    assert not visit.page.eval_on_selector(".token-row", ROW)["scrolls"]
    visit.assert_clean()


def test_on_a_phone_only_the_bars_first_line_of_inputs_stays_on_top_the_others_wait_above_the_drawing(opener):
    where = """() => { const chart = document.getElementById('chart-lens');
      const names = sel => [...chart.querySelectorAll(sel + ' .vega-bind:not([hidden]) [name]')].map(i => i.name);
      return {bar: [...new Set(names('.control-bar'))], rest: [...new Set(names('.more-bindings'))],
              above: chart.querySelector('.more-bindings').getBoundingClientRect().bottom
                     <= chart.querySelector('svg.marks').getBoundingClientRect().top}; }"""
    visit = opener.open("figure-lens.html", context=opener.context(**PHONE))
    page = visit.page
    seen = page.evaluate(where)
    assert seen == {"bar": ["stage"], "rest": ["track", "where", "chance_scale"], "above": True}, seen
    page.set_viewport_size({"width": 1000, "height": 800})  # a phone turned, a window widened: all in the bar
    page.wait_for_function("() => !document.querySelector('#chart-lens .more-bindings .vega-bind')")
    assert page.evaluate(where)["bar"] == ["stage", "track", "where", "chance_scale"]
    visit.assert_clean()


# Every input of the page's charts for a token param that a row of tokens steers.
STEERED_INPUTS = """names => [...document.querySelectorAll('[data-spec]')].flatMap(chart =>
  [...chart.querySelectorAll('.vega-bindings [name]')].filter(i => names.includes(i.name)).map(i => ({
    chart: chart.id, name: i.name, visible: i.checkVisibility(), hidden: i.closest('.vega-bind').hidden})))"""
FOCUSED_NAME = "() => document.activeElement && document.activeElement.getAttribute('name')"


@pytest.mark.parametrize(
    "name", ["figure-l.html", "figure-lens.html", "figure-all-heads.html", "figure-find-head.html", "text-maya"]
)
def test_where_a_row_of_tokens_steers_a_chart_its_own_token_input_is_hidden_and_no_tab_reaches_it(
    opener, random_site, name
):
    from figsite.data.shared_names import TOKEN_PARAMS

    if not name.endswith(".html"):
        name = next(random_site.glob(name + "*.html")).name
    visit = opener.open(name)
    page = visit.page
    inputs = page.evaluate(STEERED_INPUTS, list(TOKEN_PARAMS))
    assert inputs and all(not i["visible"] and i["hidden"] for i in inputs), inputs
    reached = []
    for _ in range(40):
        page.keyboard.press("Tab")
        reached.append(page.evaluate(FOCUSED_NAME))
    assert not set(reached) & set(TOKEN_PARAMS), f"{name}: Tab reached a hidden input: {reached}"
    visit.assert_clean()


def test_the_address_still_sets_a_hidden_token_input_and_the_row_follows(opener):
    visit = opener.open("figure-lens.html#position=3")
    page = visit.page
    assert signal(page, "lens", "position") == 3
    assert page.input_value("#chart-lens select[name='position']") == "3"
    assert page.get_attribute(".token-row [data-token='3']", "aria-checked") == "true"
    visit.assert_clean()


# Where the lens's chosen column lies against its scrolling box, and what the box says of itself.
LENS_BOX = """() => { const chart = document.getElementById('chart-lens'), box = chart.querySelector('.chart-wrapper');
  const position = chart.vegaView.signal('position'), b = box.getBoundingClientRect(), spans = [];
  for (const el of chart.querySelectorAll('svg.marks path')) {
    const item = el.__data__;
    if (item && item.datum && item.datum.pick_position === position) spans.push(el.getBoundingClientRect());
  }
  const left = Math.min(...spans.map(r => r.left)), right = Math.max(...spans.map(r => r.right));
  const hint = chart.querySelector('.scroll-hint');
  return {scrolls: box.scrollWidth > box.clientWidth, cells: spans.length, inView: left >= b.left - 1 && right <= b.right + 1,
          hint: hint && hint.checkVisibility() ? hint.innerText.trim() : null, tabIndex: box.tabIndex,
          moreLeft: box.hasAttribute('data-more-left'), moreRight: box.hasAttribute('data-more-right')}; }"""


def test_on_a_phone_the_lens_grid_opens_on_its_chosen_column_follows_the_choice_and_says_it_scrolls(opener):
    visit = opener.open("figure-lens.html", context=opener.context(**PHONE))
    page = visit.page
    seen = page.evaluate(LENS_BOX)
    # It opens with the chosen last position in view, the layers' numbers kept in view beside the table (issue 44),
    # and a fade on the side where more positions lie.
    assert seen["scrolls"] and seen["cells"] > 0 and seen["inView"], seen
    assert seen["hint"] == "Swipe sideways to see every position" and seen["tabIndex"] == 0, seen
    assert seen["moreLeft"] or seen["moreRight"], seen
    page.click(".token-row [data-token='1']")  # out of view: the box scrolls back to it
    wait_for_signal(page, "lens", "position", 1)
    page.wait_for_function(f"() => ({LENS_BOX})().inView")
    seen = page.evaluate(LENS_BOX)
    assert seen["moreRight"] and not seen["moreLeft"], seen
    last = page.evaluate("() => [...document.querySelectorAll('.token-row [data-token]')].pop().dataset.token")
    page.click(f".token-row [data-token='{last}']")  # out of view: the box scrolls to it
    wait_for_signal(page, "lens", "position", int(last))
    page.wait_for_function(f"() => ({LENS_BOX})().inView")
    seen = page.evaluate(LENS_BOX)
    assert seen["moreLeft"] and not seen["moreRight"], seen
    opener.done(visit)

    visit = opener.open("figure-lens.html", context=opener.context(**PHONE_WITH_MOUSE))
    assert visit.page.evaluate(LENS_BOX)["hint"] == "Scroll sideways to see every position"
    opener.done(visit)
    visit = opener.open("figure-lens.html", context=opener.context(**DESKTOP))  # it fits: no hint, no fade
    seen = visit.page.evaluate(LENS_BOX)
    assert not seen["scrolls"] and seen["hint"] is None and not (seen["moreLeft"] or seen["moreRight"]), seen
    visit.assert_clean()


def test_a_text_pages_row_counts_the_figures_that_follow_it_and_the_others_say_which_token_they_read(
    opener, random_site
):
    """The row's label counts them in words a reader has (a figure's label means nothing before its heading) and
    stays on one line at 360 px."""
    visit = opener.open(next(random_site.glob("text-maya*.html")).name, context=opener.context(**PHONE_WITH_MOUSE))
    page = visit.page
    figures = page.locator(".linked").count()
    label = page.locator(".token-row[data-text] .token-row-label")
    assert label.text_content().strip() == f"Choose a token: 2 of {figures} figures follow it"
    one_line = label.evaluate("el => el.getBoundingClientRect().height < 2 * parseFloat(getComputedStyle(el).fontSize)")
    assert one_line, "the row's label wraps at 360 px"
    notes = {label: page.text_content(f"#figure-{label} .reads-only").strip() for label in ("i", "ledger", "knockout")}
    for label, note in notes.items():
        assert note == "This figure reads _of (token 9) only: the token chosen above does not change it.", (label, note)
    assert "does not follow" in page.text_content("#figure-f .reads-only")
    assert page.locator("#figure-lens .reads-only, #figure-find-head .reads-only").count() == 0
    visit.assert_clean()


READ_TOKEN = """el => { const s = getComputedStyle(el);
  return {background: s.backgroundColor, line: s.textDecorationLine, decoration: s.textDecorationColor, ink: s.color,
          page: getComputedStyle(document.documentElement).color}; }"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_read_token_of_a_plain_row_is_underlined_in_ink_not_filled_with_the_chosen_orange(opener, scheme):
    visit = opener.open("figure-i.html", context=opener.context(color_scheme=scheme))
    seen = visit.page.eval_on_selector(".text-row .token.read", READ_TOKEN)
    assert seen["background"] == "rgba(0, 0, 0, 0)", seen
    assert "underline" in seen["line"] and seen["decoration"] == seen["ink"] == seen["page"], seen
    visit.assert_clean()


@pytest.mark.parametrize("label", ["lens", "l", "ledger"])
def test_a_guides_click_or_tap_says_tap_on_a_touch_screen(opener, label):
    guides = {}
    for name, context in (("touch", PHONE), ("mouse", DESKTOP)):
        visit = opener.open(f"figure-{label}.html", context=opener.context(**context))
        guides[name] = visit.page.inner_text(".guide").lower()
        opener.done(visit)
    assert "click or tap" in guides["mouse"], guides
    assert "click" not in guides["touch"] and "tap" in guides["touch"], guides
