"""The part "lens": {text: [followed token, ...]}, the read-out of every stage at every position of a text, for
the tokens a lens figure follows: their probability and rank (1 = most likely), in the run record.

Tracked: the tokens most often among the cells' top 3 (so a reader can follow a token the table shows), then
the text's target and each followed token not among them already. The pass keeps each stage's residual stream
(blocks.0.hook_resid_pre, blocks.L.hook_resid_post); this reads it out again, now that the tracked tokens are
known.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, cast

import numpy  # counts along the vocabulary; torch hands its tensors over without a copy
import torch

from figsite.capture.parts import Part, PassPlan, Reading
from figsite.capture.readout import log_softmax_total, scores_of
from figsite.data.format import probability
from figsite.data.records import LensEntry, ReadoutCell
from figsite.model.interface import LanguageModel
from figsite.model.tokens import one_token_id

if TYPE_CHECKING:
    from figsite.capture.text_pass import TextCapture
    from figsite.data.run import Run

LENS_TOKENS = 24  # tokens a lens figure tracks at most: the most frequent among the cells' top 3
Followed = dict[str, list[str]]  # what is asked of the lens: {text: [followed token, ...]}


class Lens(Part[Followed]):
    name = "lens"

    def merge(self, each: Sequence[Followed | None]) -> Followed:
        """Every figure's {text: followed}: per text, every token any figure follows, sorted; texts sorted."""
        merged: Followed = {}
        for asks in each:
            for text, followed in (asks or {}).items():
                merged[text] = sorted(set(merged.get(text, [])) | set(followed))
        return dict(sorted(merged.items()))

    def plan(self, followed: Followed, text: str) -> PassPlan:
        return PassPlan(positions=None, keep_stages=True) if text in followed else PassPlan()

    def answer(self, reading: Reading, text: str, capture: TextCapture) -> Iterator[None]:
        followed = reading.asks(self)
        if text not in followed:
            return
        data, loaded = capture.data, reading.loaded
        ids: list[int] = [data["target"]["id"]] if "target" in data else []
        # the token's own id, never a start token (a string's: None only for None)
        ids += [cast(int, one_token_id(loaded, token)) for token in followed[text]]
        assert capture.stages is not None  # kept: the plan asked it for a lens's text
        readout = cast("list[list[ReadoutCell]]", data["readout"])  # a lens's text is read out at every position
        reading.run.lens[text] = lens(loaded.model, capture.stages, readout, ids)
        yield

    def answered(self, run: Run, followed: Followed) -> bool:
        return all(text in run.lens for text in followed)

    def mentions(self, run: Run, text: str) -> set[int]:
        return set(run.lens[text]["tokens"]) if text in run.lens else set()


def tracked_tokens(readout: Sequence[Sequence[ReadoutCell]], followed: Sequence[int]) -> list[int]:
    """The LENS_TOKENS tokens most often among the cells' top 3 (ties by id), then each followed token not among
    them."""
    counts: dict[int, int] = {}
    for stage in readout:
        for cell in stage:
            for token_id, _ in cell["top"][:3]:
                counts[token_id] = counts.get(token_id, 0) + 1
    tracked = sorted(counts, key=lambda t: (-counts[t], t))[:LENS_TOKENS]
    return tracked + [token_id for token_id in dict.fromkeys(followed) if token_id not in tracked]


@torch.no_grad()
def lens(
    model: LanguageModel, stages: list[torch.Tensor], readout: Sequence[Sequence[ReadoutCell]], followed: Sequence[int]
) -> LensEntry:
    """The probability and rank (1 = most likely) of the tracked tokens at every stage and position.

    stages: each stage's residual stream (position, d_model), raw; readout: the text's read-out, [stage][position]."""
    tracked = tracked_tokens(readout, followed)
    index = torch.tensor(tracked, device=model.device)
    p_all: list[list[list[float]]] = []
    rank_all: list[list[list[int]]] = []
    for logits in scores_of(model, stages):  # (position, vocab), stage by stage
        log_total = log_softmax_total(logits)  # (position, 1)
        chosen = logits[:, index]  # (position, tracked)
        # A token's rank: 1 + how many scores of its position are higher. Counted with numpy along the vocab
        # (the contiguous axis), ten times faster than torch's sum over a boolean tensor.
        scores, tracked_scores = numpy.asarray(logits.cpu()), numpy.asarray(chosen.cpu())
        rank = (scores[:, None, :] > tracked_scores[:, :, None]).sum(axis=-1) + 1  # (position, tracked)
        p = torch.exp(chosen.double() - log_total)  # (position, tracked)
        p_all.append([[probability(v) for v in row] for row in p.cpu().tolist()])
        rank_all.append(rank.tolist())
    return {"tokens": tracked, "p": p_all, "rank": rank_all}


PART = Lens()
