"""Names in words: no page shows a reader a config label. A figure is "Figure 3.4" where the config numbers it,
else its title alone; the label names its files and address only, and figures.txt (the book's) keeps the label
line the book prints. The index lists the numbered figures in the book's order under "In the book", then the rest
under "Explore further"."""

from __future__ import annotations

import html
import re
from types import SimpleNamespace

import pytest

from conftest import CONFIG_FIGURES, SITE_TABLE
from sitegen.site.index_page import index_parts, number_order

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

TABLE_FIGURES = tomllib.loads(SITE_TABLE.read_text(encoding="utf-8"))["figure"]


def labels_shown(site, labels: list[str]) -> dict[str, list[str]]:
    """Page -> each "(label)" of `labels` that the page holds anywhere a reader may meet it: its text, its <title>,
    its attributes (alt, aria-label, a link preview's content) and the charts' data, all unescaped."""
    found = {}
    for path in sorted(site.glob("*.html")):
        page = html.unescape(path.read_text(encoding="utf-8"))
        shown = [f"({label})" for label in labels if f"({label})" in page]
        if shown:
            found[path.name] = shown
    return found


def test_no_page_of_the_chapters_site_shows_a_config_label(random_site):
    labels = [figure["label"] for figure in CONFIG_FIGURES]
    assert len(list(random_site.glob("*.html"))) > len(labels) * 2  # figure and bare pages, index, about, texts
    assert labels_shown(random_site, labels) == {}
    # The book's own text keeps the label lines it prints, "(l) Attention: ...": --check-book reads them.
    printed = (random_site / "figures.txt").read_text(encoding="utf-8")
    assert all(re.search(rf"^\({re.escape(label)}\) \S", printed, re.M) for label in labels)


def test_no_page_of_a_site_that_numbers_its_figures_shows_a_config_label(site_table_build):
    labels = [figure["label"] for figure in TABLE_FIGURES]
    assert labels_shown(site_table_build, labels) == {}
    unnumbered = [figure["label"] for figure in TABLE_FIGURES if "number" not in figure]
    assert unnumbered, "tests/site_table.toml should keep a figure without a number"
    for label in unnumbered:
        own = (site_table_build / f"figure-{label}.html").read_text(encoding="utf-8")
        heading = re.search(r'<h1 class="figure-title">(.*?)</h1>', own).group(1)
        assert heading and "Figure" not in heading and "(" not in heading, heading


def listed(index: str) -> tuple[list[str], list[str]]:
    """The labels of the figures the index lists under "In the book" and under "Explore further"."""
    book = index.split('<h2 id="part-book">')[1].split("</section>")[0]
    explore = index.split('<h2 id="part-explore">')[1].split("</section>")[0]
    return tuple(re.findall(r'<a href="figure-([^"]+)\.html">', part) for part in (book, explore))


def test_the_index_lists_the_chapters_figures_in_the_book_and_the_others_to_explore_each_in_config_order(random_site):
    index = (random_site / "index.html").read_text(encoding="utf-8")
    headings = re.findall(r"<h2 id=\"part-(book|explore)\">([^<]*)</h2>", index)
    assert headings == [("book", "In the book"), ("explore", "Explore further")]
    book, explore = listed(index)
    assert book and explore
    labels = [figure["label"] for figure in CONFIG_FIGURES]
    assert book + explore == labels  # chapter.toml numbers none: config order, the chapter's kinds first


def test_the_index_of_a_site_that_numbers_its_figures_lists_them_in_the_books_order(site_table_build):
    index = (site_table_build / "index.html").read_text(encoding="utf-8")
    book, explore = listed(index)
    numbered = sorted(
        (figure for figure in TABLE_FIGURES if "number" in figure),
        key=lambda figure: [int(group) for group in figure["number"].split(".")],
    )
    assert book == [figure["label"] for figure in numbered]
    assert explore == [figure["label"] for figure in TABLE_FIGURES if "number" not in figure]


def fake(label: str, number: str | None = None, explore: bool = False):
    return SimpleNamespace(label=label, number=number, explore=explore)


def test_numbered_figures_come_in_the_books_order_with_4_10_after_4_9_and_the_rest_in_config_order():
    pages = [
        fake("x", explore=True),
        fake("a", "4.10"),
        fake("b", "A.1"),
        fake("c", "4.2"),
        fake("d"),
        fake("e", "4.1"),
        fake("f", "12.1"),
        fake("g", "4.9"),
        fake("h", "4.2b"),
        fake("i", "4"),
    ]
    parts = index_parts(pages)
    assert [(part, heading) for part, heading, _ in parts] == [("book", "In the book"), ("explore", "Explore further")]
    assert [page.number for page in parts[0][2]] == ["4", "4.1", "4.2", "4.2b", "4.9", "4.10", "12.1", "A.1"]
    assert [page.label for page in parts[1][2]] == ["x", "d"]  # not numbered: config order, whatever their kind


def test_without_numbers_the_chapters_own_kinds_are_in_the_book_and_an_empty_part_is_left_out():
    pages = [fake("x", explore=True), fake("l"), fake("y", explore=True), fake("i")]
    assert [(part, [page.label for page in listed]) for part, _, listed in index_parts(pages)] == [
        ("book", ["l", "i"]),
        ("explore", ["x", "y"]),
    ]
    assert [part for part, _, _ in index_parts([fake("x", explore=True)])] == ["explore"]


@pytest.mark.parametrize(
    "earlier, later",
    [("4.9", "4.10"), ("4.1", "4.2"), ("9.1", "10.1"), ("12", "A"), ("A.2", "A.10"), ("3.4", "3.4b"), ("3", "3.1")],
)
def test_a_figure_number_sorts_group_by_group_as_numbers(earlier, later):
    assert number_order(earlier) < number_order(later)
