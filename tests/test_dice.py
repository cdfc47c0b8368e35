from fractions import Fraction

import numpy as np
import pytest

from simkit.rules.dice import (
    CRIT_FAIL,
    CRIT_SUCCESS,
    FAIL,
    SUCCESS,
    Dice,
    degree,
    degree_pmf,
    degrees,
    parse_dice,
)


@pytest.mark.parametrize(
    "roll,bonus,dc,expected",
    [
        (10, 5, 15, SUCCESS),  # total == DC: success (R0-05)
        (9, 5, 15, FAIL),
        (15, 10, 15, CRIT_SUCCESS),  # total == DC + 10
        (5, 0, 15, CRIT_FAIL),  # total == DC - 10
        (6, 0, 15, FAIL),
        (20, 0, 30, FAIL),  # natural 20 lifts a critical failure to a failure
        (20, 0, 25, SUCCESS),  # natural 20 lifts a failure to success
        (20, 10, 15, CRIT_SUCCESS),  # already a success: critical
        (1, 30, 15, SUCCESS),  # natural 1 lowers a critical success
        (1, 0, 15, CRIT_FAIL),  # never below critical failure
        (20, 40, 15, CRIT_SUCCESS),  # never above critical success
    ],
)
def test_degree_rules_r0_05(roll, bonus, dc, expected):
    assert degree(roll, bonus, dc) == expected


def test_no_natural_rule_option():
    assert degree(20, 0, 30, natural=False) == CRIT_FAIL
    assert degree(1, 30, 15, natural=False) == CRIT_SUCCESS


def test_vectorised_degrees_match_scalar_everywhere():
    rolls = np.arange(1, 21)
    for bonus in range(-15, 35, 3):
        for dc in range(5, 45, 4):
            vec = degrees(rolls, bonus, dc)
            assert list(vec) == [degree(int(r), bonus, dc) for r in rolls]


def test_degree_pmf_is_exact_count_over_faces():
    for bonus in range(-10, 31, 5):
        for dc in range(10, 41, 5):
            pmf = degree_pmf(bonus, dc, exact=True)
            assert sum(pmf) == 1
            counts = [0] * 4
            for r in range(1, 21):
                counts[degree(r, bonus, dc)] += 1
            assert pmf == tuple(Fraction(c, 20) for c in counts)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("2d6+3", Dice(2, 6, 3)),
        ("1d8", Dice(1, 8, 0)),
        ("4", Dice(0, 1, 4)),
        ("3d6-2", Dice(3, 6, -2)),
    ],
)
def test_parse_dice(text, expected):
    assert parse_dice(text) == expected


@pytest.mark.parametrize("bad", ["", "d6", "2d", "2x6", "abc", "2d6+"])
def test_parse_dice_rejects(bad):
    with pytest.raises(ValueError, match="dice"):
        parse_dice(bad)


def test_dice_pmf_against_brute_force():
    d = Dice(3, 4, 1)
    values, probs = d.pmf()
    brute = {}
    for a in range(1, 5):
        for b in range(1, 5):
            for c in range(1, 5):
                brute[a + b + c + 1] = brute.get(a + b + c + 1, 0) + 1 / 64
    assert dict(zip(values.tolist(), probs.tolist())) == pytest.approx(brute)
    assert d.min == 4 and d.max == 13 and d.mean == pytest.approx(8.5)


def test_dice_sample_matches_pmf():
    d = Dice(2, 6, 0)
    rng = np.random.default_rng(7)
    n = 200_000
    x = d.sample(rng, n)
    values, probs = d.pmf()
    for v, p in zip(values, probs):
        se = np.sqrt(p * (1 - p) / n)
        assert abs(np.mean(x == v) - p) < 5 * se
