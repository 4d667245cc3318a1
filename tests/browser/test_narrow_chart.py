"""A figure with one bar per token draws a second chart in a column narrower than 480 px (a phone), its bars lying
sideways so that every token's label fits (figures.kind `narrow_chart`): the build compiles it as it compiles the
main chart, the page carries both, and the page draws the one its column's width calls for, again when the column
crosses 480 px, keeping the reader's choices. Guides say "hover or tap" where there is a mouse, "tap" on a touch
screen only.

The narrow chart is tried with a kind of this test's own (how long each token is), so that the page's part is tested
whichever figure kinds have a narrow chart."""

from __future__ import annotations

import json
import re

import pytest

import figures
from conftest import built
from figures.kind import Kind
from figures.toolkit import fields
from figures.toolkit.charts import alt, with_data
from figures.toolkit.words import heading, shown, token_choices

from .browsing import Opener, wait_for_signal

TEXT = "Snow falls in the mountains of"
TOKENS = ["Snow", "_falls", "_in", "_the", "_mountains", "_of"]
PHONE, DESKTOP = {"width": 360, "height": 800}, {"width": 1100, "height": 900}
UPRIGHT, SIDEWAYS = "Each token's length", "Each token's length, bars lying sideways"


class Lengths(Kind):
    """This test's kind: each token's length in characters, one bar per token, and a token to choose."""

    KIND = "test-lengths"
    TITLE = "How long each token is"
    CAPTION = "Each token of the text, as long as its characters."
    GUIDE = "Choose a token to mark its bar. {Hover} a bar to read its token; {hover} it again to read it again."
    FIELDS = {"text": fields.TEXT_FIELD}

    def check(self, fig, tokens, model):
        fields.check_text(fig, "text", tokens(fig["text"]), model["n_ctx"])
        return {"opening": len(tokens(fig["text"])) - 1}

    def rows(self, fig, run):
        return [
            {"token": n, "text": shown(t), "length": len(t)}
            for n, t in enumerate(run.token_texts(fig["text"]), start=1)
        ]

    def text_figure(self, fig, run):
        return heading(fig, self.TITLE) + "\n  " + " | ".join(row["text"] for row in self.rows(fig, run)) + "\n"

    def context(self, fig, run):
        return {"summary": f"The text is cut into {len(self.rows(fig, run))} tokens.", "reveals": [], "facts": []}

    def bars(self, fig, run, title: str, sideways: bool):
        """The bars, upright or lying sideways, the chosen token's in orange; the same param either way."""
        options, labels = token_choices(run.token_texts(fig["text"]))
        token = alt.param(
            name="token",
            value=fig.resolved["opening"] + 1,
            bind=alt.binding_select(options=options, labels=labels, name="Token "),
        )
        along, across = (alt.Y, alt.X) if sideways else (alt.X, alt.Y)
        bars = (
            alt.Chart(alt.NamedData("lengths"), title=title)
            .mark_bar()
            .encode(
                along("text:N", sort=None, title=None),
                across("length:Q", title="characters"),
                color=alt.condition("datum.token == token", alt.value("#d95f02"), alt.value("#1b6ca8")),
                tooltip=["text:N", "length:Q"],
            )
        )
        return with_data(bars.add_params(token).properties(width="container"), lengths=self.rows(fig, run))

    def chart(self, fig, run):
        return self.bars(fig, run, UPRIGHT, sideways=False)

    def narrow_chart(self, fig, run):
        return self.bars(fig, run, SIDEWAYS, sideways=True)


class UprightOnly(Lengths):
    """The same figure with one chart for every width."""

    KIND = "test-upright"

    def narrow_chart(self, fig, run):
        return None


CONFIG = f'''\
[[figure]]
kind = "test-lengths"
label = "len"
text = "{TEXT}"

[[figure]]
kind = "test-upright"
label = "up"
text = "{TEXT}"
'''


@pytest.fixture(scope="module")
def site(small_model_dir, tmp_path_factory):
    """A site of the two test kinds' figures, built over the small model."""
    with pytest.MonkeyPatch.context() as patch:
        for kind in (Lengths(), UprightOnly()):
            patch.setitem(figures.KINDS, kind.KIND, kind)
        yield built(small_model_dir, CONFIG, tmp_path_factory.mktemp("narrow"))


@pytest.fixture
def pages(browser, site):
    opener = Opener(browser, site)
    yield opener
    opener.close()


def embedded(html: str, name: str):
    """The JSON of the page's <script type="application/json" id=name>, or None where there is none."""
    found = re.search(rf'<script type="application/json" id="{name}">(.*?)</script>', html, re.S)
    return found and json.loads(found.group(1))


def bound(spec: dict) -> dict:
    return {signal["name"]: signal["bind"] for signal in spec["signals"] if "bind" in signal}


def changed(spec: dict, changes: list) -> dict:
    """The spec with the build's changes made ([path, value] to set, [path] to delete), as figures.js makes them."""
    for change in changes:
        at = spec
        for key in change[0][:-1]:
            at = at[key]
        if len(change) > 1:
            at[change[0][-1]] = change[1]
        else:
            del at[change[0][-1]]
    return spec


def test_the_page_carries_the_narrow_chart_compiled_as_changes_to_the_main_one_only_where_the_kind_has_one(site):
    html = (site / "figure-len.html").read_text(encoding="utf-8")
    main, changes = embedded(html, "spec-len"), embedded(html, "narrow-len")
    assert changes and embedded(html, "narrow-dark-len"), "no narrow chart, or no dark theme's changes for it"
    narrow = changed(json.loads(json.dumps(main)), changes)
    assert narrow["$schema"].startswith("https://vega.github.io/schema/vega/"), "not compiled to Vega"
    assert bound(narrow) == bound(main) and "token" in bound(main)
    assert SIDEWAYS in json.dumps(narrow) and SIDEWAYS not in json.dumps(main)
    # The data both charts draw are carried once, in the main chart's spec: no change touches them.
    assert any("_mountains" in json.dumps(data) for data in main["data"])
    assert [change for change in changes if change[0][:1] == ["data"]] == []
    assert 'data-narrow="narrow-len"' in html
    upright = (site / "figure-up.html").read_text(encoding="utf-8")
    assert embedded(upright, "narrow-up") is None and "data-narrow" not in upright


def drawn_title(page, label: str) -> str:
    return " ".join(
        page.eval_on_selector_all(
            f"#chart-{label} svg.marks .role-title text", "nodes => nodes.map(n => n.textContent)"
        )
    )


def wait_for_title(page, label: str, title: str) -> None:
    page.wait_for_function(
        "([id, title]) => { const el = document.getElementById(id);"
        " return el.getAttribute('data-rendered') === 'true' &&"
        " Array.from(el.querySelectorAll('svg.marks .role-title text')).map(n => n.textContent).join(' ') === title; }",
        arg=[f"chart-{label}", title],
        timeout=10_000,
    )


def test_a_phone_draws_the_narrow_chart_with_every_tokens_label_and_a_desktop_the_main_one(pages):
    for viewport, title in ((PHONE, SIDEWAYS), (DESKTOP, UPRIGHT)):
        visit = pages.open("figure-len.html", context=pages.context(viewport=viewport))
        assert drawn_title(visit.page, "len") == title, viewport
        labels = visit.page.eval_on_selector_all(
            "#chart-len svg.marks .role-axis-label text", "nodes => nodes.map(n => n.textContent)"
        )
        assert [label for label in labels if label in TOKENS] == TOKENS, labels
        visit.assert_clean()
        pages.done(visit)
    # A figure without a narrow chart draws its one chart on a phone.
    visit = pages.open("figure-up.html", context=pages.context(viewport=PHONE))
    assert drawn_title(visit.page, "up") == UPRIGHT
    visit.assert_clean()


def test_crossing_480_px_draws_the_other_chart_and_keeps_the_readers_choice(pages):
    visit = pages.open("figure-len.html", context=pages.context(viewport=PHONE))
    page = visit.page
    page.click(".token-row [data-token='2']")
    wait_for_signal(page, "len", "token", 2, "after a click on _falls")
    for viewport, title in ((DESKTOP, UPRIGHT), (PHONE, SIDEWAYS), ({"width": 700, "height": 800}, UPRIGHT)):
        page.set_viewport_size(viewport)
        wait_for_title(page, "len", title)
        wait_for_signal(page, "len", "token", 2, f"after the column became {viewport['width']} px wide")
        assert page.eval_on_selector(".token-row [aria-checked='true']", "e => e.dataset.token") == "2"
        assert page.locator("#chart-len .vega-bindings select[name='token']").count() == 1, "inputs written twice"
    assert page.evaluate("location.hash") == "#token=2"
    visit.assert_clean()


GUIDES = "() => Array.from(document.querySelectorAll('.guide')).map(p => p.innerText)"


@pytest.mark.parametrize("device", ["mouse", "touch"])
def test_guides_say_hover_or_tap_where_there_is_a_mouse_and_tap_on_a_touch_screen(browser, site, random_site, device):
    options = {"has_touch": True, "is_mobile": True} if device == "touch" else {}
    said = []
    for where in (site, random_site):
        opener = Opener(browser, where)
        context = opener.context(viewport=PHONE, **options)
        for path in sorted(where.glob("figure-*.html")):
            visit = opener.open(path.name, context=context, wait_for_charts=False)
            said += visit.page.evaluate(GUIDES)
            opener.done(visit)
        opener.close()
    hovering = [guide for guide in said if re.search(r"\bhover\b", guide, re.I)]
    # The guides' "tap" other than in "click or tap", which every device reads alike.
    tapping = [guide for guide in said if re.search(r"\btap\b", re.sub(r"click or tap", "", guide, flags=re.I), re.I)]
    if device == "touch":
        assert hovering == [], f"guides that say hover on a touch screen: {hovering}"
        assert len(tapping) >= 4, tapping
        wanted = "Tap a bar to read its token; tap it again to read it again."
    else:
        assert len(hovering) >= 4, f"too few guides that mention hovering: {hovering}"
        assert all(
            len(re.findall(r"\bhover\b", g, re.I)) == len(re.findall(r"\bhover or tap\b", g, re.I)) for g in hovering
        ), hovering
        wanted = "Hover or tap a bar to read its token; hover or tap it again to read it again."
    assert any(wanted in guide for guide in said), said
