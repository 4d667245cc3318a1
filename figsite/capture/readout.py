"""The read-out: the final layer norm and the unembedding (the model interface's read_out) applied to the residual stream at one stage (stage 0:
after the embedding, stage s: after layer s), and the probabilities of the tokens the data name.

The scores over the whole vocabulary, (rows, 50,257), are the largest numbers the capture works with: they are
made READOUT_ROWS rows at a time and never kept; only the top tokens' and the tracked tokens' probabilities are.
"""

from __future__ import annotations

from collections.abc import Iterator

import torch

from figsite.capture.hooks import at_each_layer, point
from figsite.data.format import TOP_K, probability, readout_cell
from figsite.data.records import ReadoutCell
from figsite.model.interface import HookFunction, LanguageModel

READOUT_ROWS = 512  # rows of one product with the unembedding: (rows, 50,257) scores held at once


def log_softmax_total(logits: torch.Tensor) -> torch.Tensor:
    """log(sum(exp(scores))) over the last axis, as float64, keeping that axis: (..., 1).

    Worked out in float32 with the largest score taken out first (no exponential overflows, the largest is
    exactly 1), which costs a fifth of the same in float64. Over GPT-2's 50,257 scores the probabilities
    exp(score - total) it gives stay within 3e-7 of float64's, well inside the promised 1e-5: the reference
    tests (tests/builds/test_reference.py) hold it to that.
    """
    top = logits.max(dim=-1, keepdim=True).values  # (..., 1)
    total = torch.exp(logits - top).sum(dim=-1, keepdim=True)  # (..., 1), each term in (0, 1]
    return top.double() + torch.log(total.double())


def scores_of(model: LanguageModel, stages: list[torch.Tensor]) -> Iterator[torch.Tensor]:
    """Each stage's scores in turn, (position, vocab), from its residual stream (position, d_model), several
    stages to one product with the unembedding where they fit in READOUT_ROWS rows: reading the unembedding's
    50,257 rows costs more than a product of a few rows, so a short text's stages go through it at once."""
    n = len(stages[0])
    per_product = max(1, READOUT_ROWS // n)
    for first in range(0, len(stages), per_product):
        rows = torch.stack(stages[first : first + per_product])  # (stages, position, d_model)
        yield from model.read_out(rows)  # (stages, position, vocab)


class StageReader:
    """Reads out each stage of the residual stream as the forward pass computes it, at the read positions:
    the top tokens with their probabilities, and the target's probability.

    A short text's stages wait until they fill one product with the unembedding (one product of 144 rows is
    six times faster than twelve of 12); a long text's stage goes at once, READOUT_ROWS rows at a time. No
    (stages, positions, vocabulary) array is ever held.
    """

    def __init__(self, model: LanguageModel, n: int, positions: list[int], target_id: int | None, keep: bool) -> None:
        self.model, self.n, self.positions, self.target_id = model, n, positions, target_id
        self.index = torch.tensor(positions, dtype=torch.long, device=model.device)
        self.stages = 0  # stages seen so far
        self.waiting: list[torch.Tensor] = []  # (positions, d_model) of each stage not yet read out
        # per read row, in stage order: {"top": ...}; the target's p
        self.cells: list[ReadoutCell] = []
        self.target_cells: list[float] = []
        # each stage's residual stream (position, d_model), for a lens or a comparison
        self.kept: list[torch.Tensor] | None = [] if keep else None

    def add(self, residual: torch.Tensor) -> None:
        """One more stage: the residual stream (position, d_model), raw (no final layer norm)."""
        self.stages += 1
        if self.kept is not None:
            self.kept.append(residual.detach().clone())
        if not self.positions:  # a long text no figure reads out
            return
        self.waiting.append(residual[self.index])
        if len(self.waiting) * len(self.positions) >= READOUT_ROWS:
            self._read_waiting()

    def hooks(self, n_layer: int) -> dict[str, HookFunction]:
        """Its hooks at every stage of the residual stream, (1, position, d_model): blocks.0.hook_resid_pre (stage
        0, after the embedding) and blocks.L.hook_resid_post (stage L + 1)."""

        def read(residual: torch.Tensor, _name: str) -> None:
            self.add(residual[0])

        return {point(0, "hook_resid_pre"): read, **at_each_layer(n_layer, "hook_resid_post", lambda _layer: read)}

    def _read_waiting(self) -> None:
        rows = torch.cat(self.waiting)  # (stages x positions, d_model)
        self.waiting = []
        for first in range(0, len(rows), READOUT_ROWS):
            logits = self.model.read_out(rows[first : first + READOUT_ROWS])  # (rows, vocab)
            # The most likely tokens have the highest scores; only their probabilities are worked out, as
            # exp(score - log of the softmax total) in float64.
            top_score, top_id = logits.topk(TOP_K, dim=-1)  # (rows, TOP_K)
            log_total = log_softmax_total(logits)  # (rows, 1)
            top_p = torch.exp(top_score.double() - log_total).cpu()
            self.cells += [readout_cell(ids_row, p_row) for ids_row, p_row in zip(top_id.tolist(), top_p.tolist())]
            if self.target_id is not None:
                p_target = torch.exp(logits[:, self.target_id].double() - log_total[:, 0]).cpu()  # (rows,)
                self.target_cells += [probability(p) for p in p_target.tolist()]

    def finish(self) -> tuple[list[list[ReadoutCell | None]], list[list[float | None]]]:
        """readout[stage][position] and the target's p[stage][position]; None at a position not read."""
        if self.waiting:
            self._read_waiting()
        width = len(self.positions)
        readout: list[list[ReadoutCell | None]] = []
        target_p: list[list[float | None]] = []
        for first in range(0, self.stages * width, width) if width else [0] * self.stages:  # 0: no position read
            stage: list[ReadoutCell | None] = [None] * self.n
            p: list[float | None] = [None] * self.n
            for at, position in enumerate(self.positions):  # none where no position is read
                stage[position] = self.cells[first + at]
                if self.target_id is not None:
                    p[position] = self.target_cells[first + at]
            readout.append(stage)
            target_p.append(p)
        return readout, (target_p if self.target_id is not None else [])
