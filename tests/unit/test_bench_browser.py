"""bench/browser.py's arithmetic on made-up loads: which numbers its tables and verdicts take (medians, maxima,
targets, the before -> after rows), with no browser and no timing."""

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
# bench/browser.py imports its neighbours (before_after.py) by name; after the project, whose build.py is not bench's
sys.path.append(str(BENCH))
_spec = importlib.util.spec_from_file_location("bench_browser", BENCH / "browser.py")
browser = sys.modules["bench_browser"] = importlib.util.module_from_spec(_spec)  # its dataclasses look it up there
_spec.loader.exec_module(browser)
Check, Row, opening_checks, verdict = browser.Check, browser.Row, browser.opening_checks, browser.verdict


def row(lcps, loads, cls, page="figure-heads.html") -> Row:
    return Row(page, charts=1, loads=loads, lcps=lcps, cls=cls, lcp_elements=["p.guide"] * len(lcps))


def test_a_check_takes_the_median_and_the_max_and_a_missing_run_fails_it():
    check = Check("LCP", [310, 250, 200, 290, 260], 300)
    assert (check.median(), check.max()) == (260, 310)
    assert check.median_ok() and not check.max_ok()
    assert not Check("LCP", [250, None, 200, 290, 260], 300).median_ok()  # a load that timed out
    assert not Check("LCP", [250, 200], 300, expected=5).median_ok()  # fewer runs than there should be
    assert not Check("LCP", [], 300).median_ok()
    assert Check("interactive", [800] * 5, 800).max_ok()  # at most the target
    assert not Check("CLS", [0.01] * 5, 0.01, strict=True).median_ok()  # CLS: under it


def test_the_verdict_names_what_is_over_the_median_before_what_is_over_only_at_the_max():
    assert verdict(opening_checks(row([250] * 5, [700] * 5, [0.0] * 5))) == "PASS"
    over_max = row([250, 250, 250, 250, 400], [700] * 4 + [900], [0.0] * 5)
    assert verdict(opening_checks(over_max)) == "FAIL (max only: LCP, interactive)"
    over = row([250] * 5, [900] * 4 + [700], [0.02] * 5)
    assert verdict(opening_checks(over)) == "FAIL (interactive, CLS)"
    assert verdict(opening_checks(row([250] * 5, [700] * 5, [0.0] * 5)), broken=True) == "FAIL (not drawn)"


def test_the_comparison_pairs_each_page_and_lists_a_page_of_one_site_as_such(capsys):
    before = [row([400] * 5, [1000] * 5, [0.05] * 5), row([250] * 5, [500] * 5, [0.0] * 5, page="gone.html")]
    after = [row([250] * 5, [700] * 4 + [900], [0.0] * 5), row([250] * 5, [500] * 5, [0.0] * 5, page="new.html")]
    browser.print_comparison({"before": before, "after": after}, ["figure-heads.html", "new.html", "gone.html"])
    lines = capsys.readouterr().out.splitlines()
    heads = next(line for line in lines if line.startswith("figure-heads.html")).split()
    assert heads[1:] == ["400!", "->", "250", "1000!", "->", "700^", "0.050!", "->", "0.000", "FAIL", "->", "FAIL*"]
    assert next(line for line in lines if line.startswith("new.html")).split()[1:] == ["only", "in", "after"]
    assert next(line for line in lines if line.startswith("gone.html")).split()[1:] == ["only", "in", "before"]


def test_pages_come_in_the_after_sites_order_then_those_only_the_before_site_has(tmp_path: Path):
    layouts = {"before": ["index.html", "a.html", "old.html"], "after": ["index.html", "b.html", "a.html"]}
    for name, pages in layouts.items():
        (tmp_path / name).mkdir()
        for page in pages:
            (tmp_path / name / page).write_text("")
        links = "".join(f'<a href="{page}">' for page in pages[1:])
        (tmp_path / name / "index.html").write_text(links)
    sites = {"before": tmp_path / "before", "after": tmp_path / "after"}
    assert browser.page_names(sites) == ["index.html", "b.html", "a.html", "old.html"]


def test_a_long_page_name_is_shortened_to_the_column_keeping_its_end():
    name = "text-the-animal-didnt-cross-the-street-because-it-was-too-tired.html"
    assert len(browser.short(name)) == browser.PAGE_WIDTH - 1 and browser.short(name).endswith("ed.html")
    assert browser.short("figure-l.html") == "figure-l.html"
