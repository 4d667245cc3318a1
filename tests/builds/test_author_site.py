"""The author's site end to end. tests/site_table.toml (a full [site] table, the book's numbers and pages, a
base_url) built over the small model shows the title, the introduction, "Figure 3.1", the licence and the cite
line, an About page, absolute link previews, and a QR code per figure that decodes to its page's address. A config
without [site] carries no absolute address at all. A change in [site] shows on the pages after a rebuild from the
cache, without running the model again. Hostile values are refused (here) or inert (tests/browser/)."""

from __future__ import annotations

import hashlib
import io
import json
import re
import urllib.request
from pathlib import Path
from html.parser import HTMLParser

import pytest
import vl_convert
from click.testing import CliRunner
from PIL import Image
from pyzbar.pyzbar import ZBarSymbol, decode

from build import cli
from conftest import SITE_TABLE, SMALL_CONFIG, snapshot
from sitegen.site.qr import PNG_DPI

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

CONFIG = tomllib.loads(SITE_TABLE.read_text(encoding="utf-8"))
BASE = CONFIG["site"]["base_url"] + "/"  # the config's base_url lacks the '/' the build adds
LABELS = [figure["label"] for figure in CONFIG["figure"]]
NUMBERED = {figure["label"]: figure for figure in CONFIG["figure"] if "number" in figure}
TITLE = CONFIG["site"]["title"]


class Tags(HTMLParser):
    """Every start tag of a page with its attributes, and the text of its <main> (tags dropped, spaces joined)."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tags, self.words, self.depth = [], [], 0
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self.depth += tag == "main"

    def handle_endtag(self, tag):
        self.depth -= tag == "main"

    def handle_data(self, data):
        if self.depth:
            self.words.append(data)

    def all(self, tag: str, **attrs) -> list[dict]:
        return [a for t, a in self.tags if t == tag and all(a.get(k) == v for k, v in attrs.items())]

    def meta(self, prop: str) -> list[str]:
        return [a["content"] for a in self.all("meta", property=prop)]

    @property
    def text(self) -> str:
        return " ".join("".join(self.words).split())


def page(site, name: str) -> Tags:
    return Tags((site / name).read_text(encoding="utf-8"))


def html_pages(site) -> list[str]:
    return sorted(p.name for p in site.glob("*.html"))


def qr_read(png: bytes) -> list[str]:
    """What zbar reads in a PNG: the text of each QR code it finds."""
    return [
        s.data.decode("utf-8") for s in decode(Image.open(io.BytesIO(png)).convert("L"), symbols=[ZBarSymbol.QRCODE])
    ]


# ---------------------------------------------------------------------------------------------- what [site] shows


def test_the_index_shows_the_title_byline_introduction_way_back_to_the_book_licence_and_cite(site_table_build):
    html = (site_table_build / "index.html").read_text(encoding="utf-8")
    index = Tags(html)
    assert f"<title>{TITLE}</title>" in html and f"<h1>{TITLE}</h1>" in html
    assert "The figures of chapter 3 of How Machines Read, by Ada Example." in index.text
    assert index.text.count("of chapter 3 of How Machines Read") == 1  # the byline's words, not again
    assert "<cite>How Machines Read</cite>" in html
    # The introduction's Markdown: emphasis, a list, links to mailto and to a page of the site.
    assert "with <em>How Machines Read</em> beside you" in html
    assert "<li>Each page opens on the state the book prints.</li>" in html
    assert (
        '<a href="mailto:ada@example.org">the author</a>' in html and '<a href="figure-l.html">figure 3.1</a>' in html
    )
    assert index.all("a", href=CONFIG["site"]["book_url"]), "no link back to the book"
    assert "Licence: Text and figures under CC BY 4.0" in index.text
    assert index.all("a", href="https://creativecommons.org/licenses/by/4.0/")
    assert "How to cite them: Ada Example, How Machines Read, chapter 3: Attention and layers (2025)" in index.text
    assert "the chapter's figures, computed from one run of the model over the chapter's texts" not in index.text


def test_every_page_but_the_bare_ones_names_the_site_by_its_title_and_has_a_one_line_footer_linking_the_about_page(
    site_table_build,
):
    for name in html_pages(site_table_build):
        html = (site_table_build / name).read_text(encoding="utf-8")
        footer = re.search(r"<footer class=\"site-footer\">\s*(.*?)\s*</footer>", html, re.S).group(1)
        assert footer.count("<p>") == 1 and "\n" not in footer, f"{name}: the footer is not one line: {footer}"
        if name.startswith("embed-"):
            continue
        assert f'<a class="home" href="index.html">{TITLE}</a>' in html, f"{name} does not name the site"
        assert 'href="about.html"' in footer, f"{name}: the footer does not link to the About page"


def test_every_page_but_the_bare_ones_leads_back_to_the_book_by_its_title_and_ends_with_the_licence_and_cite_line(
    site_table_build,
):
    book_link = f'<a class="book" href="{CONFIG["site"]["book_url"]}">Back to <cite>How Machines Read</cite></a>'
    for name in html_pages(site_table_build):
        html = (site_table_build / name).read_text(encoding="utf-8")
        header = re.search(r"<header[^>]*>(.*?)</header>", html, re.S)
        main = Tags(html).text
        if name.startswith("embed-"):  # bare, for an iframe in the book itself
            assert header is None and "Licence" not in main and "How Machines Read" not in html, name
            continue
        assert book_link in header.group(1), f"{name}: no way back to the book in its header"
        assert "Back to" not in main and header.group(1).count("Back to") == 1, f"{name}: the way back said twice"
        ending = main[main.rindex("Using these figures") :]
        assert ending == (
            "Using these figures Licence: Text and figures under CC BY 4.0 How to cite them: "
            "Ada Example, How Machines Read, chapter 3: Attention and layers (2025)"
        ), f"{name} ends: {ending}"


def test_a_numbered_figure_is_figure_n_and_another_its_title_alone_on_every_page_and_figures_txt_keeps_labels(
    site_table_build,
):
    index, about = (
        (site_table_build / "index.html").read_text(encoding="utf-8"),
        (site_table_build / "about.html").read_text(encoding="utf-8"),
    )
    text_page = next(site_table_build.glob("text-maya-*.html")).read_text(encoding="utf-8")
    printed = (site_table_build / "figures.txt").read_text(encoding="utf-8")
    for label in LABELS:
        number = NUMBERED.get(label, {}).get("number")
        own = (site_table_build / f"figure-{label}.html").read_text(encoding="utf-8")  # the label names the file
        title = re.search(r'<h1 class="figure-title">(.*?)</h1>', own).group(1)
        named = f'<span class="label">Figure {number}</span> ' if number else ""
        assert title.startswith(named) and "<" not in title.removeprefix(named), f"{label}: {title}"
        words = title.removeprefix(named)
        assert f"<title>{'Figure ' + number + ' ' if number else ''}{words}</title>" in own, label
        assert f'<a href="figure-{label}.html">{named}{words}</a>' in index, label
        assert f'<a href="figure-{label}.html">{named}{words}</a>' in about, label
        # figures.txt is the book's: it keeps the label line the book prints where the figure has no number.
        printed_name = f"Figure {number}" if number else f"({label})"
        assert re.search(rf"^{re.escape(printed_name)} {re.escape(words)}$", printed, re.M), printed_name
        assert f"({label})" not in own, f"({label}) shows on its page"
    assert '<span class="label">Figure 3.2</span>' in text_page and '<span class="label">Figure 3.3</span>' in text_page
    assert not list(site_table_build.glob("figure-3*")), "a number named a file"


def test_a_figure_printed_on_a_book_page_says_so_on_its_page_and_on_the_index(site_table_build):
    index = (site_table_build / "index.html").read_text(encoding="utf-8")
    for label in LABELS:
        own = page(site_table_build, f"figure-{label}.html").text
        book_page = NUMBERED.get(label, {}).get("page")
        if book_page:
            assert f"Printed on book page {book_page}." in own, label
            beside = (
                rf'<a href="figure-{label}.html"><span class="label">Figure {NUMBERED[label]["number"]}</span>'
                rf'[^<]*</a> <span class="book-page">book page {book_page}</span>'
            )
            assert re.search(beside, index), f"the index does not give Figure {NUMBERED[label]['number']}'s page"
        else:
            assert "book page" not in own, label


def test_the_about_page_has_the_model_libraries_true_checksums_how_the_figures_were_computed_licence_and_cite(
    site_table_build,
):
    about = page(site_table_build, "about.html")
    record = json.loads((site_table_build / "data" / "run.json").read_text(encoding="utf-8"))
    assert Path(record["model"]["name"]).name in about.text  # the model's folder, by its name
    assert f"torch {record['environment']['torch']}" in about.text
    data = sorted(p for p in (site_table_build / "data").rglob("*") if p.is_file())
    for path in data:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        assert f"{path.relative_to(site_table_build)} (SHA-256 {digest})" in about.text, path.name
    assert "How the figures were computed" in about.text and "The model read each of the 2 texts" in about.text
    assert "Licence: Text and figures under CC BY 4.0" in about.text and "How to cite them: Ada Example" in about.text
    for label in LABELS:
        assert f"{BASE}figure-{label}.html" in about.text, label
        assert about.all("a", href=f"img/qr-{label}.svg") and about.all("a", href=f"img/qr-{label}.png"), label


# ---------------------------------------------------------------------------------------------- the public address


def test_every_page_carries_absolute_preview_tags_of_its_own_address_and_a_bare_page_points_to_its_figure(
    site_table_build,
):
    for name in html_pages(site_table_build):
        tags = page(site_table_build, name)
        canonical = [a["href"] for a in tags.all("link", rel="canonical")]
        if name.startswith("embed-"):
            assert canonical == [BASE + name.replace("embed-", "figure-")] and not tags.meta("og:url"), name
            continue
        own = BASE if name == "index.html" else BASE + name
        assert canonical == [own] and tags.meta("og:url") == [own], name
        assert len(tags.meta("og:title")) == 1 and tags.meta("og:title")[0].strip(), name
        assert len(tags.meta("og:description")) == 1 and tags.meta("og:description")[0].strip(), name
        [image] = tags.meta("og:image")
        assert image.startswith(BASE), f"{name}: og:image {image} is not absolute"
        png = site_table_build / image[len(BASE) :]
        assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", (
            f"{name}: {image} is not a PNG of the site"
        )
        if name.startswith("figure-"):
            assert image == f"{BASE}img/{name.removesuffix('.html')}.png", name
    assert page(site_table_build, "figure-l.html").meta("og:title") == [
        "Figure 3.1 Attention: which earlier tokens does one token look at?"
    ]


@pytest.mark.parametrize("label", LABELS)
def test_each_figures_qr_code_as_png_and_as_svg_decodes_to_its_pages_address(site_table_build, label):
    address = BASE + f"figure-{label}.html"
    figure = page(site_table_build, f"figure-{label}.html")
    assert [a["href"] for a in figure.all("link", rel="canonical")] == [address]
    # The QR code is the author's: the About page offers it, the reader's page does not (only --serve shows it).
    about = page(site_table_build, "about.html")
    assert about.all("a", href=f"img/qr-{label}.svg") and about.all("a", href=f"img/qr-{label}.png")
    assert not figure.all("a", href=f"img/qr-{label}.svg") and "For the book" not in figure.text
    assert qr_read((site_table_build / "img" / f"qr-{label}.png").read_bytes()) == [address]
    svg = (site_table_build / "img" / f"qr-{label}.svg").read_text(encoding="utf-8")
    assert qr_read(vl_convert.svg_to_png(svg, scale=1, ppi=PNG_DPI)) == [address]


def test_figures_txt_gives_each_figures_address_under_it_and_check_book_reads_it_back_as_matching(
    site_table_build, small_model_dir
):
    printed = (site_table_build / "figures.txt").read_text(encoding="utf-8")
    # Each figure: its heading line, indented lines (and blank ones), then its address on a line of its own.
    names = [f"Figure {NUMBERED[label]['number']}" if label in NUMBERED else f"({label})" for label in LABELS]
    starts = [n for n, line in enumerate(printed.splitlines()) if line.startswith(tuple(f"{name} " for name in names))]
    assert len(starts) == len(LABELS)
    lines = printed.splitlines()
    for label, start, end in zip(LABELS, starts, [*starts[1:], len(lines)]):
        block = [line for line in lines[start + 1 : end] if line.strip()]
        assert block[-1] == f"Interactive version: {BASE}figure-{label}.html", label
        assert all(line.startswith(" ") for line in block[:-1]), label
    config = site_table_build.parent / "chapter.toml"
    result = CliRunner().invoke(
        cli,
        [
            "--model",
            str(small_model_dir),
            "--config",
            str(config),
            "--check-book",
            str(site_table_build / "figures.txt"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "4 of 4 printed figures match: Figure 3.1, Figure 3.2, Figure 3.3, (heads)" in result.output


def test_check_book_names_a_numbered_figure_by_its_number_in_its_diff_and_a_number_the_config_lacks_in_its_summary(
    site_table_build, small_model_dir, tmp_path
):
    printed = (site_table_build / "figures.txt").read_text(encoding="utf-8")
    first = printed.splitlines()[1]
    book = tmp_path / "book.txt"
    book.write_text(
        printed.replace(first, first + " (changed)", 1) + "\nFigure 9.9 A figure of another chapter\n  its one line\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(
        cli,
        [
            "--model",
            str(small_model_dir),
            "--config",
            str(site_table_build.parent / "chapter.toml"),
            "--check-book",
            str(book),
        ],
    )
    assert result.exit_code == 1, result.output
    assert f"--- {book} Figure 3.1, line 1" in result.output and f"-{first} (changed)" in result.output
    assert result.output.splitlines()[-1] == (
        "check-book: 3 of 4 printed figures match: Figure 3.2, Figure 3.3, (heads); 1 differ: Figure 3.1; "
        "printed in the book but not in the config: Figure 9.9"
    )


def served_page(site, name: str) -> bytes:
    """A page of `site` as `build.py --serve` sends it (sitegen.author.serve, on any free port)."""
    from sitegen.author.serve import LiveState, Server

    with Server(site, 0, LiveState()) as server, urllib.request.urlopen(server.url + name, timeout=10) as response:
        return response.read()


def test_the_serve_preview_shows_the_author_each_figures_address_and_qr_code_which_the_site_on_disk_leaves_out(
    site_table_build,
):
    for label in LABELS:
        name, address = f"figure-{label}.html", f"{BASE}figure-{label}.html"
        on_disk, sent = (site_table_build / name).read_bytes(), served_page(site_table_build, name)
        assert b"For the book" not in on_disk
        box = re.search(rb'<details class="for-the-book[^"]*" open>.*?</details>\n', sent, re.S)
        assert box, f"{name}: --serve shows no author's box"
        shown = Tags(box.group(0).decode("utf-8"))
        assert shown.all("a", href=address) and shown.all("img", src=f"img/qr-{label}.svg"), label
        assert shown.all("a", href=f"img/qr-{label}.svg") and shown.all("a", href=f"img/qr-{label}.png"), label
        assert sent.index(box.group(0)) < sent.index(b"</main>") < sent.index(b'<script id="live-reload"')
        without = sent.replace(box.group(0), b"")
        assert without[: without.index(b'<script id="live-reload"')] + without[without.index(b"</body>") :] == on_disk
    for name in ("index.html", "about.html", "embed-l.html"):
        assert b"for-the-book" not in served_page(site_table_build, name), name


def test_a_site_without_base_url_has_no_preview_tags_no_absolute_address_and_no_qr_codes(small_build):
    for name in html_pages(small_build):
        html = (small_build / name).read_text(encoding="utf-8")
        assert 'property="og:' not in html and 'rel="canonical"' not in html, name
        assert "For the book" not in html and "/img/" not in html, name
    assert b"for-the-book" not in served_page(small_build, "figure-l.html")
    assert not list(small_build.glob("img/qr-*"))
    assert "Interactive version" not in (small_build / "figures.txt").read_text(encoding="utf-8")
    index = page(small_build, "index.html")
    assert "Attention and layers: the figures" in index.text and "Using these figures" not in index.text


# ---------------------------------------------------------------------------------------------- rebuilds


def build(small_model_dir, config, out, cache) -> str:
    """Builds `config` into `out` with the cache `cache`; returns what --verbose said."""
    result = CliRunner().invoke(
        cli,
        [
            "--model",
            str(small_model_dir),
            "--config",
            str(config),
            "--out",
            str(out),
            "--cache",
            str(cache),
            "--verbose",
        ],
    )
    assert result.exit_code == 0, result.output
    return result.stderr


def test_a_change_in_site_shows_after_a_rebuild_from_the_cache_without_running_the_model(small_model_dir, tmp_path):
    config, cache = tmp_path / "book.toml", tmp_path / "cache"
    config.write_text(SITE_TABLE.read_text(encoding="utf-8"), encoding="utf-8")
    assert "model load" in build(small_model_dir, config, tmp_path / "cold", cache)
    said = build(small_model_dir, config, tmp_path / "cached", cache)
    assert "cache: using the stored run" in said and "model load" not in said
    assert snapshot(tmp_path / "cold") == snapshot(tmp_path / "cached"), "a cached build differs from a cold one"

    moved = "https://books.example.net/how-machines-read/chapter-3/"
    config.write_text(
        SITE_TABLE.read_text(encoding="utf-8")
        .replace(TITLE, "Reading machines, figure by figure")
        .replace(CONFIG["site"]["base_url"], moved),
        encoding="utf-8",
    )
    out = tmp_path / "cached"
    said = build(small_model_dir, config, out, cache)
    assert "cache: using the stored run" in said and "model load" not in said
    assert "<h1>Reading machines, figure by figure</h1>" in (out / "index.html").read_text(encoding="utf-8")
    assert page(out, "figure-l.html").meta("og:url") == [moved + "figure-l.html"]
    assert qr_read((out / "img" / "qr-l.png").read_bytes()) == [moved + "figure-l.html"]
    data = {k: v for k, v in snapshot(out).items() if k.startswith("data/")}
    assert data == {k: v for k, v in snapshot(tmp_path / "cold").items() if k.startswith("data/")}


# ---------------------------------------------------------------------------------------------- refused


SITE_LINES = {
    "book_url": 'book_url = "javascript:alert(1)"',
    "introduction": 'introduction = "Start [here](javascript:alert(1))."',
    "licence": 'licence = "[CC BY](JaVaScRiPt:alert(1))"',
    "cite": 'cite = "<javascript:alert(document.cookie)>"',
    "base_url": 'base_url = "https://example.org/\\"onload=\\"alert(1)"',
}


@pytest.mark.parametrize("key", SITE_LINES)
def test_a_javascript_address_or_a_quote_in_an_address_of_site_is_refused_with_one_line_and_exit_code_2(
    small_model_dir, tmp_path, key
):
    config = tmp_path / "chapter.toml"
    config.write_text(f"[site]\n{SITE_LINES[key]}\n\n{SMALL_CONFIG}", encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["--model", str(small_model_dir), "--config", str(config), "--out", str(tmp_path / "site")]
    )
    assert result.exit_code == 2, result.output
    [line] = result.output.splitlines()
    assert line.startswith(f"error: chapter.toml: [site], key '{key}': ") and "allowed: " in line, line
    assert not (tmp_path / "site").exists()
