"""What each head does: every head's habits scored, on the figure's text and on a sequence of random tokens said
twice, and each head coloured by its strongest habit. A head chosen in the grid shows its pattern on the text.

Reads the figure's entry of the part "roles" (Roles.entry; computed by figsite/capture/parts/roles.py): "scores"
{role: [layer][head] or None}, "measured_on" {role: "text" or "repeated"}, "repeat_length", "sequence"; and the
text's tokens and every head's shares over it (run.token_texts, run.head_rows). The grid and the pattern over the
random tokens are drawn by figures.roles_chart.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import replace
from typing import Any, cast

from figsite.config import Field, Figure
from figsite.data import paths
from figsite.data.part_records import Ask, Role, RolesEntry
from figsite.data.records import ModelRecord
from figsite.data.run import JS_CALLBACK, Run
from figsite.data.shared_names import DESCRIPTION, KEY_WORDS, LOADS_META, NAMES
from figures import heads, recompute_roles
from figures.heads_chart import Grid, chosen_square, detail_chart
from figures.kind import Context, PartKind, Resolved, Reveal, Table, Tokens
from figures.records import HeadRow, PatternRow
from figures.roles_chart import (
    COPIES as COPIES,
    KEY_PLACE as KEY_PLACE,
    NARROW_SQUARE,
    PHONE_GRID,
    REPEAT_CELL,
    REPEAT_NAMES,
    ROLES as ROLES,
    STRONGEST as STRONGEST,
    grid_chart,
    grid_rows,
    repeats_chart,
)
from figures.toolkit import charts, fields
from figures.toolkit.charts import alt
from figures.toolkit.colours import MASKED_KEY, ROLE_NAMES
from figures.toolkit.words import count, heading, quoted, whole_percent

MIN_TOKENS = 8
TOP = 5  # heads in each role's ranked list


def head_rows(entry: RolesEntry) -> list[HeadRow]:
    """One row per head (layers and heads from 0): each role's score and the strongest role."""
    scores = entry["scores"]
    n_layer, n_head = len(scores["previous"]), len(scores["previous"][0])
    rows: list[HeadRow] = []
    for layer in range(n_layer):
        for head in range(n_head):
            scored = {role: scores[role][layer][head] for role in ROLES}
            # HeadRow's keys: every role of ROLES with its score, and the strongest.
            rows.append(
                cast(
                    HeadRow, {"layer": layer, "head": head, **scored, "best": max(ROLES, key=lambda role: scored[role])}
                )
            )
    return rows


def ranked(rows: list[HeadRow], role: Role) -> list[HeadRow]:
    """The TOP heads of one role, the highest score first (the first of equals in the grid's order)."""
    return sorted(rows, key=lambda row: -row[role])[:TOP]


def head_name(row: HeadRow) -> str:
    return f"layer {row['layer'] + 1} head {row['head'] + 1}"


def strongest_words(rows: list[HeadRow], role: Role) -> str:
    """ "Of all heads, layer 5 head 1 looks most at the token after ...: 91% of its attention goes there."."""
    best = ranked(rows, role)[0]
    return (
        f"Of all heads, {head_name(best)} looks most at {ROLES[role][1]}: {best[role]:.0%} of its attention goes there."
    )


def head_words(row: HeadRow) -> str:
    """One head in words, for the chart's description: "Layer 5, head 1, shown below: its strongest habit is to
    look at the token just before (62% of its attention); the first token 20%, itself 5%, ..."."""
    best = row["best"]
    others = ", ".join(f"{ROLES[role][0]} {row[role]:.0%}" for role in ROLES if role != best)
    return (
        f"Layer {row['layer'] + 1}, head {row['head'] + 1}, shown below: its strongest habit is to look at "
        f"{ROLES[best][1]} ({row[best]:.0%} of its attention); {others}."
    )


class Roles(PartKind):
    READS = ("attention",)
    KIND = "head-roles"
    TITLE = "What each head does: its habits, scored"
    CAPTION = (
        "Some heads have clear habits: they look at the token just before, or at the first token, or at an "
        "earlier copy of the same token, or at the token that came after that copy. Here every head is "
        "scored on each habit, and coloured by its strongest one."
    )
    GUIDE = (
        'Each square is one head, in the colour of its strongest habit. Choose a habit in "Colour by" to see '
        "how strong it is in every head: the brighter the square, the stronger. Choose a square (click or tap) "
        "to see that head's pattern below: on the text, and on random tokens said twice, where the outlines "
        f"mark the earlier copy of each token ({ROLE_NAMES['duplicate']}, solid) and the token after it "
        f'({ROLE_NAMES["induction"]}, dashed, inside the cell). The "Layer" and "Head" menus do the same '
        "from the keyboard. {Hover} a square for its habits{mouse:, or a cell of a pattern for its share}."
    )
    # The key says how the grid is coloured: by each head's strongest habit (KEY, as the page opens), or by the habit
    # chosen in "Colour by" (KEY_ONE): the chart's KEY_WORDS param, which the page writes in place of the key.
    KEY = "Each square is one head, in the colour of its strongest habit."
    KEY_ONE = (
        "Each square is one head: the brighter it is, the more of its attention goes where the chosen habit looks."
    )
    FIELDS = {
        "text": fields.TEXT_FIELD,  # of MIN_TOKENS or more: `check` says so
        "repeat_length": Field(
            "int",
            "how many random tokens are said twice: 2 or more, and twice that fits the model's positions (default 40)",
        ),
        "seed": Field("int", "the random tokens' seed: 0 or more (default 0)"),
    }
    EXPLORE = True
    PART = "roles"
    NOTEBOOK = recompute_roles.ROLES  # every head's habits again, from the model's attention patterns

    def notebook_params(self, fig: Figure, run: Run) -> dict[str, Any]:
        """The notebook's recompute reads the random tokens the build drew (SEQUENCE, the first copy): a reader's
        torch may draw others from the same seed."""
        return {"SEQUENCE": self.entry(fig, run)["sequence"]}

    def check(self, fig: Figure, tokens: Tokens, model: ModelRecord) -> Resolved:
        text = tokens(fig["text"])
        fields.check_text(fig, "text", text, model["n_ctx"])
        if len(text) - fields.start_of(text) < MIN_TOKENS:
            raise fig.error(
                "text",
                f"the text is {len(text) - fields.start_of(text)} tokens long",
                f"a text of {MIN_TOKENS} tokens or more",
            )
        length, seed = fig.values.get("repeat_length", 40), fig.values.get("seed", 0)
        if not 2 <= length <= model["n_ctx"] // 2:
            problem = (
                f"{length} is too short" if length < 2 else f"{length} is too long: said twice, {2 * length:,} tokens"
            )
            raise fig.error(
                "repeat_length",
                problem,
                f"2 to {model['n_ctx'] // 2}: twice that fits the model's {model['n_ctx']:,} positions",
            )
        if seed < 0:
            raise fig.error("seed", f"{seed} is negative", "0 or more")
        return {"repeat_length": length, "seed": seed}

    def ask(self, fig: Figure) -> Ask:
        return [fig["text"], fig.resolved["repeat_length"], fig.resolved["seed"]]

    def entry(self, fig: Figure, run: Run) -> RolesEntry:
        return run.part("roles", self.ask(fig))

    def text_figure(self, fig: Figure, run: Run) -> str:
        """The text, the repeated sequence's length, then each role's top heads with their shares on it, in words:
        'layer 1 head 6 22%'."""
        entry, n = self.entry(fig, run), run.n_tokens(fig["text"])
        rows = head_rows(entry)
        lines = [
            heading(fig, self.TITLE),
            f"  {quoted(fig['text'], n)}",
            f"  and {entry['repeat_length']} random tokens said twice",
        ]
        for role, (name, _) in ROLES.items():
            where = "the text" if entry["measured_on"][role] == "text" else "the random tokens"
            top = ", ".join(f"{head_name(row)} {whole_percent(row[role])}%" for row in ranked(rows, role))
            lines.append(f"  {name + ' (on ' + where + ')':<40} {top}")
        return "\n".join(lines) + "\n"

    def context(self, fig: Figure, run: Run) -> Context:
        entry = self.entry(fig, run)
        rows = head_rows(entry)
        counts = {role: sum(row["best"] == role for row in rows) for role in ROLES}
        summary = " ".join(strongest_words(rows, role) for role in ("previous", "induction"))
        facts = [
            f"Looking at {ROLES[role][1]}, the five strongest: "
            + ", ".join(f"{head_name(row)} ({row[role]:.0%})" for row in ranked(rows, role))
            for role in ROLES
        ]
        if entry["scores"]["duplicate_text"] is not None:
            facts.append(
                "The text repeats a token: how much each head looks at its earlier copy on the text is in "
                "the downloads, apart."
            )
        most = max(ROLES, key=lambda role: counts[role])
        reveal: Reveal = {
            "question": f"Guess first: of the {len(rows)} heads, which habit is the strongest for the most heads?",
            "answer": f"{ROLES[most][0].capitalize()}: for {count(counts[most], 'head')}. Heads per habit: "
            + ", ".join(f"{ROLES[role][0]} {counts[role]}" for role in ROLES)
            + ".",
            "link": f"#show={most}",
            "link_text": f"Colour by {ROLES[most][0]}",
        }
        return {"summary": summary, "reveals": [reveal], "facts": facts, "details": list(DETAILS)}

    def tables(self, fig: Figure, run: Run, spec: charts.Spec) -> dict[str, Table]:
        """One row per head, layer and head from 1: each role's score, where it was measured, the strongest."""
        entry = self.entry(fig, run)
        extra = entry["scores"]["duplicate_text"]
        return {
            "heads": [
                {
                    "layer": row["layer"] + 1,
                    "head": row["head"] + 1,
                    **{role: row[role] for role in ROLES},
                    "duplicate_on_text": None if extra is None else extra[row["layer"]][row["head"]],
                    "strongest": row["best"],
                }
                for row in head_rows(entry)
            ]
        }

    def narrow_chart(self, fig: Figure, run: Run) -> alt.VConcatChart:
        """For a phone's column: the grid keeps squares of NARROW_SQUARE px, which a finger can tap, every head
        labelled, the text's pattern cells of heads.NARROW_CELL px, as the heads figure's does, and the chart
        scrolls in its own box where it must (more than about 12 heads a layer)."""
        return self.chart(fig, run, square=NARROW_SQUARE)

    def chart(self, fig: Figure, run: Run, square: int = 0) -> alt.VConcatChart:
        """The grid of heads, coloured by role, and the chosen head's pattern over the text and over the random tokens
        said twice (the heads figure's larger pattern, figures.heads_chart.detail_chart). The page carries the
        opening head's pattern over the random tokens; the others are loaded a layer at a time (`loads`)."""
        entry = self.entry(fig, run)
        rows = head_rows(entry)
        best = ranked(rows, "previous")[0]
        n_layer, n_head = len(entry["scores"]["previous"]), len(entry["scores"]["previous"][0])
        on_text, on_repeats = text_grid(fig, run, n_layer, n_head), repeats_grid(entry, run, n_layer, n_head)
        if square:  # a chart wider than a phone's column: every view of a fixed size, in px
            on_text = replace(on_text, cell=heads.NARROW_CELL)
            on_repeats = replace(on_repeats, cell=max(REPEAT_CELL, PHONE_GRID // on_repeats.blocks))
        params = _params(rows, best, n_layer, n_head, on_text, on_repeats)
        length = entry["repeat_length"]
        stack = cast(
            "alt.VConcatChart",
            alt.vconcat(
                grid_chart(rows, square),
                detail_chart(
                    on_text,
                    chosen_square(on_text),
                    outline=False,
                    title="'Layer ' + layer + ', head ' + head + ' on the text: who looks at whom'",
                    note=[MASKED_KEY, "(a token cannot see the tokens after it)"],
                ),
                repeats_chart(on_repeats, length, square),
                spacing=24,
            ).resolve_scale(color="independent"),
        )  # each pattern with its own legend of shares
        chart = charts.with_data(
            charts.with_params(stack if square else charts.fits_column(stack), *params),
            heads=grid_rows(rows),
            panels=_text_rows(fig, run, on_text),
            repeats=repeats_rows(entry, best["layer"], [best["head"]]),
        )
        chart.usermeta = {
            LOADS_META: {
                "on": ["layer", "head"],
                "key": "layer",
                "data": "repeats",
                "callback": JS_CALLBACK,
                "opening": {"layer": best["layer"] + 1, "head": best["head"] + 1},
                "files": {str(layer + 1): paths.in_data(repeats_file(fig, layer)) for layer in range(n_layer)},
            }
        }
        return charts.with_clicks(chart, "layer", "head")

    def loads(self, fig: Figure, run: Run) -> dict[str, dict[str, list[PatternRow]]]:
        """Every head's pattern over the random tokens said twice, a file per layer: {"rows": repeats_rows}."""
        entry = self.entry(fig, run)
        n_layer, n_head = len(entry["scores"]["previous"]), len(entry["scores"]["previous"][0])
        return {
            repeats_file(fig, layer): {"rows": repeats_rows(entry, layer, range(n_head))} for layer in range(n_layer)
        }


# The words the page leaves to "More detail", one sentence each: how strong a habit is, and researchers' names.
DETAILS = (
    "How strong a habit is in a head: the share of its attention that goes where the habit looks, on average "
    "over the tokens (the downloads give it as a number from 0 to 1: 0.90 is 90%).",
    "Duplicate token: researchers' name for the habit of looking at an earlier copy of the same token.",
    "Induction: researchers' name for the habit of looking at the token that came after the earlier copy of "
    "the current one; on random tokens said twice, which carry no meaning, a head can only do that by "
    "following the copy, which lets a model continue a pattern it has seen once.",
)
LABELS = 24  # the random tokens' pattern labels about this many of its rows and columns


def _params(
    rows: list[HeadRow], best: HeadRow, n_layer: int, n_head: int, on_text: Grid, on_repeats: Grid
) -> list[alt.Parameter]:
    """The layer and head selects (opening on the `best` head), "Colour by", the names of the text's and the random
    tokens' rows and columns, and the chart's words (described)."""
    # Layer and head first: on a phone the first line of inputs stays in view while the patterns below scroll
    # past, and these two are what the patterns follow; "Colour by" waits right above the grid it colours.
    return [
        alt.param(
            name="layer",
            value=best["layer"] + 1,
            bind=alt.binding_select(options=list(range(1, n_layer + 1)), name="Layer "),
        ),
        alt.param(
            name="head",
            value=best["head"] + 1,
            bind=alt.binding_select(options=list(range(1, n_head + 1)), name="Head "),
        ),
        alt.param(
            name="show",
            value=STRONGEST,
            bind=alt.binding_select(
                options=[STRONGEST, *ROLES],
                labels=["its strongest habit", *(n for n, _ in ROLES.values())],
                name="Colour by ",
            ),
        ),
        alt.param(name=NAMES, value=on_text.names),
        alt.param(name=REPEAT_NAMES, value=on_repeats.names),
        *described(rows),
    ]


def described(rows: list[HeadRow]) -> list[alt.Parameter]:
    """The chart's description after any change: the chosen head in words (head_words), and the habit the grid is
    coloured by where one is chosen; and the key, which says how the grid is coloured (Roles.KEY, KEY_ONE)."""
    said = alt.param(
        name="head_words", value={f"{row['layer'] + 1}-{row['head'] + 1}": head_words(row) for row in rows}
    )
    colouring = alt.param(
        name="colour_words",
        value={role: f"The grid shows how much every head looks at {goes}." for role, (_, goes) in ROLES.items()},
    )
    key = alt.param(
        name=KEY_WORDS, expr=(f"show == '{STRONGEST}' ? {charts.literal(Roles.KEY)} : {charts.literal(Roles.KEY_ONE)}")
    )
    return [
        said,
        colouring,
        key,
        alt.param(
            name=DESCRIPTION,
            expr=(f"head_words[layer + '-' + head] + (show == '{STRONGEST}' ? '' : ' ' + colour_words[show])"),
        ),
    ]


def repeats_file(fig: Figure, layer: int) -> str:
    return paths.figure_data(fig.label, f"repeated-layer-{layer:02d}")


def text_grid(fig: Figure, run: Run, n_layer: int, n_head: int) -> Grid:
    """The text's pattern as the heads figure lays it out (in blocks of tokens past heads.MAX_BLOCKS)."""
    tokens = run.token_texts(fig["text"])
    size, blocks = heads.blocking(len(tokens))
    return Grid(n_layer, n_head, len(tokens), size, blocks, heads.block_names(tokens, size))


def _text_rows(fig: Figure, run: Run, grid: Grid) -> list[PatternRow]:
    """Each head's pattern over the text, as the heads figure's page carries it (its layers' averages left out)."""
    return [
        {"l": row["l"], "h": row["h"], "u": row["u"]}
        for row in heads.panel_rows(grid, heads.squares(fig, run))
        if row["h"] < grid.n_head
    ]


def repeats_grid(entry: RolesEntry, run: Run, n_layer: int, n_head: int) -> Grid:
    """The random tokens said twice, in the blocks the part kept (figsite/capture/parts/roles.py), about LABELS of
    them labelled."""
    pattern, sequence = entry["pattern"], entry["sequence"]
    tokens = [run.token_text(token) for token in sequence + sequence]
    names = heads.block_names(tokens, pattern["size"])
    every = math.ceil(pattern["blocks"] / LABELS)
    return Grid(
        n_layer,
        n_head,
        len(tokens),
        pattern["size"],
        pattern["blocks"],
        names,
        data="repeats",
        names_param=REPEAT_NAMES,
        label_every=every,
    )


def repeats_rows(entry: RolesEntry, layer: int, heads_of: Iterable[int]) -> list[PatternRow]:
    """The pattern over the random tokens said twice of some heads of one layer (0-based), as the page's data."""
    return [{"l": layer, "h": head, "u": entry["pattern"]["shares"][layer][head]} for head in heads_of]
