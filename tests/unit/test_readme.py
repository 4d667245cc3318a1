"""The documentation says what the code does, no more and no less (as datasette checks its documentation against
its code): docs/config.md's tables of figure kinds and keys, docs/command.md's table of build.py's options,
docs/code.md's layout, and docs/kinds.md's "Adding a kind" against the contract in figures/kind.py. The README stays
a newcomer's page: short, with the commands CI runs word for word, and a link to every page of docs/, whose
relative links all lead somewhere."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import click
import pytest

import figures
from conftest import DOCS, REPO_ROOT, read_doc
from figures import KINDS
from figures.kind import Kind

CONFIG, COMMAND, CODE, ADDING_A_KIND = (read_doc(name) for name in ("config.md", "command.md", "code.md", "kinds.md"))
ROW = re.compile(r"^\| `([a-z-]+)` \| (.*?) \| .* \|$", re.M)
KEY = re.compile(r"`([a-z_]+)(?: = [^`]*)?`")


def documented() -> dict:
    """kind -> the keys docs/config.md's kind tables give it (backticked names in the keys column)."""
    out = {}
    for kind, keys in ROW.findall(CONFIG):
        if kind in KINDS:
            out[kind] = set(KEY.findall(keys))
    return out


def test_every_kind_in_the_code_is_in_the_docs_and_no_other():
    assert set(documented()) == set(KINDS)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_key_of_a_kind_is_documented_and_every_documented_key_exists(kind):
    assert documented()[kind] == set(KINDS[kind].FIELDS), kind


def adding_a_kind() -> tuple[str, ast.ClassDef]:
    """docs/kinds.md, "Adding a kind": its prose before the example (on one line), and the example's Kind class."""
    section = ADDING_A_KIND[ADDING_A_KIND.index("# Adding a kind") :]
    prose, example = section.split("```python\n", 1)
    tree = ast.parse(example.split("```", 1)[0])
    [kind_class] = [
        node
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        and any(isinstance(base, ast.Name) and base.id == "Kind" for base in node.bases)
    ]
    return " ".join(prose.split()), kind_class


def members_of_the_contract() -> set:
    """What figures/kind.py's Kind offers a kind: its public constants and methods."""
    return {name for name in vars(Kind) if not name.startswith("_")}


def test_the_docs_send_a_new_kind_to_the_contract_file_and_the_registry_the_code_reads():
    prose, _ = adding_a_kind()
    assert "`figures/kind.py` is the contract" in prose, "docs/kinds.md no longer names the contract's file"
    assert "one line in `REGISTRY` in `figures/__init__.py`" in prose, "docs/kinds.md no longer names the registry"
    # ... and that registry is the one the build's kinds come from
    assert KINDS == {kind.KIND: kind for kind in figures.REGISTRY}


def test_the_docs_example_defines_each_required_member_with_the_contracts_own_signature():
    _, kind_class = adding_a_kind()
    defined = {
        node.name: [arg.arg for arg in node.args.args] for node in kind_class.body if isinstance(node, ast.FunctionDef)
    }
    assigned = {
        target.id
        for node in kind_class.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    for constant in ("KIND", "TITLE", "CAPTION", "GUIDE", "KEY", "FIELDS"):
        assert constant in assigned, f"docs/kinds.md's example kind does not set {constant}"
    for method in ("check", "chart", "text_figure", "context"):
        contract = list(inspect.signature(getattr(Kind, method)).parameters)
        assert defined.get(method) == contract, f"docs/kinds.md's example: def {method}({', '.join(contract)})"


def test_the_docs_name_every_optional_member_of_the_contract_that_its_example_leaves_to_its_default():
    prose, kind_class = adding_a_kind()
    optional = re.search(r"the defaults of the optional ones \((.*?)\)", prose)
    assert optional, "docs/kinds.md no longer lists the contract's optional members"
    named = set(re.findall(r"`([A-Za-z_]+)`", optional.group(1)))
    members = members_of_the_contract()
    assert named <= members, f"docs/kinds.md names members that figures/kind.py lacks: {sorted(named - members)}"
    in_example = {node.name for node in kind_class.body if isinstance(node, ast.FunctionDef)} | {
        target.id
        for node in kind_class.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    unsaid = members - in_example - named
    assert not unsaid, f"members of figures/kind.py docs/kinds.md neither shows nor names: {sorted(unsaid)}"


def option_table() -> list[set]:
    """docs/command.md's table of build.py's options (under "# The command"): for each row, the options its first
    cell names, e.g. {"--quiet", "--verbose"} for "`--quiet`, `--verbose`"."""
    section = COMMAND[COMMAND.index("# The command") :]
    section = section[: section.index("\n#", 1)]
    header = "| option | default | what it does |\n| --- | --- | --- |\n"
    assert header in section, "the option table's header moved or changed"
    rows = []
    for line in section[section.index(header) + len(header) :].splitlines():
        if not line.startswith("|"):
            break
        first_cell = line.split("|")[1]
        rows.append(set(re.findall(r"`(-[-a-z]+)[^`]*`", first_cell)))  # `--serve [PORT]` names --serve
    return rows


def test_the_option_table_has_a_row_for_each_option_of_build_py_and_names_no_other():
    from build import cli

    options = [param for param in cli.params if isinstance(param, click.Option)]
    assert options, "build.py's command has no options: the test reads the wrong command"
    rows = option_table()
    named = set().union(*rows)
    for option in options:
        spellings = set(option.opts) | set(option.secondary_opts)
        assert spellings & named, f"docs/command.md's option table has no row for {option.opts[0]}"
    real = {spelling for option in options for spelling in option.opts + option.secondary_opts}
    for row in rows:
        assert row, "a row of the option table names no option in its first cell"
        assert row <= real, f"docs/command.md's option table names options build.py lacks: {sorted(row - real)}"


def test_the_docs_count_the_unit_tests_and_the_modules_as_they_are():
    """The layout's line on tests/unit/ counts its files and the modules of figsite/, figures/ and sitegen/ (no __init__.py),
    and the files named after a module are as many as it says: a module or a test added makes it say so."""
    root = Path(__file__).resolve().parents[2]
    said = re.search(
        r"`unit/` \((\d+) files for the (\d+) modules of `figsite/`, `figures/` and `sitegen/`:\s+(\d+) named after",
        CODE,
    )
    assert said, "docs/code.md's layout no longer counts tests/unit/'s files"
    tests = sorted(path.stem[len("test_") :] for path in (root / "tests" / "unit").glob("test_*.py"))
    modules = [
        path.stem
        for package in ("figsite", "figures", "sitegen")
        for path in (root / package).rglob("*.py")
        if path.name != "__init__.py"
    ]
    assert [int(n) for n in said.groups()] == [len(tests), len(modules), len(set(tests) & set(modules))]


def layout_block() -> list[str]:
    """docs/code.md's drawing of the layout: the indented lines under "How the code is laid out"."""
    section = CODE.split("# How the code is laid out", 1)[1].split("\n## ", 1)[0]
    return [line[4:] for line in section.splitlines() if line.startswith("    ") and not line.startswith("     ")]


def test_the_docs_draw_the_layers_in_the_order_the_import_contract_enforces():
    """The layout lists figsite's sub-packages and figures/ from the top down exactly as .importlinter's layers
    contract orders them, none left out: a layer added, removed or moved in the contract makes the drawing wrong."""
    root = Path(__file__).resolve().parents[2]
    contract = (root / ".importlinter").read_text(encoding="utf-8").split("type = layers", 1)[1]
    layers = re.search(r"layers =\n((?:[ \t]+\S+\n)+)", contract).group(1).split()
    drawn = [line.split()[0].removesuffix("/").removesuffix(".py").replace("/", ".") for line in layout_block()]
    drawn = [name for name in drawn if name.split(".")[0] in ("figsite", "figures", "sitegen")]
    assert drawn == layers


def test_the_docs_layout_names_every_module_of_the_live_page():
    """The live page's modules are in the drawing of the layers, as every other part of the build is."""
    root = Path(__file__).resolve().parents[2]
    section = CODE.split("# How the code is laid out", 1)[1].split("\n## ", 1)[0]
    live = [path for package in ("figsite", "figures", "sitegen") for path in (root / package).rglob("*live*.py")]
    assert live, "no module of the live page found: the test looks in the wrong place"
    for path in live:
        assert path.name in section or path.parent == root / "sitegen" and "sitegen/live.py" in section, path


def pages() -> dict:
    """Every page of the documentation, by its path from the repository's root: README.md and docs/*.md."""
    return {
        "README.md": read_doc("README.md"),
        **{f"docs/{path.name}": read_doc(path.name) for path in sorted(DOCS.glob("*.md"))},
    }


def prose(text: str) -> str:
    """A page without its code, where a link is only an example: fenced and indented blocks, `spans`."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    text = "\n".join(line for line in text.splitlines() if not line.startswith(("    ", "\t")))
    return re.sub(r"(`+).+?\1", "", text, flags=re.S)


def relative_links(text: str) -> list[str]:
    """The targets of a page's links and pictures, `[words](target)`, that lead into the repository."""
    targets = re.findall(r"\[[^\]]*\]\(([^)\s]+)\)", prose(text))
    return [target for target in targets if not re.match(r"[a-z]+:", target)]


def anchors(text: str) -> set[str]:
    """The anchors of a page's headings, as GitHub writes them: "The `[print]` table" -> "the-print-table"."""
    headings = re.findall(r"^#+ (.*)$", re.sub(r"^```.*?^```", "", text, flags=re.S | re.M), re.M)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings}


def test_the_readme_stays_a_newcomers_page_under_200_lines():
    lines = len(read_doc("README.md").splitlines())
    assert 0 < lines < 200, f"README.md has {lines} lines: move what a newcomer does not need into docs/"


def test_the_readme_gives_the_commands_ci_runs_word_for_word():
    """.ci/run takes the build and test commands from the README as they are written there: it fails without them."""
    commands = re.findall(r"readme_command '([^']+)'", (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8"))
    assert len(commands) == 2, ".ci/run no longer reads two commands from the README: the test reads it wrong"
    assert [command for command in commands if command not in read_doc("README.md")] == []


def test_the_readme_links_every_page_of_docs():
    linked = {target.split("#")[0] for target in relative_links(read_doc("README.md"))}
    assert sorted(DOCS.glob("*.md")), "no page in docs/: the test looks in the wrong place"
    assert [path.name for path in sorted(DOCS.glob("*.md")) if f"docs/{path.name}" not in linked] == []


@pytest.mark.parametrize("page", sorted(pages()))
def test_every_relative_link_leads_to_a_file_and_heading_that_exist(page):
    links = relative_links(pages()[page])
    assert links or page != "README.md", "no relative link found in the README: the test reads it wrong"
    for link in links:
        path, _, anchor = link.partition("#")
        target = (REPO_ROOT / page).parent / path if path else REPO_ROOT / page
        assert target.resolve().is_file(), f"{page}: the link {link} leads to no file"
        if anchor and target.suffix == ".md":
            assert anchor in anchors(target.read_text(encoding="utf-8")), f"{page}: the link {link} has no heading"
