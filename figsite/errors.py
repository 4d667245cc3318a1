"""The errors a build reports to its author, each as a single line with no traceback, and its warnings.

- BuildError: bad input or an unusable model (exit code 2).
- FaultError: the machine or the files around the build failed it (a full disk, a folder it cannot write);
  exit code 1. `fault()` turns an OSError of our own writes into one, naming the path and what to do.
- warn(): a line on stderr that does not stop the build (the cache could not be used), even with --quiet.
"""

from __future__ import annotations

import errno
import re
import sys
from pathlib import Path


class BuildError(Exception):
    """Bad input or an unusable model. The message is one line that names what was wrong and what is allowed."""

    exit_code = 2

    def __init__(self, message: str):
        # Keep the promise of one line even when a library's message spans several.
        super().__init__(" ".join(str(message).split()))


class FaultError(BuildError):
    """A fault of the machine or of the files around the build, not of its input."""

    exit_code = 1


def reason(exc: OSError) -> str:
    """An OSError in words: 'the disk is full', 'permission denied', ..."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "the disk is full"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "it may not be written (" + (exc.strerror or "permission denied").lower() + ")"
    return (exc.strerror or str(exc)).lower()


def fault(exc: OSError, what: str, where: Path, then: str) -> FaultError:
    """One line for an OSError of our own writes: what failed, where, why, and what is kept or to do."""
    return FaultError(f"{what} {where}: {reason(exc)}; {then}")


def one_line(exc: BaseException, limit: int = 300) -> str:
    """A library's error as one short line, 'ValueError: what it said': its message's lines joined, a Rust
    stack backtrace or a Python traceback it carries cut off, and the whole cut to `limit` characters."""
    message = re.split(r"\s*(?:Stack backtrace:|Traceback \(most recent call last\))", str(exc), maxsplit=1)[0]
    line = " ".join(f"{type(exc).__name__}: {message}".split()).rstrip(":")
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


_warned: set[object] = set()  # the `once` keys, or messages, already said


def warn(message: str, once: object = None) -> None:
    """Says on stderr, even with --quiet, what went wrong that the build could do without: once per `once`
    (e.g. a folder), else once per message."""
    line = " ".join(message.split())
    key = line if once is None else once
    if key not in _warned:
        _warned.add(key)
        print(f"warning: {line}", file=sys.stderr, flush=True)
