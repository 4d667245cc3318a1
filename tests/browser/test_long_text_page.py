"""The page of a text of the model's full 1,024 positions in headless Chromium, from file:// with every other
request refused: the site of tests/builds/test_long_text.py (its `site` fixture, built over conftest's small model). It
renders within 2 s, follows the reader, and loads other heads' files on demand with <script src>."""

from __future__ import annotations

import time

import pytest

from builds.test_long_text import ATTENTION_LABEL, FOCUS, UNIT, head_name

# The long text's fixtures, found by pytest where they are imported.
from builds.test_long_text import data, data_path, head_files, head_folder, long_build, long_text, site, tokenizer  # noqa: F401

from .browsing import Opener

RENDER_LIMIT_MS = 2_000
CHANGE_TIMEOUT_MS = 5_000
# The seeded model's attention is close to even over the keys, so past token ~200 no share reaches 0.5% and
# the chart draws no bar (the heading says all is left out): the reader's choice goes to a token with bars.
OTHER_TOKEN = 40
RENDERED = "() => document.querySelector('#chart-%s').getAttribute('data-rendered') === 'true'" % ATTENTION_LABEL


@pytest.fixture
def visit(browser, site):  # noqa: F811
    """Opens the long attention page (at an address's fragment) and waits until its chart is drawn; the Visit
    keeps `render_ms`, from the page sent to its address to the chart drawn."""
    opener = Opener(browser, site)

    def _open(fragment: str = ""):
        v = opener.open(f"figure-{ATTENTION_LABEL}.html{fragment}", wait_for_charts=False)
        v.page.wait_for_function(RENDERED, timeout=RENDER_LIMIT_MS * 5)
        v.render_ms = (time.monotonic() - v.opened) * 1000
        return v

    yield _open
    opener.close()


def signal(v, name: str):
    return v.page.evaluate(
        "([id, n]) => document.getElementById(id).vegaView.signal(n)", [f"chart-{ATTENTION_LABEL}", name]
    )


def shares(v) -> list:
    """The rows of the chart's `shares` data set, as drawn: [[key, share], ...] by key."""
    rows = v.page.evaluate(
        "id => document.getElementById(id).vegaView.data('shares').map(r => [r.k, r.s])", f"chart-{ATTENTION_LABEL}"
    )
    return sorted(rows)


def bars(v) -> list:
    """The drawn bars (the second layer, after the shading of what is out of reach), as SVG paths."""
    return v.page.eval_on_selector_all(
        f"#chart-{ATTENTION_LABEL} svg g.layer_1_marks path", "nodes => nodes.map(n => n.getAttribute('d'))"
    )


def texts(v) -> list:
    return v.page.eval_on_selector_all(f"#chart-{ATTENTION_LABEL} svg text", "nodes => nodes.map(n => n.textContent)")


def description(v) -> str:
    return v.page.text_content(f"#description-{ATTENTION_LABEL}")


def head_scripts(v) -> list:
    return v.page.eval_on_selector_all("script[src^='data/']", "nodes => nodes.map(n => n.getAttribute('src'))")


def errors(v) -> list:
    """Console errors and page errors."""
    return v.console_errors + v.page_errors


def expected_rows(payload: dict, token: int) -> list:
    return sorted([k, s * UNIT] for k, s in zip(payload["keys"][token - 1], payload["shares"][token - 1]))


def left_out_heading(payload: dict, token: int) -> str:
    kept = sum(payload["shares"][token - 1]) * UNIT
    return f"add up to {max(0.0, 1 - kept) * 100:.1f}%"


def assert_rows_match(got: list, expected: list, where: str):
    assert [k for k, _ in got] == [k for k, _ in expected], (
        f"{where}: the chart draws keys {[k for k, _ in got][:20]}, the file has {[k for k, _ in expected][:20]}"
    )
    worst = max((abs(a - b) for (_, a), (_, b) in zip(got, expected)), default=0.0)
    assert worst <= UNIT, f"{where}: a drawn share is off its file's by {worst:.3g}"


def head_folder_in_page(v) -> str:
    """The folder of the text's head files, as the page names it (from the chart's usermeta)."""
    files = v.page.evaluate(
        f"() => JSON.parse(document.getElementById('spec-{ATTENTION_LABEL}').textContent).usermeta.attention.files"
    )
    return files["all"].removeprefix("data/").rsplit("/", 1)[0]


def test_the_long_attention_page_renders_within_2_s_follows_the_reader_and_loads_head_files_on_demand(
    visit,
    head_files,  # noqa: F811
):
    v = visit()
    print(f"\nthe long attention page rendered in {v.render_ms:.0f} ms")
    assert v.render_ms <= RENDER_LIMIT_MS, f"the chart took {v.render_ms:.0f} ms to render (limit {RENDER_LIMIT_MS})"
    assert signal(v, "token") == FOCUS and signal(v, "view") == "1-1"
    opening = head_files[head_name(0, 0)]
    assert_rows_match(shares(v), expected_rows(opening, FOCUS), "the opening view")
    assert any(left_out_heading(opening, FOCUS) in t for t in texts(v)), texts(v)
    assert len(bars(v)) == len(opening["keys"][FOCUS - 1]), "one bar per kept share"
    assert not any("average.js" in src for src in head_scripts(v)), (
        "the average's file was loaded before it was asked for"
    )
    before_bars, before_description = bars(v), description(v)
    assert f"(token {FOCUS})" in before_description, before_description

    token = OTHER_TOKEN
    v.page.click(f".token-row [data-token='{token}']")  # the chart's own select for it is hidden: the row repeats it
    v.page.wait_for_function(
        f"() => document.getElementById('description-{ATTENTION_LABEL}').textContent.includes('(token {token})')",
        timeout=CHANGE_TIMEOUT_MS,
    )
    assert bars(v) != before_bars, "choosing another token did not change the drawn bars"
    assert_rows_match(shares(v), expected_rows(opening, token), f"token {token}, layer 1 head 1")
    assert len(bars(v)) == len(opening["keys"][token - 1]) > 0, "one bar per kept share"

    middle_bars, middle_description = bars(v), description(v)
    v.page.check(f"#chart-{ATTENTION_LABEL} input[name=view][value=all]")
    average_src = f"data/{head_folder_in_page(v)}/average.js"
    v.page.wait_for_selector(f"script[src='{average_src}']", state="attached", timeout=CHANGE_TIMEOUT_MS)
    v.page.wait_for_function(
        f"() => document.getElementById('description-{ATTENTION_LABEL}').textContent.includes('averaged')",
        timeout=CHANGE_TIMEOUT_MS,
    )
    assert signal(v, "view") == "all" and signal(v, "token") == token
    assert bars(v) != middle_bars, "choosing the average did not change the drawn bars"
    assert description(v) != middle_description
    average = head_files["average.js"]
    assert_rows_match(shares(v), expected_rows(average, token), f"token {token}, the average")
    assert any(left_out_heading(average, token) in t for t in texts(v)), (
        f"the heading does not say {left_out_heading(average, token)!r}: {texts(v)}"
    )
    assert v.page.url.endswith(f"#token={token}&view=all"), v.page.url

    assert not errors(v), errors(v)
    assert not v.refused, f"requests outside file://: {v.refused}"


@pytest.mark.parametrize("token", [1000, 150])
def test_a_permalink_opens_the_long_attention_page_on_its_token_and_view(visit, head_files, token):  # noqa: F811
    v = visit(f"#token={token}&view=3-4")
    assert signal(v, "token") == token and signal(v, "view") == "3-4"
    payload = head_files[head_name(2, 3)]
    assert any(src.endswith("/" + head_name(2, 3)) for src in head_scripts(v)), head_scripts(v)
    assert_rows_match(shares(v), expected_rows(payload, token), "the permalink's state")
    assert any(left_out_heading(payload, token) in t for t in texts(v)), (
        f"the heading does not say {left_out_heading(payload, token)!r}: {texts(v)}"
    )
    description_ = description(v)
    assert f"(token {token})" in description_ and "layer 3, head 4" in description_, description_
    assert not errors(v), errors(v)
    assert not v.refused, f"requests outside file://: {v.refused}"
