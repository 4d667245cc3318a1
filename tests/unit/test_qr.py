"""A figure's QR code (sitegen/site/qr.py): each code, SVG and PNG, decodes to its address (read with zbar, which
`setup.sh --test` installs), is sized for print, and is the same bytes in every build."""

from __future__ import annotations

import hashlib
import io
import re
import subprocess
import sys

import pytest
import vl_convert
from PIL import Image
from pyzbar.pyzbar import ZBarSymbol, decode

from sitegen.site.qr import BORDER, MODULE_MM, PNG_DPI, PNG_SCALE, figure_address, qr_png, qr_size_mm, qr_svg

ADDRESSES = [
    "https://example.org/book/figure-l.html",
    "https://example.org/attention/figure-all-heads.html#token=7&view=5-12",
    "http://example.org:8080/a/deep/path/to/the/chapter/site/figure-tired-or-wide.html",
    "https://xn--bcher-kva.example/%C3%BCber/figure-i.html",
]


def read(png: bytes) -> list[str]:
    """The addresses that zbar reads in a PNG, as text."""
    image = Image.open(io.BytesIO(png)).convert("L")
    return [symbol.data.decode("utf-8") for symbol in decode(image, symbols=[ZBarSymbol.QRCODE])]


@pytest.mark.parametrize("address", ADDRESSES)
def test_the_png_decodes_to_its_address(address):
    assert read(qr_png(address)) == [address]


@pytest.mark.parametrize("address", ADDRESSES)
def test_the_svg_drawn_at_300_dpi_decodes_to_its_address(address):
    drawn = vl_convert.svg_to_png(qr_svg(address).decode("utf-8"), scale=1, ppi=PNG_DPI)
    assert read(drawn) == [address]


def test_the_decoder_reads_nothing_in_a_picture_without_a_code():
    blank = io.BytesIO()
    Image.new("L", (246, 246), 255).save(blank, format="PNG")
    assert read(blank.getvalue()) == []


@pytest.mark.parametrize("address", ADDRESSES[:2])
def test_the_same_address_gives_the_same_bytes_in_another_process(address):
    here = hashlib.sha256(qr_svg(address) + qr_png(address)).hexdigest()
    script = (
        "import hashlib, sys; from sitegen.site.qr import qr_png, qr_svg; a = sys.argv[1]; "
        "print(hashlib.sha256(qr_svg(a) + qr_png(a)).hexdigest())"
    )
    there = subprocess.run([sys.executable, "-c", script, address], capture_output=True, text=True, check=True)
    assert there.stdout.strip() == here
    assert qr_png(address) == qr_png(address) and qr_svg(address) == qr_svg(address)


def test_another_address_gives_another_code():
    assert qr_png(ADDRESSES[0]) != qr_png(ADDRESSES[0].replace("-l", "-i"))


@pytest.mark.parametrize(
    "address, modules",
    [
        ("https://example.org/b/" + "x" * 20, 29),  # 42 bytes: version 3 at M
        ("https://example.org/b/" + "x" * 21, 33),  # 43 bytes: version 4 at M (at L, version 3 would hold it)
        ("https://example.org/b/" + "x" * 40, 33),  # 62 bytes: still version 4 at M
    ],
)
def test_the_code_has_error_correction_m_and_a_quiet_zone_of_4_modules(address, modules):
    assert qr_size_mm(address) == (modules + 2 * BORDER) * MODULE_MM
    opened = Image.open(io.BytesIO(qr_png(address)))
    assert "transparency" not in opened.info and "A" not in opened.mode, "a transparent background"
    image = opened.convert("L")
    assert image.size == ((modules + 2 * BORDER) * PNG_SCALE,) * 2
    margin = BORDER * PNG_SCALE
    pixels = image.load()
    edge = [
        pixels[x, y]
        for x in range(image.width)
        for y in range(image.height)
        if min(x, y) < margin or max(x, y) >= image.width - margin
    ]
    assert set(edge) == {255}, "the quiet zone is not white"
    assert pixels[margin, margin] == 0, "the finder pattern does not start right after the quiet zone"
    assert set(image.tobytes()) == {0, 255}, "not black on white"


def test_a_typical_address_prints_at_about_two_centimetres():
    address = figure_address("https://example.org/attention/", "figure-l.html")
    assert 18 <= qr_size_mm(address) <= 21
    svg = qr_svg(address).decode("utf-8")
    size = f"{qr_size_mm(address):g}mm"
    assert re.search(rf'<svg [^>]*width="{size}" height="{size}"', svg), svg[:200]
    png = Image.open(io.BytesIO(qr_png(address)))
    assert round(png.info["dpi"][0]) == PNG_DPI
    assert png.width / PNG_DPI * 25.4 == pytest.approx(qr_size_mm(address), rel=0.02)


def test_the_svg_is_a_file_of_its_own_with_a_white_background_and_the_address_as_its_title():
    svg = qr_svg(ADDRESSES[1]).decode("utf-8")
    assert svg.startswith('<?xml version="1.0" encoding="utf-8"?>\n<svg xmlns="http://www.w3.org/2000/svg"')
    assert "<title>https://example.org/attention/figure-all-heads.html#token=7&amp;view=5-12</title>" in svg
    assert 'fill="#fff"' in svg and 'stroke="#000"' in svg


@pytest.mark.parametrize(
    "base, page, address",
    [
        ("https://example.org/attention/", "figure-l.html", "https://example.org/attention/figure-l.html"),
        ("https://example.org/attention", "figure-l.html", "https://example.org/attention/figure-l.html"),
        (
            "http://example.org/",
            "figure-l.html#token=7&view=5-12",
            "http://example.org/figure-l.html#token=7&view=5-12",
        ),
        ("https://example.org/", "img/qr figure ü.svg", "https://example.org/img/qr%20figure%20%C3%BC.svg"),
    ],
)
def test_a_figures_address_is_the_base_url_and_its_page(base, page, address):
    assert figure_address(base, page) == address


@pytest.mark.parametrize(
    "base, page",
    [
        ("ftp://example.org/", "figure-l.html"),
        ("example.org/", "figure-l.html"),
        ("https://example.org/", "/figure-l.html"),
        ("https://example.org/", "https://evil.example/x.html"),
    ],
)
def test_a_base_url_that_is_not_http_or_a_page_that_is_not_relative_is_refused(base, page):
    with pytest.raises(ValueError):
        figure_address(base, page)


def test_an_empty_address_has_no_code():
    with pytest.raises(ValueError):
        qr_png("")
