"""The index's map of the model: the chapter's picture of GPT-2 (the tokens, their embedding, a layer of attention
and feed-forward repeated, the read-out), with each figure of the config listed once, at the step it reads.

Where a figure reads comes from its kind (figures.kind.Kind.READS, places of figures.kind.PLACES): a figure that
reads one place is listed at that step; one that reads several parts of a layer, with the layer; one that reads
more of the model, with the whole model. The template (templates/_model_map.html) draws the steps from this plain
data: their names and words are the chapter's, their sizes the run's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from figures import KINDS

LAYER = "layer"  # a figure that reads several parts of one layer
MODEL = "model"  # a figure that reads more than one layer's parts: the model as a whole
LAYER_PLACES = ("attention", "feed-forward", "numbers")  # the places inside a layer, as the chapter draws it


@dataclass
class Step:
    """One step of the map: its name, what it does (in the chapter's words), what happens on the way to the next
    step (`then`, "" for none), and the pages of the figures that read it, in the index's order."""

    place: str
    name: str
    does: str
    then: str = ""
    pages: list = field(default_factory=list)


@dataclass
class ModelMap:
    """The map: the steps before the layers, the layer (its steps, and the figures that read several of its
    parts), the steps after it, and the figures that read the model as a whole."""

    before: list
    layer: Step
    inside: list
    after: list
    whole: Step

    def steps(self) -> list[Step]:
        """Every step, in the order the map draws them."""
        return [*self.before, self.layer, *self.inside, *self.after, self.whole]


def place_of(reads: tuple) -> str:
    """Where the map lists a figure that reads `reads` (places of figures.kind.PLACES): the one place it reads,
    the layer where every place is part of one, else the whole model (and where it names none)."""
    places = set(reads)
    if len(places) == 1:
        return reads[0]
    if places and places <= set(LAYER_PLACES):
        return LAYER
    return MODEL


def counted(n: int, thing: str) -> str:
    """n things, in words: "1 head", "12 heads"."""
    return f"{n:,} {thing}" + ("" if n == 1 else "s")


def model_map(model: dict, pages: list) -> ModelMap:
    """The map of a run's model (its `model` record: n_layer, n_head, d_model, vocab_size) with `pages` (each
    with its `kind`) listed at the steps their kinds read."""
    steps = {
        "tokens": Step("tokens", "Tokens", "the text, cut into tokens: one number each", "each looked up in a table"),
        "embedding": Step("embedding", "Embedding", f"a row of {model['d_model']:,} numbers for each token",
                          "into the first layer"),
        LAYER: Step(LAYER, "A layer" if model["n_layer"] == 1 else f"A layer, {model['n_layer']:,} times",
                    "the model's only one" if model["n_layer"] == 1 else
                    "one after the other, each with weights of its own"),
        "attention": Step("attention", f"Attention ({counted(model['n_head'], 'head')})",
                          "each token collects from itself and the tokens before it", "the result is added to the numbers"),
        "feed-forward": Step("feed-forward", "Feed-forward", "each token is reworked alone",
                             "the result is added to the numbers"),
        "numbers": Step("numbers", "The numbers after the layer",
                        f"{model['d_model']:,} for each token: the same shape, other values",
                        "into the next layer; after the last one, to the read-out"),
        "read-out": Step("read-out", "Read-out", f"a score for each of the {model['vocab_size']:,} tokens (the higher "
                         "the score, the more likely the token): the guess for the next token"),
        MODEL: Step(MODEL, "The whole model", "from the tokens to the read-out"),
    }
    for page in pages:
        steps[place_of(KINDS[page.kind].READS)].pages.append(page)
    return ModelMap(before=[steps["tokens"], steps["embedding"]], layer=steps[LAYER],
                    inside=[steps[place] for place in LAYER_PLACES], after=[steps["read-out"]], whole=steps[MODEL])
