"""The part "ledgers": [[text, position, target, versus or None], ...], which part of the model wrote a score.
Each entry of data/parts.json's "ledgers" splits the target's score (logit) at one position into the parts of
the residual stream, the same for the versus token, each layer's attention into its heads and each feed-forward
step into its neurons, and gives the target's probability after every half-layer.

GPT-2 in the notation used here: the residual stream after the last layer is

    r = token embedding + position embedding + sum over layers l of (attention_l + feed-forward_l)

and the model's score of token t at a position is LN(r) . u_t, where LN(r) = g * (r - mean(r)) / s + b is the
final layer norm (gain g, bias b, s the standard deviation the model computed) and u_t is t's row of the
unembedding. With s held fixed, every part p of r adds ((p - mean(p)) / s) . (g * u_t) to the score, and
b . u_t is one more part: the parts add up to the score exactly.

A family whose final norm is RMSNorm (Llama-style: RMS(r) = g * r / s, s = sqrt(mean(r^2) + eps), no mean taken
away, no bias) splits the same way without the centring: part p adds (p / s) . (g * u_t), and there is no bias
row. A family with rotary positions adds no position embedding to the stream: that part is left out.

Read at hook_embed and hook_pos_embed (the two embeddings, (batch, position, d_model)), each layer's
blocks.L.hook_attn_out and hook_mlp_out (the parts, (batch, position, d_model)),
blocks.L.attn.hook_z ((batch, position, heads, d_head): each head's mixed values, before the output projection),
blocks.L.mlp.hook_post ((batch, position, neurons): the neurons' activations), and the last layer's
hook_resid_post (r); the rest through the model interface (figsite.model.interface): the final norm's gain, bias
and epsilon, the two tokens' rows of the unembedding, each layer's output projections.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import cast

import torch

from figsite.capture.hooks import point, run_with_cache
from figsite.capture.parts import EntryPart
from figsite.data.part_records import LedgerAnswer
from figsite.capture.readout import log_softmax_total
from figsite.data.format import number, numbers, probability, token
from figsite.data.part_records import Ask, LedgerEntry, LedgerHeads, LedgerNeurons, LedgerPart, LedgerStage, NeuronPick
from figsite.model.interface import LanguageModel
from figsite.model.load import Loaded
from figsite.model.tokens import one_token_id, token_ids, token_text

NEURONS_SHOWN = 10
READ = ("hook_attn_out", "hook_mlp_out", "attn.hook_z", "mlp.hook_post")  # at every layer
# A part of the residual stream at the position read: (name, layer or None, its vector (d_model,) as float64)
StreamPart = tuple[str, int | None, torch.Tensor]


class Ledgers(EntryPart[LedgerEntry]):
    name = "ledgers"

    def compute(self, loaded: Loaded, ask: Ask) -> LedgerAnswer:
        # as figures.ledger asks: the target is one token, and so is versus where it is given (its check)
        text, position, target, versus = cast("tuple[str, int, str, str | None]", ask)
        target_id = cast(int, one_token_id(loaded, target))  # a string's id (None only for None)
        return ledger(loaded, token_ids(loaded, text), position, target_id, one_token_id(loaded, versus))

    def entry_mentions(self, entry: LedgerEntry) -> set[int]:
        return {entry["target"]["id"], entry["versus"]["id"]}


@torch.no_grad()
def _ledger_pass(loaded: Loaded, ids: Sequence[int]) -> dict[str, torch.Tensor]:
    """One pass that keeps what the ledger splits: hook point name -> its activation (the batch dimension
    dropped) for the two embeddings, READ at every layer and the last layer's hook_resid_post. The layers only:
    the scores at the one position read go through the unembedding with the stages'."""
    n_layer = loaded.model.config.n_layer
    embeddings = [name for name in ("hook_embed", "hook_pos_embed") if name in loaded.model.hook_points]
    names = [
        *embeddings,
        *(point(layer, name) for layer in range(n_layer) for name in READ),
        point(n_layer - 1, "hook_resid_post"),
    ]
    return run_with_cache(loaded, ids, names)


@torch.no_grad()
def ledger(loaded: Loaded, ids: Sequence[int], position: int, target_id: int, versus_id: int | None) -> LedgerAnswer:
    """The target's score at `position` split into the parts of the residual stream (see the module's doc), the
    same for the `versus` token (default: the top guess other than the target), each layer's attention split
    into its heads and each feed-forward step into its neurons, and the target's probability after every
    half-layer."""
    model = loaded.model
    kept = _ledger_pass(loaded, ids)
    norm = model.final_norm_weights()
    final = kept[point(model.config.n_layer - 1, "hook_resid_post")][position]  # (d_model,): r
    spread = final.double().var(unbiased=False) if norm.centred else final.double().pow(2).mean()
    sigma = torch.sqrt(spread + norm.eps)
    gain = norm.gain.double()
    bias = torch.zeros_like(gain) if norm.bias is None else norm.bias.double()
    parts = _residual_parts(model, kept, position)
    embeddings = sum(name.endswith("embedding") for name, _, _ in parts)  # 2 with a position embedding, else 1
    stream = torch.cumsum(torch.stack([vector for _, _, vector in parts]), dim=0)[embeddings - 1 :]  # (stages, d_model)
    # One product with the unembedding for the half-layer read-outs and the model's own scores at the position
    # (its last stream normed as the model norms it, row by row).
    scores = model.read_out(torch.cat([stream.float(), final[None]]))  # (stages + 1, vocab)
    logits = scores[-1]
    if versus_id is None:
        versus_id = next(i for i in logits.topk(2).indices.tolist() if i != target_id)
    unembedding = model.unembedding_rows([target_id, versus_id]).double().T  # (d_model, 2): the two tokens' rows
    readers = gain[:, None] * unembedding  # (d_model, 2)

    def through(vectors: torch.Tensor) -> torch.Tensor:
        """What each vector (..., d_model) adds to the two scores, (..., 2)."""
        centred = vectors - vectors.mean(dim=-1, keepdim=True) if norm.centred else vectors
        return centred @ readers / sigma

    contributions = through(torch.stack([vector for _, _, vector in parts]))  # (parts, 2)
    rows: list[LedgerPart] = [
        {"part": name, "layer": layer, "target": number(c[0]), "versus": number(c[1])}
        for (name, layer, _), c in zip(parts, contributions.tolist())
    ]
    if norm.bias is not None:  # a norm with no bias (RMSNorm) has no fixed part: no row of 0 to show
        beta = (bias @ unembedding).tolist()
        rows.append(
            {"part": "final layer norm bias", "layer": None, "target": number(beta[0]), "versus": number(beta[1])}
        )
    return {
        "position": position,
        "target": token(target_id, token_text(loaded, target_id)),
        "versus": token(versus_id, token_text(loaded, versus_id)),
        "sigma": number(sigma.item()),
        "score": {"target": number(logits[target_id].item()), "versus": number(logits[versus_id].item())},
        "parts": rows,
        "heads": _head_split(model, kept, position, through),
        "neurons": _neuron_split(model, kept, position, readers, sigma, norm.centred),
        "stages": _half_stages(parts[embeddings:], stream, scores[:-1], target_id),
    }


def _half_stages(
    parts: Sequence[StreamPart], stream: torch.Tensor, logits: torch.Tensor, target_id: int
) -> list[LedgerStage]:
    """The target's probability after the embedding and after each layer's attention and feed-forward step
    (read out as figure (i) reads, the final layer norm recomputed: `logits`, (stages, vocab), of the residual
    `stream`, (stages, d_model)), with the size of each correction (`parts`: the layers', embeddings left out) and
    of the residual stream it is added to."""
    log_total = log_softmax_total(logits)[:, 0]  # (stages,)
    p = torch.exp(logits[:, target_id].double() - log_total).tolist()
    stages: list[LedgerStage] = [
        {
            "part": "embedding",
            "layer": None,
            "p": probability(p[0]),
            "correction": None,
            "residual": number(stream[0].norm().item()),
        }
    ]
    for s, (name, layer, vector) in enumerate(parts, start=1):
        stages.append(
            {
                "part": name,
                "layer": layer,
                "p": probability(p[s]),
                "correction": number(vector.norm().item()),
                "residual": number(stream[s - 1].norm().item()),
            }
        )
    return stages


def _residual_parts(model: LanguageModel, kept: Mapping[str, torch.Tensor], position: int) -> list[StreamPart]:
    """(name, layer or None, vector (d_model,)) for every part of the residual stream at `position`, in order."""
    parts: list[StreamPart] = [("token embedding", None, kept["hook_embed"][position].double())]
    if "hook_pos_embed" in kept:  # a family with learned positions (GPT-2); a rotary one adds none to the stream
        parts.append(("position embedding", None, kept["hook_pos_embed"][position].double()))
    for layer in range(model.config.n_layer):
        parts += [
            ("attention", layer, kept[point(layer, "hook_attn_out")][position].double()),
            ("feed-forward", layer, kept[point(layer, "hook_mlp_out")][position].double()),
        ]
    return parts


def _head_split(
    model: LanguageModel,
    kept: Mapping[str, torch.Tensor],
    position: int,
    through: Callable[[torch.Tensor], torch.Tensor],
) -> list[LedgerHeads]:
    """Each layer's attention part as its heads (head h's mixed values times its rows of the output projection)
    and the projection's bias: [layer] -> {"heads": [[target, versus], ...], "bias": [target, versus]}."""
    n_head = model.config.n_head
    out: list[LedgerHeads] = []
    for layer in range(model.config.n_layer):
        weights = model.layer_weights(layer)
        z = kept[point(layer, "attn.hook_z")][position]  # (heads, d_head)
        mixed = z.reshape(-1).double()  # (d_model,) the heads' outputs side by side, as the projection reads them
        weight = weights.W_O.reshape(-1, weights.W_O.size(-1)).double()  # (heads x d_head, d_model)
        d_head = mixed.shape[0] // n_head
        heads = torch.stack(
            [mixed[h * d_head : (h + 1) * d_head] @ weight[h * d_head : (h + 1) * d_head] for h in range(n_head)]
        )  # (heads, d_model)
        out.append(
            {
                "heads": [numbers(c) for c in through(heads).tolist()],
                "bias": numbers(through(weights.b_O.double()).tolist()),
            }
        )
    return out


def _neuron_split(
    model: LanguageModel,
    kept: Mapping[str, torch.Tensor],
    position: int,
    readers: torch.Tensor,
    sigma: torch.Tensor,
    centred: bool = True,
) -> list[LedgerNeurons]:
    """Each feed-forward part as its neurons (activation n times row n of the second matrix) and the bias:
    [layer] -> the NEURONS_SHOWN neurons that add most to the target's score (by size), and to the target's
    score minus the versus token's, each with both contributions; what the others add; the bias's share.

    Neuron n adds a_n ((w_n - mean(w_n)) / s) . r for each reader r (gain * u): worked out for all neurons at
    once as a_n (w_n . r - mean(w_n) sum(r)) / s, without a (neurons, d_model) product per layer (an RMSNorm,
    not centred: a_n (w_n . r) / s)."""
    out: list[LedgerNeurons] = []
    for layer in range(model.config.n_layer):
        weights = model.layer_weights(layer)
        activation = kept[point(layer, "mlp.hook_post")][position].double()  # (neurons,)
        weight = weights.W_out.double()  # (neurons, d_model)
        mean = weight.mean(dim=1, keepdim=True) if centred else torch.zeros_like(weight[:, :1])
        each = activation[:, None] * (weight @ readers - mean * readers.sum(dim=0)) / sigma
        picked: dict[str, NeuronPick | list[float]] = {
            key: _largest(each, size)
            for key, size in (("target", each[:, 0].abs()), ("difference", (each[:, 0] - each[:, 1]).abs()))
        }
        bias = weights.b_out.double()
        picked["bias"] = numbers(((bias - bias.mean() if centred else bias) @ readers / sigma).tolist())
        out.append(cast(LedgerNeurons, picked))  # its keys: "target", "difference", "bias"
    return out


def _largest(each: torch.Tensor, size: torch.Tensor) -> NeuronPick:
    """The NEURONS_SHOWN neurons of largest `size`, (neurons,), each with what it adds to both scores (each:
    (neurons, 2)), and what all the others add together."""
    top = size.topk(NEURONS_SHOWN).indices.tolist()
    rest = torch.ones(len(each), dtype=torch.bool)
    rest[top] = False
    return {
        "top": [{"neuron": n, "target": number(each[n, 0].item()), "versus": number(each[n, 1].item())} for n in top],
        "others": numbers(each[rest].sum(dim=0).tolist()),
    }


PART = Ledgers()
