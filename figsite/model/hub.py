"""What the build knows about models before it loads one: GPT-2 small's shape, whether the hub answers, and what
names a model's weights exactly (`model_identity`, which keys the cache of runs).

Nothing here imports torch, so a cached rebuild can use it.
"""

from __future__ import annotations

import hashlib
import os
import socket
from pathlib import Path
import urllib.parse
from typing import Literal, TypedDict, Union


class GPT2Shape(TypedDict, total=False):
    """A GPT-2's shape, as GPT2Config's fields (figsite.model.gpt2_config) name it."""

    vocab_size: int
    n_positions: int
    n_embd: int
    n_layer: int
    n_head: int
    n_inner: int


class RandomIdentity(TypedDict):
    kind: Literal["random"]
    seed: int
    shape: GPT2Shape


class DirectoryIdentity(TypedDict):
    kind: Literal["directory"]
    path: str  # resolved
    files: str  # directory_fingerprint


class HubIdentity(TypedDict):
    kind: Literal["hub"]
    id: str
    commit: str


# What names a model's weights exactly (a part of the cache's keys), told apart by "kind".
ModelIdentity = Union[RandomIdentity, DirectoryIdentity, HubIdentity]

# GPT-2 small's shape, for --model random.
GPT2_SMALL: GPT2Shape = dict(vocab_size=50257, n_positions=1024, n_embd=768, n_layer=12, n_head=12)
SMALL_FILE = 16 * 1024 * 1024  # files of a local model up to this size are hashed whole; larger by size+mtime


def model_identity(model: str, revision: str | None, seed: int) -> ModelIdentity | None:
    """What names the model's weights exactly, without loading them; None where that can't be known."""
    if model == "random":
        return {"kind": "random", "seed": seed, "shape": GPT2_SMALL}
    path = Path(model).expanduser()
    if path.is_dir():
        return {"kind": "directory", "path": str(path.resolve()), "files": directory_fingerprint(path)}
    commit = resolve_revision(model, revision)
    return {"kind": "hub", "id": model, "commit": commit} if commit else None


def directory_fingerprint(path: Path) -> str:
    """A digest of a model directory's files: names and contents (size and mtime for the big weights)."""
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        stat = file.stat()
        digest.update(str(file.relative_to(path)).encode() + b"\0")
        if stat.st_size <= SMALL_FILE:
            digest.update(hashlib.sha256(file.read_bytes()).digest())
        else:
            digest.update(f"{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()


def resolve_revision(model: str, revision: str | None) -> str | None:
    """The commit a hub id and revision stand for: asked of the hub where it answers, else the local cache."""
    if is_commit(revision):
        return revision
    if os.environ.get("HF_HUB_OFFLINE") != "1" and hub_reachable():
        try:
            from huggingface_hub import HfApi

            return HfApi().model_info(model, revision=revision, timeout=10).sha
        except Exception:  # the hub said no (unknown id, no access): the build will say why
            return None
    return cached_commit(model, revision)


def is_commit(revision: str | None) -> bool:
    return revision is not None and len(revision) == 40 and all(c in "0123456789abcdef" for c in revision)


def cached_commit(model: str, revision: str | None) -> str | None:
    """The commit of the snapshot the local Hugging Face cache holds for a hub id and revision, else None.

    The cache key of a rebuild needs it without loading anything: this reads it from the cache's
    own layout (refs/<revision> names the commit; snapshots/<commit>/ holds its files), with no network.
    """
    if is_commit(revision):
        return revision
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    try:
        found = try_to_load_from_cache(model, "config.json", revision=revision or "main")
    except ValueError:  # not a hub id at all (a path that does not exist): the loader says what is wrong
        return None
    if not isinstance(found, str):
        return None
    commit = Path(found).parent.name  # .../snapshots/<commit>/config.json
    return commit if is_commit(commit) else None


def hub_reachable(timeout: float = 3.0) -> bool:
    """One quick look: the hub client itself retries for half a minute before it gives up."""
    from huggingface_hub import constants

    host = urllib.parse.urlparse(constants.ENDPOINT).hostname or "huggingface.co"
    try:
        socket.create_connection((host, 443), timeout=timeout).close()
        return True
    except OSError:
        return False
