"""The capture's entry points in one place: what sitegen.pipeline calls once the model must run (and what a test
calls to run it without a build). Importing this imports torch; figsite.capture.parts's registry and versions
do not, so a cached rebuild reads them without it.

    load, Loaded, model_info, random_gpt2        a model ready to run            figsite.model.load
    gpt2_tokenizer, token_ids, token_text, ...   its tokens as the data write them  figsite.model.tokens
    run_text                                     the pass over one text         figsite.capture.text_pass
    capture_run                                  the run over every text        figsite.capture.gather
    scores, ledger, knockouts, patchings         one part's entry               figsite.capture.parts.*
"""

from __future__ import annotations

from figsite.capture.gather import capture_run
from figsite.capture.parts.knockouts import knockouts
from figsite.capture.parts.ledgers import NEURONS_SHOWN, ledger
from figsite.capture.parts.patchings import patchings
from figsite.capture.parts.scores import scores
from figsite.capture.text_pass import TextCapture, run_text
from figsite.model.load import Loaded, load, model_info, random_gpt2
from figsite.model.tokens import gpt2_tokenizer, token_bytes, token_ids, token_text, tokenized

__all__ = [
    "Loaded",
    "NEURONS_SHOWN",
    "TextCapture",
    "capture_run",
    "gpt2_tokenizer",
    "knockouts",
    "ledger",
    "load",
    "model_info",
    "patchings",
    "random_gpt2",
    "run_text",
    "scores",
    "token_bytes",
    "token_ids",
    "token_text",
    "tokenized",
]
