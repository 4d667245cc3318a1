"""The print edition ([print]): each figure as a vector PDF and SVG under print/, at the column's width, in the
config's font embedded, its words extractable, byte-identical and kept in the cache; and no print/ folder at all
for a config without the table. The PDFs are read with poppler's own tools (pdffonts, pdfinfo, pdftotext), which
the build does not use."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import snapshot

from build import cli

DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
SERIF = DEJAVU / "DejaVuSerif.ttf"  # Debian's fonts-dejavu-core (setup.sh --test installs it where missing)

# Texts and figures unlike the chapter's: a text of its own, a printed view that is not the first the reader picks,
# a book number, and a font that is not the default one.
FIGURES = """\
[[figure]]
kind = "attention"
label = "owls"
number = "7.2"
text = "Bright owls hunt quietly over frozen meadows"
focus = 5
views = [[1, 2], [3, 1]]
printed_views = [[3, 1]]

[[figure]]
kind = "readout"
label = "capital"
text = "Tokyo is the capital of"
target = " Japan"
"""
PRINT = """
[print]
width_mm = 90
font = "fonts/Book.ttf"
font_size_pt = 7
captions = true
"""
WIDTH_PT = 90 / 25.4 * 72  # the column, in the unit of a PDF page


def tool(*args: str) -> str:
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def build(small_model_dir: Path, folder: Path, config_text: str, out: str = "site", *args: str) -> Path:
    config = folder / "book.toml"
    config.write_text(config_text, encoding="utf-8")
    result = CliRunner().invoke(
        cli,
        [
            "--model",
            str(small_model_dir),
            "--config",
            str(config),
            "--out",
            str(folder / out),
            "--cache",
            str(folder / "cache"),
            "--quiet",
            *args,
        ],
    )
    assert result.exit_code == 0, result.output
    return folder / out


@pytest.fixture(scope="module")
def printed(small_model_dir, tmp_path_factory):
    """A site built with [print]: its folder, and the folder of its config (the font is beside it)."""
    folder = tmp_path_factory.mktemp("print-edition")
    (folder / "fonts").mkdir()
    shutil.copyfile(SERIF, folder / "fonts" / "Book.ttf")
    return build(small_model_dir, folder, FIGURES + PRINT), folder


def test_a_config_without_a_print_table_writes_no_print_folder(small_model_dir, tmp_path):
    site = build(small_model_dir, tmp_path, FIGURES)
    assert (site / "index.html").is_file()
    assert not (site / "print").exists()


def test_every_figure_has_a_pdf_and_an_svg_in_print(printed):
    site, _ = printed
    assert sorted(p.name for p in (site / "print").iterdir()) == [
        "figure-capital.pdf",
        "figure-capital.svg",
        "figure-owls.pdf",
        "figure-owls.svg",
        "figures.pdf",
    ]
    for label in ("owls", "capital"):
        assert (site / "print" / f"figure-{label}.pdf").read_bytes().startswith(b"%PDF-")
        assert b"<svg" in (site / "print" / f"figure-{label}.svg").read_bytes()[:200]


def test_the_about_page_lists_every_print_file_with_its_checksum_and_a_site_without_print_lists_none(
    printed, small_model_dir, tmp_path
):
    site, _ = printed
    about = (site / "about.html").read_text(encoding="utf-8")
    listed = re.findall(
        r'<a href="(print/[^"]+)" download>[^<]+</a> \(SHA-256 <code class="checksum">([0-9a-f]{64})', about
    )
    assert [path for path, _ in listed] == [
        "print/figures.pdf",
        "print/figure-owls.pdf",
        "print/figure-owls.svg",
        "print/figure-capital.pdf",
        "print/figure-capital.svg",
    ]
    for path, checksum in listed:
        assert hashlib.sha256((site / path).read_bytes()).hexdigest() == checksum, path
    plain = build(small_model_dir, tmp_path, FIGURES)
    assert "print/" not in (plain / "about.html").read_text(encoding="utf-8")


def test_a_chart_as_wide_as_its_column_is_printed_at_the_column_width(printed):
    site, _ = printed
    size = re.search(r"Page size:\s+([\d.]+) x ([\d.]+) pts", tool("pdfinfo", str(site / "print/figure-owls.pdf")))
    assert float(size.group(1)) == pytest.approx(WIDTH_PT, abs=0.02)
    svg = (site / "print/figure-owls.svg").read_text(encoding="utf-8")
    assert re.search(r'<svg[^>]* width="90.00mm"', svg)
    for label in ("owls", "capital"):  # no figure is wider than the column
        info = tool("pdfinfo", str(site / f"print/figure-{label}.pdf"))
        assert float(re.search(r"Page size:\s+([\d.]+)", info).group(1)) <= WIDTH_PT + 0.02


def test_the_configs_font_is_embedded_and_no_other(printed):
    site, _ = printed
    for label in ("owls", "capital"):
        rows = tool("pdffonts", str(site / f"print/figure-{label}.pdf")).splitlines()[2:]
        assert rows, "no font in the PDF"
        for row in rows:
            name, emb = row.split()[0], row.split()[-5]
            assert name.split("+")[-1] == "DejaVuSerif", row  # the config's font, subset
            assert emb == "yes", row


def test_every_token_of_the_text_and_the_caption_can_be_read_out_of_the_pdf(printed):
    site, _ = printed
    # -raw: in the order the words are drawn (the tokens' labels are turned, one glyph placed at a time)
    text = re.sub(r"\s+", "", tool("pdftotext", "-raw", str(site / "print/figure-owls.pdf"), "-"))
    tokens = json.loads(next((site / "data").glob("bright-owls*.json")).read_text(encoding="utf-8"))["tokens"]
    shown = [("_" + t["text"][1:]) if t["text"].startswith(" ") else t["text"] for t in tokens]
    assert len(shown) >= 7
    for token in shown:
        assert token in text, f"{token!r} not in the PDF's text"
    # captions = true: the number and the title as the book sets them; the printed view's state
    assert "Figure7.2Attention:whichearliertokensdoesonetokenlookat?" in text
    readout = tool("pdftotext", str(site / "print/figure-capital.pdf"), "-")
    assert "_Japan" in readout


def test_the_pdfs_carry_no_date_and_two_builds_write_the_same_bytes(printed, small_model_dir, tmp_path):
    site, folder = printed
    for pdf in (site / "print").glob("*.pdf"):
        raw = pdf.read_bytes()
        assert b"/CreationDate" not in raw and b"/ModDate" not in raw
    (tmp_path / "fonts").mkdir()
    shutil.copyfile(SERIF, tmp_path / "fonts" / "Book.ttf")
    again = build(small_model_dir, tmp_path, FIGURES + PRINT, "site", "--no-cache")
    assert snapshot(again / "print") == snapshot(site / "print")


RESOURCE_KINDS = ("/Font", "/XObject", "/ExtGState", "/Pattern", "/Shading", "/ColorSpace", "/Properties")


def resource_tables(pdf: Path) -> list[tuple[str, list[str]]]:
    """Every resource table of a PDF (the fonts, forms, graphic states, patterns... that a page, a form or a
    pattern names), each as (its kind, its names in the order the file holds them), read with pypdf's parser: every
    object of the file that has /Resources, whatever svg2pdf's layout of the lines."""
    from pypdf import PdfReader
    from pypdf.generic import DictionaryObject

    reader = PdfReader(pdf)
    tables = []
    for number in sorted({number for numbers in reader.xref.values() for number in numbers}):
        found = reader.get_object(number)
        resources = found.get("/Resources") if isinstance(found, DictionaryObject) else None
        for kind, table in resources.get_object().items() if resources is not None else []:
            if kind in RESOURCE_KINDS:
                tables.append((kind, list(table.get_object().keys())))
    return tables


def test_every_resource_table_of_every_pdf_is_in_the_order_of_its_names(printed):
    """svg2pdf writes a resource table's entries in an order that changes from run to run; the build puts them in
    one (sitegen.site.printing.canonical_pdf). Checked here directly, not only by two builds that may happen to
    agree: every table in the order of its names, in every PDF, with tables of several entries among them."""
    site, _ = printed
    pdfs = sorted((site / "print").glob("*.pdf"))
    assert len(pdfs) == 3  # two figures and the contact sheet
    several = 0
    for pdf in pdfs:
        for kind, names in resource_tables(pdf):
            assert names == sorted(names), (pdf.name, kind, names)
            several += len(names) > 1
    assert several >= len(pdfs), "too few tables of several entries for their order to tell"


def test_a_pdf_whose_tables_svg2pdf_wrote_in_another_order_is_written_as_the_build_wrote_it(printed, tmp_path):
    """The same check without waiting for svg2pdf to change its order: the figure's PDF with every table's entries
    reversed (one a line, as svg2pdf writes them) is out of order, and canonical_pdf gives back the very bytes the
    build wrote."""
    from sitegen.site.printing import canonical_pdf

    site, _ = printed
    written = (site / "print/figure-owls.pdf").read_bytes()
    lines, reversed_, run = written.split(b"\n"), [], []
    for line in lines + [b""]:
        if re.fullmatch(rb" +/\w+ \d+ 0 R", line):
            run.append(line)
            continue
        reversed_ += run[::-1] + [line]
        run = []
    shuffled = tmp_path / "shuffled.pdf"
    shuffled.write_bytes(b"\n".join(reversed_[:-1]))
    assert any(names != sorted(names) for _, names in resource_tables(shuffled))
    assert canonical_pdf(shuffled.read_bytes()) == written


def test_a_rebuild_takes_the_print_drawings_from_the_cache(printed, small_model_dir, monkeypatch):
    site, folder = printed
    before = snapshot(site / "print")
    from sitegen.site.drawing import Drawer

    def refuse(*args, **kwargs):
        raise AssertionError("a print drawing was asked of vl-convert again")

    monkeypatch.setattr(Drawer, "printed", refuse)
    build(small_model_dir, folder, FIGURES + PRINT)
    assert snapshot(site / "print") == before


def test_a_wider_column_draws_a_wider_page(small_model_dir, tmp_path):
    site = build(small_model_dir, tmp_path, FIGURES + "\n[print]\nwidth_mm = 150\n")
    size = re.search(r"Page size:\s+([\d.]+)", tool("pdfinfo", str(site / "print/figure-owls.pdf")))
    assert float(size.group(1)) == pytest.approx(150 / 25.4 * 72, abs=0.02)
    rows = tool("pdffonts", str(site / "print/figure-owls.pdf")).splitlines()[2:]
    assert all(row.split()[0].split("+")[-1] == "DejaVuSans" for row in rows)  # the default font
    text = tool("pdftotext", str(site / "print/figure-owls.pdf"), "-")
    assert "Figure 7.2" not in text  # no caption unless asked


def test_the_attention_figure_is_printed_on_its_printed_view_not_the_one_it_opens_on(printed):
    site, _ = printed
    data = json.loads(next((site / "data").glob("bright-owls*.json")).read_text(encoding="utf-8"))
    focus = 5 - 1

    def percents(layer: int, head: int) -> list[int]:  # the shares from the focus, as the bars are labelled
        return [round(share * 100) for share in data["attention"][layer - 1][head - 1][focus]]

    svg = (site / "print/figure-owls.svg").read_text(encoding="utf-8")
    drawn = [int(n) for n in re.findall(r'aria-label="[^"]*: (\d+)% of the attention"', svg)]
    assert drawn == percents(3, 1)  # printed_views = [[3, 1]]
    assert percents(3, 1) != percents(1, 2)  # the view it opens on draws other bars: the test could fail


def test_the_contact_sheet_has_every_figure_one_a_page_with_its_number_label_and_data_checksum(printed):
    site, _ = printed
    sheet = site / "print" / "figures.pdf"
    info = tool("pdfinfo", str(sheet))
    assert re.search(r"Pages:\s+2\n", info)
    assert "CreationDate" not in info and "ModDate" not in info
    for number, (label, heading) in enumerate([("owls", "Figure 7.2 Attention"), ("capital", "(capital) ")], start=1):
        words = tool("pdftotext", "-raw", "-f", str(number), "-l", str(number), str(sheet), "-")
        checksum = hashlib.sha256((site / "downloads" / f"figure-{label}.json").read_bytes()).hexdigest()
        assert heading in words and f"label: {label}" in words and checksum in words, words
    rows = tool("pdffonts", str(sheet)).splitlines()[2:]
    assert rows and all(row.split()[0].split("+")[-1] == "DejaVuSerif" and row.split()[-5] == "yes" for row in rows)


# In greys ([print] greyscale = true) -----------------------------------------------------------------------------

FIFTH = 255 / 5  # two meanings' greys in one figure: a fifth of the way from black to white apart, or more


@pytest.fixture(scope="module")
def greyed(small_model_dir, tmp_path_factory):
    folder = tmp_path_factory.mktemp("print-in-greys")
    return build(small_model_dir, folder, FIGURES + "\n[print]\ngreyscale = true\n"), folder


def pixels(pdf: Path, folder: Path, grey: bool = True) -> list:
    """The PDF's page drawn by poppler at 150 dpi: each pixel's grey level (0 black, 255 white), or its (r, g, b)."""
    from PIL import Image

    stem = folder / (pdf.stem + ("-grey" if grey else "-colour"))
    tool("pdftoppm", "-r", "150", "-gray" if grey else "-png", "-singlefile", str(pdf), str(stem))
    with Image.open(f"{stem}.{'pgm' if grey else 'png'}") as image:
        return list(image.convert("L" if grey else "RGB").get_flattened_data())


@pytest.mark.parametrize("label", ["owls", "capital"])
def test_in_greys_the_meanings_a_figure_draws_are_apart_in_black_ink(greyed, label, tmp_path):
    from figures.toolkit.colours import GREYS

    site, _ = greyed
    # the meanings with a hue the figure's chart draws on its page (its spec as the site offers it)
    spec = (site / "downloads" / f"figure-{label}.vega-lite.json").read_text(encoding="utf-8")
    meanings = sorted({found.lower() for found in re.findall(r"#[0-9A-Fa-f]{6}\b", spec)} & set(GREYS))
    assert len(meanings) >= 2, meanings
    levels = {colour: int(GREYS[colour][1:3], 16) for colour in meanings}
    drawn = pixels(site / "print" / f"figure-{label}.pdf", tmp_path)
    for colour, level in levels.items():
        assert drawn.count(level) >= 50, f"{colour}'s grey {level} is not in the drawing"
    for a in meanings:
        for b in meanings:
            assert a == b or abs(levels[a] - levels[b]) >= FIFTH, (a, b, levels)
    colour = pixels(site / "print" / f"figure-{label}.pdf", tmp_path, grey=False)
    assert all(max(rgb) - min(rgb) <= 2 for rgb in colour), "a pixel with a hue"


def test_in_colour_the_same_figure_has_hues(printed, tmp_path):
    site, _ = printed
    colour = pixels(site / "print" / "figure-owls.pdf", tmp_path, grey=False)
    assert any(max(rgb) - min(rgb) > 50 for rgb in colour)  # the greys test above could fail


# Every kind ---------------------------------------------------------------------------------------------------------

EVERY_KIND = Path(__file__).resolve().parents[1] / "every_kind.toml"


@pytest.fixture(scope="module")
def every_kind_in_greys(small_model_dir, tmp_path_factory):
    """tests/every_kind.toml (every registered kind) built with [print] in greys: its site, and its figures' labels."""
    folder = tmp_path_factory.mktemp("print-every-kind")
    text = EVERY_KIND.read_text(encoding="utf-8")
    labels = re.findall(r'^label = "([^"]+)"', text, flags=re.MULTILINE)
    return build(small_model_dir, folder, text + "\n[print]\ngreyscale = true\n"), labels


def test_every_kinds_print_drawing_is_all_vectors_with_no_picture_in_it(every_kind_in_greys):
    site, labels = every_kind_in_greys
    for label in labels:
        assert "<image" not in (site / "print" / f"figure-{label}.svg").read_text(encoding="utf-8"), label
        listed = tool("pdfimages", "-list", str(site / "print" / f"figure-{label}.pdf")).splitlines()
        assert len(listed) == 2, f"{label}: {listed[2:]}"  # pdfimages' two header lines, and no image


def test_in_greys_no_figure_of_any_kind_prints_a_hue(every_kind_in_greys, tmp_path):
    site, labels = every_kind_in_greys
    for label in labels:
        colour = pixels(site / "print" / f"figure-{label}.pdf", tmp_path, grey=False)
        assert all(max(rgb) - min(rgb) <= 2 for rgb in colour), f"{label}: a pixel with a hue"


def test_in_greys_the_meanings_every_kind_fills_side_by_side_are_a_fifth_apart(every_kind_in_greys, tmp_path):
    """Every kind, every pair of meanings its print drawing fills marks with (bars, cells, blocks, swatches: an
    outline around the chosen mark is told apart by its line, not its grey)."""
    from figures.toolkit.colours import GREYS

    site, labels = every_kind_in_greys
    greys = {grey: colour for colour, grey in GREYS.items()}
    pairs = 0
    for label in labels:
        svg = (site / "print" / f"figure-{label}.svg").read_text(encoding="utf-8").lower()
        filled = sorted({greys[grey] for grey in re.findall(r'<path [^>]*fill="(#[0-9a-f]{6})"', svg) if grey in greys})
        levels = {colour: int(GREYS[colour][1:3], 16) for colour in filled}
        drawn = pixels(site / "print" / f"figure-{label}.pdf", tmp_path)
        for colour, level in levels.items():
            assert drawn.count(level) >= 20, f"{label}: {colour}'s grey {level} is not in the drawing"
        for i, a in enumerate(filled):
            for b in filled[i + 1 :]:
                assert abs(levels[a] - levels[b]) >= FIFTH, (label, a, b, levels)
                pairs += 1
    assert pairs >= len(labels) // 2, f"only {pairs} pairs: too few for this test to say much"


def test_in_greys_the_heads_grid_hatches_what_is_out_of_reach_and_its_key_says_so(every_kind_in_greys):
    site, _ = every_kind_in_greys
    svg = (site / "print" / "figure-grid.svg").read_text(encoding="utf-8")
    assert 'fill="url(#out-of-reach)"' in svg and "hatched: out of reach" in svg and "grey: out of reach" not in svg


def test_the_contact_sheet_of_every_kind_has_a_page_for_each_figure(every_kind_in_greys):
    site, labels = every_kind_in_greys
    info = tool("pdfinfo", str(site / "print" / "figures.pdf"))
    assert re.search(r"^Pages:\s+(\d+)$", info, flags=re.MULTILINE).group(1) == str(len(labels))
    words = tool("pdftotext", "-layout", str(site / "print" / "figures.pdf"), "-")
    assert all(f"label: {label} " in words for label in labels)
