"""A figure made in a notebook, without a config or a site: figsite.figure(kind, text=..., model=..., **options)
returns the same Altair chart the site draws for a [[figure]] of those keys (the kind's own chart function, on the
same run of the model, read from the build's cache where it holds it).

    figure("attention", text="The cat sat on the mat.", views=[[5, 1]], model="random")
    figure("readout", text="The capital of France is", target=" Paris", model="gpt2")

The keys are the config's (docs/config.md); `model` names the model as a figure's `model` key does (a hub id and
an optional @revision, a local save_pretrained directory, or "random" for random weights of GPT-2 small's shape,
"random@5" with seed 5), `device` where it runs, `cache` a folder for the build's cache (None: the model runs each time); a
side-by-side figure names its models in `models`, as its config does. A bad key raises figsite.errors.BuildError
with the one-line message the build gives.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from dataclasses import replace

from figsite.config import Figure, read_figure
from figsite.data import model_choice
from figsite.data.run import Run
from figsite.data.side_by_side import Member, Runs
from figsite.errors import BuildError
from figures import KINDS
from figures.toolkit.charts import AnyChart
from sitegen.pipeline import Progress, Settings, cached_run, figure_models, gather_asks


def figure(
    kind: str, *, model: str = "gpt2", device: str = "cpu", cache: str | Path | None = None, **keys: Any
) -> AnyChart:
    """The chart of a figure of `kind` with the config's `keys` (text=..., target=..., ...), for `model`."""
    try:
        choice = model_choice.parse(model, model_choice.ModelChoice("gpt2"))
    except ValueError as exc:
        raise BuildError(f"figsite.figure: model {model!r}: {exc}; allowed: {model_choice.ALLOWED}") from None
    label = keys.pop("label", None) or re.sub(r"[^A-Za-z0-9_-]", "-", kind)[:40]
    fig = read_figure({"kind": kind, "label": label, **keys}, KINDS, source="figsite.figure")
    settings = Settings(
        config=Path("figsite.figure"),
        model=choice.name,
        revision=choice.revision,
        seed=choice.seed,
        device=device,
        cache_dir=None if cache is None else Path(cache),
    )
    if not KINDS[fig.kind].SIDE_BY_SIDE:
        run, resolved = _run(settings, fig)
        return KINDS[fig.kind].chart(resolved, run)
    # A side-by-side figure: each model its run, the first's data under data/, the others' in their folders, as a
    # site whose first figure this is lays them out.
    choices = figure_models(fig, settings)
    folders = model_choice.folders(choices, choices[0])
    members = []
    for choice in choices:
        run, resolved = _run(replace(settings, model=choice.name, revision=choice.revision, seed=choice.seed), fig)
        run.folder = folders[choice]
        members.append(Member(resolved, run, choice))
    return KINDS[fig.kind].chart(fig, Runs(tuple(members)))


def _run(settings: Settings, fig: Figure) -> tuple[Run, Figure]:
    """The run of settings' model for the figure (from the cache where it holds it), and the figure resolved."""
    run, resolved, _, _ = cached_run(settings, [fig], gather_asks([fig]), Progress(verbosity=0))
    return run, resolved[0]
