"""How far apart two colours look on a page: the colour a reader sees (a translucent one over the page's background)
and the difference of two, CIEDE2000 (ΔE00), from the library coloraide, not from the code under test.

Shared by tests/unit/test_palette.py (the meanings as figures/toolkit/colours.py declares them) and
tests/kinds/test_one_meaning_per_colour.py (the meanings as every kind's charts draw them, light and dark).
"""

from __future__ import annotations

from itertools import combinations

from coloraide import Color

from figures.toolkit import colours

PAGES = ("light", "dark")  # the two schemes a page is drawn in
# Two meanings must differ by this much on the page, as a reader with full colour vision sees them: each a colour
# of its own by name, not a shade of another (a ΔE00 of about 5 is needed before half of viewers see a difference
# between marks of a chart's size, Stone, Szafir and Setlur 2014; four times that, a different colour at a glance).
APART = 20
# The middle of a diverging scale is the page's own colour (colours.ZERO): the page showing through, not a colour
# of a meaning, so it is no meaning that others must keep away from.
THE_PAGE = "zero"


def seen(colour: str, scheme: str) -> Color:
    """`colour` as a reader sees it on the scheme's page: a translucent colour drawn over the page's background."""
    drawn = Color(colour)
    opacity = drawn.alpha()
    return Color.mix(Color(colours.PAPER[scheme]), drawn.set("alpha", 1), opacity, space="srgb")


def difference(a: str, b: str, scheme: str) -> float:
    """ΔE00 between `a` and `b` as a reader sees them on the scheme's page."""
    return seen(a, scheme).delta_e(seen(b, scheme), method="2000")


def too_close(drawn: dict, scheme: str) -> list:
    """Every two meanings (drawn: meaning -> its colours) closer than APART on the scheme's page, and every meaning
    drawn in colours that do not look alike (further apart than a fifth of APART): (meaning, meaning, ΔE00, colours),
    the closest first. The page's own colour (THE_PAGE) is left out."""
    found = []
    meanings = sorted(meaning for meaning in drawn if meaning != THE_PAGE)
    for a, b in combinations(meanings, 2):
        for x in sorted(drawn[a]):
            for y in sorted(drawn[b]):
                if difference(x, y, scheme) < APART:
                    found.append((a, b, round(difference(x, y, scheme), 1), (x, y)))
    for meaning in meanings:
        for x, y in combinations(sorted(drawn[meaning]), 2):
            if difference(x, y, scheme) > APART / 5:
                found.append((meaning, meaning, round(difference(x, y, scheme), 1), (x, y)))
    return sorted(found, key=lambda close: close[2])


def declared(scheme: str) -> dict:
    """Every meaning figures/toolkit/colours.py declares, drawn on the scheme's page: meaning -> {its colours}, the
    sequential scale's two ends among them, and the shade over what is out of reach with a cell out of reach."""
    roles = colours.ROLES if scheme == "light" else colours.ROLES_IN_DARK
    drawn = {meaning: {colour} for meaning, colour in roles.items()}
    shade = colours.OUT_OF_REACH if scheme == "light" else colours.IN_DARK[colours.OUT_OF_REACH]
    drawn["out of reach"].add(shade)
    drawn.update({f"sequential: {end}": {colour} for end, colour in colours.SEQUENTIAL_ENDS.items()})
    return drawn
