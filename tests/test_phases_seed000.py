"""Seed-000 rule phases (simkit/rules): recovery check, damage while dying, hero points,
massive damage; each vectorised phase against its scalar reference, each exact
distribution against a brute-force enumeration written here, and the readings of A0-6
and A0-7."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from simkit import Dying, solve
from simkit.core.packing import pack_steps
from simkit.models.dying import _tables, build_tables, table_key
from simkit.models.presets import preset_params
from simkit.rules import hero_points as hp
from simkit.rules.dice import Dice
from simkit.rules.dying_damage import hit_phase, hit_while_dying, knockout_value
from simkit.rules.massive_damage import is_massive, massive_chance, take_damage
from simkit.rules.recovery_check import (
    MARGIN_HI,
    MARGIN_LO,
    check_margin,
    clip_margin,
    kept_roll,
    recovery_delta,
    recovery_phase,
    recovery_pmf,
    recovery_pmf2,
)


def _brute_delta(roll: int, total_bonus: int, dc: int) -> int:
    """R0-05 written out again: degree from the total, natural 20/1 one step, then the change."""
    total = roll + total_bonus
    deg = 3 if total >= dc + 10 else 2 if total >= dc else 0 if total <= dc - 10 else 1
    if roll == 20:
        deg = min(deg + 1, 3)
    if roll == 1:
        deg = max(deg - 1, 0)
    return {0: 2, 1: 1, 2: -1, 3: -2}[deg]


# -- recovery check (R0-05..R0-07, A0-4) -----------------------------------------------------------


@pytest.mark.parametrize("check", ["save", "flat"])
def test_recovery_reference_is_the_rule(check):
    for roll, dying, bonus, dc in itertools.product(
        range(1, 21), range(1, 6), range(-5, 30, 3), range(5, 45, 4)
    ):
        want = (
            _brute_delta(roll, 0, 10 + dying)
            if check == "flat"
            else _brute_delta(roll, bonus, dc + dying)
        )
        assert recovery_delta(roll, dying, check=check, bonus=bonus, dc=dc) == want


def test_recovery_pmf_is_the_enumeration():
    for margin in range(-45, 25):
        counts: dict[int, int] = {}
        for roll in range(1, 21):
            d = _brute_delta(roll, margin, 0)
            counts[d] = counts.get(d, 0) + 1
        want = {d: c / 20 for d, c in counts.items()}
        assert dict(recovery_pmf(clip_margin(margin))) == pytest.approx(want, abs=0)
        assert dict(recovery_pmf(margin)) == dict(recovery_pmf(clip_margin(margin)))


def test_recovery_margin_clip_is_exact():
    for margin in range(MARGIN_LO - 15, MARGIN_HI + 15):
        for roll in range(1, 21):
            assert _brute_delta(roll, margin, 0) == _brute_delta(roll, clip_margin(margin), 0)
    assert check_margin(3, check="flat") == -13
    assert check_margin(2, bonus=11, dc=22) == -13


@pytest.mark.parametrize("check", ["save", "flat"])
def test_recovery_phase_equals_reference(check):
    rng = np.random.default_rng(10)
    n = 20_000
    roll = rng.integers(1, 21, n)
    dying = rng.integers(1, 8, n)
    dc = rng.integers(1, 90, n)
    bonus = int(rng.integers(-20, 60))
    got = recovery_phase(roll, dying, check=check, bonus=bonus, dc=dc)
    want = [
        d + recovery_delta(int(r), int(d), check=check, bonus=bonus, dc=int(c))
        for r, d, c in zip(roll, dying, dc)
    ]
    np.testing.assert_array_equal(got, want)


# -- damage while dying (R0-03, R0-09; A0-1, A0-2, A0-6) -------------------------------------------


def test_knockout_value():
    assert knockout_value() == 1
    assert knockout_value(crit=True) == 2
    assert knockout_value(crit=True, wounded=2) == 2  # wounded only counts with the rule
    assert knockout_value(crit=True, wounded=2, wounded_rule=True) == 4


def test_hit_while_dying_readings():
    # A0-1 max: the knock-out value (wounded in it) if higher
    assert hit_while_dying(1, False) == 1
    assert hit_while_dying(1, True) == 2
    assert hit_while_dying(3, True) == 3
    assert hit_while_dying(1, False, wounded=2, wounded_rule=True) == 3
    # A0-1 increment, A0-6 on_gain (default) vs every_hit
    assert hit_while_dying(2, False, on_damage="increment", wounded=1, wounded_rule=True) == 3
    assert hit_while_dying(2, True, on_damage="increment", wounded=1, wounded_rule=True) == 4
    assert (
        hit_while_dying(
            2, False, on_damage="increment", wounded=1, wounded_rule=True, wounded_adds="every_hit"
        )
        == 4
    )
    assert (
        hit_while_dying(2, False, on_damage="increment", wounded=1, wounded_adds="every_hit") == 3
    )


@pytest.mark.parametrize(
    "on_damage,adds,rule",
    list(itertools.product(["max", "increment"], ["on_gain", "every_hit"], [False, True])),
)
def test_hit_phase_equals_reference(on_damage, adds, rule):
    rng = np.random.default_rng(11)
    dying, crit, wounded = rng.integers(1, 5, 500), rng.random(500) < 0.3, rng.integers(0, 4, 500)
    got = hit_phase(dying, crit, wounded, on_damage=on_damage, wounded_rule=rule, wounded_adds=adds)
    want = [
        hit_while_dying(
            int(d),
            bool(c),
            on_damage=on_damage,
            wounded=int(w),
            wounded_rule=rule,
            wounded_adds=adds,
        )
        for d, c, w in zip(dying, crit, wounded)
    ]
    np.testing.assert_array_equal(got, want)


# -- hero points (R0-04, R0-10; A0-3, A0-7) --------------------------------------------------------


def test_rise_reference():
    assert hp.rise(2, 0, threshold=None, death_at=4) == hp.STABLE
    assert hp.rise(2, 3, threshold=None, death_at=4) == hp.CARRY_ON
    assert hp.rise(3, 4, threshold=None, death_at=4) == hp.DEAD
    assert hp.rise(3, 4, threshold=4, death_at=4) == hp.HERO
    assert hp.rise(2, 3, threshold=3, death_at=4) == hp.HERO
    assert hp.rise(3, 3, threshold=3, death_at=4) == hp.CARRY_ON  # no rise, no spending
    # A0-7: a knock-out that reaches the death value with a point held
    assert hp.rise(0, 2, threshold=2, death_at=2, knockout=True) == hp.HERO
    assert hp.rise(0, 2, threshold=2, death_at=2, knockout=True, hero_knockout="die") == hp.DEAD
    assert hp.rise(0, 1, threshold=2, death_at=2, knockout=True, hero_knockout="die") == hp.CARRY_ON
    assert (
        hp.rise(1, 2, threshold=2, death_at=2, hero_knockout="die") == hp.HERO
    )  # a later rise: spent


@pytest.mark.parametrize(
    "threshold,reading", list(itertools.product([None, 0, 2, 3, 4], ["spend", "die"]))
)
def test_rise_phase_equals_reference(threshold, reading):
    rng = np.random.default_rng(12)
    old, new = rng.integers(0, 5, 1000), rng.integers(-1, 7, 1000)
    held, ko = rng.random(1000) < 0.6, rng.random(1000) < 0.3
    got = hp.rise_phase(
        old, new, held, threshold=threshold, death_at=4, knockout=ko, hero_knockout=reading
    )
    want = [
        hp.rise(
            int(o),
            int(n),
            threshold=threshold if h else None,
            death_at=4,
            knockout=bool(k),
            hero_knockout=reading,
        )
        for o, n, h, k in zip(old, new, held, ko)
    ]
    np.testing.assert_array_equal(got, want)


def test_a0_7_readings_in_dying():
    """A knock-out by a critical with death_at 2 and a hero point held (docs/rules.md A0-7)."""
    spend = solve(Dying(crit=True, death_at=2, hero_points=1))
    die = solve(Dying(crit=True, death_at=2, hero_points=1, hero_knockout="die"))
    assert spend.probabilities["revived"] == 1.0
    assert die.probabilities["dead"] == 1.0
    # no point held, or a knock-out below the death value: the readings agree
    for kw in ({"hero_points": 0}, {"crit": False}):
        a = solve(Dying(**{"crit": True, "death_at": 2, "hero_points": 1, **kw}))
        b = solve(
            Dying(**{"crit": True, "death_at": 2, "hero_points": 1, **kw}, hero_knockout="die")
        )
        assert a.probabilities == b.probabilities


def test_a0_6_readings_match_rules_md():
    """docs/rules.md A0-6: pf2e-core, wounded 1, hit 0.3, crit 0.1: P(stable) 0.243 vs 0.208."""
    base = dict(preset_params("dying", "pf2e-core"), wounded=1, hit_chance=0.3, crit_chance=0.1)
    on_gain = solve(Dying(**base)).probabilities["stable"]
    every_hit = solve(Dying(**base, wounded_adds="every_hit")).probabilities["stable"]
    assert round(on_gain, 3) == 0.243
    assert round(every_hit, 3) == 0.208


# -- massive damage, temporary HP (R0-12..R0-14) ---------------------------------------------


def test_take_damage_and_massive():
    assert take_damage(10, 3, 5) == (8, 0)
    assert take_damage(10, 8, 5) == (10, 3)
    assert take_damage(4, 0, 9) == (0, 0)
    hp_, tmp = take_damage(np.array([10, 10, 4]), np.array([3, 8, 0]), np.array([5, 5, 9]))
    np.testing.assert_array_equal(hp_, [8, 10, 0])
    np.testing.assert_array_equal(tmp, [0, 3, 0])
    assert is_massive(20, 10) and not is_massive(19, 10)
    values, probs = Dice.parse("2d8+4").pmf()
    for hp_max in (5, 9, 10, 12, 20):
        for mult in (1, 2):
            want = float(sum(p for v, p in zip(values, probs) if mult * v >= 2 * hp_max))
            assert massive_chance("2d8+4", hp_max, mult) == pytest.approx(want, abs=1e-15)
    assert massive_chance("2d8+4", None) == 0.0


# -- the kernel's tables ----------------------------------------------------------------------


def test_pack_steps_equals_stepping():
    rng = np.random.default_rng(13)
    S, K, n_out = 5, 6, 3
    nxt = rng.integers(-n_out, S, size=(S, K))
    tabs = pack_steps(nxt, n_out, 3)
    for k, tab in tabs.items():
        for s in range(S):
            for r in range(K**k):
                state, want = s, None
                for i in range(k):
                    state = int(nxt[state, r // K**i % K])
                    if state < 0:
                        want = -1 - (-1 - state + n_out * i)
                        break
                assert tab[s * K**k + r] == (state if want is None else want)


POLICIES: list[str | int] = ["never", "immediately", "at_death", 2, 3]


def _random_dying(rng) -> Dying:
    check = str(rng.choice(["save", "flat"]))
    wounded_rule = bool(rng.random() < 0.5)
    return Dying(
        check=check,
        save_bonus=int(rng.integers(-20, 81)),
        dc=int(rng.integers(1, 101)),
        check_penalty=int(rng.integers(-12, 1)),
        death_at=int(rng.integers(2, 7)),
        hit_dc=None if rng.random() < 0.5 else int(rng.integers(1, 101)),
        on_damage=str(rng.choice(["max", "increment"])),
        wounded_rule=wounded_rule,
        wounded=int(rng.integers(0, 3)) if wounded_rule else 0,
        wounded_adds=str(rng.choice(["on_gain", "every_hit"])),
        hero_points=int(rng.integers(0, 2)),
        hero_policy=POLICIES[int(rng.integers(5))],
        hero_effect=str(rng.choice(["revive", "stabilize"])),
    )


def test_cached_tables_equal_tables_built_for_the_rules():
    """Tables are cached on table_key: every rules object gets the tables of its own reference."""
    rng = np.random.default_rng(14)
    for _ in range(150):
        rules = _random_dying(rng)
        own = build_tables(rules)
        cached = rules.tables()
        assert own.keys() == cached.keys()
        for name in own:
            np.testing.assert_array_equal(own[name], cached[name], err_msg=f"{rules} {name}")


def test_a_sweep_of_dcs_and_saves_builds_few_tables():
    _tables.cache_clear()
    for dc in range(14, 54):
        for save in range(25):
            Dying(dc=dc, save_bonus=save).tables()
    keys = {table_key(Dying(dc=dc, save_bonus=s)) for dc in range(14, 54) for s in range(25)}
    assert _tables.cache_info().misses == len(keys) <= 64


# -- issue 31: A0-8 (dc_dying), P-13 (toughness), P-15 (fortune) on the recovery check --------


@pytest.mark.parametrize("fortune", ["none", "fortune", "misfortune"])
@pytest.mark.parametrize("check", ["save", "flat"])
def test_recovery_options_reference_is_the_rule(check, fortune):
    for r1, r2, dying, ko, tough in itertools.product(
        range(1, 21), (1, 7, 14, 20), range(1, 5), (None, 1, 2), (False, True)
    ):
        kept = r1 if fortune == "none" else (max(r1, r2) if fortune == "fortune" else min(r1, r2))
        term = dying if ko is None else ko
        dc = (10 if check == "flat" else 22) - int(tough) + term
        want = _brute_delta(kept, 0 if check == "flat" else 11, dc)
        got = recovery_delta(
            kept_roll(r1, r2, fortune),
            dying,
            check=check,
            bonus=11,
            dc=22,
            dc_dying=ko,
            toughness=tough,
        )
        assert got == want


def test_recovery_pmf2_is_the_enumeration():
    for fortune, pick in (("fortune", max), ("misfortune", min)):
        for margin in range(-35, 15):
            counts: dict[int, int] = {}
            for r1, r2 in itertools.product(range(1, 21), repeat=2):
                d = _brute_delta(pick(r1, r2), margin, 0)
                counts[d] = counts.get(d, 0) + 1
            want = {d: c / 400 for d, c in counts.items()}
            assert dict(recovery_pmf2(clip_margin(margin), fortune)) == pytest.approx(want, abs=0)
    assert recovery_pmf2(-5) == recovery_pmf(-5)


@pytest.mark.parametrize("fortune", ["none", "fortune", "misfortune"])
@pytest.mark.parametrize("check", ["save", "flat"])
def test_recovery_options_phase_equals_reference(check, fortune):
    rng = np.random.default_rng(31)
    n = 20_000
    roll, roll2 = rng.integers(1, 21, n), rng.integers(1, 21, n)
    dying = rng.integers(1, 8, n)
    ko = rng.integers(1, 4, n)
    dc = rng.integers(1, 60, n)
    for tough in (False, True):
        got = recovery_phase(
            roll,
            dying,
            check=check,
            bonus=14,
            dc=dc,
            roll2=roll2,
            fortune=fortune,
            dc_dying=ko,
            toughness=tough,
        )
        want = [
            d
            + recovery_delta(
                kept_roll(int(r), int(r2), fortune),
                int(d),
                check=check,
                bonus=14,
                dc=int(c),
                dc_dying=int(k),
                toughness=tough,
            )
            for r, r2, d, c, k in zip(roll, roll2, dying, dc, ko)
        ]
        np.testing.assert_array_equal(got, want)
