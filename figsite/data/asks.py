"""What a figure asks of the model run: one word, "asks", and one type, `Asks`, from the config to the cache key.

A figure's kind says what the figure asks (figures.kind.Kind.asks); the build merges every figure's into the run's
(sitegen.pipeline.gather_asks), which the capture answers (figsite.capture.gather reads the texts; each part of
figsite.capture.parts answers what is asked of it, merged by the part), which keys the run's cache entry
(figsite.data.cache.key), and which a run holds once it holds every answer (figsite.data.run.Run.holds).

Two moments: before the model loads, the build knows a figure's config but not its tokens, so it reads the texts,
the strings to tokenize and `config`; once the tokens are known and the figure resolved (figures.kind.Kind.check),
it reads `parts`, which may depend on what was resolved (a position named by its text, a default that depends on
the model's size). `config` is what stands for the parts until then: the config's values the parts are worked out
from, which with the texts, the model and the code determine them. So a cached rebuild keys its run without the
tokenizer or torch, and a changed config value that changes what is asked changes the key.

Plain data, no torch: the data layer's cache and run, the figures and the capture all read it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from figsite.data.part_records import PartAsks

# One kind's config values that its parts are worked out from: [kind, {config key: value}].
ConfigItem = list[object]


@dataclass(frozen=True)
class Asks:
    """What a figure (or, merged, every figure) asks of the run."""

    # text -> the token it tracks at every stage, or None: read once each
    texts: dict[str, str | None] = field(default_factory=dict)
    named: tuple[str, ...] = ()  # strings named beyond the texts and their targets (a token to follow, to compare with)
    # part name -> what is asked of it (figsite/capture/parts/<name>.py)
    parts: dict[str, PartAsks] = field(default_factory=dict)
    # ([kind, {config key: value}], ...): the config's values the parts are worked out from, each once, sorted
    config: tuple[ConfigItem, ...] = ()

    @property
    def strings(self) -> list[str]:
        """Every string to tokenize, each once, in order: the texts, their targets, the strings named. The cache keeps
        their tokens, so that a rebuild checks the figures without the tokenizer."""
        found: list[str] = [*self.texts, *(target for target in self.texts.values() if target is not None), *self.named]
        return list(dict.fromkeys(found))

    def key(self) -> dict[str, list[list[object]]]:
        """What of the asks keys the run's cache entry before the figures are resolved: the texts with their targets,
        and the config's values the parts are worked out from (the parts themselves need the tokens)."""
        return {
            "asks": [list(item) for item in self.config],
            "texts": sorted([text, target] for text, target in self.texts.items()),
        }


def config_of(kind: str, values: Mapping[str, object], *keys: str) -> tuple[ConfigItem, ...]:
    """The `config` of a figure of `kind` whose parts are worked out from `keys` of its config (`values`): those it
    has, with their values."""
    return ([kind, {key: values[key] for key in keys if key in values}],)


def merged_config(each: Iterable[Asks]) -> tuple[ConfigItem, ...]:
    """Every figure's `config` items, each once, in a fixed order (the cache key's)."""
    unique: list[ConfigItem] = []
    for item in (list(item) for asks in each for item in asks.config):
        if item not in unique:
            unique.append(item)
    return tuple(sorted(unique, key=lambda item: json.dumps(item, sort_keys=True)))
