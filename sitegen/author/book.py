"""--check-book FILE: are the figures printed in the book still what this run prints?

A printed figure in the book is a label line, `(label) title` (or, where the config gives the figure a `number`,
`Figure 3.4 title`), with the indented lines that follow it (blank lines between them included), as `figures.txt`
prints them. Each one whose label (or number) is a figure of the config is compared, line by line with trailing
spaces ignored, with the same figure printed from this run (read from the build's cache where it holds the run; no
site is written). A figure that differs is shown as a unified diff.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

import click

from figsite.config import figure_name
from figsite.errors import BuildError

# As config labels are written (letters, digits, - and _), or a book's figure number (figsite.config.NUMBER_PATTERN).
LABEL_LINE = re.compile(r"(?:\(([A-Za-z0-9_-]+)\)|Figure ([A-Za-z0-9]+(?:\.[A-Za-z0-9]+)*)) \S")
MATCH, DIFFERS = 0, 1  # the exit codes; bad input is a BuildError (2)


@dataclass
class Printed:
    """One printed figure in the book: its label, the number of its label line (from 1), its lines, and the book's
    figure number where its label line is "Figure 3.4 title" (its label is then the config's figure of that number,
    named by read_book; "" until then, or where the config has none)."""

    label: str
    line: int
    lines: list[str]
    number: str | None = None

    @property
    def name(self) -> str:
        """The figure as its label line names it: "(l)" or "Figure 3.4"."""
        return figure_name(self.label, self.number)


def printed_figures(text: str) -> list[Printed]:
    """Every printed figure in a book's text: a label line followed at once by an indented line, and the
    indented and blank lines after that, up to the next line that is not indented (trailing blanks dropped)."""
    lines = [line.rstrip() for line in text.splitlines()]
    found, at = [], 0
    while at < len(lines):
        match = LABEL_LINE.match(lines[at])
        if not (match and at + 1 < len(lines) and indented(lines[at + 1])):
            at += 1
            continue
        end = at + 1
        while end < len(lines) and (indented(lines[end]) or not lines[end]):
            end += 1
        body = lines[at:end]
        while not body[-1]:
            body.pop()
        found.append(Printed(match.group(1) or "", at + 1, body, number=match.group(2)))
        at = end
    return found


def indented(line: str) -> bool:
    return line[:1] in (" ", "\t") and bool(line.strip())


def figure_lines(text: str) -> list[str]:
    """A figure as this run prints it, as the book's are read: trailing spaces and blank lines dropped."""
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def read_book(
    book: Path, labels: list[str], config: Path, numbers: dict | None = None
) -> tuple[list[Printed], list[Printed]]:
    """The book's printed figures of the config's figures, and those of other labels. `numbers`: the book's figure
    number -> the label of the config's figure with that number. Bad input: BuildError."""
    book = Path(book)
    if book.is_dir():
        raise BuildError(f"--check-book: {book} is a folder; allowed: the book's text as a UTF-8 file")
    try:
        text = book.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BuildError(f"--check-book: {book} does not exist; allowed: the book's text as a UTF-8 file") from None
    except UnicodeDecodeError as exc:
        raise BuildError(
            f"--check-book: {book} is not UTF-8 text ({exc.reason} at byte {exc.start}); allowed: "
            "the book's text as a UTF-8 file"
        ) from None
    except OSError as exc:
        raise BuildError(
            f"--check-book: {book} cannot be read ({(exc.strerror or str(exc)).lower()}); allowed: "
            "the book's text as a UTF-8 file"
        ) from None
    found = printed_figures(text)
    for fig in found:
        if fig.number is not None:
            fig.label = (numbers or {}).get(fig.number, "")
    ours = [fig for fig in found if fig.label in labels]
    if not ours:
        others = f"; it prints only {names([fig.name for fig in found])}" if found else ""
        raise BuildError(
            f"--check-book: {book} prints no figure of {config.name} (a line '(label) title' followed "
            f"by indented lines, with a label of {names(f'({label})' for label in labels)}){others}; "
            "allowed: a book that prints one or more of the config's figures"
        )
    return ours, [fig for fig in found if fig.label not in labels]


def names(shown) -> str:
    """Figures as the book names them ("(l)", "Figure 3.4"), each once, in order."""
    return ", ".join(dict.fromkeys(shown)) or "none"


def check_book(settings, book: Path, progress) -> int:
    """Compares the book's printed figures with this run's; prints a diff for each that differs and one
    summary line. Returns 0 when all match, 1 when any differs; bad input raises BuildError (exit code 2)."""
    from figsite.config import load_config
    from sitegen.pipeline import cached_run, gather_asks
    from figures import KINDS

    figures = load_config(settings.config, KINDS)
    ours, others = read_book(
        book,
        [fig.label for fig in figures],
        Path(settings.config),
        {fig.number: fig.label for fig in figures if fig.number is not None},
    )
    if settings.revision is not None and (settings.model == "random" or Path(settings.model).expanduser().is_dir()):
        raise BuildError(f"--revision: {settings.model} has no revisions; allowed: --revision with a hub id only")
    run, figures, *_ = cached_run(settings, figures, gather_asks(figures), progress)
    by_label = {fig.label: fig for fig in figures}
    printed = {
        label: figure_lines(KINDS[by_label[label].kind].text_figure(by_label[label], run))
        for label in dict.fromkeys(fig.label for fig in ours)
    }

    matched, differ = [], []
    for fig in ours:
        if fig.lines == printed[fig.label]:
            matched.append(fig.name)
            continue
        differ.append(fig.name)
        diff = difflib.unified_diff(
            fig.lines,
            printed[fig.label],
            lineterm="",
            fromfile=f"{book} {fig.name}, line {fig.line}",
            tofile=f"{fig.name} printed from this run of {run.model['name']}",
        )
        click.echo("\n".join(diff) + "\n")
    click.echo(summary(ours, matched, differ, others))
    return DIFFERS if differ else MATCH


def summary(ours: list[Printed], matched: list[str], differ: list[str], others: list[Printed]) -> str:
    """One line: which printed figures match, which differ, and which the book prints but the config lacks."""
    parts = [f"{len(matched)} of {len(ours)} printed figures match: {names(matched)}"]
    if differ:
        parts.append(f"{len(differ)} differ: {names(differ)}")
    if others:
        parts.append(f"printed in the book but not in the config: {names([fig.name for fig in others])}")
    return "check-book: " + "; ".join(parts)
