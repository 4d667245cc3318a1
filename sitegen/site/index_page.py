"""What the index shows of the figures: its two lists, "In the book" (in the book's order) and "Explore further",
and each figure's small picture, with the size it takes on the page."""

from __future__ import annotations

import re
from dataclasses import dataclass


# The index's two parts: its id (the section's) and heading.
IN_THE_BOOK, EXPLORE_FURTHER = ("book", "In the book"), ("explore", "Explore further")


def index_parts(pages: list) -> list[tuple[str, str, list]]:
    """The index's lists, (id, heading, pages), the empty ones left out: "In the book", the figures the config numbers
    in the order of their numbers (where it numbers none: the chapter's own kinds, in config order), then "Explore
    further", the others in config order."""
    numbered = [page for page in pages if page.number]
    book = sorted(numbered, key=lambda page: number_order(page.number)) if numbered else \
        [page for page in pages if not page.explore]
    in_book = {page.label for page in book}
    rest = [page for page in pages if page.label not in in_book]
    return [(part, heading, listed) for (part, heading), listed in ((IN_THE_BOOK, book), (EXPLORE_FURTHER, rest))
            if listed]


def number_order(number: str) -> tuple:
    """A book's figure number as it sorts: group by group, digits as numbers ("4.9" before "4.10", "4.2b" after
    "4.2"), a chapter of digits before one of letters ("12.1" before "A.1")."""
    groups = []
    for group in number.split("."):
        digits = re.match(r"[0-9]*", group).group(0)
        groups.append((0, int(digits), group[len(digits):]) if digits else (1, 0, group))
    return tuple(groups)


@dataclass
class Preview:
    """The index's small picture of a figure: its drawing (the PNG, lighter than the SVG on a phone), its own size in
    pixels, and words for those who do not see it.

    The page is given the picture's exact size, not a rounded smaller one: the browser keeps the room of that exact
    shape before the picture loads, so nothing moves when it comes in; site.css scales it to the index's column and
    cuts a tall one to its top (a strict CSP allows no per-picture style in the page)."""

    src: str
    alt: str
    width: int
    height: int

    @classmethod
    def of(cls, page, png: bytes) -> Preview:
        width, height = png_size(png)
        return cls(f"{page.image}.png", f"A small picture of the figure: {page.context['summary']}", width, height)


def svg_size(svg: bytes) -> tuple[float, float]:
    """An SVG drawing's width and height in pixels, from its root element (vl-convert writes both)."""
    root = re.search(rb"<svg\b[^>]*>", svg)
    size = root and [re.search(rb'\s%s="([0-9.]+)"' % name, root.group(0)) for name in (b"width", b"height")]
    if not size or not all(size):
        raise ValueError("not an SVG drawing with a width and a height")
    return float(size[0].group(1)), float(size[1].group(1))


def png_size(png: bytes) -> tuple[int, int]:
    """A PNG's width and height in pixels, from its header."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise ValueError("not a PNG drawing")
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
