"""The tree holds source only: no archive, wheel, model weights or other binary is committed, and what `npm run bundle`
writes lies in one folder of its own, marked generated (.gitattributes), whose freshness tests/unit/test_scripts.py
checks."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GENERATED = "templates/generated/"
PICTURES = "docs/images/"  # the README's and the docs' pictures: the one place a binary belongs
# Archives, packages, compiled code and tensors: what a build or a download makes, never the project's source.
FOREIGN = re.compile(
    r"\.(whl|zip|tar|gz|tgz|bz2|xz|zst|7z|rar|jar|egg|so|dylib|dll|exe|pyc|pyo|onnx|safetensors|bin"
    r"|pt|pth|ckpt|npz|npy|pkl|h5|parquet)$",
    re.IGNORECASE,
)


def committed() -> list[str]:
    """Every file git tracks in the project (skips where the tree is no git checkout: an unpacked sdist)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [name for name in listed.decode("utf-8").split("\0") if name]


def is_binary(path: Path) -> bool:
    """Whether a file holds a NUL byte in its first 8 KiB, as git itself tells a binary file from text."""
    with path.open("rb") as handle:
        return b"\0" in handle.read(8192)


def test_no_archive_wheel_weights_or_binary_is_committed():
    files = committed()
    assert "build.py" in files and "figures/kind.py" in files  # the listing is the project's
    foreign = [name for name in files if FOREIGN.search(name)]
    binary = [
        name
        for name in files
        if (ROOT / name).is_file()
        and is_binary(ROOT / name)
        and not (name.startswith(PICTURES) and name.endswith((".png", ".jpg", ".webp")))
    ]
    assert not foreign, f"archives or binaries committed: {foreign}"
    assert not binary, f"binary files committed: {binary}"


def test_every_bundle_is_written_into_the_generated_folder_which_git_marks_generated():
    bundler = (ROOT / "tools" / "bundle.mjs").read_text(encoding="utf-8")
    outputs = re.findall(r'\bout: "([^"]+)"', bundler) + re.findall(r'STYLES = "([^"]+)"', bundler)
    assert len(outputs) >= 5
    assert all(out.startswith(GENERATED) for out in outputs), outputs
    assert f"{GENERATED}** linguist-generated=true" in (ROOT / ".gitattributes").read_text(encoding="utf-8")
    written = {str(path.relative_to(ROOT)) for path in (ROOT / GENERATED).rglob("*") if path.is_file()}
    assert written == set(outputs), "the generated folder holds exactly the bundles"
