"""The author's site in headless Chromium: hostile values in [site] (a script in the title and the introduction,
HTML and event handlers, quotes that would end an attribute) stay inert text on every page, and the site works
served by a plain http.server under a sub-path (/sub/path/): pages, charts, links and downloads. What a hostile
value cannot get past the config (a javascript: address) is refused: tests/builds/test_author_site.py."""

from __future__ import annotations

import shutil
from urllib.parse import urldefrag

import pytest

from conftest import SMALL_CONFIG, built
from tests.support.hosting import serve

from .browsing import VIEWPORT, Visit, wait_for_charts, watch

# Each value tries something else; none may run, and each must show as the text it is.
HOSTILE_TITLE = """</title><script>alert("title")</script> "Quotes" & 'more' <b>bold?</b>"""
HOSTILE_AUTHOR = """"><script>alert('author')</script><img src=x onerror=alert('author')>"""
HOSTILE_SITE = '''\
[site]
title = {title}
book = "<img src=x onerror=alert('book')>"
chapter = "<script>alert('chapter')</script>"
author = {author}
introduction = """
<script>alert("introduction")</script>

<img src=x onerror="alert('img')"> and <a href="javascript:alert('a')">a raw link</a>

*Fine*, and [a link](figure-l.html 'a "title" onmouseover=alert(1)') and [another](https://example.org/"onclick="alert(1))
"""
book_url = "https://example.org/book?edition=2&x=1"
licence = "<script>alert('licence')</script> & [CC](https://example.org/?a=1&b=2)"
cite = "'single' \\"double\\" <i onclick=alert(1)>not italic</i>"
base_url = "https://example.org/hostile/"

'''


def toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@pytest.fixture(scope="module")
def hostile_site(small_model_dir, tmp_path_factory):
    config = HOSTILE_SITE.format(title=toml_string(HOSTILE_TITLE), author=toml_string(HOSTILE_AUTHOR))
    return built(small_model_dir, config + SMALL_CONFIG, tmp_path_factory.mktemp("hostile"))


# What a page holds that a value could have made: dialogs (recorded by the page), scripts other than the site's
# own, event-handler attributes, javascript: links, and elements of tags the site never writes.
INJECTED = """() => ({
  scripts: Array.from(document.scripts).filter(s => s.src ? !/\\/assets\\/(vega|figures)\\.js$/.test(s.src)
                                                        : s.type !== 'application/json').map(s => s.outerHTML),
  handlers: Array.from(document.querySelectorAll('*')).flatMap(el => Array.from(el.attributes)
      .filter(a => /^on/i.test(a.name)).map(a => el.tagName + ' ' + a.name)),
  javascript: Array.from(document.querySelectorAll('[href], [src]')).map(el => el.getAttribute('href') || el.getAttribute('src'))
      .filter(url => /^\\s*(javascript|data|vbscript):/i.test(url)),
  foreign: Array.from(document.querySelectorAll('b, i, main img:not(.preview):not(.static-chart):not(.qr)')).map(el => el.outerHTML),
})"""


def open_watched(browser, site, name):
    """A page of `site` from file://, everything else refused, with every dialog it opens recorded (and dismissed)."""
    page = browser.context().new_page()
    visit, dialogs = watch(page, name), []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto((site / name).as_uri())
    return visit, dialogs


@pytest.mark.parametrize(
    "name",
    ["index.html", "about.html", "figure-l.html", "embed-l.html", "text-maya-lives-in-paris-the-capital-of.html"],
)
def test_hostile_site_values_run_nothing_and_show_as_the_text_they_are(browser, hostile_site, name):
    visit, dialogs = open_watched(browser, hostile_site, name)
    page = visit.page
    try:
        wait_for_charts(visit)
        page.wait_for_timeout(200)  # an img's onerror or a late script would have fired by now
        assert dialogs == [], f"{name}: dialogs opened: {dialogs}"
        assert page.evaluate(INJECTED) == {"scripts": [], "handlers": [], "javascript": [], "foreign": []}
        visit.assert_clean(name)
        if name.startswith("embed-"):
            return
        assert page.text_content("header .home") == HOSTILE_TITLE
        assert page.get_attribute('meta[property="og:site_name"]', "content") == HOSTILE_TITLE
        # Every page leads back to the book and ends with the licence and the cite line.
        assert page.get_attribute("header a.book", "href") == "https://example.org/book?edition=2&x=1"
        assert page.text_content("header a.book") == "Back to <img src=x onerror=alert('book')>"
        assert page.text_content(".licence").startswith("Licence: <script>alert('licence')</script> & CC")
        assert (
            page.text_content(".cite") == """How to cite them: 'single' "double" <i onclick=alert(1)>not italic</i>"""
        )
        if name in ("index.html", "about.html"):
            byline = " ".join(page.text_content(".byline").split())
            assert byline == (
                "The figures of the chapter “<script>alert('chapter')</script>” of <img src=x "
                f"onerror=alert('book')>, by {HOSTILE_AUTHOR}."
            )
            assert not page.query_selector(".book-link"), "the way back to the book said twice"  # the header's
        if name == "index.html":
            assert page.title() == HOSTILE_TITLE and page.text_content("h1") == HOSTILE_TITLE
            assert page.get_attribute('meta[property="og:title"]', "content") == HOSTILE_TITLE
            introduction = page.text_content(".introduction")
            for shown in (
                '<script>alert("introduction")</script>',
                """<img src=x onerror="alert('img')">""",
                """<a href="javascript:alert('a')">a raw link</a>""",
            ):
                assert shown in introduction, f"the introduction does not show {shown} as text"
            links = page.eval_on_selector_all(
                ".introduction a",
                "links => links.map(a => [a.getAttribute('href'), a.getAttribute('title'), a.textContent])",
            )
            assert links == [
                ["figure-l.html", 'a "title" onmouseover=alert(1)', "a link"],
                ["https://example.org/%22onclick=%22alert(1)", None, "another"],
            ]
    finally:
        page.close()


# ---------------------------------------------------------------------------------------------- under a sub-path


@pytest.fixture(scope="module")
def served_under_a_sub_path(site_table_build, tmp_path_factory):
    """tests/site_table.toml's site copied to ROOT/sub/path/ and ROOT served by a plain static host; returns the
    site's address, http://127.0.0.1:PORT/sub/path/, and the list of the paths the host is asked for (its own record:
    a browser's requests of its own, such as /favicon.ico, pass no Playwright route)."""
    root = tmp_path_factory.mktemp("host")
    shutil.copytree(site_table_build, root / "sub" / "path")
    with serve(root) as host:
        yield f"{host.url}sub/path/", host.asked


def test_under_a_sub_path_every_page_draws_its_charts_and_every_link_and_file_it_names_is_there(
    browser, served_under_a_sub_path
):
    base, _ = served_under_a_sub_path
    origin = base.removesuffix("sub/path/")
    page, refused, errors, missing = browser.context().new_page(), [], [], []
    page.route(
        "**/*",
        lambda route: (
            route.continue_()
            if route.request.url.startswith(base)
            else (refused.append(route.request.url), route.abort())
        ),
    )
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("response", lambda response: response.status >= 400 and missing.append(response.url))
    try:
        page.goto(base)  # the folder's address: the host serves index.html
        assert page.title() == "Transformers, figure by figure"
        names = page.eval_on_selector_all("main a[href]", "links => links.map(a => a.href)")
        pages = sorted({urldefrag(url).url for url in names if url.startswith(base) and url.endswith(".html")})
        assert base + "figure-l.html" in pages and base + "about.html" in pages
        page.click("main a[href='figure-l.html']")
        page.wait_for_url(base + "figure-l.html")
        checked = set()
        for url in [*pages, base + "embed-l.html"]:
            if page.url != url:
                page.goto(url)
            wait_for_charts(Visit(page, url))
            for target in page.eval_on_selector_all(
                "a[href], img[src], link[href], script[src]", "els => els.map(el => el.href || el.src)"
            ):
                target = urldefrag(target).url
                if target.startswith(origin) and target not in checked:  # a link of the site, not to the book
                    assert target.startswith(base), f"{url} names {target}, outside the site's folder"
                    checked.add(target)
                    status = page.request.get(target).status
                    assert status == 200, f"{url} names {target}, which answers {status}"
        assert any("/downloads/" in url for url in checked) and any("/img/qr-" in url for url in checked)
        assert refused == [] and errors == [] and missing == [], (refused, errors, missing)
    finally:
        page.close()


def test_under_a_sub_path_no_page_asks_the_host_for_anything_outside_the_sites_folder_not_even_an_icon(
    browser, served_under_a_sub_path, site_table_build
):
    base, asked = served_under_a_sub_path
    names = sorted(path.name for path in site_table_build.glob("*.html"))
    assert {"index.html", "about.html", "figure-l.html", "embed-l.html"} <= set(names)
    for name in names:
        # a context of its own: with the session's, the page may come from its HTTP cache (a static host's answers
        # carry Last-Modified, and a browser may reuse them), and the host would see no request
        context = browser.browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        try:
            before = len(asked)
            page.goto(base + name)
            wait_for_charts(Visit(page, base + name))
            page.wait_for_timeout(300)  # a browser asks for an icon once the page has loaded
            outside = [path for path in asked[before:] if not path.startswith("/sub/path/")]
            assert outside == [], f"{name} made the browser ask the host for {outside}"
            assert f"/sub/path/{name}" in asked[before:], f"{name} was not asked for: the record misses requests"
        finally:
            context.close()
