"""The contract every figure kind follows: what the build asks of a kind, and in which order.

A kind is a subclass of `Kind` in a module of its own under figures/, registered with one line in
figures/__init__.py. The build uses a kind in two phases (see sitegen/pipeline.py):

1. Before the model runs, for each [[figure]] of the config:
   - `FIELDS` says which keys the figure may have; figsite.config checks their form.
   - `asks(fig)` says what the figure asks of the run, as one `Asks` (figsite/data/asks.py): the texts the model
     must read, each with the one token it tracks (or None); any other string it needs tokenized (`named`: the
     cache keeps every string's tokens, so that a rebuild checks the figure without the tokenizer); the config
     keys, with their values, that what it asks of the captured parts is worked out from (`config`, written with
     `config_of(fig, key, ...)`: with the texts and the model they make the run's cache key); and, once the figure
     is resolved, what it asks of the captured parts by their names (`parts`, below).
   - `check(fig, tokens, model)` checks what needs the tokens or the model's size and returns what it
     resolved (e.g. {"opening": 8}: the 0-based token the figure opens on). The build hands it back as
     `fig.resolved`. It never writes into `fig.values`, which hold the config's keys as written.
   - `asks(fig)` again, on the resolved figure: its `parts` ask for more of the run than a text's data, by the
     name of a captured part (figsite/capture/parts/: one module a part, which says what its asks are): a lens's
     followed tokens, a comparison's pair, one head's query and keys, a score split into parts, knockouts. Parts
     that read what `check` resolved are left out while `fig.resolved` is empty (the first call). A kind that asks
     for one part of data/parts.json is a `PartKind`: it says which (PART) and what it asks of it (`ask`), and
     reads the answer with `entry`.
2. Once the run is there, with pure functions of the resolved figure and the run (figsite.data.run.Run, read
   through its accessors: `run.token_texts(text)`, `run.head_rows(...)`, `run.readout(...)`, `run.part(...)`):
   - `chart(fig, run)`: the Altair chart; `text_figure(fig, run)`: the printed figure;
   - `key(fig, run)`: the reading key, one or two sentences on how to read the chart (what a bar, a cell, a colour
     means), which the page shows directly above the drawing, within the first screen; default KEY. A colour is
     named by its meaning's word in figures/toolkit/colours.py (HELPS_NAME, ...), never spelt here;
   - `narrow_chart(fig, run)`: the chart a column narrower than 480 px draws instead (default None: `chart`);
   - `textless_chart(model, opening, narrow)`: the same chart function's chart with no text in it, which the live
     page fills with the reader's text (default None: the live page does not draw the kind);
   - `context(fig, run)`: the words beside the chart (summary, "guess first" reveals, facts);
   - `tables(fig, run, spec)`: the data offered as CSV and JSON (default: the chart's datasets).

Where a figure reads the model: `READS` names the places of the chapter's picture of the model (PLACES: the
tokens, the embedding, a layer's attention and feed-forward parts, the numbers a layer hands on, the read-out) that
the figure shows. The index's map of the model lists each figure at the one step it reads; a figure that reads
several is listed with the layer where they are all parts of a layer, else with the whole model
(sitegen/site/model_map.py).

Names that mean the same thing in every kind: `opening` is the 0-based position of the token a figure opens
on (the attention's focus, the read-out's position, find-head's 'from'); readers see it numbered from 1.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypedDict, TypeVar, Union

from figsite.config import Field, Figure
from figsite.data import paths
from figsite.data.asks import Asks, config_of
from figsite.data.live_data import STAGE_COLUMN
from figsite.data.run import Run
from figsite.data.side_by_side import Runs
from figsite.data.token_texts import TokenTexts

if TYPE_CHECKING:
    from figsite.data.asks import ConfigItem
    from figsite.data.part_records import Ask, PartAsks, PartEntry, PartName
    from figsite.data.records import ModelRecord
    from figures.toolkit.charts import AnyChart, Spec
    from figures.notebook import Recipe

# The places of the model a figure can read (Kind.READS), in the order the numbers pass them, as the chapter draws
# one layer: the tokens, their embedding, then in each layer attention and the feed-forward part (each adds its
# result to the numbers), the numbers the layer hands on, and at the end the read-out, a score for every token.
PLACES = ("tokens", "embedding", "attention", "feed-forward", "numbers", "read-out")

# tokens(string) -> the texts of its tokens, e.g. tokens(" France") == [" France"]
Tokens = Callable[[str], TokenTexts]
# What a kind's check resolved, as fig.resolved holds it: each kind its own keys (0-based positions, layers...)
Resolved = dict[str, Any]
# The run a kind's members after the run read: one Run, or a side-by-side kind's Runs (SIDE_BY_SIDE)
RunT = TypeVar("RunT", Run, Runs)
# One of a figure's downloadable tables (Kind.tables): its rows, each a column's name -> its value
Table = Sequence[Mapping[str, object]]


class _RevealBase(TypedDict):
    question: str  # "Guess first: ..."
    answer: str


class Reveal(_RevealBase, total=False):
    """A "guess first" question beside the chart, its answer revealed on demand, and a link that shows the answer in
    the chart (an address fragment, "#token=3&view=1-2") with its words."""

    link: str
    link_text: str


class _ContextBase(TypedDict):
    summary: str
    reveals: list[Reveal]
    facts: list[str]


class Context(_ContextBase, total=False):
    """The words beside a chart (Kind.context): a summary, "guess first" reveals, facts, and technical details the
    page folds away under "More detail"."""

    details: list[str]


class LiveShape(TypedDict):
    """The model as the live page's charts read it (Kind.textless_chart): its size."""

    n_layer: int
    n_head: int
    vocab_size: int


class LiveOpening(TypedDict, total=False):
    """How the live page opens (Kind.live_opening, Kind.textless_chart's `opening`), as readers count (from 1; None:
    the last): the views ([[layer, head]]), token, head ([layer, head]), stage and position the charts open on, the
    layer whose heads the knockout takes out too (heads_of); the text the page opens on and the token it follows
    (live_opening's only)."""

    views: list[list[int]]
    token: int | None
    head: list[int]
    stage: int | None
    position: int | None
    heads_of: int
    text: str
    target: str


class Kind(Generic[RunT]):
    """One kind of figure. Subclasses set the constants and override `check`, `chart`, `text_figure` and
    `context`; the other members have defaults that fit a figure of one text.

    Its type parameter is what its members after the run get for `run`: `Kind[Run]` for a kind of one run,
    `Kind[Runs]` for a side-by-side kind (SIDE_BY_SIDE)."""

    KIND: str = ""  # the config's `kind = "..."`
    TITLE: str = ""  # the figure's heading
    CAPTION: str = ""  # in our words, for readers with no background; a figure's `caption` replaces it
    GUIDE: str = ""  # how to work the chart; "{hover}" ("{Hover}") reads "hover or tap" with a mouse, "tap" on touch;
    # "{mouse:words}": the words with a mouse only (marks too small on a phone to promise a tap)
    KEY: str = ""  # how to read the chart: one or two short sentences (what a bar, a cell, a colour means), our words
    FIELDS: dict[str, Field] = {}  # the figure's keys besides kind, label and caption
    EXPLORE: bool = False  # listed under "Explore further" on the index, after the chapter's own figures
    DATA_FILES: tuple[str, ...] = ()  # data files besides its texts' that the figure reads (paths under data/)
    PRINTED_IN_BOOK: bool = False  # the book prints this figure: its page offers the text "as printed in the book"
    # what its page calls each of its texts above their rows of tokens (default "Text A"...)
    TEXT_NAMES: tuple[str, ...] = ()
    REACH: bool = False  # a token sees only itself and the tokens before it: the page's token row shades the rest
    # the places of the model (PLACES) the figure shows: where the index's map of the model lists it
    READS: tuple[str, ...] = ()
    NOTEBOOK: str = ""  # the code of its notebook's recompute(model, ids, tables) (figures.recompute); "": none
    LIVE: int = 0  # its chart's place on the live page (1 first; textless_chart draws it); 0: not on the live page
    # It puts its text through several models, which its `models` key names: it is checked and asked of each model as
    # any figure is, and its members after the run (chart, context, ...) get, for `run`, a side-by-side record
    # (figsite.data.side_by_side.Runs: each model's run with the figure resolved against it) instead of one run.
    SIDE_BY_SIDE: bool = False

    # ------------------------------------------------------------------------------------ before the run

    def texts(self, fig: Figure) -> list[str]:
        """The texts this figure reads, in the order its page shows them (default: its `text` or `texts`)."""
        return fig.texts()

    def asks(self, fig: Figure) -> Asks:
        """What the figure asks of the run (see the module's docstring and figsite/data/asks.py). Default: its
        texts, each read with no target."""
        return Asks(texts={text: None for text in self.texts(fig)})

    def config_of(self, fig: Figure, *keys: str) -> tuple[ConfigItem, ...]:
        """`Asks.config` for a figure whose parts are worked out from these config keys."""
        return config_of(self.KIND, fig.values, *keys)

    def check(self, fig: Figure, tokens: Tokens, model: ModelRecord) -> Resolved:
        """Checks what needs the tokens and the model's size (raising fig.error); returns what it resolved."""
        return {}

    # ------------------------------------------------------------------------------------ after the run

    def chart(self, fig: Figure, run: RunT) -> AnyChart:
        raise self._lacks("chart(fig, run)")

    def caption(self, model: ModelRecord) -> str:
        """The caption where the config gives none, for the run's model (its record: a kind whose caption names
        GPT-2's parts says what another family has instead). Default: CAPTION."""
        return self.CAPTION

    def key(self, fig: Figure, run: RunT) -> str:
        """The reading key shown directly above the chart: one or two short sentences, for a reader with no
        background, on what its marks mean (default: KEY; a kind whose words depend on the data overrides it)."""
        return self.KEY

    def printed_spec(self, fig: Figure, spec: Spec) -> Spec:
        """The chart's spec (`spec`, Vega-Lite's) in the state the book prints ([print]): default, the state it
        opens in."""
        return spec

    def narrow_chart(self, fig: Figure, run: RunT) -> AnyChart | None:
        """The chart for columns narrower than 480 px (a phone), with the same bound params, names and options as
        `chart`, so that the reader's choices carry over when the page switches; None where `chart` serves every
        width (the default)."""
        return None

    def textless_chart(self, model: LiveShape, opening: LiveOpening, narrow: bool = False) -> AnyChart | None:
        """The kind's chart with no text in it, for the live page (sitegen.live), which fills it with the reader's
        text: its datasets figsite.data.live_data's, its text's params figures.toolkit.textless's. `model`:
        {"n_layer", "n_head", "vocab_size"}; `opening`, each key optional, as readers count (from 1; None: the
        last): "views" ([[layer, head]]), "token", "head" ([layer, head]), "stage", "position". None where the kind
        has none (the default) or, `narrow`, where the wide one serves a phone too."""
        return None

    def live_opening(self, fig: Figure) -> LiveOpening:
        """How the live page opens where the config has this figure (the first of its kind): keys of textless_chart's
        `opening`, and "text" (the text the page opens on) with "target" (the token it follows) where the figure
        follows one. A text with a target wins over one without. Default: nothing."""
        return {}

    def text_figure(self, fig: Figure, run: RunT) -> str:
        raise self._lacks("text_figure(fig, run)")

    def context(self, fig: Figure, run: RunT) -> Context:
        """The words beside the chart: {"summary": str, "reveals": [...], "facts": [...]}, and optionally
        "details": [...], technical facts the page folds away under "More detail" (default: none)."""
        raise self._lacks("context(fig, run)")

    def live_target(self, fig: Figure, run: RunT) -> str | None:
        """The token the figure follows through the layers, as text (" France"), for its link to the live page, which
        then follows it too; None where it follows none. Default: the target it asks the run to track."""
        return next((target for target in self.asks(fig).texts.values() if target is not None), None)

    def notebook(self, fig: Figure, run: RunT) -> Recipe | None:
        """What the figure's notebook recomputes (figures.notebook): NOTEBOOK, the code of recompute(model, ids,
        tables), and the params it reads (notebook_params); None where the kind offers no notebook."""
        from figures.notebook import Recipe

        return Recipe(self.NOTEBOOK, self.notebook_params(fig, run)) if self.NOTEBOOK else None

    def notebook_params(self, fig: Figure, run: RunT) -> dict[str, Any]:
        """The names the notebook's recompute reads besides the model, its ids and the page's tables. Default:
        none."""
        return {}

    def live_versus(self, fig: Figure, run: RunT) -> str | None:
        """The token the target is measured against, as text (" Italy"), where the figure measures one (patching):
        the reader's texts open measuring against it too. Default: none."""
        return None

    def _lacks(self, member: str) -> NotImplementedError:
        """The error for a member every kind must override, naming the kind and the member."""
        return NotImplementedError(f"{type(self).__name__} (kind {self.KIND!r}) lacks {member}: see figures/kind.py")

    def loads(self, fig: Figure, run: RunT) -> Mapping[str, object]:
        """Files the page loads only when the reader asks, where the page would be too heavy with all of them:
        {path under data/ (paths.figure_data): payload}, each written as a script that hands its payload to the page
        (its chart's usermeta LOADS_META names them). Default: none."""
        return {}

    def tables(self, fig: Figure, run: RunT, spec: Spec) -> Mapping[str, Table]:
        """name -> rows: the figure's data as the downloads offer it. Default: the chart's datasets, a stage of the
        read-out (the code's word) in a column called what readers call it, STAGE_COLUMN (0: before any layer)."""
        return {
            name: [{(STAGE_COLUMN if key == "stage" else key): value for key, value in row.items()} for row in rows]
            for name, rows in spec.get("datasets", {}).items()
        }


# Any kind, of one run or side by side: what the registry holds (figures.REGISTRY)
AnyKind = Union[Kind[Run], Kind[Runs]]


class PartKind(Kind[Run]):
    """A kind that reads one part of data/parts.json, computed for it by the capture: the scores, ledger,
    knockout, patching and head-roles figures. It names the part (PART, the name of a captured part) and says what it
    asks of it (`ask`); the run then holds one entry that answers that ask, the plain dict the part's capture
    computed, which `entry` reads."""

    PART: PartName  # "scores", "ledgers", "knockouts", "patchings" or "roles": each subclass names its part
    DATA_FILES = (paths.PARTS,)

    def ask(self, fig: Figure) -> Ask:
        """What the resolved figure asks of its part (0-based), e.g. [text, layer, head, query]: see its part's
        module."""
        raise self._lacks("ask(fig)")

    def asks(self, fig: Figure) -> Asks:
        """Its texts, the strings it names (`named`), its `ask` of its part once resolved, and as `config` every key
        of its kind (FIELDS): the run's cache key then holds each, a key added to the kind included, with no list
        to keep by hand (tests/builds/test_cache_keys.py changes each and rebuilds)."""
        return Asks(
            texts={text: None for text in self.texts(fig)},
            named=self.named(fig),
            parts=self.part_asks(fig),
            config=self.config_of(fig, *self.FIELDS),
        )

    def named(self, fig: Figure) -> tuple[str, ...]:
        """The strings it names besides its texts, to be tokenized (a target, a token to weigh it against)."""
        return ()

    def part_asks(self, fig: Figure) -> dict[str, PartAsks]:
        """`Asks.parts`: its `ask` of its part, once the figure is resolved ({} before: `ask` reads what was
        resolved)."""
        return {self.PART: [self.ask(fig)]} if fig.resolved else {}

    def entry(self, fig: Figure, run: Run) -> PartEntry:
        """The entry of data/parts.json that answers this figure's ask."""
        return run.part(self.PART, self.ask(fig))
