"""Charts are clicked as well as read: a bar of (l) picks its token, a square of the all-heads grid its head, a
point of (i) its layer, a lens cell its stage and position, a ledger bar opens its layer, a knockout bar names its
part (a click anywhere in its column, however thin the bar), a patching square puts its piece back, a head-roles
square picks its head. Each click changes the chart and the address, and each has a keyboard equivalent: the param it sets has an
input of its own. Pages of conftest's random_site (the chapter built with --model random), clicked in Chromium
where a reader would click: on the mark as it is drawn. And, for every registered kind (figures.KINDS, its figure
in tests/every_kind.toml) rather than a list of them, a chart with marks a click chooses from declares its clicks,
and a click on one of its marks changes the chart and the address."""

from __future__ import annotations

import re
from urllib.parse import unquote

from .browsing import chart_svg, description, signal, wait_for_signal, wait_for_svg_change

# The drawn marks of a chart, each with its Vega item (the SVG renderer keeps it as the element's __data__).
FIND_MARK = """([id, type, wanted]) => {
  const svg = document.querySelector('#' + id + ' svg.marks');
  for (const el of svg.querySelectorAll('path, text')) {
    const item = el.__data__;
    if (!item || !item.mark || item.mark.marktype !== type || !item.datum) continue;
    if (!Object.keys(wanted).every(key => item.datum[key] === wanted[key])) continue;
    if (el.getBoundingClientRect().width <= 0 || el.getBoundingClientRect().height <= 0) continue;
    el.scrollIntoView({block: 'center', inline: 'center'});  // a tall chart's mark may lie below the screen
    const box = el.getBoundingClientRect();
    return {x: box.left + box.width / 2, y: box.top + box.height / 2};
  }
  return null;
}"""
CURSOR_AT = "([x, y]) => getComputedStyle(document.elementFromPoint(x, y)).cursor"  # Vega sets it on hover


def address(page) -> dict[str, str]:
    pairs = [pair.split("=", 1) for pair in page.evaluate("location.hash").lstrip("#").split("&") if "=" in pair]
    return {unquote(key): unquote(value) for key, value in pairs}


def click_mark(page, label: str, type: str, **datum) -> None:
    """Clicks, with the mouse, the middle of the mark of chart-<label> of Vega type `type` ('rect', 'symbol')
    whose datum has these fields, once the pointer over it says that it can be clicked."""
    page.locator(f"#chart-{label} svg.marks").scroll_into_view_if_needed()
    at = page.evaluate(FIND_MARK, [f"chart-{label}", type, datum])
    assert at is not None, f"chart-{label}: no {type} drawn for {datum}"
    page.mouse.move(at["x"], at["y"])
    page.wait_for_function(f"() => ({CURSOR_AT})([{at['x']}, {at['y']}]) === 'pointer'", timeout=2_000)
    page.mouse.click(at["x"], at["y"])


def keyboard_input(page, label: str, param: str) -> int:
    """How many inputs of chart-<label> a reader can reach that set `param`: its select, radio buttons or slider, or
    for the token, where a row of tokens steers the chart (and the chart's own select is hidden), the row's."""
    inputs = page.locator(f"#chart-{label} .vega-bindings [name='{param}']").filter(visible=True).count()
    return inputs or page.locator(f".token-row[data-chart='chart-{label}'] [data-token]").count()


def test_a_bar_of_figure_l_picks_its_token_in_the_chart_the_row_and_the_address(opener):
    visit = opener.open("figure-l.html")
    page = visit.page
    assert signal(page, "l", "token") == 9
    before = chart_svg(page, "l")
    click_mark(page, "l", "rect", k=1, q=8)  # the bar of _animal, looked at from _it (token 9)
    wait_for_signal(page, "l", "token", 2, "after a click on the bar of _animal")
    wait_for_svg_change(page, "l", before)
    assert address(page).get("token") == "2"
    assert page.get_attribute(".token-row [data-token='2']", "aria-checked") == "true"
    assert "_animal" in description(page, "l").split(",")[0]
    visit.assert_clean()


def test_a_click_in_a_shaded_column_of_figure_l_picks_that_later_token(opener):
    visit = opener.open("figure-l.html#token=2")
    page = visit.page
    click_mark(page, "l", "rect", k=10, pick_token=11)  # _too, out of reach of _animal: no bar, its column
    wait_for_signal(page, "l", "token", 11, "after a click in the column of _too")
    assert address(page).get("token") == "11"
    visit.assert_clean()


def test_a_square_of_the_all_heads_grid_picks_its_layer_and_head_and_the_average_square_the_average(opener):
    visit = opener.open("figure-all-heads.html")
    page = visit.page
    before = chart_svg(page, "all-heads")
    click_mark(page, "all-heads", "rect", l=0, h=1)  # layer 1, head 2
    wait_for_signal(page, "all-heads", "layer", 1, "after a click on the square of layer 1, head 2")
    wait_for_signal(page, "all-heads", "head", 2)
    wait_for_svg_change(page, "all-heads", before)
    assert address(page).get("layer") == "1" and address(page).get("head") == "2"
    assert "Shown larger: layer 1, head 2." in description(page, "all-heads")
    click_mark(page, "all-heads", "rect", l=3, h=12)  # the average of layer 4's heads
    wait_for_signal(page, "all-heads", "head", "avg", "after a click on layer 4's average")
    assert address(page).get("layer") == "4" and address(page).get("head") == "avg"
    visit.assert_clean()


def test_a_point_of_figure_i_picks_its_layer(opener):
    visit = opener.open("figure-i.html")
    page = visit.page
    assert signal(page, "i", "stage") == 12
    before = chart_svg(page, "i")
    click_mark(page, "i", "symbol", stage=3)
    wait_for_signal(page, "i", "stage", 3, "after a click on the point after layer 3")
    wait_for_svg_change(page, "i", before)
    assert address(page).get("stage") == "3"
    assert description(page, "i").lower().startswith("after layer 3")
    visit.assert_clean()


def test_a_lens_cell_picks_its_stage_and_position(opener):
    visit = opener.open("figure-lens.html")
    page = visit.page
    before = chart_svg(page, "lens")
    click_mark(page, "lens", "rect", stage=2, q=4)  # after layer 2, token 5
    wait_for_signal(page, "lens", "stage", 2, "after a click on the cell of stage 2, position 5")
    wait_for_signal(page, "lens", "position", 5)
    wait_for_svg_change(page, "lens", before)
    assert address(page).get("stage") == "2" and address(page).get("position") == "5"
    assert re.match(r"(stage|after layer) 2, position 5\b", description(page, "lens"), re.I)
    visit.assert_clean()


def test_a_ledger_bar_opens_its_layer_and_the_models_score_opens_nothing(opener):
    visit = opener.open("figure-ledger.html")
    page = visit.page
    opening = signal(page, "ledger", "part")
    chosen = "attention-1" if opening != "attention-1" else "feed-forward-1"
    before = chart_svg(page, "ledger")
    click_mark(page, "ledger", "rect", key=chosen)
    wait_for_signal(page, "ledger", "part", chosen, f"after a click on the bar of {chosen}")
    wait_for_svg_change(page, "ledger", before)
    assert address(page).get("part") == chosen
    layer = chosen.rsplit("-", 1)[1]
    assert f"layer {layer} " in description(page, "ledger").lower(), "the words do not open the clicked layer"
    total = page.evaluate(FIND_MARK, ["chart-ledger", "rect", {"key": ""}])  # the model's score: no layer
    page.mouse.move(total["x"], total["y"])
    page.wait_for_timeout(100)
    assert page.evaluate(CURSOR_AT, [total["x"], total["y"]]) != "pointer"
    page.mouse.click(total["x"], total["y"])
    page.wait_for_timeout(200)
    assert signal(page, "ledger", "part") == chosen and address(page).get("part") == chosen
    visit.assert_clean()


def test_a_knockout_bar_names_its_part_in_words_and_highlights_it(opener):
    visit = opener.open("figure-knockout.html")
    page = visit.page
    assert signal(page, "knockout", "part") == "none"
    before = chart_svg(page, "knockout")
    click_mark(page, "knockout", "rect", key="feed-forward-2")
    wait_for_signal(page, "knockout", "part", "feed-forward-2", "after a click on layer 2's feed-forward bar")
    wait_for_svg_change(page, "knockout", before)
    assert address(page).get("part") == "feed-forward-2"
    assert "layer 2's feed-forward step" in description(page, "knockout")
    visit.assert_clean()


# The knockout head whose bar is drawn thinnest, its height as drawn and the middle of its column, half way between
# the bar and the column's far end (where the bar is not).
THINNEST_HEAD = """() => { const bars = Array.from(document.querySelectorAll('#chart-knockout svg.marks path')).filter(el =>
    el.__data__ && el.__data__.datum && String(el.__data__.datum.pick_part).startsWith('head-')
    && el.__data__.fill !== 'transparent');
  const thin = bars.reduce((a, b) => a.getBoundingClientRect().height <= b.getBoundingClientRect().height ? a : b);
  const column = Array.from(document.querySelectorAll('#chart-knockout svg.marks path')).find(el => el !== thin
    && el.__data__ && el.__data__.datum && el.__data__.datum.pick_part === thin.__data__.datum.pick_part);
  column.scrollIntoView({block: 'center'});
  const bar = thin.getBoundingClientRect(), box = column.getBoundingClientRect();
  const far = bar.top - box.top > box.bottom - bar.bottom ? box.top + 10 : box.bottom - 10;
  return {part: thin.__data__.datum.pick_part, height: bar.height, x: box.left + box.width / 2, y: far}; }"""


def test_a_knockout_head_bar_drawn_thinner_than_a_pixel_is_chosen_by_a_click_anywhere_in_its_column(opener):
    visit = opener.open("figure-knockout.html")
    page = visit.page
    thin = page.evaluate(THINNEST_HEAD)
    assert thin["height"] < 2, thin  # the chapter's knockout: a head whose removal changes the chance very little
    page.mouse.click(thin["x"], thin["y"])
    wait_for_signal(page, "knockout", "part", thin["part"], f"after a click in the column of {thin['part']}")
    assert address(page).get("part") == thin["part"]
    visit.assert_clean()


def test_every_param_a_click_sets_has_its_own_input_its_keyboard_equivalent(opener):
    for name, label in (
        ("figure-l.html", "l"),
        ("figure-all-heads.html", "all-heads"),
        ("figure-i.html", "i"),
        ("figure-lens.html", "lens"),
        ("figure-ledger.html", "ledger"),
        ("figure-knockout.html", "knockout"),
        ("figure-patching.html", "patching"),
        ("figure-head-roles.html", "head-roles"),
    ):
        visit = opener.open(name)
        clicks = visit.page.evaluate(
            "id => { const spec = JSON.parse(document.getElementById(id).textContent); "
            "return (spec.usermeta || {}).clicks || []; }",
            f"spec-{label}",
        )
        assert clicks, f"({label}) declares no clicks"
        for pick in clicks:
            assert re.fullmatch(r"pick_\w+", pick["field"]), pick
            assert keyboard_input(visit.page, label, pick["param"]) > 0, f"({label}) {pick['param']} has no input"
        opener.done(visit)


def test_a_square_of_a_patching_grid_puts_its_piece_back_in_the_chosen_runs_chart_and_the_address(opener):
    """A square of the heads' grid chooses its run: the chosen run's bar, the words and the address follow; the
    "Put back" menu chooses the same from the keyboard."""
    visit = opener.open("figure-patching.html")
    page = visit.page
    before = chart_svg(page, "patching")
    click_mark(page, "patching", "rect", key="head-10-2")  # layer 10's head 2, at every token
    wait_for_signal(page, "patching", "cell", "head-10-2", "after a click on the square of layer 10, head 2")
    wait_for_svg_change(page, "patching", before)
    assert address(page).get("cell") == "head-10-2"
    assert "Put back head 2 of layer 10:" in description(page, "patching")
    assert keyboard_input(page, "patching", "cell") == 1
    page.select_option("#chart-patching select[name='cell']", "stream-3-5")
    wait_for_signal(page, "patching", "cell", "stream-3-5", "after choosing it in the menu")
    assert "the numbers of _Paris / _Rome (token 5) after layer 3" in description(page, "patching")
    visit.assert_clean()


def test_a_square_of_the_head_roles_grid_picks_its_head_and_the_menus_do_the_same(opener):
    visit = opener.open("figure-head-roles.html")
    page = visit.page
    before = chart_svg(page, "head-roles")
    click_mark(page, "head-roles", "rect", l=7, h=3, best=True)  # layer 7, head 3, in its strongest habit's colour
    wait_for_signal(page, "head-roles", "layer", 7, "after a click on the square of layer 7, head 3")
    wait_for_signal(page, "head-roles", "head", 3)
    wait_for_svg_change(page, "head-roles", before)
    assert address(page).get("layer") == "7" and address(page).get("head") == "3"
    assert description(page, "head-roles").startswith("Layer 7, head 3, shown below: its strongest habit is")
    assert keyboard_input(page, "head-roles", "layer") == 1 and keyboard_input(page, "head-roles", "head") == 1
    # After any change the words still say which head they describe, and which habit colours the grid.
    page.select_option("#chart-head-roles select[name='show']", "induction")
    wait_for_signal(page, "head-roles", "show", "induction", 'after choosing a habit in "Colour by"')
    said = description(page, "head-roles")
    assert said.startswith("Layer 7, head 3, shown below:") and said.endswith(
        "The grid shows how much every head looks at the token after the earlier copy of the current one."
    ), said
    visit.assert_clean()


def test_choosing_another_layer_of_the_head_roles_figure_loads_its_pattern_over_the_repeated_tokens(opener):
    visit = opener.open("figure-head-roles.html")
    page = visit.page
    before = chart_svg(page, "head-roles")
    page.select_option("#chart-head-roles select[name='layer']", "2")
    wait_for_signal(page, "head-roles", "layer", 2, "after choosing layer 2 in the menu")
    page.wait_for_function(
        "() => document.getElementById('chart-head-roles').vegaView.data('repeats').every(row => row.l === 1)"
    )  # layer 2's file, loaded with <script src> from file://
    wait_for_svg_change(page, "head-roles", before)
    assert page.evaluate(
        "() => [...document.scripts].some(s => (s.getAttribute('src') || '').endsWith('repeated-layer-01.js'))"
    )
    visit.assert_clean()


# The left and right edges of figure (i)'s point of stage 0, and its middle's height, in px as drawn.
FIRST_POINT = """() => { const el = Array.from(document.querySelectorAll('#chart-i svg.marks path')).find(p => {
    const item = p.__data__; return item && item.mark.marktype === 'symbol' && item.datum && item.datum.stage === 0; });
  el.scrollIntoView({block: 'center'});
  const box = el.getBoundingClientRect(); return [box.left, box.right, box.top + box.height / 2]; }"""


def test_a_click_anywhere_on_figure_is_first_point_picks_stage_0_whose_column_is_whole(opener):
    """The stage before any layer is drawn away from the axis, its point and its column whole: a click on any part
    of the point (its left edge, its middle), or in its column left of it, chooses it, as for any other stage."""
    visit = opener.open("figure-i.html")
    page = visit.page
    left, right, y = page.evaluate(FIRST_POINT)
    for x in (left - 6, left + 1, (left + right) / 2):
        page.evaluate(
            "() => document.getElementById('chart-i').vegaView.signal('stage', 12).runAsync().then(() => null)"
        )
        wait_for_signal(page, "i", "stage", 12)
        page.mouse.click(x, y)
        wait_for_signal(
            page, "i", "stage", 0, f"after a click at {x - left:.0f} px from the left edge of the point of stage 0"
        )
    assert address(page).get("stage") == "0"
    visit.assert_clean()


# What a click on chart <id> can choose: for each mark the pointer over it shows a hand for (its item's cursor) and
# whose datum carries a field of the chart's clicks (figures.js's el.picks), the value each param would take, as the
# param's input allows it (its menu's option, its slider's number). The first such mark (from the middle of the
# drawing's order) that a click changes something with and that the pointer at its middle reaches: its middle
# (scrolled into view) and the values the params must take, else null. Also: the pick fields the spec computes.
A_CLICK = """(id) => {
  const chart = document.getElementById(id), view = chart.vegaView, picks = chart.picks || [];
  const spec = JSON.parse(document.getElementById(id.replace(/^chart-/, 'spec-')).textContent);
  const computed = [...JSON.stringify(spec).matchAll(/"as":"(pick_\\w+)"/g)].map(m => m[1]);
  const bound = name => (spec.signals || []).find(s => s.name === name && s.bind);
  const allowed = (name, value) => { const signal = bound(name); if (!signal) return undefined;
    if (signal.bind.options) return signal.bind.options.find(o => String(o) === String(value));
    const n = Number(value);
    return n >= signal.bind.min && n <= signal.bind.max ? n : undefined; };
  const choice = el => { const d = el && el.__data__ && el.__data__.datum;
    return d ? picks.map(p => String(d[p.field])).join(' ') : null; };
  const hands = [...chart.querySelectorAll('svg.marks path, svg.marks text')].filter(el => el.__data__
    && el.__data__.cursor === 'pointer');
  const marks = hands.filter(el => el.__data__.datum && picks.some(p => el.__data__.datum[p.field] != null));
  const pointers = hands.length;
  const order = marks.slice(Math.floor(marks.length / 2)).concat(marks.slice(0, Math.floor(marks.length / 2)));
  for (const el of order) {
    const wanted = {};
    for (const p of picks) {
      const value = el.__data__.datum[p.field];
      if (value == null) continue;
      const ok = allowed(p.param, value);
      if (ok === undefined) { wanted[p.param] = undefined; break; }
      wanted[p.param] = ok;
    }
    const same = Object.keys(wanted).every(k => view.signal(k) === wanted[k]);
    if (Object.values(wanted).includes(undefined) || same) continue;
    el.scrollIntoView({block: 'center', inline: 'center'});
    const box = el.getBoundingClientRect(), x = box.left + box.width / 2, y = box.top + box.height / 2;
    if (box.width <= 0 || box.height <= 0 || choice(document.elementFromPoint(x, y)) !== choice(el)) continue;
    return {computed, pointers, declared: picks.map(p => p.field), x, y, wanted: Object.entries(wanted).map(
      ([param, value]) => [param, value, String(value)])};
  }
  return {computed, pointers, declared: picks.map(p => p.field), x: null};
}"""


def every_kinds_figure() -> list[tuple[str, str]]:
    """(kind, label of its figure in tests/every_kind.toml) for every registered kind (figures.KINDS)."""
    import tomllib

    from figures import KINDS

    from .conftest import EVERY_KIND

    labels = {f["kind"]: f["label"] for f in tomllib.loads(EVERY_KIND.read_text(encoding="utf-8"))["figure"]}
    return [(kind, labels[kind]) for kind in KINDS]


def test_every_kind_whose_chart_has_marks_a_click_chooses_from_changes_its_chart_and_address_on_a_click(
    browser, every_kind_site
):
    """For every registered kind, not a list of them: its page in tests/every_kind.toml's site. A chart whose spec
    computes a pick_ field, or whose marks show the pointer's hand, declares the clicks that read them; and a click,
    with the mouse where a reader would click, on one of its marks sets each param the mark picks, the address
    following. A kind that draws clickable marks whose click does nothing fails here."""
    from playwright.sync_api import TimeoutError

    from .browsing import Opener

    pages, clickable, failures = Opener(browser, every_kind_site), [], {}
    for kind, label in every_kinds_figure():
        visit = pages.open(f"figure-{label}.html")
        page = visit.page
        seen = page.evaluate(A_CLICK, f"chart-{label}")
        if not (seen["computed"] or seen["pointers"] or seen["declared"]):
            pages.done(visit)
            continue
        clickable.append(kind)
        assert set(seen["computed"]) <= set(seen["declared"]), (
            f"{kind}: computes {seen['computed']} but its clicks read {seen['declared']}"
        )
        assert seen["declared"], f"{kind} ({label}): {seen['pointers']} marks show the pointer's hand, no clicks"
        assert seen["x"] is not None, f"{kind} ({label}): no mark a click would change it with"
        before = chart_svg(page, label)
        page.mouse.move(seen["x"], seen["y"])
        page.mouse.click(seen["x"], seen["y"])
        try:
            for param, value, said in seen["wanted"]:
                wait_for_signal(page, label, param, value, f"({kind}) after a click on a mark that picks {param}")
                assert address(page).get(param) == said, f"{kind}: the address says {address(page)}, not {param}={said}"
            wait_for_svg_change(page, label, before)
        except (AssertionError, TimeoutError) as failed:
            failures[kind] = str(failed).splitlines()[0]
        visit.assert_clean()
        pages.done(visit)
    pages.close()
    assert failures == {}, failures
    assert len(clickable) >= 2, clickable  # the attention and read-out kinds at least: the check sees clicks at all
