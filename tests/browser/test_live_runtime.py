"""onnxruntime-web, wasm only, as the live page will run GPT-2: its files copied as sitegen/site/live_assets.py
says, served from 127.0.0.1 (import() and fetch() do not work from file://), a small ONNX model (MatMul, Add,
Softmax) whose weights are in an external data file, run in headless Chromium and compared with numpy. One
thread where the page is not cross-origin isolated; worker threads where it is (COOP and COEP headers). No
request may leave the local server.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sitegen.site import live_assets
from tests.support.hosting import ISOLATING, SiteHandler, serve

onnx = pytest.importorskip("onnx", reason="the runtime test builds its model with onnx (pip install onnx)")

N_IN, N_OUT, ROWS = 64, 512, 3
WEIGHTS = "model.onnx.data"

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>runtime</title><link rel="icon" href="data:,">
<script src="live/ort/ort.wasm.min.js"></script>
<script>
// weights: 'buffer' (fetched here, passed as an ArrayBuffer) or 'url' (ORT fetches them itself).
async function runModel(input, rows, threads, weights) {
  ort.env.wasm.wasmPaths = new URL('live/ort/', location.href).href;
  ort.env.wasm.numThreads = threads;
  const model = await (await fetch('model.onnx')).arrayBuffer();
  const data = weights === 'buffer' ? await (await fetch('%(weights)s')).arrayBuffer()
                                    : new URL('%(weights)s', location.href).href;
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['wasm'], externalData: [{path: '%(weights)s', data: data}]});
  const x = new ort.Tensor('float32', Float32Array.from(input), [rows, %(n_in)d]);
  const out = await session.run({x: x});
  const result = {y: Array.from(out.y.data), dims: out.y.dims, isolated: crossOriginIsolated,
                  threads: ort.env.wasm.numThreads};
  await session.release();
  return result;
}
</script>
</head><body></body></html>
""" % {"weights": WEIGHTS, "n_in": N_IN}


def write_model(folder: Path, rng) -> tuple[np.ndarray, np.ndarray]:
    """model.onnx (y = softmax(x W + b)) with W and b in model.onnx.data; returns W and b."""
    from onnx import TensorProto, helper, numpy_helper

    weight = rng.standard_normal((N_IN, N_OUT)).astype(np.float32)
    bias = rng.standard_normal(N_OUT).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "W"], ["h"]),
            helper.make_node("Add", ["h", "b"], ["z"]),
            helper.make_node("Softmax", ["z"], ["y"], axis=-1),
        ],
        "smoke",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["rows", N_IN])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["rows", N_OUT])],
        [numpy_helper.from_array(weight, "W"), numpy_helper.from_array(bias, "b")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    onnx.save_model(
        model,
        str(folder / "model.onnx"),
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location=WEIGHTS,
        size_threshold=0,
    )
    assert (folder / WEIGHTS).stat().st_size == 4 * (N_IN * N_OUT + N_OUT)
    return weight, bias


class Handler(SiteHandler):
    """The site folder at /plain/ and, with the headers that make a page cross-origin isolated, at /isolated/."""

    def translate_path(self, path):
        for prefix in ("/plain/", "/isolated/"):
            if path.startswith(prefix):
                return super().translate_path("/" + path[len(prefix) :])
        return super().translate_path("/nothing-here/")

    def end_headers(self):
        if self.path.startswith("/isolated/"):
            for name, value in ISOLATING.items():
                self.send_header(name, value)
        super().end_headers()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The live page's runtime files and the model, served at http://127.0.0.1:PORT/; yields (base URL, W, b)."""
    problems = live_assets.problems(("onnxruntime-web",))
    if problems:
        pytest.skip(f"the live page's runtime is not installed ({'; '.join(problems)}): run ./setup.sh --live")
    site = tmp_path_factory.mktemp("live-runtime")
    live_assets.copy_into(site, ("onnxruntime-web",))
    (site / "runtime.html").write_text(PAGE, encoding="utf-8")
    weight, bias = write_model(site, np.random.default_rng(0))
    with serve(site, Handler) as host:
        yield host.url, weight, bias


def run_in_chromium(browser, url: str, rows: np.ndarray, threads: int, weights: str) -> tuple[dict, dict]:
    """Opens `url` in a context of its own and runs the model; returns its result and what the page did:
    every URL asked for, the workers it started, the requests refused (not to the local server), its errors."""
    origin = url.split("/", 3)[:3]
    seen = {"requests": [], "workers": [], "refused": [], "errors": []}

    def route(request_route):
        if request_route.request.url.split("/", 3)[:3] == origin:
            request_route.continue_()
        else:
            seen["refused"].append(request_route.request.url)
            request_route.abort()

    context = browser.browser.new_context()
    try:
        context.route("**/*", route)
        context.on("request", lambda request: seen["requests"].append(request.url))
        page = context.new_page()
        page.on("worker", lambda worker: seen["workers"].append(worker.url))
        page.on("console", lambda message: message.type == "error" and seen["errors"].append(message.text))
        page.on("pageerror", lambda error: seen["errors"].append(str(error)))
        page.goto(url)
        result = page.evaluate(
            "([x, rows, threads, weights]) => runModel(x, rows, threads, weights)",
            [rows.ravel().tolist(), len(rows), threads, weights],
        )
    finally:
        context.close()
    return result, seen


def expected(rows, weight, bias) -> np.ndarray:
    z = rows.astype(np.float64) @ weight + bias
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def check_run(result, seen, rows, weight, bias, base) -> None:
    assert seen["refused"] == [] and seen["errors"] == [], seen
    assert all(url.startswith(base) for url in seen["requests"]), seen["requests"]
    assert result["dims"] == [len(rows), N_OUT]
    y = np.array(result["y"]).reshape(len(rows), N_OUT)
    np.testing.assert_allclose(y, expected(rows, weight, bias), rtol=1e-4, atol=1e-6)


def test_one_thread_where_not_isolated_weights_passed_as_a_buffer(browser, served):
    base, weight, bias = served
    rows = np.random.default_rng(1).standard_normal((ROWS, N_IN)).astype(np.float32)
    result, seen = run_in_chromium(browser, base + "plain/runtime.html", rows, 1, "buffer")
    check_run(result, seen, rows, weight, bias, base)
    assert result["isolated"] is False and result["threads"] == 1
    assert seen["workers"] == []
    asked = {url[len(base + "plain/") :] for url in seen["requests"]}
    runtime = {path for path in live_assets.LIVE_ASSETS if path.startswith("live/ort/")}  # all three, no more
    assert asked == {"runtime.html", "model.onnx", WEIGHTS, *runtime}, asked


def test_worker_threads_where_cross_origin_isolated_weights_fetched_by_ort(browser, served):
    base, weight, bias = served
    rows = np.random.default_rng(2).standard_normal((ROWS, N_IN)).astype(np.float32)
    result, seen = run_in_chromium(browser, base + "isolated/runtime.html", rows, 2, "url")
    check_run(result, seen, rows, weight, bias, base)
    assert result["isolated"] is True and result["threads"] == 2
    assert any(url.endswith("/live/ort/ort-wasm-simd-threaded.mjs") for url in seen["workers"]), seen["workers"]
