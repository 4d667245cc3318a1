"""figsite: the static-site generator of the chapter's figures (python build.py), and, for a notebook,

    figsite.figure(kind, text=..., model=..., **keys) -> an Altair chart

the chart the site draws for a [[figure]] of those keys (sitegen.notebook.figure, imported when called: the package's
lower layers import nothing above them).
"""

from __future__ import annotations

import importlib
from typing import Any


def figure(kind: str, **keys: Any) -> Any:
    """The Altair chart of a figure of `kind` with the config's keys (sitegen.notebook.figure says which)."""
    # Found by name when called: the site's layer lies above this package's own, which imports nothing above it.
    return importlib.import_module("sitegen.notebook").figure(kind, **keys)
