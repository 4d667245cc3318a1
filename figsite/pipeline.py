"""The build in two phases: gather everything (config, model run, figures), then write the site."""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from importlib import metadata
from pathlib import Path

import click

# The parts' registry imports no torch until a part is asked of (registered()): a cached rebuild reads versions() only.
from figsite.capture.parts import asked, merge, registered, versions as capture_versions
from figsite.data import cache, paths, token_texts
from figsite.data.asks import Asks, merged_config
from figsite.model import memory
from figsite.config import Figure, load_config, load_site
from figsite.print_config import PrintInfo, load_print
from figsite.errors import BuildError
from figsite.site.drawing import NARROW_WIDTH, WIDE_WIDTH, Drawer, DrawingError, fits_column
from figsite.live import gather_live, live_model
from figsite.site import live_assets, printing, schemes
from figsite.site.output import output_lock
from figsite.site.render import CHART_THEMES, VEGA_SCRIPT, Page, PerObject
from figsite.site.writers import Site, write_site
from figsite.data.run import Run
from figsite.data.shared_names import ATTENTION_META
from figures import KINDS
from figures.toolkit import charts, family


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


@dataclass(frozen=True)
class Settings:
    """What one build is asked to do: the command line's options, as build.py reads them."""

    config: Path
    model: str = "gpt2"  # a hub id, a save_pretrained directory, or "random"
    revision: str | None = None  # a hub revision; None: the hub's default
    out: Path = Path("site")
    seed: int = 0  # the seed of --model random
    device: str = "cpu"
    cache_dir: Path | None = None  # None: no cache
    rerun: bool = False  # run the model even where the cache holds the run
    live: bool = False  # add live.html: the model exported for the reader's browser (figsite.site.live)


def build_site(settings: Settings, progress: Progress | None = None) -> Run:
    """Reads the config, runs the model once per distinct text (or reads the run from the cache), and
    writes the site into `settings.out`."""
    progress = progress or Progress()
    figures = load_config(settings.config, KINDS)
    site = load_site(settings.config)  # what [site] shows is the pages' alone: not part of any cache key
    print_info = load_print(settings.config)  # None without [print]: then nothing is drawn for print
    if settings.revision is not None and (settings.model == "random" or Path(settings.model).expanduser().is_dir()):
        raise BuildError(f"--revision: {settings.model} has no revisions; allowed: --revision with a hub id only")
    asks = gather_asks(figures)
    cache_dir = settings.cache_dir
    if settings.live:
        live_assets.check()  # the page's libraries from npm: one line naming ./setup.sh --live, before the model runs
    with output_lock(settings.out), Drawer() as drawer, tempfile.TemporaryDirectory(prefix="gpt2-live-") as scratch:
        # The drawing processes draw each figure as soon as its chart is built, while the model reads on (see
        # figsite.site.drawing): the cores work at once.
        pages = Pages(drawer, cache_dir, print_info)
        run, figures, run_key, loaded = cached_run(settings, figures, asks, progress, on_miss=drawer.warm_up,
                                                   on_step=pages.gather_ready)
        with progress.phase("figures"):
            pages.gather_ready(run, figures, run_key, complete=True)
        live = None
        if settings.live:  # the model the run loaded, if it ran: the export loads none of its own
            live = gather_live(live_model(settings, Path(scratch), progress, loaded), figures, pages)
        del loaded  # freed before the site is written
        with progress.phase("writing"):
            write_site(settings.out, Site(run, pages.in_order(figures), VEGA_SCRIPT.read_bytes, pages.drawings,
                                          pages.charts, pages.narrow, pages.first_drawings, site, live, cache_dir,
                                          functools.partial(cache.memo_each, cache_dir), pages.printed, print_info))
    return run


class Pages:
    """Each figure's page, built as soon as the run holds its data, and its drawings asked for at once.

    A fresh run calls gather_ready after each text the model reads, so that the drawing processes draw the
    first figures while the model reads on; a run from the cache is complete at once.
    """

    def __init__(self, drawer: Drawer, cache_dir: Path | None, print_info: PrintInfo | None = None):
        self.drawer, self.cache_dir, self.print_info = drawer, cache_dir, print_info
        self.printed = {}  # label -> [SVG, PDF] for the book, with a [print] table only
        # label -> Page; -> [SVG, PNG]; -> [Vega, dark]; -> [Vega, dark] of the narrow chart, or None (no narrow chart);
        # -> {variant of paths.FIRST_DRAWINGS: [SVG]}
        self.built, self.drawings, self.charts, self.narrow, self.first_drawings = {}, {}, {}, {}, {}
        # a spec's digest for its cache keys, worked out once (a spec can be several MB: a rebuild from the cache spent
        # a third of its time writing specs as JSON for their keys)
        self.digest = PerObject(spec_digest)

    def gather_ready(self, run: Run, figures: list[Figure], run_key: str | None, complete: bool = False) -> None:
        """Builds the page of each figure the run holds (all of them where it is `complete`: then the parts' registry,
        which a run the model is still filling asks, is not imported, nor torch with it)."""
        # The explore kinds' drawings take longest: asked for first, they are drawn while the main thread
        # builds the other charts, and the build does not end waiting for them.
        for fig in sorted(figures, key=lambda fig: not KINDS[fig.kind].EXPLORE):
            if fig.label in self.built or not (complete or run.holds(KINDS[fig.kind].asks(fig), registered())):
                continue
            page = self.built[fig.label] = gather_page(fig, run, self.cache_dir, run_key)
            self.charts[page.label] = self.compiled(page.spec, f"figure ({page.label})'s chart")
            self.narrow[page.label] = (None if page.narrow_spec is None else
                                       self.compiled(page.narrow_spec, f"figure ({page.label})'s narrow chart"))
            # the drawing print and link previews show, and a light page's chart box until the chart is live: drawn
            # as the live chart draws in a desktop's column
            self.drawings[page.label] = kept_or_asked(
                self.cache_dir, ["drawing", 8, *TOOL_VERSIONS, self.digest(page.spec), CHART_THEMES["light"],
                                 WIDE_WIDTH], ["svg", "png"],
                functools.partial(self.drawer.drawings, page.spec, CHART_THEMES["light"], width=WIDE_WIDTH, fit=True),
                f"figure ({page.label})'s drawing")
            self.first_drawings[page.label] = {variant: self.first_drawing(page, variant)
                                               for variant in first_variants(page)}
            if self.print_info is not None:
                self.printed[page.label] = self.printed_drawing(fig, page)

    def printed_drawing(self, fig: Figure, page: Page):
        """The figure drawn for the book ([print]; figsite.site.printing): its printed state (Kind.printed_spec) at
        the column's width in the config's font, with its number and title where `captions` asks. Kept in the cache
        by the spec and every setting of [print], the font by its bytes."""
        info = self.print_info
        spec = KINDS[fig.kind].printed_spec(fig, page.spec)
        if info.greyscale:
            spec = printing.in_greys(spec)
        caption = page.full_name if info.captions else None
        settings = {"font": str(info.font), "family": info.font_family, "width_pt": info.width_pt,
                    "font_size_pt": info.font_size_pt, "caption": caption, "greyscale": info.greyscale}
        theme = CHART_THEMES["light"]
        ask = functools.partial(self.drawer.printed, spec, theme, settings)
        return kept_or_asked(self.cache_dir, ["print", 2, *TOOL_VERSIONS, self.digest(spec), theme, info.key(),
                                              caption], ["svg", "pdf"], ask, f"figure ({page.label})'s print drawing")

    def first_drawing(self, page: Page, variant: str):
        """The drawing a page shows until its live chart replaces it (a variant of paths.FIRST_DRAWINGS): drawn as the
        live chart draws in a desktop's column or a phone's (the narrow chart, where the figure has one), on the page's
        own background (a desktop's light drawing is `drawings`'). Kept in the cache as that one is."""
        dark, narrow = variant.endswith("dark"), "narrow" in variant
        theme = CHART_THEMES["dark" if dark else "light"]
        spec, width = (page.narrow_spec or page.spec, NARROW_WIDTH) if narrow else (page.spec, WIDE_WIDTH)
        ask = functools.partial(self.drawer.drawings, spec, theme, width=width, png=False, background="transparent",
                                fit=True, dark=dark)  # a dark page's own colours too (figsite.site.schemes)
        return kept_or_asked(self.cache_dir, ["first drawing", 6, *TOOL_VERSIONS, self.digest(spec), theme, width,
                                              schemes.CACHE_KEY], ["svg"], ask, f"figure ({page.label})'s {variant} drawing")

    def compiled(self, spec: dict, what: str):
        """A chart's spec compiled to Vega, with its dark theme's changes: kept in the cache by the spec's content,
        so that a narrow chart and a main chart are compiled and kept alike (kept_or_asked)."""
        return kept_or_asked(self.cache_dir, ["chart", 3, *TOOL_VERSIONS, self.digest(spec), CHART_THEMES,
                                              schemes.CACHE_KEY], ["vega", "dark"],
                             functools.partial(self.drawer.compiled, spec, CHART_THEMES), what)

    def in_order(self, figures: list[Figure]) -> list[Page]:
        """The pages in the config's order."""
        return [self.built[fig.label] for fig in figures]


# What the drawings and the charts depend on besides a chart's spec: the versions of vl-convert, and
# of Altair, which names the Vega-Lite version. Read without importing either (a rebuild may need neither).
TOOL_VERSIONS = (metadata.version("vl-convert-python"), metadata.version("altair"))


def first_variants(page: Page) -> list[str]:
    """The first drawings a figure's page shows besides its light drawing (paths.FIRST_DRAWINGS): for a desktop's
    column in dark, and for a phone's, light and dark, where the figure draws otherwise there (its narrow chart, or its
    chart at the column's width)."""
    narrow = page.narrow_spec is not None or fits_column(page.spec)
    return [variant for variant in paths.FIRST_DRAWINGS if narrow or "narrow" not in variant]


def spec_digest(spec: dict) -> str:
    """The SHA-256 of a chart's spec as JSON, keys sorted: what names it in the cache."""
    return hashlib.sha256(json.dumps(spec, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def kept_or_asked(cache_dir: Path | None, parts: list, names: list, ask, what: str):
    """The bytes kept in the cache for `parts`, else asked of the drawing process now (`ask` returns a Future)
    and kept once they come. Returns a function that returns them as a list (one per name)."""
    kept = cache.recall_each(cache_dir, parts, names)
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


def resolve(figures: list[Figure], tokens: dict, model: dict) -> list[Figure]:
    """Each figure checked against the tokens (token_texts.reader) and the model's size, with what it resolved."""
    return [fig.with_resolved(KINDS[fig.kind].check(fig, token_texts.reader(tokens, model), model)) for fig in figures]


def cached_run(settings: Settings, figures: list[Figure], asks: Asks, progress: Progress,
               on_miss=lambda: None, on_step=lambda run, figures, run_key: None):
    """The run from the cache where the model and the texts are the same as before; else the model runs
    (and `on_miss` is called first, and `on_step` with the run so far after each text it reads).

    Returns the run, the figures resolved against it, the run's cache key (None where it can't be cached), and the
    model where it was loaded for the run (capture.Loaded; None for a run from the cache).
    """
    entry = None
    if settings.cache_dir is not None:
        with progress.phase("cache lookup"):
            identity = cache.model_identity(settings.model, settings.revision, settings.seed)
            entry = cache.key(identity, asks, settings.device, capture_versions()) if identity else None
            hit = cache.load(settings.cache_dir, entry, progress.log) if entry and not settings.rerun else None
        if hit is not None:
            run, tokens = hit
            progress.log(f"cache: using the stored run {entry[:12]} (--rerun runs the model again)")
            return run, resolve(figures, tokens, run.model), entry, None
    on_miss()
    run, figures, tokens, loaded = fresh_run(settings, figures, asks, progress,
                                             on_step=lambda run, figures: on_step(run, figures, entry))
    if entry is not None:
        cache.store(settings.cache_dir, entry, run, tokens)
    return run, figures, entry, loaded


def fresh_run(settings: Settings, figures: list[Figure], asks: Asks, progress: Progress,
              on_step=lambda run, figures: None):
    """Loads the model, checks the figures against it, and runs it once per distinct text, calling
    `on_step(run so far, resolved figures)` after each.

    Returns the run, the resolved figures, the tokens of every string the figures named (for the cache), and the
    model (capture.Loaded) where the build exports it for the live page (--live: without loading it again), else
    None: the weights are freed once the model has run, before the run is kept in the cache and the site written
    (for gpt2-xl's shape, the 6 GiB of weights and the run's 134 MB of files would be held at once)."""
    with progress.phase("imports"):
        from figsite.capture import api as capture  # torch loads only when the model must run
    with progress.phase("model load"):
        # The charts need Altair once the model has run: it loads meanwhile, while torch fills the weights
        # outside Python's lock.
        threading.Thread(target=_preload, args=("altair",), daemon=True).start()
        checks = BeforeWeights(settings.model, asks, figures)
        loaded = capture.load(settings.model, settings.revision, settings.seed, settings.device, before_weights=checks)
    figures = checks.resolved  # once, before the weights loaded: the figures' checks read the model's size only
    with progress.phase("run"):
        run = capture.capture_run(loaded, with_parts(asks, figures),
                                  lambda texts: progress.items(texts, "reading the texts"),
                                  on_step=lambda run: on_step(run, figures))
    return run, figures, checks.tokens, loaded if settings.live else None


class BeforeWeights:
    """What the build checks once the model's config and tokenizer are loaded and before its weights are (called
    by figsite.model.load.load): the figures against the tokens and the model's size, and whether the pass and
    the parts the figures ask for would fit in memory (figsite.model.memory). Either stops the build at once."""

    def __init__(self, name: str, asks: Asks, figures: list[Figure]):
        self.name, self.asks, self.figures = name, asks, figures
        self.tokens = None  # string -> its tokens' texts, once called
        self.resolved = None  # the figures checked against the tokens and the model's size, once called

    def __call__(self, config, tokenizer) -> None:
        from figsite.capture import api as capture

        # The same tokens the cache keeps: a kind that forgot to declare a string fails here, cold, not on a rebuild.
        self.tokens = capture.tokenized(tokenizer, self.asks.strings, self.asks.texts)
        self.resolved = resolve(self.figures, self.tokens, capture.model_info(config, tokenizer=tokenizer))
        asks = with_parts(self.asks, self.resolved)
        lengths = {text: len(tokenizer(text)["input_ids"]) for text in asks.texts}
        memory.check(self.name, memory.Shape.of(config), lengths, [part.memory for part in asked(asks)])


def _preload(name: str) -> None:
    try:
        importlib.import_module(name)
    except Exception:  # noqa: BLE001 - the import that needs it says what is wrong
        pass


def gather_asks(figures: list[Figure]) -> Asks:
    """What every figure asks of the run (figures.kind.Kind.asks), merged, read from the config before the model
    loads: each distinct text with the target it tracks (one per text: the model reads each once), every string to
    tokenize, and the config's values the parts are worked out from (the cache key's). Its parts come once the
    figures are resolved (with_parts)."""
    texts, named_by, each = {}, {}, [KINDS[fig.kind].asks(fig) for fig in figures]
    for fig, asks in zip(figures, each):
        for text, target in asks.texts.items():
            if target is not None and texts.get(text) not in (None, target):
                raise fig.error("target", f"{target!r} differs from {texts[text]!r}, the target figure "
                                f"{named_by[text]} tracks for the same text", "one target per text")
            if target is not None:
                named_by[text] = fig.index
            texts[text] = target if target is not None else texts.get(text)
    return Asks(texts=texts, named=tuple(sorted({string for asks in each for string in asks.strings})),
                config=merged_config(each))


def with_parts(asks: Asks, figures: list[Figure]) -> Asks:
    """`asks` with what the resolved figures ask of the captured parts, merged part by part (figsite.capture.parts:
    each part says how its asks merge)."""
    return replace(asks, parts=merge([KINDS[fig.kind].asks(fig) for fig in figures]))


def gather_page(fig: Figure, run: Run, cache_dir: Path | None = None, run_key: str | None = None) -> Page:
    """Everything one figure's page shows, computed from the run with the figure kind's pure functions.

    What the figure computes depends only on the run, the figure's keys, the figures' code and Altair's version:
    with a cached run it is kept too, so that a rebuild after a template or caption change skips the charts.
    """
    kind = KINDS[fig.kind]

    def compute() -> bytes:
        spec, narrow = charts.spec(kind.chart(fig, run)), kind.narrow_chart(fig, run)
        return json.dumps({"text_figure": kind.text_figure(fig, run), "spec": spec,
                           "narrow_spec": None if narrow is None else charts.spec(narrow),
                           "tables": kind.tables(fig, run, spec), "context": family.context(kind, fig, run),
                           "key": kind.key(fig, run),
                           "loads": kind.loads(fig, run), "live_target": kind.live_target(fig, run)},
                          ensure_ascii=False).encode("utf-8")

    memo_dir = cache_dir if run_key is not None else None
    parts = ["page", run_key, fig.kind, fig.label, fig.values, fig.resolved, FIGURES_CODE, *TOOL_VERSIONS]
    computed = json.loads(cache.memo(memo_dir, parts, compute))
    kept_as = None if memo_dir is None else hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()
    return Page(label=fig.label, kind=fig.kind, title=kind.TITLE, caption=fig.caption or kind.caption(run.model),
                guide=kind.GUIDE, texts=kind.texts(fig), text_names=kind.TEXT_NAMES, explore=kind.EXPLORE,
                printed=kind.PRINTED_IN_BOOK,                reach=kind.REACH, position=fig.resolved.get("opening"), number=fig.number, book_page=fig.page,
                reads=(*kind.DATA_FILES, *loaded_on_demand(computed["spec"]), *computed["loads"]), kept_as=kept_as,
                **computed)


def loaded_on_demand(spec: dict) -> list[str]:
    """The data files (paths under data/) a page loads when the reader asks: a long text's head files, named
    in its chart's spec (assets/figures.js loads them). The site holds only these of a long text's heads."""
    files = spec.get("usermeta", {}).get(ATTENTION_META, {}).get("files", {})
    return sorted({path.removeprefix(paths.in_data("")) for path in files.values()})


def _code_digest(*folders: Path) -> str:
    """A digest of the Python files that compute the figures: a change to them must not reuse old pages."""
    digest = hashlib.sha256()
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):  # sub-packages too (figsite/site/, ...)
            digest.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return digest.hexdigest()


FIGURES_CODE = _code_digest(Path(__file__).resolve().parent.parent / "figures", Path(__file__).resolve().parent)


__all__ = ["build_site", "BuildError", "Settings"]
