"""The index's map of the model in Chromium: on a phone (360 x 800) and a desktop (1280 x 900), light and dark, the
page does not scroll sideways, the map stays inside the column, and the first screen shows the title and the start
of the map; on a phone the figures' links sit below their step, on a desktop beside it; printed, it keeps its
boxes and links."""

from __future__ import annotations

import pytest

PHONE = {"width": 360, "height": 800}
DESKTOP = {"width": 1280, "height": 900}

# Where the title, the map's heading and its first box are, and how far the page and each part of the map reach.
LAID_OUT = """() => {
    const box = el => el.getBoundingClientRect();
    const map = document.querySelector('.model-map');
    const parts = Array.from(map.querySelectorAll('.map-box, .map-figures a, .map-then'));
    return {
        sideways: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        title: box(document.querySelector('h1')).bottom,
        heading: box(map.querySelector('h2')).top,
        firstBox: box(map.querySelector('.map-box')).bottom,
        widest: Math.max(...parts.map(part => box(part).right)),
        leftmost: Math.min(...parts.map(part => box(part).left)),
        links: Array.from(map.querySelectorAll('.map-at-attention .map-figures a')).map(a => box(a).left),
        attention: box(map.querySelector('.map-at-attention .map-box')),
    };
}"""


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_index_shows_its_title_and_the_start_of_the_map_in_the_first_screen_without_scrolling_sideways(
    opener, viewport, scheme
):
    visit = opener.open(
        "index.html", context=opener.context(viewport=viewport, color_scheme=scheme), wait_for_charts=False
    )
    laid = visit.page.evaluate(LAID_OUT)
    assert laid["sideways"] <= 0, f"the index scrolls sideways by {laid['sideways']} px at {viewport['width']} px"
    assert laid["leftmost"] >= 0 and laid["widest"] <= viewport["width"], laid
    assert laid["title"] < laid["heading"] < laid["firstBox"] <= viewport["height"], (
        f"the title and the map's first step are not in the first screen at {viewport}: {laid}"
    )
    assert laid["links"], "no figure is linked at attention"
    if viewport == PHONE:  # one column: the links below their step
        assert all(left < laid["attention"]["right"] for left in laid["links"]), laid
    else:  # the links beside their step
        assert all(left >= laid["attention"]["right"] for left in laid["links"]), laid
    visit.assert_clean()


def test_the_map_prints_its_boxes_and_its_links_in_the_inks_colour(opener):
    visit = opener.open("index.html", context=opener.context(viewport=DESKTOP), wait_for_charts=False)
    visit.page.emulate_media(media="print")
    shown = visit.page.evaluate("""() => {
        const map = document.querySelector('.model-map');
        return {display: getComputedStyle(map).display,
                border: getComputedStyle(map.querySelector('.map-box')).borderTopStyle,
                links: map.querySelectorAll('.map-figures a').length,
                linkColour: getComputedStyle(map.querySelector('.map-figures a')).color,
                ink: getComputedStyle(document.body).color};
    }""")
    assert shown["display"] != "none" and shown["border"] == "solid" and shown["links"] > 0, shown
    assert shown["linkColour"] == shown["ink"], shown
