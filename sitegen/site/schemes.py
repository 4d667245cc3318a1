"""A chart as a dark page draws it: the few colours that are the page's own drawn as the dark scheme has them.

The marks keep their colours on a dark page but for those figures.toolkit.colours.IN_DARK names: the middle of a
diverging scale, which is the page's background, and what is out of reach, black, darker than any share. Each is
put in wherever the chart spells it (a mark's colour, a scale's range, a picture's palette: the heads grid's PNG,
figures.heads.grid_picture), and the key to what is out of reach says what it is in the dark (MASKED_KEY_IN_DARK).
The chart's data are left as they are: a token may look like a colour. The charts' theme (words, axes) is
templates/chart_themes.json's dark one, which sitegen.site.drawing compiles the chart with as well.
"""

from __future__ import annotations

import base64
import re

from figures.picture import repaletted
from figures.toolkit.colours import IN_DARK, MASKED_KEY, MASKED_KEY_IN_DARK

DATA_KEYS = {"data", "datasets"}  # the chart's data: a reader's text, never a colour of the chart
PICTURE = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=]+)")
HEX = re.compile(r"#[0-9A-Fa-f]{3,8}\b")


def in_dark(spec):
    """The Vega-Lite spec (or any part of it) with the dark page's colours and words (module docstring)."""
    if isinstance(spec, dict):
        return {key: value if key in DATA_KEYS else in_dark(value) for key, value in spec.items()}
    if isinstance(spec, list):
        return [in_dark(value) for value in spec]
    if isinstance(spec, str):
        return _words_in_dark(spec)
    return spec


def _words_in_dark(text: str) -> str:
    """A string of the spec in the dark: its colours (alone, or in an expression), its pictures, its key's words."""
    if "#" in text:
        colours = {colour.lower(): dark for colour, dark in IN_DARK.items()}
        text = HEX.sub(lambda found: colours.get(found.group().lower(), found.group()), text)
    if text.startswith("data:image/png"):
        text = PICTURE.sub(lambda found: "data:image/png;base64," + base64.b64encode(
            repaletted(base64.b64decode(found.group(1)), PALETTE)).decode("ascii"), text)
    return text.replace(MASKED_KEY, MASKED_KEY_IN_DARK)


def rgb(colour: str) -> tuple:
    """'#d4d4d4' (or '#ddd') as (212, 212, 212)."""
    digits = colour[1:] if len(colour) > 4 else "".join(c * 2 for c in colour[1:])
    return tuple(int(digits[i:i + 2], 16) for i in (0, 2, 4))


# The pictures' palettes: their solid colours only (a translucent one is no palette's).
PALETTE = {rgb(colour): rgb(dark) for colour, dark in IN_DARK.items() if len(colour) in (4, 7)}
# What the dark charts depend on besides their spec and theme: kept with them in the build's cache.
CACHE_KEY = [sorted(IN_DARK.items()), MASKED_KEY, MASKED_KEY_IN_DARK]
