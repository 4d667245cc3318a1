"""The records of the live page's export (figsite.capture.live_export): the manifest `export` returns, which the
site keeps beside the export's files (sitegen.live) and the page reads. No torch here: the site names them without
loading the model.
"""

from __future__ import annotations

from typing import TypedDict

from figsite.records import ModelRecord  # loaded.info, as the model writes it


class DescribedFile(TypedDict):
    """A file of the export as the manifest lists it."""

    name: str
    bytes: int
    sha256: str


class DescribedValue(TypedDict):
    """One of the graph's inputs or outputs: a shape's "T" and "K" vary by run."""

    name: str
    dtype: str
    shape: list[int | str]


class LightError(TypedDict):
    """The light set's largest differences from the exact set, in percentage points, over `texts` texts: `shares`
    (any head's share of any token), `chances` (the read-out's top chances at any stage and position)."""

    texts: int
    shares: float
    chances: float


class LightSet(TypedDict):
    """The light weights as the manifest lists them under "light" (figsite.capture.live_light): the graph, its files
    (the graph first), the session options a page starts them with, their bits and block, and their error (None
    until measured)."""

    graph: str
    files: list[DescribedFile]
    options: dict[str, str]
    bits: int
    block: int
    error: LightError | None


class Manifest(TypedDict):
    """What `export` returns (see there): what the live page fetches and how it calls the graph."""

    format: str
    model: ModelRecord
    n_layer: int
    n_head: int
    vocab_size: int
    max_tokens: int
    top_k: int
    stages: int
    opset: int
    graph: str
    files: list[DescribedFile]
    tokenizer: DescribedFile
    start_id: int | None
    inputs: list[DescribedValue]
    outputs: list[DescribedValue]
    light: LightSet | None  # the light weights beside the exact ones (figsite.capture.live_light)
