"""The result of one model run, as plain data: what every figure reads.

It holds the data files' contents (one per distinct text) and the run record (the model in numbers, the
shapes measured on the way, the software that ran it). Nothing here imports torch: a run can be read back
from the JSON files and rendered again.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

RUN_FORMAT = "gpt2-figures-run/1"


@dataclass
class Run:
    model: dict  # name, revision, n_layer, n_head, d_model, vocab_size, n_ctx
    texts: dict = field(default_factory=dict)  # text -> data file content (format gpt2-figures/1)
    slugs: dict = field(default_factory=dict)  # text -> slug of its data file
    shapes: dict = field(default_factory=dict)  # text -> {"token ids": [...], "embedding": [...], ...}
    parameters: dict = field(default_factory=dict)  # see capture.parameter_counts
    environment: dict = field(default_factory=dict)  # torch, transformers, device, dtype
    vocab: dict = field(default_factory=dict)  # token id -> text, for every id a read-out mentions

    @property
    def n_heads(self) -> int:
        return self.model["n_layer"] * self.model["n_head"]

    @property
    def is_random(self) -> bool:
        return self.model["name"].startswith("random")

    def data(self, text: str) -> dict:
        return self.texts[text]

    def token_text(self, token_id: int) -> str:
        """A token decoded alone, e.g. ' France'; the data files only decode the text's own tokens."""
        return self.vocab[token_id]

    def record(self) -> dict:
        """The run record written to data/run.json: everything but the per-text data files."""
        return {"format": RUN_FORMAT, "model": self.model, "environment": self.environment,
                "parameters": self.parameters,
                "vocab": {str(i): t for i, t in sorted(self.vocab.items())},
                "texts": [{"text": t, "data": f"data/{self.slugs[t]}.json", "shapes": self.shapes[t]}
                          for t in self.texts]}


def slugs_for(texts: list[str]) -> dict:
    """A readable file name for each distinct text, e.g. 'maya-lives-in-paris-the-capital-of'."""
    slugs, taken = {}, set()
    for text in texts:
        ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
        words = re.findall(r"[a-z0-9]+", ascii_text.lower().replace("'", ""))
        base = "-".join(words)[:60].strip("-") or "text"
        slug, n = base, 2
        while slug in taken:  # two texts that differ only in punctuation or case
            slug, n = f"{base}-{n}", n + 1
        taken.add(slug)
        slugs[text] = slug
    return slugs
