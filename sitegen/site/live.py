"""The reader's own sentence (python build.py --live): the figures' pages where a reader types a text and the model
runs in the page ("Try your own sentence", templates/_own_sentence.html), live.html (their index), and the files they
load: the model exported to ONNX (figsite.capture.live_export, its weights in files under 100 MB), the
model's own tokenizer.json as a classic script (paths.LIVE_TOKENIZER: it sets `liveTokenizerJson`, which the page's
tokenizer, Tokenizers.js bundled into live/tokenize.js, reads), onnxruntime-web from npm (sitegen.site.live_assets),
and its own script (a classic script bundled from the ES modules of templates/js/live/, entry main.js).

The model runs only over http(s) (a server, a static host, `python build.py --serve`): a browser lets no page
from file:// fetch files or start the runtime's workers, and the page says so there, in one line.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from figsite.data import paths
from sitegen.site import live_assets
from figures import LIVE_KINDS

LIVE_SCRIPT = "templates/generated/live/live.js"  # the page's own script, bundled from templates/js/live/
# The kinds whose figures the live page computes for the reader's text: their pages link to it.
COVERED_KINDS = LIVE_KINDS


@dataclass(frozen=True)
class LivePage:
    """Everything the figures' pages need for the reader's sentence (and live.html, their index), gathered before
    anything is written."""

    model_folder: Path  # holds the manifest's files
    manifest: dict  # figsite.capture.live_export.export's
    figures: list  # [{"key", "narrow"}]: the kinds' charts for a reader's text, in COVERED_KINDS' order, each
    # compiled under key (and "narrow-" + key where "narrow") in the build's live charts
    defaults: dict  # the text it opens on, the target, the views of figure (l)...: the config's
    charts: dict = field(default_factory=dict)  # key -> [Vega, dark changes]: a figure's page's (Site.live_with)

    @property
    def model_bytes(self) -> int:
        return sum(entry["bytes"] for entry in self.manifest["files"])

    @property
    def light_bytes(self) -> int:
        return sum(entry["bytes"] for entry in self.manifest["light"]["files"])

    @property
    def size(self) -> str:
        """The model's download as the pages say it: "495 MB", "1.2 MB"."""
        return said_bytes(self.model_bytes)

    @property
    def widths(self) -> dict[str, int]:
        """The residual stream's width and a head's ("d_model", "d_head"), from the shapes of the export's patch
        inputs (figsite.capture.live_export), which the page gives."""
        shapes = {value["name"]: value["shape"] for value in self.manifest["inputs"]}
        return {"d_model": int(shapes["patch_residual"][-1]), "d_head": int(shapes["patch_heads"][-1])}

    @property
    def light_size(self) -> str:
        """The light weights' download, as `size` says it."""
        return said_bytes(self.light_bytes)

    @property
    def light_error(self) -> str:
        """How far the light weights' numbers may be from the exact ones, as the page says it: "0.3", "4.6" (points),
        rounded up (the largest difference measured on the config's texts)."""
        error = self.manifest["light"]["error"]
        return f"{math.ceil(max(error['shares'], error['chances']) * 10) / 10:.1f}"

    def model_files(self, light: bool = False) -> list[dict]:
        """The model's files as the page fetches them: {"path" in the site, "name" the graph knows, "bytes",
        "sha256"}; the light weights' with `light`."""
        files = self.manifest["light"]["files"] if light else self.manifest["files"]
        return [{"path": f"{paths.LIVE_MODEL}/{entry['name']}", **entry} for entry in files]

    def light_config(self) -> dict:
        """The light weights as the page's configuration gives them (beside "model", the exact ones'): their files,
        bytes, graph, the session options the page starts them with, and their error in points."""
        light = self.manifest["light"]
        return {"files": self.model_files(light=True), "bytes": self.light_bytes, "graph": light["graph"],
                "options": light["options"], "bits": light["bits"], "error": self.light_error}

    @property
    def scripts(self) -> list[str]:
        """The scripts the page's own (paths.LIVE_SCRIPT) needs, in the order they run: the model's tokenizer, the
        tokenizer that reads it, the runtime. live.html loads them at once; a figure's page when the reader asks."""
        return [paths.LIVE_TOKENIZER, f"{paths.LIVE}/tokenize.js", f"{paths.LIVE}/ort/ort.wasm.min.js"]

    def runtime_files(self) -> list[dict]:
        """The runtime's files and the page's scripts as the page checks them before it fetches the model: {"path"
        in the site, "bytes", "sha256"}, the runtime's module first (its type is checked before any bytes), the
        model's tokenizer last."""
        scripts = {**runtime_bytes(), paths.LIVE_TOKENIZER: self.tokenizer_script()}
        return [{"path": path, "bytes": len(raw), "sha256": hashlib.sha256(raw).hexdigest()}
                for path, raw in scripts.items()]

    def tokenizer_script(self) -> bytes:
        """paths.LIVE_TOKENIZER's bytes: the export's tokenizer.json (the model's own), as a script."""
        return tokenizer_script((self.model_folder / self.manifest["tokenizer"]["name"]).read_text(encoding="utf-8"))


def said_bytes(count: int) -> str:
    """A download's size as the pages say it: "495 MB", "1.2 MB"."""
    megabytes = count / 1e6
    return f"{megabytes:.0f} MB" if megabytes >= 10 else f"{megabytes:.1f} MB"


def tokenizer_script(tokenizer_json: str) -> bytes:
    """A tokenizer.json as the classic script the live page loads before live/tokenize.js: it sets the global
    liveTokenizerJson to the JSON's value (written in ASCII, so that the script reads the same whatever charset a
    host sends it with)."""
    value = json.dumps(json.loads(tokenizer_json), ensure_ascii=True, separators=(",", ":"))
    return (f"// The model's own tokenizer.json, for {paths.LIVE}/tokenize.js (Tokenizers.js). Written by the build "
            f"(sitegen/site/live.py).\nglobalThis.liveTokenizerJson = {value};\n").encode("ascii")



def runtime_sources() -> dict[str, Path]:
    """Site path -> source of every file of the live page that runs: onnxruntime-web's .mjs and .wasm, then the
    scripts (the libraries', the tokenizer's glue, the page's own)."""
    assets = {site: live_assets.NODE_MODULES / node for site, node in live_assets.LIVE_ASSETS.items()}
    sources = {site: assets[site] for site in sorted(assets, key=lambda s: (not s.endswith(".mjs"), s))
               if site.endswith((".mjs", ".wasm", ".js"))}
    sources.update({site: live_assets.ROOT / path for site, path in live_assets.LIVE_SCRIPTS.items()})
    sources[paths.LIVE_SCRIPT] = live_assets.ROOT / LIVE_SCRIPT
    return sources


def runtime_bytes() -> dict[str, bytes]:
    """runtime_sources' bytes, read once a build (the page's config and its <script> tags both need them)."""
    sources = runtime_sources()
    key = tuple((site, source.stat().st_mtime_ns, source.stat().st_size) for site, source in sources.items())
    if _read.get("key") != key:
        _read.update(key=key, raw={site: source.read_bytes() for site, source in sources.items()})
    return _read["raw"]


_read: dict = {}


def write_live_files(folder: Path, live: LivePage) -> None:
    """The model's files, its tokenizer, the libraries from npm, and the page's scripts, under live/ in the site."""
    live_assets.copy_into(folder)
    (folder / paths.LIVE_TOKENIZER).write_bytes(live.tokenizer_script())
    model = folder / paths.LIVE_MODEL
    model.mkdir(parents=True, exist_ok=True)
    for entry in [*live.manifest["files"], *live.manifest["light"]["files"]]:
        shutil.copyfile(live.model_folder / entry["name"], model / entry["name"])
    shutil.copyfile(live_assets.ROOT / LIVE_SCRIPT, folder / paths.LIVE_SCRIPT)
