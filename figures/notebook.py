"""A figure's notebook (python build.py --notebooks): short cells that load the same model with transformers, read
the same text, recompute the figure's numbers with transformers and plain torch only (no import of this project:
a reader can run it anywhere), check every one against the page's data download, and draw the figure with Altair
from the page's own chart spec and data. Pure: the cells as text (sitegen/site/notebooks.py writes them with
nbformat).

A kind that offers one gives Kind.notebook(fig, run): its Recipe, the code of a function

    recompute(model, ids, tables) -> [(table, row, column, value), ...]

that works out, for each row of the page's tables it checks, the number the page shows there (reading from the
row only where it stands: its layer, head, position), and the parameters that code reads (the target's id...).
"""

from __future__ import annotations

import json
import re
import textwrap
from dataclasses import dataclass, field
from typing import Any

from figsite.data import shared_names
from figsite.data.records import ModelRecord

# A share or a chance: the notebook's float32 run against the build's, beyond the rounding of what the page writes
# (a chart's shares to 4 decimals, its chances to 5 or to 3 significant digits)
TOLERANCE = 1e-5
RANDOM = re.compile(r"^random \(seed (\d+)\)$")  # the record's name of --model random (figsite.model.load)
NEEDS = "torch, transformers and altair"


@dataclass(frozen=True)
class Recipe:
    """What a kind's notebook recomputes: `code` defines recompute(model, ids, tables) (see the module's docstring);
    `params`, the names it reads besides, with their values (plain JSON)."""

    code: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Notebook:
    """Everything one figure's notebook says: the figure, its model (a side-by-side figure's: its models, in its
    order), its text and the ids the model read (None and []: a figure that reads no text; several models: each
    one's ids), its page's files."""

    label: str
    title: str
    kind: str
    models: list[ModelRecord]
    text: str | None
    ids: list[int] | list[list[int]]
    data_file: str  # the page's data download, by its name in the site (downloads/figure-<label>.json)
    data_sha256: str
    spec_file: str  # the page's chart as Vega-Lite, data included
    recipe: Recipe


def loading(model: ModelRecord) -> str:
    """The cell that loads the model as the build did: GPT-2 small's shape with the build's seeded random weights
    (the same draws, in the same order), or the checkpoint from its local folder or the hub, at its revision."""
    seed = RANDOM.match(str(model["name"]))
    if seed:
        return (
            _random_note(f"seed {seed.group(1)}")
            + f"\n\nmodel, tokenizer = random_gpt2({seed.group(1)}), None  # the page's ids stand for its tokenizer\n"
        )
    return f"{_checkpoint_note(model)}model = {_pretrained(model)}\ntokenizer = {_tokenizer(model)}\n"


def loading_each(models: list[ModelRecord]) -> str:
    """The cell that loads each model of a figure of several (a side-by-side kind's) as the build did, in the
    figure's order, into `models`, and their tokenizers into `tokenizers` (None for a random model's)."""
    random = any(RANDOM.match(str(model["name"])) for model in models)
    lines = [_random_note("its seed") + "\n\n"] if random else []
    lines.append("models, tokenizers = [], []  # in the figure's order, each model with its tokenizer\n")
    for model in models:
        seed = RANDOM.match(str(model["name"]))
        if seed:
            lines.append(f"models.append(random_gpt2({seed.group(1)})); tokenizers.append(None)  # the page's ids\n")
        else:
            lines.append(
                f"{_checkpoint_note(model)}models.append({_pretrained(model)})\n"
                f"tokenizers.append({_tokenizer(model)})\n"
            )
    return "".join(lines)


def _random_note(seed: str) -> str:
    """The build's random GPT-2, drawn from `seed` ("seed 3", "its seed"), as a function of its seed."""
    return textwrap.dedent(
        f"""\
        # The build's `--model random`: GPT-2 small's shape, every weight drawn from {seed} as the
        # build draws them (GPT-2's initialisation, then every layer norm and bias drawn too). Its numbers say
        # nothing about GPT-2.
        def random_gpt2(seed):
            model = GPT2LMHeadModel(GPT2Config(attn_implementation="eager"))
            generator, deep = torch.Generator().manual_seed(seed), 0.02 / math.sqrt(2 * model.config.n_layer)
            with torch.no_grad():
                for name, param in model.named_parameters():
                    if ".ln_" in name or name.startswith("transformer.ln_f"):
                        param.fill_(1.0 if name.endswith(".weight") else 0.0)
                    elif name.endswith(".bias"):
                        param.zero_()
                    else:
                        param.normal_(0.0, deep if name.endswith("c_proj.weight") else 0.02, generator=generator)
                generator = torch.Generator().manual_seed(seed + 1)
                for name, param in model.named_parameters():
                    noise = torch.randn(param.shape, generator=generator)
                    if ".ln_" in name and name.endswith(".weight"):
                        param.copy_(1.0 + 0.25 * noise)
                    elif name.endswith(".bias"):
                        param.copy_(0.1 * noise)
            return model.eval()
        """
    )


def _checkpoint_note(model: ModelRecord) -> str:
    read = " at the commit the build read" if model.get("revision") else ""
    return f"# {model['name']}: a local folder, or a hub id (read from the Hugging Face cache once downloaded){read}.\n"


def _pretrained(model: ModelRecord) -> str:
    revision = f", revision={model['revision']!r}" if model.get("revision") else ""
    return f'AutoModelForCausalLM.from_pretrained({model["name"]!r}{revision}, attn_implementation="eager").eval()'


def _tokenizer(model: ModelRecord) -> str:
    revision = f", revision={model['revision']!r}" if model.get("revision") else ""
    return f"AutoTokenizer.from_pretrained({model['name']!r}{revision})"


def cells(book: Notebook) -> list[tuple[str, str]]:
    """The notebook's cells, ("markdown" or "code", source), in order."""
    # as Python writes them (None, True), not as JSON does (null, true)
    params = "".join(f"{name} = {value!r}\n" for name, value in book.recipe.params.items())
    return [
        ("markdown", _opening(book)),
        (
            "code",
            "import hashlib, json, math\nfrom pathlib import Path\n\nimport altair as alt\nimport torch\n"
            "from transformers import AutoModelForCausalLM, AutoTokenizer, GPT2Config, GPT2LMHeadModel\n",
        ),
        (
            "code",
            _text(book) + f"PAGE_DATA, PAGE_SHA256 = {book.data_file!r}, {book.data_sha256!r}\n"
            f"PAGE_SPEC = {book.spec_file!r}\nTOLERANCE = {TOLERANCE}\n{params}",
        ),
        ("code", STATE_CELL),
        ("code", _loading(book)),
        ("markdown", "The figure's numbers, worked out again from the model's own outputs:"),
        ("code", book.recipe.code),
        ("markdown", "Every number checked against the page's data download:"),
        ("code", CHECK if len(book.models) == 1 else CHECK.replace("recompute(model, ", "recompute(models, ")),
        (
            "markdown",
            "The figure itself, drawn by Altair from the page's own chart and data (JupyterLab and VS Code "
            "draw it with the Vega they ship: nothing is fetched):",
        ),
        ("code", DRAW),
    ]


def _opening(book: Notebook) -> str:
    return (
        f"# {book.title}\n\nThis notebook recomputes the numbers of the figure `{book.label}` from the model itself, "
        f"with plain code, and checks each against what the page shows. It needs {NEEDS} only (`pip install torch "
        f"transformers altair`), and no network once the model's weights are on this computer. Run it beside the "
        f"site's folder (it reads the page's files from `downloads/`)."
    )


def _text(book: Notebook) -> str:
    """The text and the ids the page read (each model's, where it has several); none where it reads no text."""
    if book.text is None:
        return "IDS = []  # the figure reads no text\n"
    read = "the ids the page read" if len(book.models) == 1 else "the ids each model read, in the figure's order"
    return f"TEXT = {json.dumps(book.text, ensure_ascii=False)}\nIDS = {json.dumps(book.ids)}  # {read}\n"


def _loading(book: Notebook) -> str:
    """The loading cell: the model (or each model) as the build loaded it, and its tokenizer checked on the text."""
    if len(book.models) > 1:
        return loading_each(book.models) + textwrap.dedent(
            """\
            for tokenizer, ids in zip(tokenizers, IDS):  # each model's own tokenizer cuts the text as its page read it
                if tokenizer is not None:
                    assert tokenizer(TEXT)["input_ids"] == ids, "a tokenizer cuts the text otherwise than the page did"
            """
        )
    return loading(book.models[0]) + (_check_ids() if book.text is not None else "")


def _check_ids() -> str:
    return textwrap.dedent(
        """\
        if tokenizer is not None:  # the model's own tokenizer cuts the text into the page's tokens
            assert tokenizer(TEXT)["input_ids"] == IDS, "the tokenizer cuts the text otherwise than the page did"
        """
    )


CHECK = textwrap.dedent(
    '''\
    def page_file(name):
        """The page's file beside this notebook's site: downloads/<name>, found from here or a folder up."""
        for folder in (Path("downloads"), Path("..") / "downloads", Path(".")):
            if (folder / name).is_file():
                return folder / name
        raise FileNotFoundError(f"{name}: run this notebook in the site's folder or its notebooks/ folder")


    def rounding(shown):
        """Half the last digit the page writes of a number (0.00005 for 0.2704): how far its rounding may move it."""
        mantissa, _, exponent = repr(float(shown)).partition("e")
        return 0.5 * 10 ** -(len(mantissa.partition(".")[2]) - int(exponent or 0))


    def allowed(shown):
        """How far a value may lie from the page's: TOLERANCE, of the value itself where it is above 1 (a score of 16
        carries float32's error of 16), and the page's rounding."""
        return TOLERANCE * max(1.0, abs(shown)) + rounding(shown)


    raw = page_file(PAGE_DATA).read_bytes()
    same_file = hashlib.sha256(raw).hexdigest() == PAGE_SHA256
    if not same_file:
        print(f"{PAGE_DATA} is not the file the page listed (its SHA-256 differs): checking it all the same")
    tables = json.loads(raw)["tables"]
    found = recompute(model, IDS, tables)
    differ = [(t, i, c, v) for t, i, c, v in found if abs(tables[t][i][c] - v) > allowed(tables[t][i][c])]
    for t, i, c, v in differ[:10]:
        print(f"{t} row {i} {c}: the page shows {tables[t][i][c]}, recomputed {v:.6g}")
    if differ or not same_file:
        raise AssertionError(f"{len(differ)} of {len(found)} values differ from the page by more than {TOLERANCE}")
    print(f"all {len(found)} values match the page within {TOLERANCE} (of the value, above 1; and the page's own rounding)")
    '''
)

# The figure's state, as the page's address held it when the reader saved the notebook from the page (its script
# writes this line; templates/js/figures/notebook.js): the chart opens there. The build's own file leaves it empty.
STATE_LINE = shared_names.NOTEBOOK_STATE
STATE_CELL = (
    f"{STATE_LINE}\n# The figure's choices (the token, head, layer ...) as the page's address held them when this notebook "
    "was saved\n# from the page: the chart below opens there. Empty: as the page opens.\n"
)

DRAW = textwrap.dedent(
    """\
    spec = json.loads(page_file(PAGE_SPEC).read_text(encoding="utf-8"))
    for param in spec.get("params", []):  # the chart opens in the page's state (STATE)
        if param["name"] in STATE and "bind" in param:
            param["value"] = STATE[param["name"]]
    kinds = {"layer": alt.LayerChart, "vconcat": alt.VConcatChart, "hconcat": alt.HConcatChart,
             "concat": alt.ConcatChart, "facet": alt.FacetChart}
    # The page's chart as an Altair object, to change or to save (chart.save("figure.html")) ...
    chart = next((made for key, made in kinds.items() if key in spec), alt.Chart).from_dict(spec, validate=False)
    # ... drawn here by the Vega that JupyterLab and VS Code ship: the spec alone, no script from the network.
    display({"application/vnd.vegalite.v5+json": chart.to_dict(validate=False), "text/plain": PAGE_SPEC}, raw=True)
    """
)
