"""What the build knows about models before it loads one: GPT-2 small's shape and whether the hub answers.

Nothing here imports torch or transformers, so a cached rebuild can use it.
"""

from __future__ import annotations

import socket
import urllib.parse

# GPT-2 small's shape, for --model random.
GPT2_SMALL = dict(vocab_size=50257, n_positions=1024, n_embd=768, n_layer=12, n_head=12)


def hub_reachable(timeout: float = 3.0) -> bool:
    """One quick look: the hub client itself retries for half a minute before it gives up."""
    from huggingface_hub import constants

    host = urllib.parse.urlparse(constants.ENDPOINT).hostname or "huggingface.co"
    try:
        socket.create_connection((host, 443), timeout=timeout).close()
        return True
    except OSError:
        return False
