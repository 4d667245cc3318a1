"""Cache keys complete by construction: every key of every table of the config, and every option of the command that
reaches the site, changed alone, gives from a warm cache what a clean build gives (issue 49, point 1).

The keys are the code's own: each kind's FIELDS and the keys every figure has (figsite.config.COMMON_FIELDS),
figsite.config.SITE_KEYS, figsite.print_config.PRINT_KEYS and the options of build.py's command. Each is in CHANGES
(another valid value, built) or in UNCHANGING (why it cannot change the site); a key in neither fails, so that a new
key comes with its entry here.

Each key's case builds its config with that one value changed, cold, into a cache of its own; then the config as it
was from that cache; and compares that site, every file byte for byte, with a --no-cache build of the config as it
was (made once per config). A cache entry (a run, a page, a chart, a drawing, a print drawing, the contact sheet, the
downloads, the live page's export) keyed without the key would hand the changed config's bytes to the rebuild. It is
the author's own path: a build, one value changed back, a rebuild. The changed build must differ from the clean one,
or the value changed nothing and the case could not fail.

Cost: each config holds one figure, on a short text, over the small model of tests/conftest.py, built in this process;
the drawing processes are kept from build to build (vl-convert answers a request from the request alone). The live
page's export to ONNX (some 15 s even for the small model) is stood in for by a file that depends on exactly the
weights, and the light weights' error measured on the config's texts by a number that depends on exactly those
texts, so that the cache of exports is held to its key as every other entry is; the export itself is tests/live/'s.
"""

from __future__ import annotations

import hashlib
import json
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import SITE_TABLE, hub_cache, other_model, snapshot

import build
from figsite.capture import live_export, live_run
from figsite.config import COMMON_FIELDS, SITE_KEYS
from figsite.print_config import PRINT_KEYS
from sitegen.site import live_assets
from figures import KINDS

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
CAT = "The cat sat down because it was tired"
RIVER = "The river runs through Vienna, the capital of"
ICE = "Ice melts into water when it gets"
CLEAN, CORRUPTED = "The keys were here, so he took", "The key was here, so he took"
HUB_ID = "tiny/gpt2"  # the small models laid out as the hub lays out a repository, two revisions (hub_cache)
OPTIONS = {option.opts[0]: option for option in build.cli.params}  # "--model", "--serve", "--quiet"...


def figure(**values) -> dict:
    return {"figure": values}


def site(**values) -> dict:
    return {"site": values}


def printed(**values) -> dict:
    return {"print": values}


def option(name: str, value) -> dict:
    """An option of the command: a value (a str; "{other model}" names a model of model_dirs), True (a flag given) or
    False (left out)."""
    return {"options": {name: value}}


# Each kind's config: one figure with every key of its kind, on a short text (a figure costs its drawings).
FIGURES = {
    "attention": {
        "text": CAT,
        "focus": "it",
        "views": [[3, 2], [1, 4]],
        "printed_views": [[1, 4]],
        "guess_token": 2,
        "guess_view": [2, 1],
    },
    "readout": {"text": RIVER, "target": " Austria", "position": 6, "look_back_to": "Vienna"},
    "shapes": {"text": CAT, "layers": [3, 1]},
    "numbers": {},
    "cost": {"lengths": [3, 50]},
    "side-by-side": {"text": RIVER, "target": " Austria", "models": ["{small model}", "{other model}"]},
    "habit-side-by-side": {
        "text": "A rose is a rose is a rose, and a cat is a cat",
        "models": ["{small model}", "{other model}"],
        "role": "previous",
        "head": [3, 2],
        "repeat_length": 6,
        "seed": 1,
    },
    "heads": {"text": CAT, "focus": 4, "head": [3, 4]},
    "lens": {"text": f"{ICE} warm", "position": "melts", "track": " cold"},
    "compare": {"texts": [f"{ICE} warm", f"{ICE} hot"]},  # its focus: the default first, then one given
    "find-head": {"text": RIVER, "from": 8, "to": "river", "top": 5},
    "scores": {"text": RIVER, "focus": "Vienna", "head": [3, 1]},
    "ledger": {"text": f"{ICE} warm", "target": " cold", "position": 4, "versus": " ice"},
    "knockout": {"text": RIVER, "target": " Austria", "position": "capital", "heads_of": 2},
    "patching": {"clean": CLEAN, "corrupted": CORRUPTED, "target": " them", "versus": " it", "position": "took"},
    "head-roles": {"text": "A rose is a rose is a rose", "repeat_length": 6, "seed": 7},
}

# key -> (the config it is changed in: a kind's, "tables", "site" or a model's; the change). Each value is valid and
# unlike the config's, and changes the site (checked).
CHANGES = {
    "attention.text": ("attention", figure(text=CAT.replace("cat", "dog"))),
    "attention.focus": ("attention", figure(focus=7)),
    "attention.views": ("attention", figure(views=[[2, 2], [1, 4]])),
    "attention.printed_views": ("attention", figure(printed_views=[[3, 2]])),
    "attention.guess_token": ("attention", figure(guess_token=4)),
    "attention.guess_view": ("attention", figure(guess_view=[3, 2])),
    "readout.text": ("readout", figure(text=RIVER.replace("runs", "flows"))),
    "readout.target": ("readout", figure(target=" Germany")),
    "readout.position": ("readout", figure(position=7)),
    "readout.look_back_to": ("readout", figure(look_back_to="river")),
    "shapes.text": ("shapes", figure(text=CAT.replace("cat", "dog"))),
    "shapes.layers": ("shapes", figure(layers=[2])),
    "cost.lengths": ("cost", figure(lengths=[4, 60])),
    "heads.text": ("heads", figure(text=CAT.replace("cat", "dog"))),
    "heads.focus": ("heads", figure(focus=6)),
    "heads.head": ("heads", figure(head=[2, 1])),
    "lens.text": ("lens", figure(text=f"{ICE} hot")),
    "lens.position": ("lens", figure(position=4)),
    "lens.track": ("lens", figure(track=" warm")),
    "compare.texts": ("compare", figure(texts=[f"{ICE} warm", f"{ICE} cold"])),
    "compare.focus": ("compare", figure(focus="water")),
    "find-head.text": ("find-head", figure(text=RIVER.replace("runs", "flows"))),
    "find-head.from": ("find-head", figure(**{"from": 7})),
    "find-head.to": ("find-head", figure(to="runs")),
    "find-head.top": ("find-head", figure(top=3)),
    "scores.text": ("scores", figure(text=RIVER.replace("runs", "flows"))),
    "scores.focus": ("scores", figure(focus="capital")),
    "scores.head": ("scores", figure(head=[1, 2])),
    "ledger.text": ("ledger", figure(text=f"{ICE} hot")),
    "ledger.target": ("ledger", figure(target=" warm")),
    "ledger.position": ("ledger", figure(position=5)),
    "ledger.versus": ("ledger", figure(versus=" snow")),
    "knockout.text": ("knockout", figure(text=RIVER.replace("runs", "flows"))),
    "knockout.target": ("knockout", figure(target=" Italy")),
    "knockout.position": ("knockout", figure(position="of")),
    "knockout.heads_of": ("knockout", figure(heads_of=3)),
    "patching.clean": ("patching", figure(clean=CLEAN.replace("here", "there"))),
    "patching.corrupted": ("patching", figure(corrupted=CORRUPTED.replace("here", "there"))),
    "patching.target": ("patching", figure(target=" those")),
    "patching.versus": ("patching", figure(versus=" that")),
    "patching.position": ("patching", figure(position="he")),
    "head-roles.text": ("head-roles", figure(text="A dog is a dog is a dog")),
    "head-roles.repeat_length": ("head-roles", figure(repeat_length=5)),
    "head-roles.seed": ("head-roles", figure(seed=8)),
    "side-by-side.text": ("side-by-side", figure(text=CAT)),
    "side-by-side.target": ("side-by-side", figure(target=" Paris")),
    "side-by-side.models": ("side-by-side", figure(models=["{other model}", "{small model}"])),
    "habit-side-by-side.text": ("habit-side-by-side", figure(text="A dog is a dog is a dog")),
    "habit-side-by-side.models": ("habit-side-by-side", figure(models=["{other model}", "{small model}"])),
    "habit-side-by-side.role": ("habit-side-by-side", figure(role="self")),
    "habit-side-by-side.head": ("habit-side-by-side", figure(head=[1, 2])),
    "habit-side-by-side.repeat_length": ("habit-side-by-side", figure(repeat_length=5)),
    "habit-side-by-side.seed": ("habit-side-by-side", figure(seed=8)),
    # the keys every figure has, in the tables' config (its figure has each, and [print] draws its number and title)
    "figure.kind": ("tables", figure(kind="heads")),
    "figure.label": ("tables", figure(label="again")),
    "figure.caption": ("tables", figure(caption="Another caption in the author's words.")),
    "figure.number": ("tables", figure(number="3.5")),
    "figure.page": ("tables", figure(page=13)),
    "figure.model": ("directory", figure(model="{other model}")),
    "print.width_mm": ("tables", printed(width_mm=100)),
    "print.font": ("tables", printed(font=str(DEJAVU / "DejaVuSansMono.ttf"))),
    "print.font_size_pt": ("tables", printed(font_size_pt=14)),
    "print.greyscale": ("tables", printed(greyscale=True)),
    "print.captions": ("tables", printed(captions=False)),
    "site.title": ("site", site(title="Another title")),
    "site.book": ("site", site(book="How Machines Write")),
    "site.chapter": ("site", site(chapter=4)),
    "site.author": ("site", site(author="Bea Example")),
    "site.introduction": ("site", site(introduction="Another *introduction*.")),
    "site.book_url": ("site", site(book_url="https://example.org/another-book")),
    "site.licence": ("site", site(licence="All rights reserved")),
    "site.cite": ("site", site(cite="Bea Example, *How Machines Write* (2026)")),
    "site.base_url": ("site", site(base_url="https://example.org/elsewhere/")),
    # the command's options, each in a config of one figure that reads the weights, over a model given as it needs
    "--model": ("directory", option("--model", "{other model}")),
    "--revision": ("hub", option("--revision", "v2")),
    "--seed": ("random", option("--seed", "1")),
    "--device": ("directory", option("--device", "cuda")),
    "--live": ("directory", option("--live", False)),
    "--notebooks": ("readout", option("--notebooks", True)),  # the read-out offers a notebook
}

# key -> why it cannot change the site
UNCHANGING = {
    "--config": "which file holds the tables; what they hold is what the cases vary, and its path reaches no file of "
    "the site (every case reads its config from a folder of its own and the sites compare equal)",
    "--out": "where the site is written; no file names it (every build here writes to a folder of its own)",
    "--rerun": "runs the model again where the cache holds the run: the same run, written again",
    "--cache": "which cache folder: the subject of this test, not an input of any entry",
    "--no-cache": "no cache at all: the clean build each case compares with",
    "--quiet": "what the build says on the terminal, never written into the site",
    "--verbose": "what the build says on the terminal, never written into the site",
    "--watch": "builds as a plain build does, again on each change (tests/builds/test_watch_and_serve.py)",
    "--serve": "adds to the pages only as it sends them; the site on disk is a plain build's "
    "(tests/builds/test_watch_and_serve.py)",
    "--check-book": "writes no site: compares the book's printed figures with this run's",
}


def every_key() -> list[str]:
    """Every key the code knows: each kind's own (kind.key), the keys every figure has (figure.key), [site]'s
    (site.key), [print]'s (print.key) and the command's options (--name)."""
    kinds = [f"{kind}.{key}" for kind, module in KINDS.items() for key in module.FIELDS]
    tables = [f"figure.{key}" for key in COMMON_FIELDS] + [f"site.{key}" for key in SITE_KEYS]
    return kinds + tables + [f"print.{key}" for key in PRINT_KEYS] + list(OPTIONS)


def test_every_entry_names_a_key_the_code_knows_and_each_key_is_tested_or_said_to_change_nothing():
    known = set(every_key())
    assert not set(CHANGES) - known, f"entries for keys the code does not know: {sorted(set(CHANGES) - known)}"
    assert not set(UNCHANGING) - known, f"reasons for keys the code does not know: {sorted(set(UNCHANGING) - known)}"
    assert not set(CHANGES) & set(UNCHANGING)
    assert {"attention.focus", "figure.caption", "site.title", "print.font_size_pt", "--model"} <= known


# ---------------------------------------------------------------------------------------------- the configs


def one_figure(kind: str, **values) -> dict:
    return {"kind": kind, "label": "fig", **values}


# The tables' config: one figure with every key every figure may have, and a [print] table with every key; the site's:
# the cheapest figure, and tests/site_table.toml's [site], every key given.
TABLES = {
    "figure": one_figure(
        "attention",
        text=CAT,
        focus=4,
        number="3.4",
        page=12,
        caption="Which words one word looks at, in the author's words.",
    ),
    "print": {
        "width_mm": 90,
        "font": str(DEJAVU / "DejaVuSerif.ttf"),
        "font_size_pt": 7,
        "greyscale": False,
        "captions": True,
    },
}
SITE = {"figure": one_figure("numbers"), "site": tomllib.loads(SITE_TABLE.read_text(encoding="utf-8"))["site"]}
MODELS = {  # the command's options of each model's config (a str, or True for a flag)
    "directory": {"--model": "{small model}", "--device": "cpu"},
    "hub": {"--model": HUB_ID, "--revision": "main"},
    "random": {"--model": "random", "--seed": "0"},
}


def config_of(group: str) -> tuple[dict, dict]:
    """The tables of `group`'s config, and its command's options."""
    if group in FIGURES:
        return {"figure": one_figure(group, **FIGURES[group])}, {}
    if group in ("tables", "site"):
        return TABLES if group == "tables" else SITE, {}
    live = {"--live": True} if LIVE else {}
    return {"figure": one_figure("find-head", **FIGURES["find-head"])}, {**MODELS[group], **live}


def changed(group: str, change: dict | None) -> tuple[dict, dict]:
    """`group`'s config with `change` made (None: as it is)."""
    tables, options = config_of(group)
    change = change or {}
    tables = {name: {**table, **change.get(name, {})} for name, table in tables.items()}
    return tables, {**options, **change.get("options", {})}


def toml(tables: dict) -> str:
    """The config's TOML: [site] and [print] where given, and the one [[figure]] (JSON's strings, numbers, lists and
    true/false are TOML's too)."""
    out = []
    for name in ("site", "print", "figure"):
        if name in tables:
            out.append(f"[[{name}]]" if name == "figure" else f"[{name}]")
            out += [f"{json.dumps(key)} = {json.dumps(value)}" for key, value in tables[name].items()]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------- building

LIVE = not live_assets.problems()  # the live page's npm libraries are there (./setup.sh --live)


class Builder:
    """Builds a group's config, changed or not, into a folder; keeps each group's clean build's snapshot. `models`:
    the models' folders by the names the options give them ("{small model}"); `hub`: the Hugging Face cache that
    holds HUB_ID."""

    def __init__(self, work: Path, models: dict, hub: Path):
        self.work, self.models, self.hub, self.clean_builds = work, models, hub, {}

    def build(self, group: str, change: dict | None, folder: Path, cache: Path | None) -> Path:
        tables, options = changed(group, change)
        folder.mkdir(parents=True)
        text = toml(tables)
        for name, path in self.models.items():  # a figure's model, as an option's, by its name ("{other model}")
            text = text.replace("{" + name + "}", path)
        (folder / "book.toml").write_text(text, encoding="utf-8")
        args = ["--config", str(folder / "book.toml"), "--out", str(folder / "site"), "--quiet"]
        args += ["--no-cache"] if cache is None else ["--cache", str(cache)]
        for name, value in options.items():
            args += [name] if value is True else [] if value is False else [name, value.format_map(self.models)]
        if "--model" not in options:
            args += ["--model", self.models["small model"]]
        with self.model_as(group):
            result = CliRunner().invoke(build.cli, args)
        assert result.exit_code == 0, f"{group} {change}: {result.output}\n{result.exception!r}"
        return folder / "site"

    def clean(self, group: str) -> dict:
        """The snapshot of a --no-cache build of `group`'s config as it is, made once."""
        if group not in self.clean_builds:
            self.clean_builds[group] = snapshot(self.build(group, None, self.work / f"clean-{group}", None))
        return self.clean_builds[group]

    @contextmanager
    def model_as(self, group: str):
        """What a group's model needs: for the hub's, the hub's cache laid out here and no network; for random's,
        GPT-2 small's shape narrowed to the small model's (3 layers, 4 heads, 64 wide), keyed and drawn alike."""
        with pytest.MonkeyPatch.context() as patch:
            if group == "hub":
                patch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(self.hub))
                patch.setenv("HF_HUB_OFFLINE", "1")
            if group == "random":
                from figsite.model.hub import GPT2_SMALL

                for key, value in {"n_layer": 3, "n_head": 4, "n_embd": 64}.items():
                    patch.setitem(GPT2_SMALL, key, value)
            yield


def stand_in_export(loaded, folder: Path, max_tokens: int = 64, **_) -> dict:
    """For figsite.capture.live_export.export: one file that depends on exactly the model's weights and shape, and a
    manifest with the real one's keys."""
    digest = hashlib.sha256()
    for name, tensor in sorted(loaded.model.state_dict().items()):
        digest.update(name.encode() + tensor.detach().cpu().contiguous().numpy().tobytes())
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "model.onnx").write_text(f"a stand-in for the export of the weights {digest.hexdigest()}\n")
    (folder / "light-model.onnx").write_text(f"a stand-in for the light weights of {digest.hexdigest()}\n")
    (folder / "tokenizer.json").write_text(loaded.tokenizer.backend.to_str(), encoding="utf-8")
    config = loaded.model.config
    described = {
        name: {
            "name": name,
            "bytes": len(raw := (folder / name).read_bytes()),
            "sha256": hashlib.sha256(raw).hexdigest(),
        }
        for name in ("model.onnx", "light-model.onnx", "tokenizer.json")
    }
    return {
        "format": live_export.FORMAT,
        "model": loaded.info,
        "n_layer": config.n_layer,
        "n_head": config.n_head,
        "vocab_size": config.vocab_size,
        "max_tokens": max_tokens,
        "top_k": 10,
        "stages": config.n_layer + 1,
        "opset": 20,
        "graph": "model.onnx",
        "inputs": live_run.described_values(config)[: len(live_run.INPUTS)],
        "outputs": live_run.described_values(config)[len(live_run.INPUTS) :],
        "start_id": None,
        "files": [described["model.onnx"]],
        "tokenizer": described["tokenizer.json"],
        "light": {
            "graph": "light-model.onnx",
            "files": [described["light-model.onnx"]],
            "options": {"session.disable_quant_qdq": "1"},
            "bits": 4,
            "block": 32,
            "error": None,
        },
    }


def stand_in_error(folder: Path, manifest: dict, texts) -> dict:
    """For figsite.capture.live_light.measured: an error that depends on exactly the texts it was measured on."""
    share = int(hashlib.sha256(json.dumps(list(texts)).encode()).hexdigest()[:4], 16) / 65536
    return {"texts": len(texts), "shares": share, "chances": share / 2}


@pytest.fixture(scope="module")
def builder(small_model_dir, tmp_path_factory):
    """The Builder, with the drawing processes kept from build to build and the live page's export stood in for."""
    from sitegen import pipeline
    from figsite.capture import live_export, live_light
    from sitegen.site.drawing import Drawer

    work = tmp_path_factory.mktemp("cache-keys")
    other = other_model(small_model_dir, work / "other-model")
    hub = hub_cache(work / "hub", HUB_ID, {"main": small_model_dir, "v2": other})
    with Drawer() as drawer, pytest.MonkeyPatch.context() as patch:
        patch.setattr(pipeline, "Drawer", lambda: _Kept(drawer))
        patch.setattr(live_export, "export", stand_in_export)
        patch.setattr(live_light, "measured", stand_in_error)
        yield Builder(work, {"small model": str(small_model_dir), "other model": str(other)}, hub)


class _Kept:
    """The kept Drawer, as a build's `with Drawer() as drawer` uses it: leaving the block leaves it running."""

    def __init__(self, drawer):
        self.drawer = drawer

    def __enter__(self):
        return self.drawer

    def __exit__(self, *exc) -> None:
        pass


# ---------------------------------------------------------------------------------------------- the cases


def differing(one: dict, other: dict) -> list[str]:
    return sorted(path for path in one.keys() | other.keys() if one.get(path) != other.get(path))


@pytest.mark.parametrize("key", every_key())
def test_a_value_changed_back_and_rebuilt_from_the_cache_gives_the_clean_build(key, builder, tmp_path):
    if key in UNCHANGING:
        assert len(UNCHANGING[key]) > 30, f"{key}: say why it cannot change the site"
        return
    assert key in CHANGES, (
        f"{key}: no entry in CHANGES (another valid value, and the config it changes in) nor in "
        f"UNCHANGING (why it cannot change the site)"
    )
    group, change = CHANGES[key]
    if key == "--device":
        import torch

        if not torch.cuda.is_available():
            pytest.skip("--device cuda: torch finds no CUDA device here")
    if key == "--live" and not LIVE:
        pytest.skip("the live page's npm libraries are not installed (./setup.sh --live)")
    cache = tmp_path / "cache"
    changed_site = snapshot(builder.build(group, change, tmp_path / "changed", cache))
    clean = builder.clean(group)
    assert differing(changed_site, clean), f"{key}: the changed value changed nothing; say why in UNCHANGING"
    rebuilt = snapshot(builder.build(group, None, tmp_path / "rebuilt", cache))
    stale = differing(rebuilt, clean)
    assert not stale, (
        f"{key}: rebuilt from the cache of the changed config, these files differ from a clean build: {stale[:12]}"
    )
