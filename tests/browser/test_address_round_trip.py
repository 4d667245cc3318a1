"""A page's address brings back what the reader set, as it was shown (issue 44, points 4 and 6): on every page of
every registered kind (tests/every_kind.toml, its figure pages and text pages), each control is set as a reader sets
it (a menu, a radio button, a slider by its arrow keys, the row of tokens), and the address then reopens the page
with the same words on it: in the text, the charts, the controls and the row. No number on either shows a float's
tail (1.5000000000000002: a slider's value taken from the address as min + 28 steps). And the address's state is
in every control at load, drawn or not: opened with Vega's script refused, the page's row and the build's inputs
show what the live page shows."""

from __future__ import annotations

import re

import pytest

from .browsing import CHANGE_TIMEOUT_MS, Opener

# Every chart's bound params: what each allows and the value it has now.
PARAMS = """() => Array.from(document.querySelectorAll('[data-spec]')).flatMap(el => (el.boundParams || []).map(p => ({
  label: el.id.replace(/^chart-/, ''), name: p.name, options: p.bind.options ? p.bind.options.map(String) : null,
  min: p.bind.min, max: p.bind.max, step: p.bind.step, value: String(el.vegaView.signal(p.name))})))"""

# What the page says: its text, its charts' words (SVG text and titles, the marks' labels: sorted, since Vega may draw
# a mark or an axis's labels again after a choice in another order), every control's state, the rows'. Vega's captions of a chart's
# title, axes and legends ("Title text '...'") are left out: Vega writes them when it first draws the guide and does
# not always write them again (a title that follows a choice keeps its first words there), which is Vega's doing,
# not the address's; their words are in the SVG text.
WORDS = """() => {
  const GUIDES = ['title', 'subtitle', 'axis', 'legend'];
  const control = i => i.type === 'radio' ? (i.checked ? i.value : null)
    : i.type === 'range' ? i.value + ' shown as ' + (i.nextElementSibling ? i.nextElementSibling.textContent : '')
    : i.type === 'checkbox' ? String(i.checked) : i.value;
  const controls = el => Array.from(el.querySelectorAll('.vega-bindings [name]'))
    .map(i => [i.getAttribute('name'), control(i)]).filter(pair => pair[1] !== null).map(pair => pair.join(': '));
  const drawings = Array.from(document.querySelectorAll('svg.marks'));
  drawings.forEach(svg => { svg.style.display = 'none'; });  // their words are read below, in any order
  const text = document.body.innerText;
  drawings.forEach(svg => { svg.style.display = ''; });
  return {
    text: text,
    charts: Array.from(document.querySelectorAll('svg.marks text, svg.marks title')).map(t => t.textContent).sort(),
    labels: Array.from(document.querySelectorAll('[aria-label], [aria-description]'))
      .filter(e => !GUIDES.includes(e.getAttribute('aria-roledescription')))
      .map(e => (e.getAttribute('aria-label') || '') + ' ' + (e.getAttribute('aria-description') || '')).sort(),
    controls: Object.fromEntries(Array.from(document.querySelectorAll('[data-spec]')).map(el => [el.id, controls(el)])),
    rows: Array.from(document.querySelectorAll('.token-row')).map(row => {
      const chosen = row.querySelector('[aria-checked="true"]');
      return chosen ? chosen.getAttribute('data-token') : null;
    }),
  };
}"""

# A number written with ten or more digits after its point: no reader's number is, a float's tail is.
FLOAT_TAIL = re.compile(r"\d\.\d{10,}")


def every_kind_pages(site) -> list[str]:
    return sorted(path.name for pattern in ("figure-*.html", "text-*.html") for path in site.glob(pattern))


def tails(words: dict) -> list[str]:
    """The float tails anywhere in what a page says."""
    texts = [words["text"], *words["charts"], *words["labels"], *(c for cs in words["controls"].values() for c in cs)]
    return sorted({match for text in texts for match in FLOAT_TAIL.findall(text)})


def settled(page) -> dict:
    """What the page says once it stops changing (a choice may load a file and redraw after it is made)."""
    words = page.evaluate(WORDS)
    for _ in range(20):
        page.wait_for_timeout(150)
        again = page.evaluate(WORDS)
        if again == words:
            return words
        words = again
    return words


def step_with_a_tail(p: dict) -> int:
    """The number of steps from its min to a value of the slider `p` that min + steps * step writes with a float's
    tail, the nearest to its value (where none does, its next step): the value most likely to come back wrong."""
    low, high, step = p["min"], p["max"], p["step"]
    now, last = round((float(p["value"]) - low) / step), int((high - low) / step + 1e-9)
    for k in sorted(range(last + 1), key=lambda k: (abs(k - now) if k != now else 10**9, k)):
        if FLOAT_TAIL.search(repr(low + k * step)):
            return k
    return now + 1 if now < last else now - 1


def decimal_text(low: float, step: float, k: int) -> str:
    """min + k steps, written with the digits of min and step (as a range input writes it)."""
    digits = max(len(repr(float(x)).rstrip("0").partition(".")[2]) for x in (low, step))
    return f"{low + k * step:.{digits}f}".rstrip("0").rstrip(".") if digits else str(int(low + k * step))


def set_as_a_reader(page, p: dict) -> str:
    """Sets the param `p` to another value with its control, as a reader does; returns the value, as text."""
    chart = page.locator(f"#chart-{p['label']}")
    if p["options"] is not None:
        options = p["options"]
        value = options[(options.index(p["value"]) + 1) % len(options)] if p["value"] in options else options[0]
        select = chart.locator(f".vega-bindings select[name='{p['name']}']")
        radio = chart.locator(f".vega-bindings input[type=radio][name='{p['name']}'][value='{value}']")
        if select.count() and select.is_visible():
            select.select_option(value)
        elif radio.count():
            radio.check()
        else:  # the chart's own menu is hidden: a row of tokens steers it
            page.locator(
                f".token-row[data-chart='chart-{p['label']}'] [data-token='{value}'],"
                f" .token-row[data-text] [data-token='{value}']"
            ).first.click()
        return value
    k = step_with_a_tail(p)
    now = round((float(p["value"]) - p["min"]) / p["step"])
    slider = chart.locator(f".vega-bindings input[type=range][name='{p['name']}']")
    slider.focus()
    for _ in range(abs(k - now)):
        slider.press("ArrowRight" if k > now else "ArrowLeft")
    return decimal_text(p["min"], p["step"], k)


def wait_for_value(page, p: dict, value: str) -> None:
    page.wait_for_function(
        "([id, name, value]) => String(document.getElementById(id).vegaView.signal(name)) === value",
        arg=[f"chart-{p['label']}", p["name"], value],
        timeout=CHANGE_TIMEOUT_MS,
    )


def open_without_vega(opener: Opener, name: str) -> dict:
    """What the page `name` (with its address) says at load where Vega's script is refused: no chart is ever drawn,
    only the build's drawings and inputs and the rows show the state."""
    visit = opener.open("about:blank", wait_for_charts=False)
    page = visit.page
    page.route("**/assets/vega.js", lambda route: route.abort())  # the route registered last is asked first
    try:
        page.goto(opener.url(name))
        page.wait_for_function("() => document.readyState === 'complete'")
        page.wait_for_timeout(200)  # the script loads Vega after the first paint, and is refused
        assert page.evaluate("() => !document.querySelector('[data-rendered]')"), f"{name}: a chart was drawn"
        assert visit.page_errors == [] and visit.policy_violations == [], (visit.page_errors, visit.policy_violations)
        return page.evaluate(WORDS)
    finally:
        page.unroute("**/assets/vega.js")
        opener.done(visit)


@pytest.fixture(scope="module")
def round_trips(browser, every_kind_site):
    """Each page of every kind: every control set as a reader sets it, the address it then has, and what the page
    says, before and after the address reopens it (in a page of its own)."""
    opener, trips = Opener(browser, every_kind_site), {}
    try:
        for name in every_kind_pages(every_kind_site):
            visit = opener.open(name)
            page, set_to = visit.page, {}
            for i in range(len(page.evaluate(PARAMS))):
                p = page.evaluate(PARAMS)[i]  # read again: a choice in a text's row chooses in its other charts too
                value = set_as_a_reader(page, p)
                wait_for_value(page, p, value)
                set_to[f"{p['label']}.{p['name']}"] = value
            before = settled(page)
            final = {f"{p['label']}.{p['name']}": p["value"] for p in page.evaluate(PARAMS)}  # a text's tokens follow
            address = page.evaluate("location.hash")
            visit.assert_clean()
            opener.done(visit)
            again = opener.open(name + address)
            after = settled(again.page)
            again.assert_clean()
            opener.done(again)
            trips[name] = {"set": set_to, "final": final, "address": address, "before": before, "after": after}
    finally:
        opener.close()
    return trips


def test_every_kinds_pages_and_controls_are_tried(round_trips):
    assert any(name.startswith("text-") for name in round_trips), f"no text page: {sorted(round_trips)}"
    kinds = sum(name.startswith("figure-") for name in round_trips)
    assert kinds >= 14, f"only {kinds} figure pages"
    params = [key for trip in round_trips.values() for key in trip["set"]]
    assert len(params) >= 20, f"only {len(params)} controls set: the check saw too little"
    fractional = [trip["set"][key] for trip in round_trips.values() for key in trip["set"] if "." in trip["set"][key]]
    assert fractional, "no slider with steps of less than one was set: the float tails went unchecked"


def test_every_value_set_is_in_the_address_as_it_was_shown(round_trips):
    for name, trip in round_trips.items():
        assert set(trip["final"]) == set(trip["set"]), f"{name}: the controls changed as they were set"
        address = trip["address"]
        for key, value in trip["final"].items():
            assert re.search(
                r"[#&](?:[^&=]*\.)?" + re.escape(key.split(".", 1)[1]) + "=" + re.escape(value) + "(&|$)", address
            ), f"{name}: {key} set to {value}, but the address is {address}"


def test_the_address_reopens_the_page_with_the_same_words(round_trips):
    for name, trip in round_trips.items():
        before, after = trip["before"], trip["after"]
        for part in ("rows", "controls", "text", "charts", "labels"):
            assert after[part] == before[part], f"{name}{trip['address']}: its {part} differ once reopened"


def test_no_number_on_a_page_shows_a_floats_tail(round_trips):
    for name, trip in round_trips.items():
        for when in ("before", "after"):
            found = tails(trip[when])
            assert not found, f"{name}{trip['address']} ({when} reopening): {found}"


def test_the_address_is_in_every_row_and_input_at_load_drawn_or_not(browser, every_kind_site, round_trips):
    opener, checked = Opener(browser, every_kind_site), 0
    try:
        for name, trip in round_trips.items():
            unlit = open_without_vega(opener, name + trip["address"])
            assert unlit["rows"] == trip["after"]["rows"], f"{name}{trip['address']}: the rows before Vega"
            for chart, controls in unlit["controls"].items():
                if controls:  # the build wrote this chart's inputs
                    checked += 1
                    assert controls == trip["after"]["controls"][chart], f"{name}{trip['address']}: {chart}'s inputs"
            assert not tails(unlit), f"{name}{trip['address']} before Vega: {tails(unlit)}"
    finally:
        opener.close()
    assert checked >= 10, f"only {checked} charts with the build's inputs: the check saw too little"
