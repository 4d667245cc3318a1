"""A text of the model's full 1,024 positions: data format 3, one file of shares per head, and pages that stay light.

Its attention (3 layers x 4 heads x 1,024 x 1,025 / 2 shares, over the 1,000,000 a format-1 file may hold)
is written in format "gpt2-figures/3": the text's JSON lists one file per head plus one for the average,
each `gpt2Attention({...});` holding the shares of 0.5% or more in units of 1e-4, and keeps the read-out only
at the position the read-out figure reads. The files are checked share by share against the independent
reference (tests/reference.py); the read-out at the read position is checked as for short texts; a text one
token longer than the model's positions is refused. tests/browser/test_long_text_page.py drives the page in
Chromium from file://, where it loads other heads' files on demand with <script src>.

One build of the small seeded model (conftest's small_model_dir) serves the whole module.
"""

from __future__ import annotations

import html
import json
import re
import time
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner

import reference as ref_lib
from build import cli
from conftest import SMALL_SHAPE, gpt2_tokenizer

N_TOKENS = 1024  # the small model's positions, as GPT-2's
N_LAYER, N_HEAD = SMALL_SHAPE["n_layer"], SMALL_SHAPE["n_head"]
LONG_FORMAT = "gpt2-figures/3"
HEAD_FORMAT = "gpt2-figures-attention/2"
CALLBACK = "gpt2Attention"
UNIT = 1e-4
MIN_SHARE = 0.005
ATTENTION_TOLERANCE = 1e-4
PROBABILITY_TOLERANCE = 1e-5
TIE_TOLERANCE = 1e-6
PAGE_LIMIT = 5 * 1024 * 1024  # bytes: no file a page loads at once may be larger
SAMPLE_POSITIONS = [0, 511, 1023]

ATTENTION_LABEL = "long"
READOUT_LABEL = "long-i"
VIEWS = [[1, 1], [3, 4]]
FOCUS = 700
TARGET = " France"
READ_POSITION = 512  # 1-based, as the config counts: the read-out figure reads the middle of the text

ENDING = "Maya lives in Paris, the capital of"

SENTENCES = [
    "The river runs slowly through the old town, past the mill and the market square.",
    "Every morning the baker opens his shop before the sun is up, and the street smells of bread.",
    "Children walk to school in small groups, talking about the games they played the night before.",
    "The library on the hill keeps maps that are older than the oldest house in the valley.",
    "In winter the lake freezes over, and the whole village comes out to skate on it.",
    "My grandmother kept a garden of roses, beans and tall yellow sunflowers behind the kitchen.",
    "The train to the coast leaves at nine, and it stops at every station along the way.",
    "A good teacher asks questions that the class wants to answer, not questions with one right reply.",
    "When the storm came, the fishermen pulled their boats high onto the beach and waited.",
    "The museum shows paintings of the harbour as it looked two hundred years ago.",
    "She read the letter twice, folded it carefully, and put it back in the drawer.",
    "On market days the square is full of stalls selling cheese, apples, honey and flowers.",
    "The old bridge was rebuilt after the flood, stone by stone, exactly as it had been.",
    "He learned to play the violin from his uncle, who had played in an orchestra in Vienna.",
    "The mountains to the north are covered with snow for most of the year.",
    "Our neighbours have a dog that barks at the postman but never at strangers.",
    "The city council met on Tuesday to talk about the new park by the station.",
    "Most visitors come in the summer, when the days are long and the evenings are warm.",
    "The students wrote short stories about their families, and the best ones were read aloud.",
    "A small cafe near the university serves the best coffee in the whole district.",
]
NAMES = ["Anna", "Tom", "Lena", "Marco", "Sofia", "David"]
CONNECTORS = ["Later that year,", "After a while,", "In the end,", "Some days,", "As always,", "Even so,"]


# ---------------------------------------------------------------------------------------------- the text

SHORT_SENTENCES = [
    "It was late.",
    "Nobody answered.",
    "The rain stopped.",
    "We waited.",
    "Then the bell rang.",
    "Nothing happened.",
    "The door was open.",
    "Everyone laughed.",
    "It was a long winter.",
    "The shop was closed on Sunday.",
    "Nobody knew why.",
]


def english_text(tokenizer, n_tokens: int) -> str:
    """Real-looking English of exactly `n_tokens` GPT-2 tokens, whole sentences, ending with the read-out's prompt.

    Varied sentences are strung together backwards from the ending while they fit; the few tokens left
    are filled with one or two sentences of just the right length in front. GPT-2's pre-tokenizer splits
    at each space before a word, so a text's token count is the sum of its sentences' counts (the first
    without its leading space); the result is checked by tokenizing it whole.
    """

    def count(text: str) -> int:
        return len(tokenizer(text)["input_ids"])

    body = []
    for i in range(200):
        sentence = SENTENCES[i % len(SENTENCES)]
        if i >= len(SENTENCES):  # vary the repeats: a connector and a name in front of each
            sentence = (
                f"{CONNECTORS[i % len(CONNECTORS)]} {NAMES[(i // len(CONNECTORS)) % len(NAMES)]} said "
                f"that {sentence[0].lower()}{sentence[1:]}"
            )
        body.append(sentence)
    pool = SHORT_SENTENCES + SENTENCES
    for extra in range(4):  # drop 0, 1, 2... more sentences until the rest can be filled exactly
        kept, total = [ENDING], count(" " + ENDING)
        for sentence in reversed(body):
            cost = count(" " + sentence)
            if total + cost > n_tokens:
                break
            kept.insert(0, sentence)
            total += cost
        kept = kept[extra:] if extra < len(kept) - 1 else kept
        total = sum(count(" " + s) for s in kept)
        missing = n_tokens - total
        fills = [[a] for a in pool] + [[a, b] for a in pool for b in pool if a != b]
        for fill in fills:
            if count(fill[0]) + sum(count(" " + s) for s in fill[1:]) == missing:
                text = " ".join(fill + kept)
                break
        else:
            continue
        break
    else:
        raise AssertionError(f"no text of exactly {n_tokens} tokens could be made")
    ids = tokenizer(text)["input_ids"]
    assert len(ids) == n_tokens, f"the long text came out {len(ids)} tokens long, not {n_tokens}"
    assert tokenizer.decode(ids) == text
    return text


def toml_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def config_for(text: str) -> str:
    return (
        f'[[figure]]\nkind = "attention"\nlabel = "{ATTENTION_LABEL}"\ntext = {toml_string(text)}\n'
        f"focus = {FOCUS}\nviews = {VIEWS}\n\n"
        f'[[figure]]\nkind = "readout"\nlabel = "{READOUT_LABEL}"\ntext = {toml_string(text)}\n'
        f"target = {toml_string(TARGET)}\nposition = {READ_POSITION}\n"
    )


# ---------------------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def tokenizer():
    return gpt2_tokenizer()


@pytest.fixture(scope="module")
def long_text(tokenizer) -> str:
    return english_text(tokenizer, N_TOKENS)


@pytest.fixture(scope="module")
def long_build(small_model_dir, long_text, tmp_path_factory):
    """The site of one 1,024-token text with an attention and a read-out figure; (site folder, seconds)."""
    work = tmp_path_factory.mktemp("long-text")
    config = work / "chapter.toml"
    config.write_text(config_for(long_text), encoding="utf-8")
    out = work / "site"
    start = time.monotonic()
    result = CliRunner().invoke(cli, ["--model", str(small_model_dir), "--config", str(config), "--out", str(out)])
    seconds = time.monotonic() - start
    assert result.exit_code == 0, f"build failed (exit {result.exit_code}):\n{result.output}\n{result.exception!r}"
    print(f"\nbuild of the 1,024-token text: {seconds:.1f} s; {result.output.strip()}")
    return out, seconds


@pytest.fixture(scope="module")
def site(long_build) -> Path:
    return long_build[0]


@pytest.fixture(scope="module")
def data_path(site, long_text) -> Path:
    """The text's data file: the one entry of data/run.json."""
    run = json.loads((site / "data" / "run.json").read_text(encoding="utf-8"))
    entries = [entry for entry in run["texts"] if entry["text"] == long_text]
    assert len(entries) == 1, f"run.json lists {len(entries)} entries for the long text"
    return site / entries[0]["data"]


@pytest.fixture(scope="module")
def data(data_path) -> dict:
    return json.loads(data_path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def head_folder(data_path) -> Path:
    return data_path.with_suffix("")


def head_name(layer: int, head: int) -> str:
    return f"layer-{layer:02d}-head-{head:02d}.js"


HEAD_NAMES = [head_name(l, h) for l in range(N_LAYER) for h in range(N_HEAD)]


def read_head_file(path: Path) -> dict:
    content = path.read_text(encoding="utf-8")
    prefix, suffix = f"{CALLBACK}(", ");\n"
    assert content.startswith(prefix) and content.endswith(suffix), (
        f"{path.name} is not `{CALLBACK}({{...}});`: starts {content[:40]!r}, ends {content[-10:]!r}"
    )
    return json.loads(content[len(prefix) : -len(suffix)])


@pytest.fixture(scope="module")
def head_files(data, head_folder) -> dict:
    """File name -> payload, for every file the data file lists."""
    return {name: read_head_file(head_folder / name) for name in data["attention"]["files"]}


@pytest.fixture(scope="module")
def reference(small_model_dir, data):
    ids = [token["id"] for token in data["tokens"]]
    assert len(ids) == N_TOKENS
    return ref_lib.reference(small_model_dir, ids)


# ---------------------------------------------------------------------------------------------- helpers


def site_size(site: Path) -> str:
    files = [p for p in site.rglob("*") if p.is_file()]
    return f"the site is {sum(p.stat().st_size for p in files) / 1e6:.1f} MB in {len(files)} files"


def check_sparse_file(name: str, payload: dict, expected: torch.Tensor) -> list[str]:
    """Every way a head file's shares differ from `expected` (query, key), as readable lines; [] if none."""
    problems = []
    keys_rows, share_rows = payload["keys"], payload["shares"]
    if len(keys_rows) != N_TOKENS or len(share_rows) != N_TOKENS:
        return [f"{name}: {len(keys_rows)} key rows and {len(share_rows)} share rows, expected {N_TOKENS}"]
    kept = torch.zeros(N_TOKENS, N_TOKENS, dtype=torch.bool)
    got = torch.zeros(N_TOKENS, N_TOKENS, dtype=torch.float64)
    for query, (keys, shares) in enumerate(zip(keys_rows, share_rows)):
        if len(keys) != len(shares):
            problems.append(f"{name} query {query}: {len(keys)} keys but {len(shares)} shares")
            continue
        if not all(type(k) is int for k in keys) or not all(type(s) is int for s in shares):
            problems.append(f"{name} query {query}: keys and shares must be integers")
            continue
        if any(b <= a for a, b in zip(keys, keys[1:])):
            problems.append(f"{name} query {query}: keys not ascending: {keys[:20]}")
        if keys and (keys[0] < 0 or keys[-1] > query):
            problems.append(f"{name} query {query}: a key outside 0..{query}: {keys[:5]}...{keys[-5:]}")
            continue
        kept[query, keys] = True
        got[query, keys] = torch.tensor(shares, dtype=torch.float64) * UNIT
    if problems:
        return problems[:10]

    off = (got - expected).abs().masked_fill(~kept, 0)
    if off.max().item() > ATTENTION_TOLERANCE:
        q, k = divmod(int(off.argmax()), N_TOKENS)
        problems.append(
            f"{name}: a kept share is off by {off.max().item():.3g} (query {q}, key {k}: "
            f"{got[q, k].item():.6f} vs the reference's {expected[q, k].item():.6f})"
        )
    missing = (expected >= MIN_SHARE + ATTENTION_TOLERANCE) & ~kept
    if missing.any():
        q, k = divmod(int(missing.nonzero()[0, 0] * N_TOKENS + missing.nonzero()[0, 1]), N_TOKENS)
        problems.append(
            f"{name}: {int(missing.sum())} shares of 0.5% or more are left out, e.g. query {q}, "
            f"key {k}: {expected[q, k].item():.6f}"
        )
    small = kept & (got < MIN_SHARE - ATTENTION_TOLERANCE)
    if small.any():
        q, k = (int(i) for i in small.nonzero()[0])
        problems.append(
            f"{name}: {int(small.sum())} kept shares are below 0.5%, e.g. query {q}, key {k}: {got[q, k].item():.6f}"
        )
    return problems


# ---------------------------------------------------------------------------------------------- the files


def test_a_text_of_1024_tokens_is_written_in_format_3_with_a_file_for_each_head_a_page_shows_and_the_average(
    data, head_folder, long_text
):
    assert data["format"] == LONG_FORMAT
    assert data["text"] == long_text and len(data["tokens"]) == N_TOKENS
    attention = data["attention"]
    assert isinstance(attention, dict), f"attention in format 3 is a dict of files, not {type(attention).__name__}"
    assert attention["unit"] == UNIT and attention["min_share"] == MIN_SHARE
    files = attention["files"]
    # The attention figure's views, and the average it always offers: no other head is shown, none is written.
    shown = [head_name(layer - 1, head - 1) for layer, head in VIEWS] + ["average.js"]
    assert sorted(files) == sorted(shown), files
    for name in files:
        assert (head_folder / name).is_file(), f"{name} is listed but not written under {head_folder.name}/"
    assert sorted(p.name for p in head_folder.iterdir()) == sorted(files), "the head folder holds other files"


def test_a_rebuild_from_the_cache_that_shows_another_head_writes_its_file_without_running_the_model(
    small_model_dir, long_text, reference, tmp_path
):
    config, cache = tmp_path / "long.toml", tmp_path / "cache"
    config.write_text(config_for(long_text), encoding="utf-8")
    first = CliRunner().invoke(
        cli,
        ["--model", str(small_model_dir), "--config", str(config), "--out", str(tmp_path / "a"), "--cache", str(cache)],
    )
    assert first.exit_code == 0, first.output
    other = config_for(long_text).replace(f"views = {VIEWS}", "views = [[2, 3]]")
    config.write_text(other, encoding="utf-8")
    again = CliRunner().invoke(
        cli,
        [
            "--model",
            str(small_model_dir),
            "--config",
            str(config),
            "--out",
            str(tmp_path / "b"),
            "--cache",
            str(cache),
            "--verbose",
        ],
    )
    assert again.exit_code == 0, again.output
    assert "cache: using the stored run" in again.output, again.output
    record = json.loads((tmp_path / "b" / "data" / "run.json").read_text(encoding="utf-8"))
    folder = (tmp_path / "b" / record["texts"][0]["data"]).with_suffix("")
    assert sorted(p.name for p in folder.iterdir()) == sorted([head_name(1, 2), "average.js"])
    problems = check_sparse_file(
        head_name(1, 2), read_head_file(folder / head_name(1, 2)), reference.attention[1, 2].double()
    )
    assert problems == [], problems


def test_every_head_file_names_its_format_layer_and_head_and_the_average_names_neither(head_files):
    for name, payload in head_files.items():
        assert payload["format"] == HEAD_FORMAT, name
        if name == "average.js":
            assert "layer" not in payload and "head" not in payload, sorted(payload)
        else:
            assert head_name(payload["layer"], payload["head"]) == name, (name, payload["layer"], payload["head"])


def test_every_file_a_page_loads_at_once_is_under_5_mb(site, data, head_folder):
    at_once = [head_folder / name for name in data["attention"]["files"]]
    at_once += [site / f"figure-{label}.html" for label in (ATTENTION_LABEL, READOUT_LABEL)]
    at_once += [
        site / f"embed-{label}.html"
        for label in (ATTENTION_LABEL, READOUT_LABEL)
        if (site / f"embed-{label}.html").exists()
    ]
    sizes = {p.relative_to(site).as_posix(): p.stat().st_size for p in at_once}
    largest = max(sizes, key=sizes.get)
    summary = f"{site_size(site)}; the largest file a page loads at once is {largest}, {sizes[largest] / 1e6:.2f} MB"
    too_big = {name: size for name, size in sizes.items() if size >= PAGE_LIMIT}
    assert not too_big, f"over 5 MB: {too_big}; {summary}"


# ---------------------------------------------------------------------------------------------- the shares


def test_every_kept_share_matches_the_reference_and_no_share_of_half_a_percent_or_more_is_left_out(
    head_files, reference
):
    problems = []
    for name, payload in head_files.items():
        if name != "average.js":
            problems += check_sparse_file(name, payload, reference.attention[payload["layer"], payload["head"]])
    assert not problems, "\n".join(problems)


def test_the_capture_turns_every_heads_attention_into_its_file_as_the_pass_goes(small_model_dir, long_text, reference):
    """The site holds the heads its pages show; the capture (and so the cache) has them all, layer by layer."""
    from figsite.capture import api as capture

    loaded = capture.load(str(small_model_dir), None, 0, "cpu")
    from figsite.data.run import read_head_file as parse

    written = capture.run_text(loaded, long_text, TARGET, positions=[READ_POSITION - 1]).heads
    assert sorted(written) == sorted(HEAD_NAMES + ["average.js"])
    heads = {name: parse(content) for name, content in written.items()}
    problems = []
    for layer in range(N_LAYER):
        for head in range(N_HEAD):
            name = head_name(layer, head)
            problems += check_sparse_file(name, heads[name], reference.attention[layer, head])
    problems += check_sparse_file("average.js", heads["average.js"], reference.attention.mean(dim=(0, 1)))
    assert not problems, "\n".join(problems)


def test_the_average_file_matches_the_references_mean_over_every_layer_and_head(head_files, reference):
    problems = check_sparse_file("average.js", head_files["average.js"], reference.attention.mean(dim=(0, 1)))
    assert not problems, "\n".join(problems)


def test_the_pages_words_at_build_time_name_the_opening_tokens_true_largest_share_or_say_none_is_kept(
    site, data, reference
):
    """The description written into the page (and the static image's alt text) before any script runs.

    In format 2 the build knows only the kept shares: it may name the largest share where it was kept, and
    must otherwise say that no share reaches 0.5%, never call a left-out share of "0%" the largest.
    """
    html_text = (site / f"figure-{ATTENTION_LABEL}.html").read_text(encoding="utf-8")
    match = re.search(rf'<p [^>]*id="description-{ATTENTION_LABEL}"[^>]*>(.*?)</p>', html_text, re.S)
    assert match, "the page has no description paragraph"
    summary = html.unescape(match.group(1)).strip()
    row = reference.attention[VIEWS[0][0] - 1, VIEWS[0][1] - 1, FOCUS - 1, :FOCUS]
    named = re.search(r"largest share, (\d+)%, to .*? \(token (\d+)\)", summary)
    if row.max().item() >= MIN_SHARE + ATTENTION_TOLERANCE:
        assert named, f"the opening token keeps a share of {row.max().item():.2%}, but the page says: {summary}"
    if named:
        key = int(named.group(2)) - 1
        assert row[key].item() >= MIN_SHARE - ATTENTION_TOLERANCE, (
            f"the page names a share the file left out as the largest (the reference has {row[key].item():.3%} "
            f"at token {key + 1}, its largest is {row.max().item():.3%} at token {int(row.argmax()) + 1}): {summary}"
        )
        assert row[key].item() >= row.max().item() - ATTENTION_TOLERANCE, summary
    else:
        assert "0.5%" in summary, f"the page neither names the largest share nor says none reaches 0.5%: {summary}"


# ---------------------------------------------------------------------------------------------- the read-out


def test_the_readout_is_kept_at_the_read_position_only_and_matches_the_reference_there_at_every_stage(data, reference):
    probs = reference.probs  # (stages, position, vocab)
    listed, read = data["readout"], READ_POSITION - 1
    assert len(listed) == N_LAYER + 1
    for stage in range(N_LAYER + 1):
        assert len(listed[stage]) == N_TOKENS, f"stage {stage}: {len(listed[stage])} positions"
        kept = [position for position, cell in enumerate(listed[stage]) if cell is not None]
        assert kept == [read], f"stage {stage}: read out at {kept[:10]}, the figure reads only {read}"
        top = listed[stage][read]["top"]
        ids = [token_id for token_id, _ in top]
        where = f"stage {stage} position {read}"
        assert len(top) >= 10 and len(set(ids)) == len(ids), f"{where}: {top}"
        for token_id, p in top:
            assert abs(p - probs[stage, read, token_id].item()) <= PROBABILITY_TOLERANCE, (
                f"{where} token {token_id}: {p} vs the reference's {probs[stage, read, token_id].item()}"
            )
        expected = probs[stage, read].topk(len(ids)).values
        assert (probs[stage, read, ids] - expected).abs().max().item() <= TIE_TOLERANCE, (
            f"{where}: listed {ids}, the reference's top are {probs[stage, read].topk(len(ids)).indices.tolist()}"
        )


def test_the_targets_probability_matches_the_reference_at_every_stage_at_the_read_position(data, reference, tokenizer):
    target_id = tokenizer(TARGET)["input_ids"][0]
    assert data["target"]["id"] == target_id and data["target"]["text"] == TARGET
    read = READ_POSITION - 1
    rows = data["target"]["p"]
    assert len(rows) == N_LAYER + 1 and all(len(row) == N_TOKENS for row in rows)
    assert all(p is None for row in rows for position, p in enumerate(row) if position != read)
    got = torch.tensor([row[read] for row in rows], dtype=torch.float64)
    expected = reference.probs[:, read, target_id]
    worst = (got - expected).abs().max().item()
    assert worst <= PROBABILITY_TOLERANCE, f"the target's probability is off by {worst:.3g}"
    assert torch.allclose(got, expected, rtol=1e-2, atol=1e-8), "the target's probability is off by more than 1 %"


# ---------------------------------------------------------------------------------------------- too long


def test_a_text_of_1025_tokens_is_refused_in_one_line_naming_the_text_and_1024(small_model_dir, tokenizer, tmp_path):
    text = english_text(tokenizer, N_TOKENS + 1)
    config = tmp_path / "chapter.toml"
    config.write_text(config_for(text), encoding="utf-8")
    out = tmp_path / "site"
    result = CliRunner().invoke(cli, ["--model", str(small_model_dir), "--config", str(config), "--out", str(out)])
    output = result.output.strip()
    assert result.exit_code == 2, output
    assert "Traceback" not in output and len(output.splitlines()) == 1, output
    assert output.startswith("error: ") and "'text'" in output and "1,024" in output, output
    assert not out.exists(), "a refused build wrote a site"


def test_a_long_text_that_no_figure_reads_out_is_read_out_nowhere_and_still_written(small_model_dir, long_text):
    from figsite.capture import api as capture

    loaded = capture.load(str(small_model_dir), None, 0, "cpu")
    data = capture.run_text(loaded, long_text, TARGET, positions=[]).data
    assert data["format"] == LONG_FORMAT and len(data["readout"]) == N_LAYER + 1
    assert all(cell is None for stage in data["readout"] for cell in stage)
    assert all(len(row) == N_TOKENS and set(row) == {None} for row in data["target"]["p"])


def test_a_knockout_and_two_models_side_by_side_read_a_long_text_where_they_read_it(tokenizer, tmp_path):
    """A long text is read out only at the positions its figures ask for: the knockout's read position (where a
    read-out figure of the same text and target reads another) and the side-by-side's last token are asked too."""
    text = english_text(tokenizer, 150) + " " + ENDING
    figures = [
        ("readout", "read", 'position = 6\ntarget = " France"'),
        ("knockout", "ko", 'target = " France"\nheads_of = 2'),
        ("side-by-side", "two", 'target = " France"\nmodels = ["random", "random@5"]'),
    ]
    config = "".join(
        f'[[figure]]\nkind = "{kind}"\nlabel = "{label}"\ntext = {toml_string(text)}\n{keys}\n\n'
        for kind, label, keys in figures
    )
    (tmp_path / "c.toml").write_text(config, encoding="utf-8")
    out = tmp_path / "site"
    result = CliRunner().invoke(cli, ["--model", "random", "--config", str(tmp_path / "c.toml"), "--out", str(out)])
    assert result.exit_code == 0, f"build failed (exit {result.exit_code}):\n{result.output}\n{result.exception!r}"
    tables = {
        label: json.loads((out / "downloads" / f"figure-{label}.json").read_text())["tables"] for _, label, _ in figures
    }
    assert len(tables["two"]["chances"]) == 2 * 13  # each model's chance before any layer and after each of 12
    assert len(tables["ko"]["knockouts"]) > 1 and tables["ko"]["knockouts"][0]["probability"] > 0
