"""The live page's datasets and downloads (python build.py --live), declared once: the kinds' charts read these
datasets by these field names (figures.attention_chart, figures.heads_chart, figures.readout, figures.lens), and the
page's script fills them and writes the downloads with the same names, which it imports from the generated module
templates/js/shared/names.js (LIVE_DATASETS, LIVE_TABLES: figsite.data.shared_names), never spelling one of its own.

What the page's script puts in before it embeds a kind's chart (layers, heads, positions, stages from 0; readers see
them from 1), rows in the order given: the words a screen reader hears find rows by their place.
"""

from __future__ import annotations

from dataclasses import dataclass

from figsite.data.format import TOP_K
from figsite.data.run import PER_SHARE

MAX_TOKENS = 64  # the longest text the page reads (the lens's limit)
PLACEHOLDER = "…"  # the one token of a chart with no text, until the page puts the reader's in
# A stage of the read-out as every download calls it, the build's (Kind.tables) and the live page's (0: before any
# layer).
STAGE_COLUMN = "after_layer"
FOLLOW_NAME = "follow_name"  # the param of the followed token's text, as the pages write it ("_France")
# Activation patching (the build's and the page's): each grid's piece as a run's key names it ("stream-3-5": after
# layer 3, token 5), and how close two texts' score differences are when they do not differ on the answer.
PIECE_KEYS = {"resid_pre": "stream", "attn_out": "attention", "mlp_out": "feed-forward", "z": "head"}
NEAR = 1e-3
PATCH_CHOICE = "cell"  # the param of the chosen run ("Put back"), the book's chart's and the page's
PATCH_OPENING = "strongest"  # the page's chart's param holding the run it opens on (the stream's strongest)


@dataclass(frozen=True)
class Dataset:
    """A dataset of a chart with no text in it: its name, its fields in order, what a row holds."""

    name: str
    fields: tuple[str, ...]
    about: str


PANELS = Dataset(
    "panels",
    ("l", "h", "u"),
    (
        "a row per head (h < n_head) and per layer's average (h == n_head), by l then h, as figures.heads.panel_rows "
        "writes them less 't'; then one more row, {l: n_layer, h: n_head}: the average of all heads, (l)'s view 'all'. "
        f"u: the lower triangle of the shares, row after row (query q's shares to keys 0..q), in units of 1/{PER_SHARE}, "
        "integers."
    ),
)
TOP = Dataset(
    "top",
    ("stage", "q", "rank", "token", "id", "p"),
    (
        f"the {TOP_K} most likely next tokens (rank 1..{TOP_K}; token: as the pages write it) at each stage (0: before any "
        "layer, s: after layer s) and position, by stage, then q, then rank."
    ),
)
FOLLOW = Dataset(
    "follow",
    ("stage", "q", "p", "rank"),
    ("the followed token at each stage and position (rank 1 = most likely), by stage then q."),
)
CELLS = Dataset(
    "cells",
    ("stage", "position", "token", "distance", "name"),
    (
        "two compared texts (figures.compare): a row per stage and per position both texts have, by stage then "
        "position; token: the two texts' tokens there as the pages write them, one where they are the same "
        "('_it'), else both ('_tired / _wide'); distance: the length of the difference of their residual streams "
        "(exactly 0 before the first token that differs); name: the row's name, '9: _it' (figures.compare.grid_chart)."
    ),
)
RUNS = Dataset(
    "runs",
    ("key", "group", "x", "layer", "name", "part_name", "p", "rank", "dp", "dr"),
    (
        "the knockout's runs (figures.knockout_textless): a row per part taken out, in the order the chart lists them "
        "(each layer's attention, each layer's feed-forward step, each head of one layer), its key, group ('attention', "
        "'feed-forward', 'head'), x (the layer, or the head, from 1), layer (from 1) and names as the chart gives them; "
        "the page puts in p and rank, the followed token's chance and rank at the last position after the last layer "
        "with that part taken out, and dp and dr, their change from the intact model's (p less its p; its rank less "
        "this rank: places moved up)."
    ),
)
PATCHED = Dataset(
    "patched",
    ("key", "piece", "row", "col", "diff", "p"),
    (
        "the patching's runs (figures.patching_textless): a row per run, in the order of figures.records.Patched.cells "
        "(piece 'resid_pre', 'attn_out', 'mlp_out', 'z'; then row, a layer or for 'resid_pre' a stage; then col, a "
        "position or for 'z' a head, from 0), key as figures.patching_chart.cell_key writes it; diff, the score of "
        "the target less that of the token it is measured against at the last position after the last layer, and p, "
        "the target's chance there, of the changed text's run with that piece of the original text's put back."
    ),
)
DATASETS = {dataset.name: dataset for dataset in (PANELS, TOP, FOLLOW, CELLS, RUNS, PATCHED)}


@dataclass(frozen=True)
class Table:
    """A download of the live page, offered as CSV: its name (the link's id ends in it) and its columns."""

    name: str
    columns: tuple[str, ...]


TABLES = {
    table.name: table
    for table in (
        Table("shares", ("layer", "head", "position", "token", "looks_at_position", "looks_at_token", "share")),
        Table("top", (STAGE_COLUMN, "position", "token", "rank", "next_token_id", "next_token", "probability")),
        Table("followed", ("followed_id", "followed_token", STAGE_COLUMN, "position", "token", "probability", "rank")),
        Table("distances", (STAGE_COLUMN, "position", "token_a", "token_b", "distance")),
        Table("taken_out", ("taken_out", "layer", "head", "probability", "rank")),
        Table(
            "put_back", ("piece", "after_layer", "layer", "position", "head", "score_difference", "back", "probability")
        ),
    )
}


def empty(n_layer: int, n_head: int) -> dict[str, list[dict[str, object]]]:
    """Placeholder datasets for a text of one token: every share on it, every chance 0, the followed token ranked 1,
    the two compared texts the same."""
    panels = [{"l": l, "h": h, "u": [PER_SHARE]} for l in range(n_layer) for h in range(n_head + 1)]
    return {
        PANELS.name: panels + [{"l": n_layer, "h": n_head, "u": [PER_SHARE]}],
        TOP.name: [
            {"stage": s, "q": 0, "rank": r, "token": "", "id": -1, "p": 0.0}
            for s in range(n_layer + 1)
            for r in range(1, TOP_K + 1)
        ],
        FOLLOW.name: [{"stage": s, "q": 0, "p": 0.0, "rank": 1} for s in range(n_layer + 1)],
        CELLS.name: [
            {"stage": s, "position": 0, "token": PLACEHOLDER, "distance": 0.0, "name": f"1: {PLACEHOLDER}"}
            for s in range(n_layer + 1)
        ],
    }
