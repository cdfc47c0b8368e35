"""The fight rules in simkit/rules/ (P-01..P-04, P-10, R0-03 / AP-2, R0-11, R1-07, AP-3,
AP-4): each form against the others and against brute force, and the fixes they brought
to the party model (the R0-03 order, the check penalty on every PC d20)."""

from __future__ import annotations

import itertools
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest
from test_party import loop_vs_ref

import simkit
from simkit.core.exact import solve
from simkit.models.party import Party
from simkit.rules import first_aid, hourly, initiative, strike
from simkit.rules.dice import CRIT_FAIL, CRIT_SUCCESS, FAIL, SUCCESS, Dice
from simkit.testing import assert_agrees_with_exact, standard_error, within_se


# -- strikes and basic saves ----
def _faces(text: str) -> list[int]:
    d = Dice.parse(text)
    return [d.bonus + sum(f) for f in itertools.product(range(1, d.sides + 1), repeat=d.count)]


def _brute(bonus: int, dc: int, text: str, effect) -> dict[tuple[int, bool], Fraction]:
    """Every d20 face and every dice face, graded by hand (R0-05 written out here)."""
    out: dict[tuple[int, bool], Fraction] = defaultdict(Fraction)
    faces = _faces(text)
    for roll in range(1, 21):
        total = roll + bonus
        deg = (
            CRIT_SUCCESS
            if total >= dc + 10
            else SUCCESS
            if total >= dc
            else CRIT_FAIL
            if total <= dc - 10
            else FAIL
        )
        deg = (
            min(deg + 1, CRIT_SUCCESS)
            if roll == 20
            else max(deg - 1, CRIT_FAIL)
            if roll == 1
            else deg
        )
        for v in faces:
            out[effect(deg, v)] += Fraction(1, 20 * len(faces))
    return dict(out)


def _strike_by_hand(deg: int, v: int) -> tuple[int, bool]:
    return ({CRIT_SUCCESS: 2 * v, SUCCESS: v}.get(deg, 0), deg == CRIT_SUCCESS)


def _save_by_hand(deg: int, v: int) -> tuple[int, bool]:
    return ({CRIT_SUCCESS: 0, SUCCESS: v // 2, FAIL: v, CRIT_FAIL: 2 * v}[deg], deg == CRIT_FAIL)


@pytest.mark.parametrize(
    "bonus, dc, text",
    [(10, 18, "1d8+4"), (0, 25, "2d6"), (25, 10, "1d4"), (7, 17, "3d4+1"), (-3, 12, "1d6-1")],
)
def test_strike_and_basic_save_pmfs_equal_brute_force(bonus, dc, text):
    for pmf, effect in (
        (strike.strike_pmf, _strike_by_hand),
        (strike.basic_save_pmf, _save_by_hand),
    ):
        got = {(d, c): p for d, c, p in pmf(bonus, dc, text)}
        want = {key: p for key, p in _brute(bonus, dc, text, effect).items() if p > 0}
        assert got.keys() == want.keys()
        for key in got:
            assert got[key] == pytest.approx(float(want[key]), abs=1e-14)


def test_roll_table_is_the_reference_over_every_face():
    pairs = [(12, 20), (3, 14), (30, 12)]
    for effect, ref in ((strike.STRIKE_MULT, strike.strike_damage), (strike.BASIC_X2, None)):
        table = strike.roll_table(pairs, effect)
        for x, (bonus, dc) in enumerate(pairs):
            for roll in range(1, 21):
                deg = strike.degree(roll, bonus, dc)
                if ref is not None:
                    assert table[x * 20 + roll - 1] * 7 == ref(deg, 7)
                else:
                    assert (table[x * 20 + roll - 1] * 9) >> 1 == strike.basic_damage(deg, 9)


def test_multiple_attack_penalty_and_unconscious_ac():
    assert [strike.map_penalty("standard", a) for a in range(4)] == [0, 5, 10, 10]
    assert [strike.map_penalty("agile", a) for a in range(4)] == [0, 4, 8, 8]
    assert [strike.map_penalty("none", a) for a in range(4)] == [0, 0, 0, 0]
    assert strike.strike_ac(20, True) == 14 and strike.strike_ac(20, False) == 20
    with pytest.raises(ValueError, match="map must be one of standard, agile, none"):
        strike.map_penalty("double", 1)
    assert strike.strike_damage(CRIT_SUCCESS, -3) == 0  # a hit never heals
    assert strike.basic_damage(CRIT_FAIL, -3) == 0


# -- initiative and the R0-03 move ----
def test_initiative_keys_order_is_the_reference_order():
    g = np.random.default_rng(3)
    pcp, mop = [7, 9, 7], [9, 5]
    rolls = g.integers(1, 21, size=(500, 5))
    keys = initiative.initiative_keys(rolls, pcp, mop, check_penalty=-2)
    for row, key in zip(rolls, keys):
        order = initiative.initiative_order(
            [int(r) + p - 2 for r, p in zip(row[:3], pcp)],
            [int(r) + p for r, p in zip(row[3:], mop)],
        )
        by_key = [
            ("pc", c) if c < 3 else ("monster", c - 3) for c in np.argsort(-key, kind="stable")
        ]
        assert by_key == order
        assert len(set(key)) == 5  # every key differs: any sort gives the same order


def test_moves_by_keys_follow_the_list_rule():
    """Random knock-out sequences (several by one monster, several in one call): the keys'
    order after the moves is the list's (R0-03, AP-2)."""
    g = np.random.default_rng(5)
    P, M, m = 4, 3, 300
    rolls = g.integers(1, 21, size=(m, P + M))
    keys = initiative.initiative_keys(rolls, [5] * P, [6] * M)
    moves = np.zeros(m, dtype=np.int32)
    orders = [
        initiative.initiative_order([int(r) + 5 for r in row[:P]], [int(r) + 6 for r in row[P:]])
        for row in rolls
    ]
    for _ in range(12):
        size = int(g.integers(1, 2 * m))
        i = g.integers(0, m, size=size)
        k = g.integers(0, P, size=size)
        j = g.integers(0, M, size=size)
        pairs = {}
        for n, (a, b) in enumerate(zip(i, k)):  # one entry per (track, PC) in a call
            pairs.setdefault((int(a), int(b)), n)
        keep = np.array(sorted(pairs.values()))
        i, k, j = i[keep], k[keep], j[keep]
        initiative.move_keys(keys, moves, i, k, P + j)
        for a, b, c in zip(i, k, j):
            orders[a] = initiative.move_before(orders[a], int(b), int(c))
    for key, order in zip(keys, orders):
        by_key = [("pc", c) if c < P else ("monster", c - P) for c in np.argsort(-key)]
        assert by_key == order


def test_move_before_puts_the_later_knockout_right_before_the_monster():
    order = [("monster", 0), ("pc", 0), ("pc", 1), ("pc", 2)]
    order = initiative.move_before(order, 2, 0)
    order = initiative.move_before(order, 1, 0)
    assert order == [("pc", 2), ("pc", 1), ("monster", 0), ("pc", 0)]


def test_pc_first_chance_counts_every_pair_of_rolls():
    want = (
        sum(
            initiative.initiative_order([a + 4 - 1], [b + 5])[0] == ("pc", 0)
            for a in range(1, 21)
            for b in range(1, 21)
        )
        / 400
    )
    assert float(initiative.pc_first_p(4, 5, -1)) == want


def test_r003_two_knockouts_by_one_monster():
    """The issue's case: P(defeat) was 0.7955 with the moves ordered by party index; an
    independent simulator of R0-03 as written gets 0.772."""
    n = 40_000
    r = Party(
        level=3, party="fighter,cleric", monsters="5", heal_below=0, area_chance=0, hero_policy=2
    )
    p = simkit.simulate(r, n, 7).probabilities["defeat"]
    assert within_se(p, 0.772, n)
    assert abs(p - 0.7955) > 5 * standard_error(0.7955, n)


# -- the check penalty on every d20 a PC rolls (P-10) ----
def test_check_penalty_moves_the_exact_duel():
    ps = [solve(Party(party="fighter", level=2, check_penalty=c))["defeat"] for c in (0, -5, -10)]
    assert ps[0] < ps[1] < ps[2], ps


def test_check_penalty_duel_agrees_with_monte_carlo():
    assert_agrees_with_exact(
        Party(party="rogue", level=2, check_penalty=-6, hero_points=0), 20000, 9
    )


def test_check_penalty_slows_initiative_and_strikes_in_the_kernel():
    base = Party(party="fighter,fighter", level=4, area_chance=0)
    n = 20_000
    p0 = simkit.simulate(base, n, 3).probabilities["defeat"]
    p1 = simkit.simulate(
        Party(party="fighter,fighter", level=4, area_chance=0, check_penalty=-8), n, 3
    ).probabilities["defeat"]
    assert p1 - p0 > 5 * standard_error(max(p0, p1), n)


# -- the new options, kernel = reference ----
@pytest.mark.parametrize(
    "params",
    [
        dict(
            party="fighter,rogue,cleric,wizard",
            level=3,
            threat="severe",
            target_downed="always",
            downed_pick="random",
            first_aid_natural=True,
            check_penalty=-3,
        ),
        dict(
            party="cleric,cleric,fighter",
            level=6,
            threat="extreme",
            target_downed="sometimes",
            downed_pick="random",
            monster_target="weakest",
            area_chance=1.0,
            area_uses=2,
        ),
        dict(
            party="fighter,cleric",
            level=3,
            monsters="5",
            heal_below=0,
            area_chance=0,
            hero_policy=2,
            first_aid_natural=True,
        ),
        dict(
            party="rogue,cleric,wizard",
            level=9,
            threat="extreme",
            rules="seed001",
            first_aid_natural=True,
            target_downed="always",
            downed_pick="random",
        ),
        dict(
            party="fighter,wizard,cleric",
            level=2,
            lineup="pack",
            threat="severe",
            area_chance=1.0,
            rules="pf2e-core",
            check_penalty=-4,
        ),
    ],
)
def test_loop_equals_reference_with_the_fight_options(params):
    loop_vs_ref(Party(**params), 150, 13)


def test_downed_pick_random_spreads_the_blows_over_the_downed():
    """The monsters strike the first PC to fall (``focus``) and, sometimes, a downed one:
    with ``downed_pick=first`` it is always PC 0, with ``random`` any downed PC (AP-3)."""
    kw = dict(
        party="fighter,fighter,fighter,fighter",
        level=1,
        threat="extreme",
        lineup="pack",
        target_downed="sometimes",
        downed_chance=0.3,
        after_defeat="captured",
        area_chance=0,
        rules="pf2e-core",
        monster_target="focus",
    )
    n = 40_000

    def deaths(pick: str) -> list[float]:  # P(PC 0 dies), P(another dies): dead_mask's masks
        hist = simkit.simulate(Party(**kw, downed_pick=pick), n, 2).marks["dead_mask"]
        masks = np.arange(hist.shape[1])
        return [float((hist * (masks & 1)).sum()) / n, float((hist * (masks > 1)).sum()) / n]

    first, rand = deaths("first"), deaths("random")
    for b, sign in ((0, 1), (1, -1)):  # PC 0 dies less often, the others more, when random
        se = np.sqrt(first[b] * (1 - first[b]) / n + rand[b] * (1 - rand[b]) / n)
        assert sign * (first[b] - rand[b]) > 5 * se, (b, first, rand)


# -- first aid's natural 20 / 1 (AP-4) and the wake-up (R1-07) ----
def test_first_aid_natural_moves_the_degree():
    assert first_aid.first_aid_succeeds(1, bonus=20, dc=15)  # 21: a success, one step down
    assert not first_aid.first_aid_succeeds(1, bonus=20, dc=15, natural=True)
    assert first_aid.first_aid_succeeds(1, bonus=30, dc=15, natural=True)  # 31: a critical
    assert not first_aid.first_aid_succeeds(20, bonus=-6, dc=15)
    assert first_aid.first_aid_succeeds(20, bonus=-6, dc=15, natural=True)
    assert first_aid.first_aid_p(bonus=5, dc=15) == first_aid.first_aid_p(
        bonus=5, dc=15, natural=True
    )
    table = first_aid.first_aid_table(bonus=2, check_penalty=-1, natural=True)
    assert [bool(x) for x in table] == [
        first_aid.first_aid_succeeds(r, bonus=2, check_penalty=-1, natural=True)
        for r in range(1, 21)
    ]


def test_wake_up_phase_is_the_reference():
    g = np.random.default_rng(1)
    res = g.choice([hourly.DEAD, hourly.STAYS, hourly.STAYS, hourly.AWAKE], size=(400, 8))
    for checks in (7, 8):
        died, hp, hours = hourly.wake_up_phase(res, checks, 6)
        for row, d, h, t in zip(res, died, hp, hours):
            result, hp_ref, hours_ref = hourly.wake_up(row, checks, 6)
            assert (bool(d), int(h), int(t)) == (result == hourly.DEAD, hp_ref, hours_ref)
    assert hourly.wake_up([hourly.STAYS] * 8, 8, 6) == (hourly.AWAKE, 6, 8)


def test_an_explicit_lineup_is_judged_for_the_party_it_meets():
    """80 XP of level-5 creatures is a moderate fight for four level-5 PCs, and more for two."""
    four = Party(monsters="5,5").fighters.lineup
    two = Party(party="fighter,cleric", monsters="5,5").fighters.lineup
    assert four.threat == "moderate" and four.n_pcs == 4
    assert two.n_pcs == 2 and two.threat != "moderate"


def test_moves_of_distinct_tracks_take_the_short_way_to_the_same_keys():
    g = np.random.default_rng(8)
    keys = initiative.initiative_keys(g.integers(1, 21, size=(50, 6)), [3] * 3, [4] * 3)
    moves = g.integers(0, 5, size=50).astype(np.int32)
    i = g.permutation(50)[:30]
    k, col = g.integers(0, 3, size=30), 3 + g.integers(0, 3, size=30)
    a_keys, a_moves, b_keys, b_moves = keys.copy(), moves.copy(), keys.copy(), moves.copy()
    initiative.move_keys(a_keys, a_moves, i, k, col)
    initiative.move_keys(b_keys, b_moves, i, k, col, distinct=True)
    assert (a_keys == b_keys).all() and (a_moves == b_moves).all()


def test_the_wake_up_never_passes_max_hp():
    """R1-07's "1 HP per level" after the night, at most the character's max HP (R0-01)."""
    assert hourly.wake_up([hourly.STAYS] * 8, 8, 6, hp_max=4) == (hourly.AWAKE, 4, 8)
    died, hp, _ = hourly.wake_up_phase(np.full((3, 8), hourly.STAYS), 8, 6, np.array([2, 6, 9]))
    assert list(hp) == [2, 6, 6] and not died.any()
    r = Party(
        level=5,
        party="fighter(hp_max=2),fighter(hp_max=3),cleric(heals=0)",
        monsters="1",
        rules="seed001",
        spend="asap",
    )
    final = simkit.simulate(r, 4000, 1, keep_state=True).final
    assert (final.hp <= final.hp_max).all()


def test_a_heal_of_zero_does_not_wake_a_downed_pc():
    """A heal brings a PC at 0 HP back at 1 HP or more (R0-04, R1-03); one that rolls 0
    leaves it down (the reference found the kernel waking it at 0 HP)."""
    loop_vs_ref(
        Party(
            level=4,
            party="fighter,cleric(heal=1d2-1)",
            monsters="6",
            target_downed="always",
            heal_below=1.0,
        ),
        150,
        3,
    )


def test_without_monsters_each_track_ends_on_its_own():
    """A track with every PC up ends at once, whatever the other tracks of its block (the
    reference found the kernel deciding it for the whole block)."""
    from simkit.core.params import ParamError
    from simkit.models.fight_state import FightStart

    r = Party(level=3, party="fighter,fighter", xp_budget=0)
    zeros = np.zeros((2, 2), dtype=int)
    kw = dict(
        hp_max=np.full((2, 2), 30),
        hero=zeros,
        slots=zeros,
        heals=zeros,
        pp=zeros,
        wounded=zeros,
        check_penalty=np.zeros(2, dtype=int),
    )
    start = FightStart(
        hp=np.array([[30, 30], [0, 30]]), dead=np.array([[False, False], [True, False]]), **kw
    )
    hist = simkit.simulate(r, 2, 1, start=start).hist
    assert hist[r.outcomes.index("victory"), 0] == 1  # the first track, at step 0
    assert hist[:, 1:].sum() == 1  # the other, with a PC dead, in round 1
    with pytest.raises(ParamError, match="a dead PC has hp 0"):
        FightStart(hp=np.full((2, 2), 30), dead=np.array([[False, False], [True, False]]), **kw)


# -- each monster's own area effect (AP-10, AP-15) --------------------------------------------
def test_a_creature_without_an_area_ability_never_spends_a_turn_on_one():
    """A loaded boar has no area ability (area_uses=0): the fight is the one where no
    monster ever uses an area effect, draw for draw."""
    boar = simkit.simulate(Party(level=2, monsters="boar,boar"), 20_000, 4)
    none = simkit.simulate(Party(level=2, monsters="boar,boar", area_chance=0), 20_000, 4)
    assert (boar.hist == none.hist).all()
    assert Party(level=2, monsters="boar").area_uses_of == (0,)


def test_each_monster_has_its_own_area_uses_and_chance():
    r = Party(level=2, monsters="air-scamp,arbiter,boar,2", area_chance=0.3, area_uses=2)
    assert r.area_uses_of == (10, 1, 0, 2)
    assert r.area_chance_of[1:] == (0.3, 0.3, 0.3) and 0 < r.area_chance_of[0] < 1
    loop_vs_ref(r, 200, 21)
    loop_vs_ref(
        Party(level=1, party="fighter,wizard", monsters="air-scamp,air-scamp(area_chance=1)"),
        150,
        2,
    )


def test_a_duel_with_a_recharging_creature_agrees_with_monte_carlo():
    r = Party(level=1, party="fighter", monsters="air-scamp", hero_points=0)
    assert r.has_exact and r.area_chance_of[0] != r.area_chance
    assert_agrees_with_exact(r, 20_000, 12)
