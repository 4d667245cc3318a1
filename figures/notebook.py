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
    """Everything one figure's notebook says: the figure, its model, its text and ids, its page's files."""

    label: str
    title: str
    kind: str
    model: ModelRecord
    text: str
    ids: list[int]
    data_file: str  # the page's data download, by its name in the site (downloads/figure-<label>.json)
    data_sha256: str
    spec_file: str  # the page's chart as Vega-Lite, data included
    recipe: Recipe


def loading(model: ModelRecord) -> str:
    """The cell that loads the model as the build did: GPT-2 small's shape with the build's seeded random weights
    (the same draws, in the same order), or the checkpoint from its local folder or the hub, at its revision."""
    seed = RANDOM.match(str(model["name"]))
    if seed:
        return textwrap.dedent(
            f"""\
            # The build's `--model random`: GPT-2 small's shape, every weight drawn from seed {seed.group(1)} as the
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


            model, tokenizer = random_gpt2({seed.group(1)}), None  # the page's ids stand for its tokenizer
            """
        )
    revision = f", revision={model['revision']!r}" if model.get("revision") else ""
    return textwrap.dedent(
        f"""\
        # {model["name"]}: a local folder, or a hub id (read from the Hugging Face cache once downloaded){" at the commit the build read" if revision else ""}.
        model = AutoModelForCausalLM.from_pretrained({model["name"]!r}{revision}, attn_implementation="eager").eval()
        tokenizer = AutoTokenizer.from_pretrained({model["name"]!r}{revision})
        """
    )


def cells(book: Notebook) -> list[tuple[str, str]]:
    """The notebook's cells, ("markdown" or "code", source), in order."""
    params = "".join(f"{name} = {json.dumps(value)}\n" for name, value in book.recipe.params.items())
    return [
        ("markdown", _opening(book)),
        (
            "code",
            "import hashlib, json, math\nfrom pathlib import Path\n\nimport altair as alt\nimport torch\n"
            "from transformers import AutoModelForCausalLM, AutoTokenizer, GPT2Config, GPT2LMHeadModel\n",
        ),
        (
            "code",
            f"TEXT = {json.dumps(book.text, ensure_ascii=False)}\nIDS = {json.dumps(book.ids)}  # the ids the page read\n"
            f"PAGE_DATA, PAGE_SHA256 = {book.data_file!r}, {book.data_sha256!r}\n"
            f"PAGE_SPEC = {book.spec_file!r}\nTOLERANCE = {TOLERANCE}\n{params}",
        ),
        ("code", loading(book.model) + _check_ids()),
        ("markdown", "The figure's numbers, worked out again from the model's own outputs:"),
        ("code", book.recipe.code),
        ("markdown", "Every number checked against the page's data download:"),
        ("code", CHECK),
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


    raw = page_file(PAGE_DATA).read_bytes()
    same_file = hashlib.sha256(raw).hexdigest() == PAGE_SHA256
    if not same_file:
        print(f"{PAGE_DATA} is not the file the page listed (its SHA-256 differs): checking it all the same")
    tables = json.loads(raw)["tables"]
    found = recompute(model, IDS, tables)
    differ = [(t, i, c, v) for t, i, c, v in found if abs(tables[t][i][c] - v) > TOLERANCE + rounding(tables[t][i][c])]
    for t, i, c, v in differ[:10]:
        print(f"{t} row {i} {c}: the page shows {tables[t][i][c]}, recomputed {v:.6g}")
    if differ or not same_file:
        raise AssertionError(f"{len(differ)} of {len(found)} values differ from the page by more than {TOLERANCE}")
    print(f"all {len(found)} values match the page within {TOLERANCE} (and the page's own rounding)")
    '''
)

DRAW = textwrap.dedent(
    """\
    spec = json.loads(page_file(PAGE_SPEC).read_text(encoding="utf-8"))
    kinds = {"layer": alt.LayerChart, "vconcat": alt.VConcatChart, "hconcat": alt.HConcatChart,
             "concat": alt.ConcatChart, "facet": alt.FacetChart}
    # The page's chart as an Altair object, to change or to save (chart.save("figure.html")) ...
    chart = next((made for key, made in kinds.items() if key in spec), alt.Chart).from_dict(spec, validate=False)
    # ... drawn here by the Vega that JupyterLab and VS Code ship: the spec alone, no script from the network.
    display({"application/vnd.vegalite.v5+json": chart.to_dict(validate=False), "text/plain": PAGE_SPEC}, raw=True)
    """
)
