"""Seed 001 rest and healing functions (R1-09, R1-10, R1-12; A1-4, A1-5)."""

import numpy as np
import pytest

from simkit import ParamError, solve
from simkit.models.recovery import Recovery
from simkit.rules.rest import (
    ability_modifier,
    con_damage,
    days_to_full_hp,
    hp_after_rest,
    modifier_loss,
    pe_max,
    recover_pe,
    rest_table,
    split_damage,
)


def _days_by_loop(hp, hp_max, level, per_level):
    days = 0
    while hp < hp_max:
        hp = min(hp + per_level * level, hp_max)
        days += 1
    return days


def test_r1_10_night_and_bed_rest_against_a_loop():
    levels = np.arange(1, 21)
    for hp_max in (1, 7, 30, 95):
        for hp in (0, hp_max // 2, hp_max):
            night = days_to_full_hp(hp_max, levels, hp, "night")
            bed = days_to_full_hp(hp_max, levels, hp, rest="bed")
            assert night.tolist() == [_days_by_loop(hp, hp_max, lv, 1) for lv in levels]
            assert bed.tolist() == [_days_by_loop(hp, hp_max, lv, 2) for lv in levels]
    assert days_to_full_hp(10, 1) == 10 and days_to_full_hp(10, 1, rest="bed") == 5


def test_r1_10_never_above_max():
    assert hp_after_rest(5, 12, 3) == 8  # 1 HP per level
    assert hp_after_rest(5, 12, 3, rest="bed") == 11  # 2 HP per level
    assert hp_after_rest(5, 12, 3, days=2, rest="bed") == 12
    assert hp_after_rest(np.array([0, 4, 9]), 10, 2, days=[1, 2, 3]).tolist() == [2, 8, 10]


def test_rest_table_columns():
    df = rest_table([1, 5, 10], [10, 40, 80])
    assert list(df.columns) == [
        "level",
        "hp_max",
        "hp",
        "night_days",
        "night_hours",
        "bed_days",
        "bed_hours",
    ]
    assert df["night_days"].tolist() == [10, 8, 8]
    assert df["bed_days"].tolist() == [5, 4, 4]
    assert (df["night_hours"] == 8 * df["night_days"]).all() and (
        df["bed_hours"] == 24 * df["bed_days"]
    ).all()


def test_r1_09_pe_recovery():
    pe, pp, minutes = recover_pe([0, 3, 8, 2], 8, [2, 1, 3, 0])
    assert pe.tolist() == [8, 8, 8, 2]  # full PE for 1 PP; nothing when full or without PP
    assert pp.tolist() == [1, 0, 3, 0]
    assert minutes.tolist() == [10, 10, 0, 0]
    pe, pp, minutes = recover_pe(0, 9, 0, method="night")
    assert (pe, pp, minutes) == (9, 0, 480)


def test_a1_5_damage_pe_first_or_hp_only():
    assert split_damage(3, 5, 10) == (2, 10, 0)
    assert split_damage(8, 5, 10) == (0, 7, 0)
    assert split_damage(20, 5, 10) == (0, 0, 5)
    assert split_damage(8, 5, 10, order="hp_only") == (5, 2, 0)
    pe, hp, excess = split_damage(np.arange(0, 25, 6), 5, 10)
    assert (pe + hp + excess).tolist() == [15 - d + max(0, d - 15) * 2 for d in range(0, 25, 6)]


def test_a1_4_ability_damage_both_readings():
    # the text's example: Strength reduced by 4 loses 2 points of modifier (score reading)
    assert modifier_loss(14, 4) == 2
    assert modifier_loss(15, 4) == 2
    assert modifier_loss(14, 1) == 1 and modifier_loss(15, 1) == 0
    # the sentence: one point of modifier per point of damage
    assert modifier_loss(14, 4, reading="per_point") == 4
    assert ability_modifier(14, 4, reading="per_point") == -2
    scores = np.arange(3, 21)
    assert ability_modifier(scores).tolist() == [(s - 10) // 2 for s in scores]
    assert ability_modifier(10, 30) == -5  # a score cannot fall below 0


def test_r1_12_con_damage_reaches_checks_and_pe():
    df = con_damage(14, [0, 2, 4], level=3, pe_per_level=6)
    assert df["con_mod"].tolist() == [2, 1, 0]
    assert df["pe_max"].tolist() == [24, 21, 18]  # 3 x (6 + mod)
    assert df["pe_lost"].tolist() == [0, 3, 6]
    assert df["p_dead_hour"].tolist() == pytest.approx([0.35, 0.4, 0.45])
    for mod, p in zip(df["con_mod"], df["p_dead_recovery"]):
        assert p == pytest.approx(solve(Recovery(con=int(mod)))["dead"])
    per_point = con_damage(14, [0, 2, 4], reading="per_point", healer=5, checks=7)
    assert per_point["con_mod"].tolist() == [2, 0, -2]
    for mod, p in zip(per_point["con_mod"], per_point["p_dead_recovery"]):
        assert p == pytest.approx(solve(Recovery(con=int(mod), healer=5, checks=7))["dead"])
    assert pe_max(2, 3, -5) == 0
    # A1-6's natural 20/1 option reaches the table too (the same hourly check as recovery)
    nat = con_damage(30, [0, 20], natural=True)
    assert nat["con_mod"].tolist() == [10, 0]
    # con +10: a natural 1 (total 11, stays) drops to dead
    assert nat["p_dead_hour"].tolist() == pytest.approx([1 / 20, 9 / 20])
    for mod, p in zip(nat["con_mod"], nat["p_dead_recovery"]):
        assert p == pytest.approx(solve(Recovery(con=int(mod), natural=True))["dead"])


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: days_to_full_hp(10, 0), "level="),
        (lambda: days_to_full_hp(10, 1, hp=11), "hp="),
        (lambda: days_to_full_hp(10, 1, rest="nap"), "rest must be one of night, bed"),
        (lambda: recover_pe(1, 5, 1, method="coffee"), "method must be one of pp, night"),
        (lambda: split_damage(-1, 2, 3), "damage="),
        (lambda: split_damage(1, 2, 3, order="hp_first"), "order must be one of pe_first, hp_only"),
        (
            lambda: ability_modifier(12, 1, reading="half"),
            "reading must be one of score, per_point",
        ),
        (lambda: ability_modifier(12.5), "score="),
        (lambda: con_damage(12, 1, checks=6), "checks=6"),
    ],
)
def test_bad_arguments_name_themselves(call, match):
    with pytest.raises(ParamError, match=match):
        call()


# -- the adventuring day's rests (P-11, P-12, A1-7) -----------------------------------------
def _treat_by_hand(roll, d8s, medicine, dc=15):
    total = roll + medicine
    deg = 3 if total >= dc + 10 else 2 if total >= dc else 0 if total <= dc - 10 else 1
    deg = min(deg + 1, 3) if roll == 20 else max(deg - 1, 0) if roll == 1 else deg
    return {3: sum(d8s[:4]), 2: sum(d8s[:2]), 1: 0, 0: -d8s[0]}[deg]


def test_p11_treat_wounds_pmf_is_the_brute_force_count():
    from itertools import product

    from simkit.rules.pf2e.rest import treat_wounds_pmf

    for medicine in (-12, 11, 30):
        want: dict[int, float] = {}
        for roll in range(1, 21):
            for d8s in product(range(1, 9), repeat=4):
                v = _treat_by_hand(roll, d8s, medicine)
                want[v] = want.get(v, 0.0) + 1 / (20 * 8**4)
        got = dict(treat_wounds_pmf(medicine))
        assert got.keys() == want.keys()
        assert all(abs(got[k] - want[k]) < 1e-12 for k in want)
    assert dict(treat_wounds_pmf(11, check_penalty=-4)) == dict(treat_wounds_pmf(7))


def test_p11_treat_wounds_phase_is_the_reference_on_the_same_draws():
    from simkit.core.streams import BlockRng, stream_generator
    from simkit.rules.pf2e.rest import treat_wounds, treat_wounds_phase

    m = 3000
    medicine = np.array([11, 3] * (m // 2))
    got = treat_wounds_phase(BlockRng([stream_generator(7, 0)], [m]), m, medicine)
    again = BlockRng([stream_generator(7, 0)], [m])
    rolls, dice = again.below(20, size=m), again.below(8**4, size=m)
    for i in range(m):
        r = int(dice[i])
        d8s = [r // 8**j % 8 + 1 for j in range(4)]
        want = treat_wounds(int(rolls[i]) + 1, d8s, medicine=int(medicine[i]))
        assert got[i] == want == _treat_by_hand(int(rolls[i]) + 1, d8s, int(medicine[i]))


def test_p11_treat_wounds_phase_follows_its_pmf():
    from simkit.core.streams import BlockRng, stream_generator
    from simkit.rules.pf2e.rest import treat_wounds_phase, treat_wounds_pmf

    m = 40_000
    got = treat_wounds_phase(BlockRng([stream_generator(11, 0)], [m]), m, 9)
    for value, p in treat_wounds_pmf(9):
        k = int(np.count_nonzero(got == value))
        assert abs(k / m - p) <= 5 * np.sqrt(p * (1 - p) / m) + 1e-12, (value, k, p)


def test_p12_night_rest_and_a1_7_pp():
    from simkit.rules.pf2e.rest import night_rest_hp
    from simkit.rules.rest import pp_after_rest

    hp, hp_max = np.array([0, 10, 59]), np.array([60, 60, 60])
    assert night_rest_hp(hp, hp_max, 3, 5).tolist() == [15, 25, 60]
    assert night_rest_hp(hp, hp_max, -1, 5).tolist() == [5, 15, 60]  # at least the level
    assert night_rest_hp(hp, hp_max, 2, 5, bed=True).tolist() == [20, 30, 60]
    assert pp_after_rest([0, 2], 3, "night").tolist() == [3, 3]
    assert pp_after_rest([0, 2], 3, "bed", "never").tolist() == [0, 2]
    assert pp_after_rest([0, 2], 3, "short").tolist() == [0, 2]
    with pytest.raises(ParamError, match="reading"):
        pp_after_rest(1, 3, "night", "sometimes")


def test_a1_4_third_reading_per_two():
    # issue 31: 1 modifier point per 2 points of damage, whatever the score's parity
    assert ability_modifier(14, 1, reading="score") == 1  # 13: loses 1
    assert ability_modifier(14, 1, reading="per_two") == 2  # loses 0
    assert modifier_loss(14, 1, reading="per_two") == 0
    assert modifier_loss(14, 3, reading="per_two") == 1
    assert modifier_loss(15, 1, reading="per_two") == 0
    assert modifier_loss(15, 1, reading="score") == 0
    assert modifier_loss(14, [0, 1, 2, 3, 4], reading="per_two").tolist() == [0, 0, 1, 1, 2]
    df = con_damage(14, [0, 3], reading="per_two", healer=5)
    assert df["con_mod"].tolist() == [2, 1]
