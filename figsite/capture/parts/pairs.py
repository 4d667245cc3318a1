"""The part "pairs": [[text, text], ...], two texts (with the same beginning) whose residual streams are compared
at every stage and position, in the run record: exactly zero up to the last shared token, since no token looks
to the right.

The pass keeps each stage's residual stream (blocks.0.hook_resid_pre, blocks.L.hook_resid_post) of a compared
text; the part holds it until the other text of its pair is read.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, cast

import torch

from figsite.capture.parts import Part, PassPlan, Reading
from figsite.data.format import comparison
from figsite.data.part_records import Ask
from figsite.data.records import Comparison

if TYPE_CHECKING:
    from figsite.capture.text_pass import TextCapture
    from figsite.data.run import Run


class Pairs(Part[list[Ask]]):
    name = "pairs"

    def plan(self, pairs: list[Ask], text: str) -> PassPlan:
        return PassPlan(keep_stages=any(text in pair for pair in pairs))

    def answer(self, reading: Reading, text: str, capture: TextCapture) -> Iterator[None]:
        # [text, text] each, as figures.compare asks
        pairs = [tuple(pair) for pair in cast("list[list[str]]", reading.asks(self))]
        if not any(text in pair for pair in pairs):
            return
        # text -> (stages, position, d_model), raw
        residuals: dict[str, torch.Tensor] = reading.held.setdefault(self.name, {})
        assert capture.stages is not None  # kept: the plan asked it for a compared text
        residuals[text] = torch.stack(capture.stages).float().cpu()
        run = reading.run
        run.comparisons += [
            compare(a, b, residuals[a], residuals[b], _ids(run, a), _ids(run, b))
            for a, b in pairs
            if text in (a, b) and a in residuals and b in residuals
        ]
        yield

    def answered(self, run: Run, pairs: list[Ask]) -> bool:
        return all(any(c["texts"] == list(pair) for c in run.comparisons) for pair in pairs)

    def finish(self, run: Run, pairs: list[Ask]) -> None:
        run.comparisons = [next(c for c in run.comparisons if c["texts"] == list(pair)) for pair in pairs]


def _ids(run: Run, text: str) -> list[int]:
    return [token["id"] for token in run.texts[text]["tokens"]]


@torch.no_grad()
def compare(
    a: str, b: str, residual_a: torch.Tensor, residual_b: torch.Tensor, ids_a: Sequence[int], ids_b: Sequence[int]
) -> Comparison:
    """How far the residual stream of each token differs between two texts, at every stage.

    distance[stage][position] is the length of the difference of the two vectors, for the positions both
    texts have (residuals: (stages, position, d_model)); `shared`, how many tokens they share at the start. Up to
    there it is exactly 0: no token looks to the right, so the two streams are the same there, and what float32
    makes of them in runs of other lengths (a few 1e-8 apart, the kernels summing in another order) is no
    difference.
    """
    n = min(len(ids_a), len(ids_b))
    shared = next((i for i in range(n) if ids_a[i] != ids_b[i]), n)
    difference = (residual_a[:, :n] - residual_b[:, :n]).double()  # (stages, position, d_model)
    distance = torch.linalg.vector_norm(difference, dim=-1)  # (stages, position)
    distance[:, :shared] = 0.0
    return comparison(a, b, shared, distance.tolist())


PART = Pairs()
