"""Reads the config's optional `[print]` table: the book's column width, the font to embed, its size, greys and
captions for the print edition (print/), each key checked with a one-line error that says what is allowed."""

from __future__ import annotations

import difflib
import hashlib
import struct
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from figsite.errors import BuildError


# The free fonts the build finds on the system where [print] names none, the first found: DejaVu Sans (Debian's
# fonts-dejavu-core, on nearly every Linux), then Liberation Sans, Noto Sans and URW's Nimbus Sans.
DEFAULT_FONTS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
    "/usr/share/fonts/opentype/urw-base35/NimbusSans-Regular.otf",
    "/Library/Fonts/DejaVuSans.ttf",
)
FONT_LIMIT = 50 * 2**20  # a font file larger than this is no font a figure needs


@dataclass(frozen=True)
class PrintKey:
    """One key of [print]: its type (number, bool, font), its range, and what is allowed."""

    type: str
    allowed: str
    low: float = 0
    high: float = 0


PRINT_KEYS = {
    "width_mm": PrintKey(
        "number", "the book's column width in millimetres: a number from 30 to 400 (default 120)", 30, 400
    ),
    "font": PrintKey(
        "font",
        "a TrueType or OpenType font file (.ttf or .otf), its path relative to the config's "
        "folder (default: DejaVu Sans, found on the system)",
    ),
    "font_size_pt": PrintKey(
        "number", "the size of the figures' words in points: a number from 4 to 24 (default 8)", 4, 24
    ),
    "greyscale": PrintKey("bool", "true or false (default false): the figures drawn in greys, for black ink"),
    "captions": PrintKey("bool", "true or false (default false): each figure drawn with its number and title"),
}


@dataclass(frozen=True)
class PrintInfo:
    """The config's [print] table, checked, with the defaults for the keys it leaves out.

    font: the font file; font_family: the family its name table gives (what the drawings ask for); font_digest: the
    SHA-256 of its bytes (what the print drawings are kept in the cache by)."""

    font: Path
    font_family: str
    font_digest: str
    width_mm: float = 120
    font_size_pt: float = 8
    greyscale: bool = False
    captions: bool = False

    @property
    def width_pt(self) -> float:
        """The column's width in points (1/72 inch), the unit of a PDF page."""
        return self.width_mm / 25.4 * 72

    def key(self) -> dict[str, object]:
        """What the print drawings depend on besides the chart: every field, so that a key added to [print] keys the
        cache by being added here; the font by its bytes (font_digest), not by where it lies."""
        return {name.name: getattr(self, name.name) for name in fields(self) if name.name != "font"}


def read_print(table: object, source: str, folder: Path) -> PrintInfo | None:
    """Checks a [print] table as TOML gave it (None: the config has none); a font's path is read from `folder`."""
    if table is None:
        return None
    if not isinstance(table, dict):
        raise BuildError(
            f"{source}: [print] is not a table; allowed: one [print] table with the keys {', '.join(PRINT_KEYS)}"
        )
    values: dict[str, Any] = {}  # each key's value of its own type (_print_value), for PrintInfo's fields
    for key, value in table.items():
        if key not in PRINT_KEYS:
            near = difflib.get_close_matches(key, PRINT_KEYS, n=1)
            hint = f" (did you mean '{near[0]}'?)" if near else ""
            raise BuildError(
                f"{source}: [print], key '{key}': not a key of [print]{hint}; allowed: {', '.join(PRINT_KEYS)}"
            )
        values[key] = _print_value(source, key, value, folder)
    font = values.pop("font", None)
    if font is None:
        found = next((Path(known) for known in DEFAULT_FONTS if Path(known).is_file()), None)
        if found is None:
            raise BuildError(
                f"{source}: [print], key 'font': no font given and none of the free fonts the build "
                f"looks for is on this system (DejaVu Sans, Liberation Sans, Noto Sans, Nimbus Sans); "
                f"allowed: {PRINT_KEYS['font'].allowed}, or install DejaVu Sans (Debian: "
                f"apt-get install fonts-dejavu-core)"
            )
        font = _font(source, found, found)
    return PrintInfo(*font, **values)


def _print_value(source: str, key: str, value: object, folder: Path) -> bool | float | tuple[Path, str, str]:
    spec = PRINT_KEYS[key]

    def refuse(problem: str) -> BuildError:
        return BuildError(f"{source}: [print], key '{key}': {problem}; allowed: {spec.allowed}")

    shown = "a table" if isinstance(value, dict) else str(value).lower() if isinstance(value, bool) else repr(value)
    if spec.type == "bool":
        if not isinstance(value, bool):
            raise refuse(f"{shown} is not true or false")
        return value
    if spec.type == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise refuse(f"{shown} is not a number")
        if not spec.low <= value <= spec.high:
            raise refuse(f"{value} is out of range")
        return value
    if not isinstance(value, str) or not value.strip():
        raise refuse(f"{shown} is not the path of a font file")
    written = Path(value).expanduser()
    try:
        return _font(source, folder / written, written)
    except OSError as exc:
        raise refuse(f"{value!r} could not be read ({exc.strerror or exc})") from None


def _font(source: str, path: Path, written: Path) -> tuple[Path, str, str]:
    """The font file at `path` (as the config wrote it: `written`), its family and digest, or a one-line error."""
    allowed = PRINT_KEYS["font"].allowed

    def refuse(problem: str) -> BuildError:
        return BuildError(f"{source}: [print], key 'font': '{written}' {problem}; allowed: {allowed}")

    if path.is_dir():
        raise refuse("is a folder")
    if not path.is_file():
        raise refuse("does not exist")
    if path.suffix.lower() not in (".ttf", ".otf"):
        raise refuse("is not a .ttf or .otf file")
    if path.stat().st_size > FONT_LIMIT:
        raise refuse(f"is larger than {FONT_LIMIT // 2**20} MiB")
    raw = path.read_bytes()
    family = font_family(raw)
    if family is None:
        raise refuse("is not a TrueType or OpenType font (no family name in its name table)")
    return path.resolve(), family, hashlib.sha256(raw).hexdigest()


def font_family(raw: bytes) -> str | None:
    """The family name of a TrueType or OpenType font (its name table's typographic family, else its family, as
    the drawings' font library matches it), or None where `raw` is no such font."""
    try:
        if raw[:4] not in (b"\x00\x01\x00\x00", b"OTTO", b"true"):
            return None
        (tables,) = struct.unpack(">H", raw[4:6])
        offset = next(
            struct.unpack(">I", raw[at + 8 : at + 12])[0]
            for at in range(12, 12 + 16 * tables, 16)
            if raw[at : at + 4] == b"name"
        )
        _, count, strings = struct.unpack(">HHH", raw[offset : offset + 6])
        names: dict[int, tuple[tuple[bool, bool, bool], str]] = {}  # name id -> (rank, text)
        for at in range(offset + 6, offset + 6 + 12 * count, 12):
            platform, encoding, language, name_id, length, start = struct.unpack(">HHHHHH", raw[at : at + 12])
            if name_id not in (1, 16) or platform not in (1, 3):
                continue
            data = raw[offset + strings + start : offset + strings + start + length]
            text = data.decode("utf-16-be" if platform == 3 else "latin-1").strip()
            # English first (Windows' 0x409, the Mac's 0), Windows' names before the Mac's
            rank = (name_id != 16, language not in (0x409, 0), platform != 3)
            if text and (name_id not in names or rank < names[name_id][0]):
                names[name_id] = (rank, text)
        best = sorted(names.values())
        return best[0][1] if best else None
    except (StopIteration, struct.error, UnicodeDecodeError):
        return None
