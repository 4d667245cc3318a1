"""The `--serve` preview is the author's and holds up: it answers on 127.0.0.1 only, never sends a file from outside
the site's folder (however the path is spelled, or where a link inside the site leads out), sends each page's own
Content Security Policy as a header with the types a browser checks, and a flood of parallel requests and slow
clients neither stops it nor the rebuilds."""

from __future__ import annotations

import concurrent.futures
import http.client
import re
import socket
import time
import urllib.request
from html import unescape
from pathlib import Path

import pytest
from conftest import SMALL_CONFIG

from builds.test_watch_and_serve import NEW_CAPTION, REBUILT, served, with_caption, write  # noqa: F401
from sitegen.author.serve import HOST, LiveState, Server, policy_of
from sitegen.site import policy

SECRET = b"the author's private notes, outside the site"


@pytest.fixture
def site(small_build, tmp_path):
    """A copy of the small build under tmp_path/site (a test may add to it)."""
    import shutil

    folder = tmp_path / "site"
    shutil.copytree(small_build, folder)
    return folder


@pytest.fixture
def server(site):
    with Server(site, 0, LiveState()) as running:
        yield running


def get(url: str):
    with urllib.request.urlopen(url, timeout=20) as response:
        return response.status, response.headers, response.read()  # its names in any case


def test_the_preview_listens_on_127_0_0_1_only(server):
    assert server.httpd.server_address[0] == "127.0.0.1"
    assert get(server.url + "index.html")[0] == 200
    # Another address of this machine (127.0.0.2 is the loopback interface's too) is not listened on.
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.2", server.port), timeout=5).close()


# Every type of file a site holds (test_every_type_the_build_writes_is_tried checks the list against the build):
# its pages, which the server reads itself to add the live script, and every other type, which http.server sends.
TYPES = (
    ".html",
    ".css",
    ".js",
    ".mjs",
    ".json",
    ".csv",
    ".svg",
    ".png",
    ".txt",
    ".pdf",
    ".wasm",
    ".onnx",
    ".bin",
    "",
)  # "": live/tokenizers/LICENSE, .gpt2-figures-site
INSIDE = b"a file of the site, reached through a link"

# How a request may name a file outside the site: `..` written out and percent-encoded (with / and \ encoded too),
# absolute paths in every spelling, and links of the site that lead out, to a file, a folder or another link.
OUTSIDE = [
    "/../secret{t}",
    "/assets/../../secret{t}",
    "/./../secret{t}",
    "//../secret{t}",
    "/%2e%2e/secret{t}",
    "/%2E%2E%2Fsecret{t}",
    "/..%2fsecret{t}",
    "/assets%2f..%2f..%2fsecret{t}",
    "/..%5csecret{t}",
    "/%2e%2e%5csecret{t}",
    "/..\\secret{t}",
    "/%252e%252e/secret{t}",
    "{root}/secret{t}",
    "/{root}/secret{t}",
    "/%2f{root}/secret{t}",
    "{root}%2fsecret{t}",
    "http://127.0.0.1/../secret{t}",
    "file://{root}/secret{t}",
    "/out{t}",
    "/abs-out{t}",
    "/chain{t}",
    "/%6fut{t}",
    "//out{t}",
    "/out{t}?x=1",
    "/out{t}#top",
    "/out{t}/",
    "/out-folder/secret{t}",
    "/abs-out-folder/secret{t}",
    "//out-folder/secret{t}",
    "/out-folder/site/../secret{t}",
    "up:/secret{t}",  # a link named like a scheme: urlsplit reads "/secret…" where http.server opens up:/secret…
]
FOLDERS_OUTSIDE = ["/out-index/", "/out-htm/", "/out-folder/", "/abs-out-folder/", "/out-folder", "/loop", "/loop/"]
INSIDE_LINKS = ["/in{t}", "/abs-in{t}", "/in-folder/file{t}", "/own/file{t}", "/%69n{t}", "/in-folder/../in{t}"]


def secret(kind: str) -> bytes:
    page = b"<!DOCTYPE html><html><head><title>notes</title></head><body>%s</body></html>"
    return page % SECRET if kind == ".html" else SECRET + kind.encode()


def link(at: Path, to) -> None:
    at.parent.mkdir(parents=True, exist_ok=True)
    at.symlink_to(to)


@pytest.fixture(scope="module")
def guarded(small_build, tmp_path_factory):
    """root/site, a copy of the small build, with a secret file of every type in root beside it, links in the site
    that lead out (to a file, a folder, another link, a folder's index) and links that stay in; and root/linked, a
    link to the site, given as --out."""
    import shutil

    root = tmp_path_factory.mktemp("guarded")
    site = root / "site"
    shutil.copytree(small_build, site)
    for kind in TYPES:
        (root / f"secret{kind}").write_bytes(secret(kind))
        link(site / f"out{kind}", f"../secret{kind}")
        link(site / f"abs-out{kind}", root / f"secret{kind}")
        link(site / f"chain{kind}", f"out{kind}")  # a link to a link that leads out
        (site / "own").mkdir(exist_ok=True)
        (site / "own" / f"file{kind}").write_bytes(INSIDE + kind.encode())
        link(site / f"in{kind}", f"own/file{kind}")
        link(site / f"abs-in{kind}", site / "own" / f"file{kind}")
    link(site / "out-folder", "..")
    link(site / "abs-out-folder", root)
    link(site / "up:", root)
    link(site / "in-folder", "own")
    link(site / "out-index" / "index.html", root / "secret.html")  # a folder of the site whose page leads out
    link(site / "out-htm" / "index.htm", root / "secret.html")
    link(site / "in-index" / "index.html", site / "own" / "file.html")
    link(site / "loop", "loop")
    link(root / "linked", site)
    return root


@pytest.fixture(scope="module", params=["folder", "linked"])
def guarded_server(guarded, request):
    """The server of the guarded site, given as --out as the folder itself and as a link to it."""
    with Server(guarded / ("site" if request.param == "folder" else "linked"), 0, LiveState()) as running:
        yield running


def ask(server, path: str, method: str = "GET") -> tuple[int, str, bytes]:
    """The status, Content-Type and body of a request with the path sent exactly as written."""
    connection = http.client.HTTPConnection(HOST, server.port, timeout=10)
    try:
        connection.putrequest(method, path, skip_host=False, skip_accept_encoding=True)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read()
    finally:
        connection.close()


def test_every_type_the_build_writes_is_tried(small_build):
    from figsite.capture import live_export
    from figsite.data import paths
    from sitegen.site import live_assets

    written = {path.suffix for path in small_build.rglob("*") if path.is_file()}
    live_and_print = [
        *live_assets.LIVE_ASSETS,
        *live_assets.LIVE_SCRIPTS,
        live_export.GRAPH_FILE,
        live_export.WEIGHTS_FILE,
        paths.LIVE_SCRIPT,
        paths.CONTACT_SHEET,
        paths.printed("l", "pdf"),
    ]
    written |= {Path(name).suffix for name in live_and_print}
    assert written <= set(TYPES), f"types served but never tried by these tests: {sorted(written - set(TYPES))}"


@pytest.mark.parametrize("kind", TYPES)
def test_no_path_reaches_a_file_outside_the_site_whatever_its_type(guarded_server, guarded, kind):
    leaks = []
    for path in [spelling.format(t=kind, root=guarded) for spelling in OUTSIDE]:
        for method in ("GET", "HEAD"):
            status, _, body = ask(guarded_server, path, method)
            if status != 404 or SECRET in body:
                leaks.append(f"{method} {path}: {status}")
    assert not leaks, "answered from outside the site: " + ", ".join(leaks)


def test_no_folder_outside_the_site_nor_a_page_that_leads_out_is_answered(guarded_server):
    leaks = [
        f"{path}: {status}"
        for path in FOLDERS_OUTSIDE
        for status, _, body in [ask(guarded_server, path)]
        if status != 404 or SECRET in body
    ]
    assert not leaks, "answered from outside the site: " + ", ".join(leaks)


@pytest.mark.parametrize("kind", TYPES)
def test_links_that_stay_in_the_site_are_followed(guarded_server, kind):
    for path in [spelling.format(t=kind) for spelling in INSIDE_LINKS]:
        status, content_type, body = ask(guarded_server, path)
        assert (status, body.startswith(INSIDE + kind.encode())) == (200, True), path
        # A page is answered by the branch that reads it and adds the live script; every other file as it is.
        assert (b'id="live-reload"' in body) == (kind == ".html"), path
    if kind == ".html":
        status, content_type, body = ask(guarded_server, "/in-index/")
        assert status == 200 and body.startswith(INSIDE) and content_type.startswith("text/html")


def test_the_site_given_through_a_link_is_served_whole(guarded, guarded_server):
    for name in ("index.html", "figure-l.html", "assets/site.css", "assets/figures.js", "data/run.json"):
        status, _, body = ask(guarded_server, "/" + name)
        assert status == 200 and body.startswith((guarded / "site" / name).read_bytes()[:200]), name


def test_a_page_is_sent_with_its_own_policy_as_a_header_and_every_file_with_its_type_not_sniffed(server, site):
    status, headers, body = get(server.url + "figure-l.html")
    meta = re.search(rb'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', body).group(1)
    assert headers["Content-Security-Policy"] == unescape(meta.decode()) == policy.PAGE_POLICY
    for name, kind in [
        ("figure-l.html", "text/html"),
        ("assets/figures.js", "text/javascript"),
        ("assets/site.css", "text/css"),
        ("data/run.json", "application/json"),
        ("__live.js", "text/javascript"),
    ]:
        status, headers, _ = get(server.url + name)
        assert status == 200, name
        assert headers["Content-Type"].split(";")[0] == kind, (name, headers["Content-Type"])
        assert headers["X-Content-Type-Options"] == "nosniff", name
        assert headers["Cross-Origin-Opener-Policy"] == "same-origin", name
        assert headers["Cross-Origin-Embedder-Policy"] == "require-corp", name
    assert "Content-Security-Policy" not in get(server.url + "assets/figures.js")[1]


def test_webassembly_is_sent_as_application_wasm(site, server):
    (site / "runtime.wasm").write_bytes(b"\0asm\1\0\0\0")
    assert get(server.url + "runtime.wasm")[1]["Content-Type"] == "application/wasm"


def test_the_policy_sent_is_read_from_the_page_itself():
    page = b'<head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="a &#39;b&#39;"></head>'
    assert policy_of(page) == "a 'b'"
    assert policy_of(b"<head><title>no policy</title></head><body>" + page) is None  # only the head's


def largest_page(site):
    return max(site.glob("*.html"), key=lambda path: path.stat().st_size).name


def test_200_parallel_requests_for_the_largest_page_are_all_answered_in_full_and_it_serves_on(server, site):
    name = largest_page(site)
    size = (site / name).stat().st_size
    with concurrent.futures.ThreadPoolExecutor(max_workers=200) as pool:
        answers = list(pool.map(lambda _: get(server.url + name), range(200)))
    assert [status for status, _, _ in answers] == [200] * 200
    assert all(len(body) >= size for _, _, body in answers)
    assert get(server.url + "index.html")[0] == 200


def test_slow_clients_that_send_nothing_do_not_hold_up_the_others(server):
    idle = [socket.create_connection((HOST, server.port), timeout=5) for _ in range(30)]
    half = [socket.create_connection((HOST, server.port), timeout=5) for _ in range(10)]
    for connection in half:
        connection.sendall(b"GET /index.html HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
    try:
        start = time.monotonic()
        assert get(server.url + "index.html")[0] == 200
        assert time.monotonic() - start < 5
    finally:
        for connection in idle + half:
            connection.close()
    assert get(server.url + "about.html")[0] == 200


def test_a_client_gone_mid_answer_leaves_no_traceback_and_the_server_serving(site, capfd):
    said = []
    with Server(site, 0, LiveState(), log=said.append) as running:
        for _ in range(20):
            connection = socket.create_connection((HOST, running.port), timeout=5)
            connection.sendall(f"GET /{largest_page(site)} HTTP/1.0\r\n\r\n".encode())
            connection.recv(10)
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")  # reset, not close
            connection.close()
        assert get(running.url + "index.html")[0] == 200
    assert "Traceback" not in capfd.readouterr().err
    assert not any("Traceback" in line for line in said)


def test_a_flood_during_a_rebuild_neither_stops_the_server_nor_the_rebuild(served):  # noqa: F811
    name = largest_page(served.site)
    with concurrent.futures.ThreadPoolExecutor(max_workers=200) as pool:
        flood = [pool.submit(get, served.url + name) for _ in range(200)]
        write(served.config, with_caption(SMALL_CONFIG, NEW_CAPTION + " Flooded."))
        assert all(future.result()[0] == 200 for future in flood)
    served.wait_for(REBUILT.pattern, served.out, 60)
    status, _, body = get(served.url + "figure-l.html")
    assert status == 200 and (NEW_CAPTION + " Flooded.").encode() in body
