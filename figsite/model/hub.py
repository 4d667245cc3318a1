"""What the build knows about models before it loads one: GPT-2 small's shape and whether the hub answers.

Nothing here imports torch, so a cached rebuild can use it.
"""

from __future__ import annotations

import socket
from pathlib import Path
import urllib.parse

# GPT-2 small's shape, for --model random.
GPT2_SMALL = dict(vocab_size=50257, n_positions=1024, n_embd=768, n_layer=12, n_head=12)


def is_commit(revision: str | None) -> bool:
    return bool(revision) and len(revision) == 40 and all(c in "0123456789abcdef" for c in revision)


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
