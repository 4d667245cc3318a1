"""The pages' scripts and the figures agree on every name they share: declared once, in figsite/data/shared_names.py,
and imported by the scripts from templates/js/shared/names.js, which that module writes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from figsite.data import shared_names
from sitegen.site.render import GENERATED, TEMPLATES

SCRIPTS = TEMPLATES / "js"
NAMES_MODULE = SCRIPTS / "shared" / "names.js"
# Every module of the pages' scripts but the generated one: the figure pages', the live page's and the shared ones.
SCRIPT_SOURCES = sorted(path for path in SCRIPTS.rglob("*.js") if path != NAMES_MODULE)


NUMBER = r"(?<![\w.])%s(?![\w.])"  # a number as a whole: 480, not 4800 or 0.480


def spelled_names(source: str) -> list[str]:
    """The shared names (strings, in either quotes, and numbers) that a script's source spells itself."""
    found = []
    for name, value in shared_names.for_script().items():
        for spelled in value if isinstance(value, list) else [value]:
            if isinstance(spelled, str) and (f'"{spelled}"' in source or f"'{spelled}'" in source):
                found.append(f"{spelled!r} ({name})")
            elif isinstance(spelled, (int, float)) and re.search(NUMBER % re.escape(str(spelled)), source):
                found.append(f"{spelled} ({name})")
    return found


def imported_names(source: str) -> set[str]:
    """The names a module imports from shared/names.js."""
    imports = re.findall(r"import\s*\{([^}]*)\}\s*from\s*[\"'][./]*(?:shared/)?names\.js[\"']", source)
    return {name.strip().split(" as ")[0] for group in imports for name in group.split(",") if name.strip()}


def specs(site: Path) -> dict:
    """label -> the chart spec embedded in its figure page (compiled to Vega: the params are its signals)."""
    out = {}
    for page in sorted(site.glob("figure-*.html")):
        html = page.read_text(encoding="utf-8")
        for label, raw in re.findall(r'<script type="application/json" id="spec-([^"]+)">(.*?)</script>', html, re.S):
            out[label] = json.loads(raw)
    return out


# Where a script spells a shared name's value meaning something else, each with why (the test fails once it is gone).
SPELLED_ON_PURPOSE = {
    "live/row.js": [
        "'token' (TOKEN_PARAMS)",
        "'token' (TOKEN)",
        "'token' (TOKEN_SELECTS)",
    ],  # the tokens row's CSS class (site.css .token)
    "live/page.js": ["10 (TOP_K)"],  # megabytes: 10 MB or more written without a decimal, as sitegen/site/live.py
}


@pytest.mark.parametrize("path", SCRIPT_SOURCES, ids=lambda path: str(path.relative_to(SCRIPTS)))
def test_no_script_spells_a_shared_name_of_its_own(path):
    source = path.read_text(encoding="utf-8")
    expected = SPELLED_ON_PURPOSE.get(path.relative_to(SCRIPTS).as_posix(), [])
    assert spelled_names(source) == expected, f"{path.name} spells {', '.join(spelled_names(source))} itself"
    assert "usermeta.attention" not in source and "usermeta.renderer" not in source


def test_the_check_sees_every_script_and_finds_a_shared_name_spelled_in_either_quotes_or_as_a_number():
    assert {path.parent.name for path in SCRIPT_SOURCES} >= {"shared", "figures"}
    assert spelled_names('view.signal("description")') == ["'description' (DESCRIPTION)"]
    assert spelled_names("var params = ['token', 'position'];") == [
        "'token' (TOKEN_PARAMS)",
        "'position' (TOKEN_PARAMS)",
        "'token' (TOKEN)",
        "'position' (POSITION)",
        "'token' (TOKEN_SELECTS)",
        "'position' (TOKEN_SELECTS)",
    ]
    assert spelled_names("var NARROW_PX = 480;") == ["480 (NARROW_PX)"]
    assert spelled_names("el.getAttribute('data-token'); var width = 4800;") == []


def test_the_names_module_is_what_shared_names_writes():
    """After a change of shared_names.py: python -m figsite.data.shared_names > templates/js/shared/names.js"""
    assert NAMES_MODULE.read_text(encoding="utf-8") == shared_names.script_module()
    for name, value in shared_names.for_script().items():
        assert f"export const {name} = {json.dumps(value)};" in shared_names.script_module()


def test_every_name_a_script_imports_from_the_names_module_is_declared():
    exported = set(shared_names.for_script())
    asked = {path.name: imported_names(path.read_text(encoding="utf-8")) for path in SCRIPT_SOURCES}
    assert any(asked.values())
    for name, names in asked.items():
        assert names <= exported, f"{name} imports {sorted(names - exported)}, which shared_names.py does not declare"
    assert imported_names('import { TOKEN, VIEW as V } from "../shared/names.js";') == {"TOKEN", "VIEW"}


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


def test_the_site_carries_the_page_script_bundled_from_the_modules(random_site):
    assert (random_site / "assets" / "figures.js").read_bytes() == (GENERATED / "assets" / "figures.js").read_bytes()


def test_each_chart_on_a_page_names_the_param_that_chooses_its_token_as_its_spec_binds_it(random_site):
    """A chart not drawn yet follows the token chosen in its text's other figures by the name the page gives it."""
    named = 0
    for page in sorted(random_site.glob("*.html")):
        html = page.read_text(encoding="utf-8")
        for label, attributes in re.findall(r'<div class="chart[^"]*" id="chart-([^"]+)"([^>]*)>', html, re.S):
            raw = re.search(
                r'<script type="application/json" id="spec-%s">(.*?)</script>' % re.escape(label), html, re.S
            ).group(1)
            bound = [s["name"] for s in json.loads(raw).get("signals", []) if "bind" in s]
            tokens = [name for name in bound if name in ("token", "position", "from")]  # spelled here, on purpose
            given = re.search(r'data-token-param="([^"]+)"', attributes)
            assert (given.group(1) if given else None) == (tokens[0] if tokens else None), f"{page.name}: {label}"
            named += bool(given)
    assert named, "no chart on any page names a token param"


def test_a_spec_without_a_bound_token_param_names_none():
    assert shared_names.token_param({"signals": [{"name": "token"}, {"name": "stage", "bind": {}}]}) is None
    assert shared_names.token_param({}) is None
    assert (
        shared_names.token_param({"signals": [{"name": "stage", "bind": {}}, {"name": "from", "bind": {}}]}) == "from"
    )


def test_the_token_rows_chosen_token_has_the_colour_the_charts_give_the_chosen_token():
    from figures.toolkit.colours import ACCENT

    css = (Path(__file__).resolve().parents[2] / "templates" / "static" / "site.css").read_text(encoding="utf-8")
    assert re.search(r"--chosen:\s*([#0-9a-fA-F]+);", css).group(1).lower() == ACCENT.lower()
    assert re.search(r'\.token\[aria-checked="true"\][^}]*background:\s*var\(--chosen\)', css)


def test_the_token_row_lists_the_token_params_options_as_written_after_their_number_and_marks_the_opening_one():
    chart = {
        "signals": [
            {"name": "view", "value": "all", "bind": {"input": "radio", "options": ["all"]}},
            {
                "name": "position",
                "value": 2,
                "bind": {"input": "select", "options": [1, 2, 3], "labels": ["1: Ice", "2: _melts", "3: _1: 2"]},
            },
        ]
    }
    assert shared_names.token_row(chart) == [
        {"value": 1, "text": "Ice", "chosen": False, "number": 1, "start": False},
        {"value": 2, "text": "_melts", "chosen": True, "number": 2, "start": False},
        {"value": 3, "text": "_1: 2", "chosen": False, "number": 3, "start": False},
    ]
    # After a model's start token (readers number it 0) the options' values stay the model's, the numbers the reader's.
    started = {
        "signals": [
            {
                "name": "token",
                "value": 2,
                "bind": {"input": "select", "options": [1, 2], "labels": ["0: <s>", "1: Ice"]},
            }
        ]
    }
    assert shared_names.token_row(started) == [
        {"value": 1, "text": "<s>", "chosen": False, "number": 0, "start": True},
        {"value": 2, "text": "Ice", "chosen": True, "number": 1, "start": False},
    ]
    assert shared_names.token_row({"signals": [{"name": "stage", "value": 0, "bind": {"input": "range"}}]}) == []
