"""The exact duels with the readings of issue 31 item 3 (AP-38) and the day duel with R0-08's
wake-up (AP-39): each held to Monte Carlo (the compiled loop) within 5 SE, the grid held
to the state-by-state chain, and each moving P(defeat) the way the text says, or not at
all where a duel leaves the reading nothing to do."""

from __future__ import annotations

import numpy as np
import pytest

import simkit
from simkit.core.exact import build_chain, propagate
from simkit.models.day import Day
from simkit.models.duel_grid import duel_hist
from simkit.models.party import Party
from simkit.models.party_duel import duel_states, wounds
from simkit.testing import assert_agrees_with_exact

_S001 = dict(party="fighter", level=3, threat="severe", rules="seed001")


def _defeat(m) -> float:
    return float(m.exact_hist()[list(m.outcomes).index("defeat")].sum())


# -- A1-11 and A1-10: nothing to do in a duel ---------------------------------------------------
@pytest.mark.parametrize(
    ("base", "option"),
    [
        (dict(_S001, target_downed="always"), dict(agony_damage="pp")),
        (dict(_S001, target_downed="always"), dict(agony_damage="crit_kills")),
        (dict(_S001, target_downed="always", zero_pp="end_of_turn"), dict(agony_damage="pp")),
        (_S001, dict(wake_restores="all")),
        (dict(_S001, hp=3, pe_damage="hp_only"), dict(wake_restores="all")),
    ],
    ids=["pp", "crit_kills", "pp-zero_pp", "wake_restores", "wake_restores-hp3"],
)
def test_a_reading_a_duel_leaves_nothing_to_do_is_solved_and_inert(base, option):
    """A1-11 (a hit on an agonising PC) and A1-10 (what R1-07's wake-up gives): a lone PC's
    knock-out is a defeat at once (AP-9: no strike at it, no night after), so the exact duel
    under the reading is the default's, every round, and both are Monte Carlo's within 5 SE
    (the loop under the reading: the same fights, on the same dice)."""
    off, on = Party(**base), Party(**{**base, **option})
    assert on.has_exact and on.exact_refusal is None
    np.testing.assert_array_equal(on.exact_hist(), off.exact_hist())
    res = assert_agrees_with_exact(on, 20_000, 3200)
    np.testing.assert_array_equal(res.hist, simkit.simulate(off, 20_000, rng=3200).hist)


def test_the_day_duel_takes_the_seed001_readings_where_they_are_inert():
    """Under seed000 (the day duel's rules) A1-10 and A1-11 have no agonising PC to read:
    the day duel takes them, its answer the default's, and Monte Carlo's."""
    base = dict(level=2, party="fighter", plan="severe, short_rest, severe", hero_points=1)
    day = Day(**base, agony_damage="crit_kills", wake_restores="all")
    assert day.has_exact
    np.testing.assert_array_equal(day.exact_hist(), Day(**base).exact_hist())
    assert_agrees_with_exact(day, 20_000, 3201)


# -- AP-35 with A0-9: a monster's effect that gives dying ---------------------------------------
EFFECT = [
    dict(party="fighter", level=1, dying_effect=0.4, hero_points=2, xp_budget=20),
    dict(party="fighter", level=1, dying_effect=0.4, hero_points=2, xp_budget=20,
         dying_above_0="drop"),  # fmt: skip
    dict(party="rogue", level=1, rules="pf2e-core", dying_effect=0.5, xp_budget=20),
    dict(party="wizard", level=1, rules="pf2e-core", dying_effect=0.5, xp_budget=20,
         area_uses=1, area_chance=0.3),  # fmt: skip
    dict(party="fighter", level=1, dying_effect=0.4, hero_points=2, xp_budget=20,
         wounded_rule=True, hero_policy=2, area_chance=0.5),  # fmt: skip
    dict(party="fighter", level=1, dying_effect=0.4, hero_points=2, xp_budget=20,
         wounded_rule=True, hero_policy=2, dying_above_0="drop", death_at=3),  # fmt: skip
]


@pytest.mark.parametrize("params", EFFECT, ids=[str(i) for i in range(len(EFFECT))])
def test_the_dying_effect_on_the_grid_is_the_chain_s(params):
    """AP-38: the dying effect (``keep_hp``: the wounded value as the mark, A0-2; ``drop``:
    a knock-out a hero point may undo) on the grid = the state-by-state chain, every round."""
    r = Party(**params)
    assert duel_states(r) <= 50_000
    chain = propagate(r, build_chain(r))
    np.testing.assert_allclose(duel_hist(r), chain.hist, rtol=0, atol=1e-13)


@pytest.mark.parametrize("rules", ["seed000", "pf2e-core"])
@pytest.mark.parametrize("level", [2, 6])
def test_the_dying_effect_is_monte_carlo_s_and_drop_is_deadlier(rules, level):
    """AP-35, A0-9 in the exact duel: both readings = Monte Carlo within 5 SE, and ``drop``
    (a knock-out: a defeat unless a hero point undoes it) deadlier than ``keep_hp`` (the PC
    keeps its HP: dead only at its death value)."""
    base = dict(party="fighter", level=level, threat="severe", rules=rules, dying_effect=0.4,
                hero_points=1, hero_policy="immediately")  # fmt: skip
    seed = 3210 + 10 * level + (rules == "pf2e-core")
    keep, drop = Party(**base), Party(**base, dying_above_0="drop")
    for i, m in enumerate((keep, drop)):
        assert m.has_exact
        assert_agrees_with_exact(m, 20_000, seed + 2 * i)
    assert _defeat(drop) > _defeat(keep) + 0.02


def test_the_wounded_value_a_kept_dying_effect_leaves_counts():
    """``keep_hp`` under pf2e-core's wounded rule (A0-2): each failed save adds wounded 1, and
    the next one's dying value with it, so a fourth failure kills (R0-04): the grid carries
    the wounded value (4 values at death_at 4), exact = Monte Carlo, and the answer is well
    above the same duel without the wounded rule."""
    base = dict(party="rogue", level=6, threat="extreme", rules="pf2e-core", dying_effect=0.8)
    on, off = Party(**base), Party(**base, wounded_rule=False)
    assert wounds(on) == 4 and wounds(off) == 1
    assert_agrees_with_exact(on, 20_000, 3230)
    assert_agrees_with_exact(off, 20_000, 3231)
    n, p = 20_000, _defeat(off)
    assert _defeat(on) > p + 10 * np.sqrt(p * (1 - p) / n)


def test_the_day_hands_on_the_wounded_value_a_dying_effect_leaves():
    """A day duel under pf2e-core whose monsters use the dying effect: the wounded value a
    fight leaves (``keep_hp``, A0-2) is the next fight's (no rest between, no full HP: it
    adds up over the day); exact = Monte Carlo within 5 SE (the same day with each fight
    starting unwounded gives 0.0040 against 0.0360, 24 SE away)."""
    day = Day(level=3, party="rogue", plan="moderate, moderate, moderate", rules="pf2e-core",
              dying_effect=0.8)  # fmt: skip
    assert day.has_exact
    assert_agrees_with_exact(day, 20_000, 3240)


@pytest.mark.parametrize(
    ("model", "params", "why"),
    [
        ("party", dict(party="fighter", dying_effect=0.5, slowed=True), "slowed=true"),
        (
            "party",
            dict(party="fighter", dying_effect=0.5, dying_above_0="drop", temp_hp=3),
            "temporary HP",
        ),
        ("day", dict(party="fighter", plan="severe", dying_effect=0.5, slowed=True), "slowed"),
    ],
)
def test_what_the_dying_effect_leaves_refused_says_why_in_one_line(model, params, why):
    from test_duel_seed_rules import assert_refused_in_one_line

    assert_refused_in_one_line(model, params, why)


# -- R0-08's wake-up in the day duel ------------------------------------------------------------
@pytest.mark.parametrize(
    ("wake_after", "plan", "moves"),
    [
        ("hour", "fall(10), short_rest, severe", True),
        ("ten_minutes", "fall(10), short_rest(once), moderate", True),
        ("hour", "fall(10), short_rest(once), moderate", False),  # (ten minutes: too short)
        ("hour", "fall(10), no_sleep, moderate", True),
    ],
)
def test_the_day_duel_wakes_a_stable_pc_after_wake_after(wake_after, plan, moves):
    """R0-08 (AP-39): a PC stable at 0 HP after a fall wakes at 1 HP at the end of a step at
    least ``wake_after`` long; exact = Monte Carlo within 5 SE, and P(defeat) falls below
    the default's (``long_rest``: the stable PC loses the next fight) where the step is
    long enough, and stays the default's where it is not."""
    base = dict(level=2, party="fighter", plan=plan, hero_points=1)
    day, default = Day(**base, wake_after=wake_after), Day(**base)
    assert day.has_exact
    assert_agrees_with_exact(day, 20_000, 3250 + len(plan))
    if moves:
        assert _defeat(day) < _defeat(default) - 0.05
    else:
        np.testing.assert_array_equal(day.exact_hist(), default.exact_hist())


def test_the_day_s_fights_read_the_wounded_value_its_falls_leave():
    """Under seed000 with the wounded rule (A0-2) the care after a fall leaves the PC
    wounded, and a later fight's knock-out adds it: dying 2 reaches a hero threshold of 2
    (R0-10) that dying 1 does not, so the point revives the PC. The day's fights carry the
    value as the grid's mark (AP-38; before, they read 0: 0.5160 against Monte Carlo's
    0.4585 on 40,000 days). Exact = Monte Carlo within 5 SE."""
    day = Day(level=2, party="fighter", plan="fall(8), fall(8), severe", hero_points=3,
              hero_policy=2, wounded_rule=True)  # fmt: skip
    assert day.has_exact and wounds(day.fight_rules(day.steps[2])) == 4
    assert_agrees_with_exact(day, 20_000, 3260)


def test_a_day_s_fight_with_the_dying_effect_from_wounded_starts_is_the_chain_s():
    """The day's fight on the grid from carried states of several wounded values (each at
    its mark, AP-38; pf2e-core's wounded rule, ``keep_hp``) = each start's state-by-state
    chain (:func:`simkit.models.party_duel.duel_step`), the end states and their wounded
    values included, and the value a fight leaves differs from the one it started with."""
    from collections import defaultdict

    from simkit.models.day_duel import _fight, _fight_rules
    from simkit.models.day_plan import FightStep
    from simkit.models.party_duel import duel_initial, duel_step

    day = Day(level=1, party="rogue", plan="moderate", rules="pf2e-core", dying_effect=0.7)
    r = _fight_rules(day, next(s for s in day.steps if isinstance(s, FightStep)))
    assert wounds(r) == 4
    hp = r.fighters.pcs[0].hp
    dist = {(hp, 1, 0, 0): 0.4, (hp - 4, 1, 0, 1): 0.3, (6, 0, 0, 2): 0.2, (hp, 0, 0, 5): 0.1}
    got, lost = _fight(r, dist)
    want: dict = defaultdict(float)
    want_lost = 0.0
    for (h, he, s, w), p0 in dist.items():
        chain = {k: p0 * q for k, q in duel_initial(r, (h, he, s, min(w, 3))).items()}
        for _ in range(r.max_rounds):
            if sum(chain.values()) <= 1e-18:
                break
            nxt: dict = defaultdict(float)
            for state, p in chain.items():
                for key, q in duel_step(r, state, 1, ends=True).items():
                    if key == "defeat":
                        want_lost += p * q
                    elif key[0] == "victory":
                        (v, m), he2, s2 = key[1:]
                        want[(v, he2, s2, int(m) if w < 3 else w)] += p * q
                    else:
                        nxt[key] += p * q
            chain = nxt
    assert lost == pytest.approx(want_lost, abs=1e-12)
    assert set(got) == {k for k, p in want.items() if p > 0}
    for k, p in want.items():
        assert got.get(k, 0.0) == pytest.approx(p, abs=1e-12), k
    assert sum(p for (_, _, _, w), p in got.items() if w == 3) > 0.02  # (none starts at 3)


# -- AP-37's grant of temporary HP, state by state (AP-31) --------------------------------------
@pytest.mark.slow  # (the chain state by state: 3-8 s each)
@pytest.mark.parametrize(
    "params",
    [
        dict(party="fighter(grant_temp_hp=6)"),
        dict(party="fighter(grant_temp_hp=6)", temp_hp=3, temp_keep="old"),
        dict(party="fighter(grant_temp_hp=6)", temp_hp=3, temp_keep="new"),
        dict(party="fighter(grant_temp_hp=4;grant_uses=2)", hero_points=1, xp_budget=30),
    ],
    ids=["larger", "old", "new", "two-uses"],
)
def test_a_grant_to_itself_is_solved_state_by_state_and_is_monte_carlo_s(params):
    """AP-31, AP-37: a lone PC's grant of temporary HP (AP-37) goes to itself, in place of its
    strikes, whenever it adds some under ``temp_keep`` (R0-14): the state-by-state chain
    (the grid refuses it: the PC's turn on its own HP) = Monte Carlo within 5 SE, and the
    answer moves from the same duel without the grant (the turn it spends not striking, the
    temporary HP it gains); ``old`` with temporary HP held grants nothing until they are
    gone."""
    base = dict(level=1, threat="severe", **params)
    r = Party(**base)
    assert r.has_exact and r.exact_refusal is None
    with pytest.raises(NotImplementedError, match="state by state"):
        duel_hist(r)
    assert_agrees_with_exact(r, 20_000, 3270 + len(str(params)))
    plain = Party(**{**base, "party": "fighter"})
    n, p = 20_000, _defeat(plain)
    assert abs(_defeat(r) - p) > 5 * np.sqrt(p * (1 - p) / n)


def test_a_grant_too_large_to_solve_state_by_state_is_refused_in_one_line():
    """AP-31: past :data:`GRANT_MAX_STATES` (a bound on the chain's states) the grant's duel
    is refused at once, in one line with its state count; the day duel refuses a grant (its
    fights are on the grid)."""
    from simkit.models.party_duel import GRANT_MAX_STATES

    r = Party(level=3, threat="severe", party="fighter(grant_temp_hp=8)")
    assert r.has_exact and duel_states(r) > GRANT_MAX_STATES
    with pytest.raises(simkit.core.exact.ExactTooLarge, match="grant of temporary HP") as err:
        simkit.solve(r)
    assert "\n" not in str(err.value)
    day = Day(level=1, party="fighter(grant_temp_hp=5)", plan="severe")
    assert not day.has_exact and "grant_temp_hp" in day.exact_refusal


@pytest.mark.slow  # (the chain state by state: 3-8 s each)
@pytest.mark.parametrize(
    "params",
    [
        dict(party="fighter(grant_temp_hp=5)", xp_budget=30, rules="seed001"),
        dict(party="wizard(grant_temp_hp=4)", threat="severe"),
    ],
    ids=["seed001-pe", "wizard-slots"],
)
def test_a_grant_with_stamina_or_spell_slots_is_monte_carlo_s(params):
    """The grant's state keeps its temporary HP apart from HP + PE (seed 001: damage takes
    temporary HP, then PE, then HP, A1-5) and a wizard's turn spent on it keeps its slot:
    the chain = Monte Carlo within 5 SE."""
    r = Party(level=1, **params)
    assert r.has_exact
    assert_agrees_with_exact(r, 20_000, 3280 + len(str(params)))
