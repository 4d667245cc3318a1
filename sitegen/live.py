"""The live page's side of the build (--live): the model exported for the reader's browser, from the cache or
exported now, and the page's charts gathered as every figure's are: each covered kind's own chart function, asked
for its chart with no text in it (Kind.textless_chart), which the page fills with the reader's text and the model's
numbers (the datasets of figsite.data.live_data). build_site calls these after the run; the export itself is
figsite.capture.live_export's (the only part that imports torch, and only when it runs)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from figsite.config import Figure
from figsite.data import cache, live_data
from figsite.data.versions import version
from figsite.errors import BuildError, one_line
from sitegen.site.live import COVERED_KINDS, LivePage
from figures import KINDS
from figures.toolkit import charts

LIVE_TOKENS = live_data.MAX_TOKENS  # the longest text the live page reads (the lens's limit): the export's positions


@dataclass(frozen=True)
class LiveModel:
    """The model exported for the live page (figsite.capture.live_export): its manifest, and the folder that holds
    the manifest's files."""

    folder: Path
    manifest: dict


def live_model(settings, scratch: Path, progress, loaded=None, texts: tuple[str, ...] = ()) -> LiveModel:
    """The model exported for the live page: from the cache where it holds this model's export by this code, else
    exported now into `scratch` (and kept in the cache). The export reads `loaded`, the model the run loaded
    (capture.Loaded), where the model ran; where the run came from the cache, the model loads for it (once); a
    rebuild with the export cached loads nothing. `texts`: the config's, on which the light weights' error is
    measured (live_texts). `settings`, `progress`: sitegen.pipeline's."""
    identity = (
        cache.model_identity(settings.model, settings.revision, settings.seed)
        if settings.cache_dir is not None
        else None
    )
    parts = ["live-model", version("live-model"), identity, LIVE_TOKENS, _version("torch"), _version("onnx")]
    if identity:
        raw = cache.recall(settings.cache_dir, [*parts, "manifest"])
        if raw is not None:
            manifest = json.loads(raw)
            files = [*manifest["files"], *manifest["light"]["files"], manifest["tokenizer"]]
            kept = cache.recall_folder(settings.cache_dir, parts, {f["name"]: f["sha256"] for f in files})
            if kept is not None:
                progress.log("cache: using the stored export of the model for the live page")
                return with_error(LiveModel(kept, manifest), settings.cache_dir, parts, texts, progress)
    with progress.phase("live export"):
        from figsite.capture import api as capture
        from figsite.capture import live_export

        if loaded is None:
            loaded = capture.load(settings.model, settings.revision, settings.seed, "cpu")
        try:
            manifest = live_export.export(loaded, scratch, LIVE_TOKENS)
        except ImportError as exc:  # onnx or onnxscript not installed, or a torch without the exporter's scan
            raise BuildError(
                f"--live: the model's export to ONNX needs {exc.name or exc}, which is not installed; "
                f"run ./setup.sh --live (torch {_version('torch')}: 2.13.0 is known to work)"
            ) from None
        except Exception as exc:  # noqa: BLE001 - the exporter's errors span pages: one line, naming the export
            raise BuildError(
                f"--live: the model could not be exported to ONNX for the live page "
                f"({one_line(exc)}); the previous site is unchanged"
            ) from None
    kept = cache.keep_folder(settings.cache_dir, parts, scratch) if identity else None
    if kept is None:
        return with_error(LiveModel(scratch, manifest), None, parts, texts, progress)
    cache.keep(settings.cache_dir, [*parts, "manifest"], json.dumps(manifest, sort_keys=True).encode("utf-8"))
    return with_error(LiveModel(kept, manifest), settings.cache_dir, parts, texts, progress)


def with_error(model: LiveModel, cache_dir: Path | None, parts: list, texts: tuple[str, ...], progress) -> LiveModel:
    """The export with its light weights' error measured on `texts` (figsite.capture.live_light.measured), kept in
    the cache beside the export by the texts too: an edit of the config's texts measures again, and exports
    nothing again."""
    key = [*parts, "light error", list(texts), _version("onnxruntime")]
    raw = cache.recall(cache_dir, key) if cache_dir is not None else None
    if raw is not None:
        error = json.loads(raw)
    else:
        with progress.phase("live export"):
            from figsite.capture import live_light

            error = live_light.measured(model.folder, model.manifest, texts)
        if cache_dir is not None:
            cache.keep(cache_dir, key, json.dumps(error, sort_keys=True).encode("utf-8"))
    light = {**model.manifest["light"], "error": error}
    return LiveModel(model.folder, {**model.manifest, "light": light})


def live_texts(figures: list[Figure]) -> tuple[str, ...]:
    """The config's texts, each once in the config's order (a figure's text, texts, clean and corrupted), else the
    live page's own opening text: what the light weights' error is measured on."""
    said: list[str] = []
    for fig in figures:
        for key in ("text", "clean", "corrupted"):
            said += [fig.values[key]] if isinstance(fig.values.get(key), str) else []
        said += [text for text in fig.values.get("texts", []) if isinstance(text, str)]
    return tuple(dict.fromkeys(said)) or (LIVE_TEXT,)


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def gather_live(model: LiveModel, figures: list[Figure], pages) -> LivePage:
    """The live page: the charts of the kinds it covers (COVERED_KINDS: each kind's `textless_chart`), opening as the
    config's own figures open, compiled as every chart is (their callables in pages.live_charts under its key, the
    narrow ones under "narrow-" + key), and what it opens on: the text and target of the config's figure (i),
    else the text of its figure (l) or first figure of a text."""
    opening, defaults = live_opening(figures)
    shape = {key: model.manifest[key] for key in ("n_layer", "n_head", "vocab_size")}
    out = []
    for key in COVERED_KINDS:
        kind = KINDS[key]
        wide, narrow = (kind.textless_chart(shape, opening, narrow) for narrow in (False, True))
        pages.live_charts[key] = pages.compiled(charts.spec(wide), f"the live page's {key} chart")
        if narrow is not None:
            pages.live_charts[f"narrow-{key}"] = pages.compiled(
                charts.spec(narrow), f"the live page's narrow {key} chart"
            )
        out.append({"key": key, "narrow": narrow is not None})
    return LivePage(model.folder, model.manifest, out, {**defaults, "max_tokens": LIVE_TOKENS})


def live_opening(figures: list[Figure]) -> tuple[dict, dict]:
    """How the live page opens, as the first figure of each covered kind says (Kind.live_opening): the charts'
    `opening`, and the text and target (a text with a target first, then any covered figure's text, then the first
    figure of a text, else LIVE_TEXT; the target, else LIVE_TARGET)."""
    opening, said = {}, []
    for name in COVERED_KINDS:
        fig = next((fig for fig in figures if fig.kind == name), None)
        given = {} if fig is None else KINDS[name].live_opening(fig)
        opening |= {key: value for key, value in given.items() if key not in ("text", "target")}
        said += [given] if "text" in given else []
    texted = next((fig for fig in figures if "text" in fig.values), None)
    said += [{"text": texted.values["text"]}] if texted is not None else []
    chosen = next((given for given in said if "target" in given), said[0] if said else {})
    return opening, {"text": chosen.get("text", LIVE_TEXT), "target": chosen.get("target", LIVE_TARGET)}


LIVE_TEXT = "Maya lives in Paris, the capital of"  # where the config has no text...
LIVE_TARGET = " France"  # ...or no figure (i): a target that fits that text
