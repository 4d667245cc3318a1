"""`--serve` in headless Chromium: an open page shows a new caption soon after the config is saved, and a broken
config's error over the last good page. The server is tests/builds/test_watch_and_serve.py's (its `served` fixture: the
small model's three figures, served from a fresh folder); only its own address is let through."""

from __future__ import annotations

import re

from conftest import SMALL_CONFIG
from builds.test_watch_and_serve import BROKEN_LINE, NEW_CAPTION, REBUILT, broken, served, with_caption, write  # noqa: F401


def test_an_open_page_shows_a_new_caption_within_3_s_and_a_broken_config_shows_its_error_over_the_last_good_page(
    served,  # noqa: F811
    browser,
):
    page, refused, errors = browser.context().new_page(), [], []
    page.route(
        "**/*",
        lambda route: (
            route.continue_()
            if route.request.url.startswith(served.url)
            else (refused.append(route.request.url), route.abort())
        ),
    )
    page.on("pageerror", lambda error: errors.append(str(error)))
    caption = "#figure-l p.caption"  # the caption, then a note on the spaces before tokens
    try:
        page.goto(served.url + "figure-l.html")
        assert not page.text_content(caption).startswith(NEW_CAPTION)

        write(served.config, with_caption(SMALL_CONFIG, NEW_CAPTION))
        page.wait_for_function(
            "([sel, text]) => document.querySelector(sel)?.textContent.startsWith(text + ' ')",
            arg=[caption, NEW_CAPTION],
            timeout=3_000,
        )
        seconds, source = served.wait_for(REBUILT.pattern, served.out, 10).groups()
        assert source == "from the cache" and float(seconds) < 1.0, served.out[-1]

        write(served.config, broken(with_caption(SMALL_CONFIG, NEW_CAPTION)))
        page.wait_for_selector("#live-reload-error", timeout=3_000)
        assert page.text_content("#live-reload-error").splitlines()[0] == BROKEN_LINE
        assert page.text_content(caption).startswith(NEW_CAPTION + " ")
        assert served.wait_for(re.escape(BROKEN_LINE), served.err, 10).string == BROKEN_LINE
        assert NEW_CAPTION in (served.site / "figure-l.html").read_text(encoding="utf-8")
        assert refused == [] and errors == []
    finally:
        page.close()
