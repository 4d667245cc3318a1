"""Importing the code has no effect but the model package's one: the BLAS's settings, made before torch loads
whichever module is imported first; versions and the code's digest are read when a build first asks, not at import."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = {"MKL_DYNAMIC": "FALSE", "OMP_DYNAMIC": "FALSE", "MKL_CBWR": "AUTO,STRICT"}
# Records the BLAS's settings as they stand when torch itself starts loading, then imports the module named.
WATCH = """
import importlib, importlib.abc, json, os, sys
seen = {}
class Watch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "torch" and not seen:
            seen.update({key: os.environ.get(key) for key in %r})
        return None
sys.meta_path.insert(0, Watch())
importlib.import_module(sys.argv[1])
print(json.dumps(seen))
"""


def first_import(module: str) -> str:
    env = {key: value for key, value in os.environ.items() if key not in SETTINGS}
    result = subprocess.run(
        [sys.executable, "-c", WATCH % list(SETTINGS), module],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.strip()


@pytest.mark.parametrize(
    "module", ["figsite.model.interface", "figsite.model.llama", "figsite.capture.hooks", "figsite.capture.gather"]
)
def test_the_blas_settings_are_made_before_torch_loads_whichever_module_comes_first(module):
    import json

    assert json.loads(first_import(module)) == SETTINGS


def test_importing_the_build_loads_no_torch_and_reads_no_versions():
    probe = (
        "import sys, importlib.metadata as m; calls = []; real = m.version; "
        "m.version = lambda name: calls.append(name) or real(name); import sitegen.pipeline; "
        "print('torch' in sys.modules, calls)"
    )
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False []"
