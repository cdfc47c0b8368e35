"""Seed-001 rule phases: each vectorised phase equals its scalar reference on the same draws,
and each exact distribution equals a brute-force enumeration written here."""

from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from simkit.rules import hourly
from simkit.testing import RecordingRng

# -- the hourly Constitution check (R1-06..R1-08, A1-6) ----------------------------------------

HOURLY = [
    dict(con=0),
    dict(con=3, healer=5),
    dict(con=-10, natural=True),
    dict(con=9, natural=True, healer=2),
    dict(con=-4, healer=20, check_penalty=-3),
    dict(con=1, lethal=False),
    dict(con=12, healer=-5, natural=True, lethal=False, check_penalty=-8),
]


def _brute_hourly(con, healer=None, check_penalty=0, natural=False, lethal=True):
    """docs/rules.md R1-06..R1-08 and A1-6, enumerated over both natural d20s, as fractions."""
    counts = [Fraction(0)] * 3
    heal_rolls = range(1, 21) if healer is not None else [None]
    for h, c in product(heal_rolls, range(1, 21)):
        total = c + con + check_penalty
        if h is not None and h + healer + check_penalty >= 15:  # R1-08
            total = max(total + 2, 10)
        res = 0 if total < 10 else (2 if total >= 20 else 1)  # R1-06
        if natural:  # A1-6 option
            res = min(res + 1, 2) if c == 20 else (max(res - 1, 0) if c == 1 else res)
        if not lethal:
            res = max(res, 1)
        counts[res] += Fraction(1, 20 * len(heal_rolls))
    return counts


@pytest.mark.parametrize("kw", HOURLY)
def test_hourly_pmf_equals_brute_force(kw):
    assert hourly.hourly_pmf(**kw) == pytest.approx([float(x) for x in _brute_hourly(**kw)], abs=1e-15)


def test_hourly_reference_by_rule_id():
    assert hourly.hourly_result(17, con=3) == hourly.AWAKE  # 20: wakes (R1-06)
    assert hourly.hourly_result(7, con=3) == hourly.STAYS  # 10: stays
    assert hourly.hourly_result(6, con=3) == hourly.DEAD  # 9: dies
    assert hourly.hourly_result(1, 1, con=-10, healer=14) == hourly.STAYS  # R1-08: 1+14 >= 15, floor 10
    assert hourly.hourly_result(1, 1, con=-10, healer=13) == hourly.DEAD  # the healer fails
    assert hourly.hourly_result(16, 20, con=2, healer=0) == hourly.AWAKE  # 16 + 2 + 2 = 20
    assert hourly.hourly_result(20, con=-10) == hourly.STAYS  # A1-6 as written: no natural 20
    assert hourly.hourly_result(20, con=-10, natural=True) == hourly.AWAKE
    assert hourly.hourly_result(1, con=9, natural=True) == hourly.DEAD
    assert hourly.hourly_result(1, con=0, lethal=False) == hourly.STAYS
    # the check penalty (R4-03) hits both checks: 15 + 0 - 1 < 15
    assert hourly.hourly_result(1, 15, con=0, healer=0, check_penalty=-1) == hourly.DEAD


@pytest.mark.parametrize("kw", HOURLY)
def test_hourly_table_is_the_reference_over_every_roll(kw):
    table = hourly.hourly_table(**kw)
    assert len(table) == hourly.hourly_width(kw.get("healer")) and not table.flags.writeable
    for r in range(len(table)):
        assert table[r] == hourly.hourly_result(r % 20 + 1, r // 20 + 1, **kw)


@pytest.mark.parametrize("kw", HOURLY)
def test_hourly_phase_and_lookup_equal_the_reference_on_the_same_draws(kw):
    rng = RecordingRng(5)
    res = hourly.hourly_phase(3000, rng, **kw)
    (kind, draws), = rng.draws
    assert kind == "integers" and res.shape == (3000,)
    healer = kw.get("healer")
    con_rolls, heal_rolls = draws.astype(int) % 20 + 1, draws.astype(int) // 20 + 1
    for r, c, h in zip(res, con_rolls, heal_rolls):
        assert r == hourly.hourly_result(int(c), int(h), **kw)
    looked = hourly.hourly_lookup(con_rolls, heal_rolls if healer is not None else None, **kw)
    assert (looked == res).all()
    # any shape: a night's rolls at once
    grid = hourly.hourly_lookup(con_rolls[:24].reshape(3, 8), heal_rolls[:24].reshape(3, 8), **kw)
    assert (grid.ravel() == res[:24]).all()


def test_hourly_cache_is_keyed_on_what_the_check_depends_on():
    a = hourly.hourly_table(con=3, healer=5, check_penalty=-2)
    b = hourly.hourly_table(con=1, healer=3, check_penalty=0)  # same totals
    assert a is b
    assert hourly.hourly_table(con=1, healer=3) is not hourly.hourly_table(con=1, healer=4)


def test_hourly_odds_vectorised_over_con():
    odds = hourly.hourly_odds(np.array([[-1, 0], [1, 2]]), 4, -1, natural=True)
    for i, j in product(range(2), range(2)):
        con = [[-1, 0], [1, 2]][i][j]
        d, s, a = (float(x) for x in _brute_hourly(con, 4, -1, natural=True))
        assert (odds["dead"][i, j], odds["stay"][i, j], odds["awake"][i, j]) == pytest.approx((d, s, a))


def test_hourly_lookup_needs_the_heal_roll_with_a_healer():
    with pytest.raises(ValueError, match="heal_roll"):
        hourly.hourly_lookup(np.array([3]), con=0, healer=2)
