"""The model as the pages name it, from one place: the run record's name and revision ("gpt2" and a commit of the
hub, "random (seed 0)", a folder) in words a reader reads. A random model is never called GPT-2, and no page says
"revision", "hub" or "seed" without saying what it is (figures/toolkit/terms.py)."""

from __future__ import annotations

import re
from pathlib import Path

from typing import TYPE_CHECKING

from figures.toolkit import terms
from figures.toolkit.family import FAMILY_NAMES

if TYPE_CHECKING:
    from figsite.data.records import ModelRecord

# GPT-2's four sizes by their hub ids (with the owner's name too), as the book names them.
SIZES = {"gpt2": "GPT-2 small", "gpt2-medium": "GPT-2 medium", "gpt2-large": "GPT-2 large", "gpt2-xl": "GPT-2 XL"}
HUB_NAMES = {**SIZES, **{f"openai-community/{hub_id}": name for hub_id, name in SIZES.items()}}
RANDOM = re.compile(r"random \(seed (\d+)\)")
RANDOM_NAME = "a model of GPT-2 small's shape with random weights"  # figsite/model/load.py: always GPT-2 small's shape


def seed(model: ModelRecord) -> int | None:
    """The seed of a random model's weights; None for any other model."""
    found = RANDOM.fullmatch(model["name"] or "")  # a run's record names its model (None only before one loads)
    return int(found.group(1)) if found else None


def from_hub(model: ModelRecord) -> bool:
    """Whether the model came from Hugging Face's hub: the load records the hub's commit (a folder has none)."""
    return bool(model.get("revision")) or model["name"] in HUB_NAMES


def full_name(model: ModelRecord, digits: int = 12) -> str:
    """The model in a sentence that says where it comes from: 'GPT-2 small (Hugging Face's gpt2, version
    607a30d783df)' (the version's first `digits` hex digits), 'a model of GPT-2 small's shape with random weights',
    'the model in the folder small-gpt2'."""
    name, revision = model["name"] or "", model.get("revision")  # a run's record names its model, as in seed
    if seed(model) is not None:
        return RANDOM_NAME
    if not from_hub(model):
        family = FAMILY_NAMES.get(model.get("family", ""), model.get("family"))  # GPT-2's record names none
        return f"the {family + ' ' if family else ''}model in the folder {Path(name).name or name}"
    source = f"Hugging Face's {name}" + (f", version {revision[:digits]}" if revision else "")
    return f"{HUB_NAMES[name]} ({source})" if name in HUB_NAMES else source


def short_name(model: ModelRecord) -> str:
    """The model as a running sentence names it: 'GPT-2' (or 'GPT-2 medium'...) for GPT-2 from the hub, 'the random
    model', else 'the model' (at a sentence's start: `capital`)."""
    if seed(model) is not None:
        return "the random model"
    return (
        HUB_NAMES[model["name"]].removesuffix(" small")
        if from_hub(model) and model["name"] in HUB_NAMES
        else "the model"
    )


def capital(words: str) -> str:
    """Words with their first letter capitalised, at a sentence's start: 'The random model runs here'."""
    return words[:1].upper() + words[1:]


def seed_sentence(model: ModelRecord) -> str | None:
    """Where a random model's weights come from, said once (the About page); None for any other model."""
    drawn = seed(model)
    return None if drawn is None else terms.SEED.format(seed=drawn)
