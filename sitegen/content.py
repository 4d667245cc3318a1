"""What each figure's page shows, computed from its run (a side-by-side figure's: its runs) with its kind's pure
functions, and kept in the cache under the page namespace's version (figsite.data.versions), which this module's
source and the kinds' make: the drawing of the pages is sitegen.pages'."""

from __future__ import annotations

import functools
import hashlib
import json
from importlib import metadata
from pathlib import Path

from figsite.config import Figure
from figsite.data import cache, paths
from figsite.data.run import Run
from figsite.data.shared_names import ATTENTION_META
from figsite.data.side_by_side import Runs
from figsite.data.versions import version
from sitegen.site.render import Page
from figures import KINDS
from figures.toolkit import charts, family


def gather_page(fig: Figure, run: Run | Runs, cache_dir: Path | None = None, run_key=None) -> Page:
    """Everything one figure's page shows, computed from the run with the figure kind's pure functions (a
    side-by-side figure's from its runs, figsite.data.side_by_side).

    What the figure computes depends only on the run, the figure's keys, the figures' code and Altair's version:
    with a cached run it is kept too, so that a rebuild after a template or caption change skips the charts.
    `run_key`: the run's cache key (a side-by-side figure's: its runs', in order); None where it can't be cached.
    """
    kind = KINDS[fig.kind]
    runs = run.members if isinstance(run, Runs) else ()

    def compute() -> bytes:
        spec, narrow = charts.spec(kind.chart(fig, run)), kind.narrow_chart(fig, run)
        context = kind.context(fig, run) if runs else family.context(kind, fig, run)
        return json.dumps(
            {
                "text_figure": kind.text_figure(fig, run),
                "spec": spec,
                "narrow_spec": None if narrow is None else charts.spec(narrow),
                "tables": kind.tables(fig, run, spec),
                "context": context,
                "key": kind.key(fig, run),
                "loads": kind.loads(fig, run),
                "live_target": kind.live_target(fig, run),
                "live_versus": kind.live_versus(fig, run),
                "notebook": notebook_of(kind, fig, run),
            },
            ensure_ascii=False,
        ).encode("utf-8")

    cached = run_key is not None and not (isinstance(run_key, tuple) and None in run_key)
    memo_dir = cache_dir if cached else None
    resolved = [member.fig.resolved for member in runs] if runs else fig.resolved
    parts = ["page", run_key, fig.kind, fig.label, fig.values, resolved, version("page"), *tool_versions()]
    computed = json.loads(cache.memo(memo_dir, parts, compute))
    kept_as = None if memo_dir is None else hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()
    folders = tuple(member.run.folder for member in runs) if runs else (run.folder,)
    return Page(
        label=fig.label,
        kind=fig.kind,
        title=kind.TITLE,
        caption=fig.caption or kind.caption(run.model),
        guide=kind.GUIDE,
        texts=kind.texts(fig),
        text_names=kind.TEXT_NAMES,
        explore=kind.EXPLORE,
        printed=kind.PRINTED_IN_BOOK,
        reach=kind.REACH,
        position=fig.resolved.get("opening"),
        number=fig.number,
        book_page=fig.page,
        runs=folders,
        kept_as=kept_as,
        reads=(
            *(folder + path for folder in folders for path in kind.DATA_FILES),
            *loaded_on_demand(computed["spec"]),
            *computed["loads"],
        ),
        **computed,
    )


def loaded_on_demand(spec: dict) -> list[str]:
    """The data files (paths under data/) a page loads when the reader asks: a long text's head files, named
    in its chart's spec (assets/figures.js loads them). The site holds only these of a long text's heads."""
    files = spec.get("usermeta", {}).get(ATTENTION_META, {}).get("files", {})
    return sorted({path.removeprefix(paths.in_data("")) for path in files.values()})


# What the drawings and the charts depend on besides a chart's spec: the versions of vl-convert, and
# of Altair, which names the Vega-Lite version. Read without importing either (a rebuild may need neither).
@functools.cache
def tool_versions() -> tuple[str, str]:
    """The versions of vl-convert and Altair, read when first asked."""
    return metadata.version("vl-convert-python"), metadata.version("altair")


def notebook_of(kind, fig: Figure, run: Run | Runs) -> dict | None:
    """What the figure's notebook needs of its run (figures.notebook): its kind's recompute and params, its text
    and the ids the model read (a side-by-side figure's: each model's, in its order); no text and no ids for a
    figure that reads none (the model in numbers); None where the kind offers no notebook."""
    recipe = kind.notebook(fig, run)
    if recipe is None:
        return None
    text = next(iter(kind.texts(fig)), None)

    def ids(one: Run) -> list[int]:
        return [] if text is None else [token["id"] for token in one.tokens(text)]

    return {
        "code": recipe.code,
        "params": recipe.params,
        "text": text,
        "ids": [ids(member.run) for member in run.members] if isinstance(run, Runs) else ids(run),
    }
