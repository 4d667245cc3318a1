"""The run: the model reads each distinct text once (figsite.capture.text_pass), and each captured part the
figures ask for (figsite.capture.parts) is computed from it; what they give is gathered into a Run of plain data.
"""

from __future__ import annotations

import functools
import operator
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from figsite.model.load import Loaded

import torch

from figsite.capture.parts import Part, PassPlan, Reading, registered
from figsite.capture.text_pass import TextCapture, run_text
from figsite.data.asks import Asks
from figsite.data.format import named_tokens, parts_file
from figsite.data.paths import slugs_for
from figsite.data.run import Run
from figsite.model.counts import environment, parameter_counts
from figsite.model.tokens import token_ids, token_text

SHORT_TEXT = 128  # tokens: a text up to this long is short for _threads_left_for_drawing


def capture_run(
    loaded: Loaded,
    asks: Asks,
    each: Callable[[list[str]], Iterable[str]] = lambda texts: texts,
    on_step: Callable[[Run], None] = lambda run: None,
) -> Run:
    """Runs the model once per distinct text and gathers the Run: what every figure asks, merged
    (sitegen.pipeline.gather_asks): its texts, each with the target it tracks or None, and its parts, by part name
    (figsite.capture.parts). `each` wraps the list of texts, for a progress display.

    The run grows text by text: each text's data, then what each part computes of that text. `on_step(run)` is
    called after each of these steps, so that the figures whose data are complete can be built, and drawn by
    other processes, while the model works on. The Run returned is the same whatever the steps.
    """
    parts = registered()
    run = Run(
        model=loaded.info,
        slugs=slugs_for(list(asks.texts)),
        parameters=parameter_counts(loaded),
        environment=environment(loaded),
    )
    reading = Reading(loaded, run, asks)
    in_file = [part for part in parts if part.in_parts_file]
    if any(reading.asks(part) for part in in_file):
        run.parts = parts_file([part.name for part in in_file])
    with _threads_left_for_drawing(loaded, list(asks.texts)):
        on_step(run)  # the figures that need no text (the model in numbers) can be built at once
        for text in each(list(asks.texts)):
            _read_text(reading, parts, text, asks.texts[text], on_step)
    # In the order asked, not the order the texts were read: the same data whatever the steps.
    for part in parts:
        part.finish(run, reading.asks(part))
    run.vocab = dict(sorted(run.vocab.items()))
    return run


def _read_text(
    reading: Reading, parts: Sequence[Part[Any]], text: str, target: str | None, on_step: Callable[[Run], None]
) -> None:
    """One text: its pass (doing what the parts need of it), its data into the run, then each part's answers."""
    run = reading.run
    plan = functools.reduce(operator.or_, (part.plan(reading.asks(part), text) for part in parts), PassPlan())
    capture = run_text(reading.loaded, text, target, positions=plan.read, keep_stages=plan.keep_stages)
    _add_text(run, text, capture)
    run.vocab.update(_mentioned_by(reading.loaded, run, parts, text))
    on_step(run)
    for part in parts:
        for _ in part.answer(reading, text, capture):
            run.vocab.update(_mentioned_by(reading.loaded, run, parts, text))
            on_step(run)


def _add_text(run: Run, text: str, capture: TextCapture) -> None:
    """A text's own data into the run: its data file, the shapes measured, a long text's head files."""
    run.texts[text], run.shapes[text] = capture.data, capture.shapes
    run.heads.update({(text, name): payload for name, payload in capture.heads.items()})


def _mentioned_by(loaded: Loaded, run: Run, parts: Sequence[Part[Any]], text: str) -> dict[int, str]:
    """The tokens the data of one text name (its read-outs, its target, the parts' data of it) that the run's
    vocabulary lacks: id -> text."""
    mentioned = named_tokens(run.texts[text])
    for part in parts:
        mentioned |= part.mentions(run, text)
    return {token_id: token_text(loaded, token_id) for token_id in mentioned - run.vocab.keys()}


@contextmanager
def _threads_left_for_drawing(loaded: Loaded, texts: list[str]) -> Iterator[None]:
    """While the model reads short texts, torch leaves one core to the processes that draw the figures built
    so far: on small matrices a second thread gains torch little (a cold build of the chapter takes 0.4 s less
    on two cores). Long texts keep every core: there the model's own products are the work."""
    short = all(len(token_ids(loaded, text)) <= SHORT_TEXT for text in texts)
    before = torch.get_num_threads()
    if short and loaded.device == "cpu" and before > 1:
        torch.set_num_threads(max(1, min(before, os.cpu_count() or 1) - 1))
    try:
        yield
    finally:
        torch.set_num_threads(before)
