"""Every colour the figures give their marks, in one place. MAIN and ACCENT are colour-blind safe (Okabe-Ito-like
blue and orange) on light and dark pages alike; the theme's own colours (words, axes: templates/chart_themes.json)
are not set here."""

from __future__ import annotations

MAIN = "#1b6ca8"  # every bar, line and point of the data
ACCENT = "#d95f02"  # what the reader chose or follows: the chosen token, the target, the chosen square's outline
GREY = "#888"  # what stands aside: a dashed reference line, a total, a second point to compare with
MASKED = "#bdbdbd"  # a cell out of reach (a key after its query): a neutral grey that no share's colour is
OUT_OF_REACH = "#8883"  # the shade over the tokens after the chosen one: a translucent grey
CELL_LINE = "#8884"  # the thin line between the cells of a grid
