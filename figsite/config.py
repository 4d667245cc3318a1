"""Reads the chapter config (TOML): which figures to build, of which texts.

Only the form of each figure is checked here (keys, types, values that need no model). Whatever needs the
tokenizer or the model's size (a focus inside the text, a layer the model has) is checked by the figure's
own module once the model is loaded, before it runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from figsite.errors import BuildError

LABEL_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


@dataclass(frozen=True)
class Field:
    """One key of a figure: its type, whether it must be given, and a phrase saying what is allowed."""

    type: str  # text | str | int | int_list | pair_list | position_or_text | text_pair
    allowed: str
    required: bool = False
    default: object = None


COMMON_FIELDS = {
    "kind": Field("str", "one of the figure kinds", required=True),
    "label": Field("str", "1 to 40 letters, digits, '-' or '_', unique in the config", required=True),
    "caption": Field("str", "a short caption in your own words"),
}


@dataclass
class Figure:
    """One [[figure]] of the config, its keys checked for form."""

    source: str  # the config's file name, for messages
    index: int  # 1-based position in the config
    kind: str
    label: str
    caption: str | None
    values: dict = field(default_factory=dict)  # the config's keys as written (and defaults), checked for form
    resolved: dict = field(default_factory=dict)  # what the kind's check resolved (figures.kind), 0-based

    def __getitem__(self, key):
        return self.values[key]

    def with_resolved(self, resolved: dict) -> "Figure":
        """This figure with what its kind's check resolved: positions, defaults that depend on the model."""
        return replace(self, resolved=dict(resolved))

    @property
    def opening(self) -> int:
        """The 0-based position of the token the figure opens on (its focus, read position or 'from')."""
        return self.resolved["opening"]

    def error(self, key: str, problem: str, allowed: str) -> BuildError:
        """An error that names this figure, the field, what was wrong and what is allowed."""
        return BuildError(
            f"{self.source}: figure {self.index} (label '{self.label}'), field '{key}': {problem}; allowed: {allowed}"
        )

    def texts(self) -> list[str]:
        """The texts this figure needs the model to read."""
        if "texts" in self.values:
            return list(self.values["texts"])
        return [self.values["text"]] if "text" in self.values else []


def load_config(path: Path, kinds: dict) -> list[Figure]:
    """Reads and checks the config at `path`. `kinds` maps each kind to its figure module (with FIELDS)."""
    path = Path(path)
    source = path.name
    if path.is_dir():
        raise BuildError(f"--config: {path} is a folder; allowed: a TOML file with [[figure]] tables, such as "
                         f"{path / 'chapter.toml'}")
    if not path.is_file():
        raise BuildError(f"--config: {path} does not exist; allowed: a TOML file with [[figure]] tables")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise BuildError(f"{source}: not valid TOML ({exc}); allowed: a TOML file with [[figure]] tables")

    unknown = sorted(set(raw) - {"figure"})
    if unknown:
        raise BuildError(f"{source}: unknown key '{unknown[0]}' at the top level; allowed: [[figure]] tables")
    tables = raw.get("figure")
    if not isinstance(tables, list) or not tables or not all(isinstance(t, dict) for t in tables):
        raise BuildError(f"{source}: no figures; allowed: one or more [[figure]] tables")

    figures = [_read_figure(source, i, table, kinds) for i, table in enumerate(tables, start=1)]
    seen = {}
    for fig in figures:
        if fig.label in seen:
            raise fig.error("label", f"'{fig.label}' is already the label of figure {seen[fig.label]}",
                            "a label used once")
        seen[fig.label] = fig.index
    return figures


def _read_figure(source: str, index: int, table: dict, kinds: dict) -> Figure:
    label = table.get("label")
    shown = label if isinstance(label, str) else "?"
    fig = Figure(source, index, kind="?", label=shown, caption=None)

    kind = table.get("kind")
    if kind not in kinds:
        problem = "missing" if kind is None else f"{kind!r} is not a figure kind"
        raise fig.error("kind", problem, ", ".join(repr(k) for k in kinds))
    fig.kind = kind
    fields = {**COMMON_FIELDS, **kinds[kind].FIELDS}

    for key in table:
        if key not in fields:
            raise fig.error(key, f"unknown key for a figure of kind '{kind}'", ", ".join(fields))
    for key, spec in fields.items():
        if key not in table:
            if spec.required:
                raise fig.error(key, "missing", spec.allowed)
            if key not in COMMON_FIELDS and spec.default is not None:
                fig.values[key] = spec.default
            continue
        value = _check_type(fig, key, spec, table[key])
        if key == "label":
            if not LABEL_PATTERN.match(value):
                raise fig.error(key, f"{value!r} is not a usable label", spec.allowed)
            fig.label = value
        elif key == "caption":
            fig.caption = value
        elif key != "kind":
            fig.values[key] = value
    return fig


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_type(fig: Figure, key: str, spec: Field, value):
    ok = {
        "str": lambda v: isinstance(v, str),
        "text": lambda v: isinstance(v, str) and v.strip() != "",
        "int": _is_int,
        "int_list": lambda v: isinstance(v, list) and all(_is_int(x) for x in v),
        "pair_list": lambda v: isinstance(v, list)
        and all(isinstance(p, list) and len(p) == 2 and all(_is_int(x) for x in p) for p in v),
        "position_or_text": lambda v: _is_int(v) or (isinstance(v, str) and v.strip() != ""),
        "text_pair": lambda v: isinstance(v, list) and len(v) == 2
        and all(isinstance(t, str) and t.strip() for t in v) and v[0] != v[1],
    }[spec.type](value)
    if not ok:
        shown = repr(value) if not isinstance(value, str) or value.strip() else "an empty text"
        raise fig.error(key, f"{shown} is not allowed", spec.allowed)
    return value
