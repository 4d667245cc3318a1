"""Every page the build writes carries the Content Security Policy (sitegen/site/policy.py) first in its head, and
holds nothing the policy would refuse: no inline script (a JSON island is data, not script), no event handler
attribute, no javascript: address, no <style> and no style attribute. The browser tests check the same in Chromium
(tests/browser/test_content_security_policy.py); these read every written page of two sites."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from sitegen.site import policy

REQUIRED = {
    "default-src": "'none'",
    "script-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'none'",
}


def directives(text: str) -> dict[str, str]:
    return dict(part.strip().partition(" ")[::2] for part in text.split(";") if part.strip())


class Page(HTMLParser):
    """What a page holds that the policy governs."""

    def __init__(self):
        super().__init__()
        self.head: list[tuple[str, dict]] = []  # the head's elements, in order
        self.in_head = self.in_script = False
        self.inline_scripts, self.refused = [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "head":
            self.in_head = True
        elif self.in_head:
            self.head.append((tag, attrs))
        for name, value in attrs.items():
            if name.startswith("on"):
                self.refused.append(f"<{tag} {name}=...>")
            if name == "style":
                self.refused.append(f"<{tag} style=...>")
            if name in ("href", "src", "action") and (value or "").strip().lower().startswith("javascript:"):
                self.refused.append(f"<{tag} {name}=javascript:...>")
        if tag == "style":
            self.refused.append("<style>")
        if tag == "script":
            self.in_script = "src" not in attrs and attrs.get("type") != "application/json"

    def handle_endtag(self, tag):
        if tag == "head":
            self.in_head = False
        if tag == "script":
            self.in_script = False

    def handle_data(self, data):
        if self.in_script and data.strip():
            self.inline_scripts.append(data.strip()[:60])


def read(path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


@pytest.mark.parametrize("text", [policy.PAGE_POLICY, policy.LIVE_POLICY], ids=["pages", "live page"])
def test_the_policy_allows_no_inline_script_and_no_eval(text):
    found = directives(text)
    for name, value in REQUIRED.items():
        assert found[name].split()[0] == value, f"{name}: {found[name]}"
    for name, value in found.items():
        assert "'unsafe-inline'" not in value and "'unsafe-eval'" not in value, f"{name}: {value}"
        assert "*" not in value and "http:" not in value and "https:" not in value, (
            f"{name} reaches the network: {value}"
        )
    assert found["style-src"] == "'self'"


def test_only_the_live_page_may_compile_webassembly_and_fetch():
    page, live = directives(policy.PAGE_POLICY), directives(policy.LIVE_POLICY)
    assert "'wasm-unsafe-eval'" not in page["script-src"] and "connect-src" not in page
    assert live["script-src"] == "'self' 'wasm-unsafe-eval'" and live["connect-src"] == "'self'"


@pytest.fixture(params=["small_build", "site_table_build"])
def site(request):
    return request.getfixturevalue(request.param)


def test_every_page_carries_the_policy_first_and_nothing_it_would_refuse(site):
    written = sorted(site.rglob("*.html"))
    assert len(written) > 5, written
    for path in written:
        page = read(path)
        assert page.head[:2] == [
            ("meta", {"charset": "utf-8"}),
            (
                "meta",
                {
                    "http-equiv": "Content-Security-Policy",
                    "content": policy.LIVE_POLICY if path.name == "live.html" else policy.PAGE_POLICY,
                },
            ),
        ], f"{path.name}: {page.head[:2]}"
        assert page.inline_scripts == [], f"{path.name}: inline scripts {page.inline_scripts}"
        assert page.refused == [], f"{path.name}: {page.refused}"


def test_the_check_finds_what_the_policy_would_refuse(tmp_path):
    # The reading above can fail: a page with each thing the policy refuses is caught.
    path = tmp_path / "bad.html"
    path.write_text(
        '<html><head><meta charset="utf-8"><style>p{}</style></head><body>'
        '<p style="color:red" onclick="x()"><a href=" JavaScript:x()">a</a></p>'
        '<script>alert(1)</script><script type="application/json">{"a": 1}</script></body></html>'
    )
    page = read(path)
    assert page.inline_scripts == ["alert(1)"]
    assert page.refused == ["<style>", "<p style=...>", "<p onclick=...>", "<a href=javascript:...>"]
