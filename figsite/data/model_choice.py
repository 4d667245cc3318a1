"""Which model a figure reads: the command's --model, or one its config names (`model = "..."`), so that one site
holds figures of several models; a side-by-side figure names several (`models = [...]`).

A model is written as the command line takes it: a hub id, a directory saved with save_pretrained, or "random",
and for a hub id optionally "@" and a revision ("EleutherAI/pythia-160m@step3000"), as --revision gives it; for
"random", "@" and a seed ("random@7"), as --seed gives it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from figsite.data import paths

ALLOWED = (
    "a hub id, a directory saved with save_pretrained, or 'random'; for a hub id optionally '@' and a "
    "revision, such as 'EleutherAI/pythia-160m@step3000'; for 'random' optionally '@' and a seed, 'random@7'"
)


@dataclass(frozen=True)
class ModelChoice:
    """One model the build loads: its name as the command line takes it, the hub revision (None: the hub's default,
    or the command's --revision), and the seed of a random model."""

    name: str
    revision: str | None = None
    seed: int = 0

    @property
    def slug(self) -> str:
        """Letters, digits and '-' that name it in the site's paths (paths.model_folder)."""
        name = Path(self.name).expanduser().name if is_directory(self.name) else self.name
        version = self.seed if self.name == "random" else self.revision or ""
        return re.sub(r"[^a-z0-9]+", "-", f"{name} {version}".lower()).strip("-") or "model"


def is_directory(name: str) -> bool:
    return Path(name).expanduser().is_dir()


def parse(written: str, default: ModelChoice) -> ModelChoice:
    """The model a config's `model` names (`written`), with the command's seed; the command's --revision where it
    names the command's model without one. Raises ValueError with what is wrong (the config names the field)."""
    name, revision = written, None
    if "@" in written and not is_directory(written):
        name, _, revision = written.rpartition("@")
        if not name or not revision.strip():
            raise ValueError(f"{written!r} has no model or no revision around its '@'")
    if not name.strip():
        raise ValueError("an empty name")
    if name == "random":
        if revision is not None and not (revision.isascii() and revision.isdigit()):
            raise ValueError(f"{revision!r} is no seed (a whole number from 0)")
        return ModelChoice(name, None, default.seed if revision is None else int(revision))
    if revision is not None and is_directory(name):
        raise ValueError(f"{name!r} has no revisions (a hub id has)")
    if revision is None and name == default.name:
        revision = default.revision
    return ModelChoice(name, revision, default.seed)


def folders(choices: list[ModelChoice], main: ModelChoice) -> dict[ModelChoice, str]:
    """Each model's folder under data/ (Run.folder): "" for `main`, the others' by their slug, made unique."""
    out, taken = {main: ""}, set()
    for choice in choices:
        if choice in out:
            continue
        slug, n = choice.slug, 2
        while slug in taken:
            slug, n = f"{choice.slug}-{n}", n + 1
        taken.add(slug)
        out[choice] = paths.model_folder(slug)
    return out
