"""Every chart in view, and every word of it whole (issue 44, points 1 and 5). In a 360 px phone's window no chart
opens out of view sideways: each view of each chart of every kind (tests/every_kind.toml's site, and the chapter's)
lies within the part of its box the screen shows, and so do its axes, legends and titles, but for a grid (columns a
finger can tap, or cells in rows and columns), which may scroll in its own box, its axis along its columns with it; the lens opens with its key,
legend, layer numbers and chosen column in its first screen, and its table scrolls under its layer numbers, the
charts below staying in view. No word a chart draws is cut by its drawing's edge, at a desktop's width or a phone's,
as a chart opens or after a click (a tap) on any of its marks that chooses."""

from __future__ import annotations

import pytest

from .browsing import Opener

PHONE = {"viewport": {"width": 360, "height": 800}, "has_touch": True, "is_mobile": True}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
TAP = 24  # px: figures.toolkit.charts.TAP, a column a finger can tap

# Each chart as it opens: the part of its box the screen shows, and what of it lies outside that part, sideways.
# A view is a grid where it draws cells (rects of one size in two or more rows and columns) or columns a finger can
# tap (rects of one width, TAP px or more, side by side): it may scroll in its box, showing at least a column, and its
# axis along its columns (an X-axis) scrolls with it. Every other view, every axis with words, every legend and title must lie within the part shown. Parts drawn at
# no opacity (a legend hidden until its colouring is chosen) are not shown.
OUT_OF_VIEW = """([tap]) => Array.from(document.querySelectorAll('[data-spec]')).map(chart => {
  const box = chart.querySelector('.chart-wrapper'), svg = box.querySelector('svg.marks'), b = box.getBoundingClientRect();
  const seen = {left: Math.max(b.left, 0), right: Math.min(b.right, innerWidth)};
  const hidden = el => { for (let n = el; n && n !== svg; n = n.parentElement) { const s = getComputedStyle(n);
      if (s.display === 'none' || s.visibility === 'hidden' || parseFloat(s.opacity) === 0) return true; }
    return false; };
  const isGrid = view => { const sizes = new Map();
    for (const path of view.querySelectorAll('g.mark-rect.role-mark > path')) {
      const item = path.__data__;
      if (!item || !item.width || path.closest('.role-legend')) continue;
      const size = Math.round(item.width) + 'x' + Math.round(item.height || 0);
      if (!sizes.has(size)) sizes.set(size, {width: item.width, xs: new Set(), ys: new Set()});
      sizes.get(size).xs.add(Math.round(item.x));
      sizes.get(size).ys.add(Math.round(item.y)); }
    return Array.from(sizes.values()).some(s => s.xs.size >= 2 && (s.ys.size >= 2 || s.width >= tap - 1)); };
  const name = el => ((el.getAttribute('aria-label') || el.getAttribute('class')) + ' ' +
                      (el.classList.contains('role-title') ? el.textContent : '')).slice(0, 80).trim();
  const outside = (el, r) => r.left < seen.left - 1 || r.right > seen.right + 1
    ? [`${name(el)} at ${r.left.toFixed(0)} to ${r.right.toFixed(0)} px`] : [];
  const frame = svg.querySelector('.role-frame.root > g > g');
  const scopes = Array.from(frame.children).filter(g => g.classList.contains('role-scope'));
  const views = scopes.length ? scopes : [svg.querySelector('.role-frame.root')];
  const out = [], grids = [];
  for (const view of views) {
    const r = view.getBoundingClientRect(), grid = isGrid(view);
    if (grid) grids.push(name(view));
    if (!grid) out.push(...outside(view, r));
    else if (r.left > seen.right - tap || r.right < seen.left + tap) out.push(`${name(view)}: no column in view`);
  }
  for (const part of svg.querySelectorAll('g.role-axis, g.role-legend, g.role-title')) {
    if (!part.querySelector('text') || hidden(part)) continue;
    const view = part.closest('.role-scope') || svg.querySelector('.role-frame.root');
    const alongColumns = /^X-axis/.test(part.getAttribute('aria-label') || '') && grids.includes(name(view));
    if (!alongColumns) out.push(...outside(part, part.getBoundingClientRect()));
  }
  return {chart: chart.id, out: out, grids: grids,
          chartScrolls: chart.scrollWidth > chart.clientWidth + 1};
})"""


def pages_of(site) -> list:
    return sorted(path.name for path in [*site.glob("figure-*.html"), *site.glob("text-*.html")])


@pytest.mark.parametrize("which", ["every kind", "the chapter"])
def test_every_chart_view_axis_legend_and_title_is_in_view_at_360_px_only_a_grid_scrolls(
    browser, every_kind_site, random_site, which
):
    site = every_kind_site if which == "every kind" else random_site
    opener = Opener(browser, site)
    context, problems, grids, charts = opener.context(**PHONE), [], 0, 0
    try:
        for name in pages_of(site):
            visit = opener.open(name, context=context)
            for chart in visit.page.evaluate(OUT_OF_VIEW, [TAP]):
                charts, grids = charts + 1, grids + len(chart["grids"])
                problems += [f"{name} {chart['chart']}: {part}" for part in chart["out"]]
                if chart["chartScrolls"]:
                    problems.append(f"{name} {chart['chart']}: the chart with its controls scrolls sideways")
            visit.assert_clean()
            opener.done(visit)
    finally:
        opener.close()
    # The check reaches charts of every sort: grids that scroll, and views that must fit.
    assert charts >= 14 and grids >= 3, (charts, grids)
    assert not problems, f"out of view sideways at 360 px ({which}):\n  " + "\n  ".join(problems)


# The lens as it opens on a phone: where its reading key, its legend, its layer numbers, the chosen cell and its
# column's label lie (px, on the screen), the part of the chart's box the screen shows, and the charts below it.
LENS = """() => {
  const chart = document.getElementById('chart-lens'), view = chart.vegaView, svg = chart.querySelector('svg.marks');
  const box = chart.querySelector('.chart-wrapper'), b = box.getBoundingClientRect();
  const rect = el => { const r = el.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const stage = view.signal('stage'), position = view.signal('position');
  const chosen = Array.from(svg.querySelectorAll('g.mark-rect.role-mark > path')).find(p => p.__data__ && p.__data__.datum
      && p.__data__.datum.pick_stage === stage && p.__data__.datum.pick_position === position);
  const [xAxis, yAxis] = ['X-axis', 'Y-axis'].map(a => svg.querySelector(`.concat_0_group g.role-axis[aria-label^="${a}"]`));
  const label = Array.from(xAxis.querySelectorAll('.role-axis-label text'))
      .find(t => t.textContent === view.signal('names')[position - 1]);
  const views = Array.from(svg.querySelector('.role-frame.root > g > g').children)
      .filter(g => g.classList.contains('role-scope')).slice(1);
  return {key: rect(document.querySelector('.reading-key')), legend: rect(svg.querySelector('g.role-legend')),
          layers: Array.from(yAxis.querySelectorAll('.role-axis-label text')).map(t => [t.textContent, rect(t)]),
          axis: rect(yAxis), cell: rect(chosen), column: rect(label), below: views.map(rect),
          seen: {left: Math.max(b.left, 0), right: Math.min(b.right, innerWidth)}, height: innerHeight,
          scrolled: box.scrollLeft, wide: box.scrollWidth > box.clientWidth + 1};
}"""


def across(box: dict, seen: dict) -> bool:
    return box["left"] >= seen["left"] - 1 and box["right"] <= seen["right"] + 1


def on_screen(box: dict, height: float) -> bool:
    return box["top"] >= 0 and box["bottom"] <= height


def test_the_lens_first_screen_on_a_phone_shows_its_key_legend_layer_numbers_and_chosen_column(opener):
    visit = opener.open("figure-lens.html", context=opener.context(**PHONE))
    page = visit.page
    lens = page.evaluate(LENS)
    seen, height = lens["seen"], lens["height"]
    assert lens["wide"] and lens["scrolled"] > 0, "the lens opens with its table scrolled to the chosen column"
    # As the page opens: the key, the legend, the first layers' numbers and the chosen column's label.
    assert on_screen(lens["key"], height) and on_screen(lens["legend"], height), lens
    assert across(lens["legend"], seen) and across(lens["axis"], seen), lens
    first = [number for number, box in lens["layers"] if on_screen(box, height)]
    assert first[:2] == ["0", "1"], f"layer numbers in the first screen: {first}"
    assert on_screen(lens["column"], height) and across(lens["column"], seen), lens["column"]
    # The chosen cell beside the layer numbers, not under them; the charts below the table all in view.
    assert lens["cell"]["left"] >= lens["axis"]["right"] - 1 and lens["cell"]["right"] <= seen["right"] + 1, lens
    assert len(lens["below"]) == 3 and all(across(view, seen) for view in lens["below"]), lens["below"]
    # From the key down, one screen holds the key, the legend, every layer's number and the chosen cell.
    page.evaluate(
        "() => window.scrollTo(0, Math.floor(scrollY + document.querySelector('.reading-key')"
        ".getBoundingClientRect().top) - 1)"
    )
    lens = page.evaluate(LENS)
    assert [number for number, box in lens["layers"] if on_screen(box, height)] == [str(n) for n in range(13)]
    assert all(on_screen(lens[part], height) for part in ("key", "legend", "cell")), lens
    # Swiped to the first positions, the table alone moves: the numbers, the legend and the charts below stay,
    # and the cells slide under the numbers' backdrop.
    page.evaluate("() => { document.querySelector('#chart-lens .chart-wrapper').scrollLeft = 120; }")
    page.wait_for_function(
        "() => document.querySelector('#chart-lens .chart-wrapper').style.getPropertyValue('--scrolled') === '120px'"
    )
    moved = page.evaluate(LENS)
    for part in ("legend", "axis"):
        assert moved[part]["left"] == pytest.approx(lens[part]["left"], abs=1), (part, moved[part], lens[part])
    assert [view["left"] for view in moved["below"]] == pytest.approx([view["left"] for view in lens["below"]], abs=1)
    under = page.evaluate(
        "([x, y]) => { const el = document.elementFromPoint(x, y);"
        " return (el.closest('g[class*=\"role-\"]') || el).getAttribute('class'); }",
        [moved["axis"]["right"] - 3, moved["layers"][6][1]["top"] + 5],
    )
    assert "backdrop" in under or "role-axis" in under, f"under the layer numbers: {under}"
    # More positions on both sides: the box says so (its right edge fades, the backdrop casts a shadow: site.css).
    assert page.eval_on_selector(
        "#chart-lens .chart-wrapper",
        "b => b.hasAttribute('data-more-left') && b.hasAttribute('data-more-right') && b.hasAttribute('data-pinned')",
    )
    visit.assert_clean()


# Every word a chart draws that reaches past its drawing's edge (words Vega hides, at no opacity, left out).
CUT = """() => Array.from(document.querySelectorAll('[data-spec]')).flatMap(chart => {
  const svg = chart.querySelector('svg.marks'), box = svg.getBoundingClientRect();
  const hidden = el => { for (let n = el; n && n !== svg; n = n.parentElement) { const s = getComputedStyle(n);
      if (s.display === 'none' || s.visibility === 'hidden' || parseFloat(s.opacity) === 0) return true; }
    return false; };
  return Array.from(svg.querySelectorAll('text')).filter(t => t.textContent.trim() && !hidden(t)).flatMap(t => {
    const r = t.getBoundingClientRect();
    const edges = [r.left < box.left - 1 && 'left', r.right > box.right + 1 && 'right', r.top < box.top - 1 && 'top',
                   r.bottom > box.bottom + 1 && 'bottom'].filter(Boolean);
    return edges.length ? [`${chart.id}: "${t.textContent.trim()}" past the ${edges.join(' and ')} edge`] : [];
  });
})"""

# The marks of the page's charts that a click (a tap) chooses from, one of each value they choose: where each lies.
CHOOSERS = """() => Array.from(document.querySelectorAll('[data-spec]')).flatMap(chart => {
  const seen = new Map();
  for (const el of chart.querySelectorAll('svg.marks path, svg.marks text')) {
    const datum = el.__data__ && el.__data__.datum, r = el.getBoundingClientRect();
    if (!datum || r.width < 3 || r.height < 3) continue;
    const picks = Object.keys(datum).filter(k => k.startsWith('pick_')).sort().map(k => k + '=' + datum[k]).join('&');
    if (picks && !seen.has(picks)) seen.set(picks, {chart: chart.id, picks: picks});
  }
  return Array.from(seen.values());
})"""

# Scrolls the chosen mark (chart id, its picks) to the middle of the screen: where it lies then, or null.
BRING = """([id, picks]) => {
  for (const el of document.querySelectorAll('#' + id + ' svg.marks path, #' + id + ' svg.marks text')) {
    const datum = el.__data__ && el.__data__.datum;
    if (!datum) continue;
    const own = Object.keys(datum).filter(k => k.startsWith('pick_')).sort().map(k => k + '=' + datum[k]).join('&');
    if (own !== picks) continue;
    el.scrollIntoView({block: 'center', inline: 'center'});
    const r = el.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (document.elementFromPoint(x, y) === el) return [x, y];
  }
  return null;
}"""


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_no_word_of_any_chart_of_every_kind_is_cut_by_its_drawing_as_it_opens_or_after_a_click(
    browser, every_kind_site, device
):
    opener = Opener(browser, every_kind_site)
    context, cut, clicks = opener.context(**(PHONE if device == "phone" else DESKTOP)), [], 0
    try:
        for name in sorted(path.name for path in every_kind_site.glob("figure-*.html")):
            visit = opener.open(name, context=context)
            page = visit.page
            cut += [f"{name} as it opens: {words}" for words in page.evaluate(CUT)]
            choosers = page.evaluate(CHOOSERS)
            # The first, the middle and the last thing a click chooses (a token, a cell, a part...).
            for chooser in {
                id(c): c for c in (choosers[:1] + choosers[len(choosers) // 2 :][:1] + choosers[-1:])
            }.values():
                at = page.evaluate(BRING, [chooser["chart"], chooser["picks"]])
                if at is None:
                    continue
                (page.touchscreen.tap if device == "phone" else page.mouse.click)(*at)
                page.wait_for_timeout(300)  # the chart drawn in its new state
                clicks += 1
                cut += [f"{name} after a click choosing {chooser['picks']}: {words}" for words in page.evaluate(CUT)]
            visit.assert_clean()
            opener.done(visit)
    finally:
        opener.close()
    assert clicks >= 10, f"only {clicks} clicks on marks that choose"
    assert not cut, f"words cut by their drawing ({device}):\n  " + "\n  ".join(sorted(set(cut)))
