"""Pictures drawn in Python: palette and RGBA PNGs, and the colours of Vega's viridis scale.

A grid of thousands of cells is one picture in a page rather than thousands of marks, which would take the
browser seconds to draw (figures.heads). Its colours must be the ones Vega gives the same shares elsewhere.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Mapping, Sequence

RGB = tuple[int, int, int]  # a colour: red, green, blue, each 0 to 255


# Vega's "viridis" (vega-scale): these stops, interpolated piecewise in RGB. The grid's picture is coloured with
# it in Python; the larger square and the legend use Vega's own scale, so the two must stay the same scheme.
VIRIDIS_STOPS = (
    "440154470e61481a6c482575472f7d443a834144873d4e8a39568c35608d31688e2d708e2a788e27818e23888e21918d"
    "1f988b1fa08822a8842ab07f35b77943bf7154c56866cc5d7ad1518fd744a5db36bcdf27d2e21be9e51afde725"
)


def viridis(t: float) -> RGB:
    """The colour Vega's viridis scale gives t in [0, 1], as (r, g, b)."""
    return stops_colour(VIRIDIS_STOPS, t)


def stops_colour(hex_stops: str, t: float) -> RGB:
    """The colour a scheme of Vega's (its stops as one string of hex colours) gives t in [0, 1], as (r, g, b):
    the stops interpolated piecewise in RGB, as vega-scale does."""
    stops = [tuple(int(hex_stops[i + j : i + j + 2], 16) for j in (0, 2, 4)) for i in range(0, len(hex_stops), 6)]
    x = min(max(t, 0.0), 1.0) * (len(stops) - 1)
    i = min(int(x), len(stops) - 2)
    r, g, b = (round(a + (b - a) * (x - i)) for a, b in zip(stops[i], stops[i + 1]))
    return r, g, b


def png(width: int, height: int, raw: bytes, palette: Sequence[RGB]) -> bytes:
    """A palette PNG (8 bits per pixel, index 0 transparent) from its filtered rows."""
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0))
        + _chunk(b"PLTE", bytes(c for rgb in palette for c in rgb))
        + _chunk(b"tRNS", b"\x00")
        + _chunk(b"IDAT", zlib.compress(raw, 9))
        + _chunk(b"IEND", b"")
    )


def truecolour_png(width: int, height: int, raw: bytes) -> bytes:
    """An RGBA PNG (8 bits a channel) from its filtered rows: for a picture of more colours than a palette holds."""
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
        + _chunk(b"IDAT", zlib.compress(raw, 9))
        + _chunk(b"IEND", b"")
    )


def _chunk(tag: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body) & 0xFFFFFFFF)


def repaletted(picture: bytes, colours: Mapping[tuple[int, ...], tuple[int, ...]]) -> bytes:
    """A palette PNG (as `png` writes it) with some of its palette's colours changed, {(r, g, b): (r, g, b)}: the
    same picture drawn otherwise (a dark page's, sitegen.site.schemes). Any other PNG comes back as it was."""
    at = picture.find(b"PLTE")
    if picture[:8] != b"\x89PNG\r\n\x1a\n" or at < 12:
        return picture
    length = struct.unpack(">I", picture[at - 4 : at])[0]
    old = picture[at + 4 : at + 4 + length]
    body = b"".join(bytes(colours.get(tuple(old[i : i + 3]), tuple(old[i : i + 3]))) for i in range(0, length, 3))
    return picture[: at - 4] + _chunk(b"PLTE", body) + picture[at + 8 + length :]
