"""The cache of model runs: a rebuild whose model and texts did not change reads the run from here and never
imports torch.

An entry is keyed on everything that determines the run: the model's identity (for a hub id its resolved
commit; for a local directory a fingerprint of its files; for --model random its seed and shape), the
distinct texts with their targets, the device, and the data format. Each entry lists the SHA-256 of every
file it holds; an entry that does not match its list is removed and the model runs again.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from figsite.errors import reason, warn
from figsite.model.hub import GPT2_SMALL, cached_commit, hub_reachable, is_commit
from figsite.data.run import DATA_FORMAT, LONG_DATA_FORMAT, PARTS_FORMAT, RUN_FORMAT, Run

CACHE_FORMAT = "gpt2-figures-cache/1"
# Bump when capture changes what it writes for the same inputs, so that old entries are not trusted.
CAPTURE_VERSION = 4  # 4: a token that is part of a character is written as its bytes, <E2 80>
SMALL_FILE = 16 * 1024 * 1024  # files of a local model up to this size are hashed whole; larger by size+mtime


def default_dir() -> Path:
    """$GPT2_FIGURES_CACHE, else gpt2-chapter-figures in the user's cache folder."""
    if os.environ.get("GPT2_FIGURES_CACHE"):
        return Path(os.environ["GPT2_FIGURES_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "gpt2-chapter-figures"


# ---------------------------------------------------------------------------------------------- identity

def model_identity(model: str, revision: str | None, seed: int) -> dict | None:
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


def key(identity: dict, requests: dict, device: str, asks: list | None = None) -> str:
    """The entry's name: a digest of everything that determines the run. `asks`: what figures ask of the run
    beyond their texts, as [kind, {config key: value}] (figsite.pipeline.Needs)."""
    inputs = {"asks": asks or [], "cache": CACHE_FORMAT, "capture": CAPTURE_VERSION,
              "formats": [DATA_FORMAT, LONG_DATA_FORMAT, RUN_FORMAT, PARTS_FORMAT],
              "model": identity, "device": device,
              "texts": sorted([text, target] for text, target in requests.items())}
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()


# ---------------------------------------------------------------------------------------------- entries

def load(folder: Path, entry_key: str, log=lambda message: None):
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
        contents = {}
        for path, expected in manifest["files"].items():
            raw = (entry / "data" / path).read_bytes()
            if hashlib.sha256(raw).hexdigest() != expected:
                raise ValueError(f"{path} does not match its checksum")
            contents[path] = raw.decode("utf-8")
        run = Run.from_files(contents.__getitem__)
        return run, manifest["tokens"]
    except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        warn(f"the cached run {entry} is damaged ({exc}); it is removed and the model runs again")
        shutil.rmtree(entry, ignore_errors=True)
        return None


def store(folder: Path, entry_key: str, run: Run, tokens: dict) -> None:
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
        files = run.write_files(staging / "data")
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
    warn(f"the cache at {folder} could not be written ({reason(exc)}); the site is built anyway, and the next "
         "build runs the model again (--cache DIR or --no-cache to choose)", once=("cache written", str(folder)))


# ---------------------------------------------------------------------------------------------- assets

def memo(folder: Path | None, parts: list, compute) -> bytes:
    """Bytes that depend only on `parts` (a figure's page data), computed once and kept.

    With no cache folder, they are computed every time.
    """
    raw = recall(folder, parts)
    if raw is None:
        raw = compute()
        keep(folder, parts, raw)
    return raw


def recall(folder: Path | None, parts: list) -> bytes | None:
    """The bytes kept for `parts` (the Vega bundle, a chart's drawing), or None where none are, or they are damaged."""
    if folder is None:
        return None
    path = _asset_path(folder, parts)
    checksum = path.with_suffix(".sha256")
    try:
        if path.is_file() and checksum.is_file():
            raw = path.read_bytes()
            if hashlib.sha256(raw).hexdigest() == checksum.read_text(encoding="ascii").strip():
                return raw
    except (OSError, UnicodeDecodeError) as exc:
        warn(f"the cache at {folder} could not be read ({exc}); what it would hold is made again",
             once=("cache read", str(folder)))
    return None


def keep(folder: Path | None, parts: list, raw: bytes) -> None:
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


def _asset_path(folder: Path, parts: list) -> Path:
    name = hashlib.sha256(json.dumps(parts, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    return Path(folder) / "assets" / name[:2] / name
