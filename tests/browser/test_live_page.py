"""The reader's own sentence on a figure's page (`python build.py --live`) in Chromium: GPT-2 run in the page.

A site is built with --live over conftest's small seeded model (3 layers, 4 heads, GPT-2's vocabulary), from a
config whose text is none of the chapter's, and served from 127.0.0.1 (import() and fetch() do not work from
file://); every request that is not to that server is refused and recorded, and none may be made. Each figure the
model can compute ((l), every head, (i), the lens, which head, two texts compared, the knockout) offers "Try your own
sentence" under its title; its page fetches nothing more until the reader opens it. The page loads the model, reads the same text, and what it draws and offers
for download must be the build's own numbers for that text: every share and probability within 1e-5, the top 10
the same (ties aside), the ranks the same (within 1 past rank 100), drawn in the book's figure's place. Two texts
compared give the build's distances (the zeros exactly), and the knockout's runs the build's chances and ranks. Then: the
row of tokens chooses the chart's token and the chart the row's; "Back to the book's sentence" shows the book's
figure; another text draws another chart; a hostile text is drawn as text; a text too long, empty or only spaces
is refused in one sentence and not written into the address; a reload loads the model from Cache Storage, not from
the server, and its button says the model is kept; from file:// the panel says in one line how to serve the page;
live.html is an index of these figures that hands a text on to them.

The tests of this module share one page, in the order written (one model download for all; each figure's page
then starts the model from Cache Storage).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from urllib.parse import quote

import pytest

from conftest import built
from sitegen.site import live_assets

from tests.support.hosting import serve

from .browsing import playwright_or_skip

pytest.importorskip("onnx", reason="the live page's model is exported with onnx (pip install onnx)")
pytest.importorskip("onnxruntime", reason="the live export is checked with onnxruntime (pip install onnxruntime)")
pytest.importorskip("onnxscript", reason="torch's ONNX exporter needs onnxscript (pip install onnxscript)")

TEXT = "Der Hund bellte laut, weil er hungrig war."
OTHER_TEXT = "Die Katze schlief, denn sie war müde."
TARGET = " dog"
TEXT_B = "Der Hund bellte laut, weil er müde war."  # TEXT's beginning, then another word
CHANGED = "Der Hund bellte leise, weil er hungrig war."  # TEXT with a word changed, as many tokens long
VERSUS = " cat"
HOSTILE = '<script>alert(1)</script> "><img src=x onerror=alert(2)> \u202e'
CONFIG = f'''\
[[figure]]
kind = "attention"
label = "l"
text = "{TEXT}"
views = [[2, 3]]

[[figure]]
kind = "heads"
label = "every-head"
text = "{TEXT}"

[[figure]]
kind = "find-head"
label = "which-head"
text = "{TEXT}"

[[figure]]
kind = "readout"
label = "i"
text = "{TEXT}"
target = "{TARGET}"

[[figure]]
kind = "lens"
label = "lens"
text = "{TEXT}"
track = "{TARGET}"

[[figure]]
kind = "knockout"
label = "take-out"
text = "{TEXT}"
target = "{TARGET}"
heads_of = 2

[[figure]]
kind = "compare"
label = "two-texts"
texts = ["{TEXT}", "{TEXT_B}"]

[[figure]]
kind = "patching"
label = "put-back"
clean = "{TEXT}"
corrupted = "{CHANGED}"
target = "{TARGET}"
versus = "{VERSUS}"
'''
TOLERANCE = 1e-5  # a share or a probability: float32 in WebAssembly against float32 in torch
TIE = 1e-6  # top-10 probabilities this close may come in either order
PAGES = {
    "attention": "l",
    "heads": "every-head",
    "readout": "i",
    "lens": "lens",
    "find-head": "which-head",
    "compare": "two-texts",
    "knockout": "take-out",
    "patching": "put-back",
}
LIVE_SCRIPTS = ("live/tokenizer.js", "live/tokenize.js", "live/ort/ort.wasm.min.js")  # loaded when the reader asks
MODEL_PATH = "/live/model/"  # under the site's sub-path (server)
TIMEOUT_MS = 60_000
STILL = " The figure below is still for your last text."
KEPT = "Start the model (already kept in this browser)"  # the small model of a folder: "the model"


@pytest.fixture(scope="module")
def site(small_model_dir, tmp_path_factory) -> Path:
    """The small model's site with the live page."""
    missing = live_assets.problems()
    if missing:
        pytest.skip(f"the live page's libraries are not installed ({'; '.join(missing)}): run ./setup.sh --live")
    return built(small_model_dir, CONFIG, tmp_path_factory.mktemp("live-page"), "--live")


@pytest.fixture(scope="module")
def server(site):
    """(the site's address on 127.0.0.1, the list of paths asked of it). The site is served under a sub-path (its
    parent folder is the server's root), as a static host may put it."""
    with serve(site.parent) as host:
        yield f"{host.url}{site.name}/", host.asked


class Watched:
    """A page of a context of its own (its own Cache Storage), every request off 127.0.0.1 refused and recorded,
    with its console errors, page errors and dialogs."""

    def __init__(self, browser, base: str, **options):
        self.base = base
        self.refused, self.errors, self.dialogs = [], [], []
        self.context = browser.browser.new_context(**{"viewport": {"width": 1100, "height": 900}, **options})
        self.context.route("**/*", self.route)
        self.page = self.context.new_page()
        self.page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("dialog", self.on_dialog)

    def route(self, route):
        url = route.request.url
        if url.startswith(self.base) or (self.base.startswith("file:") and url.startswith("file:")):
            route.continue_()
        else:
            self.refused.append(url)
            route.abort()

    def on_dialog(self, dialog):
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def close(self):
        self.context.close()


@pytest.fixture(scope="module")
def watched(browser, server):
    playwright_or_skip()
    held = Watched(browser, server[0])
    yield held
    held.close()


def state(page) -> str:
    return page.evaluate("window.liveFigures.state")


def signal(page, key: str, name: str):
    """The value of the signal `name` in the live chart `key`."""
    return page.evaluate(
        "([key, name]) => document.getElementById('live-chart-' + key).vegaView.signal(name)", [key, name]
    )


TOKEN_PARAM = {"lens": "position", "find-head": "from"}  # the param the row chooses, where it is no "token"


def chosen(page, key: str) -> int:
    """The token the chart `key` looks from (the lens: its position), from 1."""
    return signal(page, key, TOKEN_PARAM.get(key, "token"))


def wait_for_token(page, key: str, token: int) -> None:
    """Waits until the chart `key` looks from `token` and the row of tokens shows it chosen."""
    param = TOKEN_PARAM.get(key, "token")
    page.wait_for_function(
        "([key, param, token]) => { const el = document.getElementById('live-chart-' + key);"
        " const row = document.querySelector('#live-tokens .token[aria-checked=\"true\"]');"
        " return el.vegaView && el.vegaView.signal(param) === token && row && row.dataset.token === String(token); }",
        arg=[key, param, token],
        timeout=TIMEOUT_MS,
    )


def visit(page, base: str, key: str, address: str = "#try-own") -> None:
    """Opens the page of the figure of kind `key` at `address` (#try-own opens "Try your own sentence"; #text=...
    too), and waits until its form is ready (the tokenizer and the runtime loaded, Cache Storage asked)."""
    page.goto("about:blank")  # a fresh page, even where only the address's '#' part differs
    page.goto(f"{base}figure-{PAGES[key]}.html{address}")
    page.wait_for_function(
        "() => window.liveTokens && window.ort && window.liveFigures && window.liveFigures.kept !== null"
        " && !document.getElementById('live-load-button').disabled",
        timeout=TIMEOUT_MS,
    )


def start_model(page) -> None:
    """Starts the model (kept in Cache Storage by the first test's download) and waits for its chart."""
    page.click("#live-load-button")
    wait_for_state(page, "drawn", "error")
    assert state(page) == "drawn", page.text_content("#live-message")


def wait_for_state(page, *states: str) -> None:
    page.wait_for_function("states => states.includes(window.liveFigures.state)", arg=list(states), timeout=TIMEOUT_MS)


def type_and_run(page, text: str) -> float:
    """Types `text` in the box and presses Enter; waits until its charts are drawn (or it is refused); returns
    the seconds from Enter to then."""
    page.fill("#live-text", text)
    before = page.evaluate("window.liveFigures.result && window.liveFigures.result.text")
    start = time.monotonic()
    page.press("#live-text", "Enter")
    page.wait_for_function(
        "([text, before]) => { const live = window.liveFigures;"
        " return live.state === 'refused' || live.state === 'error' ||"
        " (live.state === 'drawn' && live.result && live.result.text === text &&"
        "  document.querySelectorAll('[data-live-chart][data-rendered=\"true\"]').length ==="
        "  document.querySelectorAll('[data-live-chart]').length); }",
        arg=[text, before],
        timeout=TIMEOUT_MS,
    )
    return time.monotonic() - start


def downloaded_json(page) -> dict:
    with page.expect_download() as download:
        page.click("#live-download-json")
    return json.loads(Path(download.value.path()).read_text(encoding="utf-8"))


def build_data(site: Path, text: str) -> tuple[dict, dict]:
    """The build's data file of `text` and its lens entry of data/run.json."""
    record = json.loads((site / "data" / "run.json").read_text(encoding="utf-8"))
    entry = next(e for e in record["texts"] if e["text"] == text)
    return json.loads((site / entry["data"]).read_text(encoding="utf-8")), entry["lens"]


def assert_same_top(page_top: list, build_top: list, where: str) -> None:
    """The top 10 the same: ids rank by rank, except among probabilities within TIE of each other (a tie, in
    either order; at the end of the list, cut off either way); probabilities within TOLERANCE."""
    ids, build_ids = [t["id"] for t in page_top], [t[0] for t in build_top]
    probabilities, build_probabilities = [t["p"] for t in page_top], [t[1] for t in build_top]
    for rank, (p, q) in enumerate(zip(probabilities, build_probabilities)):
        assert abs(p - q) <= TOLERANCE, f"{where} rank {rank + 1}: probability {p} against the build's {q}"
    groups, start = [], 0
    for i in range(1, len(build_top) + 1):
        if i == len(build_top) or build_probabilities[i - 1] - build_probabilities[i] > TIE:
            groups.append((start, i))
            start = i
    for first, end in groups:
        if end == len(build_top) and end - first > 1:
            continue  # a tie at the end: which of the tied tokens made the list may differ
        assert sorted(ids[first:end]) == sorted(build_ids[first:end]), f"{where}: top 10 {ids} against {build_ids}"


def assert_same_rank(rank: int, build_rank: int, where: str) -> None:
    assert rank == build_rank or (build_rank > 100 and abs(rank - build_rank) <= 1), (
        f"{where}: rank {rank} against the build's {build_rank}"
    )


def said(model: dict) -> str:
    """A set of weights' download as the page says it: "495 MB", "1.2 MB"."""
    megabytes = model["bytes"] / 1e6
    return f"{megabytes:.0f} MB" if megabytes >= 10 else f"{megabytes:.1f} MB"


def test_nothing_downloads_before_the_reader_asks_and_the_button_says_how_much(watched, server, site):
    base, asked = server
    page = watched.page
    page.set_viewport_size({"width": 375, "height": 800})  # a phone: the button's words say it before anything starts
    before = len(asked)
    page.goto(base + "figure-l.html")
    page.wait_for_function("() => window.liveFigures && window.liveFigures.state === 'idle'")
    # "Try your own sentence" is in the first screen, closed: a reader of the book's figure fetches nothing more
    # than the page's own script until they open it.
    summary = page.locator("#try-own > summary")
    assert summary.is_visible() and summary.bounding_box()["y"] + summary.bounding_box()["height"] <= 800
    assert not page.is_visible("#live-text") and page.is_visible("#chart-l") and not page.is_visible("#own-figure")
    page.wait_for_timeout(300)
    assert not any(path.endswith(LIVE_SCRIPTS) for path in asked[before:]), asked[before:]
    summary.click()
    page.wait_for_function(
        "() => window.liveTokens && window.ort && window.liveFigures.kept !== null", timeout=TIMEOUT_MS
    )  # the scripts loaded, Cache Storage asked
    assert all(any(path.endswith(script) for path in asked[before:]) for script in LIVE_SCRIPTS)
    config = json.loads(page.text_content("#live-config"))
    assert list(config["charts"]) == ["attention", "narrow-attention"]  # the page's own kind only
    assert page.evaluate("window.liveFigures.kept") is False
    # A phone chooses the light weights at first; the reader can choose the exact ones. The small model of a folder
    # is "the model" (figures/toolkit/model_names.py): never called GPT-2.
    assert page.is_checked("#live-weights-light") and not page.is_checked("#live-weights-exact")
    assert page.text_content("#live-load-button") == f"Load the model in this page: {said(config['light'])}, once"
    assert config["light"]["bytes"] * 4 <= config["model"]["bytes"]
    page.check("#live-weights-exact")
    assert page.text_content("#live-load-button") == f"Load the model in this page: {said(config['model'])}, once"
    assert page.evaluate("window.liveFigures.weights") == "exact"
    assert page.is_visible("#live-load-button") and not page.is_visible("#live-run")  # one button until it loads
    assert not any(MODEL_PATH in path for path in asked), asked
    # The box opens on the figure's own text; an attention figure follows no token, so its box is not shown.
    assert page.input_value("#live-text") == TEXT and page.input_value("#live-target") == TARGET
    assert not page.is_visible("#live-target")
    # The chart for the reader's text has its one line of how to use it, as the book's figure does.
    guides = page.eval_on_selector_all("#own-figure .guide", "ps => ps.map(p => p.textContent)")
    assert len(guides) == 1 and all("tap" in guide and "\n" not in guide for guide in guides)
    page.set_viewport_size({"width": 1100, "height": 900})


def test_before_the_model_loads_the_text_box_counts_its_tokens(watched):
    page = watched.page
    n = page.evaluate("text => window.liveTokens.encode(text).length", TEXT)
    assert page.is_visible("#live-count") and page.text_content("#live-count") == f"{n} of 64 tokens"
    page.fill("#live-text", "a" + " a" * 70)
    page.wait_for_function("() => document.getElementById('live-count').textContent === '71 of 64 tokens: 7 too many'")
    page.fill("#live-text", "")
    page.wait_for_function("() => document.getElementById('live-count').textContent === '0 of 64 tokens'")
    page.press("#live-text", "Enter")  # refused: the address keeps no empty text
    assert state(page) == "refused" and "#text=" not in page.url
    page.fill("#live-text", TEXT)


def test_the_page_draws_the_builds_numbers_for_the_same_text(watched, server, site):
    base, asked = server
    page = watched.page
    start = time.monotonic()
    page.click("#live-load-button")
    page.wait_for_function(
        "() => window.liveFigures.state === 'drawn' || window.liveFigures.state === 'error'", timeout=TIMEOUT_MS
    )
    assert state(page) == "drawn", page.text_content("#live-message")
    assert page.is_visible("#live-run") and not page.is_visible("#live-load-button")
    print(
        f"\nlive page: model downloaded and first text drawn in {time.monotonic() - start:.2f} s "
        f"(load {page.evaluate('window.liveFigures.timings.loadMs'):.0f} ms)"
    )
    files = json.loads(page.text_content("#live-config"))["model"]["files"]
    assert sorted(p for p in asked if MODEL_PATH in p) == sorted(f"/{site.name}/{f['path']}" for f in files)
    assert page.evaluate("ort.env.wasm.numThreads") == 1  # not cross-origin isolated: one thread
    assert page.evaluate("window.liveFigures.result.text") == TEXT
    # Drawn in the book's figure's place: the book's chart steps aside, with what belongs to the book's text.
    assert page.is_visible("#own-figure") and page.is_visible("#live-chart-attention")
    assert not page.is_visible("#chart-l") and not page.is_visible(".text-figure")
    assert page.is_visible("#own-key-l") and page.text_content("#own-key-l") == page.text_content(
        "#key-l"
    )  # the same words

    data, lens = build_data(site, TEXT)
    got = downloaded_json(page)
    assert got["text"] == TEXT
    assert got["tokens"] == [{"id": t["id"], "text": t["text"]} for t in data["tokens"]]
    n = len(data["tokens"])
    for l, layer in enumerate(data["attention"]):
        for h, head in enumerate(layer):
            for q, row in enumerate(head):
                page_row = got["attention"][l][h][q]
                assert len(page_row) == q + 1
                worst = max(abs(a - b) for a, b in zip(page_row, row))
                assert worst <= TOLERANCE, f"layer {l + 1}, head {h + 1}, token {q + 1}: shares differ by {worst}"
    for stage, positions in enumerate(data["readout"]):
        for q, cell in enumerate(positions):
            assert_same_top(got["top"][stage][q], cell["top"], f"stage {stage}, token {q + 1}")
    target = next(f for f in got["followed"] if "readout" in f["figures"])
    assert target["id"] == data["target"]["id"] and target["text"] == TARGET
    k = lens["tokens"].index(target["id"])
    for stage in range(len(data["readout"])):
        for q in range(n):
            assert abs(target["p"][stage][q] - data["target"]["p"][stage][q]) <= TOLERANCE, (stage, q)
            assert abs(target["p"][stage][q] - lens["p"][stage][q][k]) <= TOLERANCE, (stage, q)
            assert_same_rank(target["rank"][stage][q], lens["rank"][stage][q][k], f"stage {stage}, token {q + 1}")

    # What was drawn is those numbers: the figures' datasets as figsite/data/live_data.py declares them.
    drawn = page.evaluate("window.liveFigures.drawn")
    names = [t["text"].replace(" ", "_", 1) if t["text"].startswith(" ") else t["text"] for t in data["tokens"]]
    assert list(drawn) == ["attention"] and drawn["attention"]["names"] == names
    tokens = page.eval_on_selector_all("#live-tokens .token", "ts => ts.map(t => t.textContent)")
    assert tokens == names  # the row of tokens above the chart
    panels = drawn["attention"]["datasets"]["panels"]
    n_layer, n_head = len(data["attention"]), len(data["attention"][0])
    assert len(panels) == n_layer * (n_head + 1) + 1 and panels[-1]["l"] == n_layer and panels[-1]["h"] == n_head
    view = next(p for p in panels if p["l"] == 1 and p["h"] == 2)  # layer 2, head 3: the config's view
    expected = [round(s * 10_000) for row in data["attention"][1][2] for s in row]
    assert max(abs(a - b) for a, b in zip(view["u"], expected)) <= 1
    assert watched.refused == [] and watched.dialogs == []
    assert watched.errors == []


def test_the_lens_follows_another_token_chosen_beside_it(watched, server, site):
    page = watched.page
    visit(page, server[0], "lens")
    assert page.input_value("#live-text") == TEXT and page.is_visible("#live-target")
    assert page.text_content("#live-load-button") == KEPT
    start_model(page)
    assert page.evaluate("window.liveFigures.loadedFrom") == "cache"
    data, lens = build_data(site, TEXT)
    n, n_layer = len(data["tokens"]), len(data["attention"])
    top = page.evaluate("window.liveFigures.drawn.lens.datasets.top")
    assert len(top) == (n_layer + 1) * n * 10 and [r["rank"] for r in top[:10]] == list(range(1, 11))
    # The chance axis's switch, as on the book's lens: 0 to 100%, or zoomed in.
    assert page.is_visible("#live-chart-lens .vega-bindings input[name='chance_scale'][value='whole']")
    options = page.eval_on_selector_all("#live-follow-select option", "os => os.map(o => Number(o.value))")
    other = next((i for i in options[1:] if i in lens["tokens"]), None)
    assert other is not None, f"none of the chosen cell's top 10 {options} is followed by the build's lens"
    page.select_option("#live-follow-select", str(other))
    page.wait_for_function(
        "id => window.liveFigures.drawn.lens.followed === id && window.liveFigures.state === 'drawn'",
        arg=other,
        timeout=TIMEOUT_MS,
    )
    name = page.evaluate("document.getElementById('live-chart-lens').vegaView.signal('follow_name')")
    assert name == page.evaluate("id => window.liveTokens.tokenText(id)", other).replace(" ", "_", 1)
    got = downloaded_json(page)
    followed = next(f for f in got["followed"] if "lens" in f["figures"])
    k = lens["tokens"].index(other)
    for stage, positions in enumerate(followed["p"]):
        for q, p in enumerate(positions):
            assert abs(p - lens["p"][stage][q][k]) <= TOLERANCE, (stage, q)
            assert_same_rank(followed["rank"][stage][q], lens["rank"][stage][q][k], f"stage {stage}, token {q + 1}")

    # A click on a bar of the chosen cell's top 10 follows that token.
    marks = page.evaluate("document.getElementById('live-chart-lens').topMarks")
    assert marks, "the lens's top 10 has no marks a click follows"
    cell = page.evaluate(
        "() => { const v = document.getElementById('live-chart-lens').vegaView;"
        " return [v.signal('stage'), v.signal('position') - 1]; }"
    )
    top = [t["id"] for t in got["top"][cell[0]][cell[1]]]
    bars = page.locator(f"#live-chart-lens g.{marks[0]} path")
    assert bars.count() == 10
    bars.nth(3).click()
    page.wait_for_function(
        "other => window.liveFigures.drawn.lens.followed !== other && window.liveFigures.state === 'drawn'",
        arg=other,
        timeout=TIMEOUT_MS,
    )
    assert page.evaluate("window.liveFigures.drawn.lens.followed") in top


def test_another_target_is_followed_in_the_readout(watched, server):
    page = watched.page
    visit(page, server[0], "readout")
    # A word typed without its space is the word after another word, and the page says so.
    for typed, words in [
        ("dog", "Following _dog (with the space before it, as a word after another word)."),
        ("ness", "Following ness (the token without a space before it)."),  # ' ness' is 2 tokens
        ("_dog", ""),
        (TARGET, ""),
    ]:
        page.fill("#live-target", typed)
        assert page.text_content("#live-target-said") == words, typed
    start_model(page)
    assert page.evaluate("window.liveFigures.drawn.readout.follow_name") == "_dog"
    # The top 3 as the book's (i) draws them, and its switch of the chance axis.
    bars = page.locator("#live-chart-readout svg path[aria-roledescription='bar']")
    assert bars.count() in (3, 4)  # the followed token's below them where it is not among them
    assert page.is_visible("#live-chart-readout .vega-bindings input[name='chance_scale'][value='zoom']")
    page.fill("#live-target", "_cat")  # '_' for the space, as the pages write tokens
    type_and_run(page, TEXT)
    page.wait_for_function("() => window.liveFigures.drawn.readout.follow_name === '_cat'", timeout=TIMEOUT_MS)
    assert page.evaluate("window.liveFigures.drawn.readout.followed") == 3797  # ' cat'
    assert page.evaluate("document.getElementById('live-chart-readout').vegaView.signal('follow_name')") == "_cat"
    # The key above names the token the reader's figure follows, where the book's names its own.
    assert "and _cat in purple" in page.text_content("#own-key-i") and page.is_visible("#own-key-i")
    assert not page.is_visible("#key-i")
    page.fill("#live-target", TARGET)


def test_a_word_typed_without_its_space_follows_the_word_with_it_and_a_piece_of_one_follows_the_piece(watched):
    page = watched.page
    for typed, followed, name in [("dog", 3290, "_dog"), ("ness", 1108, "ness")]:  # ' dog'; 'ness' (' ness': 2)
        page.fill("#live-target", typed)
        type_and_run(page, TEXT)
        page.wait_for_function(
            "id => window.liveFigures.state === 'drawn' && window.liveFigures.drawn.readout.followed === id",
            arg=followed,
            timeout=TIMEOUT_MS,
        )
        assert signal(page, "readout", "follow_name") == name
        assert page.text_content("#live-target-said").startswith(f"Following {name} (")
    page.fill("#live-target", TARGET)
    type_and_run(page, TEXT)


def test_the_csv_downloads_hold_every_share_the_top_10_and_the_followed_tokens(watched, server):
    """Each figure offers the numbers it reads: the read-out's page the top 10 and the followed tokens, an attention
    figure's every share."""
    import csv
    import io

    page = watched.page
    n = len(page.evaluate("window.liveFigures.result.ids"))
    config = json.loads(page.text_content("#live-config"))["model"]
    layers, heads = config["n_layer"], config["n_head"]
    tables = {}

    def table(name: str) -> list:
        with page.expect_download() as download:
            page.click(f"#live-download-{name}")
        return list(csv.DictReader(io.StringIO(Path(download.value.path()).read_text(encoding="utf-8"))))

    assert page.locator("#live-download-shares").count() == 0  # the read-out reads no share
    tables["top"], tables["followed"] = table("top"), table("followed")
    visit(page, server[0], "attention")
    start_model(page)
    assert page.locator("#live-download-top, #live-download-followed").count() == 0
    tables["shares"] = table("shares")
    assert len(tables["shares"]) == layers * heads * n * (n + 1) // 2
    assert len(tables["top"]) == (layers + 1) * n * 10
    assert len(tables["followed"]) == (layers + 1) * n * len(page.evaluate("window.liveFigures.result.followed"))
    got = downloaded_json(page)
    first = tables["shares"][0]
    assert float(first["share"]) == got["attention"][0][0][0][0] and first["token"] == page.evaluate(
        "window.liveFigures.result.names[0]"
    )


def test_the_row_of_tokens_chooses_the_charts_token_and_the_chart_the_rows_and_the_address_keeps_it(watched, server):
    page = watched.page
    visit(page, server[0], "attention")
    start_model(page)
    n = len(page.evaluate("window.liveFigures.result.ids"))
    wait_for_token(page, "attention", n)  # it opens on the last token, as the book's figure does
    page.click("#live-tokens .token[data-token='3']")
    wait_for_token(page, "attention", 3)
    assert page.url.endswith("&token=3")
    # The tokens after the chosen one are out of its reach, shaded and named so, as in the book's row.
    beyond = page.eval_on_selector_all("#live-tokens .token[data-out-of-reach]", "ts => ts.map(t => t.dataset.token)")
    assert beyond == [str(k) for k in range(4, n + 1)]
    page.locator("#live-chart-attention svg path[aria-roledescription='bar']").nth(0).click()  # token 1's bar
    wait_for_token(page, "attention", 1)
    page.focus("#live-tokens .token[data-token='1']")
    page.keyboard.press("ArrowRight")
    wait_for_token(page, "attention", 2)
    assert page.evaluate("document.activeElement.dataset.token") == "2"
    assert page.url.endswith("&token=2") and state(page) == "drawn"
    # Every head's page: its row chooses the token its bars look from.
    visit(page, server[0], "heads")
    start_model(page)
    page.click("#live-tokens .token[data-token='4']")
    wait_for_token(page, "heads", 4)
    assert watched.errors == []


def test_which_head_links_two_words_ranks_every_head_by_the_builds_share_and_the_row_chooses_the_token_that_looks(
    watched, server, site
):
    page = watched.page
    visit(page, server[0], "find-head")
    start_model(page)
    data, _ = build_data(site, TEXT)
    attention, n = data["attention"], len(data["tokens"])

    def ranked(f: int, t: int) -> list:
        """The build's heads from token f back to token t (from 1), largest share first (ties: layer, head)."""
        shares = [
            (-attention[l][h][f - 1][t - 1], l, h) for l in range(len(attention)) for h in range(len(attention[0]))
        ]
        return [f"layer {l + 1}, head {h + 1}" for _, l, h in sorted(shares)[:10]]

    def drawn() -> list:
        return page.eval_on_selector_all(
            "#live-chart-find-head svg g[aria-roledescription='axis'] text",
            "ts => ts.filter(t => t.textContent.startsWith('layer ')).map(t => [t.getBoundingClientRect().top,"
            " t.textContent]).sort((a, b) => a[0] - b[0]).map(pair => pair[1])",  # top to bottom, as drawn
        )

    # It opens as the book's figure does by default: from the last token back to the first.
    assert (signal(page, "find-head", "from"), signal(page, "find-head", "to")) == (n, 1)
    assert drawn() == ranked(n, 1)
    page.click("#live-tokens .token[data-token='4']")
    wait_for_token(page, "find-head", 4)
    page.select_option("#live-chart-find-head .vega-bindings select[name='to']", "2")
    page.wait_for_function("() => document.getElementById('live-chart-find-head').vegaView.signal('to') === 2")
    page.wait_for_timeout(200)
    assert drawn() == ranked(4, 2)
    assert watched.errors == []


def test_every_head_is_drawn_as_the_books_small_picture_of_who_looks_at_whom(watched, server, site):
    """Each head's picture, made in the page, holds the build's shares for the same text in the colours the book's
    grid gives them (figures/picture.py viridis, in 254 levels), the cells out of reach grey; on a dark page black."""
    import base64
    import io

    from PIL import Image

    from figures.heads_grid import LEVELS
    from figures.picture import viridis
    from figures.toolkit.colours import MASKED, MASKED_IN_DARK

    page = watched.page
    visit(page, server[0], "heads")
    start_model(page)
    data, _ = build_data(site, TEXT)
    attention, n = data["attention"], len(data["tokens"])
    n_layer, n_head = len(attention), len(attention[0])

    def pixels(url: str) -> list:
        assert url.startswith("data:image/png;base64,")
        image = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB")
        assert image.size == (n, n)
        raw = image.tobytes()
        return [tuple(raw[i : i + 3]) for i in range(0, len(raw), 3)]

    def expected(l: int, h: int, masked: str) -> list:
        rows = (
            attention[l][h]
            if h < n_head
            else [[sum(attention[l][g][q][k] for g in range(n_head)) / n_head for k in range(q + 1)] for q in range(n)]
        )
        grey = tuple(int(masked[i : i + 2], 16) for i in (1, 3, 5))
        return [
            viridis(round(rows[q][k] * (LEVELS - 1)) / (LEVELS - 1)) if k <= q else grey
            for q in range(n)
            for k in range(n)
        ]

    def worst(masked: str) -> int:
        pictures = signal(page, "heads", "head_pictures")
        assert len(pictures) == n_layer * (n_head + 1)  # every head and each layer's average
        return max(
            abs(a - b)
            for l in range(n_layer)
            for h in range(n_head + 1)
            for got, want in zip(pixels(pictures[l * (n_head + 1) + h]), expected(l, h, masked))
            for a, b in zip(got, want)
        )

    # A share in the page is kept to 1e-4 and a level is 1/253: a cell may be one level off, a few units of colour.
    assert worst(MASKED) <= 4
    images = page.eval_on_selector_all("#live-chart-heads svg image", "is => is.length")
    assert images == n_layer * (n_head + 1)
    page.emulate_media(color_scheme="dark")
    try:
        page.wait_for_function(
            "() => { const v = document.getElementById('live-chart-heads').vegaView;"
            " return v && v.signal('picture_palette').masked === '#000000'; }",
            timeout=TIMEOUT_MS,
        )
        assert worst(MASKED_IN_DARK) <= 4
    finally:
        page.emulate_media(color_scheme="light")


def test_back_to_the_books_sentence_shows_the_books_figure_and_its_address(watched, server):
    page = watched.page
    visit(page, server[0], "attention", "#text=" + quote(OTHER_TEXT, safe=""))
    assert page.evaluate("document.getElementById('try-own').open")  # the address opened it
    start_model(page)
    assert page.is_visible("#own-figure") and not page.is_visible("#chart-l")
    # The two charts' inputs are their own: a view chosen in one leaves the other's as it was.
    checked = "el => el.querySelectorAll('input[type=radio]:checked').length"
    assert page.eval_on_selector("#chart-l", checked) == 1 == page.eval_on_selector("#live-chart-attention", checked)
    page.locator("#live-chart-attention input[type=radio]").nth(1).check()
    assert page.eval_on_selector("#chart-l", checked) == 1
    page.click("#own-back")
    assert page.eval_on_selector("#chart-l", checked) == 1
    assert page.is_visible("#chart-l") and page.is_visible(".text-figure") and not page.is_visible("#own-figure")
    assert page.text_content("#live-message").startswith("The figure shows the book's sentence again")
    assert page.url == f"{server[0]}figure-l.html"  # a link to the page is the book's figure again
    assert page.input_value("#live-text") == OTHER_TEXT  # kept for another try
    type_and_run(page, TEXT)
    assert page.is_visible("#own-figure") and not page.is_visible("#chart-l") and "#text=" in page.url


def test_a_second_text_draws_another_chart(watched):
    page = watched.page
    keys = ("attention",)
    before = {key: page.eval_on_selector(f"#live-chart-{key} svg", "svg => svg.outerHTML") for key in keys}
    took = type_and_run(page, OTHER_TEXT)
    assert state(page) == "drawn", page.text_content("#live-message")
    print(
        f"\nlive page: Enter to all charts drawn, {page.evaluate('window.liveFigures.timings.last.tokens')} "
        f"tokens: {took:.2f} s"
    )
    after = {key: page.eval_on_selector(f"#live-chart-{key} svg", "svg => svg.outerHTML") for key in keys}
    assert all(before[key] != after[key] for key in keys)
    ids = page.evaluate("text => window.liveTokens.encode(text)", OTHER_TEXT)
    assert page.evaluate("window.liveFigures.result.ids") == ids
    assert page.evaluate("window.liveFigures.drawn.attention.names.length") == len(ids)
    assert "#text=" in page.url and page.url.endswith("&target=%20dog")


def test_a_hostile_text_is_drawn_as_text(watched):
    page = watched.page
    count = "() => document.querySelectorAll('img, script, iframe, object, embed').length"
    elements = page.evaluate(count)
    type_and_run(page, HOSTILE)
    assert state(page) == "drawn", page.text_content("#live-message")
    page.wait_for_timeout(200)
    assert watched.dialogs == []
    assert page.evaluate(count) == elements
    assert page.evaluate("() => document.querySelectorAll('img[src=x]').length") == 0
    ids = page.evaluate("window.liveFigures.result.ids")
    assert page.evaluate("ids => window.liveTokens.decode(ids)", ids) == HOSTILE
    texts = page.evaluate("ids => ids.map(id => window.liveTokens.tokenText(id))", ids)
    tokens = page.eval_on_selector_all("#live-tokens .token", "spans => spans.map(s => s.textContent)")
    assert tokens == [t.replace(" ", "_", 1) if t.startswith(" ") else t for t in texts]  # the token row, as text
    assert "<script>" in "".join(texts) and any(
        "<E2 80>" in t for t in tokens
    )  # the last character's bytes, as the pages write them
    drawn = page.eval_on_selector_all("#live-chart-attention svg text", "ts => ts.map(t => t.textContent)")
    assert "script" in drawn or any("script" in t for t in drawn)
    # A bar's tooltip names its token as text too (vega-tooltip escapes it).
    page.locator("#live-chart-attention svg path[aria-roledescription='bar']").nth(0).hover()  # the token '<'
    page.wait_for_function(
        "() => { const t = document.getElementById('vg-tooltip-element'); return t && t.textContent.includes('<'); }",
        timeout=TIMEOUT_MS,
    )
    tooltip = page.eval_on_selector(
        "#vg-tooltip-element", "t => [t.innerHTML, t.querySelectorAll('img, script').length]"
    )
    assert "&lt;" in tooltip[0] and tooltip[1] == 0
    page.mouse.move(0, 0)
    assert watched.refused == []


def test_the_knockout_of_the_readers_text_takes_out_each_part_as_the_build_does(watched, server, site):
    """Each run of the build's knockouts (each layer's attention, each feed-forward step, each head of layer 2), made
    in the page through the graph's keep_ inputs: the target's chance within 1e-5 and its rank the same."""
    page = watched.page
    visit(page, server[0], "knockout")
    assert page.is_visible("#live-target") and page.input_value("#live-target") == TARGET
    start_model(page)
    parts = json.loads((site / "data" / "parts.json").read_text(encoding="utf-8"))
    expected = next(entry for entry in parts["knockouts"] if entry["ask"][0] == TEXT)
    got = page.evaluate("window.liveFigures.result.knockout")
    assert expected["position"] == page.evaluate("window.liveFigures.result.ids.length") - 1
    assert abs(got["intact"]["p"] - expected["intact"]["p"]) <= TOLERANCE
    assert_same_rank(got["intact"]["rank"], expected["intact"]["rank"], "intact")
    assert len(got["runs"]) == len(expected["runs"]) == 2 * 3 + 4
    for run, want in zip(got["runs"], expected["runs"]):
        where = f"{want['part']} {want['layer']} {want['head']}"
        assert (run["group"], run["layer"] - 1) == (want["part"], want["layer"]), where
        assert (run["x"] - 1 if run["group"] == "head" else None) == want["head"], where
        assert abs(run["p"] - want["p"]) <= TOLERANCE, where
        assert_same_rank(run["rank"], want["rank"], where)
    # Drawn in the book's figure's place, the costliest removal said under it; a part chosen in the menu is said.
    assert page.is_visible("#live-chart-knockout svg") and not page.is_visible("#chart-take-out")
    assert page.text_content("#live-description-knockout").startswith("With every part in place, the model gives _dog ")
    assert " 11 times, once whole and once without each part, in " in page.text_content("#live-message")
    page.select_option("#live-chart-knockout select", "feed-forward-2")
    page.wait_for_function(
        "() => document.getElementById('live-description-knockout').textContent.startsWith("
        '"Without layer 2\'s feed-forward step, _dog ")'
    )
    with page.expect_download() as download:
        page.click("#live-download-knockouts")
    lines = Path(download.value.path()).read_text(encoding="utf-8").splitlines()
    assert lines[0] == "taken_out,layer,head,probability,rank" and len(lines) == 2 + len(expected["runs"])
    assert lines[1].startswith('"nothing","","",') and lines[-1].startswith('"head",2,4,')
    assert len(downloaded_json(page)["knockout"]["runs"]) == len(expected["runs"])


def test_the_patching_of_the_readers_texts_puts_back_each_piece_as_the_build_does(watched, server, site):
    """Every run of the build's activation patching (each piece of the original text's run put back into the changed
    text's), made in the page through the graph's patch_ inputs: the score difference and the target's chance within
    1e-5; the runs it takes as the changed text's own, exactly its numbers."""
    page = watched.page
    visit(page, server[0], "patching")
    assert [page.input_value(box) for box in ("#live-text", "#live-text-b", "#live-target", "#live-versus")] == [
        TEXT,
        CHANGED,
        TARGET,
        VERSUS,
    ]
    start_model(page)
    parts = json.loads((site / "data" / "parts.json").read_text(encoding="utf-8"))
    expected = next(entry for entry in parts["patchings"] if entry["ask"][:2] == [TEXT, CHANGED])
    got = page.evaluate("window.liveFigures.result.patching")
    for mine, theirs in (("original", "clean"), ("changed", "corrupted")):
        assert abs(got[mine]["diff"] - expected[theirs]["diff"]) <= TOLERANCE
        assert abs(got[mine]["p"] - expected[theirs]["p"]) <= TOLERANCE
    made = {(m["piece"], m["row"], m["col"]) for m in got["made"]}
    cells = [(row["piece"], row["row"], row["col"], row["diff"], row["p"]) for row in got["rows"]]
    assert len(cells) == sum(len(g["diff"]) * len(g["diff"][0]) for g in expected["grids"].values())
    for piece, r, c, diff, p in cells:
        want = expected["grids"][piece]
        assert abs(diff - want["diff"][r][c]) <= TOLERANCE and abs(p - want["p"][r][c]) <= TOLERANCE, (piece, r, c)
        if (piece, r, c) not in made and not (piece == "resid_pre" and r == len(want["diff"]) - 1):
            assert (diff, p) == (got["changed"]["diff"], got["changed"]["p"])  # the changed text's own run
    # Drawn in the book's figure's place; the menu names each run as the book's does, and a run chosen is said.
    assert page.is_visible("#live-chart-patching svg") and not page.is_visible("#chart-put-back")
    description = page.text_content("#live-description-patching")
    assert description.startswith("With the original text, the model gives _dog a chance of ")
    assert f" {len(made) + 2} times, each once and the changed text once with each piece " in page.text_content(
        "#live-message"
    )
    label = page.evaluate(
        "() => document.querySelector('#live-chart-patching select option[value=\"attention-1-15\"]').textContent"
    )
    assert label == "layer 1's attention at . (token 15)"
    page.select_option("#live-chart-patching select", "head-2-3")
    page.wait_for_function(
        "() => document.getElementById('live-description-patching').textContent.includes("
        "'Put back head 3 of layer 2: ')"
    )
    with page.expect_download() as download:
        page.click("#live-download-patchings")
    lines = Path(download.value.path()).read_text(encoding="utf-8").splitlines()
    assert lines[0] == "piece,after_layer,layer,position,head,score_difference,back,probability"
    assert len(lines) == 1 + len(cells)
    assert downloaded_json(page)["patching"]["grids"]["z"]["diff"][1][2] == pytest.approx(
        expected["grids"]["z"]["diff"][1][2], abs=TOLERANCE
    )
    # Texts of different lengths are refused in one sentence, the figure kept for the last texts.
    page.fill("#live-text-b", TEXT_B)
    page.press("#live-text-b", "Enter")
    wait_for_state(page, "refused")
    assert page.text_content("#live-message").startswith("The two texts must be as many tokens long, ")


def build_distances(site: Path, a: str, b: str) -> dict:
    """The build's comparison of texts a and b (data/run.json's): {"shared", "distance" [stage][position]}."""
    record = json.loads((site / "data" / "run.json").read_text(encoding="utf-8"))
    return next(c for c in record["comparisons"] if c["texts"] == [a, b])


def run_pair(page, a: str, b: str) -> None:
    """Types the two texts and presses Enter in text B's box; waits until the grid is drawn (or they are refused)."""
    page.fill("#live-text", a)
    page.fill("#live-text-b", b)
    page.press("#live-text-b", "Enter")
    page.wait_for_function(
        "([a, b]) => { const live = window.liveFigures;"
        " return live.state === 'refused' || live.state === 'error' || (live.state === 'drawn' && live.result &&"
        "  live.result.text === a && live.result.pair.text === b &&"
        "  document.getElementById('live-chart-compare').dataset.rendered === 'true'); }",
        arg=[a, b],
        timeout=TIMEOUT_MS,
    )


def test_two_texts_compared_give_the_builds_distances_exact_zeros_where_the_texts_are_the_same(watched, server, site):
    page = watched.page
    visit(page, server[0], "compare")
    assert page.input_value("#live-text") == TEXT and page.input_value("#live-text-b") == TEXT_B
    assert not page.is_visible("#live-target") and not page.is_visible("#live-more")
    start_model(page)
    expected = build_distances(site, TEXT, TEXT_B)
    got = page.evaluate(
        "({...window.liveFigures.result.pair, distance: Array.from(window.liveFigures.result.pair.distance)})"
    )
    assert got["shared"] == expected["shared"] > 0
    stages, n = len(expected["distance"]), len(expected["distance"][0])
    distance = [[got["distance"][s * n + q] for q in range(n)] for s in range(stages)]
    for s in range(stages):
        for q in range(n):
            want = expected["distance"][s][q]
            assert (distance[s][q] == 0) == (want == 0), (s, q)
            assert abs(distance[s][q] - want) <= 1e-5 * max(1.0, want), (s, q, distance[s][q], want)
    # The grid drawn in the book's figure's place from the same numbers, with both texts' rows above it and a sentence
    # that says where they part.
    assert page.is_visible("#live-chart-compare svg") and not page.is_visible("#chart-two-texts")
    cells = page.evaluate("window.liveFigures.drawn.compare.datasets.cells")
    assert len(cells) == stages * n and cells[n + expected["shared"]]["distance"] == distance[1][expected["shared"]]
    labels = page.eval_on_selector_all(".live-tokens .token-row-label", "ps => ps.map(p => p.textContent)")
    n_a = len(page.evaluate("t => window.liveTokens.encode(t)", TEXT))
    n_b = len(page.evaluate("t => window.liveTokens.encode(t)", TEXT_B))
    assert labels == [f"Text A, in {n_a} tokens:", f"Text B, in {n_b} tokens:"]
    description = page.text_content("#live-description-compare")
    assert (
        description.startswith(f"Up to token {expected['shared']} (")
        and " on they differ, from before any layer" in description
        and "After layer 3, token " in description
    )
    assert "text_b=" in page.url
    with page.expect_download() as download:
        page.click("#live-download-distances")
    lines = Path(download.value.path()).read_text(encoding="utf-8").splitlines()
    assert lines[0] == "after_layer,position,token_a,token_b,distance" and len(lines) == 1 + stages * n
    assert downloaded_json(page)["compared"]["distance"][1][expected["shared"]] == distance[1][expected["shared"]]


def test_two_texts_that_begin_differently_or_are_the_same_are_refused_in_one_sentence(watched):
    page = watched.page
    address = page.url
    for b, words in [
        ("Ein Hund bellte.", "The two texts begin with different tokens ("),
        (TEXT, "The two texts are the same: change a word or more of text B."),
        ("", "Type text B too: the same first words as text A, then others."),
    ]:
        run_pair(page, TEXT, b)
        assert state(page) == "refused" and page.text_content("#live-message").startswith(words)
        assert page.url == address and page.evaluate("window.liveFigures.result.pair.text") == TEXT_B
    a, b = "Der Hund schlief.", "Der Hund bellte."
    run_pair(page, a, b)
    ids = [page.evaluate("t => window.liveTokens.encode(t)", text) for text in (a, b)]
    shared = next(q for q, (x, y) in enumerate(zip(*ids)) if x != y)
    assert state(page) == "drawn" and page.evaluate("window.liveFigures.result.pair.shared") == shared


def test_a_text_too_long_empty_or_only_spaces_is_refused_in_one_sentence_and_not_written_into_the_address(
    watched, server
):
    page = watched.page
    visit(page, server[0], "readout")  # a figure that follows a token: its box for it is shown
    start_model(page)
    drawn, address = page.evaluate("window.liveFigures.result.text"), page.url
    for text, words in [
        ("a" + " a" * 70, "Your text is 71 tokens long; this page reads at most 64."),
        ("", "Type a text first: the box is empty."),
        ("   \n ", "Your text is only spaces; type a word or more."),
    ]:
        type_and_run(page, text)
        assert state(page) == "refused"
        assert page.text_content("#live-message") == words + STILL  # the figures below stay the last text's
        assert page.evaluate("window.liveFigures.result.text") == drawn  # the charts stay as they were
        assert page.url == address
    page.fill("#live-target", " Hundehütte")
    type_and_run(page, TEXT)
    assert state(page) == "refused" and page.url == address
    message = page.text_content("#live-message")
    assert (
        message.startswith('The token to follow must be one token, and " Hundehütte" is ')
        and message.endswith(STILL)
        and message[: -len(STILL)].count(".") == 1
    )
    page.fill("#live-target", TARGET)


def greedy(weights, ids: list[int], count: int) -> list[int]:
    """The reference's likeliest next token, `count` times (tests/reference.py, float64)."""
    import reference as ref_lib

    ids = list(ids)
    for _ in range(count):
        ids.append(int(ref_lib.forward(weights, ids).probs[-1, -1].argmax()))
    return ids


def go_on(page, count: int, chance: bool, seed: int = 1) -> list[int]:
    """Asks the model to go on `count` tokens from the text in the box; the ids it then drew its figures for."""
    before = page.evaluate("window.liveFigures.result.text")
    if not page.evaluate("document.querySelector('.live-more-panel').open"):
        page.click(".live-more-panel > summary")  # "Let the model go on", folded under the text at first
    page.fill("#live-more-count", str(count))
    page.check("#live-more-chance" if chance else "#live-more-likeliest")
    # The temperature and the seed can be set only for tokens drawn by chance.
    assert page.is_enabled("#live-more-seed") == chance and page.is_enabled("#live-more-temperature") == chance
    if chance:
        page.fill("#live-more-seed", str(seed))
    page.click("#live-more-button")
    page.wait_for_function(
        "before => ['drawn', 'error', 'refused'].includes(window.liveFigures.state) && "
        "window.liveFigures.result.text !== before",
        arg=before,
        timeout=TIMEOUT_MS,
    )
    assert state(page) == "drawn", page.text_content("#live-message")
    return page.evaluate("Array.from(window.liveFigures.result.ids)")


def test_the_model_goes_on_by_its_likeliest_tokens_and_the_row_marks_them_as_its_own(watched, small_model_dir):
    import reference as ref_lib

    page = watched.page
    type_and_run(page, TEXT)
    ids = page.evaluate("Array.from(window.liveFigures.result.ids)")
    got = go_on(page, 3, chance=False)
    assert got == greedy(ref_lib.load_weights(small_model_dir), ids, 3)
    whole = page.input_value("#live-text")
    assert whole.startswith(TEXT) and len(whole) > len(TEXT)
    assert page.evaluate("window.liveFigures.result.text") == whole and "#text=" in page.url
    marked = page.eval_on_selector_all("#live-tokens .token-model", "spans => spans.map(s => s.textContent)")
    assert len(marked) == 3 and "the last 3 added by the model (slanted" in page.text_content("#live-tokens-label")
    assert page.text_content("#live-message").startswith(f"The model read your {len(ids)} tokens and the 3 it added")
    # The figure is drawn for the longer text: it reads every one of its tokens.
    assert len(page.evaluate("Object.values(window.liveFigures.drawn)[0].names")) == len(got)
    assert signal(page, "readout", "own_from") == len(ids)  # where the charts' labels slant the model's own
    # A link to it brings back the very tokens, the model's marked as its own.
    address = page.url
    assert f"&ids={'.'.join(map(str, got))}&added_from={len(ids)}" in address
    page.goto("about:blank")
    page.goto(address)
    page.wait_for_function("() => window.liveTokens && window.ort && window.liveFigures.kept !== null")
    start_model(page)
    assert page.evaluate("Array.from(window.liveFigures.result.ids)") == got
    again = page.eval_on_selector_all("#live-tokens .token-model", "spans => spans.map(s => s.textContent)")
    assert again == marked
    assert watched.errors == []


def test_drawn_by_chance_the_same_seed_draws_the_same_tokens_each_among_the_top_10(watched, small_model_dir):
    import reference as ref_lib

    page = watched.page
    weights = ref_lib.load_weights(small_model_dir)
    drawn = []
    for _ in range(2):
        type_and_run(page, OTHER_TEXT)
        ids = page.evaluate("Array.from(window.liveFigures.result.ids)")
        drawn.append(go_on(page, 4, chance=True, seed=7))
    assert drawn[0] == drawn[1] and len(drawn[0]) == len(ids) + 4
    for n in range(len(ids), len(drawn[0])):
        probs = ref_lib.forward(weights, drawn[0][:n]).probs[-1, -1]
        assert drawn[0][n] in probs.argsort(descending=True)[:10].tolist()
    page.fill("#live-more-count", "11")
    page.click("#live-more-button")
    assert page.text_content("#live-message").startswith("The tokens to add: a whole number from 1 to 10.")


def test_a_reload_loads_the_model_from_cache_storage_and_the_address_brings_the_text(watched, server):
    base, asked = server
    page = watched.page
    visit(page, base, "attention")
    start_model(page)
    type_and_run(page, OTHER_TEXT)
    page.click("#live-tokens .token[data-token='2']")
    wait_for_token(page, "attention", 2)
    address = page.url
    assert address.startswith(base + "figure-l.html#text=") and address.endswith("&token=2")
    before = len(asked)
    page.goto("about:blank")
    page.goto(address)
    page.wait_for_function(
        "() => window.liveFigures && window.liveFigures.state === 'idle' && window.liveFigures.kept !== null"
    )
    assert page.evaluate("document.getElementById('try-own').open")  # the address opened it
    assert page.input_value("#live-text") == OTHER_TEXT and page.input_value("#live-target") == TARGET
    assert page.text_content("#live-message").startswith("The text this link brings is in the box")
    assert page.evaluate("window.liveFigures.kept") is True
    assert page.text_content("#live-load-button") == KEPT  # no word of a download
    page.click("#live-load-button")
    wait_for_state(page, "drawn", "error")
    assert state(page) == "drawn" and page.evaluate("window.liveFigures.result.text") == OTHER_TEXT
    wait_for_token(page, "attention", 2)  # the address's token
    assert page.evaluate("window.liveFigures.loadedFrom") == "cache"
    print(
        f"\nlive page: model loaded from Cache Storage in {page.evaluate('window.liveFigures.timings.loadMs'):.0f} ms"
    )
    assert [p for p in asked[before:] if MODEL_PATH in p] == []
    assert watched.refused == []


def test_a_phone_draws_the_narrow_chart_and_a_dark_screen_its_colours_keeping_the_readers_choices(watched, server):
    page = watched.page
    visit(page, server[0], "lens")
    start_model(page)
    page.click("#live-tokens .token[data-token='2']")
    wait_for_token(page, "lens", 2)
    page.set_viewport_size({"width": 400, "height": 800})
    try:
        page.wait_for_function(
            "() => { const el = document.getElementById('live-chart-lens');"
            " return el.hasAttribute('data-drawn-narrow') && el.getAttribute('data-rendered') === 'true'; }",
            timeout=TIMEOUT_MS,
        )
        assert page.evaluate("document.documentElement.scrollWidth") <= 400
        assert chosen(page, "lens") == 2
        light = page.eval_on_selector("#live-chart-lens svg", "svg => svg.outerHTML")
        page.emulate_media(color_scheme="dark")
        page.wait_for_function(
            "light => { const svg = document.querySelector('#live-chart-lens svg');"
            " return svg && svg.outerHTML !== light; }",
            arg=light,
            timeout=TIMEOUT_MS,
        )
        page.wait_for_function(
            "() => document.getElementById('live-chart-lens').getAttribute('data-rendered') === 'true'",
            timeout=TIMEOUT_MS,
        )
        assert chosen(page, "lens") == 2
        # The lens's table is wider than the phone: it scrolls in its box, which says so and fades at its edge, and
        # the position chosen in the row is brought into view.
        box = "#live-chart-lens .chart-wrapper"
        assert page.is_visible("#live-chart-lens .scroll-hint")
        assert page.eval_on_selector(
            box,
            "b => b.scrollWidth > b.clientWidth && b.scrollLeft === 0 && "
            "b.hasAttribute('data-more-right') && !b.hasAttribute('data-more-left')",
        )
        last = len(page.evaluate("window.liveFigures.result.ids"))
        page.click(f"#live-tokens .token[data-token='{last}']")
        wait_for_token(page, "lens", last)
        page.wait_for_function(
            f"() => document.querySelector('{box}').hasAttribute('data-more-left')", timeout=TIMEOUT_MS
        )
        # The chosen cell of the table (its rect, from the view's scenegraph) lies within the box.
        assert page.eval_on_selector(
            box,
            "box => { const v = document.getElementById('live-chart-lens').vegaView;"
            " const cells = []; (function walk(mark) { (mark.items || []).forEach("
            "item => { if (mark.marktype === 'rect' && item.datum && item._svg && "
            "item.datum.pick_position === v.signal('position') && "
            "item.datum.stage === v.signal('stage')) cells.push(item._svg);"
            " (item.items || []).forEach(walk); }); })(v.scenegraph().root);"
            " const b = box.getBoundingClientRect();"
            " return cells.length > 0 && cells.every(c => { const r ="
            " c.getBoundingClientRect(); return r.left >= b.left - 1 &&"
            " r.right <= b.right + 1; }); }",
        )
        assert watched.errors == []
    finally:
        page.emulate_media(color_scheme="light")
        page.set_viewport_size({"width": 1100, "height": 900})


def test_from_file_the_page_says_in_one_line_how_to_serve_it(browser, site):
    playwright_or_skip()
    held = Watched(browser, "file:")
    try:
        page = held.page
        page.goto((site / "figure-l.html").as_uri())
        page.wait_for_function("() => window.liveFigures && window.liveFigures.state === 'file'")
        page.click("#try-own > summary")
        line = page.text_content("#live-file")
        assert page.is_visible("#live-file") and "\n" not in line
        assert f"python -m http.server --directory {site}" in line and "python build.py --serve" in line
        assert "http://localhost:8000/figure-l.html" in line  # the page's own file, not another
        assert not page.is_visible("#live-load-button") and not page.is_visible("#live-form")
        assert page.is_visible("#chart-l")  # the book's figure as ever
        page.wait_for_timeout(300)
        assert held.errors == [] and held.refused == [] and held.dialogs == []
    finally:
        held.close()


def test_with_javascript_off_the_figure_shows_no_control_of_the_readers_sentence(browser, site):
    """The model runs in the page's script: where JavaScript is off, the book's figure shows and nothing of the
    reader's sentence does."""
    playwright_or_skip()
    context = browser.browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto((site / "figure-l.html").as_uri())
        assert not page.is_visible("#try-own") and not page.is_visible("#own-figure")
        shown = page.evaluate(
            "() => [...document.querySelectorAll('#live input, #live select, #live textarea, #live button, "
            "#own-figure button')].filter(el => el.checkVisibility()).map(el => el.outerHTML.slice(0, 80))"
        )
        assert shown == [] and page.is_visible(".static-chart")
    finally:
        context.close()


def test_on_a_phone_the_light_weights_load_and_draw_within_the_error_the_page_states(browser, server, site):
    base, asked = server
    phone = Watched(browser, base, viewport={"width": 360, "height": 800})
    try:
        page = phone.page
        page.goto(base + "figure-l.html#try-own")
        page.wait_for_function("() => window.liveFigures && window.liveFigures.kept !== null && window.ort")
        config = json.loads(page.text_content("#live-config"))
        light = config["light"]
        stated = float(light["error"])
        assert page.is_checked("#live-weights-light")
        assert f"by at most {light['error']} percentage points" in page.text_content("#live-weights")
        before = len(asked)
        page.click("#live-load-button")
        page.wait_for_function("() => ['drawn', 'error'].includes(window.liveFigures.state)", timeout=TIMEOUT_MS)
        assert state(page) == "drawn", page.text_content("#live-message")
        assert page.evaluate("window.liveFigures.weights") == "light"
        fetched = sorted(p for p in asked[before:] if MODEL_PATH in p)
        assert fetched == sorted(f"/{site.name}/{f['path']}" for f in light["files"])
        data, _ = build_data(site, TEXT)
        got = downloaded_json(page)
        worst = max(
            abs(a - b)
            for l, layer in enumerate(data["attention"])
            for h, head in enumerate(layer)
            for q, row in enumerate(head)
            for a, b in zip(got["attention"][l][h][q], row)
        )
        # The page states the largest difference on the config's texts, this one among them, rounded up.
        assert 0 < worst <= stated / 100 + TOLERANCE, f"shares differ by {worst * 100:.3f} points; stated {stated}"
        probabilities = [
            abs(cell["p"] - top[1])
            for stage, positions in enumerate(data["readout"])
            for q, cell_list in enumerate(positions)
            for cell, top in zip(got["top"][stage][q], cell_list["top"])
        ]
        assert max(probabilities) <= stated / 100 + TOLERANCE
        assert phone.refused == [] and phone.errors == []
    finally:
        phone.close()


def test_live_html_lists_the_figures_that_take_a_sentence_and_hands_a_text_on_to_them(watched, server, site):
    base, _ = server
    page = watched.page
    page.goto(base + "live.html#text=" + quote(OTHER_TEXT, safe="") + "&token=2")
    links = page.eval_on_selector_all("a[data-own-link]", "as => as.map(a => a.getAttribute('href'))")
    labels = [f"figure-{label}.html" for label in PAGES.values()]
    assert sorted(link.split("#")[0] for link in links) == sorted(labels)
    assert all(link.endswith("#text=" + quote(OTHER_TEXT, safe="") + "&token=2") for link in links)
    assert page.locator("[data-live-chart], #live-text, #live-load-button").count() == 0  # nothing of its own
    page.click("a[href^='figure-lens.html']")
    page.wait_for_function("() => window.liveTokens && window.ort", timeout=TIMEOUT_MS)
    assert page.evaluate("document.getElementById('try-own').open")
    assert page.input_value("#live-text") == OTHER_TEXT
    page.goto(base + "live.html")  # without a text, each link opens its figure's form
    links = page.eval_on_selector_all("a[data-own-link]", "as => as.map(a => a.getAttribute('href'))")
    assert all(link.endswith(".html#try-own") for link in links)
    assert watched.errors == [] and watched.refused == []
