"""One meaning per colour, site-wide (figures/toolkit/colours.py): every two meanings (the sequential scale's ends
among them) look apart on a light and a dark page, readers who see colours otherwise can still tell apart the
meanings that meet in one chart, a dark page's own colours are what they must be (out of reach darker than any share,
the middle of a diverging scale the page's background), every meaning a mark is drawn in stands out on a light and a
dark page, each is named by a word readers would use for its colour, and no module of figures/ spells a colour or a
colour scheme of its own (tests/kinds/test_one_meaning_per_colour.py checks the charts, light and dark).

Colour-blind readers are simulated with Machado, Oliveira and Fernandes (2009) at full severity (protanopia,
deuteranopia, tritanopia), as the library coloraide implements it; the difference of two colours is CIEDE2000
(ΔE00), both from coloraide, not from the code under test.
"""

from __future__ import annotations

import ast
import json
import re
from itertools import combinations
from pathlib import Path

import pytest

coloraide = pytest.importorskip("coloraide")  # the test extras install it (pyproject.toml)
from coloraide import Color  # noqa: E402
from coloraide.css import color_names  # noqa: E402

from figures.picture import VIRIDIS_STOPS  # noqa: E402
from figures.toolkit import colours  # noqa: E402
from seen_colours import PAGES, declared, too_close  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FIGURES = ROOT / "figures"
DEFICIENCIES = ("protan", "deutan", "tritan")

# Two roles that meet in one chart must differ by this much for every reader. A ΔE00 of about 1 is the smallest
# difference seen between two large patches side by side; for marks the size of a chart's bars and points about
# 5 is needed before half of viewers see one (Stone, Szafir and Setlur, "An engineering model for color
# difference as a function of size", 2014). Twice that: told apart at a glance, not on a close look.
APART = 10
HABITS = [f"habit: {role}" for role in colours.ROLE_COLOURS]
HUES = ("data", "chosen", "followed", "helps", "hurts", "below zero", "above zero", *HABITS)

# The meanings that meet in one chart, and where.
MEET = [
    ("helps", "hurts"),  # the ledger's waterfall, the knockout's bars, the patching's squares
    ("chosen", "helps"),
    ("chosen", "hurts"),  # the ledger's and knockout's chosen part, the patching's chosen square
    ("data", "helps"),
    ("data", "hurts"),  # the ledger's total among its parts
    ("followed", "helps"),
    ("followed", "hurts"),  # the ledger: the target's chance beside the parts
    ("data", "chosen"),  # (l), the scores' bars: the chosen token among the others
    ("data", "followed"),  # (i), the live read-out: the target's bar among the others; the lens's lines
    ("chosen", "followed"),  # the lens: the chosen cell outlined above the followed token's line
    ("data", "reference"),
    ("chosen", "reference"),
    ("followed", "reference"),  # a dashed line across the bars or curve
    ("data", "out of reach"),
    ("chosen", "out of reach"),  # (l): the tokens after the chosen one
    ("below zero", "above zero"),  # the scores' strips
    ("chosen", "below zero"),
    ("chosen", "above zero"),  # the scores' chosen row framed
    ("data", "below zero"),
    ("data", "above zero"),  # the scores' bars below the strips
    *combinations(HABITS, 2),  # head-roles' grid, each head in its strongest habit's colour
    *[("chosen", habit) for habit in HABITS],  # the chosen head framed
]


def simulated(colour: str, deficiency: str | None) -> Color:
    """The colour as a reader with the deficiency sees it (None: full colour vision), in sRGB."""
    seen = Color(colour)
    return seen if deficiency is None else seen.filter(deficiency, method="machado").convert("srgb").clip()


def difference(a: str, b: str, deficiency: str | None = None) -> float:
    return simulated(a, deficiency).delta_e(simulated(b, deficiency), method="2000")


def page_colours() -> dict:
    """The page's background in the light and the dark scheme, as templates/static/site.css sets --paper."""
    css = (ROOT / "templates" / "static" / "site.css").read_text(encoding="utf-8")
    light, dark = re.findall(r"--paper:\s*(#[0-9a-fA-F]{3,6})", css)[:2]
    return {"light": light, "dark": dark}


def test_no_two_meanings_share_a_colour():
    seen = {Color(value).to_string(hex=True): role for role, value in colours.ROLES.items()}
    assert len(seen) == len(colours.ROLES), colours.ROLES
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
        "zero",
        *HABITS,
    } == set(colours.ROLES)


def test_followed_helps_hurts_and_plain_numbers_are_each_a_meaning_of_their_own():
    """Issue 32: the followed token is no longer the chosen one's colour, and a plain number above or below zero is
    neither helps nor hurts; the scales take their ends from the meanings."""
    assert colours.FOLLOWED != colours.CHOSEN
    assert not {colours.BELOW_ZERO, colours.ABOVE_ZERO} & {colours.HELPS, colours.HURTS}
    assert colours.DIVERGING == (colours.BELOW_ZERO, colours.ZERO, colours.ABOVE_ZERO)
    assert colours.HELPS_OR_HURTS == (colours.HURTS, colours.ZERO, colours.HELPS)
    assert not set(colours.ROLE_COLOURS.values()) & {colours.ROLES[m] for m in colours.ROLES if m not in HABITS}


def test_the_older_names_are_the_same_meanings():
    assert (colours.MAIN, colours.ACCENT, colours.GREY) == (colours.DATA, colours.CHOSEN, colours.REFERENCE)
    assert (colours.POSITIVE, colours.NEGATIVE) == (colours.ABOVE_ZERO, colours.BELOW_ZERO)


@pytest.mark.parametrize("scheme", PAGES)
def test_with_full_colour_vision_every_two_meanings_are_apart_on_a_light_and_a_dark_page(scheme):
    """Every two meanings, the sequential scale's ends and the diverging scales' among them, differ by a ΔE00 of
    tests/seen_colours.py's APART or more as a reader sees them on the scheme's page (issue 44: the first token's
    yellow was the sequential scale's most)."""
    close = too_close(declared(scheme), scheme)
    assert not close, f"meanings closer than they must be on a {scheme} page (ΔE00): {close}"


def test_the_check_of_two_meanings_finds_a_habit_in_the_sequential_scales_yellow():
    drawn = {**declared("light"), "habit: first": {"#eeee00"}}
    assert [close[:2] for close in too_close(drawn, "light")] == [("habit: first", "sequential: most")]


def test_the_sequential_scales_ends_are_viridis_ends():
    assert colours.SEQUENTIAL == "viridis"
    assert colours.SEQUENTIAL_ENDS == {"little": "#" + VIRIDIS_STOPS[:6], "most": "#" + VIRIDIS_STOPS[-6:]}


def test_on_a_dark_page_out_of_reach_is_darker_than_any_share_and_zero_is_the_page():
    """Issue 44: the light grey of what is out of reach was the brightest thing on a dark page's grids, and the
    diverging scales' white middle a glare."""
    dark = colours.ROLES_IN_DARK
    lightness = {
        colour: Color(colour).convert("lab-d65").coords()[0]
        for colour in (dark["out of reach"], colours.SEQUENTIAL_ENDS["little"])
    }
    assert lightness[dark["out of reach"]] < lightness[colours.SEQUENTIAL_ENDS["little"]], lightness
    assert dark["zero"] == colours.PAPER["dark"] and colours.ROLES["zero"] == colours.PAPER["light"]
    assert set(colours.IN_DARK) == {colours.MASKED, colours.OUT_OF_REACH, colours.ZERO}
    assert colours.MASKED_KEY_IN_DARK.startswith("black") and "darker than any share" in colours.MASKED_KEY_IN_DARK


def test_in_greys_every_meaning_with_a_hue_has_a_grey_and_the_habits_are_a_fifth_apart():
    """The print edition in greys ([print] greyscale = true): each meaning with a hue is printed in a grey of its
    own, and the habits, side by side in head roles' grid, a fifth of the way from black to white apart or more
    (tests/builds/test_print_edition.py prints them)."""
    assert set(colours.GREYS) == set(colours.NAMES)
    assert len(set(colours.GREYS.values())) == len(colours.GREYS), "two meanings printed in one grey"
    assert all(
        Color(grey).convert("srgb").coords()[0] == Color(grey).convert("srgb").coords()[2]
        for grey in colours.GREYS.values()
    )
    levels = sorted(int(colours.GREYS[colour][1:3], 16) for colour in colours.ROLE_COLOURS.values())
    assert min(b - a for a, b in zip(levels, levels[1:])) >= 255 / 5, levels


def test_the_pages_background_is_the_one_site_css_gives_it():
    page = page_colours()
    assert {scheme: Color(page[scheme]).to_string(hex=True) for scheme in PAGES} == {
        scheme: Color(colours.PAPER[scheme]).to_string(hex=True) for scheme in PAGES
    }


@pytest.mark.parametrize("deficiency", DEFICIENCIES)
def test_readers_who_see_colours_otherwise_tell_apart_the_roles_that_meet_in_one_chart(deficiency):
    close = [
        (a, b, round(difference(colours.ROLES[a], colours.ROLES[b], deficiency), 1))
        for a, b in MEET
        if difference(colours.ROLES[a], colours.ROLES[b], deficiency) < APART
    ]
    assert not close, f"{deficiency}: roles closer than ΔE00 {APART}: {close}"


# For each deficiency, two colours of Vega's own schemes that full colour vision tells far apart and that
# readers with it confuse: red and green (tableau10's, or pure red and web green), pink and orange.
CONFUSED = {"protan": ("#ff0000", "#008000"), "deutan": ("#d62728", "#2ca02c"), "tritan": ("#e377c2", "#ff7f0e")}


@pytest.mark.parametrize("deficiency", DEFICIENCIES)
def test_the_simulation_finds_a_pair_that_readers_with_the_deficiency_confuse(deficiency):
    """The check can fail: each simulated deficiency brings a known pair closer than APART."""
    a, b = CONFUSED[deficiency]
    assert difference(a, b) > 3 * APART
    assert difference(a, b, deficiency) < APART


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_role_a_mark_is_drawn_in_stands_out_on_the_page(scheme):
    """WCAG 2.2, 1.4.11: the parts of a graphic needed to read it, 3:1 against what is next to them. The marks
    keep their colours in the dark scheme, so each must stand out on both."""
    paper = page_colours()[scheme]
    marks = {role: colours.ROLES[role] for role in ("data", "chosen", "followed", "helps", "hurts", "reference")}
    faint = {
        role: round(Color(value).contrast(paper), 2)
        for role, value in marks.items()
        if Color(value).contrast(paper) < 3
    }
    assert not faint, f"against the {scheme} page ({paper}): {faint}"
    assert Color(colours.ON_DATA).contrast(colours.DATA) >= 4.5  # words on a block of the data's colour (AA)


# ---------------------------------------------------------------------------------------------- named in words

# The hues (OKLCh, in degrees) that the name of a colour covers, as readers use the names: a guide that says "green"
# must point at a mark they would call green. Wine red: a dark red leaning to purple, not a light pink.
HUES_NAMED = {
    "blue": (220, 275),
    "orange": (30, 75),
    "green": (125, 180),
    "wine red": (330, 380),
    "purple": (285, 330),
    "brown": (40, 95),
    "cyan": (195, 235),
    "periwinkle blue": (250, 290),
    "yellow": (95, 120),
    "pink": (330, 375),
    "dark teal": (160, 200),
    "indigo": (265, 300),
    "tan": (60, 95),
    "navy": (240, 275),
}
# And the lightness (OKLCh, 0 to 1) some names need: brown and wine red are dark, pink and periwinkle light, tan a
# light brown of little colour.
LIGHTNESS_NAMED = {
    "wine red": (0, 0.6),
    "brown": (0, 0.6),
    "dark teal": (0, 0.5),
    "indigo": (0, 0.5),
    "pink": (0.7, 1),
    "periwinkle blue": (0.6, 1),
    "yellow": (0.8, 1),
    "tan": (0.6, 0.85),
    "navy": (0, 0.4),
}


def named_right(colour: str, name: str) -> bool:
    """Whether `name` is a word readers would use for `colour`: its hue in the name's range, its lightness in the
    name's where the name says it (wine red is dark)."""
    lightness, _, hue = Color(colour).convert("oklch").coords()
    low, high = HUES_NAMED[name]
    hue = hue + 360 if hue < low else hue
    darkest, lightest = LIGHTNESS_NAMED.get(name, (0, 1))
    return low <= hue <= high and darkest <= lightness <= lightest


def test_each_role_with_a_hue_has_the_name_of_its_colour():
    assert set(colours.NAMES) == {colours.ROLES[role] for role in HUES}
    wrong = {name: value for value, name in colours.NAMES.items() if not named_right(value, name)}
    assert not wrong, f"colours whose names readers would not use for them: {wrong}"


def test_the_check_of_a_name_finds_a_colour_called_by_another_colours_name():
    assert not named_right(colours.HURTS, "blue") and not named_right(colours.HELPS, "orange")
    assert not named_right(colours.FOLLOWED, "blue") and not named_right(colours.CHOSEN, "brown")
    assert not named_right("#f4a6c0", "wine red")  # a light pink is no wine red


def theme_words(scheme: str) -> str:
    """The colour the charts' theme gives words in the light or the dark scheme (templates/chart_themes.json)."""
    themes = json.loads((ROOT / "templates" / "chart_themes.json").read_text(encoding="utf-8"))
    return themes[scheme]["text"]["color"]


def over(colour: str, opacity: float, paper: str) -> Color:
    """`colour` drawn at `opacity` over `paper`: what the reader sees."""
    return Color.mix(Color(paper), Color(colour), opacity, space="srgb")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_words_that_stand_aside_still_read_on_the_page(scheme):
    """WCAG 2.2, 1.4.3: words 4.5:1 against the page. Words that stand aside (a key out of reach) take the theme's
    colour for words, faded to colours.ASIDE; the solid grey of a cell out of reach would not do on a light page."""
    paper = page_colours()[scheme]
    assert over(theme_words(scheme), colours.ASIDE, paper).contrast(paper) >= 4.5
    if scheme == "light":
        assert Color(colours.MASKED).contrast(paper) < 4.5


# ---------------------------------------------------------------------------------------------- spelled elsewhere

# Vega's colour schemes (https://vega.github.io/vega/docs/schemes/), by name; Vega reads them in any case.
SCHEMES = {
    name.lower()
    for name in """
    accent category10 category20 category20b category20c dark2 paired pastel1 pastel2 set1 set2 set3 tableau10
    tableau20 observable10 blues tealBlues teals greens browns oranges reds purples warmGreys greys viridis magma
    inferno plasma cividis turbo blueGreen bluePurple goldGreen goldOrange goldRed greenBlue orangeRed
    purpleBlueGreen purpleBlue purpleRed redPurple yellowGreenBlue yellowGreen yellowOrangeBrown yellowOrangeRed
    darkBlue darkGold darkGreen darkMulti darkRed lightGreyRed lightGreyTeal lightMulti lightOrange lightTealBlue
    blueOrange brownBlueGreen purpleGreen pinkYellowGreen purpleOrange redBlue redGrey redYellowBlue
    redYellowGreen spectral rainbow sinebow""".split()
}
HEX = re.compile(r"^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")
NOT_A_COLOUR = {"transparent"}  # no colour at all: what a mark that only catches clicks is filled with


def docstrings(tree: ast.AST) -> set:
    """The ids of the string constants that are a module's, class's or function's docstring."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def colours_spelled(path: Path) -> list:
    """Every string in the module's code (comments and docstrings aside) that names a colour or a colour scheme:
    a hex colour, a CSS colour name, a Vega scheme name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = docstrings(tree)
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skip
        and node.value not in NOT_A_COLOUR
        and (HEX.match(node.value) or node.value.lower() in SCHEMES or color_names.has_name(node.value.lower()))
    ]


def test_the_check_finds_a_colour_spelled_in_code_and_not_in_words(tmp_path):
    module = tmp_path / "figure.py"
    module.write_text(
        '"""Drawn in viridis, with white words."""\n# "#abc" in a comment\n'
        'a = alt.Scale(scheme="viridis")\nb = alt.value("white")\nc = "#1b6ca8"\nd = "the view"\n'
    )
    assert sorted(colours_spelled(module)) == ["#1b6ca8", "viridis", "white"]


@pytest.mark.parametrize(
    "path",
    sorted(p for p in FIGURES.rglob("*.py") if p.name != "colours.py"),
    ids=lambda path: str(path.relative_to(FIGURES)),
)
def test_every_figure_module_takes_its_colours_from_colours_py(path):
    assert not colours_spelled(path), "name the role in figures/toolkit/colours.py and use it from there"
