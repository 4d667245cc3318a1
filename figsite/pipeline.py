"""The build in two phases: gather everything (config, model run, figures), then write the site."""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import click

from figsite import cache
from figsite.config import Figure, load_config
from figsite.errors import BuildError
from figsite.drawing import Drawer, DrawingError
from figsite.render import CHART_THEMES, Page, output_lock, write_site
from figsite.run import Run
from figures import KINDS, common


@dataclass
class Progress:
    """Says what the build is doing, as much as the reader asked for, and times each phase.

    verbosity: 0 (--quiet) nothing but errors; 1 the closing line; 2 (--verbose) every phase and the cache.
    """

    verbosity: int = 1
    phases: dict = field(default_factory=dict)

    @contextmanager
    def phase(self, name: str):
        self.log(f"{name} ...")
        start = time.perf_counter()
        try:
            yield
        finally:
            self.phases[name] = time.perf_counter() - start
            self.log(f"{name}: {self.phases[name]:.2f} s")

    def log(self, message: str) -> None:
        if self.verbosity >= 2:
            click.echo(message, err=True)

    def items(self, items: list, label: str):
        """Iterates over `items` with a progress bar on a terminal, for the long steps."""
        if self.verbosity >= 1 and sys.stderr.isatty() and len(items) > 1:
            with click.progressbar(items, label=label, file=sys.stderr) as bar:
                yield from bar
        else:
            for item in items:
                self.log(f"{label}: {item if isinstance(item, str) else ''}"[:100])
                yield item

    def __str__(self) -> str:
        return ", ".join(f"{name} {seconds:.1f} s" for name, seconds in self.phases.items())


def build_site(config: Path, model: str, revision: str | None, out: Path, seed: int, device: str,
               progress: Progress | None = None, cache_dir: Path | None = None, rerun: bool = False) -> Run:
    """Reads the config, runs the model once per distinct text (or reads the run from the cache), and
    writes the site into `out`. `cache_dir` None: no cache."""
    progress = progress or Progress()
    figures = load_config(config, KINDS)
    if revision is not None and (model == "random" or Path(model).expanduser().is_dir()):
        raise BuildError(f"--revision: {model} has no revisions; allowed: --revision with a hub id only")
    requests, extras = model_requests(figures), model_extras(figures)
    # What the bundle and the drawings depend on besides a chart's spec: the versions of vl-convert, and of
    # Altair, which names the Vega-Lite version. Read without importing either (a rebuild may need neither).
    versions = [metadata.version("vl-convert-python"), metadata.version("altair")]
    with output_lock(out), Drawer() as drawer:
        # The drawing process makes the Vega bundle while the model loads and runs, and each figure's drawings
        # while the next figure is built (see figsite.drawing).
        bundle = kept_or_asked(cache_dir, ["vega-bundle", *versions], ["js"], drawer.bundle,
                               "the Vega bundle")
        run, run_key = cached_run(figures, requests, extras, model, revision, seed, device, progress, cache_dir,
                                  rerun, on_miss=drawer.warm_up)
        pages, drawings = [], {}
        with progress.phase("figures"):
            for fig in figures:
                page = gather_page(fig, run, cache_dir, run_key)
                pages.append(page)
                drawings[page.label] = kept_or_asked(
                    cache_dir, ["drawing", 3, *versions, page.spec, CHART_THEMES["light"]], ["svg", "png"],
                    functools.partial(drawer.drawings, page.spec, CHART_THEMES["light"]),
                    f"figure ({page.label})'s drawing")
        with progress.phase("writing"):
            write_site(out, run, pages, lambda: bundle()[0], drawings)
    return run


def kept_or_asked(cache_dir: Path | None, parts: list, names: list, ask, what: str):
    """The bytes kept in the cache for `parts`, else asked of the drawing process now (`ask` returns a Future)
    and kept once they come. Returns a function that returns them as a list (one per name)."""
    kept = [cache.recall(cache_dir, [*parts, name]) for name in names]
    if all(raw is not None for raw in kept):
        return lambda: kept
    future = ask()

    @functools.cache
    def result() -> list:
        try:
            made = future.result()
        except DrawingError as exc:
            raise BuildError(f"{what} could not be made with vl-convert: {exc}") from None
        for name, raw in zip(names, made):
            cache.keep(cache_dir, [*parts, name], raw)
        return made

    return result


def cached_run(figures, requests, extras, model, revision, seed, device, progress, cache_dir, rerun,
               on_miss=lambda: None):
    """The run from the cache where the model and the texts are the same as before; else the model runs
    (and `on_miss` is called first).

    Returns the run and its cache key (None where it can't be cached)."""
    entry = None
    if cache_dir is not None:
        with progress.phase("cache lookup"):
            identity = cache.model_identity(model, revision, seed)
            entry = cache.key(identity, requests, device, extras) if identity else None
            hit = cache.load(cache_dir, entry, progress.log) if entry and not rerun else None
        if hit is not None:
            run, tokens = hit
            progress.log(f"cache: using the stored run {entry[:12]} (--rerun runs the model again)")
            for fig in figures:
                KINDS[fig.kind].check(fig, tokens.__getitem__, run.model)
            return run, entry
    on_miss()
    run, tokens = fresh_run(figures, requests, extras, model, revision, seed, device, progress)
    if entry is not None:
        cache.store(cache_dir, entry, run, tokens)
    return run, entry


def fresh_run(figures, requests, extras, model, revision, seed, device, progress):
    """Loads the model, checks the figures against it, and runs it once per distinct text."""
    with progress.phase("imports"):
        from figsite import capture  # torch and transformers load only when the model must run
    with progress.phase("model load"):
        # The charts need Altair once the model has run: it loads meanwhile, while torch fills the weights
        # outside Python's lock.
        threading.Thread(target=_preload, args=("altair",), daemon=True).start()
        loaded = capture.load(model, revision, seed, device)

    def tokenize(text: str) -> list[str]:
        return [capture.token_text(loaded, i) for i in capture.token_ids(loaded, text)]

    for fig in figures:
        KINDS[fig.kind].check(fig, tokenize, loaded.info)
    with progress.phase("run"):
        run = capture.capture_run(loaded, requests, lambda texts: progress.items(texts, "reading the texts"),
                                  lens=extras["lens"], pairs=[tuple(pair) for pair in extras["pairs"]])
    strings = set(requests) | {target for target in requests.values() if target is not None}
    return run, {string: tokenize(string) for string in sorted(strings)}


def _preload(name: str) -> None:
    try:
        importlib.import_module(name)
    except Exception:  # noqa: BLE001 - the import that needs it says what is wrong
        pass


def model_requests(figures: list[Figure]) -> dict:
    """Each distinct text the figures need, with the target it tracks (one per text): the model reads each once."""
    requests, named_by = {}, {}
    for fig in figures:
        for text, target in KINDS[fig.kind].requests(fig):
            if target is not None and requests.get(text) not in (None, target):
                raise fig.error("target", f"{target!r} differs from {requests[text]!r}, the target figure "
                                f"{named_by[text]} tracks for the same text", "one target per text")
            if target is not None:
                named_by[text] = fig.index
            requests[text] = target if target is not None else requests.get(text)
    return requests


def model_extras(figures: list[Figure]) -> dict:
    """What some figures need of the run beyond a text's data: a lens's tracked tokens, a comparison's pairs."""
    lens, pairs = set(), []
    for fig in figures:
        wants = getattr(KINDS[fig.kind], "extras", lambda fig: {})(fig)
        lens.update(wants.get("lens", []))
        pairs += [list(pair) for pair in wants.get("pairs", []) if list(pair) not in pairs]
    return {"lens": sorted(lens), "pairs": pairs}


def gather_page(fig: Figure, run: Run, cache_dir: Path | None = None, run_key: str | None = None) -> Page:
    """Everything one figure's page shows, computed from the run with the figure module's pure functions.

    What the figure computes depends only on the run, the figure's keys and the figures' code: with a cached
    run it is kept too, so that a rebuild after a template or caption change skips the charts' building.
    """
    module = KINDS[fig.kind]

    def compute() -> bytes:
        spec = common.spec(module.chart(fig, run))
        tables = module.table(fig, run) if hasattr(module, "table") else dict(spec.get("datasets", {}))
        return json.dumps({"text_figure": module.text_figure(fig, run), "spec": spec, "tables": tables,
                           "context": module.page(fig, run)}, ensure_ascii=False).encode("utf-8")

    memo_dir = cache_dir if run_key is not None else None
    parts = ["page", run_key, fig.kind, fig.label, fig.values, FIGURES_CODE]
    computed = json.loads(cache.memo(memo_dir, parts, compute))
    return Page(label=fig.label, kind=fig.kind, title=module.TITLE, caption=fig.caption or module.CAPTION,
                guide=module.GUIDE, texts=fig.texts(), **computed)


def _code_digest(*folders: Path) -> str:
    """A digest of the Python files that compute the figures: a change to them must not reuse old pages."""
    digest = hashlib.sha256()
    for folder in folders:
        for path in sorted(folder.glob("*.py")):
            digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()


FIGURES_CODE = _code_digest(Path(__file__).resolve().parent.parent / "figures", Path(__file__).resolve().parent)


__all__ = ["build_site", "BuildError"]
