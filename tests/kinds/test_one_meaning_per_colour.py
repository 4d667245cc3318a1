"""One meaning per colour, site-wide (issues 32 and 44): every kind's chart, walked as the pages carry it.

tests/every_kind.toml (every kind) is built over the small seeded model, and each figure's page is read: its chart's
specs (the Vega-Lite download, the page's main and narrow charts, the theme aside) are walked, and every colour
found in marks, encodings, scale ranges and conditions must be one that figures/toolkit/colours.py declares for a
meaning (or one that carries none: words on a mark, the lines between cells; the sequential scheme is a name, not
a colour). So must the dark page's charts (the page's changes for the dark scheme put in), in the colours a dark
page draws them. Every two meanings the pages draw, the sequential scale's ends and the diverging scales' among them,
look apart by perceived difference, not by colour string: a CIEDE2000 of 20 or more as a reader sees them on a light
and on a dark page (tests/seen_colours.py), and a meaning drawn in two colours draws two that look alike. A legend
that says a meaning in the chapter's words ("helps the answer", "works against the answer") draws it in that
meaning's colour, and no legend's words stand for two colours on one page. The three "who did it" figures (ledger,
knockout, patching) draw both sides in the same two colours. The unit tests at the end show the walk failing on
hand-made specs that break each rule.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from conftest import built
from figures.toolkit import colours

pytest.importorskip("coloraide")  # the test extras install it (pyproject.toml): tests/seen_colours.py's ΔE00
from seen_colours import PAGES, too_close  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EVERY_KIND = ROOT / "tests" / "every_kind.toml"
HEX = re.compile(r"^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")
# The page's charts, as it draws them (compiled to Vega): the main one and the narrow one; and the changes that make
# each the dark page's (the theme's colours, templates/chart_themes.json, which belong to no meaning, and the dark
# page's own: colours.IN_DARK).
SCRIPT = re.compile(
    r'<script type="application/json" id="((?:narrow-)?dark|spec|narrow)-(?!dark-)[^"]+">(.*?)</script>', re.S
)
DARK_OF = {"spec": "dark", "narrow": "narrow-dark"}  # each chart's script, and that of its changes for a dark page
SKIPPED = {"datasets", "data", "params", "config", "usermeta"}  # the data, the reader's choices, the theme
# The meanings a legend says in the chapter's words, and their colours.
WORDS = {colours.HELPS_WORDS: colours.HELPS, colours.HURTS_WORDS: colours.HURTS}
WHO_DID_IT = ("ledger", "knockout", "patching")
# The colour of each meaning on a dark page (colours.IN_DARK put in), and the meaning of each such colour.
MEANINGS_IN_DARK = {
    **{colour: meaning for meaning, colour in colours.ROLES_IN_DARK.items()},
    colours.IN_DARK[colours.OUT_OF_REACH]: "out of reach",
}
MEANINGS_BY_SCHEME = {"light": colours.MEANINGS, "dark": MEANINGS_IN_DARK}


def colours_in(spec, path: str = "") -> list:
    """Every colour value in the spec (path, value): in marks, encodings, conditions, scale ranges; the data, the
    params and the theme aside."""
    found = []
    if isinstance(spec, dict):
        for key, value in spec.items():
            if key not in SKIPPED:
                found += colours_in(value, f"{path}.{key}")
    elif isinstance(spec, list):
        for i, value in enumerate(spec):
            found += colours_in(value, f"{path}[{i}]")
    elif isinstance(spec, str) and HEX.match(spec):
        found.append((path, spec))
    return found


def scales_in(spec) -> list:
    """Every colour scale given as a domain of words and a range of colours: (domain, range)."""
    found = []
    if isinstance(spec, dict):
        domain, values = spec.get("domain"), spec.get("range")
        if (
            isinstance(domain, list)
            and isinstance(values, list)
            and all(isinstance(d, str) for d in domain)
            and all(isinstance(v, str) and HEX.match(v) for v in values)
        ):
            found.append((domain, values))
        for key, value in spec.items():
            if key not in SKIPPED:
                found += scales_in(value)
    elif isinstance(spec, list):
        for value in spec:
            found += scales_in(value)
    return found


def theme_colours() -> set:
    """The charts' theme's own colours (words, axes, grid: templates/chart_themes.json), which a compiled chart
    carries where it draws words: they belong to no meaning."""
    themes = json.loads((ROOT / "templates" / "chart_themes.json").read_text(encoding="utf-8"))
    return {value for _, value in colours_in({"theme": themes})}


def undeclared(spec, scheme: str = "light") -> list:
    """The colours a spec draws on the scheme's page that no meaning declares (and that are not one of the colours
    with no meaning, nor the theme's)."""
    declared = set(MEANINGS_BY_SCHEME[scheme]) | set(colours.NO_MEANING) | theme_colours()
    return [(path, value) for path, value in colours_in(spec) if value not in declared]


def words_in_the_wrong_colour(specs: list) -> list:
    """A legend's words that say a meaning but are drawn in another colour, and words drawn in two colours across
    the specs of one page: (words, colour)."""
    wrong, seen = [], {}
    for spec in specs:
        for domain, values in scales_in(spec):
            for label, value in zip(domain, values):
                meant = [colour for words, colour in WORDS.items() if label.startswith(words)]
                if meant and meant[0] != value:
                    wrong.append((label, value))
                if seen.setdefault(label, value) != value:
                    wrong.append((label, value))
    return wrong


def meanings_drawn(spec) -> set:
    return {colours.MEANINGS[value] for _, value in colours_in(spec) if value in colours.MEANINGS}


def schemes_in(spec) -> set:
    """The names of the colour schemes the spec's scales take their colours from."""
    if isinstance(spec, dict):
        found = {spec["scheme"]} if isinstance(spec.get("scheme"), str) else set()
        return found.union(*(schemes_in(value) for key, value in spec.items() if key not in SKIPPED))
    if isinstance(spec, list):
        return set().union(*(schemes_in(value) for value in spec))
    return set()


def drawn_by_meaning(specs: list, scheme: str) -> dict:
    """Every meaning the specs draw in the scheme: meaning -> {its colours as spelt}, the sequential scale's two ends
    where a scale takes its scheme."""
    meanings, drawn = MEANINGS_BY_SCHEME[scheme], {}
    for spec in specs:
        for _, value in colours_in(spec):
            if value in meanings:
                drawn.setdefault(meanings[value], set()).add(value)
        if colours.SEQUENTIAL in schemes_in(spec):
            drawn.update({f"sequential: {end}": {colour} for end, colour in colours.SEQUENTIAL_ENDS.items()})
    return drawn


def changed(spec, changes: list):
    """The spec with the page's changes for a dark page made ([path, value] to set, [path] to delete), as the page's
    script makes them (templates/js/shared/charts.js `changed`)."""
    spec = json.loads(json.dumps(spec))
    for change in changes:
        *path, last = change[0]
        at = spec
        for key in path:
            at = at[key]
        if len(change) > 1:
            at[last] = change[1]
        else:
            del at[last]
    return spec


# ---------------------------------------------------------------------------------------------- every kind


@pytest.fixture(scope="module")
def schemes(small_model_dir, tmp_path_factory) -> dict:
    """Each figure of tests/every_kind.toml: kind -> {scheme: its charts' specs}: light, the Vega-Lite download and
    the page's compiled main and narrow ones; dark, the page's two with their changes for a dark page made."""
    import tomllib

    site = built(small_model_dir, EVERY_KIND.read_text(encoding="utf-8"), tmp_path_factory.mktemp("every-kind"))
    out = {}
    for figure in tomllib.loads(EVERY_KIND.read_text(encoding="utf-8"))["figure"]:
        page = (site / f"figure-{figure['label']}.html").read_text(encoding="utf-8")
        download = site / "downloads" / f"figure-{figure['label']}.vega-lite.json"
        scripts = {name: json.loads(html.unescape(text)) for name, text in SCRIPT.findall(page)}
        # The narrow chart is carried as the changes that make it of the main one.
        charts = {"spec": scripts["spec"]}
        if "narrow" in scripts:
            charts["narrow"] = changed(scripts["spec"], scripts["narrow"])
        out[figure["kind"]] = {
            "light": [json.loads(download.read_text(encoding="utf-8")), *charts.values()],
            "dark": [changed(chart, scripts[DARK_OF[name]]) for name, chart in charts.items()],
        }
    return out


@pytest.fixture(scope="module")
def pages(schemes) -> dict:
    """kind -> its charts' specs on a light page."""
    return {kind: specs["light"] for kind, specs in schemes.items()}


def test_every_kinds_page_carries_its_charts(pages):
    import figures

    assert set(pages) == set(figures.KINDS)
    assert all(pages[kind] for kind in pages), [kind for kind in pages if not pages[kind]]


@pytest.mark.parametrize("scheme", PAGES)
def test_every_colour_a_chart_draws_is_a_declared_meanings(schemes, scheme):
    found = {
        kind: undeclared(spec, scheme)
        for kind, specs in schemes.items()
        for spec in specs[scheme]
        if undeclared(spec, scheme)
    }
    assert not found, f"colours that figures/toolkit/colours.py declares for no meaning on a {scheme} page: {found}"


def test_the_dark_pages_charts_carry_the_dark_pages_own_colours(schemes):
    """A dark page's charts draw the middle of a diverging scale in its background and what is out of reach black,
    and never the light page's colours for them."""
    dark = set().union(
        *(drawn_by_meaning(specs["dark"], "dark").get("out of reach", set()) for specs in schemes.values())
    )
    assert dark == {colours.IN_DARK[colours.MASKED], colours.IN_DARK[colours.OUT_OF_REACH]}, dark
    zero = [kind for kind, specs in schemes.items() if "zero" in drawn_by_meaning(specs["dark"], "dark")]
    assert sorted(zero) == ["patching", "scores"], zero
    light = {
        kind: value
        for kind, specs in schemes.items()
        for spec in specs["dark"]
        for _, value in colours_in(spec)
        if value in colours.IN_DARK
    }
    assert not light, light


@pytest.mark.parametrize("scheme", PAGES)
def test_every_two_meanings_the_pages_draw_look_apart_on_a_light_and_a_dark_page(schemes, scheme):
    """By perceived difference, not by colour string: every two meanings drawn anywhere on the site (the sequential
    scale's ends and the diverging scales' among them) differ by a ΔE00 of 20 or more as a reader sees them on the
    page, and a meaning drawn in two colours (a cell out of reach, the shade over one) draws two that look alike."""
    drawn = {}
    for specs in schemes.values():
        for meaning, found in drawn_by_meaning(specs[scheme], scheme).items():
            drawn.setdefault(meaning, set()).update(found)
    assert {
        "data",
        "chosen",
        "followed",
        "helps",
        "hurts",
        "below zero",
        "above zero",
        "reference",
        "out of reach",
        "sequential: little",
        "sequential: most",
    } <= set(drawn), sorted(drawn)
    close = too_close(drawn, scheme)
    assert not close, f"on a {scheme} page, meanings closer than they must be (ΔE00): {close}"


def test_a_legend_that_says_a_meaning_draws_it_in_that_meanings_colour_and_no_words_in_two(pages):
    found = {
        kind: words_in_the_wrong_colour(specs) for kind, specs in pages.items() if words_in_the_wrong_colour(specs)
    }
    assert not found, found


@pytest.mark.parametrize("kind", WHO_DID_IT)
def test_each_who_did_it_figure_draws_both_sides_in_the_same_two_colours(pages, kind):
    drawn = set().union(*(meanings_drawn(spec) for spec in pages[kind]))
    assert {"helps", "hurts"} <= drawn, drawn
    # And nothing else says which way a mark moves the answer: plain numbers' colours stay off these pages.
    assert not {"below zero", "above zero"} & drawn


def test_the_ledger_and_knockout_legends_name_each_side_in_the_chapters_words(pages):
    for kind in ("ledger", "knockout"):
        labels = {
            label: value
            for spec in pages[kind]
            for domain, values in scales_in(spec)
            for label, value in zip(domain, values)
        }
        assert any(label.startswith(colours.HELPS_WORDS) and value == colours.HELPS for label, value in labels.items())
        assert any(label.startswith(colours.HURTS_WORDS) and value == colours.HURTS for label, value in labels.items())


def test_question_and_keys_numbers_either_side_of_zero_take_neither_helps_nor_hurts(pages):
    drawn = set().union(*(meanings_drawn(spec) for spec in pages["scores"]))
    assert {"below zero", "above zero"} <= drawn and not {"helps", "hurts"} & drawn, drawn


def test_head_roles_draws_its_habits_and_no_colour_that_means_something_else_but_the_chosen_frame(pages):
    drawn = set().union(*(meanings_drawn(spec) for spec in pages["head-roles"]))
    assert {f"habit: {role}" for role in colours.ROLE_COLOURS} <= drawn
    assert not drawn & {"helps", "hurts", "below zero", "above zero", "followed"}, drawn


# ---------------------------------------------------------------------------------------------- the walk can fail


def test_the_walk_finds_two_meanings_that_look_alike_on_a_dark_page_only():
    """Issue 44's dark page: a grey out of reach the colour of a share's, and a diverging scale centred on white."""
    spec = {
        "layer": [
            {"mark": {"type": "rect", "color": "#2a1a3a"}},
            {"encoding": {"color": {"scale": {"scheme": colours.SEQUENTIAL}}}},
        ]
    }
    drawn = drawn_by_meaning([spec], "dark")
    assert drawn == {
        "sequential: little": {colours.SEQUENTIAL_ENDS["little"]},
        "sequential: most": {colours.SEQUENTIAL_ENDS["most"]},
    }
    drawn["out of reach"] = {"#2a1a3a"}  # as a grey out of reach would be drawn, were it this near a share's colour
    assert [close[:2] for close in too_close(drawn, "dark")] == [("out of reach", "sequential: little")]
    assert undeclared({"mark": {"color": colours.MASKED}}, "dark") == [(".mark.color", colours.MASKED)]
    assert undeclared({"mark": {"color": colours.MASKED}}, "light") == []


def test_a_dark_pages_changes_are_made_as_the_page_makes_them():
    spec = {"a": [{"fill": "#d4d4d4"}, {"fill": "#111"}], "b": 1}
    assert changed(spec, [[["a", 0, "fill"], "#000000"], [["b"]]]) == {"a": [{"fill": "#000000"}, {"fill": "#111"}]}
    assert spec["a"][0]["fill"] == "#d4d4d4"  # the page's spec itself is left as it was


def test_the_walk_finds_a_colour_no_meaning_declares():
    spec = {
        "layer": [
            {"mark": {"type": "bar", "color": "#123456"}},
            {
                "mark": "rule",
                "encoding": {"color": {"condition": {"test": "x", "value": colours.DATA}, "value": "#abcdef"}},
            },
        ],
        "datasets": {"rows": [{"token": "#123"}]},
    }  # a token's text in the data is no colour drawn
    assert [value for _, value in undeclared(spec)] == ["#123456", "#abcdef"]


def test_the_walk_finds_one_colour_standing_for_two_meanings():
    """A chart that draws the side that works against the answer in the colour of what helps it."""
    spec = {
        "encoding": {
            "color": {
                "field": "side",
                "scale": {
                    "domain": [colours.HELPS_WORDS, colours.HURTS_WORDS + ": lowers its score"],
                    "range": [colours.HELPS, colours.HELPS],
                },
            }
        }
    }
    assert words_in_the_wrong_colour([spec]) == [(colours.HURTS_WORDS + ": lowers its score", colours.HELPS)]


def test_the_walk_finds_one_meaning_drawn_in_two_colours():
    """The same legend words in two colours on one page, and a meaning's words in the colour of its opposite."""
    one = {"scale": {"domain": ["the earlier copy"], "range": [colours.ROLE_COLOURS["duplicate"]]}}
    two = {"scale": {"domain": ["the earlier copy"], "range": [colours.ROLE_COLOURS["induction"]]}}
    assert words_in_the_wrong_colour([one, two]) == [("the earlier copy", colours.ROLE_COLOURS["induction"])]
    swapped = {"scale": {"domain": [colours.HELPS_WORDS], "range": [colours.HURTS]}}
    assert words_in_the_wrong_colour([swapped]) == [(colours.HELPS_WORDS, colours.HURTS)]
