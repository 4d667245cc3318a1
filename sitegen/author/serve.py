"""--serve: the site over http on localhost, with the pages open in a browser reloaded after each good rebuild.

The standard library's http.server, in a thread of its own, serves the output folder as it is on disk. Only the
HTML it sends is changed: a small script is added before `</body>` that asks `/__live` a few times a second
for the number of the last good build and reloads the page when it changes; where the last rebuild failed, it
shows that build's one-line error over the page, which stays as it was. A figure's page with a public address
(base_url) also gets the author's box, "For the book": its address and QR code, to print under the figure, which
the reader's site keeps on its About page only. The files on disk are never touched, so the site stays
byte-identical to a plain build and works from file:// as before.
"""

from __future__ import annotations

import errno
import html
import http.server
import json
import os
import re
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

from figsite.data import paths
from figsite.errors import BuildError
from sitegen.site.render import for_the_book

HOST = "127.0.0.1"  # localhost only: the preview is the author's, not the network's
DEFAULT_PORT = 8000
ENDPOINT = "/__live"  # what the added script polls; no file of the site has this name
POLL_MS = 300
CLIENT_TIMEOUT_S = 10  # a connection idle this long is closed (a slow or stuck client holds no thread for ever)

# Added to served HTML only: a script tag naming the build the page was served from. The script is a file the server
# sends (SCRIPT), not an inline one, and it asks for the state by loading it as a script (ENDPOINT?as=js), not with
# fetch: the pages' Content Security Policy allows only the site's own script files and no connection at all
# (sitegen/site/policy.py), and the server sends that same policy (POLICY_META).
SCRIPT = "/__live.js"  # no file of the site has this name either
SCRIPT_TAG = '<script id="live-reload" src="{script}" data-build="{build}"></script>\n'
LIVE_SCRIPT = (
    """/* added by build.py --serve; not in the site on disk */
(() => {
  const served = Number(document.currentScript.dataset.build);
  const show = (error) => {
    let banner = document.getElementById('live-reload-error');
    if (!error) { if (banner) banner.remove(); return; }
    if (!banner) {
      banner = document.createElement('p');
      banner.id = 'live-reload-error';
      banner.setAttribute('role', 'alert');
      // Set through the style object (CSSOM), which the policy allows; a style attribute it would refuse.
      Object.assign(banner.style, {position: 'fixed', left: '0', right: '0', bottom: '0', margin: '0',
        padding: '.6em 1em', zIndex: '1000', background: '#fde8e8', color: '#7a0b0b',
        borderTop: '2px solid #b42318', font: '14px/1.4 monospace', whiteSpace: 'pre-wrap'});
      document.body.append(banner);
    }
    banner.textContent = error + '\\n(the page shows the last good site; fix the error and it reloads)';
  };
  let asked = 0;
  window.__liveReload = (state) => {
    if (state.build !== served) { location.reload(); return; }
    show(state.error);
  };
  const poll = () => {
    const script = document.createElement('script');
    script.src = 'ENDPOINT?as=js&n=' + (asked += 1);
    // Whether it answered or not (the server is gone or restarting), ask again.
    script.onload = script.onerror = () => { script.remove(); setTimeout(poll, POLL_MS); };
    document.head.append(script);
  };
  setTimeout(poll, POLL_MS);
})();
""".replace("ENDPOINT", ENDPOINT)
    .replace("POLL_MS", str(POLL_MS))
    .encode("utf-8")
)

# The policy a page carries in its head, sent again as a header (the same words: it cannot differ from the page's).
POLICY_META = re.compile(rb'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')


def policy_of(html_bytes: bytes) -> str | None:
    """The Content Security Policy a page's own meta tag gives, or None for a page without one."""
    found = POLICY_META.search(html_bytes[: html_bytes.find(b"</head>")])
    return html.unescape(found.group(1).decode("utf-8")) if found else None


class LiveState:
    """What the served pages poll: the number of the last good build, and the error of the last rebuild if it
    failed (None once a rebuild succeeds)."""

    def __init__(self, build: int = 0):
        self._lock = threading.Lock()
        self.build, self.error = build, None  # build: where a restart of the watch carries it on (watch.py)

    def built(self) -> None:
        with self._lock:
            self.build, self.error = self.build + 1, None

    def failed(self, line: str) -> None:
        with self._lock:
            self.error = line

    def as_json(self) -> bytes:
        with self._lock:
            return json.dumps({"build": self.build, "error": self.error}).encode("utf-8")


def with_live_script(html: bytes, build: int) -> bytes:
    """The page with the live-reload script's tag added before its last </body> (at its end where it has none)."""
    script = SCRIPT_TAG.format(script=SCRIPT, build=build).encode("utf-8")
    at = html.rfind(b"</body>")
    return html + script if at < 0 else html[:at] + script + html[at:]


# A figure's page, and the public address its canonical link names (only where [site] gives a base_url).
FIGURE_PAGE = re.compile(r"figure-([A-Za-z0-9_-]+)\.html")
CANONICAL = re.compile(rb'<link rel="canonical" href="([^"]+)">')


def with_author_box(html_bytes: bytes, site: Path, name: str) -> bytes:
    """A figure's page with the author's box (its address and QR code, sitegen.site.render.for_the_book) added at
    the end of its <main>, where the page is a figure's own with a public address and the site holds its QR code;
    any other page as it is."""
    page = FIGURE_PAGE.fullmatch(name)
    canonical = CANONICAL.search(html_bytes)
    at = html_bytes.rfind(b"</main>")
    if not (page and canonical and at >= 0 and (site / f"{paths.qr_image(page.group(1))}.svg").is_file()):
        return html_bytes
    box = for_the_book(page.group(1), html.unescape(canonical.group(1).decode("utf-8"))).encode("utf-8")
    return html_bytes[:at] + box + html_bytes[at:]


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Files of `site`, its HTML with the live script (and a figure's author box) added, SCRIPT and ENDPOINT;
    handler_for makes the class for one site."""

    site: Path
    state: LiveState
    log = None  # a function taking one line, or None for quiet

    # The live page's runtime: import() takes a module only as JavaScript, and WebAssembly compiles while it
    # downloads only as application/wasm; a system's own MIME list may lack either.
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".wasm": "application/wasm",
    }

    # A client that connects and then sends nothing, or reads nothing, lets go of its thread after this long.
    timeout = CLIENT_TIMEOUT_S

    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=str(self.site), **kwargs)

    def do_GET(self):
        address = urlsplit(self.path)
        if address.path == ENDPOINT:
            if address.query.startswith("as=js"):
                return self._send(200, "text/javascript", b"window.__liveReload(" + self.state.as_json() + b");\n")
            return self._send(200, "application/json", self.state.as_json())
        if address.path == SCRIPT:
            return self._send(200, "text/javascript", LIVE_SCRIPT)
        asked = self._asked()
        real = self._inside_site(asked)
        if real is None or asked.suffix != ".html" or not real.is_file():
            return super().do_GET()  # every other file; and a way out of the site, which send_head refuses
        build = self.state.as_json()  # read before the file: a page never claims a newer build than it shows
        try:
            body = real.read_bytes()  # the file checked, not the link to it (which a rebuild may point elsewhere)
        except OSError:
            return super().do_GET()  # swapped away while we looked: the ordinary 404
        self._policy = policy_of(body)
        body = with_author_box(body, self.site, asked.name)
        return self._send(200, "text/html; charset=utf-8", with_live_script(body, json.loads(build)["build"]))

    def send_head(self):
        # Every file answered (GET or HEAD) is checked here first: one outside the site is not found.
        if self._inside_site(self._asked()) is None:
            self.send_error(404, "File not found")
            return None
        return super().send_head()

    def _asked(self) -> Path:
        """The file http.server sends for this request, found as it finds it: the whole request line's path
        translated (unquoted, `..` and empty names dropped), and for a folder asked with a trailing slash its
        index.html or index.htm. The check and both branches (HTML and the rest) use this one answer: a check
        on the path as urlsplit reads it (`up:/secret.txt` has the scheme "up") or on a folder rather than its
        index would let a link of the site that leads out through."""
        local = Path(self.translate_path(self.path))
        if local.is_dir() and urlsplit(self.path).path.endswith("/"):
            for index in ("index.html", "index.htm"):  # http.server's own order
                if (local / index).is_file():
                    return local / index
        return local

    def _inside_site(self, local: Path) -> Path | None:
        """`local` once every link is followed, where that is in the site's folder; None where it leads out
        (or round a loop of links)."""
        try:
            real = local.resolve()
        except (OSError, RuntimeError):  # a loop of links
            return None
        return real if real.is_relative_to(self.site) else None

    def _send(self, code: int, content_type: str, body: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")  # a reload must show the new build
        self.send_header("X-Content-Type-Options", "nosniff")  # a file is only ever taken as its type
        policy = getattr(self, "_policy", None)
        if policy:  # an HTML page's own policy, as a header too
            self.send_header("Content-Security-Policy", policy)
            self._policy = None
        # Cross-origin isolated, the live page's runtime may use several threads (every file is the site's own).
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        super().end_headers()

    def log_message(self, format, *args):  # noqa: A002 - http.server's name
        if self.log is not None:
            self.log(f"serve: {format % args}")

    def handle_one_request(self):
        # A client gone or too slow mid-answer is its own affair: no traceback, the server serves on.
        try:
            super().handle_one_request()
        except (ConnectionError, TimeoutError):
            self.close_connection = True


def handler_for(site: Path, state: LiveState, log=None):
    """The request handler class for `site`: its files, the HTML with the script added, and ENDPOINT."""
    return type("Handler", (_Handler,), {"site": site, "state": state, "log": staticmethod(log) if log else None})


class _Threads(http.server.ThreadingHTTPServer):
    """http.server's threads, one a connection, ready for a flood: a longer queue of connections waiting to be
    taken (a burst of parallel requests is answered, not refused), threads that end with the server, and an error
    in one connection logged in a line, not a traceback."""

    request_queue_size = 256
    daemon_threads = True

    def __init__(self, address, handler, log=None):
        self.log = log
        super().__init__(address, handler)

    def handle_error(self, request, client_address):
        error = sys.exc_info()[1]
        if self.log is not None:
            self.log(f"serve: {client_address[0]}: {type(error).__name__}: {error}".splitlines()[0])


class Server:
    """The site served on HOST:port from a thread of its own; `port` 0 takes any free port (see `url`)."""

    def __init__(self, site: Path, port: int, state: LiveState, log=None):
        try:
            self.httpd = _Threads((HOST, port), handler_for(Path(site).resolve(), state, log), log)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise BuildError(
                    f"--serve: port {port} on {HOST} is in use; allowed: a free port, such as "
                    f"--serve {port + 1 if port < 65535 else DEFAULT_PORT}, or --serve 0 for any "
                    "free one"
                ) from None
            raise BuildError(
                f"--serve: cannot listen on {HOST} port {port} ({os.strerror(exc.errno or 0).lower()}); "
                "allowed: a free port from 1024 to 65535, or 0 for any free one"
            ) from None
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="serve", daemon=True)

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/"

    def __enter__(self) -> "Server":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
