"""One [[figure]] of the config as the build reads it: the keys a figure may have (`Field`), the figure checked for
form (`Figure`), and the name its printed figure gives itself (`figure_name`). figsite.config reads them from the
TOML; the kinds (figures.kind) check what needs the model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, cast

from figsite.errors import BuildError


@dataclass(frozen=True)
class Field:
    """One key of a figure: its type, whether it must be given, and a phrase saying what is allowed."""

    type: str  # text | str | int | int_list | pair_list | position_or_text | text_pair | text_list
    allowed: str
    required: bool = False
    default: object = None


def figure_name(label: str, number: str | None) -> str:
    """How the printed figure names itself on its first line (figures.txt, --check-book): "Figure 3.4" where the book
    numbers it, else its label in parentheses, "(l)", as the book prints it. The pages never show a label
    (sitegen.site.render.Page.name)."""
    return f"Figure {number}" if number else f"({label})"


@dataclass
class Figure:
    """One [[figure]] of the config, its keys checked for form."""

    source: str  # the config's file name, for messages
    index: int  # 1-based position in the config
    kind: str
    label: str
    caption: str | None
    # The config's keys as written (and defaults), checked for form: each value of its Field's type (a str, int,
    # list of ints, ...), which the kind that declares the key knows; the same for what the kind's check resolved.
    values: dict[str, Any] = field(default_factory=dict)
    resolved: dict[str, Any] = field(default_factory=dict)  # what the kind's check resolved (figures.kind), 0-based
    model: str | None = None  # the model it reads as the config writes it (figsite.data.model_choice); None: --model

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def with_resolved(self, resolved: Mapping[str, Any]) -> Figure:
        """This figure with what its kind's check resolved: positions, defaults that depend on the model."""
        return replace(self, resolved=dict(resolved))

    @property
    def number(self) -> str | None:
        """The book's number of this figure ("3.4"), or None where the config gives none."""
        return cast("str | None", self.values.get("number"))  # checked for form: a "str" field

    @property
    def page(self) -> int | None:
        """The book's page this figure is printed on, or None where the config gives none."""
        return cast("int | None", self.values.get("page"))  # checked for form: an "int" field

    @property
    def display_name(self) -> str:
        """The printed figure's name (figure_name): "Figure 3.4" where the book numbers this figure, else "(l)"."""
        return figure_name(self.label, self.number)

    @property
    def opening(self) -> int:
        """The 0-based position of the token the figure opens on (its focus, read position or 'from')."""
        return cast(int, self.resolved["opening"])  # every kind's check resolves it to a position

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
