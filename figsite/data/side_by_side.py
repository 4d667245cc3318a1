"""What a side-by-side figure reads: the same text put through several models, one run each (figures.kind
SIDE_BY_SIDE). Each model resolves the figure on its own (its tokens are its tokenizer's), so each member holds the
figure as resolved against its model beside that model's run."""

from __future__ import annotations

from dataclasses import dataclass

from figsite.config import Figure
from figsite.data.model_choice import ModelChoice
from figsite.data.records import ModelRecord
from figsite.data.run import Run


@dataclass(frozen=True)
class Member:
    """One model of a side-by-side figure: the figure resolved against it, its run, and the model as the config
    names it (its name and revision: what tells two revisions of one model apart)."""

    fig: Figure
    run: Run
    choice: ModelChoice


@dataclass(frozen=True)
class Runs:
    """A side-by-side figure's runs, one per model, in the order its `models` names them."""

    members: tuple[Member, ...]

    @property
    def model(self) -> ModelRecord:
        """The first model's record: what a kind's caption is chosen by (figures.kind caption)."""
        return self.members[0].run.model
