"""One static host for the tests that open a site over HTTP rather than from disk.

A static host (GitHub Pages, a plain `python -m http.server`) sends a site's files with their types and nothing of
ours: `SiteHandler` does the same, silently, and keeps the path of every request it is sent (the server's own record:
a browser's requests of its own, such as /favicon.ico, pass no Playwright route). A test that needs a host to
misbehave (cut a download, send the headers that isolate a page, damage a file) subclasses it and overrides one
method; `serve` starts any such handler on a free port of 127.0.0.1 for the length of a `with` block.
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

# The headers that make a page cross-origin isolated: the live page then runs the model on several threads.
ISOLATING = {"Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp"}


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """A site's files with the types a host sends them with (scripts and modules as JavaScript, WebAssembly as
    itself), `extra_headers` on every answer, and every path asked for appended to `asked`; no log."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".wasm": "application/wasm",
    }
    asked: list[str] = []  # serve() gives each host a list of its own
    extra_headers: dict[str, str] = {}

    def do_GET(self) -> None:
        self.asked.append(self.path)
        super().do_GET()

    def end_headers(self) -> None:
        for name, value in self.extra_headers.items():
            self.send_header(name, value)
        super().end_headers()

    def log_message(self, *args) -> None:
        pass


@dataclass(frozen=True)
class Host:
    """A running host: its address (ending in '/'), its handler class (a subclass of the one given to serve, whose
    class attributes a test may set between requests) and the paths it was asked for, in order."""

    url: str
    handler: type[SiteHandler]
    asked: list[str]


@contextmanager
def serve(folder: Path, handler: type[SiteHandler] = SiteHandler, **attributes) -> Iterator[Host]:
    """`folder` served by `handler` on a free port of 127.0.0.1 until the block ends; `attributes` become class
    attributes of this host's own subclass of `handler` (`extra_headers=ISOLATING`, say)."""
    this_host = type(f"{handler.__name__}Here", (handler,), {"asked": [], **attributes})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(this_host, directory=str(folder)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield Host(f"http://127.0.0.1:{httpd.server_port}/", this_host, this_host.asked)
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()
