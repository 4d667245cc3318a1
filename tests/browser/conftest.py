"""The browser tests' one Chromium, their pages, and their marker.

Every test in this folder drives Debian's Chromium (browsing.py), and only the tests in this folder do: the
`browser` marker is set here on each of them (pytest_collection_modifyitems), so that `pytest -m browser` runs
exactly this folder and `pytest -m "not browser"` none of it. Their fixtures are defined here and seen nowhere
else.

One Chromium (browsing.SHARED) serves the whole session: it starts when a test first needs it and stops when
the session's tests leave this folder (pytest_runtest_teardown below), since Playwright's sync API holds the
thread's event loop while it runs; the `browser` fixture stops it at the latest at the end of the session.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import built
from tests.support.shared import once

from .browsing import SHARED, Browser, Opener, Visit

FOLDER = Path(__file__).resolve().parent
EVERY_KIND = FOLDER.parent / "every_kind.toml"


def in_this_folder(item) -> bool:
    return FOLDER in Path(item.path).resolve().parents


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(config, items):
    """Marks every test of this folder `browser`; the hook sees the whole session's items, so only these."""
    for item in items:
        if in_this_folder(item):
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """After the last test of this folder (and its fixtures), Chromium stops; a later test that asks for the
    browser starts it again."""
    yield
    if nextitem is None or not in_this_folder(nextitem):
        SHARED.stop()


@pytest.fixture(scope="session")
def browser() -> Browser:
    """The session's one Chromium (browsing.SHARED), started; stopped at the end."""
    SHARED.start()
    yield SHARED
    SHARED.stop()


@pytest.fixture
def opener(browser, random_site):
    """Opens pages of conftest's random_site (the chapter built with --model random) for one test."""
    opener = Opener(browser, random_site)
    yield opener
    opener.close()


@pytest.fixture(scope="module")
def open_once(browser, random_site):
    """Opens a page of random_site once for the module, for the tests that only read it: name -> its Visit."""
    opener, visits = Opener(browser, random_site), {}

    def _open(name: str) -> Visit:
        if name not in visits:
            visits[name] = opener.open(name)
        return visits[name]

    yield _open
    opener.close()


@pytest.fixture(scope="session")
def every_kind_site(small_model_dir, tmp_path_factory) -> Path:
    """tests/every_kind.toml (a figure of every registered kind) built once over the small model (3 layers, 4 heads)."""
    return once(
        tmp_path_factory,
        "every-kind",
        lambda folder: built(small_model_dir, EVERY_KIND.read_text(encoding="utf-8"), folder),
    )
