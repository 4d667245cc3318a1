"""The build in two phases: gather everything (config, model run, figures), then write the site."""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from figsite.config import Figure, load_config
from figsite.errors import BuildError
from figsite.render import Page, write_site
from figsite.run import Run
from figures import KINDS


@dataclass
class Timings:
    """Seconds spent in each phase of a build, in the order they ran."""

    phases: dict = field(default_factory=dict)

    @contextmanager
    def phase(self, name: str):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.phases[name] = time.perf_counter() - start

    def __str__(self) -> str:
        return ", ".join(f"{name} {seconds:.1f} s" for name, seconds in self.phases.items())


def build_site(config: Path, model: str, revision: str | None, out: Path, seed: int, device: str,
               timings: Timings | None = None) -> Run:
    """Reads the config, runs the model once per distinct text, and writes the site into `out`."""
    timings = timings or Timings()
    figures = load_config(config, KINDS)
    if revision is not None and (model == "random" or Path(model).expanduser().is_dir()):
        raise BuildError(f"--revision: {model} has no revisions; allowed: --revision with a hub id only")
    with timings.phase("imports"):
        from figsite import capture  # torch and transformers load only once the config is known to be good
    with timings.phase("model load"):
        loaded = capture.load(model, revision, seed, device)

    def tokenize(text: str) -> list[str]:
        return [capture.token_text(loaded, i) for i in capture.token_ids(loaded, text)]

    for fig in figures:
        KINDS[fig.kind].check(fig, tokenize, loaded.info)
    with timings.phase("run"):
        run = capture.capture_run(loaded, model_requests(figures))
    with timings.phase("figures"):
        pages = [gather_page(fig, run) for fig in figures]
    with timings.phase("writing"):
        write_site(out, run, pages, vega_bundle())
    return run


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


def gather_page(fig: Figure, run: Run) -> Page:
    """Everything one figure's page shows, computed from the run with the figure module's pure functions."""
    module = KINDS[fig.kind]
    return Page(
        label=fig.label, kind=fig.kind, title=module.TITLE,
        caption=fig.caption or module.CAPTION, guide=module.GUIDE,
        text_figure=module.text_figure(fig, run),
        spec=module.chart(fig, run).to_dict(),
        context=module.page(fig, run),
    )


def vega_bundle() -> str:
    """Vega, Vega-Lite and vega-embed as one classic script, from the installed vl-convert (no CDN)."""
    import altair as alt
    import vl_convert

    version = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])  # the Vega-Lite that Altair writes
    return vl_convert.javascript_bundle(vl_version=version)


__all__ = ["build_site", "BuildError"]
