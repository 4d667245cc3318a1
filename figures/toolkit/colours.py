"""Every colour the figures give their marks, in one place: one meaning per colour, site-wide (issue 32).

Each meaning below is declared once, with a colour no other meaning has: a reader who has learnt on one page what
green means reads it the same way on every other. A figure takes its colours from here by meaning and never spells
one itself (tests/unit/test_palette.py checks that no module of figures/ does, that every two meanings differ by a
CIEDE2000 of 20 or more as the reader sees them on a light and on a dark page, the ends of the sequential and the
diverging scales among them, and that readers who see colours otherwise can still tell apart the meanings that meet
in one chart: protanopia, deuteranopia and tritanopia simulated; tests/kinds/test_one_meaning_per_colour.py walks
every kind's chart, light and dark, and finds no other colour, and no meaning drawn in two). The marks keep the same
colours on light and dark pages, each standing out against both backgrounds (a contrast of 3:1 or more, WCAG 2.2's
1.4.11 for the parts of a graphic), but for the few that are the page's own (IN_DARK): the middle of a diverging
scale, which is the page's background, and what is out of reach, darker than any share on a dark page. The theme's
own colours (words, axes: templates/chart_themes.json) are not set here.

Blue for the data and orange for what the reader chose, near the blue and vermilion of Okabe and Ito's palette for
colour-blind readers; a purple for the token a figure follows; green for what helps the answer and wine red for
what works against it; brown and cyan for plain numbers either side of zero, which neither help nor hurt; and the
habits of heads in colours of their own. Each was picked by simulating the three deficiencies so that it stays
apart from the others it meets (the test's threshold and its reasons are in tests/unit/test_palette.py).
"""

from __future__ import annotations

from typing import Final, Literal

# ---------------------------------------------------------------------------------------------- the meanings

# Each meaning with a hue has its name beside it (DATA_NAME...): the words a guide names it by ("green: that piece
# brings the answer back"), taken from here so that they name the colour the marks are drawn in
# (tests/unit/test_palette.py checks each name against its colour's hue).

DATA = "#1b6ca8"  # every bar, line, point and block of the data that has no side: a share, a count, a chance
DATA_NAME = "blue"
CHOSEN = "#d95f02"  # what the reader chose: the chosen token, the chosen part, head or square
# (templates/static/site.css spells it too, as --chosen, for the token row: tests/unit/test_shared_names.py)
CHOSEN_NAME = "orange"
FOLLOWED = "#aa66ee"  # the token a figure follows: a target, the lens's tracked token, its chance layer by layer
FOLLOWED_NAME = "purple"
HELPS = "#18a66b"  # helps the answer: a ledger part that raises the target's score, a part whose knockout lowers
# its chance, a piece whose patch brings the original answer back
HELPS_NAME = "green"
HURTS = "#994d6a"  # works against the answer: a ledger part that lowers the target's score, a part whose knockout
# raises its chance, a piece whose patch pushes the answer further away
HURTS_NAME = "wine red"
# What a legend says of each side, in the chapter's words; a legend's label that starts with them is drawn in
# their colour (tests/kinds/test_one_meaning_per_colour.py).
HELPS_WORDS = "helps the answer"
HURTS_WORDS = "works against the answer"
BELOW_ZERO = "#7a5500"  # a plain number below zero (a question's or a description's), which neither helps nor hurts
BELOW_ZERO_NAME = "brown"
ABOVE_ZERO = "#11aacc"  # a plain number above zero
ABOVE_ZERO_NAME = "cyan"
REFERENCE = "#888"  # neutral, what stands aside: a dashed reference line, the zero line, a second bar to compare with
MASKED = "#d4d4d4"  # a cell out of reach (a key after its query), drawn solid: a light grey no share's colour is, far
# enough from the reference's grey to be told from it (too light for words on a light page: words that stand aside
# are drawn as ASIDE says); on a dark page black (IN_DARK), darker than any share
OUT_OF_REACH = MASKED + "cc"  # the shade over what a token cannot see (the tokens after it): a cell out of reach's
# colour, a little translucent so that the lines of the chart's grid show through it
# (templates/static/site.css spells both schemes' too, as --out-of-reach, for the token row)
PAPER = {"light": "#ffffff", "dark": "#161616"}  # the page's background in each scheme (site.css --paper)
ZERO = PAPER["light"]  # the middle of a diverging scale: near zero, on neither side, so the page's own colour: a
# square that changes nothing is blank, and only the squares that move the answer stand out from the page

# The habits of heads (figures/roles.py), one colour each, that mean nothing else on the site: none is a colour
# above, and each stays apart from the others for readers who see colours otherwise (the grid shows them side
# by side) and from the chosen orange, which frames the chosen head. None is a red either, which a reader who has
# met the wine red of what works against the answer would read as that (issue 32: a brick red and a rose were).
# Nor a yellow, which is the sequential scale's most (issue 44: the first token's yellow was), nor a green (the
# earlier copy's dark teal was near what helps the answer).
ROLE_COLOURS = {
    "previous": "#7799ee",
    "first": "#bb9966",
    "self": "#ff99cc",
    "duplicate": "#113366",
    "induction": "#4411ff",
}
ROLE_NAMES = {"previous": "periwinkle blue", "first": "tan", "self": "pink", "duplicate": "navy", "induction": "indigo"}

# ---------------------------------------------------------------------------------------------- no meaning

ASIDE = 0.8  # the opacity of words that stand aside (a key out of reach), drawn in the theme's own colour for words
# (none set here): faded, they still reach 4.5:1 on the light and the dark page (tests/unit/test_palette.py)
ON_DARK = "#fff"  # words written on a dark mark: a block of the data's colour (5.6:1), a dark cell of a scale
ON_LIGHT = "#111"  # words written on a light cell of a scale
ON_DATA = ON_DARK
CELL_LINE = "#8884"  # the thin line between the cells of a grid: no meaning, it only parts them
# Colours that carry no meaning of their own: words on a mark, the lines between cells.
NO_MEANING = (ON_DARK, ON_LIGHT, CELL_LINE)

# ---------------------------------------------------------------------------------------------- scales

# A scale from none to most (a share, a chance, a distance): Vega's viridis, colour-blind safe; one way round
# everywhere: dark purple for little, yellow for most. Its two ends are meanings too, which no other may come near.
SequentialScheme = Literal["viridis"]  # its name as Altair's scales take it
SEQUENTIAL: Final[SequentialScheme] = "viridis"
SEQUENTIAL_ENDS = {"little": "#440154", "most": "#fde725"}  # figures.picture.VIRIDIS_STOPS's first and last
DIVERGING = (BELOW_ZERO, ZERO, ABOVE_ZERO)  # plain numbers either side of zero: below, zero, above
HELPS_OR_HURTS = (HURTS, ZERO, HELPS)  # how much a piece helps the answer: against it, not at all, for it

# ---------------------------------------------------------------------------------------------- every meaning

# Every meaning with a colour of its own, by name: no two share one (tests/unit/test_palette.py), and a chart
# draws no other (tests/kinds/test_one_meaning_per_colour.py).
ROLES = {
    "data": DATA,
    "chosen": CHOSEN,
    "followed": FOLLOWED,
    "helps": HELPS,
    "hurts": HURTS,
    "below zero": BELOW_ZERO,
    "above zero": ABOVE_ZERO,
    "reference": REFERENCE,
    "out of reach": MASKED,
    "zero": ZERO,
    **{f"habit: {role}": colour for role, colour in ROLE_COLOURS.items()},
}
# The shade over what is out of reach means what a cell out of reach means.
MEANINGS = {**{colour: meaning for meaning, colour in ROLES.items()}, OUT_OF_REACH: "out of reach"}

# ---------------------------------------------------------------------------------------------- on a dark page

# The colours a dark page draws otherwise (sitegen.site.schemes.in_dark puts them in the dark scheme's charts and
# pictures): the middle of a diverging scale is the page's background, not a white glare, and what is out of reach is
# black, darker than any share of the sequential scale (its darkest, SEQUENTIAL_ENDS["little"], is a dark purple), so
# that "the brighter, the larger" holds for every cell; its key says so (MASKED_KEY_IN_DARK).
MASKED_IN_DARK = "#000000"
IN_DARK = {MASKED: MASKED_IN_DARK, OUT_OF_REACH: MASKED_IN_DARK + "cc", ZERO: PAPER["dark"]}
# Every meaning's colour on a dark page, by name.
ROLES_IN_DARK = {meaning: IN_DARK.get(colour, colour) for meaning, colour in ROLES.items()}

# The names of the meanings with a hue, by their colour.
NAMES = {
    DATA: DATA_NAME,
    CHOSEN: CHOSEN_NAME,
    FOLLOWED: FOLLOWED_NAME,
    HELPS: HELPS_NAME,
    HURTS: HURTS_NAME,
    BELOW_ZERO: BELOW_ZERO_NAME,
    ABOVE_ZERO: ABOVE_ZERO_NAME,
    **{ROLE_COLOURS[role]: name for role, name in ROLE_NAMES.items()},
}

# ---------------------------------------------------------------------------------------------- older names

MAIN = DATA  # the names the figures used first; they stay, as other names of the same meanings
ACCENT = CHOSEN
GREY = REFERENCE
POSITIVE, POSITIVE_NAME = ABOVE_ZERO, ABOVE_ZERO_NAME  # a plain number's sides of zero
NEGATIVE, NEGATIVE_NAME = BELOW_ZERO, BELOW_ZERO_NAME

# ---------------------------------------------------------------------------------------------- in black ink

# The print edition in greys ([print] greyscale = true; sitegen.site.printing.in_greys): each meaning with a hue
# drawn in a grey of its own, the meanings that meet in one chart apart in lightness by a fifth of the way from
# black to white or more (the data's dark against the chosen one's light, the followed token's between them; what
# helps darkest, what hurts light; a plain number's sides dark and light), so that black ink tells them apart. The
# greys already (the reference, what is out of reach, zero, the words and lines) stay as they are.
# The habits, which meet in one grid, a fifth apart each, their greys running as their colours' lightness does (the
# navy darkest, the pink and the tan lightest).
# The ledger draws four of them side by side (the data, the followed token, what helps, what hurts): 30, 90, 150, 210.
GREYS = {
    DATA: "#5a5a5a",
    CHOSEN: "#b0b0b0",
    FOLLOWED: "#969696",
    HELPS: "#1e1e1e",
    HURTS: "#d2d2d2",
    BELOW_ZERO: "#222222",
    ABOVE_ZERO: "#b8b8b8",
    ROLE_COLOURS["previous"]: "#7e7e7e",
    ROLE_COLOURS["first"]: "#ececec",
    ROLE_COLOURS["self"]: "#b5b5b5",
    ROLE_COLOURS["duplicate"]: "#101010",
    ROLE_COLOURS["induction"]: "#474747",
}
# The key to what is out of reach: grey on a light page, black on a dark one (IN_DARK), hatched in greys
# (sitegen.site.vector_pictures); each edition's charts say so in these words (sitegen.site.schemes, printing).
MASKED_KEY = "grey: out of reach"
MASKED_KEY_IN_DARK = "black, darker than any share: out of reach"
MASKED_KEY_IN_GREYS = "hatched: out of reach"
GREY_SCHEME = "greys"  # the sequential scale in greys: light for little, dark for most (its legend says so)
