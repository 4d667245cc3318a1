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

import pytest
from conftest import SMALL_CONFIG

from builds.test_watch_and_serve import NEW_CAPTION, REBUILT, served, with_caption, write  # noqa: F401
from figsite.author.serve import HOST, LiveState, Server, policy_of
from figsite.site import policy

SECRET = b"the author's private notes, outside the site"


@pytest.fixture
def site(small_build, tmp_path):
    """A copy of the small build under tmp_path/site, a secret file beside it, and links inside it that lead out."""
    import shutil

    folder = tmp_path / "site"
    shutil.copytree(small_build, folder)
    (tmp_path / "secret.txt").write_bytes(SECRET)
    (folder / "out-file.txt").symlink_to(tmp_path / "secret.txt")
    (folder / "out-folder").symlink_to(tmp_path, target_is_directory=True)
    return folder


@pytest.fixture
def server(site):
    with Server(site, 0, LiveState()) as running:
        yield running


def raw_get(server, path: str) -> tuple[int, bytes]:
    """A GET with the path sent exactly as written (urllib would tidy it first)."""
    connection = http.client.HTTPConnection(HOST, server.port, timeout=10)
    try:
        connection.putrequest("GET", path, skip_host=False, skip_accept_encoding=True)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def get(url: str):
    with urllib.request.urlopen(url, timeout=20) as response:
        return response.status, response.headers, response.read()  # its names in any case


def test_the_preview_listens_on_127_0_0_1_only(server):
    assert server.httpd.server_address[0] == "127.0.0.1"
    assert get(server.url + "index.html")[0] == 200
    # Another address of this machine (127.0.0.2 is the loopback interface's too) is not listened on.
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.2", server.port), timeout=5).close()


@pytest.mark.parametrize("path", [
    "/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E%2Fsecret.txt", "/assets/../../secret.txt",
    "/..%2fsecret.txt", "//../secret.txt", "/out-file.txt", "/out-folder/secret.txt", "/out-folder/",
])
def test_no_path_reaches_a_file_outside_the_site(server, path):
    status, body = raw_get(server, path)
    assert SECRET not in body
    assert status in (400, 404), (path, status)


def test_a_page_is_sent_with_its_own_policy_as_a_header_and_every_file_with_its_type_not_sniffed(server, site):
    status, headers, body = get(server.url + "figure-l.html")
    meta = re.search(rb'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', body).group(1)
    assert headers["Content-Security-Policy"] == unescape(meta.decode()) == policy.PAGE_POLICY
    for name, kind in [("figure-l.html", "text/html"), ("assets/figures.js", "text/javascript"),
                       ("assets/site.css", "text/css"), ("data/run.json", "application/json"),
                       ("__live.js", "text/javascript")]:
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
