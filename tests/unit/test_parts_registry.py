"""The registry of captured parts (figsite.capture.parts): every part a kind can ask for is declared there, once;
the core code names none; each part's cache version is derived from its source and read without torch; the
memory estimate adds the share each asked part declares."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from figsite.capture import parts
from figures import KINDS
from figures.kind import PartKind

ROOT = Path(__file__).resolve().parents[2]
CORE = ["figsite/pipeline.py", "figsite/capture/gather.py", "figsite/capture/text_pass.py", "figsite/data/cache.py",
        "figsite/model/memory.py"]


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


@pytest.mark.parametrize("path", CORE)
def test_no_core_module_names_a_part_or_a_kind(path):
    source = (ROOT / path).read_text(encoding="utf-8")
    named = sorted({name for name in [*parts.NAMES, *KINDS] if re.search(rf"[\"']{re.escape(name)}[\"']", source)})
    assert not named, f"{path} names {named}: take them from figsite.capture.parts or figures.KINDS"


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
    script = ("import sys; from figsite.capture.parts import versions; versions(); "
              "from figsite.data import cache; print(sorted(m for m in ('torch', 'numpy') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_name_no_part_declares_is_refused_by_name():
    pytest.importorskip("torch")
    with pytest.raises(KeyError, match="'neurons'"):
        parts.merge_extras([{"scores": [["a", 0, 0, 1]]}, {"neurons": [["a", 0]]}])


def test_asks_merge_each_once_in_the_order_asked_and_a_lens_follows_every_token_asked():
    pytest.importorskip("torch")
    merged = parts.merge_extras([
        {"knockouts": [["a", 3, " France", None]], "lens": {"b": [" x"]}},
        {"knockouts": [["a", 3, " France", None], ["a", 2, " Paris", 1]], "lens": {"b": [" cold", " x"], "a": []}},
    ])
    assert merged["knockouts"] == [["a", 3, " France", None], ["a", 2, " Paris", 1]]
    assert merged["lens"] == {"a": [], "b": [" cold", " x"]}
    assert merged["scores"] == [] and list(merged) == list(parts.NAMES)


def test_the_memory_estimate_takes_the_share_of_each_asked_part():
    pytest.importorskip("torch")
    from figsite.model import memory

    shape = memory.Shape(n_layer=12, n_head=12, d_model=768, vocab=50257, n_ctx=1024, d_inner=3072)
    extras = parts.merge_extras([{"knockouts": [["a", 3, " France", None]]}])
    shares = [part.memory for part in parts.asked(extras)]
    assert [part.name for part in parts.asked(extras)] == ["knockouts"]
    batch = (1 + 2 * 12 + 12) * 1024 * (3072 + 3 * 768) * memory.FLOAT  # every run through a feed-forward step
    assert memory.estimate(shape, [1024], shares) - memory.estimate(shape, [1024]) == batch - max(
        memory.ATTENTION_COPIES * 12 * 1024 * 1024 * memory.FLOAT,
        memory.READOUT_COPIES * memory.READOUT_ROWS * 50257 * memory.FLOAT)
