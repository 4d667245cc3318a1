"""The site's outputs, each written by one writer that owns its files (as pelican's generators do): write_site
runs WRITERS in order over one Site, the same for all, into a fresh folder it then swaps in (sitegen.site.output).
Adding an output (a print edition, a feed) is adding one writer to WRITERS.

Site holds what every writer reads: the run, one record per figure (built.BuiltFigure: its page as gathered and the
callables that return its compiled charts and drawings, which the drawing processes may still be making), [site],
and the bundle. What
is known only as the site is written (each page's compiled chart, address and data files' checksums) is worked
out once, when a writer first asks for it, into frozen values (render.ShownPage); nothing is set on a Page.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import json
import shutil
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Callable, Protocol

from jinja2.utils import htmlsafe_json_dumps

from figsite.config import SiteInfo
from figsite.print_config import PrintInfo
from figsite.data import paths, shared_names
from figsite.data.run import Run, head_file_text
from figsite.data.versions import version
from sitegen.site import public
from sitegen.site.built import BuiltFigure, Made
from sitegen.site.drawing import NARROW_WIDTH, differences, fits_column
from sitegen.site.inputs import chart_inputs
from sitegen.site.index_page import Preview, index_parts, svg_size
from sitegen.site.live import COVERED_KINDS, LivePage, write_live_files
from sitegen.site.model_map import model_map
from sitegen.site.notebooks import Notebooks, notebook_files
from sitegen.site.output import publish
from sitegen.site.print_edition import PrintEdition, print_files
from sitegen.site.render import (GENERATED, STATIC, Page, PerObject, ShownPage, TextPage, environment, model_name, notice,
                                 text_pages, text_rows)

ABOUT_DESCRIPTION = "How these figures were computed: the model, the libraries and the data files."


@dataclass(frozen=True, kw_only=True)
class Site:
    """What the writers write from, the same for every writer.

    figures: each figure in the config's order (built.BuiltFigure), whose compiled charts (Vega and its dark theme's
    changes, JSON bytes: sitegen.site.drawing.Drawer.compiled) and drawings are each asked for when a writer needs
    them, as late as can be; bundle: returns the Vega bundle (bytes); live_charts: the live page's compiled charts
    by its figures' keys (the narrow ones under "narrow-" + key). live: the live page (--live; sitegen.site.live),
    or None. cache_dir: the build's cache folder, or None.
    """

    run: Run
    figures: list[BuiltFigure]
    bundle: Callable[[], bytes]
    live_charts: dict[str, Made] = field(default_factory=dict)
    info: SiteInfo = field(default_factory=SiteInfo)  # the config's [site] table
    live: LivePage | None = None
    cache_dir: Path | None = None  # the build's cache: the templates are kept there compiled (render.environment)
    # kept(parts, names, compute): the files `names` kept in the build's cache for `parts`, else compute()'s, kept
    # (figsite.data.cache.memo_each); without a cache, compute()'s
    kept: Callable = field(default=lambda parts, names, compute: compute())
    print_info: PrintInfo | None = None  # the config's [print] table, or None: no print/ folder
    notebooks: bool = False  # a notebook for each figure that offers one (sitegen.site.notebooks)
    others: tuple = ()  # the runs of the other models the figures read (each in its folder under data/, Run.folder)

    @cached_property
    def gathered(self) -> list[Page]:
        """The figures' pages (render.Page), in the config's order."""
        return [built.page for built in self.figures]

    @cached_property
    def built(self) -> dict[str, BuiltFigure]:
        """label -> the figure."""
        return {built.label: built for built in self.figures}

    @cached_property
    def runs(self) -> dict:
        """folder (Run.folder) -> run: the main model's ("") and every other's."""
        return {run.folder: run for run in (self.run, *self.others)}

    @cached_property
    def data(self) -> dict:
        """Every data file of the site, path in the site -> bytes: the run's (of a long text's heads, those its
        pages load: each page names its own in `reads`) and the files the pages load on demand."""
        heads = {path for page in self.gathered for path in page.reads if paths.is_head_data(path)}
        out = {}
        for run in self.runs.values():
            own = {path.removeprefix(run.folder) for path in heads if path.startswith(run.folder)}
            out.update({run.in_data(path): content.encode("utf-8") for path, content in run.files(own).items()})
        for page in self.gathered:
            loads = sorted((page.loads or {}).items())
            files = [paths.in_data(path) for path, _ in loads]

            def made(loads=loads) -> list[bytes]:
                return [head_file_text(payload).encode("utf-8") for _, payload in loads]

            # written from the page's content alone: kept in the cache with it, as its downloads are
            out.update(zip(files, made() if page.kept_as is None or not loads else
                           self.kept(["loads", version("loads"), page.kept_as], files, made)))
        return out

    @cached_property
    def checksums(self) -> dict:
        """Each data file's SHA-256, by its path in the site (the About page lists them)."""
        return {path: hashlib.sha256(raw).hexdigest() for path, raw in self.data.items()}

    @cached_property
    def pages(self) -> list[ShownPage]:
        """The pages as the site shows them: with their charts compiled (waiting for them where need be), their
        addresses, and the data files they read with their checksums."""
        return [self.shown(page) for page in self.gathered]

    def shown(self, page: Page) -> ShownPage:
        built = self.built[page.label]
        raw_chart, raw_dark = built.chart()
        chart, dark = json.loads(raw_chart), json.loads(raw_dark)
        narrow = narrow_dark = None
        if built.narrow is not None:
            light, raw_narrow_dark = built.narrow()

            def made() -> list[bytes]:
                return [json.dumps(differences(chart, json.loads(light)), ensure_ascii=False).encode("utf-8")]

            # the narrow chart as changes to the wide one: kept in the cache by the two charts' bytes
            digests = [hashlib.sha256(raw).hexdigest() for raw in (raw_chart, light)]
            narrow = json.loads(self.kept(["narrow", version("narrow"), *digests], ["differences"], made)[0])
            narrow_dark = json.loads(raw_narrow_dark)
        address = public.address(self.info, page.file)
        runs = [self.runs[folder] for folder in page.runs]
        files = [run.in_data(paths.text_data(run.slugs[text])) for run in runs for text in page.texts]
        files += [paths.in_data(path) for path in page.reads]
        files += [run.in_data(paths.RUN_RECORD) for run in runs]
        token_row, token_param = shared_names.token_row(chart), shared_names.token_param(chart)
        return ShownPage.of(
            page, address=address, qr=public.qr_code(page.label, address), chart=chart, dark=dark, narrow=narrow,
            narrow_dark=narrow_dark, token_param=token_param, token_row=token_row,
            # a token param is always chosen by a row of tokens: the figure's own, or its text page's
            inputs=chart_inputs(chart, steered=token_param),
            text_rows=[] if token_row else [row for run in runs for row in text_rows(run, page, len(runs) > 1)],
            model_names=[model_name(run) for run in runs] if page.runs != ("",) else [],
            notice=next((notice(run) for run in runs if notice(run)), None),
            data_files=[(path, self.checksums[path]) for path in files])

    @cached_property
    def text_pages(self) -> list[TextPage]:
        return text_pages(self.run, [page for page in self.pages if page.runs == ("",)])

    @cached_property
    def drawn(self) -> dict:
        """label -> the figure's drawings, [SVG, PNG] (waiting for them where need be)."""
        return {built.label: built.drawing() for built in self.figures}

    @cached_property
    def common(self) -> dict:
        """What every template is given."""
        return {"run": self.run, "others": [(run, model_name(run)) for run in self.others], "site": self.info, "pages": self.pages, "notice": notice(self.run), "model_name": model_name(self.run),
                "paths": paths, "text_pages": self.text_pages, "live": self.live, "live_kinds": COVERED_KINDS,
                "first_drawing": self.first_drawing, "scroll_hint": shared_names.SCROLL_HINT, "as_json": self.as_json,
                "clicks_meta": shared_names.CLICKS_META, "notebooks": self.notebooks}

    @cached_property
    def as_json(self) -> PerObject:
        """A value as the tojson filter writes it (markup-safe), into a <script type="application/json">: worked out
        once for every page that carries it (a chart is on its figure's page, its bare page and its text's page)."""
        policies = self.env.policies
        return PerObject(lambda value: htmlsafe_json_dumps(value, dumps=policies["json.dumps_function"],
                                                           **policies["json.dumps_kwargs"]))

    @cached_property
    def gathered_by_label(self) -> dict:
        return {page.label: page for page in self.gathered}

    @cached_property
    def first_drawn(self) -> dict:
        """label -> {variant of paths.FIRST_DRAWINGS: SVG}: the figure's other first drawings (waiting for them)."""
        return {built.label: {variant: drawn()[0] for variant, drawn in built.first_drawings.items()}
                for built in self.figures}

    def first_drawing(self, label: str) -> dict:
        """What the figure's page shows in its chart's box until the live chart replaces it: for a desktop's column
        and, where the figure draws otherwise on a phone, a phone's, a FirstDrawing (the light drawing's address, the
        dark one's, their size in whole pixels, which the page gives them so that nothing moves when the chart goes
        live, and whether a phone's is wider than the phone)."""
        variants, page = self.first_drawn[label], self.gathered_by_label[label]
        out = {"wide": FirstDrawing.of(paths.image(label) + ".svg", self.drawn[label][0],
                                       paths.first_drawing(label, "dark"))}
        if "narrow" in variants:
            # a narrow chart of a fixed width may be wider than a phone; a chart as wide as its column fits it
            fixed = page.narrow_spec is not None and not fits_column(page.narrow_spec)
            out["narrow"] = FirstDrawing.of(paths.first_drawing(label, "narrow"), variants["narrow"],
                                            paths.first_drawing(label, "narrow-dark"), NARROW_WIDTH if fixed else None)
        return out

    @cached_property
    def env(self):
        return environment(self.cache_dir)

    def live_with(self, keys: list[str]) -> LivePage | None:
        """The live record with the compiled charts of these kinds (and their narrow ones): what a figure's page
        draws for the reader's sentence."""
        if self.live is None:
            return None
        charts = {}
        for figure in self.live.figures:
            if figure["key"] in keys:
                for key in [figure["key"], *(["narrow-" + figure["key"]] if figure["narrow"] else [])]:
                    charts[key] = [json.loads(raw) for raw in self.live_charts[key]()]
        return replace(self.live, charts=charts)

    def render(self, folder: Path, file: str, template: str, **values) -> None:
        """Writes the page `file` of the site from `template`, given `values` and what every template is given."""
        html = self.env.get_template(template).render(**{**self.common, **values})
        (folder / file).write_text(html, encoding="utf-8")

    def preview(self, file: str, title: str, description: str, image: str):
        """The link preview of the page `file` (public.link_preview), or None without a base_url."""
        return public.link_preview(self.info, file, title, description, image)


@dataclass(frozen=True)
class FirstDrawing:
    """One drawing a chart's box shows until the live chart is drawn: its address in the site (light), the address
    of the same for a dark page (or None), and its width and height in whole pixels."""

    src: str
    dark: str | None
    width: int
    height: int
    scrolls: bool = False  # wider than the column it is drawn for (a phone's): the page says it scrolls sideways

    @classmethod
    def of(cls, src: str, svg: bytes, dark: str | None, column: int | None = None) -> "FirstDrawing":
        width, height = svg_size(svg)
        return cls(src, dark or None, round(width), round(height), column is not None and width > column + 1)


class Writer(Protocol):
    """One output of the site: writes its files into `folder`, the site being written, from `site`."""

    def write(self, folder: Path, site: Site) -> None: ...


class Assets:
    """assets/: the stylesheet and the pages' icon (templates/static/), and the page script and Vega's rules that `npm
    run bundle` writes (templates/generated/assets/: figures.js from templates/js/, vega.css), copied as they are."""

    def write(self, folder: Path, site: Site) -> None:
        assets = folder / paths.ASSETS
        assets.mkdir()
        for static in sorted([*STATIC.iterdir(), *(GENERATED / "assets").iterdir()]):
            if static.is_dir():  # none today: a folder of templates/static/ is no asset of every page
                continue
            shutil.copyfile(static, assets / static.name)


class Data:
    """data/: the run's data files and the files the pages load on demand (Site.data)."""

    def write(self, folder: Path, site: Site) -> None:
        for path, raw in site.data.items():
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / path).write_bytes(raw)


class Downloads:
    """downloads/: each figure's data as JSON (every table, with the model and texts), its chart's spec, and one
    CSV per table. A page computed from a cached run (render.Page.kept_as) keeps its files' bytes in the cache, so
    that a rebuild writes them without serialising the tables again."""

    def write(self, folder: Path, site: Site) -> None:
        (folder / paths.DOWNLOADS).mkdir()
        for page in site.gathered:
            files = [page.download(), paths.spec_download(page.label), *(page.download(name) for name in page.tables)]
            made = functools.partial(self.files, site, page)
            kept = made() if page.kept_as is None else site.kept(["downloads", version("downloads"), page.kept_as], files, made)
            for file, raw in zip(files, kept):
                (folder / file).write_bytes(raw)

    def files(self, site: Site, page: Page) -> list[bytes]:
        """The page's downloads, in the order of write's `files`: the JSON of all tables, the spec, each CSV."""
        models = [site.runs[folder].model for folder in page.runs]
        content = {"figure": page.label, "kind": page.kind, "title": page.title,
                   **({"model": models[0]} if len(models) == 1 else {"models": models}),
                   "texts": page.texts, "tables": page.tables}
        dumped = [json.dumps(content, ensure_ascii=False, separators=(",", ":")),
                  json.dumps(page.spec, ensure_ascii=False, separators=(",", ":"))]
        return [text.encode("utf-8") for text in dumped] + [self.csv(rows) for rows in page.tables.values()]

    @staticmethod
    def csv(rows: list[dict]) -> bytes:
        columns = list(dict.fromkeys(key for row in rows for key in row))
        out = io.StringIO(newline="")
        writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: (json.dumps(v) if isinstance(v, (list, dict)) else v) for k, v in row.items()}
                         for row in rows)
        return out.getvalue().encode("utf-8")


class FiguresText:
    """figures.txt: every text figure as the book prints it, each with its public address (public.figures_text)."""

    def write(self, folder: Path, site: Site) -> None:
        (folder / paths.FIGURES_TEXT).write_text(public.figures_text(site.pages), encoding="utf-8")


class FigurePages:
    """Each figure's page, and its page to embed in another (an iframe's)."""

    def write(self, folder: Path, site: Site) -> None:
        for page in site.pages:
            share = site.preview(page.file, page.full_name, page.caption, f"{page.image}.png")
            # a figure the page can compute takes the reader's sentence, drawn by its kind's live chart only
            own = {"live": site.live_with([page.kind])} if site.live and page.kind in COVERED_KINDS else {}
            site.render(folder, page.file, "figure.html", page=page, share=share, **own)
        for page in site.pages:
            site.render(folder, page.embed_file, "embed.html", page=page, share=None)


class Drawings:
    """The Vega bundle the pages draw with, and img/: each figure's drawing (SVG and PNG) and QR code."""

    def write(self, folder: Path, site: Site) -> None:
        (folder / paths.VEGA_BUNDLE).write_bytes(site.bundle())
        (folder / paths.IMAGES).mkdir()
        for page in site.gathered:
            for suffix, drawing in zip(("svg", "png"), site.drawn[page.label]):
                (folder / f"{page.image}.{suffix}").write_bytes(drawing)
            for variant, drawing in site.first_drawn[page.label].items():
                (folder / paths.first_drawing(page.label, variant)).write_bytes(drawing)
        public.write_qr_codes(folder, site.pages)


class TextPages:
    """A page for each text that two or more figures read (render.text_pages). It draws each chart as the reader
    comes near it: until then the chart keeps the height of its drawing, so that the charts below stay where they
    will be."""

    def write(self, folder: Path, site: Site) -> None:
        for text_page in site.text_pages:
            share = site.preview(text_page.file, f"Figures of “{text_page.text}”", text_page.description,
                                 f"{text_page.pages[0].image}.png")
            site.render(folder, text_page.file, "text.html", text_page=text_page, share=share)


class Live:
    """live/ and live.html (--live only): the model's files, the libraries and the pages' script (sitegen.site.live),
    and the index of the figures that take the reader's sentence (each on its own page: FigurePages)."""

    def write(self, folder: Path, site: Site) -> None:
        if site.live is None:
            return
        write_live_files(folder, site.live)
        site.render(folder, paths.LIVE_PAGE, "live.html", share=None)


class About:
    """about.html: the model, the libraries, and every data file with its checksum."""

    def write(self, folder: Path, site: Site) -> None:
        share = site.preview(paths.ABOUT, "About these figures", ABOUT_DESCRIPTION, f"{site.gathered[0].image}.png")
        printed = print_files(folder, [page.label for page in site.gathered]) if site.print_info else []
        site.render(folder, paths.ABOUT, "about.html", checksums=site.checksums, share=share, printed=printed,
                    notebooks=notebook_files(folder))


class Index:
    """index.html, last: its previews are the drawings, whose sizes it gives the page so that nothing moves as
    they load."""

    def write(self, folder: Path, site: Site) -> None:
        previews = {page.label: Preview.of(page, site.drawn[page.label][1]) for page in site.pages}
        share = site.preview(paths.INDEX, site.info.title, site.info.introduction_html.striptags(),
                             f"{site.gathered[0].image}.png")
        site.render(folder, paths.INDEX, "index.html", previews=previews, parts=index_parts(site.pages),
                    share=share, model_map=model_map(site.run.model, site.pages))


# In order: the files that cost nothing first, then what waits on the drawing processes; the index last.
WRITERS: list[Writer] = [Assets(), Data(), Downloads(), Notebooks(), FiguresText(), FigurePages(), Drawings(),
                         PrintEdition(), TextPages(), Live(), About(), Index()]


def write_site(out: Path, site: Site) -> None:
    """Writes the whole site with every writer of WRITERS, in order, then swaps it in for `out` (hold
    output.output_lock)."""
    publish(out, lambda folder: write_all(folder, site))


def write_all(folder: Path, site: Site) -> None:
    for writer in WRITERS:
        writer.write(folder, site)
