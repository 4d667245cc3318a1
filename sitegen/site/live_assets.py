"""The files of the live page (the model run in the reader's browser) that come from npm: where each goes in the
site, from where in node_modules/ (installed from package.json's "dependencies", pinned exactly), and the check
that they are there, of the pinned versions, before a build copies them. No torch here.

- onnxruntime-web, wasm only: ort.wasm.min.js (a plain script that sets the global `ort`) loads
  ort-wasm-simd-threaded.mjs with import() and that loads ort-wasm-simd-threaded.wasm, both from the folder
  `ort.env.wasm.wasmPaths` names (so the three stay together, under these names). import() and fetch() do not
  work from file://: the live page must be served over http(s).
- Tokenizers.js (@huggingface/tokenizers), which runs the model's own tokenizer.json: bundled (`npm run bundle`) into
  the project's templates/live/tokenize.js, so that only its LICENSE is copied from node_modules/.
- LIVE_SCRIPTS: the project's own glue, templates/generated/live/tokenize.js (window.liveTokens: ids and token texts as
  figsite.model.tokens has them), a classic script bundled from the ES modules of templates/js/tokenize/ and
  Tokenizers.js. It is not in templates/static/, whose every entry each build copies into the site's assets as a
  file. The tokenizer.json it reads is the build's (sitegen.site.live).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from figsite.errors import BuildError

ROOT = Path(__file__).resolve().parents[2]  # sitegen/site/this.py -> the project folder
NODE_MODULES = ROOT / "node_modules"

# site path -> path under node_modules/
LIVE_ASSETS = {
    "live/ort/ort.wasm.min.js": "onnxruntime-web/dist/ort.wasm.min.js",
    "live/ort/ort-wasm-simd-threaded.mjs": "onnxruntime-web/dist/ort-wasm-simd-threaded.mjs",
    "live/ort/ort-wasm-simd-threaded.wasm": "onnxruntime-web/dist/ort-wasm-simd-threaded.wasm",
    "live/tokenizers/LICENSE": "@huggingface/tokenizers/LICENSE",  # its code is in live/tokenize.js
}

# site path -> path in the project
LIVE_SCRIPTS = {
    "live/tokenize.js": "templates/generated/live/tokenize.js",
}

SETUP = "./setup.sh --live"


def pinned(root: Path = ROOT) -> dict[str, str]:
    """package.json's "dependencies": package -> its exact version."""
    return json.loads((root / "package.json").read_text(encoding="utf-8")).get("dependencies", {})


def package_of(node_path: str) -> str:
    """'onnxruntime-web/dist/ort.wasm.min.js' -> 'onnxruntime-web' (a scope, '@scope/name/...', keeps both parts)."""
    parts = node_path.split("/")
    return "/".join(parts[:2]) if parts[0].startswith("@") else parts[0]


def problems(packages: tuple[str, ...] | None = None, node_modules: Path | None = None,
             root: Path | None = None) -> list[str]:
    """What is wrong for the live page (for `packages` only, and then not LIVE_SCRIPTS, if given): a package
    missing from node_modules or of another version than package.json pins, a file missing. Empty: all there."""
    node_modules, root = node_modules or NODE_MODULES, root or ROOT
    found, versions = [], pinned(root)
    wanted = sorted({package_of(path) for path in LIVE_ASSETS.values()})
    for package in wanted if packages is None else [p for p in wanted if p in packages]:
        try:
            manifest = json.loads((node_modules / package / "package.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            found.append(f"{node_modules.name}/ has no {package}")
            continue
        if package in versions and manifest.get("version") != versions[package]:
            found.append(f"{node_modules.name}/ has {package} {manifest.get('version')}, not the "
                         f"{versions[package]} package.json pins")
            continue
        found += [f"{node_modules.name}/{path} is missing" for path in LIVE_ASSETS.values()
                  if package_of(path) == package and not (node_modules / path).is_file()]
    if packages is None:
        found += [f"{path} is missing" for path in LIVE_SCRIPTS.values() if not (root / path).is_file()]
    return found


def check(packages: tuple[str, ...] | None = None, node_modules: Path | None = None, root: Path | None = None) -> None:
    """BuildError, one line that names `./setup.sh --live`, unless every file of the live page is there."""
    found = problems(packages, node_modules, root)
    if found:
        raise BuildError(f"--live: the live page needs onnxruntime-web and Tokenizers.js from npm, and "
                         f"{'; '.join(found)}; run {SETUP} (it runs npm ci) and build again")


def copy_into(folder: Path, packages: tuple[str, ...] | None = None, node_modules: Path | None = None,
              root: Path | None = None) -> list[Path]:
    """Copies the live page's files into the site folder `folder`, after `check`; returns the paths written.
    With `packages`, only those packages' files and not LIVE_SCRIPTS (for a test of one library)."""
    check(packages, node_modules, root)
    node_modules, root = node_modules or NODE_MODULES, root or ROOT
    sources = {site: node_modules / path for site, path in LIVE_ASSETS.items()
               if packages is None or package_of(path) in packages}
    if packages is None:
        sources.update({site: root / path for site, path in LIVE_SCRIPTS.items()})
    written = []
    for site, source in sources.items():
        target = Path(folder) / site
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        written.append(target)
    return written
