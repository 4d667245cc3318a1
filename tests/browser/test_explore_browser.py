"""The "explore further" figures, the pages of one text, the downloads and the footers, in headless Chromium.

The figures and text pages are tested on a site of their own: EXPLORE_CONFIG below (one figure of each kind
these tests work, and two texts whose pages hold many charts) built once over conftest's small model, so that
no edit of chapter.toml can take a test's subject away. The downloads and footers are tested on every figure
of the chapter's own site, built once with ``--model random`` (conftest's ``random_site``). Pages are opened
from file:// in Debian's Chromium, with every request that is not a file: URL aborted and recorded, and console
errors and page errors collected: every test asserts that there were none of either.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from conftest import CONFIG_FIGURES, SMALL_SHAPE, built, gpt2_tokenizer
from figures.toolkit import model_names
from .browsing import (
    CHANGE_TIMEOUT_MS,
    RENDER_TIMEOUT_MS,
    Opener,
    chart_svg,
    chart_texts,
    choose_in_select,
    description,
    playwright_or_skip,
    signal,
    wait_for_signal,
    wait_for_svg_change,
)


sync_api = playwright_or_skip()

CHAPTER_LABELS = [figure["label"] for figure in CONFIG_FIGURES]  # the downloads and footers: every chapter figure

ANIMAL = "The animal didn't cross the street because it was too tired"
ANIMAL_WIDE = "The animal didn't cross the street because it was too wide"
MAYA = "Maya lives in Paris, the capital of"

# The figures these tests work, on conftest's small model (3 layers of 4 heads). The pages of the two texts hold
# enough charts that, on a 360 x 800 screen, some lie far below the first screen (the phone tests): on the
# animal's page the first chart (attention) chooses a token and has inputs, and the heads chart, far below it,
# chooses a token and has inputs of its own (scores comes after it); on Maya's page the lens and find-head link
# their token choices, and the lens and the charts after it lie far below.
EXPLORE_CONFIG = f'''\
[[figure]]
kind = "attention"
label = "attention"
text = "{ANIMAL}"
focus = "it"
views = [[2, 3], [1, 1]]

[[figure]]
kind = "heads"
label = "heads"
text = "{ANIMAL}"
focus = "it"
head = [2, 3]

[[figure]]
kind = "scores"
label = "scores"
text = "{ANIMAL}"
focus = "it"
head = [2, 3]

[[figure]]
kind = "compare"
label = "compare"
texts = ["{ANIMAL}", "{ANIMAL_WIDE}"]

[[figure]]
kind = "shapes"
label = "shapes"
text = "{MAYA}"

[[figure]]
kind = "readout"
label = "readout"
text = "{MAYA}"
target = " France"

[[figure]]
kind = "lens"
label = "lens"
text = "{MAYA}"
track = " France"

[[figure]]
kind = "find-head"
label = "find-head"
text = "{MAYA}"
from = "of"
to = "Paris"

[[figure]]
kind = "ledger"
label = "ledger"
text = "{MAYA}"
target = " France"

[[figure]]
kind = "knockout"
label = "knockout"
text = "{MAYA}"
target = " France"
heads_of = 2
'''

LINKED_PARAMS = ["token", "position", "from"]  # the token choices figures.js links across figures of one text
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def site(small_model_dir, tmp_path_factory) -> Path:
    """EXPLORE_CONFIG built once over the small model; the site these tests' `opener` opens."""
    return built(small_model_dir, EXPLORE_CONFIG, tmp_path_factory.mktemp("explore-build"))


@pytest.fixture
def opener(browser, site):
    """Opens pages of this module's own site (EXPLORE_CONFIG) for one test; it replaces the `opener` of this
    folder's conftest, which opens the chapter's."""
    opener = Opener(browser, site)
    yield opener
    opener.close()


@pytest.fixture(scope="module")
def chapter_site(random_site) -> Path:
    """The chapter's site (chapter.toml, --model random), whose every figure the downloads and footers tests open
    with the folder conftest's `open_once`."""
    return random_site


@pytest.fixture(scope="module")
def chapter_run(chapter_site) -> dict:
    return json.loads((chapter_site / "data" / "run.json").read_text(encoding="utf-8"))


def figure_page(site: Path, label: str) -> str:
    """The page of a figure of EXPLORE_CONFIG, which the build must have written."""
    name = f"figure-{label}.html"
    assert (site / name).is_file(), f"the build of EXPLORE_CONFIG wrote no {name}"
    return name


# ---------------------------------------------------------------------------------------------- helpers


def spec_of(page, label: str) -> dict:
    return json.loads(page.eval_on_selector(f"#spec-{label}", "el => el.textContent"))


def bound_params(spec: dict) -> list[dict]:
    """The chart's inputs: in the page's compiled Vega spec, the signals bound to an input (the params)."""
    return [p for p in spec.get("signals", []) if p.get("bind")]


def linked_param(spec: dict):
    """The param figures.js links across figures of one text: the first bound one named token, position or from."""
    return next((p for p in bound_params(spec) if p["name"] in LINKED_PARAMS), None)


def options_of(param: dict) -> list:
    bind = param["bind"]
    if "options" in bind:
        return list(bind["options"])
    if bind.get("input") == "range":
        step = bind.get("step", 1)
        count = int(round((bind["max"] - bind["min"]) / step))
        return [bind["min"] + i * step for i in range(count + 1)]
    return []


def title_texts(page, label: str) -> list[str]:
    return chart_texts(page, label, ".role-title-text")


def wait_for_title(page, label: str, text: str) -> None:
    page.wait_for_function(
        "([id, text]) => Array.from(document.querySelectorAll('#' + id + ' svg.marks .role-title-text'))"
        ".some(n => n.textContent === text)",
        arg=[f"chart-{label}", text],
        timeout=CHANGE_TIMEOUT_MS,
    )


def mark_data(page, label: str, marktype: str, keys: list[str]) -> list[list]:
    """The datums behind the drawn marks of one type (from the live scenegraph) that carry all of `keys`."""
    return page.evaluate(
        """([id, marktype, keys]) => {
        const out = [];
        const walk = node => {
            if (!node) return;
            if (node.marktype === marktype && node.role === 'mark') {
                for (const item of node.items || []) {
                    const d = item.datum;
                    if (d && keys.every(k => d[k] !== undefined)) out.push(keys.map(k => d[k]));
                }
            }
            for (const child of node.items || []) if (child.items) walk(child);
        };
        walk(document.getElementById(id).vegaView.scenegraph().root);
        return out;
    }""",
        [f"chart-{label}", marktype, keys],
    )


def set_bound(page, label: str, param: dict, value) -> None:
    """Sets a bound param through its input, as a reader would."""
    selector = f"#chart-{label} .vega-bindings"
    kind = param["bind"].get("input")
    if kind == "select":
        choose_in_select(page, label, param["name"], value)  # the token's on its row, where a row steers the chart
    elif kind == "radio":
        page.locator(f"{selector} input[type='radio'][name='{param['name']}'][value='{value}']").check()
    elif kind == "range":
        page.locator(f"{selector} input[type='range'][name='{param['name']}']").fill(str(value))
    else:
        raise AssertionError(f"chart-{label}: param {param['name']} has an input this test cannot set: {kind}")


def address(page) -> dict[str, str]:
    state = {}
    for pair in page.evaluate("location.hash").lstrip("#").split("&"):
        if "=" in pair:
            key, value = pair.split("=", 1)
            state[unquote(key)] = unquote(value)
    return state


# ---------------------------------------------------------------------------------------------- lens


def test_the_lens_figure_renders_and_its_stage_position_token_and_where_controls_change_what_is_shown(opener, site):
    label = "lens"
    visit = opener.open(figure_page(site, label))
    page = visit.page
    params = {p["name"]: p for p in bound_params(spec_of(page, label))}
    for name, kind in [("stage", "range"), ("position", "select"), ("track", "select"), ("where", "radio")]:
        assert name in params and params[name]["bind"]["input"] == kind, (
            f"lens: no {kind} bound to {name}: {list(params)}"
        )
    assert page.locator(f"#chart-{label} svg.marks").count() == 1
    stage, position = signal(page, label, "stage"), signal(page, label, "position")
    names = signal(page, label, "names")  # each position with its token: '9: _of'
    assert f"The top 10 at position {names[position - 1]}, after layer {stage}" in title_texts(page, label)
    tops_before = mark_data(page, label, "rect", ["rank", "token", "p", "stage", "q"])
    assert len(tops_before) == 10 and all(row[3] == stage and row[4] == position - 1 for row in tops_before), (
        tops_before
    )
    words_before = description(page, label)

    # Another stage (the slider) and another position (the select): another top 10.
    stages, positions = options_of(params["stage"]), options_of(params["position"])
    new_stage = next(s for s in stages if s not in (stage, stages[-1], stages[0])) if len(stages) > 2 else stages[0]
    new_position = next(p for p in reversed(positions[:-1]) if p != position)
    before = chart_svg(page, label)
    set_bound(page, label, params["stage"], new_stage)
    wait_for_signal(page, label, "stage", new_stage)
    set_bound(page, label, params["position"], new_position)
    wait_for_signal(page, label, "position", new_position)
    wait_for_title(page, label, f"The top 10 at position {names[new_position - 1]}, after layer {new_stage}")
    wait_for_svg_change(page, label, before)
    tops = mark_data(page, label, "rect", ["rank", "token", "p", "stage", "q"])
    assert sorted(row[0] for row in tops) == list(range(1, 11)), tops
    assert all(row[3] == new_stage and row[4] == new_position - 1 for row in tops), tops
    assert tops != tops_before
    assert [row[2] for row in sorted(tops)] == sorted((row[2] for row in tops), reverse=True), (
        "the top 10 is not ranked"
    )

    # Another token to follow, then at every position: other lines.
    lines_before = mark_data(page, label, "line", ["t", "q", "stage"])
    track = signal(page, label, "track")
    assert lines_before and {row[0] for row in lines_before} == {track}
    assert {row[1] for row in lines_before} == {new_position - 1}, (
        "with 'where' at 'one' only the chosen position is drawn"
    )
    new_track = next(t for t in options_of(params["track"]) if t != track)
    before = chart_svg(page, label)
    set_bound(page, label, params["track"], new_track)
    wait_for_signal(page, label, "track", new_track)
    wait_for_svg_change(page, label, before)
    lines = mark_data(page, label, "line", ["t", "q", "stage"])
    assert lines and {row[0] for row in lines} == {new_track}, lines[:5]
    assert lines != lines_before

    before = chart_svg(page, label)
    set_bound(page, label, params["where"], "all")
    wait_for_signal(page, label, "where", "all")
    wait_for_svg_change(page, label, before)
    lines = mark_data(page, label, "line", ["t", "q", "stage"])
    assert {row[0] for row in lines} == {new_track}
    assert {row[1] for row in lines} == {p - 1 for p in positions}, "'all' does not draw a line for every position"

    page.wait_for_function(
        "([id, before]) => document.getElementById(id).textContent.trim() !== before",
        arg=[f"description-{label}", words_before],
        timeout=CHANGE_TIMEOUT_MS,
    )
    words = description(page, label)
    track_name = params["track"]["bind"]["labels"][options_of(params["track"]).index(new_track)]
    assert f"After layer {new_stage}, position {new_position}" in words, words
    assert track_name in words and "every position" in words, words
    visit.assert_clean()


# ---------------------------------------------------------------------------------------------- compare


def test_the_compare_figure_shows_a_zero_for_every_shared_token_at_every_stage_and_says_exactly_the_same(opener, site):
    label = "compare"
    visit = opener.open(figure_page(site, label))
    page = visit.page
    # The tokens the two texts share before the first that differs (read with GPT-2's tokenizer here, not from the
    # build's data) see the same text, so their vectors are the same at every stage: the embedding and each layer.
    tired, wide = (gpt2_tokenizer()(text)["input_ids"] for text in (ANIMAL, ANIMAL_WIDE))
    shared = next(i for i, (a, b) in enumerate(zip(tired, wide)) if a != b)
    stages = SMALL_SHAPE["n_layer"] + 1
    assert shared > 1
    zeros = page.eval_on_selector_all(
        f"#chart-{label} svg.marks g.role-mark text", "nodes => nodes.filter(n => n.textContent === '0').length"
    )
    assert zeros == shared * stages, f"{zeros} '0' marks; expected {shared} shared tokens x {stages} stages"
    words = description(page, label)
    assert "exactly the same" in words, words
    visit.assert_clean()


# ---------------------------------------------------------------------------------------------- text pages


def test_choosing_a_token_in_one_figure_of_a_text_page_chooses_it_in_the_others_and_in_the_address(opener, site):
    checked = []
    for path in sorted(site.glob("text-*.html")):
        visit = opener.open(path.name)
        page = visit.page
        labels = page.eval_on_selector_all(".linked [data-spec]", "els => els.map(el => el.id.replace(/^chart-/, ''))")
        linked = []
        for label in labels:
            param = linked_param(spec_of(page, label))
            if param is not None:
                linked.append((label, param))
        if len(linked) < 2:
            opener.done(visit)
            continue
        assert (
            len(page.eval_on_selector_all(".linked[data-text]", "els => [...new Set(els.map(e => e.dataset.text))]"))
            == 1
        ), f"{path.name}: figures of more than one text"
        common = [v for v in options_of(linked[0][1]) if all(v in options_of(p) for _, p in linked[1:])]
        assert len(common) >= 2, f"{path.name}: the linked choices share fewer than two values: {linked}"
        for source in (0, -1):  # from the first chart, then back from the last
            current = [signal(page, label, param["name"]) for label, param in linked]
            value = next((v for v in reversed(common) if v not in current), None)
            if value is None:
                value = next(v for v in common if v != current[source])
            label, param = linked[source]
            set_bound(page, label, param, value)
            for other, other_param in linked:
                wait_for_signal(
                    page,
                    other,
                    other_param["name"],
                    value,
                    f"on {path.name}, where {label}.{param['name']} was set to it",
                )
            state = address(page)
            for other, other_param in linked:
                key = f"{other}.{other_param['name']}"
                assert state.get(key) == str(value), f"{path.name}: address {state} lacks {key}={value}"
        visit.assert_clean()
        checked.append(path.name)
    names = sorted(p.name for p in site.glob("text-*.html"))
    assert checked, (
        f"no text page has two charts with a linked token choice ({', '.join(LINKED_PARAMS)}), "
        f"which EXPLORE_CONFIG's pages of one text should have; text pages: {names or 'none'}"
    )


PHONE = {"width": 360, "height": 800}
OPENED = (
    "() => { const els = Array.from(document.querySelectorAll('[data-spec]'));"
    " return els.some(el => el.hasAttribute('data-rendered'))"
    " && els.every(el => el.hasAttribute('data-rendered') || el.hasAttribute('data-deferred')); }"
)


def charts_as_opened(page) -> list[dict]:
    """Each chart of the page once it has opened: drawn or left for later, where it lies, its reserved height."""
    page.wait_for_function(OPENED, timeout=RENDER_TIMEOUT_MS)
    return page.eval_on_selector_all(
        "[data-spec]",
        """els => els.map(el => ({
        label: el.id.replace(/^chart-/, ''), drawn: el.getAttribute('data-rendered') === 'true',
        deferred: el.hasAttribute('data-deferred'), top: el.getBoundingClientRect().top + scrollY,
        height: el.getBoundingClientRect().height, token: el.getAttribute('data-token-param'),
        drawing: (el.querySelector('.chart-drawing') || el).getBoundingClientRect().height,
        inputs: (JSON.parse(document.getElementById(el.dataset.spec).textContent).signals || [])
                .filter(s => s.bind).map(s => s.name)}))""",
    )


def drawing_height(site: Path, label: str) -> float:
    """The height of the figure's drawing made at build time that a phone shows (its phone's drawing, where it has
    one), as its SVG says (read here, not by the build)."""
    phone = site / "img" / f"figure-{label}.narrow.svg"
    svg = (phone if phone.exists() else site / "img" / f"figure-{label}.svg").read_text(encoding="utf-8")
    return float(re.search(r'<svg[^>]*?\sheight="([0-9.]+)"', svg).group(1))


def far(chart: dict) -> bool:
    """Whether a chart lies clearly more than half a phone's screen below its first screen (see the first test)."""
    return chart["top"] > PHONE["height"] * 1.5 + 200


def the_text_page_with(site: Path, opener, context, wanted) -> tuple:
    """The first text page whose charts, as opened on a phone, satisfy `wanted` (which asks where they lie, not
    whether they are drawn: these tests fail where the page draws too much). Fails where no page does: the pages
    of EXPLORE_CONFIG are laid out so that one does."""
    seen = {}
    for path in sorted(site.glob("text-*.html")):
        visit = opener.open(path.name, context=context, wait_for_charts=False)
        charts = charts_as_opened(visit.page)
        if wanted(charts):
            return visit, charts
        seen[path.name] = [(c["label"], round(c["top"]), c["token"], c["inputs"]) for c in charts]
        opener.done(visit)
    raise AssertionError(
        f"no text page of EXPLORE_CONFIG's site has its charts laid out as {wanted.__name__} asks "
        f"on a 360 x 800 screen; (label, top, token param, inputs) of each page's charts: {seen}"
    )


def test_a_text_page_on_a_phone_draws_the_charts_near_the_screen_and_each_other_one_as_the_reader_comes_near(
    opener, site
):
    def a_chart_far_below(charts):
        return any(far(c) for c in charts)

    context = opener.context(viewport=PHONE)
    visit, charts = the_text_page_with(site, opener, context, a_chart_far_below)
    page = visit.page
    screen = PHONE["height"]
    assert charts[0]["drawn"], f"the first chart is not drawn on opening: {charts}"
    for chart in charts:
        # Half a screen below the first one is near. A chart drawn above moves those below it by the difference
        # between its drawing's height and its own: 200 px either side of the line may go either way.
        if chart["top"] < screen * 1.5 - 200:
            assert chart["drawn"], f"{chart} is near a {screen} px high screen but not drawn"
        if far(chart):
            assert chart["deferred"] and not chart["drawn"], f"{chart} is far below a {screen} px screen but drawn"
        if chart["deferred"]:  # it shows its drawing, in the room the chart will take: nothing below moves much
            assert chart["drawing"] == pytest.approx(drawing_height(site, chart["label"]), abs=1), chart
            assert chart["height"] >= chart["drawing"], chart
    last = charts[-1]
    page.eval_on_selector(f"#chart-{last['label']}", "el => el.scrollIntoView({block: 'start'})")
    page.wait_for_function(
        "id => document.getElementById(id).getAttribute('data-rendered') === 'true'",
        arg=f"chart-{last['label']}",
        timeout=RENDER_TIMEOUT_MS,
    )
    assert page.eval_on_selector(f"#chart-{last['label']}", "el => !el.hasAttribute('data-deferred')")
    assert page.eval_on_selector(f"#chart-{last['label']} svg.marks", "svg => svg.getBBox().height") > 0
    visit.assert_clean()


def test_a_chart_not_drawn_yet_opens_on_the_token_chosen_in_another_figure_of_its_text(opener, site):
    def linked_drawn_and_deferred(charts):
        return any(not far(c) and c["token"] for c in charts[:1]) and any(far(c) and c["token"] for c in charts)

    visit, charts = the_text_page_with(site, opener, opener.context(viewport=PHONE), linked_drawn_and_deferred)
    page = visit.page
    source = charts[0]
    later = next(c for c in charts if far(c) and c["token"])
    assert source["drawn"] and later["deferred"], charts
    source_param = linked_param(spec_of(page, source["label"]))
    later_param = linked_param(spec_of(page, later["label"]))
    assert (source_param["name"], later_param["name"]) == (source["token"], later["token"])
    current = signal(page, source["label"], source_param["name"])
    value = next(
        v
        for v in reversed(options_of(source_param))
        if v != current and v in options_of(later_param) and v != later_param.get("value")
    )
    set_bound(page, source["label"], source_param, value)
    wait_for_signal(page, source["label"], source_param["name"], value)
    state = address(page)
    assert state.get(f"{later['label']}.{later['token']}") == str(value), state  # a link copied now keeps it
    assert page.eval_on_selector(f"#chart-{later['label']}", "el => el.hasAttribute('data-deferred')")

    page.eval_on_selector(f"#chart-{later['label']}", "el => el.scrollIntoView({block: 'start'})")
    wait_for_signal(page, later["label"], later["token"], value, "when drawn after the choice in " + source["label"])
    visit.assert_clean()


def test_what_a_link_sets_in_a_chart_not_drawn_yet_survives_a_change_in_another_chart(opener, site):
    # An input of a chart left for later other than its token (which follows the token chosen in the others), and
    # a chart drawn on opening with an input.
    def with_inputs_drawn_and_deferred(charts):
        return any(far(c) and set(c["inputs"]) - {c["token"]} for c in charts) and any(
            c["inputs"] and c["top"] < PHONE["height"] for c in charts
        )

    context = opener.context(viewport=PHONE)
    visit, charts = the_text_page_with(site, opener, context, with_inputs_drawn_and_deferred)
    page = visit.page
    later, param = next(
        (c, p) for c in charts if far(c) for p in bound_params(spec_of(page, c["label"])) if p["name"] != c["token"]
    )
    drawn = next(c for c in charts if c["inputs"] and c["top"] < PHONE["height"])
    assert drawn["drawn"] and later["deferred"], charts
    value = next(v for v in reversed(options_of(param)) if v != param.get("value"))
    url = page.url.split("#")[0]
    opener.done(visit)

    visit = opener.open(f"{url}#{later['label']}.{param['name']}={value}", context=context, wait_for_charts=False)
    page = visit.page
    charts_as_opened(page)
    mine = bound_params(spec_of(page, drawn["label"]))[0]
    other = next(v for v in options_of(mine) if v != signal(page, drawn["label"], mine["name"]))
    set_bound(page, drawn["label"], mine, other)
    wait_for_signal(page, drawn["label"], mine["name"], other)
    state = address(page)
    assert state.get(f"{later['label']}.{param['name']}") == str(value), state
    page.eval_on_selector(f"#chart-{later['label']}", "el => el.scrollIntoView({block: 'start'})")
    wait_for_signal(page, later["label"], param["name"], value, "as the link set it")
    visit.assert_clean()


# ---------------------------------------------------------------------------------------------- downloads


def save_from_menu(page, label: str, action: str) -> tuple[str, bytes]:
    """Opens the chart's actions menu, clicks `action` ("Save as SVG"...) and returns the download."""
    summary = page.locator(f"#chart-{label} details > summary")
    assert summary.count() == 1, f"chart-{label} has no actions menu"
    assert summary.get_attribute("aria-label") == "Save the chart as SVG or PNG"
    if not page.eval_on_selector(f"#chart-{label} details", "d => d.open"):
        summary.click()
    link = page.locator(f"#chart-{label} details a", has_text=action)
    assert link.count() == 1, f"chart-{label}: the menu has no {action!r}"
    # vega-embed draws the image on mousedown and sets the link's href when it is ready; a reader's click follows.
    link.dispatch_event("mousedown")
    page.wait_for_function(
        "el => el.getAttribute('href') && el.getAttribute('href') !== '#'",
        arg=link.element_handle(),
        timeout=CHANGE_TIMEOUT_MS,
    )
    with page.expect_download(timeout=CHANGE_TIMEOUT_MS) as info:
        link.click()
    download = info.value
    assert download.failure() is None, download.failure()
    return download.suggested_filename, Path(download.path()).read_bytes()


@pytest.mark.parametrize("label", CHAPTER_LABELS)
def test_every_figure_page_offers_its_data_as_json_and_csv_and_its_chart_as_svg_and_png(open_once, chapter_site, label):
    site = chapter_site
    visit = open_once(f"figure-{label}.html")
    page = visit.page
    hrefs = page.eval_on_selector_all("p.downloads a[href]", "links => links.map(a => a.getAttribute('href'))")
    json_href, spec_href = f"downloads/figure-{label}.json", f"downloads/figure-{label}.vega-lite.json"
    assert json_href in hrefs, f"no link to {json_href}: {hrefs}"
    assert spec_href in hrefs, f"no link to the chart's Vega-Lite spec {spec_href}: {hrefs}"
    assert "$schema" in json.loads((site / spec_href).read_text(encoding="utf-8"))
    csv_hrefs = [h for h in hrefs if h not in (json_href, spec_href)]
    assert csv_hrefs, f"figure-{label}.html links no CSV: {hrefs}"
    data = json.loads((site / json_href).read_text(encoding="utf-8"))
    assert isinstance(data.get("tables"), dict) and data["tables"], f"{json_href} holds no tables"
    for href in csv_hrefs:
        match = re.fullmatch(rf"downloads/figure-{re.escape(label)}-(.+)\.csv", href)
        assert match, f"unexpected download link {href}"
        assert match.group(1) in data["tables"], f"{href}: no table {match.group(1)!r} in {json_href}"
        path = site / href
        assert path.is_file(), f"{href} does not resolve"
        rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
        assert len(rows) >= 2, f"{href}: {len(rows)} rows; a header and at least one data row expected"
        assert all(rows[0]) and len(set(rows[0])) == len(rows[0]), f"{href}: bad header {rows[0]}"
        assert all(len(row) == len(rows[0]) for row in rows[1:]), f"{href}: rows of another width than the header"
    assert page.locator("p.downloads a[download]").count() == len(hrefs), "a download link lacks the download attribute"

    name, content = save_from_menu(page, label, "Save as SVG")
    assert name == f"figure-{label}.svg"
    assert content.lstrip().startswith(b"<svg"), content[:80]
    name, content = save_from_menu(page, label, "Save as PNG")
    assert name == f"figure-{label}.png"
    assert content.startswith(PNG_SIGNATURE), content[:16]
    visit.assert_clean()


# ---------------------------------------------------------------------------------------------- footer


@pytest.mark.parametrize("label", CHAPTER_LABELS)
def test_every_figure_page_footer_names_the_model_and_links_to_the_about_page_with_the_environment_and_the_true_checksums_of_its_data(
    open_once, chapter_site, chapter_run, label
):
    site, run_record = chapter_site, chapter_run
    visit = open_once(f"figure-{label}.html")
    page = visit.page
    footer = " ".join(page.locator("footer.site-footer").inner_text().split())
    model, environment = run_record["model"], run_record["environment"]
    assert f"Computed in one run of {model_names.full_name(model)}." in footer, footer
    if model["revision"]:
        assert model["revision"][:12] in footer, f"the version {model['revision']} is not named: {footer}"
    assert page.locator("footer.site-footer a[href='about.html']").count() == 1, (
        "the footer does not link to about.html"
    )
    visit.assert_clean()

    # The libraries and the checksums: on the About page, which names the figure's data files.
    visit = open_once("about.html")
    page = visit.page
    about = " ".join(page.locator("main").inner_text().split())
    assert model_names.full_name(model, digits=40) in about, about
    for words in [
        f"torch {environment['torch']}",
        f"tokenizers {environment['tokenizers']}",
        f"on {environment['device']}",
        f"in {environment['dtype']}",
    ]:
        assert words in about, f"{words!r} not on the About page: {about}"
    listed = page.eval_on_selector_all(
        "main code.checksum",
        "codes => codes.map(c => { let a = c.previousElementSibling; while (a && a.tagName !== 'A') a = a.previousElementSibling;"
        " return [a ? a.getAttribute('href') : null, c.textContent.trim()]; }).filter(([href]) => href !== null)",
    )
    assert listed, "the About page lists no data file with its SHA-256"
    hrefs = [href for href, _ in listed]
    assert "data/run.json" in hrefs
    for href, checksum in listed:
        assert href and not re.match(r"^[a-z][a-z0-9+.-]*:", href), f"bad data link {href!r}"
        path = site / href
        assert path.is_file(), f"the About page lists {href}, which is not in the site"
        assert checksum == hashlib.sha256(path.read_bytes()).hexdigest(), f"{href}: the About page's SHA-256 is wrong"
    reads = page.locator(f"main li:has(a[href='figure-{label}.html'])").inner_text()
    assert "data/run.json" in reads and all(path in hrefs for path in re.findall(r"data/[^,.\s]+\.[a-z]+", reads)), (
        reads
    )
    visit.assert_clean()


# ---------------------------------------------------------------------------------------------- heads, find-head


def test_the_heads_grid_renders_and_choosing_another_head_changes_the_detail(opener, site):
    label = "heads"
    visit = opener.open(figure_page(site, label))
    page = visit.page
    n_layer, n_head = SMALL_SHAPE["n_layer"], SMALL_SHAPE["n_head"]
    params = {p["name"]: p for p in bound_params(spec_of(page, label))}
    choosers = [params[name] for name in ("head", "layer") if name in params]
    assert choosers, f"heads: no bound param named head or layer: {list(params)}"

    # The grid: one picture, and one square (outline, with its tooltip) per layer and head, averages included.
    picture = page.eval_on_selector_all(
        f"#chart-{label} svg.marks image", "imgs => imgs.map(i => i.getAttribute('href') || '')"
    )
    assert any(href.startswith("data:image/") for href in picture), f"the grid's picture is missing: {picture[:1]}"
    squares = mark_data(page, label, "rect", ["l", "h", "view"])
    assert len(squares) == n_layer * (n_head + 1), f"{len(squares)} squares in the grid"
    assert {(l, h) for l, h, _ in squares} == {(l, h) for l in range(n_layer) for h in range(n_head + 1)}

    def detail():
        cells = mark_data(page, label, "rect", ["q", "k", "s", "said"])
        assert cells, "the detail heatmap draws no cell"
        return cells

    for param in choosers:
        name = param["name"]
        current = signal(page, label, name)
        value = next(v for v in options_of(param) if v != current)
        cells_before, titles_before, before = detail(), title_texts(page, label), chart_svg(page, label)
        set_bound(page, label, param, value)
        wait_for_signal(page, label, name, value)
        wait_for_svg_change(page, label, before)
        page.wait_for_function(
            "([id, before]) => JSON.stringify(Array.from(document.querySelectorAll('#' + id + ' svg.marks .role-title-text'))"
            ".map(n => n.textContent)) !== before",
            arg=[f"chart-{label}", json.dumps(titles_before, separators=(",", ":"))],
            timeout=CHANGE_TIMEOUT_MS,
        )
        assert detail() != cells_before, f"choosing {name} {value} left the detail heatmap as it was"
    visit.assert_clean()


def test_the_find_head_ranking_changes_with_the_pair_of_tokens(opener, site):
    label = "find-head"
    visit = opener.open(figure_page(site, label))
    page = visit.page
    params = {p["name"]: p for p in bound_params(spec_of(page, label))}
    assert "from" in params and "to" in params, f"find-head: no bound from and to: {list(params)}"

    def ranking():
        bars = sorted(mark_data(page, label, "rect", ["rank", "name", "s"]))
        assert bars, "find-head draws no bar"
        assert [bar[0] for bar in bars] == list(range(1, len(bars) + 1)), bars
        assert [bar[2] for bar in bars] == sorted((bar[2] for bar in bars), reverse=True), f"not ranked: {bars}"
        return bars

    start = ranking()
    looking, looked_at = signal(page, label, "from"), signal(page, label, "to")
    value = next(v for v in options_of(params["to"]) if v <= looking and v != looked_at)
    before = chart_svg(page, label)
    set_bound(page, label, params["to"], value)
    wait_for_signal(page, label, "to", value)
    wait_for_svg_change(page, label, before)
    assert ranking() != start, f"the ranking from token {looking} back to {value} equals the one back to {looked_at}"
    visit.assert_clean()
