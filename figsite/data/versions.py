"""The one registry of the cache's versions: each namespace of the build's cache names the modules that compute what it
keeps, and its version is a digest of those modules' source and of every module of the project they import, found by
reading their imports (at any depth, in functions too), never bumped by hand. An edit to a file changes the version of
exactly the namespaces whose code reads it; an edit elsewhere (the author's tools, a test) changes none.

A run's own versions are the captured parts' (figsite.capture.parts.versions: the text pass's files and each part's
module), so that a change to one part runs again only the runs that ask for it.
"""

from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the project: figsite/, figures/ and sitegen/
PACKAGES = ("figsite", "figures", "sitegen")

# namespace -> the modules that compute what it keeps (keyed by sitegen.content, sitegen.pages, sitegen.site.writers,
# sitegen.live)
NAMESPACES: dict[str, tuple[str, ...]] = {
    "page": ("figures", "sitegen.content"),  # a figure's page content: its kind's pure functions and gather_page
    "chart": ("sitegen.site.drawing",),  # a chart compiled to Vega, with its dark theme's changes
    "drawing": ("sitegen.site.drawing",),  # a figure's light drawing, SVG and PNG
    "first drawing": ("sitegen.site.drawing",),  # the drawings a page shows until its chart is live
    "print": ("sitegen.site.drawing", "sitegen.site.printing"),  # the book's drawings ([print])
    "narrow": ("sitegen.site.drawing",),  # the narrow chart as changes to the wide one (drawing.differences)
    "downloads": ("sitegen.site.writers",),  # a figure's JSON and CSV downloads
    "loads": ("figsite.data.run",),
    "notebooks": (
        "figures.notebook",
        "sitegen.site.notebooks",
    ),  # each figure's notebook and its page's script  # the files a page loads when asked (head_file_text)
    "live-model": ("figsite.capture.live_export",),  # the model exported for the live page, and its tokenizer.json
}


def version(namespace: str, root: Path = ROOT) -> str:
    """The version of `namespace` (a key of NAMESPACES): a digest of the source its modules read, in `root` (the
    project's own worked out once a build; another's, such as a test's edited copy, each time)."""
    return _kept(namespace) if root == ROOT else _version(namespace, root)


@functools.cache
def _kept(namespace: str) -> str:
    return _version(namespace, ROOT)


def _version(namespace: str, root: Path) -> str:
    digest = hashlib.sha256(namespace.encode())
    for path in sources(namespace, root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def sources(namespace: str, root: Path = ROOT) -> list[Path]:
    """The files whose source computes `namespace`: its modules and every module of the project they import, with the
    packages above each (whose __init__.py runs first: the model package's sets the BLAS's settings). A package's
    __init__.py is read but its own imports are followed only where the namespace names the package (`figures`
    imports every kind; a module of figures.toolkit does not compute with them)."""
    named = {path for module in NAMESPACES[namespace] for path in _files(module, root)}
    seen: set[Path] = set()
    todo = list(named)
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        if path.name == "__init__.py" and path not in named:
            continue
        todo += [found for module in imported(path) for found in _files(module, root)]
    return sorted(seen)


def imported(path: Path) -> set[str]:
    """The project's modules a file imports, by name: 'sitegen.site.printing' for `from sitegen.site import printing`
    as for `import sitegen.site.printing`; at the top or inside a function (a lazy import computes as much)."""
    # Read by a pattern, not parsed: each build reads some hundred files, and parsing them took a second of it. A line
    # of a docstring that reads as an import could add a file to a version, never leave one out (tests/unit/
    # test_versions.py compares it with the parsed imports of every file).
    names: set[str] = set()
    for found in IMPORT.finditer(path.read_text(encoding="utf-8")):
        module, listed, plain = found.groups()
        if module is not None:
            names.add(module)
            names.update(f"{module}.{name}" for name in _names(listed.strip("()")))
        else:
            names.update(_names(plain))
    parents = {".".join(name.split(".")[:n]) for name in names for n in range(1, name.count(".") + 1)}
    return {name for name in names | parents if name.split(".")[0] in PACKAGES}


# `from a.b import c, d as e` (its names in brackets over lines too) and `import a.b as c, d`, at a line's start;
# `from . import x` is no project import of ours (the project's imports are absolute).
IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+([A-Za-z_][\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)|import[ \t]+([^\n]+))", re.M
)


def _names(listed: str) -> list[str]:
    """The names of an import's list: `a as b, c  # why` -> [a, c]."""
    listed = re.sub(r"#[^\n]*", "", listed)
    return [part.split()[0] for part in listed.replace("\\\n", " ").split(",") if part.split()]


def _files(module: str, root: Path) -> list[Path]:
    """The file of a module (a package: its __init__.py, and for a namespace's own package, every module in it), or
    none where the name is no module (the name of a function imported from one)."""
    base = root.joinpath(*module.split("."))
    if base.with_suffix(".py").is_file():
        return [base.with_suffix(".py")]
    if (base / "__init__.py").is_file():
        return [base / "__init__.py"]
    return []
