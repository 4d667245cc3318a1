"""The config's [site] table and the figures' book numbers (figsite/config.py): every key read, the defaults of
a config without them, hostile values refused or made inert, and a one-line error for each bad value that names
[site], the key, what was wrong and what is allowed."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import jinja2
import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from conftest import read_doc
from figsite.config import (
    DEFAULT_INTRODUCTION,
    DEFAULT_TITLE,
    SITE_KEYS,
    SiteInfo,
    figure_name,
    link_allowed,
    load_config,
    read_config,
    read_site,
    render_markdown,
)
from figsite.errors import BuildError
from figures import KINDS

TESTS = Path(__file__).resolve().parents[1]
SITE_TABLE = TESTS / "site_table.toml"
CHAPTER = TESTS.parent / "chapter.toml"
FIGURE = '[[figure]]\nkind = "numbers"\nlabel = "heads"\n'


def load_site(path):
    """The [site] of the config at `path`, read as the build reads it (read_config)."""
    return read_config(path, KINDS).site


def config(tmp_path: Path, text: str) -> Path:
    """A config file holding `text` (TOML)."""
    path = tmp_path / "book.toml"
    path.write_text(text, encoding="utf-8")
    return path


def site_error(table: dict) -> str:
    """The one-line message that reading `table` as [site] fails with."""
    with pytest.raises(BuildError) as caught:
        read_site(table, "book.toml")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("book.toml: [site]") and "; allowed: " in message, message
    return message


# Defaults and a full table -------------------------------------------------------------------------------------


def test_a_config_without_a_site_table_gets_the_title_the_pages_had_and_nothing_else_to_show():
    site = load_site(CHAPTER)
    assert site == SiteInfo()
    assert site.title == DEFAULT_TITLE == "Attention and layers: the figures"
    assert site.introduction == DEFAULT_INTRODUCTION
    assert (site.book, site.chapter, site.author, site.book_url, site.licence, site.cite, site.base_url) == (None,) * 7
    assert site.licence_html is None and site.cite_html is None


def test_the_default_introduction_is_the_html_that_markdown_would_make_of_it():
    assert SiteInfo().introduction_html == render_markdown(DEFAULT_INTRODUCTION)[0]


def test_every_key_of_a_full_site_table_is_read_as_written():
    site = load_site(SITE_TABLE)
    assert site.title == "Transformers, figure by figure"
    assert site.book == "How Machines Read"
    assert site.chapter == "3"  # a number in the config is kept as text
    assert site.author == "Ada Example"
    assert site.introduction.startswith(
        "Computed from one run of the model over the chapter's texts, with *How Machines Read*"
    )
    assert site.book_url == "https://example.org/how-machines-read?edition=2#chapter-3"
    assert site.licence.startswith("Text and figures under [CC BY 4.0]")
    assert site.cite.startswith("Ada Example, *How Machines Read*")
    assert site.base_url == "https://example.org/attention/"  # normalised to end with '/'
    defaults = SiteInfo()
    assert all(getattr(site, key) != getattr(defaults, key) for key in SITE_KEYS), "a key kept its default"


def test_the_full_tables_markdown_becomes_paragraphs_emphasis_lists_and_links():
    site = load_site(SITE_TABLE)
    html = site.introduction_html
    assert html.count("<p>") == 2 and "<em>How Machines Read</em>" in html
    assert "<ul>\n<li>Each page opens" in html
    assert '<a href="mailto:ada@example.org">the author</a>' in html and '<a href="figure-l.html">' in html
    assert site.licence_html == (
        'Text and figures under <a href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a>'
    )
    assert site.cite_html.startswith("Ada Example, <em>How Machines Read</em>") and "<p>" not in site.cite_html


def test_the_readmes_example_site_table_is_accepted_as_it_stands():
    page = read_doc("config.md")
    example = page[page.index("## The `[site]` table") :].split("```toml\n", 1)[1].split("```", 1)[0]
    site = read_site(tomllib.loads(example)["site"], "docs/config.md")
    assert site.base_url == "https://example.org/attention/" and site.chapter == "3"


def test_load_config_accepts_the_site_table_and_still_returns_the_figures_alone():
    figures = load_config(SITE_TABLE, KINDS)
    assert [fig.label for fig in figures] == ["l", "i", "f", "heads"]


@pytest.mark.parametrize(
    "written, kept",
    [
        ("https://example.org/attention", "https://example.org/attention/"),
        ("https://example.org/attention/", "https://example.org/attention/"),
        ("http://example.org", "http://example.org/"),
        ("  https://EXAMPLE.org:8080/a/b  ", "https://EXAMPLE.org:8080/a/b/"),
    ],
)
def test_a_base_url_is_kept_ending_with_one_slash(written, kept):
    assert read_site({"base_url": written}, "book.toml").base_url == kept


# One-line errors ----------------------------------------------------------------------------------------------


def test_an_unknown_key_is_refused_with_the_keys_allowed_and_a_near_one():
    message = site_error({"license": "CC BY"})
    assert "key 'license'" in message and "did you mean 'licence'?" in message
    assert all(key in message.split("allowed: ")[1] for key in SITE_KEYS)


@pytest.mark.parametrize(
    "key, value, shown",
    [
        ("title", 3, "3 is not text"),
        ("book", True, "true is not text"),
        ("chapter", [3], "[3] is not text or a number"),
        ("chapter", -1, "-1 is not text or a number"),
        ("author", {"name": "x"}, "a table is not text"),
        ("introduction", 1.5, "1.5 is not text"),
        ("book_url", ["https://x.org"], "is not text"),
        ("licence", 4, "4 is not text"),
        ("cite", False, "false is not text"),
        ("base_url", 8080, "8080 is not text"),
    ],
)
def test_a_value_of_the_wrong_type_is_refused_naming_the_key(key, value, shown):
    message = site_error({key: value})
    assert f"key '{key}': " in message and shown in message
    assert SITE_KEYS[key].allowed in message


@pytest.mark.parametrize("key", sorted(SITE_KEYS))
def test_an_empty_value_is_refused_rather_than_shown_as_nothing(key):
    assert "it is empty" in site_error({key: "   "})


@pytest.mark.parametrize("key", ["title", "book", "chapter", "author", "licence", "cite", "book_url", "base_url"])
def test_a_line_break_in_a_one_line_key_is_refused(key):
    assert site_error({key: "https://example.org/a\nb"})


@pytest.mark.parametrize("control", ["\x00", "\x1b", "\x7f", "\x85", "\x0c"])
def test_a_control_character_is_refused_even_where_line_breaks_are_allowed(control):
    assert "control character" in site_error({"introduction": f"One paragraph.\n\nAnother{control}one."})
    allowed = read_site({"introduction": "One\tparagraph.\r\n\r\nAnother."}, "book.toml")
    assert allowed.introduction_html.count("<p>") == 2


def test_a_value_past_its_limit_is_refused_with_its_length():
    assert "201 characters long" in site_error({"title": "x" * 201})
    assert "5,001 characters long" in site_error({"introduction": "x" * 5001})


@pytest.mark.parametrize("key", ["base_url", "book_url"])
@pytest.mark.parametrize(
    "url, problem",
    [
        ("javascript:alert(1)", "not an http:// or https:// address"),
        ("JavaScript:alert(document.cookie)//https://x.org", "not an http:// or https:// address"),
        ("data:text/html,<script>alert(1)</script>", "a space, a quote"),
        ("ftp://example.org/book/", "not an http:// or https:// address"),
        ("example.org/book", "not an http:// or https:// address"),
        ("//example.org/book", "not an http:// or https:// address"),
        ("https://", "has no host"),
        ("http:example.org", "has no host"),
        ('https://example.org/"><script>alert(1)</script>', "a space, a quote"),
        ("https://example.org/' onmouseover='alert(1)", "a space, a quote"),
        ("https://example.org/a b", "a space, a quote"),
        ("https://example.org:port/", "is not an address"),
    ],
)
def test_an_address_that_is_not_http_or_https_is_refused(key, url, problem):
    message = site_error({key: url})
    assert f"key '{key}'" in message and problem in message


@pytest.mark.parametrize("url", ["https://example.org/?edition=2", "https://example.org/#chapter-3"])
def test_the_base_url_may_not_have_a_query_or_fragment_that_the_pages_names_would_follow(url):
    assert "has a '?' or '#'" in site_error({"base_url": url})
    assert read_site({"book_url": url}, "book.toml").book_url == url  # the book's link may


@pytest.mark.parametrize("text", ["site = 'My book'\n" + FIGURE, FIGURE + "[[site]]\ntitle = 'a'\n"])
def test_a_site_that_is_not_one_table_is_refused(tmp_path, text):
    with pytest.raises(BuildError, match=r"^book.toml: \[site\] is not a table; allowed: one \[site\] table"):
        load_site(config(tmp_path, text))


def test_load_config_refuses_a_bad_site_table_and_other_top_level_keys_as_before(tmp_path):
    with pytest.raises(BuildError, match=r"\[site\], key 'base_url': 'ftp://x.org' is not an http"):
        load_config(config(tmp_path, "[site]\nbase_url = 'ftp://x.org'\n" + FIGURE), KINDS)
    with pytest.raises(
        BuildError,
        match=r"unknown key 'sight' at the top level; allowed: \[\[figure\]\] tables, one \[site\] "
        r"table, one \[print\] table and one \[notebooks\] table",
    ):
        load_config(config(tmp_path, "[sight]\ntitle = 'x'\n" + FIGURE), KINDS)
    with pytest.raises(BuildError, match=r"unknown key 'title' at the top level \(a key of \[site\]: write it under"):
        load_config(config(tmp_path, "title = 'x'\n" + FIGURE), KINDS)


# Hostile values: refused or inert -----------------------------------------------------------------------------

ALLOWED_TAGS = {"p", "em", "strong", "a", "ul", "ol", "li", "code", "br"}


class Tags(HTMLParser):
    """Every start tag of an HTML fragment with its attributes."""

    def __init__(self, html: str):
        super().__init__()
        self.seen: list[tuple[str, dict]] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.seen.append((tag, dict(attrs)))


def assert_safe(html: str) -> None:
    """Only the tags of the Markdown subset, links with nothing but an allowed href, no script anywhere."""
    for tag, attrs in Tags(html).seen:
        assert tag in ALLOWED_TAGS, f"<{tag}> in {html!r}"
        assert set(attrs) <= ({"href"} if tag == "a" else set()), f"<{tag} {attrs}> in {html!r}"
        assert tag != "a" or link_allowed(attrs["href"]), attrs
    assert "<script" not in html.lower()  # as text, escaped, '&lt;script' is inert


HOSTILE_TEXT = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    '<a href="javascript:alert(1)">click</a>',
    "Click <b onmouseover='alert(1)'>here</b> & \"there\"",
    "<style>body{display:none}</style><iframe src=https://example.org></iframe>",
    "![a picture](https://example.org/tracker.png)",
    "# A heading\n\n<!-- a comment --> <svg onload=alert(1)>",
    '[quotes](https://example.org/"onmouseover="alert(1))',
]


@pytest.mark.parametrize("key", ["introduction", "licence", "cite"])
@pytest.mark.parametrize("text", HOSTILE_TEXT)
def test_html_written_in_markdown_keys_comes_out_as_escaped_text(key, text):
    site = read_site({key: text.replace("\n", " ") if key != "introduction" else text}, "book.toml")
    html = getattr(site, f"{key}_html")
    assert_safe(html)
    assert "<img" not in html and "<h1" not in html


@pytest.mark.parametrize("key", ["introduction", "licence", "cite"])
@pytest.mark.parametrize(
    "link",
    [
        "[x](javascript:alert(1))",
        "[x](JAVASCRIPT:alert(1))",
        "[x](jav&#x61;script:alert(1))",
        "[x](&#106;avascript:alert(1))",
        "[x](<javascript:alert(1)>)",
        "<javascript:alert(1)>",
        "[x](vbscript:msgbox(1))",
        "[x](data:text/html;base64,PHNjcmlwdD4=)",
        "[x](file:///etc/passwd)",
        "[x](//evil.example/)",
        "[x](https:evil.example)",
        "[x](%6Aavascript:alert(1))",
    ],
)
def test_a_link_to_anything_but_http_mailto_or_a_relative_address_is_refused(key, link):
    message = site_error({key: f"Read {link} now"})
    assert f"key '{key}': the link " in message and "is not allowed" in message
    assert "links only to http(s), mailto or relative addresses" in message


@pytest.mark.parametrize(
    "link, href",
    [
        ("[x](https://example.org/a?b=1&c=2#d)", "https://example.org/a?b=1&c=2#d"),
        ("[x](http://example.org)", "http://example.org"),
        ("[x](mailto:ada@example.org)", "mailto:ada@example.org"),
        ("<ada@example.org>", "mailto:ada@example.org"),
        ("<https://example.org/book>", "https://example.org/book"),
        ("[x](figure-l.html#token=7)", "figure-l.html#token=7"),
        ("[x](../book/index.html)", "../book/index.html"),
        ("[x](#part-chapter)", "#part-chapter"),
    ],
)
def test_links_to_http_mailto_and_relative_addresses_become_links(link, href):
    html = read_site({"introduction": f"See {link}."}, "book.toml").introduction_html
    assert [attrs for tag, attrs in Tags(html).seen if tag == "a"] == [{"href": href}]


def test_hostile_plain_text_is_kept_as_written_and_escaped_by_jinja_while_the_markdown_is_not_escaped_twice():
    hostile = '"><script>alert(1)</script>'
    site = read_site(
        {"title": hostile, "author": "O'Brien & <Sons>", "introduction": "*Hi* <script>x</script>"}, "book.toml"
    )
    assert site.title == hostile  # text: the page escapes it
    page = jinja2.Environment(autoescape=True).from_string(
        '<title>{{ site.title }}</title><meta content="{{ site.author }}">{{ site.introduction_html }}'
    )
    html = page.render(site=site)
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'content="O&#39;Brien &amp; &lt;Sons&gt;"' in html
    assert "<p><em>Hi</em> &lt;script&gt;x&lt;/script&gt;</p>" in html


def test_the_safety_check_of_these_tests_catches_a_script_and_an_event_handler():
    with pytest.raises(AssertionError):
        assert_safe("<p>hi<script>alert(1)</script></p>")
    with pytest.raises(AssertionError):
        assert_safe('<p><a href="https://x.org" onclick="alert(1)">x</a></p>')
    with pytest.raises(AssertionError):
        assert_safe('<p><a href="javascript:alert(1)">x</a></p>')


# The book's figure numbers and pages ---------------------------------------------------------------------------


def figures_of(tmp_path: Path, *keys: str) -> list:
    """The figures of a config of `numbers` figures labelled a, b, ..., each with its extra TOML lines."""
    tables = "\n".join(
        f'[[figure]]\nkind = "numbers"\nlabel = "{chr(97 + i)}"\n{extra}\n' for i, extra in enumerate(keys)
    )
    return load_config(config(tmp_path, tables), KINDS)


def figure_error(tmp_path: Path, *keys: str) -> str:
    """The one-line message that a config of such figures fails with."""
    with pytest.raises(BuildError) as caught:
        figures_of(tmp_path, *keys)
    assert "\n" not in str(caught.value) and "; allowed: " in str(caught.value)
    return str(caught.value)


def test_a_numbered_figure_is_named_by_its_number_and_keeps_its_label_as_its_file_name():
    figures = {fig.label: fig for fig in load_config(SITE_TABLE, KINDS)}
    assert (figures["l"].number, figures["l"].page, figures["l"].display_name) == ("3.1", 71, "Figure 3.1")
    assert (figures["f"].number, figures["f"].page, figures["f"].display_name) == ("3.3", 76, "Figure 3.3")
    assert (figures["heads"].number, figures["heads"].page, figures["heads"].display_name) == (None, None, "(heads)")
    assert figures["l"].label == "l"
    assert figure_name("lens", None) == "(lens)" and figure_name("lens", "A.2") == "Figure A.2"


@pytest.mark.parametrize("number", ["3.4", "12", "A.2", "3.4b", "IV", "1.2.3", "x" * 20])
def test_a_figure_number_of_letters_and_digits_in_dotted_groups_is_allowed(tmp_path, number):
    [fig] = figures_of(tmp_path, f'number = "{number}"')
    assert fig.number == number and fig.display_name == f"Figure {number}"


@pytest.mark.parametrize(
    "number", ["3.", ".4", "3..4", "3-4", "3 4", "Figure 3.4", "", " 3.4", "3,4", "x" * 21, "<b>3</b>", '3.4"onclick']
)
def test_a_figure_number_of_anything_else_is_refused(tmp_path, number):
    message = figure_error(tmp_path, f"number = {json.dumps(number)}")
    assert "field 'number'" in message and "letters and digits in groups joined by single dots" in message


@pytest.mark.parametrize("value", ["3.4", "3", "true"])
def test_a_figure_number_written_without_quotes_is_refused_and_the_message_asks_for_them(tmp_path, value):
    message = figure_error(tmp_path, f"number = {value}")
    assert f"field 'number': {value.replace('true', 'True')} is not allowed" in message and "in quotes" in message


def test_two_figures_with_one_number_are_refused_naming_the_first(tmp_path):
    message = figure_error(tmp_path, 'number = "3.4"', 'number = "3.5"', 'number = "3.4"')
    assert "figure 3 (label 'c'), field 'number': '3.4' is already the number of figure 1" in message


@pytest.mark.parametrize("page", [1, 412])
def test_a_page_is_a_whole_number_from_one(tmp_path, page):
    [fig] = figures_of(tmp_path, f"page = {page}")
    assert fig.page == page and fig.number is None and fig.display_name == "(a)"


@pytest.mark.parametrize("page", ["0", "-3", '"12"', "1.5", "true"])
def test_any_other_page_is_refused(tmp_path, page):
    message = figure_error(tmp_path, f"page = {page}")
    assert "field 'page'" in message and "a whole number from 1" in message
