"""figures/common.whole_percent: a share in whole percent with halves rounded up, as the book's program printed
them (12.5% is 13%), not to the even neighbour as Python's round() does (round(12.5) == 12).

The reference here is exact rational arithmetic (fractions.Fraction), so no float rounding of its own.

And a chance (words.percent): one rule for sentences and charts, two decimals from 1% up, three significant digits
below, the same digits from Vega's format on a chart (words.percent_expr).
"""

from __future__ import annotations

import math
from fractions import Fraction

from figsite.config import Figure
from figsite.data.run import DATA_FORMAT, Run
from figures import KINDS
from figures.toolkit.words import whole_percent


def half_up(share: float) -> int:
    """The whole percent nearest to the share's exact value, a half rounded up: floor(x + 1/2), exactly."""
    return math.floor(Fraction(share) * 100 + Fraction(1, 2))


def exact_halves() -> list[tuple[float, int]]:
    """Every share from 0 to 1 that is exactly a half percent more than a whole one, k + 1/2 percent, *and* is
    exactly a float: (2k + 1)/200 is a float only where its denominator is a power of two, i.e. where 25 divides
    2k + 1. So 0.125, 0.375, 0.625 and 0.875 (12.5%, 37.5%, 62.5%, 87.5%), and no other: 0.005, say, is stored
    as 0.005000000000000000104..., a little more than half a percent."""
    out = []
    for k in range(100):
        share = Fraction(2 * k + 1, 200)
        if Fraction(float(share)) == share:
            out.append((float(share), k + 1))
    return out


def test_only_eighths_are_exact_halves_of_a_percent_in_floating_point():
    assert [share for share, _ in exact_halves()] == [0.125, 0.375, 0.625, 0.875]
    assert Fraction(0.005) != Fraction(1, 200) and Fraction(0.015) != Fraction(3, 200)


def test_a_share_exactly_halfway_between_two_whole_percents_is_rounded_up():
    # round() would give 12 and 62 for the first and third (halves to even): this test fails with it.
    for share, above in exact_halves():
        assert whole_percent(share) == above == half_up(share), (share, whole_percent(share))
    assert [whole_percent(share) for share, _ in exact_halves()] == [13, 38, 63, 88]


def test_a_share_that_reads_as_a_half_percent_is_rounded_up_as_a_reader_of_its_digits_expects():
    # 0.005, 0.015, ..., 0.995 are not exact floats but for the eighths (see exact_halves), some a hair above the
    # half and some a hair below (0.015 is 0.01499999999999999944...), yet for 92 of these 100 the float product
    # share * 100 comes out exactly k + 0.5 (0.015 * 100 == 1.5), and the book's program, like whole_percent,
    # rounds that up: 0.005 is 1%, 0.015 is 2%, 0.245 is 25%, as the digits say; round() would give 0, 2 and 24.
    # These 92 are held here. Of the other eight, four give a product a hair above the half (0.035 * 100 ==
    # 3.5000000000000004: up under any rule, so they tell nothing) and four a hair below (0.145, 0.285, 0.565,
    # 0.575; 0.145 * 100 == 14.499999999999998): those round down, to 14% etc., against their digits, and are
    # left out. The reference is the decimal rule on the digits, in integers: n thousandths -> (n + 5) // 10.
    held = [n for n in range(5, 1000, 10) if (n / 1000) * 100 == n // 10 + 0.5]
    assert len(held) == 92 and {5, 15, 125, 245, 995} <= set(held)
    for n in held:
        assert whole_percent(n / 1000) == (n + 5) // 10, (n / 1000, whole_percent(n / 1000))
    assert (whole_percent(0.005), whole_percent(0.015), whole_percent(0.245)) == (1, 2, 25)


def test_a_share_is_within_half_a_percent_of_its_whole_percent_and_a_hair_off_a_half_goes_to_the_nearer():
    for n in range(0, 10001):  # every hundredth of a percent from 0 to 100%
        share = n / 10000
        assert abs(whole_percent(share) - Fraction(share) * 100) <= Fraction(1, 2) + Fraction(1, 10**12), share
    for share, above in exact_halves():
        nudge = 2.0**-40
        assert whole_percent(share - nudge) == above - 1 == half_up(share - nudge)
        assert whole_percent(share + nudge) == above == half_up(share + nudge)


def test_the_printed_attention_figure_rounds_exact_halves_up():
    tokens = ["A", "B", "C"]
    text = "ABC"
    # One layer of two heads; the last token's shares are eighths (exact), so its printed percents hit halves.
    head_1 = [[1.0], [0.5, 0.5], [0.125, 0.25, 0.625]]
    head_2 = [[1.0], [0.5, 0.5], [0.375, 0.5, 0.125]]
    run = Run(
        model={
            "name": "hand-made",
            "revision": None,
            "n_layer": 1,
            "n_head": 2,
            "d_model": 4,
            "vocab_size": 3,
            "n_ctx": 8,
        },
        texts={
            text: {
                "format": DATA_FORMAT,
                "text": text,
                "tokens": [{"text": t} for t in tokens],
                "attention": [[head_1, head_2]],
            }
        },
    )
    fig = Figure("x.toml", 1, "attention", "l", None, {"text": text, "views": [[1, 1], [1, 2]]}).with_resolved(
        {"opening": 2, "printed_views": [[1, 1], [1, 2]]}
    )
    printed = KINDS["attention"].text_figure(fig, run)
    average = [(a + b) / 2 for a, b in zip(head_1[2], head_2[2])]  # 0.25, 0.375, 0.375: exact too
    for label, shares in [
        ("layer 1, head 1", head_1[2]),
        ("layer 1, head 2", head_2[2]),
        ("all 2 heads, averaged", average),
    ]:
        [line] = [line for line in printed.splitlines() if line.strip().startswith(label + ":")]
        said = line.split(":", 1)[1].split()
        assert said == [word for t, s in zip(tokens, shares) for word in (t, f"{half_up(s)}%")], line
    assert "A 13%" in printed and "C 63%" in printed  # 12.5% and 62.5% in head 1


def test_two_different_chances_are_never_written_the_same():
    """A knockout's "rises from A to B" must show A and B apart, however close they are."""
    from figures.toolkit.words import percent, percents_apart

    assert percent(1.3e-5) == percent(1.30004e-5)  # the plain form cannot tell them apart...
    before, after = percents_apart(1.3e-5, 1.30004e-5)
    assert before != after and float(before[:-1]) < float(after[:-1])  # ...the pair can, in the right order
    assert percents_apart(0.2881, 0.0302) == ("28.81%", "3.02%")  # digits are added only where needed


# Chances of every size a figure shows, with those near the rule's edges: 1%, and just below it, which rounds to 1%.
CHANCES = [0.0, 2e-9, 2.03e-7, 1.3e-5, 1.69e-4, 0.000123456, 0.00837, 0.0099996, 0.01, 0.0302, 0.2881, 0.87644, 1.0]


def test_a_small_chance_is_written_with_three_significant_digits_never_as_zero():
    from figures.toolkit.words import percent

    assert [percent(p) for p in CHANCES] == [
        "0.00%",
        "0.000000200%",
        "0.0000203%",
        "0.00130%",
        "0.0169%",
        "0.0123%",
        "0.837%",
        "1.00%",
        "1.00%",
        "3.02%",
        "28.81%",
        "87.64%",
        "100.00%",
    ]


def test_a_chart_writes_a_chance_with_the_digits_of_a_sentence():
    """The one rule of figures/toolkit/words.py: percent in the sentences, percent_expr in a chart's tooltips and
    labels (charts.said_chance), worked out here by Vega itself."""
    import re

    import vl_convert

    from figures.toolkit.words import percent, percent_expr

    for p in CHANCES:
        svg = vl_convert.vegalite_to_svg(
            {
                "data": {"values": [{"p": p}]},
                "mark": "text",
                "transform": [{"calculate": percent_expr("datum.p"), "as": "said"}],
                "encoding": {"text": {"field": "said", "type": "nominal"}},
            }
        )
        assert re.search(r"<text[^>]*>([^<]*)</text>", svg).group(1) == percent(p), p
