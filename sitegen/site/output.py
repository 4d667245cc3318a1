"""The output folder: one build at a time, a site written whole beside it, then swapped in at once.

The site is written into a temporary folder beside `out` and swapped in only when complete, so a failed or
killed build leaves the previous site as it was; the next build tidies what a killed one left.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

from figsite.errors import BuildError, fault, reason

MARKER = ".gpt2-figures-site"  # says a folder was written by this tool, so a rebuild may replace it


@contextmanager
def output_lock(out: Path):
    """Holds the output folder for one build. A second build into the same folder stops with a clear line.

    The lock is the kernel's (flock): it goes with the process, also when the process is killed.
    """
    out = Path(out).resolve()
    _check_out(out)  # before the model runs: a folder the build may not replace is refused at once
    lock_path = out.parent / f".{out.name}.lock"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        handle = open(lock_path, "a+", encoding="utf-8")
    except OSError as exc:
        raise fault(exc, "--out: cannot hold the folder for the site beside", lock_path.parent,
                    "allowed: a folder you may write into") from None
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise BuildError(f"--out: another build ({holder}) is writing {out} right now; allowed: one build "
                             "per output folder at a time, so try again when it has finished") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}")
        handle.flush()
        _recover(out)
        try:
            yield
        finally:
            handle.seek(0)
            handle.truncate()


def _recover(out: Path) -> None:
    """Tidies what a killed build left beside `out`: its half-written folder, or a site it had moved aside."""
    for leftover in sorted(out.parent.glob(f".{out.name}-old-*")):
        kept = leftover / "site"
        if not out.exists() and kept.is_dir():
            os.replace(kept, out)  # killed between moving the old site aside and the new one in
        shutil.rmtree(leftover, ignore_errors=True)
    for leftover in out.parent.glob(f".{out.name}-new-*"):
        shutil.rmtree(leftover, ignore_errors=True)


def _check_out(out: Path) -> None:
    """Refuses to replace a folder this tool did not write: `--out ~` must not wipe a home folder."""
    if out.exists() and not out.is_dir():
        raise BuildError(f"--out: {out} is a file; allowed: a folder for the site")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).exists():
        raise BuildError(f"--out: {out} holds files this tool did not write; allowed: a new or empty folder, "
                         "or one an earlier build wrote")


def _swap(staging: Path, out: Path) -> None:
    """Puts the new site in place. On Linux the two folders trade places in one step (renameat2 with
    RENAME_EXCHANGE), so at every moment `out` holds a whole site, the old or the new, even if the build is
    killed. Elsewhere the old site is moved aside first, and the next build puts it back if need be."""
    if not out.exists():
        os.replace(staging, out)
        return
    if _exchange(staging, out):
        shutil.rmtree(staging, ignore_errors=True)  # now holds the old site
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}-old-", dir=out.parent))
    os.replace(out, old / "site")
    os.replace(staging, out)
    shutil.rmtree(old, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Swaps two paths atomically where the system can (Linux 3.15+, glibc 2.28+); False where it can't."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    return renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0


def publish(out: Path, write) -> None:
    """Calls write(folder) on a fresh folder beside `out`, then swaps it in for `out` (hold output_lock)."""
    out = Path(out).resolve()
    _check_out(out)
    kept = "the previous site is unchanged" if out.exists() else "no site was written"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-new-", dir=out.parent))
    except OSError as exc:
        raise fault(exc, "--out: could not write the site in", out.parent, kept) from None
    try:
        (staging / MARKER).write_text("Written by build.py; a rebuild replaces this folder.\n", encoding="utf-8")
        write(staging)
        _swap(staging, out)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        way_out = "free some space on it or choose another --out" if reason(exc) == "the disk is full" \
            else "choose another --out"
        raise fault(exc, "--out: could not write the site in", out.parent, f"{kept}; {way_out}") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
