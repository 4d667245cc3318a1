"""The things a whole test run makes once, however many workers run it (pytest-xdist).

A session fixture runs once per worker: with two workers, each would build the chapter's site for itself. `once`
makes a thing in a folder every worker of the run sees (the run's temporary root), under a lock: the first worker
that asks makes it, the others wait for it and read the same folder. A test that only reads such a site shares it;
a test that changes a site works on a copy of its own (`tmp_path`).
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def run_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run's temporary root: a worker's base folder lies in it (popen-gw0/), one process's base folder is it."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Holds an exclusive lock on `path` (made if missing) for the block: one worker at a time."""
    with open(path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def once(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], Path]) -> Path:
    """What make(folder) returns, made once for the whole run in the run's folder `shared-<name>` (empty when make
    is called) and returned to every worker that asks; a failed make is tried again by the next who asks."""
    root = run_root(tmp_path_factory)
    folder, made = root / f"shared-{name}", root / f"shared-{name}.made"
    with locked(root / f"shared-{name}.lock"):
        if not made.is_file():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            result = make(folder)
            made.write_text(result.relative_to(root).as_posix(), encoding="utf-8")
        return root / made.read_text(encoding="utf-8")
