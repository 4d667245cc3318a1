"""The ledger figure's numbers (figures.ledger): from the figure's entry of the part "ledgers" (figsite/capture/parts/
ledgers.py), each part's share of the target's and the versus token's score, their sums beside the model's scores,
a layer part's inside (its heads, or its largest neurons), the half-layers' names, and one state of the chart in
words; and the downloads' tables of the heads and the neurons. Its functions read the entry and take no run, but
describe, which reads the feed-forward step's neurons (run.n_neurons).
"""

from __future__ import annotations

from collections.abc import Sequence

from figsite.data.part_records import LedgerEntry, LedgerHeads, LedgerNeurons, LedgerStage
from figsite.data.run import Run
from figures.records import LedgerRow, Score
from figures.toolkit.words import STAGE_0, count, said

DECIMALS = 4  # what the page and the printed figure show of a score
# The bias a part adds after all else, the same whatever the text (the final layer norm's, or a layer part's own), in
# the words of the figure's caption ("a fixed part, the same for every text"): the capture names the final one "final
# layer norm bias".
FIXED = "the fixed part"
SAID = {"final layer norm bias": FIXED}
KEPT = 6  # what the page's data keep of a score: finer than what it shows


def part_key(part: str, layer: int | None) -> str:
    """A layer's part as the "part" select and the page's address name it: 'attention-5', 'feed-forward-5'
    (layers from 1); the other parts are not chosen, so they have none."""
    return f"{part}-{layer + 1}" if layer is not None else ""


def part_name(part: str, layer: int | None) -> str:
    """A part as readers read it: 'layer 5 attention', 'token embedding', 'the fixed part'."""
    return f"layer {layer + 1} {part}" if layer is not None else SAID.get(part, part)


def rows(ledger: LedgerEntry) -> list[LedgerRow]:
    """Each part, numbered from 1, with its share of the target's score, the versus token's and the difference."""
    return [
        {
            "n": n,
            "part": part_name(r["part"], r["layer"]),
            "key": part_key(r["part"], r["layer"]),
            "kind": r["part"],
            "layer": None if r["layer"] is None else r["layer"] + 1,
            "target": r["target"],
            "versus": r["versus"],
            "difference": r["target"] - r["versus"],
        }
        for n, r in enumerate(ledger["parts"], start=1)
    ]


def totals(ledger: LedgerEntry) -> dict[str, dict[str, float]]:
    """The parts' sums and the model's scores, for the target, the versus token and their difference."""
    parts = rows(ledger)
    score = ledger["score"]
    return {
        "sum": {key: sum(r[key] for r in parts) for key in ("target", "versus", "difference")},
        "score": {
            "target": score["target"],
            "versus": score["versus"],
            "difference": score["target"] - score["versus"],
        },
    }


def layer_parts(ledger: LedgerEntry) -> list[LedgerRow]:
    """The parts a reader can look inside: each layer's attention and feed-forward part, in order."""
    return [r for r in rows(ledger) if r["key"]]


def largest(ledger: LedgerEntry, key: Score, by_size: bool = False) -> LedgerRow:
    """The layer part that adds most to the score `key` ("target" or "difference"), or moves it most either way."""
    return max(layer_parts(ledger), key=lambda r: abs(r[key]) if by_size else r[key])


def stage_name(stage: LedgerStage) -> str:
    """'before any layer' (STAGE_0), "after layer 2's attention", "after layer 2's feed-forward"."""
    if stage["layer"] is None:
        return STAGE_0
    return f"after layer {stage['layer'] + 1}'s {stage['part']}"


def stage_x(stage: int) -> float:
    """Where a half-layer lies on the curves' axis, counted in layers: 2 is after layer 2 (as figure (i)'s stage
    2), 1.5 after layer 2's attention."""
    return stage / 2


def signed(value: float) -> str:
    return f"{value:+.{DECIMALS}f}"


# ---------------------------------------------------------------------------------------------- inside a part


def inside(ledger: LedgerEntry, key: str, score: Score, others: int) -> list[tuple[str, float]]:
    """One layer part split as the drill-down shows it: (label, value) per head and the bias (FIXED) for attention,
    or the 10 neurons that move the score `score` most, the others together and the bias for feed-forward."""
    part, number = key.rsplit("-", 1)
    layer = int(number) - 1

    def value(pair: Sequence[float]) -> float:
        return pair[0] if score == "target" else pair[0] - pair[1]

    if part == "attention":
        heads = ledger["heads"][layer]
        return [(f"head {h}", value(pair)) for h, pair in enumerate(heads["heads"], start=1)] + [
            (FIXED, value(heads["bias"]))
        ] * has_bias(heads)
    split = ledger["neurons"][layer]
    picked = split[score]
    return (
        [(f"neuron {n['neuron'] + 1}", value((n["target"], n["versus"]))) for n in picked["top"]]
        + [(f"the other {count(others - len(picked['top']), 'neuron')}", value(picked["others"]))]
        + [(FIXED, value(split["bias"]))] * has_bias(split)
    )


def has_bias(split: LedgerHeads | LedgerNeurons) -> bool:
    """Whether a layer part adds a fixed part: its bias (a family whose parts have none, such as Llama's, reads a bias
    of exactly zero from the model's interface: no fixed part to show)."""
    return any(value != 0 for value in split["bias"])


def inside_title(ledger: LedgerEntry, key: str, score: Score) -> str:
    """The drill-down's heading: what the chosen part is split into, and what it adds to the score."""
    row = next(r for r in rows(ledger) if r["key"] == key)
    split = ledger["heads" if row["kind"] == "attention" else "neurons"][int(key.rsplit("-", 1)[1]) - 1]
    into = "its heads" if row["kind"] == "attention" else "its neurons"
    return f"Inside {row['part']} ({signed(row[score])}): {into}" + (" and its fixed part" if has_bias(split) else "")


def describe(run: Run, ledger: LedgerEntry, score: Score, key: str) -> str:
    """One state of the chart in words, for screen readers."""
    names = score_names(ledger)
    sums = totals(ledger)["sum"]
    top = largest(ledger, score)
    row = next(r for r in rows(ledger) if r["key"] == key)
    items = inside(ledger, key, score, run.n_neurons)
    label, value = max(items, key=lambda item: abs(item[1]))
    moves = "move" if label.endswith("neurons") else "moves"  # the other neurons, together; else one item
    return (
        f"{names[score]}: the parts add up to {sums[score]:.{DECIMALS}f}; of the layers, {top['part']} adds most "
        f"({signed(top[score])}). {row['part'].capitalize()} adds {signed(row[score])}; inside it, {label} {moves} "
        f"it most ({signed(value)})."
    )


def score_names(ledger: LedgerEntry) -> dict[Score, str]:
    target, versus = said(ledger["target"]["text"]), said(ledger["versus"]["text"])
    return {"target": f"The score of {target}", "difference": f"The score of {target} minus that of {versus}"}


def opening_part(ledger: LedgerEntry) -> str:
    """The part the drill-down opens on: the layer part that moves the target's score most, either way."""
    return largest(ledger, "target", by_size=True)["key"]


# ---------------------------------------------------------------------------------------------- the downloads


def head_table(ledger: LedgerEntry) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for layer, split in enumerate(ledger["heads"], start=1):
        for head, (t, v) in [*enumerate(split["heads"], start=1), *[(None, split["bias"])] * has_bias(split)]:
            out.append(
                {
                    "layer": layer,
                    "head": head,
                    "item": FIXED if head is None else f"head {head}",
                    "target": t,
                    "versus": v,
                    "difference": t - v,
                }
            )
    return out


def neuron_table(ledger: LedgerEntry) -> list[dict[str, object]]:
    """Each feed-forward part's largest neurons by the target's score ("by": target) and by the difference
    ("by": difference), the others together, and the bias."""
    out: list[dict[str, object]] = []
    for layer, split in enumerate(ledger["neurons"], start=1):
        for by in ("target", "difference"):
            picked = split[by]
            items: list[tuple[int | None, str, float, float]] = [
                (n["neuron"] + 1, f"neuron {n['neuron'] + 1}", n["target"], n["versus"]) for n in picked["top"]
            ]
            (others_t, others_v), (bias_t, bias_v) = picked["others"], split["bias"]  # [target, versus] each
            items += [(None, "the others", others_t, others_v)] + [(None, FIXED, bias_t, bias_v)] * has_bias(split)
            out += [
                {
                    "layer": layer,
                    "by": by,
                    "neuron": neuron,
                    "item": item,
                    "target": t,
                    "versus": v,
                    "difference": t - v,
                }
                for neuron, item, t, v in items
            ]
    return out
