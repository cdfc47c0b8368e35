"""R0-14 in fights, whole (issue 31): a PC's grant of temporary HP (``grant_temp_hp``,
``grant_uses``) and "one source at a time" (``temp_keep``, AP-37).

The rule (:mod:`simkit.rules.temp_hp`) on every case; the loop's grant phase
(:mod:`simkit.fight.grant`) and the reference's (:mod:`simkit.models.party_ref_seeds`) on
the same crafted states; the loop = the reference track by track; the grant lowers the
party's deaths beyond 5 standard errors; the day's fights take it; the exact duel does not.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_fight_seed_rules import _loop, _reference

import simkit
from simkit.core.params import ParamError
from simkit.fight import tables
from simkit.fight.grant import grant as loop_grant
from simkit.fight.state import COND, DEAD, GRANTS, TEMP, UP, pc, width
from simkit.models import party_ref
from simkit.models import party_ref_seeds as seeds
from simkit.models.party import Party
from simkit.rules.temp_hp import TEMP_KEEP, kept_temp


# -- the rule ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "old, new, larger, keep_old, keep_new",
    [
        (0, 10, 10, 10, 10),  # none held: the new ones under every reading
        (3, 10, 10, 3, 10),  # old < new
        (12, 10, 12, 12, 10),  # old > new
        (10, 10, 10, 10, 10),
        (4, 0, 4, 4, 0),
    ],
)
def test_the_keep_rule_on_every_case(old, new, larger, keep_old, keep_new):
    """R0-14, AP-37: the larger amount, the old ones while any remain, or the new ones."""
    got = [kept_temp(old, new, k) for k in TEMP_KEEP]
    assert got == [larger, keep_old, keep_new]


def test_the_keep_rule_refuses_bad_input():
    with pytest.raises(ValueError, match="keep must be one of larger, old, new"):
        kept_temp(1, 2, "best")
    with pytest.raises(ValueError, match=">= 0"):
        kept_temp(-1, 2)
    with pytest.raises(ParamError, match="temp_keep"):
        Party(temp_keep="best")
    with pytest.raises(ParamError, match=r"grant_uses must be an integer in \[1, 20\]"):
        Party(party="cleric(grant_temp_hp=5;grant_uses=0)")
    with pytest.raises(ParamError, match=r"grant_temp_hp must be an integer in \[0, 10000\]"):
        Party(party="cleric(grant_temp_hp=-1)")


# -- the grant phase, loop and reference, on crafted states ------------------------------
PARTY = "fighter,rogue,cleric(grant_temp_hp=10;grant_uses=2),wizard"


def _both(keep: str, temps, conds=None, acts=2, grants=2):
    """The cleric's grant on a crafted state, by the loop's phase and by the reference's:
    ``(granted, temps after, grants left)`` of each."""
    r = Party(party=PARTY, temp_keep=keep)
    conds = conds or ["up"] * 4
    code = {"up": UP, "dead": DEAD}
    T = tables.pack(tables.build(r))
    S = np.zeros(width(4, len(r.fighters.monsters)), dtype=np.int64)
    for k in range(4):
        S[pc(k, TEMP)], S[pc(k, COND)] = temps[k], code[conds[k]]
    S[pc(2, GRANTS)] = grants
    did = bool(loop_grant(S, T, 2, acts))
    loop = (did, [int(S[pc(k, TEMP)]) for k in range(4)], int(S[pc(2, GRANTS)]))
    fight = party_ref._Fight(r, party_ref.new_track(r, [10] * 5), {})
    pcs = fight.tr["pcs"]
    for k in range(4):
        pcs[k].update(temp=temps[k], cond=conds[k])
    pcs[2]["grants"] = grants
    did = seeds.grant(fight, 2, acts)
    ref = (did, [p["temp"] for p in pcs], pcs[2]["grants"])
    return loop, ref


@pytest.mark.parametrize(
    "keep, temps, want",
    [
        # old < new on the PC holding the fewest: larger and new take the new ones; under
        # old a grant adds nothing to a PC holding some, so it goes to one holding none
        ("larger", [3, 5, 0, 6], [3, 5, 10, 6]),
        ("larger", [3, 5, 4, 6], [10, 5, 4, 6]),
        ("new", [3, 5, 4, 6], [10, 5, 4, 6]),
        ("old", [3, 5, 4, 6], None),  # every PC holds some: no grant
        ("old", [3, 0, 4, 6], [3, 10, 4, 6]),
        # old > new everywhere: nothing to add under any reading
        ("larger", [12, 11, 15, 20], None),
        ("new", [12, 11, 15, 20], None),
        ("old", [12, 11, 15, 20], None),
        # ties: the first in the party's order
        ("larger", [2, 2, 2, 2], [10, 2, 2, 2]),
    ],
)
def test_a_grant_goes_where_the_keep_rule_adds_most(keep, temps, want):
    loop, ref = _both(keep, temps)
    assert loop == ref
    if want is None:
        assert loop == (False, temps, 2)
    else:
        assert loop == (True, want, 1)


def test_a_grant_needs_its_two_actions_a_use_and_a_conscious_target():
    assert _both("larger", [0, 0, 0, 0], acts=1)[0] == (False, [0, 0, 0, 0], 2)  # slowed
    assert _both("larger", [0, 0, 0, 0], grants=0)[0] == (False, [0, 0, 0, 0], 0)
    loop, ref = _both("larger", [0, 0, 5, 0], conds=["dead", "dead", "up", "dead"])
    assert loop == ref == (True, [0, 0, 10, 0], 1)  # itself, the only one up


# -- in the fight ----------------------------------------------------------------------------
#: A cleric without heals that grants 13 temporary HP three times a fight (its turns: first
#: aid first, then a grant, then strikes).
GRANTER = "fighter,rogue,cleric(heals=0;grant_temp_hp=13;grant_uses=3),wizard"
CASES = [
    dict(level=5, threat="severe", party=GRANTER.replace("heals=0;", "")),
    dict(level=5, threat="severe", temp_hp=5, temp_keep="old", party=GRANTER),
    dict(level=5, threat="severe", temp_hp=5, temp_keep="new",
         party="fighter(grant_temp_hp=8;grant_uses=2),rogue,cleric,wizard(grant_temp_hp=20)"),
    dict(level=3, threat="extreme", rules="seed001", temp_keep="old",
         party="fighter(temp_hp=6),rogue,cleric(grant_temp_hp=9;grant_uses=4)"),
    dict(level=4, threat="extreme", rules="pf2e-core", slowed=True, hero_points=2,
         party="fighter,cleric(grant_temp_hp=12;grant_uses=2),wizard(grant_temp_hp=6)"),
]  # fmt: skip


@pytest.mark.parametrize("i", range(len(CASES)))
def test_the_grant_on_the_loop_is_the_reference_track_by_track(i):
    rules = Party(**CASES[i])
    assert rules.seed_rules_on and not rules.has_exact
    keys = (np.arange(1, 121, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) ^ np.uint64(37 + i)
    loop = _loop(rules, keys)
    for t, key in enumerate(keys):
        want = _reference(rules, int(key) >> 1)
        assert loop[t] == want, (CASES[i], t, loop[t], want)
    plain = {**CASES[i], "party": CASES[i]["party"].replace("grant_temp_hp", "temp_hp")}
    assert loop != _loop(Party(**plain), keys)  # the grant changes some of these tracks


def test_old_and_larger_differ_and_new_is_larger_under_the_tactic():
    """AP-37: with a pool of temporary HP on every PC, ``old`` holds a grant back until a PC
    has lost its pool, ``larger`` gives it at once: some tracks differ. The tactic grants
    only where the grant adds temporary HP, so ``new`` plays as ``larger`` (old < new
    wherever a grant is made)."""
    fight = dict(level=5, threat="severe", temp_hp=5, party=GRANTER)
    keys = (np.arange(1, 201, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) ^ np.uint64(7)
    larger = _loop(Party(**fight), keys)
    assert larger != _loop(Party(**fight, temp_keep="old"), keys)
    assert larger == _loop(Party(**fight, temp_keep="new"), keys)


def _deaths(rules: Party, n: int, rng: int) -> tuple[float, float]:
    p = float(simkit.simulate(rules, n, rng=rng)["any_death"])
    return p, (p * (1 - p) / n) ** 0.5


def test_a_clerics_grant_lowers_the_partys_deaths():
    """R0-14: a cleric without heals spends its turns on temporary HP for the party rather
    than on its strikes: fewer deaths, beyond 5 standard errors (independent runs)."""
    n = 40000
    plain = GRANTER.replace(";grant_temp_hp=13;grant_uses=3", "")
    a, sa = _deaths(Party(level=5, threat="severe", party=plain), n, 1)
    b, sb = _deaths(Party(level=5, threat="severe", party=GRANTER), n, 2)
    assert (b - a) / (sa**2 + sb**2) ** 0.5 < -5


def test_off_by_default_and_the_exact_duel_solves_it_state_by_state():
    """AP-37, AP-31: the exact duel takes a grant state by state (tests/test_duel_readings.py
    holds it to Monte Carlo), refused in one line past its bound on the chain's states."""
    base = Party()
    assert base.temp_keep == "larger"
    assert all(p.grant_temp_hp == 0 and p.grant_uses == 1 for p in base.fighters.pcs)
    assert not base.seed_rules_on
    duel = dict(party="fighter", lineup="boss", threat="moderate")
    assert Party(**duel).has_exact and Party(**duel, temp_keep="old").has_exact
    granted = Party(**{**duel, "party": "fighter(grant_temp_hp=5)"})
    assert granted.has_exact and granted.exact_refusal is None
    with pytest.raises(ParamError, match="grant of temporary HP"):
        simkit.solve(granted)  # (level 5: past GRANT_MAX_STATES)


def test_the_days_fights_take_the_grant_track_by_track():
    """A day's fights are party fights with the day's party text: each fight gives the PCs
    their grants again (``grant_uses`` a fight); the day on the loop = its replay."""
    from test_day_replay import assert_days_replay

    from simkit.models.day import Day

    plan = "severe, short_rest, severe, long_rest, moderate"
    params = dict(plan=plan, level=5, party=GRANTER)
    n = 100
    rules = Day(**params)
    res = assert_days_replay(rules, n, 5)
    plain = {**params, "party": GRANTER.replace(";grant_temp_hp=13;grant_uses=3", "")}
    base = simkit.simulate(Day(**plain), n, 5, keep_outcomes=True)
    assert (base.track_outcomes != res.track_outcomes).any() or any(
        (base.track_marks[m] != res.track_marks[m]).any() for m in rules.marks
    )


def test_the_exact_day_duel_refuses_what_it_does_not_play():
    """The exact day duel plays no grant of temporary HP: a day with one has no exact answer
    (the Monte Carlo answers it), where it used to be solved without it. A pool of temporary
    HP, PF2e's options and a PC's own parameterised track it plays (AP-31, AP-32:
    tests/test_duel_seed_rules.py, tests/test_duel_custom.py)."""
    from simkit.models.day import Day

    plan = dict(plan="severe, severe", level=2)
    assert Day(party="fighter", **plan).has_exact
    assert not Day(party="fighter(grant_temp_hp=20;grant_uses=3)", **plan).has_exact
    for party in ("fighter(temp_hp=30)", "fighter(diehard=true)", "fighter(dying=dnd5e(bonus=2))"):
        assert Day(party=party, **plan).has_exact, party
    with pytest.raises(ParamError, match="no exact solver"):
        simkit.solve(Day(party="fighter(grant_temp_hp=20)", **plan))
