"""The capture: runs the model over the chapter's texts and turns what it computes into plain data.

    hooks.py      the one way it reads the model: functions at named hook points, always taken off again
    text_pass.py  the pass over one text: attention, read-out of every stage, shapes
    readout.py    the read-out: final layer norm and unembedding, top tokens' probabilities
    gather.py     the run over every text, and every part the figures ask of each
    parts/        the registry of captured parts (readout, lens, pairs, scores, ledgers, knockouts, patchings, roles)
    api.py        the entry points the pipeline calls once the model must run

Importing this package imports no torch; its modules do (figsite.capture.parts's registry aside).
"""

import figsite.model  # noqa: F401 - the model package makes the BLAS's settings before any capture module loads torch
