"""The pages' JavaScript is held to the Python's standards: the committed bundles are what their modules make
(`npm run bundle`), ESLint finds nothing (eslint.config.js), and the unit tests of tests/js pass (`node --test`).
Each needs Node and the devDependencies (`./setup.sh --test` installs them; CI has them): without, it is skipped."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
BIN = ROOT / "node_modules" / ".bin"
LINTED = ["templates/js", "tests/js", "tools", "eslint.config.js"]  # as package.json's "lint" and .ci/run


def needs(*tools: str) -> None:
    """Skips the test, saying why, where Node or one of these devDependencies is not installed."""
    if NODE is None:
        pytest.skip("no node on PATH: the JavaScript checks need Node.js 18 or newer (CI has it)")
    missing = [tool for tool in tools if not (BIN / tool).exists()]
    if missing:
        pytest.skip(f"{', '.join(missing)} not in node_modules: run ./setup.sh --test (npm ci) first")


def run(*command: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(part) for part in command], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_each_committed_bundle_is_what_its_modules_make(tmp_path):
    needs("esbuild")
    done = run(NODE, "tools/bundle.mjs", "--out", tmp_path)
    assert done.returncode == 0, done.stderr
    bundles = sorted(path.relative_to(tmp_path) for path in tmp_path.rglob("*") if path.is_file())
    assert Path("templates/generated/assets/figures.js") in bundles
    assert Path("templates/generated/vega.js") in bundles
    for bundle in bundles:
        assert (ROOT / bundle).read_bytes() == (tmp_path / bundle).read_bytes(), (
            f"{bundle} is not what its modules make: run `npm run bundle` and commit it"
        )


def test_bundling_twice_writes_the_same_bytes(tmp_path):
    needs("esbuild")
    for folder in ("a", "b"):
        assert run(NODE, "tools/bundle.mjs", "--out", tmp_path / folder).returncode == 0
    first, second = (tmp_path / folder / "templates" / "generated" / "assets" / "figures.js" for folder in ("a", "b"))
    assert first.read_bytes() == second.read_bytes()


def test_the_vega_bundle_is_vega_and_vega_embed_without_the_vega_lite_compiler():
    bundle = (ROOT / "templates" / "generated" / "vega.js").read_text(encoding="utf-8")
    pinned = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["devDependencies"]
    assert "window.vega=" in bundle and "window.vegaEmbed=" in bundle
    assert f'"{pinned["vega"]}"' in bundle and f'"{pinned["vega-embed"]}"' in bundle  # their version strings
    assert "compiled from Vega-Lite at build time" in bundle  # templates/js/vega/no-vega-lite.js, in its place
    assert "Invalid specification" not in bundle  # one of Vega-Lite's messages: its compiler is not there


def test_the_vega_bundle_draws_with_the_vega_vl_convert_compiles_the_charts_for():
    vl_convert = pytest.importorskip("vl_convert")
    pinned = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["devDependencies"]
    assert pinned["vega"] == vl_convert.get_vega_version(), "pin npm's vega to vl-convert's, then npm run bundle"


def test_eslint_finds_nothing_in_the_scripts_and_their_tests():
    needs("eslint")
    done = run(BIN / "eslint", "--max-warnings", "0", *LINTED)
    assert done.returncode == 0, done.stdout + done.stderr


def test_eslint_holds_the_scripts_to_60_lines_a_function():
    needs("eslint")
    long = "export function long() {\n" + "".join(f"  console.log({n});\n" for n in range(60)) + "}\n"
    done = subprocess.run(
        [str(BIN / "eslint"), "--stdin", "--stdin-filename", "templates/js/long.js"],
        cwd=ROOT,
        input=long,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1 and "max-lines-per-function" in done.stdout, done.stdout + done.stderr


def test_the_unit_tests_of_the_scripts_pass():
    needs()
    if not (ROOT / "node_modules" / "@huggingface" / "tokenizers").exists():
        pytest.skip("Tokenizers.js not in node_modules: run ./setup.sh --test (npm ci) first")
    done = run(NODE, "--test", "tests/js/")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr
    assert "# fail 0" in done.stdout and "# pass 0" not in done.stdout
