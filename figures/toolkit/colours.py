"""Every colour the figures give their marks, in one place: one meaning per colour, site-wide.

The roles below are the palette. A figure takes its colours from here by role and never spells one itself
(tests/unit/test_palette.py checks that no module of figures/ does, and that readers who see colours otherwise
can still tell apart the roles that meet in one chart: protanopia, deuteranopia and tritanopia simulated).
The marks keep the same colours on light and dark pages: each role stands out against both backgrounds (a
contrast of 3:1 or more, WCAG 2.2's 1.4.11 for the parts of a graphic). The theme's own colours (words, axes:
templates/chart_themes.json) are not set here.

Blue for the data and orange for what the reader chose, near the blue and vermilion of Okabe and Ito's palette for
colour-blind readers; for the two sides of zero a green and a wine red, neither of them the chosen orange, picked
by simulating the three deficiencies so that each stays apart from the data's blue, the chosen orange and each
other (the test's threshold and its reasons are in tests/unit/test_palette.py).
"""

from __future__ import annotations

# ---------------------------------------------------------------------------------------------- the roles

# Each role with a hue has its name beside it (DATA_NAME...): the words a guide names it by ("wine red below zero
# and green above"), taken from here so that they name the colour the marks are drawn in
# (tests/unit/test_palette.py checks each name against its colour's hue).

DATA = "#1b6ca8"  # every bar, line, point and block of the data that has no side: a share, a count, a chance
DATA_NAME = "blue"
CHOSEN = "#d95f02"  # what the reader chose or follows: the chosen token, the target, the chosen part
# (templates/static/site.css spells it too, as --chosen, for the token row: tests/unit/test_shared_names.py)
CHOSEN_NAME = "orange"
POSITIVE = "#18a66b"  # above zero, on the side that helps the target: a part that raises its score, a knockout
# after which the target is more likely, a number above zero
POSITIVE_NAME = "green"
NEGATIVE = "#994d6a"  # below zero, on the side that harms the target: a part that lowers its score, a knockout
# after which the target is less likely, a number below zero
NEGATIVE_NAME = "wine red"
REFERENCE = "#888"  # what stands aside: a dashed reference line, the zero line, a second point to compare with
OUT_OF_REACH = "#8883"  # the shade over what a token cannot see (the tokens after it): a translucent grey
MASKED = "#bdbdbd"  # a cell out of reach (a key after its query), drawn solid: a neutral grey no share's colour is
# (too light for words on a light page: words that stand aside are drawn as ASIDE says)
ASIDE = 0.8  # the opacity of words that stand aside (a key out of reach), drawn in the theme's own colour for words
# (none set here): faded, they still reach 4.5:1 on the light and the dark page (tests/unit/test_palette.py)
ON_DARK = "#fff"  # words written on a dark mark: a block of the data's colour (5.6:1), a dark cell of a scale
ON_LIGHT = "#111"  # words written on a light cell of a scale
ON_DATA = ON_DARK
CELL_LINE = "#8884"  # the thin line between the cells of a grid: no meaning, it only parts them

# A scale from none to most (a share, a chance, a distance): Vega's viridis, colour-blind safe; one way round
# everywhere: dark purple for little, yellow for most.
SEQUENTIAL = "viridis"
ZERO = "#f2f2f2"  # the middle of the diverging scale: a number near zero, on neither side
DIVERGING = (NEGATIVE, ZERO, POSITIVE)  # a scale of numbers either side of zero: below, zero, above

# The habits of heads (figures/roles.py), one colour each, from Okabe and Ito's palette for colour-blind readers;
# none of them is the chosen orange, which frames the chosen head.
ROLE_COLOURS = {"previous": "#56b4e9", "first": "#f0e442", "self": "#cc79a7", "duplicate": "#009e73",
                "induction": "#0072b2"}

# The roles that have a colour of their own, by name: no two share one (tests/unit/test_palette.py).
ROLES = {"data": DATA, "chosen": CHOSEN, "positive": POSITIVE, "negative": NEGATIVE, "reference": REFERENCE,
         "out of reach": MASKED, "zero": ZERO}

# The names of the roles with a hue, by their colour.
NAMES = {DATA: DATA_NAME, CHOSEN: CHOSEN_NAME, POSITIVE: POSITIVE_NAME, NEGATIVE: NEGATIVE_NAME}

# ---------------------------------------------------------------------------------------------- the meanings

# What a mark means to a reader, by name (issue 32: one meaning per colour on every page). Figures and guides name
# these; figures/toolkit/colours.py alone says which colour each is.
HELPS = POSITIVE  # helps the answer: a ledger part that raises the target's score, a part whose knockout lowers its
# chance, a piece whose patch brings the answer back
HELPS_NAME = POSITIVE_NAME
HURTS = NEGATIVE  # hurts the answer: the opposite of HELPS, on the same pages
HURTS_NAME = NEGATIVE_NAME
FOLLOWED = CHOSEN  # a followed token or a target (to be given a colour of its own)
FOLLOWED_NAME = CHOSEN_NAME

# ---------------------------------------------------------------------------------------------- older names

MAIN = DATA  # the names the figures used first; they stay, as other names of the same roles
ACCENT = CHOSEN
GREY = REFERENCE
