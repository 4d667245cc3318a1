"""The part "readout": the positions a long text is read out at, [[text, position], ...].

The text's pass reads out every stage itself (figsite.capture.readout); a short text (data format 1), and the
text of a lens, at every position. A long text's read-out at every stage and position would cost thirteen
times the model's own unembedding, so it is read out only where a figure asks.
"""

from __future__ import annotations

from typing import cast

from figsite.capture.parts import Part, PassPlan
from figsite.data.part_records import Ask


class Readout(Part[list[Ask]]):
    name = "readout"

    def plan(self, asks: list[Ask], text: str) -> PassPlan:
        read_at = cast("list[tuple[str, int]]", asks)  # [text, position] each, as figures.readout asks
        return PassPlan(positions=frozenset(position for read, position in read_at if read == text))


PART = Readout()
