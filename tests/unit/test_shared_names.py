"""The page's script and the figures agree on every name they share: declared once, in figsite/data/shared_names.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

from figsite.data import shared_names
from figsite.site.render import STATIC, script

SCRIPT_SOURCE = (STATIC / "figures.js").read_text(encoding="utf-8")


def specs(site: Path) -> dict:
    """label -> the chart spec embedded in its figure page (compiled to Vega: the params are its signals)."""
    out = {}
    for page in sorted(site.glob("figure-*.html")):
        html = page.read_text(encoding="utf-8")
        for label, raw in re.findall(r'<script type="application/json" id="spec-([^"]+)">(.*?)</script>', html, re.S):
            out[label] = json.loads(raw)
    return out


def test_the_page_script_spells_no_shared_name_of_its_own():
    for name, value in shared_names.for_script().items():
        for spelled in (value if isinstance(value, list) else [value]):
            if isinstance(spelled, str):
                assert f'"{spelled}"' not in SCRIPT_SOURCE, f"figures.js spells {spelled!r} ({name}) itself"
    assert "usermeta.attention" not in SCRIPT_SOURCE and "usermeta.renderer" not in SCRIPT_SOURCE


def test_every_name_the_page_script_asks_for_is_declared():
    rendered = script("figures.js")  # StrictUndefined: a name shared_names lacks fails to render
    assert "{{" not in rendered and "TOKEN_PARAMS = " + json.dumps(list(shared_names.TOKEN_PARAMS)) in rendered


def test_every_chart_names_its_description_and_token_params_as_the_script_reads_them(random_site):
    charts = specs(random_site)
    assert charts
    bound = set()
    for label, spec in charts.items():
        params = {p["name"] for p in spec.get("signals", [])}
        assert shared_names.DESCRIPTION in params, f"({label}) has no {shared_names.DESCRIPTION!r} signal"
        bound |= {p["name"] for p in spec.get("signals", []) if "bind" in p}
    # Each token param the script links across figures of one text is one some figure binds.
    assert set(shared_names.TOKEN_PARAMS) <= bound, set(shared_names.TOKEN_PARAMS) - bound


def test_the_site_carries_the_script_rendered_with_the_shared_names(random_site):
    assert (random_site / "assets" / "figures.js").read_text(encoding="utf-8") == script("figures.js")


def test_each_chart_on_a_page_names_the_param_that_chooses_its_token_as_its_spec_binds_it(random_site):
    """A chart not drawn yet follows the token chosen in its text's other figures by the name the page gives it."""
    named = 0
    for page in sorted(random_site.glob("*.html")):
        html = page.read_text(encoding="utf-8")
        for label, attributes in re.findall(r'<div class="chart[^"]*" id="chart-([^"]+)"([^>]*)>', html, re.S):
            raw = re.search(r'<script type="application/json" id="spec-%s">(.*?)</script>' % re.escape(label), html,
                            re.S).group(1)
            bound = [s["name"] for s in json.loads(raw).get("signals", []) if "bind" in s]
            tokens = [name for name in bound if name in ("token", "position", "from")]  # spelled here, on purpose
            given = re.search(r'data-token-param="([^"]+)"', attributes)
            assert (given.group(1) if given else None) == (tokens[0] if tokens else None), f"{page.name}: {label}"
            named += bool(given)
    assert named, "no chart on any page names a token param"


def test_a_spec_without_a_bound_token_param_names_none():
    assert shared_names.token_param({"signals": [{"name": "token"}, {"name": "stage", "bind": {}}]}) is None
    assert shared_names.token_param({}) is None
    assert shared_names.token_param({"signals": [{"name": "stage", "bind": {}}, {"name": "from", "bind": {}}]}) == "from"


def test_the_token_rows_chosen_token_has_the_colour_the_charts_give_the_chosen_token():
    from figures.toolkit.colours import ACCENT

    css = (Path(__file__).resolve().parents[2] / "templates" / "static" / "site.css").read_text(encoding="utf-8")
    assert re.search(r"--chosen:\s*([#0-9a-fA-F]+);", css).group(1).lower() == ACCENT.lower()
    assert re.search(r'\.token\[aria-checked="true"\][^}]*background:\s*var\(--chosen\)', css)


def test_the_token_row_lists_the_token_params_options_as_written_after_their_number_and_marks_the_opening_one():
    chart = {"signals": [{"name": "view", "value": "all", "bind": {"input": "radio", "options": ["all"]}},
                         {"name": "position", "value": 2,
                          "bind": {"input": "select", "options": [1, 2, 3], "labels": ["1: Ice", "2: _melts", "3: _1: 2"]}}]}
    assert shared_names.token_row(chart) == [{"value": 1, "text": "Ice", "chosen": False},
                                             {"value": 2, "text": "_melts", "chosen": True},
                                             {"value": 3, "text": "_1: 2", "chosen": False}]
    assert shared_names.token_row({"signals": [{"name": "stage", "value": 0, "bind": {"input": "range"}}]}) == []
