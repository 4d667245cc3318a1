"""Drawing: each figure's chart compiled to Vega and its static drawings, made by vl-convert in a process of its own.

None of this work needs the model: a drawing needs only its chart's spec. So other processes draw each figure as
soon as its chart is built, while the next chart is being built: the cores work at once. They are started
only when there is something to draw (a rebuild from the cache has it all already).

The two processes talk over the worker's stdin and stdout. A request is one line of JSON; the answers come in
the order of the requests, each a status byte (b"+" done, b"-" failed), a count of parts, and each part as
its length and its bytes. The worker ends when its stdin closes, also when this process is killed.
"""

from __future__ import annotations

import functools
import json
import os
import queue
import re
import signal
import struct
import subprocess
import sys
import threading
from collections import deque
from concurrent.futures import Future
from pathlib import Path

from sitegen.site import printing, schemes
from sitegen.site.lighter import lighter
from sitegen.site.vector_pictures import vector_pictures

ROOT = Path(__file__).resolve().parents[2]  # sitegen/site/this.py -> the project folder (templates/ is there)
STATIC_WIDTH = 640  # the width of the drawings made at build time, where no page gives a container
# The first drawings (what a page shows until its live chart is drawn) are drawn as wide as the live chart draws in a
# column of a desktop's page (site.css: 58 rem) and of a phone 360 px wide (8 px a side), less the room vega-embed
# keeps at the column's right for its menu (its .has-actions' padding).
MENU_ROOM = 38
WIDE_WIDTH = 928 - MENU_ROOM
NARROW_WIDTH = 344 - MENU_ROOM
COUNT, LENGTH = struct.Struct(">I"), struct.Struct(">Q")


# ---------------------------------------------------------------------------------------------- this side

class DrawingError(Exception):
    """vl-convert could not do a job, or the drawing process ended before it answered."""


class Drawer:
    """The client of the drawing processes: each request returns a Future of its answer's parts (bytes).

    vl-convert does one job at a time in a process, and drawing takes longer than building the charts: two
    processes (one per core; a third would cost its start-up and gain no core) compile and draw side by side,
    each job going to the one with fewer waiting. Use it as a context manager: leaving the block ends the
    processes at once.
    """

    def __init__(self, processes: int = 2):
        self._workers = [_Worker() for _ in range(processes)]

    def warm_up(self) -> Future:
        """Starts the processes and pays vl-convert's first-drawing cost now, while the model runs: a Future of []."""
        return [worker.ask({"job": "warm"}) for worker in self._workers][0]

    def compiled(self, spec: dict, themes: dict) -> Future:
        """The chart's Vega-Lite spec compiled to Vega, as the page draws it: a Future of [the spec in the light
        theme (JSON bytes), the changes that make it the dark theme's (JSON bytes; see `differences`)]."""
        return self._least_busy().ask({"job": "compile", "spec": spec, "themes": themes})

    def drawings(self, spec: dict, theme: dict, width: int = STATIC_WIDTH, png: bool = True,
                 background: str = "white", fit: bool = False, dark: bool = False) -> Future:
        """The chart's opening state drawn `width` wide (where it says "container"; with `fit`, the whole fitted to
        that width as on a page) in the given theme, on `background`, with a dark page's colours (`dark`:
        sitegen.site.schemes): a Future of [SVG bytes, PNG bytes], or of [SVG bytes] without `png`. The PNG is the
        small picture of it (the index's, a link preview's): its shapes without its words. A page's drawing (`fit`)
        is made light (sitegen.site.lighter)."""
        return self._least_busy().ask({"job": "draw", "spec": spec, "theme": theme, "width": width, "png": png,
                                       "background": background, "fit": fit, "dark": dark})

    def printed(self, spec: dict, theme: dict, settings: dict) -> Future:
        """The chart drawn for print (sitegen.site.printing): a Future of [SVG bytes, PDF bytes]. `settings`: the
        font file and its family, width_pt, font_size_pt, and the caption above it (or None)."""
        return self._least_busy().ask({"job": "print", "spec": spec, "theme": theme, **settings})

    def _least_busy(self) -> _Worker:
        """The first of the processes with the fewest jobs waiting (each vl-convert does one job at a time)."""
        alive = [worker for worker in self._workers if not worker.ended] or self._workers
        return min(alive, key=lambda w: w.waiting_count())

    def __enter__(self) -> "Drawer":
        return self

    def __exit__(self, kind, error, traceback) -> None:
        for worker in self._workers:
            worker.close()


class _Worker:
    """One drawing process: requests written to its stdin by a thread, answers read back by another, in order.

    A request (a chart's spec, up to a few hundred KiB) is larger than a pipe holds: written by the build's
    own thread, it would wait until the process finished the drawing it is busy with. The writer thread waits
    instead, and the build goes on building the next chart."""

    def __init__(self):
        self.process = None
        self._waiting = deque()  # futures in the order of their requests
        self._outbox = queue.SimpleQueue()  # requests, in the same order, for the writer thread
        self.ended = False  # the process has gone: no answer will come
        self._lock = threading.Lock()  # guards _waiting, _outbox's order and ended

    def waiting_count(self) -> int:
        with self._lock:
            return len(self._waiting)

    def ask(self, request: dict) -> Future:
        future = Future()
        with self._lock:
            if self.ended:
                future.set_exception(DrawingError("the drawing process ended before it answered"))
                return future
            if self.process is None:
                self._start()
            self._waiting.append(future)
            self._outbox.put(request)
        return future

    def _start(self) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        self.process = subprocess.Popen([sys.executable, "-m", "sitegen.site.drawing"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, env=env)
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()
        threading.Thread(target=self._write, args=(self.process.stdin,), daemon=True).start()

    def _write(self, stream) -> None:
        """Writes each request line as it comes; ends at None or when the process is gone (the reader then
        fails every future still waiting)."""
        # Each written as JSON only when its turn comes: the lines of a long text's charts, several MB each, are not
        # all held at once while the model still runs.
        while (request := self._outbox.get()) is not None:
            try:
                stream.write(json.dumps(request, ensure_ascii=False).encode("utf-8") + b"\n")
                stream.flush()
            except (OSError, ValueError):  # the process ended, or its stdin was closed
                return

    def _read(self, stream) -> None:
        """Hands each answer to the future of its request, in order; on a broken stream fails the rest."""
        try:
            while True:
                status = stream.read(1)
                if not status:
                    break
                (count,) = COUNT.unpack(_exactly(stream, COUNT.size))
                parts = [_exactly(stream, LENGTH.unpack(_exactly(stream, LENGTH.size))[0]) for _ in range(count)]
                with self._lock:
                    future = self._waiting.popleft()
                if status == b"+":
                    future.set_result(parts)
                else:
                    future.set_exception(DrawingError(parts[0].decode("utf-8", "replace")))
        except (OSError, EOFError, struct.error, IndexError):
            pass
        with self._lock:
            self.ended = True
            while self._waiting:
                self._waiting.popleft().set_exception(DrawingError("the drawing process ended before it answered"))

    def close(self) -> None:
        """Ends the process at once. A build that succeeded has every answer it asked for, and one that failed
        or was interrupted wants none: waiting for vl-convert to wind down serves no one."""
        process = self.process
        if process is None:
            return
        process.kill()
        self._outbox.put(None)  # the writer thread ends (or fails its write, the process being gone)
        process.wait()  # the reader thread then meets the end of its stream, and fails what still waits


def _exactly(stream, n: int) -> bytes:
    data = stream.read(n)
    if len(data) != n:
        raise EOFError
    return data


# ---------------------------------------------------------------------------------------------- the worker

def serve(requests=None, answers=None) -> None:
    """The drawing process: answers each request line of `requests` on `answers`, until `requests` ends."""
    try:
        import vl_convert
    except Exception as exc:  # noqa: BLE001 - said in answer to every request, so the build can name it
        vl_convert, missing = None, exc
    requests = requests or sys.stdin.buffer
    answers = answers or sys.stdout.buffer
    for line in requests:
        request = json.loads(line)
        try:
            if vl_convert is None:
                raise RuntimeError(f"vl-convert cannot be loaded ({missing})")
            parts = _do(vl_convert, request)
            status = b"+"
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # noqa: BLE001 - every failure goes back to the build, which names the figure
            # (a Rust panic in vl-convert comes as pyo3's PanicException, a BaseException: it must not end the process)
            parts, status = [one_line(f"{type(exc).__name__}: {exc}").encode("utf-8")], b"-"
        answers.write(status + COUNT.pack(len(parts)) + b"".join(LENGTH.pack(len(p)) + p for p in parts))
        answers.flush()


def one_line(message: str) -> str:
    """An error as one line for the build to say: vl-convert's Rust errors end in a stack backtrace of some 30
    frames, which tells the reader nothing; it is cut off, and the lines left are joined."""
    message = re.split(r"\s*Stack backtrace:", message, maxsplit=1)[0]
    return " ".join(message.split())


def _do(vl_convert, request: dict) -> list[bytes]:
    if request["job"] == "warm":
        # The first drawing of a process takes half a second more than the next ones.
        vl_convert.vegalite_to_svg({"mark": "point", "data": {"values": [{}]}}, vl_version=vl_version())
        return []
    if request["job"] == "compile":
        # Each theme's colours are compiled into the marks, and the dark page's own (schemes.in_dark): the dark spec
        # is sent as its differences only.
        light, dark = (vl_convert.vegalite_to_vega({**spec, "config": request["themes"][name]},
                                                   vl_version=vl_version())
                       for name, spec in (("light", request["spec"]), ("dark", schemes.in_dark(request["spec"]))))
        if "usermeta" in request["spec"]:  # what the page's script reads (a long text's head files...)
            light["usermeta"] = dark["usermeta"] = request["spec"]["usermeta"]
        return [json.dumps(light, ensure_ascii=False).encode("utf-8"),
                json.dumps(differences(light, dark), ensure_ascii=False).encode("utf-8")]
    if request["job"] == "draw":
        # Laid out as Vega-Lite lays out views of a fixed width, without fitting the whole to a column: a page has
        # a column, a drawing has none, and fitting makes Vega lay the chart out twice (a third of the time).
        # A first drawing (`fit`) is laid out as its live chart is, fitted to its column: its size is the live chart's
        # there. A view as wide as its column is fitted to it by Vega-Lite, which a width in numbers no longer says.
        spec = schemes.in_dark(request["spec"]) if request.get("dark") else request["spec"]
        spec = {key: value for key, value in fixed_width(spec, request["width"]).items()
                if key != "autosize" or request["fit"]}
        if request["fit"] and request["spec"].get("width") == "container" and "autosize" not in spec:
            spec["autosize"] = {"type": "fit-x", "contains": "padding"}
        if request["fit"]:  # its words wrap to its column as the live chart's do (figures.toolkit.charts.wrap_lines)
            spec = in_column(spec, request["width"])
        spec["config"] = {**request["theme"], "background": request["background"]}
        svg = stable_ids(vl_convert.vegalite_to_svg(spec, vl_version=vl_version()))
        if request["fit"]:  # a page's drawing, shown until its live chart is: as light as it can be
            svg = lighter(svg)
        # the small picture about STATIC_WIDTH wide: large enough for a link preview, small for the index
        scale = min(1.0, STATIC_WIDTH / request["width"])
        png = [vl_convert.svg_to_png(shapes_only(svg), scale=scale)] if request["png"] else []
        return [svg.encode("utf-8"), *png]
    if request["job"] == "print":
        return print_drawings(vl_convert, request)
    raise ValueError(f"no such job: {request['job']!r}")


def laid_out(spec: dict, width: int) -> dict:
    """A spec laid out as its live chart is in a column `width` wide: its views of width "container" that wide, the
    whole fitted to it, its words wrapped to it."""
    out = fixed_width(spec, width)
    if spec.get("width") == "container" and "autosize" not in out:
        out["autosize"] = {"type": "fit-x", "contains": "padding"}
    return in_column(out, width)


def print_drawings(vl_convert, request: dict) -> list[bytes]:
    """The print edition's drawings of a chart (sitegen.site.printing): [SVG, PDF] at the column's width, in the
    config's font, embedded in the PDF."""
    printing.register_font(vl_convert, request["font"])
    width = printing.layout_width(request["width_pt"], request["font_size_pt"])
    spec = printing.plain_face(printing.with_caption(laid_out(request["spec"], width), request["caption"], width))
    spec["config"] = printing.print_config(request["theme"], request["family"])
    svg = stable_ids(vl_convert.vegalite_to_svg(spec, vl_version=vl_version()))
    svg = vector_pictures(svg, request["greyscale"])
    scale = printing.scale_for(svg, request["width_pt"], width)
    width_px, height_px = printing.svg_size(svg)
    pdf = printing.canonical_pdf(vl_convert.svg_to_pdf(printing.sized(svg, width_px * scale, height_px * scale)))
    mm = scale * printing.MM_PER_PT
    return [printing.sized(svg, width_px * mm, height_px * mm, "mm").encode("utf-8"), pdf]


def differences(old, new, path=()) -> list:
    """What turns `old` into `new` (JSON data), as [path, value] to set and [path] to delete; a path is the keys
    and list indices from the top. Equal parts (a chart's data) are left out: the dark theme's spec differs
    from the light one's in its colours only, so the page carries one spec and these few changes."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = [[[*path, key]] for key in old if key not in new]
        for key, value in new.items():
            out += differences(old[key], value, (*path, key)) if key in old else [[[*path, key], value]]
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [change for i, (a, b) in enumerate(zip(old, new)) for change in differences(a, b, (*path, i))]
    return [] if old == new else [[list(path), new]]


@functools.cache
def vl_version() -> str:
    """The Vega-Lite version Altair writes specs for, as vl-convert names it ('6.4')."""
    import altair as alt

    return ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])


def shapes_only(svg: str) -> str:
    """The drawing without its words, for the small picture: shown a quarter of its size its words would be
    smudges, and setting them is nine tenths of the time a PNG takes (0.7 of 0.8 s for the chapter's figures)."""
    # An empty label is written <text .../>: taken alone, or the next </text> would take the elements between.
    return re.sub(r"<text\b[^>]*/>|<text\b[^>]*>.*?</text>", "", svg, flags=re.S)


def stable_ids(svg: str) -> str:
    """Vega numbers gradients and clips with a counter that runs across drawings; number them per drawing so
    that a drawing's bytes depend on the drawing alone."""
    names = {}
    for found in re.findall(r'id="((?:gradient|clip|pattern)_?\d+)"', svg):
        names.setdefault(found, f"{re.match(r'[a-z]+', found).group()}-{len(names) + 1}")
    for old, new in names.items():
        svg = re.sub(rf"\b{old}\b", new, svg)
    return svg


VIEWS = ("layer", "hconcat", "vconcat", "concat", "spec")  # where a Vega-Lite spec holds its views


def fits_column(spec: dict) -> bool:
    """Whether a Vega-Lite spec has a view of width "container": one that takes its column's width (its views only
    are read: its data and encodings, which can be large, are not)."""
    if spec.get("width") == "container":
        return True
    inner = [spec.get(key) for key in VIEWS]
    return any(fits_column(view) for views in inner if views for view in (views if isinstance(views, list) else [views])
               if isinstance(view, dict))


def in_column(spec: dict, width: int) -> dict:
    """A spec whose expressions read the width of its column (containerSize(), which a drawing made at build time
    has none of) read `width` instead."""
    return json.loads(json.dumps(spec, ensure_ascii=False).replace("containerSize()[0]", str(width)))


def fixed_width(node, width: int = STATIC_WIDTH):
    """A copy of a spec with every width "container" made `width`: a drawing made at build time has no page."""
    if isinstance(node, dict):
        return {k: (width if k == "width" and v == "container" else fixed_width(v, width)) for k, v in node.items()}
    if isinstance(node, list):
        return [fixed_width(v, width) for v in node]
    return node


if __name__ == "__main__":
    # Ctrl-C reaches the whole process group: the build answers it, and ends this process when it leaves.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The build's own process is the one the reader waits for: where both want a core, it goes first.
    os.nice(10)
    try:
        serve()
    except BrokenPipeError:  # the build ended first
        pass
