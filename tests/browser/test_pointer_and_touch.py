"""Pointer and touch, on every kind's page of tests/every_kind.toml's site (built over the small model): every mark a
click chooses from is hit over at least 24 x 24 px on a phone's touch screen and 8 x 8 px with a desktop's mouse,
however thin it is drawn (a knockout bar of a change near zero); the grids a guide says to tap keep squares of
24 px on a phone; the pointer on a cell's own word shows the cell's tooltip; and the lens on a phone opens with its
chosen cell in its scrolling box's view."""

from __future__ import annotations

from pathlib import Path

import pytest

from .browsing import Opener

PHONE = {"viewport": {"width": 360, "height": 800}, "has_touch": True, "is_mobile": True}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
TAP, POINTER = 24, 8  # px: the least hit area on a touch screen (WCAG 2.2, 2.5.8), and with a mouse
TAPPED_GRIDS = ("grid", "habits", "put-back")  # all-heads, head-roles, patching: their guides say to tap a square


@pytest.fixture
def pages(browser, every_kind_site):
    opener = Opener(browser, every_kind_site)
    yield opener
    opener.close()


def figure_labels(site: Path) -> list[str]:
    return sorted(path.name[len("figure-") : -len(".html")] for path in site.glob("figure-*.html"))


# Every mark of a chart a click chooses from (its datum carries a field the chart's clicks read, and the pointer over
# it is a hand: its item's cursor), grouped by what a click there chooses. For each choice: its largest element (where the pointer
# chooses it: the mark, or a transparent hit mark under it) must be `least` px both ways, hold the middle of every
# drawn mark of that choice, and be the choice's wherever the pointer lands in it (its middle and, 3 px in, its
# corners: document.elementFromPoint, scrolled into view, a frame later). Returns what fails, and how many choices
# were tried.
HIT_AREAS = """async ([id, least]) => {
  const chart = document.getElementById(id), svg = chart.querySelector('svg.marks');
  const fields = (chart.picks || []).map(pick => pick.field);
  const choice = el => { const d = el && el.__data__ && el.__data__.datum;
    if (!d || !fields.some(f => d[f] !== undefined && d[f] !== null)) return null;
    return fields.map(f => f + '=' + d[f]).join(' '); };
  const choices = new Map();
  for (const el of svg.querySelectorAll('path, text')) {
    const key = choice(el);
    if (key === null || el.__data__.cursor !== 'pointer') continue;
    if (!choices.has(key)) choices.set(key, []);
    choices.get(key).push(el);
  }
  // Where a view clips its marks (a column at the view's edge, half of it drawn), the part inside the view.
  const shown = el => { const r = el.getBoundingClientRect();
    if (!el.__data__.mark.clip) return r;
    for (let n = el.parentElement; n && n !== svg; n = n.parentElement) {
      const frame = n.querySelector(':scope > path.background');
      if (!frame) continue;
      const f = frame.getBoundingClientRect(), left = Math.max(r.left, f.left), top = Math.max(r.top, f.top);
      return new DOMRect(left, top, Math.min(r.right, f.right) - left, Math.min(r.bottom, f.bottom) - top);
    }
    return r; };
  const failed = [];
  for (const [key, els] of choices) {
    const area = r => r.width * r.height;
    const largest = els.reduce((a, b) => area(a.getBoundingClientRect()) >= area(b.getBoundingClientRect()) ? a : b);
    largest.scrollIntoView({block: 'center', inline: 'center'});
    // As the reader sees it once scrolled: the parts a scrolling box keeps in view follow its scroll event.
    await new Promise(resolve => requestAnimationFrame(() => resolve()));
    const r = shown(largest);
    if (r.width < least - 0.01 || r.height < least - 0.01) {
      failed.push(`${id} ${key}: hit over ${r.width.toFixed(1)} x ${r.height.toFixed(1)} px`);
      continue;
    }
    for (const el of els) {
      const m = el.getBoundingClientRect(), x = m.left + m.width / 2, y = m.top + m.height / 2;
      if (x < r.left - 1 || x > r.right + 1 || y < r.top - 1 || y > r.bottom + 1) {
        failed.push(`${id} ${key}: a mark drawn outside its hit area`);
      }
    }
    const points = [[r.left + r.width / 2, r.top + r.height / 2], [r.left + 3, r.top + 3], [r.right - 3, r.top + 3],
                    [r.left + 3, r.bottom - 3], [r.right - 3, r.bottom - 3]];
    for (const [x, y] of points) {
      const hit = choice(document.elementFromPoint(x, y));
      if (hit !== key) failed.push(`${id} ${key}: the pointer at ${x.toFixed(0)}, ${y.toFixed(0)} chooses ${hit}`);
    }
  }
  window.scrollTo(0, 0);
  return {failed: failed, tried: choices.size};
}"""


def hit_areas(page, least: int) -> tuple[list, int]:
    failed, tried = [], 0
    for chart in page.eval_on_selector_all("[data-spec]", "els => els.map(el => el.id)"):
        seen = page.evaluate(HIT_AREAS, [chart, least])
        failed += seen["failed"]
        tried += seen["tried"]
    return failed, tried


@pytest.mark.parametrize("device, least", [("phone", TAP), ("desktop", POINTER)])
@pytest.mark.parametrize("which", ["every kind", "the chapter's"])
def test_every_clickable_mark_of_every_kind_is_hit_over_24_px_on_a_phone_and_8_px_on_a_desktop(
    browser, every_kind_site, random_site, which, device, least
):
    """On every kind's page of the small model (3 layers of 4 heads), and on the chapter's pages of GPT-2's shape
    (12 layers of 12 heads: the grids and bars as readers meet them)."""
    site = every_kind_site if which == "every kind" else random_site
    pages = Opener(browser, site)
    context = pages.context(**(PHONE if device == "phone" else DESKTOP))
    failures, clickable = {}, []
    for label in figure_labels(site):
        visit = pages.open(f"figure-{label}.html", context=context)
        failed, tried = hit_areas(visit.page, least)
        if tried:
            clickable.append(label)
        if failed:
            failures[label] = failed[:5] + ([f"... {len(failed) - 5} more"] if len(failed) > 5 else [])
        visit.assert_clean()
        pages.done(visit)
    pages.close()
    # The kinds whose marks a click chooses from: (l), (i), the heads' grid, the lens, the ledger, knockout,
    # patching and head-roles.
    kinds = (
        {"att", "read", "grid", "ice-lens", "split", "without", "put-back", "habits"}
        if which == "every kind"
        else {"l", "i", "all-heads", "lens", "ledger", "knockout", "patching", "head-roles"}
    )
    assert kinds <= set(clickable), clickable
    assert failures == {}, failures


# The squares of a chart's grid a click chooses from: each one's width and height, in px as drawn.
SQUARES = """id => { const chart = document.getElementById(id), fields = (chart.picks || []).map(pick => pick.field);
  return Array.from(chart.querySelectorAll('svg.marks path')).filter(el => {
    const item = el.__data__, d = item && item.datum;
    return d && item.mark.marktype === 'rect' && fields.some(f => d[f] !== undefined && d[f] !== null);
  }).map(el => { const r = el.getBoundingClientRect(); return [r.width, r.height]; }); }"""
SIDEWAYS = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"


@pytest.mark.parametrize("label", TAPPED_GRIDS)
def test_on_a_phone_the_grids_a_guide_says_to_tap_keep_squares_of_24_px_scrolling_in_their_box(pages, label):
    visit = pages.open(f"figure-{label}.html", context=pages.context(**PHONE))
    page = visit.page
    squares = page.evaluate(SQUARES, f"chart-{label}")  # the all-heads grid's: transparent, over its picture
    assert len(squares) >= 12, squares
    smallest = min(min(w, h) for w, h in squares)
    assert smallest >= TAP - 0.01, f"({label}) a square of {smallest:.1f} px on a phone"
    assert page.evaluate(SIDEWAYS) <= 0, "the page scrolls sideways: the grid should scroll in its own box"
    visit.assert_clean()


# A cell's word as drawn in the chart (a text mark whose datum is a cell's), and a point of the same cell away from
# its word: [word's middle, a corner of the cell 3 px in, the word].
CELL_AND_WORD = """([id, field]) => {
  const svg = document.querySelector('#' + id + ' svg.marks');
  for (const text of svg.querySelectorAll('text')) {
    const d = text.__data__ && text.__data__.datum;
    if (!d || d[field] === undefined || !text.textContent.trim() || getComputedStyle(text).opacity === '0') continue;
    const cell = Array.from(svg.querySelectorAll('path')).find(p => p.__data__ && p.__data__.datum
      && p.__data__.mark.marktype === 'rect' && p.__data__.datum.stage === d.stage
      && Object.keys(d).every(k => p.__data__.datum[k] === d[k]));
    if (!cell) continue;
    cell.scrollIntoView({block: 'center', inline: 'center'});
    const w = text.getBoundingClientRect(), c = cell.getBoundingClientRect();
    return {word: [w.left + w.width / 2, w.top + w.height / 2], cell: [c.left + 3, c.top + 3],
            text: text.textContent, onWord: document.elementFromPoint(w.left + w.width / 2, w.top + w.height / 2) === text};
  }
  return null;
}"""
TOOLTIP = (
    "() => { const t = document.getElementById('vg-tooltip-element');"
    " return t && t.classList.contains('visible') ? t.innerText : null; }"
)


@pytest.mark.parametrize("label, field", [("ice-lens", "top"), ("warm-or-hot", "distance")])
def test_the_pointer_on_a_cells_own_word_shows_the_cells_tooltip(pages, label, field):
    visit = pages.open(f"figure-{label}.html", context=pages.context(**DESKTOP))
    page = visit.page
    at = page.evaluate(CELL_AND_WORD, [f"chart-{label}", field])
    assert at is not None and at["onWord"], f"({label}) no word drawn in a cell: {at}"
    page.mouse.move(*at["cell"])
    page.wait_for_function(TOOLTIP)
    on_cell = page.evaluate(TOOLTIP)
    page.mouse.move(0, 0)
    page.wait_for_function(f"() => !({TOOLTIP})()")
    page.mouse.move(*at["word"])
    page.wait_for_function(TOOLTIP, timeout=2_000)
    assert page.evaluate(TOOLTIP) == on_cell
    if label == "ice-lens":
        assert at["text"] in on_cell, (at["text"], on_cell)  # the cell's top guess, whole
    visit.assert_clean()


# Whether the lens's chosen cell lies inside its scrolling box's view, and whether the box scrolls.
CHOSEN_CELL = """() => { const chart = document.getElementById('chart-ice-lens'), view = chart.vegaView;
  const box = chart.querySelector('.chart-wrapper').getBoundingClientRect();
  const stage = view.signal('stage'), position = view.signal('position');
  const cell = Array.from(chart.querySelectorAll('svg.marks path')).find(p => { const d = p.__data__ && p.__data__.datum;
    return d && p.__data__.mark.marktype === 'rect' && d.pick_stage === stage && d.pick_position === position; });
  const r = cell.getBoundingClientRect();
  return {inView: r.left >= box.left - 1 && r.right <= box.right + 1,
          scrolls: chart.querySelector('.chart-wrapper').scrollWidth > box.width + 1}; }"""


@pytest.mark.parametrize("fragment", ["", "#position=8&stage=3"])
def test_the_lens_on_a_phone_opens_with_its_chosen_cell_in_view(pages, fragment):
    """The figure's own opening cell (position 2), and one a link chooses at the text's far end."""
    visit = pages.open(f"figure-ice-lens.html{fragment}", context=pages.context(**PHONE))
    seen = visit.page.evaluate(CHOSEN_CELL)
    assert seen["scrolls"] and seen["inView"], seen
    visit.assert_clean()
