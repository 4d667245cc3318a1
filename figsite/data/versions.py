"""The one registry of the cache's versions: each namespace of the build's cache names the modules that compute what it
keeps, and its version is a digest of those modules' source and of every module of the project they import, found by
reading their imports (at any depth, in functions too), never bumped by hand. An edit to a file changes the version of
exactly the namespaces whose code reads it; an edit elsewhere (the author's tools, a test) changes none.

A run's own versions are the captured parts' (figsite.capture.parts.versions: the text pass's files and each part's
module), so that a change to one part runs again only the runs that ask for it.
"""

from __future__ import annotations

import ast
import functools
import hashlib
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
    "loads": ("figsite.data.run",),  # the files a page loads when asked (head_file_text)
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
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    parents = {".".join(name.split(".")[:n]) for name in names for n in range(1, name.count(".") + 1)}
    return {name for name in names | parents if name.split(".")[0] in PACKAGES}


def _files(module: str, root: Path) -> list[Path]:
    """The file of a module (a package: its __init__.py, and for a namespace's own package, every module in it), or
    none where the name is no module (the name of a function imported from one)."""
    base = root.joinpath(*module.split("."))
    if base.with_suffix(".py").is_file():
        return [base.with_suffix(".py")]
    if (base / "__init__.py").is_file():
        return [base / "__init__.py"]
    return []
