"""The cache of model runs: a rebuild whose model and texts did not change reads the run from here and never
imports torch.

An entry is keyed on everything that determines the run: the model's identity (for a hub id its resolved
commit; for a local directory a fingerprint of its files; for --model random its seed and shape:
figsite.model.hub.model_identity), what the figures ask of the run (figsite.data.asks.Asks.key: the distinct texts
with their targets, and the config's values their parts are worked out from), the device, and the versions of what
computes and writes it, all derived and none bumped by hand: the capture's (figsite.capture.parts.versions, a
digest of its source, handed in by the pipeline) and the data format's (its constants). Each entry lists the
SHA-256 of every file it holds; an entry that does not match its list is removed and the model runs again.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, cast

from figsite.data.asks import Asks
from figsite.data.format import version as format_version
from figsite.data.run import Run
from figsite.errors import reason, warn
from figsite.model.hub import model_identity  # what names the model's weights: the key's first part

if TYPE_CHECKING:
    from figsite.model.hub import ModelIdentity

Tokens = dict[str, list[str]]  # each text and target -> its tokens' texts (what the config's checks read)

CACHE_FORMAT = "gpt2-figures-cache/1"  # the entries' own layout (manifest.json, data/)
# What a captured run writes, as a number derived from the data format's constants (figsite.data.format.version):
# a changed constant never reuses an old entry. The code that computes the run is versioned by key()'s `versions`.
CAPTURE_VERSION = format_version()

__all__ = [
    "default_dir",
    "file_sha256",
    "key",
    "keep",
    "keep_folder",
    "load",
    "memo",
    "memo_each",
    "model_identity",
    "recall",
    "recall_each",
    "recall_folder",
    "store",
]


def default_dir() -> Path:
    """$GPT2_FIGURES_CACHE, else gpt2-chapter-figures in the user's cache folder."""
    if os.environ.get("GPT2_FIGURES_CACHE"):
        return Path(os.environ["GPT2_FIGURES_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "gpt2-chapter-figures"


def key(identity: ModelIdentity, asks: Asks, device: str, versions: Mapping[str, str] | None = None) -> str:
    """The entry's name: a digest of everything that determines the run. `asks`: what the figures ask of it, merged
    (sitegen.pipeline.gather_asks), keyed before the figures are resolved (Asks.key). `versions`: the versions of
    the code that computes the run, derived from its source (figsite.capture.parts.versions)."""
    inputs = {
        **asks.key(),
        "cache": CACHE_FORMAT,
        "capture": CAPTURE_VERSION,
        "versions": versions or {},
        "model": identity,
        "device": device,
    }
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()


# ---------------------------------------------------------------------------------------------- entries


def load(
    folder: Path, entry_key: str, log: Callable[[str], object] = lambda message: None
) -> tuple[Run, Tokens] | None:
    """(run, tokens) from the entry, or None on a miss. A damaged entry is removed and counts as a miss.

    `tokens` maps each text and target to its tokens' texts, so that the config can be checked without
    the tokenizer.
    """
    entry = Path(folder) / entry_key
    manifest_path = entry / "manifest.json"
    if not manifest_path.is_file():
        log("cache: no run stored for this model and these texts")
        return None
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if manifest.get("format") != CACHE_FORMAT or manifest.get("key") != entry_key:
            raise ValueError("written by another version")
        contents: dict[str, str] = {}
        for path, expected in manifest["files"].items():
            raw = (entry / "data" / path).read_bytes()
            if hashlib.sha256(raw).hexdigest() != expected:
                raise ValueError(f"{path} does not match its checksum")
            contents[path] = raw.decode("utf-8")
        run = Run.from_files(contents.__getitem__)
        tokens: Tokens = manifest["tokens"]  # as store() wrote it
        return run, tokens
    except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        warn(f"the cached run {entry} is damaged ({exc}); it is removed and the model runs again")
        shutil.rmtree(entry, ignore_errors=True)
        return None


def store(folder: Path, entry_key: str, run: Run, tokens: Tokens) -> None:
    """Writes an entry whole into a temporary folder, then renames it into place. Where it can't, says so in a
    warning: the cache only saves time, it never fails a build."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".entry-", dir=folder))
    except OSError as exc:
        _not_kept(folder, exc)
        return
    try:
        files = replace(run, folder="").write_files(staging / "data")  # kept as the main model's
        manifest = {"format": CACHE_FORMAT, "key": entry_key, "files": files, "tokens": tokens}
        (staging / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False), encoding="utf-8")
        entry = folder / entry_key
        shutil.rmtree(entry, ignore_errors=True)
        os.replace(staging, entry)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        _not_kept(folder, exc)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _not_kept(folder: Path, exc: OSError) -> None:
    warn(
        f"the cache at {folder} could not be written ({reason(exc)}); the site is built anyway, and the next "
        "build runs the model again (--cache DIR or --no-cache to choose)",
        once=("cache written", str(folder)),
    )


# ---------------------------------------------------------------------------------------------- assets


def memo(folder: Path | None, parts: Sequence[object], compute: Callable[[], bytes]) -> bytes:
    """Bytes that depend only on `parts` (a figure's page data), computed once and kept.

    With no cache folder, they are computed every time.
    """
    raw = recall(folder, parts)
    if raw is None:
        raw = compute()
        keep(folder, parts, raw)
    return raw


def memo_each(
    folder: Path | None, parts: Sequence[object], names: Sequence[str], compute: Callable[[], list[bytes]]
) -> list[bytes]:
    """memo for several files at once (a page's downloads): compute() returns the bytes of each of `names`, all
    made again where any is missing."""
    kept = recall_each(folder, parts, names)
    if any(raw is None for raw in kept):
        made = compute()
        for name, raw in zip(names, made):
            keep(folder, [*parts, name], raw)
        return made
    return cast("list[bytes]", kept)  # none of them None: checked above


def recall(folder: Path | None, parts: Sequence[object]) -> bytes | None:
    """The bytes kept for `parts` (the Vega bundle, a chart's drawing), or None where none are, or they are damaged."""
    if folder is None:
        return None
    return _recall_at(folder, _asset_path(folder, parts))


def recall_each(folder: Path | None, parts: Sequence[object], names: Sequence[str]) -> list[bytes | None]:
    """recall(folder, [*parts, name]) for each of `names`, with `parts` (a chart's spec: large) serialised once."""
    if folder is None:
        return [None for _ in names]
    return [_recall_at(folder, path) for path in _asset_paths(folder, parts, names)]


def _recall_at(folder: Path, path: Path) -> bytes | None:
    checksum = path.with_suffix(".sha256")
    try:
        if path.is_file() and checksum.is_file():
            raw = path.read_bytes()
            if hashlib.sha256(raw).hexdigest() == checksum.read_text(encoding="ascii").strip():
                return raw
    except (OSError, UnicodeDecodeError) as exc:
        warn(
            f"the cache at {folder} could not be read ({exc}); what it would hold is made again",
            once=("cache read", str(folder)),
        )
    return None


def keep(folder: Path | None, parts: Sequence[object], raw: bytes) -> None:
    """Keeps the bytes computed for `parts`, for the next build (nothing where there is no cache folder)."""
    if folder is None:
        return
    path = _asset_path(folder, parts)
    staging = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        staging.write_bytes(raw)
        os.replace(staging, path)
        path.with_suffix(".sha256").write_text(hashlib.sha256(raw).hexdigest(), encoding="ascii")
    except OSError as exc:
        try:
            staging.unlink(missing_ok=True)
        except OSError:
            pass  # its folder could not be made: nothing was written
        _not_kept(Path(folder), exc)


def recall_folder(folder: Path | None, parts: Sequence[object], files: Mapping[str, str]) -> Path | None:
    """The folder kept for `parts` (keep_folder), where it holds each of `files` ({name: SHA-256}) unchanged; else
    None (a damaged one is removed)."""
    if folder is None:
        return None
    kept = _asset_path(folder, parts)
    try:
        if kept.is_dir() and all(file_sha256(kept / name) == digest for name, digest in files.items()):
            return kept
        shutil.rmtree(kept, ignore_errors=True)
    except OSError as exc:
        warn(
            f"the cache at {folder} could not be read ({reason(exc)}); what it would hold is made again",
            once=("cache read", str(folder)),
        )
    return None


def keep_folder(folder: Path | None, parts: Sequence[object], source: Path) -> Path | None:
    """Copies the folder `source` into the cache for `parts`, whole or not at all; returns where the copy is, or None
    where there is no cache folder or it could not be written."""
    if folder is None:
        return None
    kept = _asset_path(folder, parts)
    staging = kept.with_name(f".{kept.name}.{os.getpid()}")
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(kept, ignore_errors=True)
        shutil.copytree(source, staging)
        os.replace(staging, kept)  # a rename within the cache: the folder is there whole, or not at all
        return kept
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        _not_kept(Path(folder), exc)
        return None


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file, read a MiB at a time (the live page's model files are near 100 MB each)."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _asset_path(folder: Path, parts: Sequence[object]) -> Path:
    return _named(folder, json.dumps(parts, sort_keys=True, ensure_ascii=False))


def _asset_paths(folder: Path, parts: Sequence[object], names: Sequence[str]) -> list[Path]:
    """_asset_path(folder, [*parts, name]) for each name: the same JSON text, its long common part written once."""
    if not parts:
        return [_asset_path(folder, [name]) for name in names]
    head = json.dumps(parts, sort_keys=True, ensure_ascii=False)[:-1]  # "[a, b" of "[a, b]"
    return [_named(folder, f"{head}, {json.dumps(name, sort_keys=True, ensure_ascii=False)}]") for name in names]


def _named(folder: Path, text: str) -> Path:
    name = hashlib.sha256(text.encode()).hexdigest()
    return Path(folder) / "assets" / name[:2] / name
