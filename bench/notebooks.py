"""Times each figure's notebook (`build.py --notebooks`) run headless in a fresh kernel, as a reader's Jupyter runs
it, against the issue's target of 30 s a notebook on GPT-2 small's shape on this machine's CPU. Run by hand (a
benchmark, not a test):

    python bench/notebooks.py [CONFIG]

It builds CONFIG (default: the chapter's chapter.toml) with `--model random --notebooks` into a temporary folder
(GPT-2 small's shape with random weights: the same work as GPT-2's, no network), then runs every notebook of the
site with nbclient, one after the other, each in a kernel of its own, and prints, per notebook: its wall time, the
kernel's peak memory (its ru_maxrss, asked of the kernel itself at the end), the values it checked and whether all
matched; and the floor: a kernel that only imports torch and transformers, timed the same way, so that the ratio
says what the notebook's own work costs on a machine that may be slower or faster than this one.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 30.0
PEAK = "import resource; print('peak', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"


def run(notebook: nbformat.NotebookNode, folder: Path) -> tuple[float, str]:
    """Runs the notebook with one more cell that prints the kernel's peak memory: (seconds, its printed words)."""
    notebook.cells.append(nbformat.v4.new_code_cell(PEAK, id="peak"))
    start = time.perf_counter()
    NotebookClient(notebook, timeout=600, kernel_name="python3").execute(cwd=str(folder))
    took = time.perf_counter() - start
    words = "".join(out.get("text", "") for cell in notebook.cells for out in cell.get("outputs", []))
    return took, words


def main() -> None:
    config = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "chapter.toml"
    with tempfile.TemporaryDirectory(prefix="bench-notebooks-") as work:
        site = Path(work) / "site"
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "build.py"),
                "--model",
                "random",
                "--notebooks",
                "--config",
                str(config),
                "--out",
                str(site),
                "--no-cache",
                "--quiet",
            ],
            check=True,
        )
        floor = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import torch, transformers", id="a")])
        floor_s, _ = run(floor, site)
        print(f"floor: a kernel importing torch and transformers, {floor_s:.1f} s")
        for path in sorted((site / "notebooks").glob("*.ipynb")):
            took, words = run(nbformat.read(path, as_version=4), site / "notebooks")
            peak = int(re.search(r"peak (\d+)", words).group(1)) / 1024
            checked = re.search(r"all (\d+) values match", words)
            verdict = f"all {checked.group(1)} values match" if checked else "VALUES DIFFER"
            mark = "ok" if took <= TARGET_S else "OVER"
            print(
                f"{path.name}: {took:.1f} s ({took / floor_s:.1f}x the floor; target {TARGET_S:.0f} s: {mark}), "
                f"kernel peak {peak:,.0f} MiB, {verdict}"
            )


if __name__ == "__main__":
    main()
