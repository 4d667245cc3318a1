"""What a page says where the model is not of GPT-2's design, in the chapter's words: a start token every token can
look at, heads that share their descriptions (keys), positions turned into the question and the description
rather than added, a layer normalisation that takes no mean away. Each is read from the run's model record
(figsite/model/load.py's model_info: its keys "start_token", "n_kv_head", "family", "norm", "positions"), which
for GPT-2 holds none of them: GPT-2's pages say none of this and stay as they were.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from figsite.config import Figure
    from figsite.data.records import ModelRecord
    from figsite.data.run import Run
    from figures.kind import Context, Kind

# config.json's model_type -> the family as a page names it (the About page).
FAMILY_NAMES = {
    "llama": "Llama",
    "mistral": "Mistral",
    "qwen2": "Qwen2",
    "qwen3": "Qwen3",
    "gpt_neox": "GPT-NeoX (Pythia)",
}
# The kinds that show how tokens look at each other: where the heads' shared descriptions and the turned positions
# change what the reader sees.
LOOKING_KINDS = ("attention", "heads", "find-head", "scores", "head-roles")

START_TOKEN = (
    "{token} is the start token: the model puts it in front of every text, a token of its own and no word "
    "of the text, and every token can look at it (a head with nothing better to look at often gives it "
    "most of its share). The text's own tokens are numbered from 1 after it; it is token 0."
)
SHARED_KEYS = (
    "In this model, {group} heads share each set of keys (the descriptions a head's tokens offer): each "
    "head asks its own question, but a layer's {heads} heads hold only {sets} sets of descriptions, one for "
    "every {group} heads."
)
TURNED = (
    "This model adds no position numbers to its tokens. Instead, each head turns its question and every "
    "description by an angle that grows with the token's position{part}, so how well two tokens fit depends on "
    "how far apart they are: the positions are turned into the question and the description rather than added."
)
TURNED_SHOWN = "The question and the descriptions shown here are the turned ones: their products are the fits."
ROOT_MEAN_SQUARE = (
    "This model's layer normalisation takes no mean away and adds no fixed part: it divides a token's "
    "numbers by their root mean square (the square root of the average of their squares) and "
    "multiplies each by its own gain."
)


def start_token(model: ModelRecord) -> str | None:
    """The sentence on the start token, where the model's tokenizer puts one in front of every text."""
    token = model.get("start_token")
    return None if token is None else START_TOKEN.format(token=token)


def shared_keys(model: ModelRecord) -> str | None:
    """The sentence on heads that share their descriptions, where the key heads are fewer than the heads."""
    sets, heads = model.get("n_kv_head"), model["n_head"]
    if sets is None or sets == heads:
        return None
    return SHARED_KEYS.format(group=heads // sets, heads=heads, sets=sets)


def turned(model: ModelRecord) -> str | None:
    """The sentence on positions turned into the question and the description (all of each head's numbers, or the
    first of them), where the model adds no position numbers."""
    if model.get("positions") != "rotary":
        return None
    rotary, width = model.get("rotary_dim"), model.get("d_head")
    part = f" (the first {rotary} of each head's {width} numbers)" if rotary and width and rotary < width else ""
    return TURNED.format(part=part)


def root_mean_square(model: ModelRecord) -> str | None:
    """The sentence on a layer normalisation with no mean taken away and no bias (RMSNorm)."""
    return ROOT_MEAN_SQUARE if model.get("norm") == "rmsnorm" else None


def facts(kind: str, starts: bool, model: ModelRecord) -> list[str]:
    """What a figure of `kind` adds to its facts on this model: the start token where its text begins with one
    (`starts`), the shared descriptions and the turned positions where it shows how tokens look at each other, the
    layer normalisation where it splits a score. [] on GPT-2."""
    said = [start_token(model) if starts else None]
    if kind in LOOKING_KINDS:
        said += [shared_keys(model), turned(model)]
        if kind == "scores" and turned(model):
            said.append(TURNED_SHOWN)
    if kind == "ledger":
        said.append(root_mean_square(model))
    return [sentence for sentence in said if sentence]


def family_name(model: ModelRecord) -> str | None:
    """The family as the About page names it, with what it changes from GPT-2's design; None for GPT-2."""
    family = model.get("family")
    if family is None:
        return None
    name = FAMILY_NAMES.get(family, family)
    changes = [
        sentence
        for sentence in (shared_keys(model), turned(model), root_mean_square(model), start_token(model))
        if sentence
    ]
    return " ".join([f"The model is of the {name} family's design, not GPT-2's.", *changes])


def context(kind: Kind[Run], fig: Figure, run: Run) -> Context:
    """A kind's words beside its chart (Kind.context) and, after its facts, what the model's family changes on this
    figure (`facts`); on GPT-2 the kind's words as they are."""
    said = kind.context(fig, run)
    starts = any(run.token_texts(text).start for text in kind.texts(fig))
    added = facts(kind.KIND, starts, run.model)
    return {**said, "facts": [*said.get("facts", []), *added]} if added else said
