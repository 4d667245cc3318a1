"""The part "readout": the positions a long text is read out at, [[text, position], ...].

The text's pass reads out every stage itself (figsite.capture.readout); a short text (data format 1), and the
text of a lens, at every position. A long text's read-out at every stage and position would cost thirteen
times the model's own unembedding, so it is read out only where a figure asks.
"""

from __future__ import annotations

from figsite.capture.parts import Part, PassPlan


class Readout(Part):
    name = "readout"

    def plan(self, asks, text: str) -> PassPlan:
        return PassPlan(positions=frozenset(position for read, position in asks if read == text))


PART = Readout()
