"""The tests that drive the site in headless Chromium: one Chromium and one Visit for all (browsing.py), the
`browser` marker set on each by conftest.py. A package, so that its conftest is `browser.conftest` and
`from conftest import ...` elsewhere still reads tests/conftest.py."""
