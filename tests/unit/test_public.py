"""What the site's public address adds (sitegen/site/public.py): absolute addresses only where [site] gives a
base_url, link previews with short descriptions, and each figure's address under it in figures.txt."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from sitegen.author.book import printed_figures
from figsite.config import SiteInfo
from sitegen.site import public
from sitegen.site.render import chapter_words

BASE = "https://example.org/books/attention/"


@dataclass
class FakePage:
    """What public.py reads of a render.Page."""

    label: str
    text_figure: str
    address: str | None = None
    qr: object = None

    @property
    def file(self) -> str:
        return f"figure-{self.label}.html"


def test_without_a_base_url_no_page_has_an_address_a_preview_or_a_qr_code():
    site = SiteInfo()
    address = public.address(site, "figure-l.html")
    pages = [FakePage("l", "(l) A figure\n  one\n", address, public.qr_code("l", address))]
    assert address is None
    assert public.link_preview(site, "figure-l.html", "(l) A figure", "Words.", "img/figure-l.png") is None
    assert (pages[0].address, pages[0].qr) == (None, None)
    assert public.figures_text(pages) == "(l) A figure\n  one\n"


def test_with_a_base_url_each_page_has_its_absolute_address_and_the_index_is_the_sites_own_address():
    site = SiteInfo(base_url=BASE)
    assert public.address(site, "figure-l.html") == BASE + "figure-l.html"
    assert public.address(site, "index.html") == BASE
    preview = public.link_preview(site, "about.html", "About", "Words.", "img/figure-l.png")
    assert preview == public.LinkPreview(
        BASE + "about.html", "About", "Words.", BASE + "img/figure-l.png", SiteInfo().title
    )


def test_a_figure_gets_its_qr_code_file_and_printed_width_beside_its_address():
    address = public.address(SiteInfo(base_url=BASE), "figure-all-heads.html")
    qr = public.qr_code("all-heads", address)
    assert address == BASE + "figure-all-heads.html"
    assert qr.file == "img/qr-all-heads" and 18 <= qr.size_mm <= 30


@pytest.mark.parametrize(
    "text, said",
    [
        ("Short words.", "Short words."),
        ("Lines\n  joined   into one.", "Lines joined into one."),
        ("word " * 60, ("word " * 40).strip() + "…"),
        ("A sentence that ends, " + "x" * 300, "A sentence that ends…"),
    ],
)
def test_a_description_is_one_line_cut_after_a_word_at_200_characters(text, said):
    assert public.shortened(text) == said
    assert len(public.shortened(text)) <= public.DESCRIPTION_LENGTH + 1


def test_figures_txt_puts_each_address_under_its_figure_where_check_book_no_longer_reads_the_figure():
    pages = [
        FakePage("l", "Figure 3.1 A figure\n  one\n\n  two\n", BASE + "figure-l.html"),
        FakePage("i", "(i) Another\n  three\n", BASE + "figure-i.html"),
    ]
    text = public.figures_text(pages)
    assert text == (
        f"Figure 3.1 A figure\n  one\n\n  two\nInteractive version: {BASE}figure-l.html\n\n"
        f"(i) Another\n  three\nInteractive version: {BASE}figure-i.html\n"
    )
    found = printed_figures(text)
    assert [(f.name, f.lines) for f in found] == [
        ("Figure 3.1", ["Figure 3.1 A figure", "  one", "", "  two"]),
        ("(i)", ["(i) Another", "  three"]),
    ]


@pytest.mark.parametrize(
    "chapter, said",
    [
        ("3", "chapter 3"),
        ("12b", "chapter 12b"),
        ("IV", "chapter IV"),
        ("A", "chapter A"),
        ("A.2", "chapter A.2"),
        ("Attention and layers", "the chapter “Attention and layers”"),
        ("Appendix", "the chapter “Appendix”"),
    ],
)
def test_the_index_says_a_chapters_number_as_chapter_n_and_its_title_in_quotes(chapter, said):
    assert chapter_words(chapter) == said
