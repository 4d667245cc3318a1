"""Every path in the site, relative to its folder: this module owns them, as pelican's writer owns its output.

Data files index layers and heads from 0, as all data files do. Nothing else spells a path of the site.
"""

from __future__ import annotations

import re
import unicodedata

INDEX = "index.html"
ABOUT = "about.html"  # how the figures were made: the model, the libraries, the data files and their checksums
FIGURES_TEXT = "figures.txt"  # every printed figure, in config order
ASSETS = "assets"  # the stylesheet, the page script and the Vega bundle
STYLESHEET = f"{ASSETS}/site.css"
PAGE_SCRIPT = f"{ASSETS}/figures.js"
ICON = f"{ASSETS}/icon.svg"  # the pages' icon, so that no browser asks for /favicon.ico, outside the site's folder
VEGA_BUNDLE = f"{ASSETS}/vega.js"
VEGA_STYLES = f"{ASSETS}/vega.css"  # vega-embed's and vega-tooltip's rules (tools/bundle.mjs), for the policy
NOSCRIPT_STYLES = f"{ASSETS}/noscript.css"  # where JavaScript is off: the controls hidden, the drawings standing
DATA = "data"  # the run's data files (see docs/output.md)
IMAGES = "img"  # each figure's opening state drawn as SVG and PNG
DOWNLOADS = "downloads"  # each figure's tables as JSON and CSV
PRINT = "print"  # with a [print] table only: each figure as PDF and SVG for the book, and the contact sheet
CONTACT_SHEET = f"{PRINT}/figures.pdf"  # every figure, one a page, with its number, label and data checksum

LIVE_PAGE = "live.html"  # with --live only: the reader's own text, GPT-2 run in the page
LIVE = "live"  # with --live only: what the live page loads (sitegen/site/live.py)
LIVE_MODEL = f"{LIVE}/model"  # the model exported to ONNX, its weights in files under 100 MB
LIVE_SCRIPT = f"{LIVE}/live.js"
LIVE_TOKENIZER = f"{LIVE}/tokenizer.js"  # the model's tokenizer.json, as a script that the page's tokenizer reads

RUN_RECORD = "run.json"  # under data/
PARTS = "parts.json"  # under data/: what the scores, ledger, knockout, patching and head-roles figures read
AVERAGE_FILE = "average.js"  # under a long text's data folder: the mean over every head


def figure_page(label: str) -> str:
    return f"figure-{label}.html"


def embed_page(label: str) -> str:
    """The figure alone, for an iframe in a book column."""
    return f"embed-{label}.html"


def text_page(slug: str) -> str:
    """Every figure of one text side by side."""
    return f"text-{slug}.html"


def image(label: str) -> str:
    """The drawing of a figure's opening state (as its chart draws in a desktop's column, light), without its
    extension (.svg, .png): print and link previews show it, and a light page until the chart is live."""
    return f"{IMAGES}/figure-{label}"


# The drawings of a figure's opening state that its page shows until the live chart replaces it, besides `image`'s
# (a desktop's, light): a desktop's in dark, and a phone's, light and dark: each named by what it is drawn for,
# after a dot, which no label holds.
FIRST_DRAWINGS = ("dark", "narrow", "narrow-dark")


def first_drawing(label: str, variant: str) -> str:
    """A figure's drawing for a dark page, a phone's column or both (a variant of FIRST_DRAWINGS), as SVG."""
    return f"{IMAGES}/figure-{label}.{variant}.svg"


def printed(label: str, suffix: str) -> str:
    """A figure's drawing for the book ([print]), as `suffix` ("pdf", "svg")."""
    return f"{PRINT}/figure-{label}.{suffix}"


def qr_image(label: str) -> str:
    """A figure's QR code, which opens its page at the site's public address, without its extension (.svg, .png):
    written only where [site] gives a base_url."""
    return f"{IMAGES}/qr-{label}"


def download(label: str, table: str | None = None) -> str:
    """A figure's tables as one JSON file, or one table as CSV."""
    return f"{DOWNLOADS}/figure-{label}.json" if table is None else f"{DOWNLOADS}/figure-{label}-{table}.csv"


NOTEBOOKS = "notebooks"  # each figure's notebook (--notebooks)


def notebook(label: str) -> str:
    """A figure's notebook, which recomputes it and checks it against its data download."""
    return f"{NOTEBOOKS}/figure-{label}.ipynb"


def notebook_script(label: str) -> str:
    """The same notebook as a script that hands its text to the page (shared_names.NOTEBOOK_CALLBACK), which saves it
    with the figure's state written into its STATE cell."""
    return f"{NOTEBOOKS}/figure-{label}.js"


def spec_download(label: str) -> str:
    """A figure's chart as its Vega-Lite spec (data included): to open in the Vega editor, or to test."""
    return f"{DOWNLOADS}/figure-{label}.vega-lite.json"


def text_data(slug: str) -> str:
    """A text's data file, under data/."""
    return f"{slug}.json"


def head_file(layer: int, head: int) -> str:
    """The file of one head's shares in a long text's folder, 0-based as all data files."""
    return f"layer-{layer:02d}-head-{head:02d}.js"


def head_data(slug: str, name: str) -> str:
    """A long text's head file (head_file or AVERAGE_FILE), under data/."""
    return f"{slug}/{name}"


def figure_data(label: str, name: str) -> str:
    """A file a figure's page loads when the reader asks (figures.kind `loads`), under data/: a script like a head
    file, in a folder of its own per figure."""
    return f"figure-{label}/{name}.js"


def is_head_data(path: str) -> bool:
    """Whether a path under data/ is a long text's head file (head_data)."""
    return "/" in path and path.endswith(".js")


def model_folder(slug: str) -> str:
    """Where the data files of a model besides the site's main one lie, under data/ (its run's `folder`)."""
    return f"models/{slug}/"


def in_data(path: str) -> str:
    """A path under data/ as a path in the site."""
    return f"{DATA}/{path}"


def slugs_for(texts: list[str]) -> dict[str, str]:
    """A readable file name for each distinct text, e.g. 'maya-lives-in-paris-the-capital-of'."""
    slugs: dict[str, str] = {}
    taken: set[str] = set()
    for text in texts:
        ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
        words = re.findall(r"[a-z0-9]+", ascii_text.lower().replace("'", ""))
        base = "-".join(words)[:60].strip("-") or "text"
        slug, n = base, 2
        while slug in taken:  # two texts that differ only in punctuation or case
            slug, n = f"{base}-{n}", n + 1
        taken.add(slug)
        slugs[text] = slug
    return slugs
