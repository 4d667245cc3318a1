"""The head-roles figure (figures/roles.py): every head's habits scored, and each head coloured by its strongest.

A site is built over the small seeded model with a text unlike the chapter's and a short repeated sequence, and read
as files: the downloads against the part's entry, the words naming the strongest heads against the downloads, the
page's choices and clicks. Bad keys end with one line naming the figure and the field, and the previous site stays.
The scores against the float64 reference, and a hand-made previous-token head, are tests/kinds/test_roles_capture.py's.
"""

from __future__ import annotations

import html
import json

import pytest
from conftest import assert_bad_config_keeps_the_site, built
from figsite.data.run import Run, read_head_file
from figsite.data.shared_names import KEY_WORDS
from figures import roles
from figures.heads_chart import DETAIL_HEIGHT
from figures.toolkit import charts

TEXT = "A rose is a rose is a rose, and a cat is a cat"
CONFIG = f'''\
[[figure]]
kind = "head-roles"
label = "habits"
text = "{TEXT}"
repeat_length = 12
seed = 7
'''
N_LAYER, N_HEAD = 3, 4  # the small model's


@pytest.fixture(scope="module")
def site(small_model_dir, tmp_path_factory):
    return built(small_model_dir, CONFIG, tmp_path_factory.mktemp("roles"))


def heads(site) -> list:
    return json.loads((site / "downloads/figure-habits.json").read_text(encoding="utf-8"))["tables"]["heads"]


def entry(site) -> dict:
    [found] = json.loads((site / "data/parts.json").read_text(encoding="utf-8"))["roles"]
    return found


def page(site) -> str:
    return html.unescape((site / "figure-habits.html").read_text(encoding="utf-8"))


def test_the_downloads_give_every_heads_scores_from_1_and_its_strongest_role(site):
    rows, scores = heads(site), entry(site)["scores"]
    assert len(rows) == N_LAYER * N_HEAD
    for row in rows:
        for role in roles.ROLES:
            assert row[role] == scores[role][row["layer"] - 1][row["head"] - 1]
        assert row[row["strongest"]] == max(row[role] for role in roles.ROLES)
        assert row["duplicate_on_text"] == scores["duplicate_text"][row["layer"] - 1][row["head"] - 1]


def test_the_entry_says_which_text_each_score_comes_from(site):
    measured = entry(site)["measured_on"]
    assert {role for role, on in measured.items() if on == "repeated"} == {"duplicate", "induction"}
    assert entry(site)["repeat_length"] == 12 and len(entry(site)["sequence"]) == 12


def test_the_words_name_the_strongest_induction_and_previous_token_heads(site):
    rows = heads(site)
    for role in ("induction", "previous"):
        best = max(rows, key=lambda row: row[role])
        assert (
            f"Of all heads, layer {best['layer']} head {best['head']} looks most at {roles.ROLES[role][1]}: "
            f"{best[role]:.0%} of its attention goes there."
        ) in page(site)


def spec(site) -> dict:
    return json.loads((site / "downloads/figure-habits.vega-lite.json").read_text(encoding="utf-8"))


def more_detail(text: str) -> str:
    return text[text.index('<details class="more-detail">') :].split("</details>")[0]


def test_researchers_words_are_in_more_detail_one_sentence_each_and_nowhere_else_on_the_page(site):
    text = page(site)
    detail = more_detail(text)
    for word in ("How strong a habit is in a head:", "Duplicate token:", "Induction:"):
        assert detail.count(word) == 1, word
    rest = text.replace(detail, "")
    shown = rest[rest.index("<main") : rest.index('<section class="text-figure"')] if "<main" in rest else rest
    for word in ("induction", "duplicate token", "duplicate-token"):
        assert word not in shown.lower().replace('"induction"', "").replace("'induction'", ""), word


def test_the_grid_shows_only_the_legend_of_the_chosen_colouring_in_one_place(site):
    """The habits' legend while each head shows its strongest habit; the shares' legend while one habit is chosen:
    each legend drawn only while its test holds (its words, marks and screen reader's label), both in one place above
    the grid and of one size (five squares in two columns), so that a change of colouring opens no gap (issue 44)."""
    grid = spec(site)["vconcat"][0]["layer"]
    legends = [layer["encoding"]["color"]["legend"] for layer in grid[:2]]
    tests = [f"show == '{roles.STRONGEST}'", f"show != '{roles.STRONGEST}'"]
    for legend, test in zip(legends, tests):
        assert legend["aria"] == {"expr": test}
        for part in ("titleOpacity", "labelOpacity", "symbolOpacity"):
            assert legend[part] == {"expr": f"{test} ? 1 : 0"}
        assert {key: legend[key] for key in roles.KEY_PLACE} == roles.KEY_PLACE
    assert legends[1]["type"] == "symbol" and len(legends[1]["values"]) == len(roles.ROLES)
    assert "score" not in json.dumps(legends)


def test_each_square_is_drawn_whole_in_its_legends_colour_and_the_key_follows_the_colouring(site):
    """No square faded by its score (on a dark page a faded square is a colour its legend lacks); the key's words
    are the chart's `key_words`, which say how the colouring chosen reads (issue 44)."""
    chart = spec(site)
    grid = chart["vconcat"][0]["layer"]
    assert all("opacity" not in layer["encoding"] and "opacity" not in layer["mark"] for layer in grid[:2])
    key = {p["name"]: p for p in chart["params"]}[KEY_WORDS]["expr"]
    assert key == (
        f"show == '{roles.STRONGEST}' ? {charts.literal(roles.Roles.KEY)} : {charts.literal(roles.Roles.KEY_ONE)}"
    )
    assert "deeper" not in roles.Roles.KEY + roles.Roles.KEY_ONE and "brighter" in roles.Roles.KEY_ONE
    shown = page(site)
    assert f'<p class="reading-key" id="key-habits">{roles.Roles.KEY}</p>' in shown and 'data-key="key-habits"' in shown


def test_the_description_follows_the_chosen_head_and_the_chosen_habit(site):
    params = {p["name"]: p for p in spec(site)["params"]}
    said = params["head_words"]["value"]
    assert len(said) == N_LAYER * N_HEAD
    for row in heads(site):
        words = said[f"{row['layer']}-{row['head']}"]
        assert words.startswith(
            f"Layer {row['layer']}, head {row['head']}, shown below: its strongest habit is "
            f"to look at {roles.ROLES[row['strongest']][1]} ({row[row['strongest']]:.0%} "
        )
    assert "head_words[layer + '-' + head]" in params["description"]["expr"]
    assert "colour_words[show]" in params["description"]["expr"]


def test_layer_and_head_come_first_so_that_a_phone_keeps_both_in_view(site):
    bound = [p["name"] for p in spec(site)["params"] if "bind" in p]
    assert bound == ["layer", "head", "show"]


def test_the_outlines_of_the_earlier_copy_and_the_token_after_it_stay_apart(site):
    """The token after the earlier copy outlined inside its cell, the copy itself around its cell: neighbours on
    every row, their lines never touch, on a phone's small cells too; each in its habit's colour."""
    from figures.toolkit.colours import ROLE_COLOURS

    outlines = [layer for layer in spec(site)["vconcat"][2]["layer"][-1]["layer"] if "stroke" in layer["encoding"]]
    words = {said: role for role, said in roles.COPIES.items()}
    bands = {words[layer["data"]["values"][0]["role"]]: layer["mark"]["width"]["band"] for layer in outlines}
    assert bands["duplicate"] == 1 and bands["induction"] < 0.8
    stroke = outlines[0]["encoding"]["stroke"]["scale"]
    assert dict(zip(stroke["domain"], stroke["range"])) == {
        said: ROLE_COLOURS[role] for role, said in roles.COPIES.items()
    }


def test_the_guess_first_answer_counts_the_heads_of_each_strongest_role(site):
    counts = {role: sum(row["strongest"] == role for row in heads(site)) for role in roles.ROLES}
    most = max(roles.ROLES, key=lambda role: counts[role])
    assert f"{roles.ROLES[most][0].capitalize()}: for {counts[most]} heads." in page(site)
    assert sum(counts.values()) == N_LAYER * N_HEAD


def test_a_square_of_the_grid_chooses_its_layer_and_head_and_a_menu_chooses_the_colouring(site):
    spec = json.loads((site / "downloads/figure-habits.vega-lite.json").read_text(encoding="utf-8"))
    params = {p["name"]: p for p in spec["params"]}
    assert params["show"]["bind"]["options"] == ["strongest", *roles.ROLES]
    assert params["layer"]["bind"]["options"] == list(range(1, N_LAYER + 1))
    assert spec["usermeta"]["clicks"] == [
        {"field": "pick_layer", "param": "layer"},
        {"field": "pick_head", "param": "head"},
    ]


def test_the_chosen_heads_pattern_over_the_text_is_the_heads_figures_view_of_the_texts_shares(site):
    spec = json.loads((site / "downloads/figure-habits.vega-lite.json").read_text(encoding="utf-8"))
    run = Run.from_files(lambda path: (site / "data" / path).read_text(encoding="utf-8"))
    panels = {(row["l"], row["h"]): row["u"] for row in spec["datasets"]["panels"]}
    assert len(panels) == N_LAYER * N_HEAD
    for (layer, head), units in panels.items():
        want = [s for row in run.head_rows(TEXT, layer, head) for s in row]  # the text's data file, row by row
        assert len(units) == len(want)
        # Rounded to units of 1e-4 from the data's rounded shares: within half a unit, and the float's last bit.
        assert all(abs(u / 10_000 - w) <= 5.01e-5 for u, w in zip(units, want)), (layer, head)
    titles = json.dumps(spec["vconcat"][1:])
    assert "on the text: who looks at whom" in titles and "on 12 random tokens said twice" in titles


def test_each_layers_file_holds_its_heads_patterns_over_the_repeated_sequence_and_the_page_loads_it(site):
    spec = json.loads((site / "downloads/figure-habits.vega-lite.json").read_text(encoding="utf-8"))
    loads, shares = spec["usermeta"]["loads"], entry(site)["pattern"]["shares"]
    assert loads["on"] == ["layer", "head"] and loads["key"] == "layer" and loads["data"] == "repeats"
    assert sorted(loads["files"]) == [str(layer) for layer in range(1, N_LAYER + 1)]
    for layer, path in loads["files"].items():
        payload = read_head_file((site / path).read_text(encoding="utf-8"))
        assert payload["rows"] == [
            {"l": int(layer) - 1, "h": head, "u": shares[int(layer) - 1][head]} for head in range(N_HEAD)
        ]
    # The page itself carries the opening head's pattern only.
    opening = loads["opening"]
    assert spec["datasets"]["repeats"] == [
        {"l": opening["layer"] - 1, "h": opening["head"] - 1, "u": shares[opening["layer"] - 1][opening["head"] - 1]}
    ]
    about = (site / "about.html").read_text(encoding="utf-8")
    assert all(path in about for path in loads["files"].values())  # listed with their checksums


# ---------------------------------------------------------------------------------------------- bad keys


@pytest.mark.parametrize(
    "keys, field, words",
    [
        ('text = "Too short a text"\n', "text", ["4 tokens", "8 tokens or more"]),
        (f'text = "{TEXT}"\nrepeat_length = 1\n', "repeat_length", ["1 is too short"]),
        (f'text = "{TEXT}"\nrepeat_length = 600\n', "repeat_length", ["600 is too long", "twice that fits"]),
        (f'text = "{TEXT}"\nseed = -1\n', "seed", ["negative"]),
    ],
)
def test_bad_keys_end_with_one_line_naming_the_field_and_keep_the_previous_site(
    small_model_dir, tmp_path, keys, field, words
):
    bad = '[[figure]]\nkind = "head-roles"\nlabel = "bad"\n' + keys
    assert_bad_config_keeps_the_site(small_model_dir, tmp_path, CONFIG, bad, field, words)


def test_on_a_phone_and_a_wide_page_the_random_tokens_pattern_keeps_cells_where_its_two_outlines_stay_apart(
    small_model_dir, tmp_path
):
    """A repeated sequence longer than a phone's column holds at REPEAT_CELL px a cell: the narrow chart keeps that
    size (and scrolls in its box), so that the outline inside a cell never touches its neighbour's. On a wide page
    its rows are as tall (80 rows in the larger pattern's usual height would be 4.5 px: the outlines ran together)."""
    site = built(small_model_dir, CONFIG.replace("repeat_length = 12", "repeat_length = 40"), tmp_path)
    assert 80 * roles.REPEAT_CELL > roles.PHONE_GRID  # the column could not hold 80 such cells
    text = (site / "figure-habits.html").read_text(encoding="utf-8")
    narrow = json.loads(html.unescape(text.split('id="narrow-habits">')[1].split("</script>")[0]))
    steps = []

    def walk(node):
        if isinstance(node, dict):
            steps.extend([node["value"]] if node.get("name") == "concat_2_x_step" else [])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(narrow)
    assert steps == [roles.REPEAT_CELL]
    assert spec(site)["vconcat"][2]["height"] == 80 * roles.REPEAT_CELL > DETAIL_HEIGHT
