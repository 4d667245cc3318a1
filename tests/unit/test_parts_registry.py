"""The registry of captured parts (figsite.capture.parts): every part a kind can ask for is declared there, once;
the core code names none, nor any kind; each part's cache version is derived from its source and read without torch;
the memory estimate adds the share each asked part declares."""

from __future__ import annotations

import ast
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from figsite.capture import parts
from figsite.data.asks import Asks
from figures import KINDS
from figures.kind import PLACES, PartKind

ROOT = Path(__file__).resolve().parents[2]
PARTS_PACKAGE = ROOT / "figsite" / "capture" / "parts"
# The core: every module of figsite but the parts' own, found afresh, so that a new module is read too.
CORE = sorted(
    path.relative_to(ROOT).as_posix()
    for package in ("figsite", "sitegen")
    for path in (ROOT / package).rglob("*.py")
    if PARTS_PACKAGE not in path.parents
)
# The live page names the kinds whose charts it draws (COVERED_KINDS) until the kinds give it their charts (issue 33,
# point 2). Strict: once they no longer do, this test says so, and these marks go.
NAMES_KINDS_TODAY = set()  # none: the live page takes its kinds from figures.LIVE_KINDS
# The names a core module must not spell: every part's and kind's, but the places of the model that some kinds are
# named after ("attention", "numbers"), which are the model's words too (its weights, the map of the model).
NAMED = {*parts.NAMES, *KINDS} - set(PLACES)
DATA_LAYER = "figsite/data/"


def test_every_part_a_part_kind_reads_is_registered():
    assert {kind.PART for kind in KINDS.values() if isinstance(kind, PartKind)} <= set(parts.NAMES)


def test_each_part_kind_reads_a_part_whose_answers_are_entries_of_data_parts_json():
    pytest.importorskip("torch")
    by_name = {part.name: part for part in parts.registered()}
    part_kinds = [kind for kind in KINDS.values() if isinstance(kind, PartKind)]
    assert part_kinds, "no kind reads a part of data/parts.json"
    for kind in part_kinds:
        assert by_name[kind.PART].in_parts_file, f"{kind.KIND} reads {kind.PART!r}, which data/parts.json lacks"


def test_each_module_declares_the_part_it_is_named_after():
    pytest.importorskip("torch")
    assert [part.name for part in parts.registered()] == list(parts.NAMES)


def handed_asks(tree: ast.AST) -> set:
    """The nodes inside the functions handed what figures ask (an argument `asks`, or annotated Asks)."""
    inside = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            arg.arg == "asks" or "Asks" in ast.unparse(arg.annotation or ast.Constant(""))
            for arg in [*node.args.args, *node.args.kwonlyargs]
        ):
            inside |= {id(n) for n in ast.walk(node)}
    return inside


def names_in_code(source: str, data_keys: bool) -> list:
    """The part and kind names (NAMED) the code spells as strings, with their lines: docstrings and `__all__` (the
    names of a module's own functions) aside. With `data_keys`, a name that is a key of the data files' fields (a
    subscript, a dict's key, the left of `in`: a text's "readout", its "lens" in the run record) is the data format's
    word, not a part's or a kind's: the data layer writes and reads those fields; but not in a function handed what
    figures ask, which must take every part from the registry."""
    tree = ast.parse(source)
    skipped, asking = set(), handed_asks(tree)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
        ):
            skipped.add(id(body[0].value))  # a docstring
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            skipped |= {id(n) for n in ast.walk(node.value)}
        if data_keys and isinstance(node, ast.Subscript):
            skipped.add(id(node.slice))
        if data_keys and isinstance(node, ast.Dict):
            skipped |= {id(key) for key in node.keys if key is not None}
        if data_keys and isinstance(node, ast.Compare) and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            skipped.add(id(node.left))
    return sorted(
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in NAMED and (id(node) not in skipped or id(node) in asking)
    )


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(path, marks=pytest.mark.xfail(strict=True, reason="names the kinds it covers"))
        if path in NAMES_KINDS_TODAY
        else path
        for path in CORE
    ],
)
def test_no_core_module_names_a_part_or_a_kind(path):
    named = names_in_code((ROOT / path).read_text(encoding="utf-8"), path.startswith(DATA_LAYER))
    assert not named, f"{path} names {named} (line, name): take them from figsite.capture.parts or figures.KINDS"


def test_the_core_is_every_module_of_figsite_but_the_parts_and_a_part_named_in_it_is_found():
    assert {"figsite/data/run.py", "sitegen/live.py", "sitegen/pipeline.py", "figsite/capture/gather.py"} <= set(CORE)
    assert not any(path.startswith("figsite/capture/parts/") for path in CORE) and len(CORE) > 30
    # How Run.holds named the parts before it asked the registry: each would be found.
    assert names_in_code('OUTSIDE = ("readout", "lens", "pairs")\n', data_keys=True) == [
        (1, "lens"),
        (1, "pairs"),
        (1, "readout"),
    ]
    assert names_in_code('def holds(self, wants):\n    return wants.get("lens", {})\n', data_keys=True) == [(2, "lens")]
    assert names_in_code('def holds(self, asks: Asks, parts):\n    return "lens" in asks.parts\n', True) == [
        (2, "lens")
    ]
    assert names_in_code('if name == "knockouts":\n    pass\n', data_keys=False) == [(1, "knockouts")]
    # The data layer's fields, and prose, are not names of parts.
    assert names_in_code('def f(entry):\n    """The "lens"."""\n    return entry["lens"]\n', data_keys=True) == []
    assert names_in_code('first = figures["heads"]\n', data_keys=False) == [(1, "heads")]


def test_each_version_is_derived_from_its_modules_source_and_the_foundations():
    versions = parts.versions()
    assert set(versions) == {"texts", *parts.NAMES} and len(set(versions.values())) == len(versions)
    figsite = ROOT / "figsite"
    foundation = hashlib.sha256()
    for path in sorted(p for pattern in parts.FOUNDATION for p in figsite.glob(pattern)):
        foundation.update(str(path.relative_to(figsite)).encode() + b"\0" + path.read_bytes())
    from figsite.data.format import CONSTANTS

    texts = hashlib.sha256(foundation.hexdigest().encode() + json.dumps(CONSTANTS, sort_keys=True).encode()).hexdigest()
    module = figsite / "capture" / "parts" / "knockouts.py"
    knockouts = hashlib.sha256(texts.encode() + b"capture/parts/knockouts.py\0" + module.read_bytes()).hexdigest()
    assert (versions["texts"], versions["knockouts"]) == (texts, knockouts)


def test_the_versions_are_read_without_importing_torch():
    script = (
        "import sys; from figsite.capture.parts import versions; versions(); "
        "from figsite.data import cache; print(sorted(m for m in ('torch', 'numpy') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_name_no_part_declares_is_refused_by_name():
    pytest.importorskip("torch")
    with pytest.raises(KeyError, match="'neurons'"):
        parts.merge([Asks(parts={"scores": [["a", 0, 0, 1]]}), Asks(parts={"neurons": [["a", 0]]})])


def test_asks_merge_each_once_in_the_order_asked_and_a_lens_follows_every_token_asked():
    pytest.importorskip("torch")
    merged = parts.merge(
        [
            Asks(parts={"knockouts": [["a", 3, " France", None]], "lens": {"b": [" x"]}}),
            Asks(
                parts={
                    "knockouts": [["a", 3, " France", None], ["a", 2, " Paris", 1]],
                    "lens": {"b": [" cold", " x"], "a": []},
                }
            ),
        ]
    )
    assert merged["knockouts"] == [["a", 3, " France", None], ["a", 2, " Paris", 1]]
    assert merged["lens"] == {"a": [], "b": [" cold", " x"]}
    assert merged["scores"] == [] and list(merged) == list(parts.NAMES)


def test_the_memory_estimate_takes_the_share_of_each_asked_part():
    pytest.importorskip("torch")
    from figsite.model import memory

    shape = memory.Shape(n_layer=12, n_head=12, d_model=768, vocab=50257, n_ctx=1024, d_inner=3072)
    asks = Asks(parts=parts.merge([Asks(parts={"knockouts": [["a", 3, " France", None]]})]))
    shares = [part.memory for part in parts.asked(asks)]
    assert [part.name for part in parts.asked(asks)] == ["knockouts"]
    batch = (1 + 2 * 12 + 12) * 1024 * (3072 + 3 * 768) * memory.FLOAT  # every run through a feed-forward step
    assert memory.estimate(shape, [1024], shares) - memory.estimate(shape, [1024]) == batch - max(
        memory.ATTENTION_COPIES * 12 * 1024 * 1024 * memory.FLOAT,
        memory.READOUT_COPIES * memory.READOUT_ROWS * 50257 * memory.FLOAT,
    )
