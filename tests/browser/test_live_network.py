"""A figure's page with the reader's sentence (its "Try your own sentence", as `--live` builds it) against a host that
misbehaves on purpose (issue 35, point 2): a download cut in the middle (resumed with a Range request where the host
takes them, started again where not), bytes that differ from the build's SHA-256 (on the wire, or kept in Cache
Storage), Cache Storage refused, no cross-origin isolation, the runtime's files sent with the wrong type, and the tab's
memory refused. Each case says one sentence on the page and either runs the model or does not, and the test checks both;
none does anything the page's policy refuses. The faults of the model's files are tried with either set of weights
the reader may choose (WEIGHTS: the exact ones, or the light ones, chosen with their radio button before Load): the
file the host cuts or damages is then the largest of the chosen set's files in the page's configuration.

The small model's site is built with --live and served from 127.0.0.1 by a handler whose `how` the test sets; each
test has a context of its own (its own Cache Storage), every request off that server refused and recorded. The page
is the attention figure's (PAGE), opened at #try-own: its panel opened, the tokenizer and the runtime loaded at once.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conftest import built
from sitegen.site import live_assets

from tests.support.hosting import ISOLATING, SiteHandler, serve

from .browsing import playwright_or_skip, watch

pytest.importorskip("onnx", reason="the live page's model is exported with onnx (pip install onnx)")
pytest.importorskip("onnxscript", reason="torch's ONNX exporter needs onnxscript (pip install onnxscript)")

CONFIG = """\
[[figure]]
kind = "attention"
label = "l"
text = "The rain came down on the harbour"

[[figure]]
kind = "readout"
label = "i"
text = "The rain came down on the harbour"
target = " rain"
"""
PAGE = "figure-l.html"  # the attention figure's page: its "Try your own sentence" runs the model
TIMEOUT_MS = 60_000
RETRIED = "The download was cut; trying again (2 of 3)…"
DAMAGED_AGAIN = "A file of the model came damaged; fetching it once more…"
NOT_KEPT = "This browser would not keep it (a private window, or its storage full or refused)"
HOST_MUST_SEND = "the host must send .wasm files as application/wasm and .mjs files as text/javascript"
# The reader's two choices of weights, and where the page's configuration (#live-config) lists each one's files.
WEIGHTS = ["exact", "light"]
FILES_IN = {"exact": "model", "light": "light"}

# The page, opened at its panel (#try-own) so that the tokenizer and the runtime are loaded at once, ready: the
# scripts loaded (the Load button enabled), and whether the model is kept in this browser known.
READY = (
    "() => window.liveFigures && window.liveFigures.kept !== null && Boolean(window.liveTokens && window.ort)"
    " && !document.getElementById('live-load-button').disabled"
)

# Every text the page's message line (#live-message) shows, in turn, in window.said (an init script is not held to
# the page's policy).
RECORD_SAID = """window.said = [];
document.addEventListener('DOMContentLoaded', () => {
  const line = document.getElementById('live-message');
  if (line) new MutationObserver(() => { window.said.push(line.textContent); })
    .observe(line, {childList: true, characterData: true, subtree: true});
});"""


@dataclass
class How:
    """How the host misbehaves now: `cuts` downloads of the `target` file (the largest of the chosen weights') cut
    halfway, Range requests taken or not, that file's bytes damaged, COOP/COEP sent, .wasm or .mjs sent with the
    wrong type."""

    target: str = ""  # the URL path of the model's file that is cut or damaged (the `host` fixture sets it)
    cuts: int = 0
    ranges: bool = False
    damaged: bool = False
    isolated: bool = False
    wrong_type: str = ""  # ".wasm" or ".mjs"
    sent_wrong: int = 0  # files sent with the wrong type
    damaged_runtime: str = ""  # the URL path of a file of the runtime (or a script of the page) sent damaged
    asked: list = field(default_factory=list)  # (path, Range header or None) of each request of the model


class Host(SiteHandler):
    """The site, misbehaving as `how` says (set by the `host` fixture before each test)."""

    how = How()

    def guess_type(self, path):
        if self.how.wrong_type and str(path).endswith(self.how.wrong_type):
            self.how.sent_wrong += 1
            return "application/octet-stream"
        return super().guess_type(path)

    def end_headers(self):
        if self.how.isolated:
            for name, value in ISOLATING.items():
                self.send_header(name, value)
        super().end_headers()  # SiteHandler's: its extra_headers, none here

    def do_GET(self):
        path = self.path.split("?")[0]
        if path == self.how.damaged_runtime:
            return self.send_damaged(path)
        if "/live/model/" not in path:
            return super().do_GET()
        self.how.asked.append((path, self.headers.get("Range")))
        data = Path(self.translate_path(path)).read_bytes()
        target = path == self.how.target
        if target and self.how.damaged:
            data = data[:100] + bytes([data[100] ^ 1]) + data[101:]
        start = self.range_start() if self.how.ranges else None
        self.send_response(206 if start is not None else 200)
        self.send_header("Content-Type", "application/octet-stream")
        if self.how.ranges:
            self.send_header("Accept-Ranges", "bytes")
        if start is not None:
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        body = data[start or 0 :]
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if target and self.how.cuts > 0:
            self.how.cuts -= 1
            self.wfile.write(body[: len(body) // 2])  # and the connection closes: the rest never comes
            self.close_connection = True
            return None
        self.wfile.write(body)
        return None

    def send_damaged(self, path: str) -> None:
        """The file with its 100th byte changed, its type as ever."""
        data = bytearray(Path(self.translate_path(path)).read_bytes())
        data[100] ^= 1
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(bytes(data))

    def range_start(self) -> int | None:
        match = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range") or "")
        return int(match.group(1)) if match else None


@pytest.fixture(scope="module")
def site(small_model_dir, tmp_path_factory) -> Path:
    missing = live_assets.problems()
    if missing:
        pytest.skip(f"the live page's libraries are not installed ({'; '.join(missing)}): run ./setup.sh --live")
    return built(small_model_dir, CONFIG, tmp_path_factory.mktemp("live-network"), "--live")


def live_config(site: Path) -> dict:
    """The page's configuration (#live-config), as the build wrote it."""
    html = (site / PAGE).read_text(encoding="utf-8")
    return json.loads(re.search(r'id="live-config">(.*?)</script>', html, re.S).group(1))


def files_of(site: Path, weights: str) -> list[dict]:
    """The files of the chosen weights, as the page's configuration lists them: {path, name, bytes, sha256}."""
    return live_config(site)[FILES_IN[weights]]["files"]


def paths_of(site: Path, weights: str) -> set[str]:
    """The URL paths of the chosen weights' files."""
    return {"/" + entry["path"] for entry in files_of(site, weights)}


def largest_of(site: Path, weights: str) -> str:
    """The URL path of the largest file of the chosen weights."""
    return "/" + max(files_of(site, weights), key=lambda entry: entry["bytes"])["path"]


@pytest.fixture(scope="module")
def server(site):
    """The site's address on 127.0.0.1 and its handler class."""
    with serve(site, Host, site=str(site)) as here:
        yield here.url, here.handler


@pytest.fixture
def weights() -> str:
    """The weights the reader chooses before Load: the exact ones, unless a test parametrizes it over WEIGHTS."""
    return "exact"


@pytest.fixture
def host(server, weights):
    """The host's How for this test (it behaves until the test sets otherwise), its target the largest file of the
    chosen weights."""
    server[1].how = How(target=largest_of(server_site(server), weights))
    return server[1].how


def choose(visit, weights: str) -> None:
    """The reader's choice of weights, made before Load as a reader makes it (the page is wide: exact at first)."""
    page = visit.page
    assert page.evaluate("window.liveFigures.weights") == "exact"  # the wide page's first choice
    if weights == "light":
        page.check("#live-weights-light")
    assert page.evaluate("window.liveFigures.weights") == weights
    chosen = live_config(visit.site)[FILES_IN[weights]]["bytes"]
    assert page.get_attribute("#live-load-button", "data-bytes") == str(chosen)  # the button loads the chosen set


def reload(visit) -> None:
    """The page again (a second visit), its scripts loaded, the same weights chosen."""
    visit.page.reload()
    visit.page.wait_for_function(READY)
    choose(visit, visit.weights)


@pytest.fixture
def opened(browser, server, weights):
    """opened(init_script=None): the attention figure's page at its "Try your own sentence" (#try-own), in a context
    of its own, watched, the panel's scripts loaded, the test's weights chosen; closed after the test."""
    playwright_or_skip()
    contexts = []

    def _open(init_script: str | None = None):
        context = browser.browser.new_context(viewport={"width": 1100, "height": 900})
        contexts.append(context)
        page = context.new_page()
        visit = watch(page, PAGE, served=server[0])
        visit.console = []  # every console line, of any type
        page.on("console", lambda line: visit.console.append(line.text))
        page.add_init_script(RECORD_SAID)
        if init_script:
            page.add_init_script(init_script)
        page.goto(server[0] + PAGE + "#try-own")
        page.wait_for_function(READY)
        assert page.evaluate("document.getElementById('try-own').open")  # the address opened the panel
        visit.weights, visit.site = weights, server_site(server)
        choose(visit, weights)
        return visit

    yield _open
    for context in contexts:
        context.close()


def load(visit) -> str:
    """Clicks the button and waits until the text is drawn or the load failed; the state then."""
    page = visit.page
    page.click("#live-load-button")
    page.wait_for_function("() => ['drawn', 'error'].includes(window.liveFigures.state)", timeout=TIMEOUT_MS)
    return page.evaluate("window.liveFigures.state")


def said(visit) -> list[str]:
    return visit.page.evaluate("window.said")


def message(visit) -> str:
    return visit.page.text_content("#live-message")


def assert_ran(visit, state: str) -> None:
    assert state == "drawn", message(visit)
    assert visit.page.evaluate("window.liveFigures.result !== null && window.liveFigures.loadedFrom !== null")


def assert_did_not_run(visit, state: str) -> None:
    assert state == "error"
    assert visit.page.evaluate("window.liveFigures.result === null && window.liveFigures.loadedFrom === null")
    assert visit.page.is_enabled("#live-load-button")  # the way out: the button tries again


def assert_policy_kept(visit) -> None:
    assert visit.policy_violations == [], visit.policy_violations
    assert visit.refused == [] and visit.page_errors == [], (visit.refused, visit.page_errors)


def one_sentence(words: str) -> bool:
    return words.endswith(".") and ". " not in words[:-1]


def replaced_once_whole(lines: list[str], trouble: str) -> bool:
    """Whether the line about a file's trouble went as soon as the file came whole: the next line said is empty,
    not the run's (a stale "trying again" would stay on screen while the other files load, until the text runs)."""
    at = len(lines) - 1 - lines[::-1].index(trouble)
    return lines[at + 1 : at + 2] == [""]


def model_asks(how: How) -> list:
    """The Range header (or None) of each request of the file the host cuts or damages."""
    return [range_ for path, range_ in how.asked if path == how.target]


def asked_paths(how: How) -> set[str]:
    return {path for path, _ in how.asked}


@pytest.mark.parametrize("weights", WEIGHTS)
def test_a_cut_download_resumes_with_a_range_request_and_says_so(opened, host, server, weights):
    host.cuts, host.ranges = 1, True
    visit = opened()
    assert_ran(visit, load(visit))
    assert RETRIED in said(visit) and replaced_once_whole(said(visit), RETRIED)
    assert asked_paths(host) == paths_of(server_site(server), weights)  # the chosen set's files, and only those
    asks = model_asks(host)
    assert len(asks) == 2 and asks[0] is None and re.fullmatch(r"bytes=[1-9]\d*-", asks[1]), asks
    # The second request asks for the rest from where the cut stopped: at most half of the file came before it.
    size = (server_site(server) / host.target.lstrip("/")).stat().st_size
    assert 0 < int(asks[1][len("bytes=") : -1]) <= size // 2, (asks, size)
    assert visit.page.evaluate("window.liveFigures.weights") == weights
    assert visit.page.evaluate("window.liveFigures.keptNow") is True
    assert all("ERR_CONTENT_LENGTH_MISMATCH" in line for line in visit.console_errors), visit.console_errors
    assert_policy_kept(visit)


@pytest.mark.parametrize("weights", WEIGHTS)
def test_a_cut_download_starts_again_where_the_host_takes_no_ranges(opened, host, server, weights):
    host.cuts = 2
    visit = opened()
    assert_ran(visit, load(visit))
    assert RETRIED in said(visit) and "The download was cut; trying again (3 of 3)…" in said(visit)
    assert replaced_once_whole(said(visit), "The download was cut; trying again (3 of 3)…"), said(visit)
    assert asked_paths(host) == paths_of(server_site(server), weights)
    assert model_asks(host) == [None, None, None]
    assert_policy_kept(visit)


@pytest.mark.parametrize("weights", WEIGHTS)
def test_a_download_cut_every_time_is_one_sentence_and_nothing_runs(opened, host, weights):
    host.cuts, host.ranges = 3, True
    visit = opened()
    assert_did_not_run(visit, load(visit))
    words = message(visit)
    assert words.startswith("The download of the model was cut 3 times") and one_sentence(words), words
    asks = model_asks(host)
    assert len(asks) == 3 and asks[0] is None and all(re.fullmatch(r"bytes=[1-9]\d*-", a) for a in asks[1:]), asks
    assert_policy_kept(visit)


# The URL paths of the files kept in this page's Cache Storage.
KEPT_PATHS = """async () => {
  const paths = [];
  for (const name of await caches.keys())
    for (const request of await (await caches.open(name)).keys()) paths.push(new URL(request.url).pathname);
  return paths;
}"""


@pytest.mark.parametrize("weights", WEIGHTS)
def test_damaged_bytes_are_fetched_once_more_then_refused_in_one_sentence_and_never_run(opened, host, server, weights):
    host.damaged = True
    visit = opened()
    assert_did_not_run(visit, load(visit))
    words, name = message(visit), host.target.rsplit("/", 1)[1]
    assert words.startswith(f"A file of the model ({name}) came with other bytes") and one_sentence(words), words
    assert "will not run it" in words and DAMAGED_AGAIN in said(visit)
    assert len(model_asks(host)) == 2
    assert asked_paths(host) == paths_of(server_site(server), weights)
    kept = visit.page.evaluate(KEPT_PATHS)
    # Every other file of the chosen set is kept; the damaged one never.
    assert sorted(kept) == sorted(paths_of(server_site(server), weights) - {host.target}), kept
    assert_policy_kept(visit)


# Damages the kept copy of the largest file: the same entry, one byte changed.
DAMAGE_KEPT = """async (largest) => {
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      if (new URL(request.url).pathname !== largest) continue;
      const bytes = new Uint8Array(await (await cache.match(request)).arrayBuffer());
      bytes[100] ^= 1;
      await cache.put(request, new Response(bytes, {headers: {'Content-Length': String(bytes.length)}}));
      return true;
    }
  }
  return false;
}"""


@pytest.mark.parametrize("weights", WEIGHTS)
def test_a_damaged_copy_in_the_browsers_storage_is_deleted_fetched_again_and_then_runs(opened, host, server, weights):
    visit = opened()
    assert_ran(visit, load(visit))
    page, largest = visit.page, host.target
    assert page.evaluate(DAMAGE_KEPT, largest)
    host.asked.clear()
    reload(visit)
    assert_ran(visit, load(visit))
    assert DAMAGED_AGAIN in said(visit) and replaced_once_whole(said(visit), DAMAGED_AGAIN), said(visit)
    assert [path for path, _ in host.asked] == [largest]  # only the damaged file, once
    assert page.evaluate("window.liveFigures.loadedFrom") == "both"
    # How much came from each: the largest file downloaded again, the others from the browser's storage.
    status, size = page.text_content("#live-load-status"), (server_site(server) / largest.lstrip("/")).stat().st_size
    mb = size / 1e6
    assert f"({mb:.0f} MB downloaded, " in status or f"({mb:.1f} MB downloaded, " in status, status
    assert "MB from this browser's storage" in status, status
    assert_policy_kept(visit)


REFUSE_STORAGE = {
    "caches.open": "CacheStorage.prototype.open = () => Promise.reject(new DOMException('refused', 'SecurityError'));",
    "cache.put": "Cache.prototype.put = () => Promise.reject(new DOMException('full', 'QuotaExceededError'));",
}


@pytest.mark.parametrize("weights", WEIGHTS)
@pytest.mark.parametrize("refused", sorted(REFUSE_STORAGE))
def test_storage_refused_runs_from_memory_and_says_it_will_not_be_kept(opened, host, server, refused, weights):
    visit = opened(REFUSE_STORAGE[refused])
    assert_ran(visit, load(visit))
    status = visit.page.text_content("#live-load-status")
    assert status.startswith("The model is loaded in this page (downloaded") and NOT_KEPT in status, status
    said_so = status[status.index(NOT_KEPT) :]  # the one sentence after the load's, and nothing after it
    assert one_sentence(said_so) and "it runs from memory now" in said_so, status
    assert visit.page.evaluate("window.liveFigures.keptNow") is False
    assert visit.page.evaluate("window.liveFigures.weights") == weights
    # The chosen set's files, each downloaded once and whole, run from memory.
    assert sorted(host.asked) == sorted((path, None) for path in paths_of(server_site(server), weights)), host.asked
    assert_policy_kept(visit)


@pytest.mark.parametrize("isolated", [False, True], ids=["no COOP/COEP", "COOP/COEP"])
def test_without_cross_origin_isolation_the_model_runs_on_one_thread(opened, host, isolated):
    host.isolated = isolated
    visit = opened()
    assert visit.page.evaluate("crossOriginIsolated") is isolated
    assert_ran(visit, load(visit))
    threads = visit.page.evaluate("ort.env.wasm.numThreads")
    assert (threads > 1) if isolated else (threads == 1), threads
    assert ("threads" in visit.page.text_content("#live-load-status")) is isolated
    # The page asked for one thread itself (onnxruntime-web would fall back to one, warning that it must).
    assert not any("numThreads is set to" in line for line in visit.console), visit.console
    assert_policy_kept(visit)


def test_wasm_sent_with_the_wrong_type_still_runs(opened, host):
    host.wrong_type = ".wasm"
    visit = opened()
    assert_ran(visit, load(visit))  # the runtime runs the bytes the page checked: the .wasm is fetched once
    assert host.sent_wrong == 1
    assert_policy_kept(visit)


def test_the_runtimes_module_sent_with_the_wrong_type_says_what_the_host_must_send(opened, host):
    host.wrong_type = ".mjs"
    visit = opened()
    assert_did_not_run(visit, load(visit))
    assert host.sent_wrong >= 1
    assert host.asked == []  # told before any file of the model was fetched
    words = message(visit)
    assert HOST_MUST_SEND in words and one_sentence(words), words
    assert_policy_kept(visit)


REFUSE_MEMORY = {
    "wasm memory": """(() => {
      const refuse = () => Promise.reject(new RangeError(
        'WebAssembly.instantiate(): Out of memory: Cannot allocate Wasm memory for new instance'));
      WebAssembly.instantiate = refuse;
      WebAssembly.instantiateStreaming = refuse;
    })();""",
    "array buffer": """(() => {
      const arrayBuffer = Blob.prototype.arrayBuffer;
      Blob.prototype.arrayBuffer = function () {
        return this.size > 1e6 ? Promise.reject(new RangeError('Array buffer allocation failed'))
                               : arrayBuffer.call(this);
      };
    })();""",
}


@pytest.mark.parametrize("refused", sorted(REFUSE_MEMORY))
def test_the_tabs_memory_refused_is_one_sentence_and_the_rest_of_the_page_works(opened, host, refused):
    visit = opened(REFUSE_MEMORY[refused])
    assert_did_not_run(visit, load(visit))
    words = message(visit)
    assert words.startswith("This browser tab was refused the memory the model needs") and one_sentence(words), words
    page = visit.page
    page.fill("#live-text", "One two three")  # the box still counts tokens, with no model
    page.wait_for_function("() => document.getElementById('live-count').textContent.startsWith('3 of ')")
    assert_policy_kept(visit)


def test_where_the_browser_cannot_check_the_files_nothing_runs(opened, host):
    # crypto.subtle is there only in a secure context (https://, localhost, 127.0.0.1, and file:// in Chromium, from
    # where the page runs nothing anyway): as if the page were served over plain http:// from another address.
    visit = opened("Object.defineProperty(Crypto.prototype, 'subtle', {get: () => undefined});")
    assert_did_not_run(visit, load(visit))
    words = message(visit)
    assert words.startswith("This browser cannot check the files of the model here") and one_sentence(words), words
    assert host.asked == []  # nothing downloaded that could not be run
    assert_policy_kept(visit)


def server_site(server) -> Path:
    """The folder the test's host serves."""
    return Path(server[1].site)


@pytest.mark.parametrize("weights", WEIGHTS)
def test_a_second_visit_says_the_model_came_from_this_browsers_storage(opened, host, server, weights):
    visit = opened()
    assert_ran(visit, load(visit))
    assert visit.page.text_content("#live-load-status").startswith(f"{MODEL} is loaded in this page (downloaded, ")
    assert asked_paths(host) == paths_of(server_site(server), weights)
    host.asked.clear()
    reload(visit)
    assert_ran(visit, load(visit))
    status = visit.page.text_content("#live-load-status")
    assert status.startswith(f"{MODEL} is loaded in this page (from this browser's storage, "), status
    assert host.asked == []
    assert_policy_kept(visit)


# The model as this site's pages name it: a small model from a folder, neither GPT-2 nor the random one.
MODEL = "The model"
RUNTIME = ["live/ort/ort-wasm-simd-threaded.mjs", "live/ort/ort-wasm-simd-threaded.wasm"]


@pytest.mark.parametrize("path", RUNTIME)
def test_a_damaged_runtime_file_is_refused_in_one_sentence_before_the_model_is_fetched(opened, host, path):
    host.damaged_runtime = "/" + path
    visit = opened()
    assert_did_not_run(visit, load(visit))
    words = message(visit)
    assert words.startswith(f"A file of the page's runtime ({path}) came with other bytes") and one_sentence(words), (
        words
    )
    assert host.asked == []  # nothing of the model fetched for a runtime that will not run
    assert_policy_kept(visit)


def test_every_script_of_the_page_is_checked_against_the_builds_sha256(site):
    html = (site / PAGE).read_text(encoding="utf-8")
    live = [src for src in re.findall(r'<script src="([^"]+)"', html) if src.startswith("live/")]
    # No integrity attribute: from file:// Chromium would refuse the scripts, and the page could say nothing.
    assert live and "integrity=" not in html, live
    config = json.loads(re.search(r'id="live-config">(.*?)</script>', html, re.S).group(1))
    # The scripts the page loads only when the reader opens "Try your own sentence": the tokenizer and the runtime.
    later = config["scripts"]
    assert "live/tokenize.js" in later and not set(later) & set(live), (later, live)
    checked = {entry["path"]: entry for entry in config["runtime"]}
    assert set(live + later + RUNTIME) <= set(checked), (live, later, sorted(checked))
    for path, entry in checked.items():
        data = (site / path).read_bytes()
        assert (len(data), hashlib.sha256(data).hexdigest()) == (entry["bytes"], entry["sha256"]), path


def test_a_damaged_script_of_the_page_is_refused_in_one_sentence_before_the_model_is_fetched(opened, host):
    path = "live/tokenize.js"
    host.damaged_runtime = "/" + path
    visit = opened()
    assert_did_not_run(visit, load(visit))
    words = message(visit)
    assert words.startswith(f"A file of the page's runtime ({path}) came with other bytes") and one_sentence(words), (
        words
    )
    assert host.asked == []  # nothing of the model fetched
    assert_policy_kept(visit)
