"""The build in two phases: gather everything (config, model run, figures), then write the site."""

from __future__ import annotations

import functools
import importlib
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

import click

# The parts' registry imports no torch until a part is asked of (registered()): a cached rebuild reads versions() only.
from figsite.capture.parts import asked, merge, versions as capture_versions
from figsite.config import Figure, read_config
from figsite.data import cache, model_choice, token_texts
from figsite.data.asks import Asks, merged_config
from figsite.data.run import Run
from figsite.data.side_by_side import Member, Runs
from figsite.errors import BuildError
from sitegen.live import gather_live, live_model, live_texts
from figsite.model import memory
from sitegen.content import gather_page
from sitegen.pages import Pages, kept_or_asked  # noqa: F401 - tests read it here
from sitegen.site import live_assets
from sitegen.site.drawing import Drawer
from sitegen.site.output import output_lock
from sitegen.site.render import VEGA_SCRIPT
from sitegen.site.writers import Site, write_site
from figures import KINDS


@dataclass
class Progress:
    """Says what the build is doing, as much as the reader asked for, and times each phase.

    verbosity: 0 (--quiet) nothing but errors; 1 the closing line; 2 (--verbose) every phase and the cache.
    """

    verbosity: int = 1
    phases: dict = field(default_factory=dict)  # name -> seconds, summed over every model's (a phase runs per model)
    models: int = 1  # how many models the build read (figsite.data.model_choice)

    @contextmanager
    def phase(self, name: str):
        self.log(f"{name} ...")
        start = time.perf_counter()
        try:
            yield
        finally:
            self.phases[name] = self.phases.get(name, 0) + time.perf_counter() - start
            self.log(f"{name}: {time.perf_counter() - start:.2f} s")

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
    live: bool = False  # the reader's own sentence: the model exported for the reader's browser (sitegen.site.live)
    notebooks: bool = False  # a notebook for each figure that offers one (sitegen.site.notebooks), as [notebooks] asks


def build_site(settings: Settings, progress: Progress | None = None) -> Run:
    """Reads the config, runs each model the figures read once per distinct text (or reads its run from the cache),
    and writes the site into `settings.out`. Returns the main model's run (ModelGroup)."""
    progress = progress or Progress()
    config = read_config(settings.config, KINDS)
    # what [site] shows is the pages' alone (not part of any cache key); without [print], nothing is drawn for print
    figures, site, print_info = config.figures, config.site, config.print
    if settings.revision is not None and (settings.model == "random" or Path(settings.model).expanduser().is_dir()):
        raise BuildError(f"--revision: {settings.model} has no revisions; allowed: --revision with a hub id only")
    groups = model_groups(figures, settings)
    progress.models = len(groups)
    asks = [gather_asks(group.all) for group in groups]  # every model's, checked before any model loads
    cache_dir = settings.cache_dir
    if settings.live:
        live_assets.check()  # the page's libraries from npm: one line naming ./setup.sh --live, before the model runs
    with output_lock(settings.out), Drawer() as drawer, tempfile.TemporaryDirectory(prefix="gpt2-live-") as scratch:
        # The drawing processes draw each figure as soon as its chart is built, while the model reads on (see
        # sitegen.site.drawing): the cores work at once.
        pages = Pages(drawer, cache_dir, print_info)
        loaded = None
        for group, group_asks in zip(groups, asks):
            loaded = group.gather(settings, group_asks, progress, pages, drawer.warm_up) or loaded
        with progress.phase("figures"):
            for group in groups:
                pages.gather_ready(group.run, group.own(), group.run_key, complete=True)
            by_choice = {group.choice: group for group in groups}
            for fig in figures:
                if KINDS[fig.kind].SIDE_BY_SIDE:
                    read = [by_choice[choice] for choice in figure_models(fig, settings)]
                    runs = Runs(tuple(group.member(fig) for group in read))
                    pages.add(fig, gather_page(fig, runs, cache_dir, tuple(group.run_key for group in read)))
        main = groups[0]
        live = None
        if settings.live:  # the model the run loaded, if it ran: the export loads none of its own
            exported = live_model(main.settings(settings), Path(scratch), progress, loaded, live_texts(figures))
            live = gather_live(exported, main.own(), pages)
        del loaded  # freed before the site is written
        with progress.phase("writing"):
            write_site(
                settings.out,
                Site(
                    run=main.run,
                    others=tuple(group.run for group in groups[1:]),
                    figures=pages.in_order(figures),
                    bundle=VEGA_SCRIPT.read_bytes,
                    live_charts=pages.live_charts,
                    info=site,
                    print_info=print_info,
                    live=live,
                    notebooks=settings.notebooks or config.notebooks,
                    cache_dir=cache_dir,
                    kept=functools.partial(cache.memo_each, cache_dir),
                ),
            )
    return main.run


@dataclass
class ModelGroup:
    """The figures that read one model, and the run the build gathers of it: the figures of that model alone
    (`figures`), and the side-by-side figures that read it among others (`members`, figures.kind SIDE_BY_SIDE)."""

    choice: model_choice.ModelChoice
    folder: str  # where its data files lie under data/ (Run.folder): "" for the site's main model
    figures: list = field(default_factory=list)
    members: list = field(default_factory=list)
    run: Run | None = None
    run_key: str | None = None
    resolved: dict = field(default_factory=dict)  # label -> the figure resolved against this model

    @property
    def all(self) -> list[Figure]:
        return [*self.figures, *self.members]

    def own(self) -> list[Figure]:
        """Its figures of this model alone, resolved."""
        return [self.resolved[fig.label] for fig in self.figures]

    def member(self, fig: Figure) -> Member:
        return Member(self.resolved[fig.label], self.run, self.choice)

    def settings(self, settings: Settings) -> Settings:
        """The command's settings with this model: the live page's export is of the main model."""
        return replace(
            settings,
            model=self.choice.name,
            revision=self.choice.revision,
            seed=self.choice.seed,
            live=settings.live and not self.folder,
        )

    def gather(self, settings: Settings, asks: Asks, progress: Progress, pages: Pages, on_miss) -> object:
        """Runs the model (or reads its run from the cache) and gathers the pages of its own figures as they are
        ready. Returns the model where the live page exports it (capture.Loaded), else None."""
        own = {fig.label for fig in self.figures}

        def on_step(run: Run, figures: list[Figure], run_key: str | None) -> None:
            run.folder = self.folder  # before any chart names its files (Run.in_data)
            pages.gather_ready(run, [fig for fig in figures if fig.label in own], run_key)

        run, figures, self.run_key, loaded = cached_run(
            self.settings(settings), self.all, asks, progress, on_miss=on_miss, on_step=on_step
        )
        run.folder = self.folder
        self.run, self.resolved = run, {fig.label: fig for fig in figures}
        return loaded


def model_groups(figures: list[Figure], settings: Settings) -> list[ModelGroup]:
    """The figures by the model they read (figure_models), the main model first: the command's --model where any
    figure reads it, else the first figure's. A side-by-side figure is in the group of each model it reads."""
    default = model_choice.ModelChoice(settings.model, settings.revision, settings.seed)
    named = [(fig, figure_models(fig, settings)) for fig in figures]  # (figure, the models it reads)
    order = list(dict.fromkeys(choice for _, choices in named for choice in choices))
    main = default if default in order else order[0]
    folders = model_choice.folders(order, main)
    groups = {choice: ModelGroup(choice, folders[choice]) for choice in [main, *order]}
    for fig, choices in named:
        for choice in choices:
            (groups[choice].members if KINDS[fig.kind].SIDE_BY_SIDE else groups[choice].figures).append(fig)
    return list(groups.values())


def figure_models(fig: Figure, settings: Settings) -> list[model_choice.ModelChoice]:
    """The models a figure reads: its `model` (default the command's), or a side-by-side figure's `models`."""
    default = model_choice.ModelChoice(settings.model, settings.revision, settings.seed)
    key, written = ("models", fig["models"]) if KINDS[fig.kind].SIDE_BY_SIDE else ("model", [fig.model])
    try:
        choices = [default if each is None else model_choice.parse(each, default) for each in written]
    except ValueError as exc:
        raise fig.error(key, str(exc), model_choice.ALLOWED) from None
    if not choices:
        raise fig.error(key, "no model", model_choice.ALLOWED)
    if len(set(choices)) < len(choices):
        raise fig.error(key, "a model is named twice", "each model once")
    return choices


def resolve(figures: list[Figure], tokens: dict, model: dict) -> list[Figure]:
    """Each figure checked against the tokens (token_texts.reader) and the model's size, with what it resolved."""
    return [fig.with_resolved(KINDS[fig.kind].check(fig, token_texts.reader(tokens, model), model)) for fig in figures]


def cached_run(
    settings: Settings,
    figures: list[Figure],
    asks: Asks,
    progress: Progress,
    on_miss=lambda: None,
    on_step=lambda run, figures, run_key: None,
):
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
    run, figures, tokens, loaded = fresh_run(
        settings, figures, asks, progress, on_step=lambda run, figures: on_step(run, figures, entry)
    )
    if entry is not None:
        cache.store(settings.cache_dir, entry, run, tokens)
    return run, figures, entry, loaded


def fresh_run(
    settings: Settings, figures: list[Figure], asks: Asks, progress: Progress, on_step=lambda run, figures: None
):
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
        run = capture.capture_run(
            loaded,
            with_parts(asks, figures),
            lambda texts: progress.items(texts, "reading the texts"),
            on_step=lambda run: on_step(run, figures),
        )
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
                raise fig.error(
                    "target",
                    f"{target!r} differs from {texts[text]!r}, the target figure "
                    f"{named_by[text]} tracks for the same text",
                    "one target per text",
                )
            if target is not None:
                named_by[text] = fig.index
            texts[text] = target if target is not None else texts.get(text)
    return Asks(
        texts=texts,
        named=tuple(sorted({string for asks in each for string in asks.strings})),
        config=merged_config(each),
    )


def with_parts(asks: Asks, figures: list[Figure]) -> Asks:
    """`asks` with what the resolved figures ask of the captured parts, merged part by part (figsite.capture.parts:
    each part says how its asks merge)."""
    return replace(asks, parts=merge([KINDS[fig.kind].asks(fig) for fig in figures]))


__all__ = ["build_site", "BuildError", "Settings"]
