"""Times a build of the chapter's site, phase by phase, and weighs what it wrote. Run by hand:

    python bench/build.py [--model random] [--out /tmp/bench-site]

It prints the seconds each phase took in this process (imports of torch and transformers, model load, the
run, the figures, writing the site), then the site's bytes in all and per page (HTML + data + scripts).
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def page_bytes(site: Path, page: Path) -> int:
    """What one page loads from disk: its HTML and every script and stylesheet it names."""
    html = page.read_text(encoding="utf-8")
    loaded = re.findall(r'<(?:script|link)[^>]*(?:src|href)="([^"]+)"', html)
    return page.stat().st_size + sum((site / url).stat().st_size for url in loaded)


def main(model: str = "random", out: str | None = None) -> None:
    from figsite.pipeline import Timings, build_site

    out_dir = Path(out or tempfile.mkdtemp(prefix="bench-")) / "site"
    timings = Timings()
    start = time.perf_counter()
    build_site(ROOT / "chapter.toml", model, None, out_dir, 0, "cpu", timings)
    total = time.perf_counter() - start
    print(f"build of chapter.toml with --model {model}, one process, 2-core machine:")
    for name, seconds in timings.phases.items():
        print(f"  {name:<12}{seconds:6.2f} s")
    print(f"  {'total':<12}{total:6.2f} s")
    files = [p for p in out_dir.rglob("*") if p.is_file()]
    print(f"site: {sum(p.stat().st_size for p in files):,} bytes in {len(files)} files ({out_dir})")
    for page in sorted(out_dir.glob("*.html")):
        print(f"  {page.name:<22}{page_bytes(out_dir, page):>11,} bytes loaded (HTML + scripts + styles)")


if __name__ == "__main__":
    args = sys.argv[1:]
    options = dict(zip(args[::2], args[1::2]))
    main(options.get("--model", "random"), options.get("--out"))
