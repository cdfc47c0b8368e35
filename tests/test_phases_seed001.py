"""Seed-001 rule phases: each vectorised phase equals its scalar reference on the same draws,
and each exact distribution equals a brute-force enumeration written here."""

from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from simkit.rules import first_aid as fa
from simkit.rules import hourly
from simkit.rules import perseverance as pv
from simkit.testing import replay_phase

# -- the hourly Constitution check (R1-06..R1-08, A1-6) ----------------------------------------

HOURLY = [
    dict(con=0),
    dict(con=3, healer=5),
    dict(con=-10, natural=True),
    dict(con=9, natural=True, healer=2),
    dict(con=-4, healer=20, check_penalty=-3),
    dict(con=1, lethal=False),
    dict(con=12, healer=-5, natural=True, lethal=False, check_penalty=-8),
    dict(con=0, healer=5, floor="always"),  # A1-9
    dict(con=-6, healer=2, natural=True, check_penalty=-2, floor="always"),
]


def _brute_hourly(con, healer=None, check_penalty=0, natural=False, lethal=True, floor="success"):
    """docs/rules.md R1-06..R1-08 and A1-6, enumerated over both natural d20s, as fractions."""
    counts = [Fraction(0)] * 3
    heal_rolls = range(1, 21) if healer is not None else [None]
    for h, c in product(heal_rolls, range(1, 21)):
        total = c + con + check_penalty
        if h is not None and h + healer + check_penalty >= 15:  # R1-08
            total = max(total + 2, 10)
        elif h is not None and floor == "always":  # A1-9: the floor whenever a healer tends
            total = max(total, 10)
        res = 0 if total < 10 else (2 if total >= 20 else 1)  # R1-06
        if natural:  # A1-6 option
            res = min(res + 1, 2) if c == 20 else (max(res - 1, 0) if c == 1 else res)
        if not lethal:
            res = max(res, 1)
        counts[res] += Fraction(1, 20 * len(heal_rolls))
    return counts


@pytest.mark.parametrize("kw", HOURLY)
def test_hourly_pmf_equals_brute_force(kw):
    assert hourly.hourly_pmf(**kw) == pytest.approx(
        [float(x) for x in _brute_hourly(**kw)], abs=1e-15
    )


def test_hourly_reference_by_rule_id():
    assert hourly.hourly_result(17, con=3) == hourly.AWAKE  # 20: wakes (R1-06)
    assert hourly.hourly_result(7, con=3) == hourly.STAYS  # 10: stays
    assert hourly.hourly_result(6, con=3) == hourly.DEAD  # 9: dies
    assert (
        hourly.hourly_result(1, 1, con=-10, healer=14) == hourly.STAYS
    )  # R1-08: 1+14 >= 15, floor 10
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
    healer = kw.get("healer")

    def one(j, draws):
        ((kind, r, high),) = draws
        assert kind == "integers" and high == hourly.hourly_width(healer)
        return hourly.hourly_result(int(r) % 20 + 1, int(r) // 20 + 1, **kw)

    res, ((_, draws),) = replay_phase(lambda rng: hourly.hourly_phase(3000, rng, **kw), one, 5)
    assert res.shape == (3000,)
    con_rolls, heal_rolls = draws.astype(int) % 20 + 1, draws.astype(int) // 20 + 1
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
        assert (odds["dead"][i, j], odds["stay"][i, j], odds["awake"][i, j]) == pytest.approx(
            (d, s, a)
        )


def test_hourly_lookup_needs_the_heal_roll_with_a_healer():
    with pytest.raises(ValueError, match="heal_roll"):
        hourly.hourly_lookup(np.array([3]), con=0, healer=2)


# -- first aid (R1-02) ------------------------------------------------------------------------


@pytest.mark.parametrize("bonus,pen", [(0, 0), (5, -2), (14, 0), (-6, 0), (30, -1), (3, -40)])
def test_first_aid_p_equals_brute_force(bonus, pen):
    want = sum(r + bonus + pen >= 15 for r in range(1, 21)) / 20  # R1-02, no natural 20/1 (A1-6)
    assert fa.first_aid_p(bonus=bonus, check_penalty=pen) == want
    table = fa.first_aid_table(bonus=bonus, check_penalty=pen)
    assert table.tolist() == [
        fa.first_aid_succeeds(r, bonus=bonus, check_penalty=pen) for r in range(1, 21)
    ]
    got, ((_, draws),) = replay_phase(
        lambda rng: fa.first_aid_phase(500, rng, bonus=bonus, check_penalty=pen),
        lambda j, d: fa.first_aid_succeeds(int(d[0].value) + 1, bonus=bonus, check_penalty=pen),
        2,
    )
    assert (fa.first_aid_lookup(draws.astype(int) + 1, bonus=bonus, check_penalty=pen) == got).all()


# -- the perseverance turn (R1-01..R1-05, A1-1, A1-3) -------------------------------------------


def test_perseverance_round_by_rule_id():
    opts = dict(cost=1, spend="never")
    assert pv.perseverance_round(pv.AGONISING, 3, 1, **opts) == (None, pv.AGONISING, 2)  # R1-01
    assert pv.perseverance_round(pv.AGONISING, 1, 1, **opts) == (pv.DEAD, pv.AGONISING, 0)
    assert pv.perseverance_round(pv.AGONISING, 1, 1, aided=True, **opts) == (
        pv.STABLE,
        pv.STABILISED,
        1,
    )  # R1-02
    assert pv.perseverance_round(pv.AGONISING, 1, 1, healed=True, **opts)[0] == pv.REVIVED  # R1-03
    assert pv.perseverance_round(pv.AGONISING, 3, 1, cost=3, spend="last") == (
        pv.STABLE,
        pv.STABILISED,
        0,
    )  # R1-04
    assert pv.perseverance_round(pv.AGONISING, 4, 1, cost=3, spend="last") == (
        None,
        pv.AGONISING,
        3,
    )
    assert pv.perseverance_round(pv.AGONISING, 6, 3, cost=1, spend=2) == (
        pv.STABLE,
        pv.STABILISED,
        5,
    )
    assert pv.perseverance_round(pv.AGONISING, 6, 2, cost=1, spend=2) == (None, pv.AGONISING, 5)
    back = dict(cost=1, spend="asap", back_in_fight=True)
    assert pv.perseverance_round(pv.AGONISING, 3, 1, **back) == (pv.BACK, pv.STABILISED, 1)  # R1-05
    assert pv.perseverance_round(pv.AGONISING, 3, 1, **back, enough_pp=3) == (
        pv.STABLE,
        pv.STABILISED,
        2,
    )  # A1-3
    assert pv.perseverance_round(pv.STABILISED, 1, 1, **back, enough_pp=3) == (
        pv.BACK,
        pv.STABILISED,
        0,
    )
    assert pv.knockout(0) == (pv.DEAD, pv.AGONISING, 0)  # A1-1
    assert pv.knockout(0, zero_pp="end_of_turn") == (None, pv.AGONISING, 0)
    assert pv.knockout(2, nonlethal=True) == (pv.STABLE, pv.STABILISED, 2)  # R1-11
    assert [pv.stabilize_cost(p) for p in (1, 4, 8, 12, 16)] == [1, 1, 2, 3, 3]
    assert pv.stabilize_cost(16, None) == 4


def test_round_pmf_weights_the_reference_by_first_aid():
    got = pv.round_pmf(pv.AGONISING, 2, 1, p_aid=0.3, cost=1, spend="never")
    assert got == pytest.approx({(pv.STABLE, pv.STABILISED, 2): 0.3, (None, pv.AGONISING, 1): 0.7})


@pytest.mark.parametrize(
    "opts,aid_bonus,rounds",
    [
        (
            dict(cost=1, spend="last", back_in_fight=False, enough_pp=1),
            None,
            ((1, False, False),) * 8,
        ),
        (
            dict(cost=2, spend="never", back_in_fight=True, enough_pp=2),
            3,
            ((1, False, True), (1, False, True), (1, True, True)),
        ),
        (
            dict(cost=1, spend=2, back_in_fight=True, enough_pp=1),
            0,
            ((1, False, False), (3, False, True), (3, False, True)),
        ),
    ],
)
def test_packed_rounds_compose_the_reference(opts, aid_bonus, rounds):
    pp_max = 8
    aid = None if aid_bonus is None else tuple(fa.first_aid_table(bonus=aid_bonus).tolist())
    codes, pps, width = pv.packed_rounds(
        pp_max, opts["cost"], opts["spend"], opts["back_in_fight"], opts["enough_pp"], aid, rounds
    )
    assert width == 20 ** sum(h for _, _, h in rounds if aid is not None)
    for state in range(2 * (pp_max + 1)):
        for r in range(0, width, 37) if width > 1 else [0]:
            phase, pp = divmod(state, pp_max + 1)
            rest, want = r, -1 - state
            for off, (t, healed, helper) in enumerate(rounds):
                aided = False
                if helper and aid is not None:
                    roll, rest = rest % 20 + 1, rest // 20
                    aided = phase == pv.AGONISING and fa.first_aid_succeeds(roll, bonus=aid_bonus)
                out, phase, pp = pv.perseverance_round(
                    phase, pp, t, healed=healed, aided=aided, **opts
                )
                if out is not None:
                    want = out + 4 * off
                    break
                want = -1 - (phase * (pp_max + 1) + pp)
            assert (codes[state * width + r], pps[state * width + r]) == (want, pp), (state, r)


def test_stabilize_cost_rounding_a1_13():
    # a quarter of pp_max rounded down (default) or up, at least 1, at most the cap (R1-04)
    import math

    pp_max = np.arange(0, 40)
    for rounding, f in (("down", math.floor), ("up", math.ceil)):
        for cap in (3, None):
            got = pv.stabilize_cost(pp_max, cap, rounding)
            want = [max(f(p / 4), 1) if cap is None else min(max(f(p / 4), 1), cap) for p in pp_max]
            assert got.tolist() == want
            assert all(pv.stabilize_cost(int(p), cap, rounding) == w for p, w in zip(pp_max, want))
