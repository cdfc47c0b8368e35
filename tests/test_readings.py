"""The last readings of the seeds, named and priced (issue 31 item 3).

A1-11 (``agony_damage``: a hit on an agonising PC), A1-10 (``wake_restores``: what R1-07's
wake-up gives), AP-35 with A0-9 (``dying_effect``: a monster's effect that gives dying
directly; ``dying_above_0``: a PC above 0 HP keeps its HP or drops) and the price of A1-12
(``back_again``). For each: the rule's scalar reference, the loop = the party's reference
track by track (and the day's), the default = today's fight (the pinned hashes of
tests/test_fight_loop_pinned.py hold it too), and the reading moves the number it should,
in the direction the text implies, beyond 5 standard errors of the paired difference at a
fixed seed.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from test_day_ref import loop_vs_ref as day_loop_vs_ref
from test_fight_loop_ref import _reference_track, assert_loop_is_reference

import simkit
from simkit import ParamError
from simkit.fight import block, tables, tables_read
from simkit.fight.loop import CARRIED
from simkit.fight.state import PE
from simkit.models import make_model
from simkit.models.party import Party
from simkit.rules import dying_damage, hourly, perseverance, rest

SEED001 = dict(rules="seed001", threat="severe")


# -- the rules' scalar references ---------------------------------------------------------
def test_agony_hit_reference():
    """A1-11: nothing more; 1 PP a hit, dead when the PP fall to 0 (R1-01); dead on a
    critical."""
    for pp in range(0, 6):
        for crit in (False, True):
            assert perseverance.agony_hit(pp, crit) == (False, pp)
            assert perseverance.agony_hit(pp, crit, "pp") == (pp <= 1, max(pp - 1, 0))
            assert perseverance.agony_hit(pp, crit, "crit_kills") == (crit, pp)
    with pytest.raises(ValueError, match="reading='x'"):
        perseverance.agony_hit(3, False, "x")


def test_wake_rest_and_slept_through_reference():
    """A1-10: R1-07's wake-up gives HP only, or every PE and the PP a night gives (A1-7)."""
    assert rest.wake_rest(0, 30, 1, 6) == (0, 1)
    assert rest.wake_rest(0, 30, 1, 6, "all") == (30, 6)
    assert rest.wake_rest(0, 30, 1, 6, "all", pp_back="never") == (30, 1)
    with pytest.raises(ParamError, match="reading"):
        rest.wake_rest(0, 30, 1, 6, "most")
    stays, awake = [hourly.STAYS] * hourly.WAKE_HOURS, hourly.AWAKE
    assert hourly.slept_through(stays, 8)
    assert not hourly.slept_through([awake] + stays[1:], 8)
    assert hourly.slept_through(stays[:7] + [awake], 7)  # (A1-2: the 8th hour not checked)
    assert not hourly.slept_through(stays[:7] + [awake], 8)


def test_dying_given_reference():
    """A0-9: above 0 HP the HP are kept and dying is lost at once, or the HP drop to 0."""
    assert dying_damage.dying_given(12, 2) == (12, 0)
    assert dying_damage.dying_given(12, 2, "drop") == (0, 2)
    assert dying_damage.dying_given(0, 1) == (0, 1)  # (at 0 HP both readings are a knock-out)
    with pytest.raises(ValueError, match="reading"):
        dying_damage.dying_given(5, 1, "both")


# -- options, refusals, defaults ---------------------------------------------------------
def test_defaults_are_todays_fight():
    """At the defaults the loop reads nothing new and draws nothing new."""
    base = Party(**SEED001)
    given = Party(
        **SEED001, agony_damage="none", wake_restores="hp", dying_effect=0.0,
        dying_above_0="keep_hp",
    )  # fmt: skip
    assert given == base and not base.readings_on and base.plan == Party(**SEED001).plan
    head = tables.build(base).reads[: tables_read.N_HEAD - 1]
    assert not head.any()
    # the effect's draws come with it only
    assert {"dying_u", "dying_tgt", "dying_save"} <= {n for n, _, _ in Party(dying_effect=0.2).plan}
    assert not {"dying_u", "dying_tgt", "dying_save"} & {n for n, _, _ in Party().plan}


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(dying_effect=0.3, rules="seed001"), "dying_effect=0.3 .*rules=seed001"),
        (dict(dying_effect=0.3, dying="dnd5e"), "dying_effect=0.3 .*custom track at 0 HP"),
        (dict(dying_effect=1.5), "dying_effect"),
        (dict(agony_damage="half"), "agony_damage"),
        (dict(wake_restores="pe"), "wake_restores"),
        (dict(dying_above_0="sometimes"), "dying_above_0"),
    ],
)
def test_bad_values_are_one_line_refusals(kw, match):
    with pytest.raises(ParamError, match=match) as err:
        Party(**kw)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    "kw",
    [
        dict(rules="seed001", agony_damage="pp"),
        dict(rules="seed001", wake_restores="all"),
        dict(dying_effect=0.3),
        dict(dying_effect=0.3, dying_above_0="drop"),
    ],
)
def test_the_exact_duels_take_the_readings(kw):
    """AP-38: the exact duel takes every reading (tests/test_duel_readings.py holds it to
    Monte Carlo); the day duel too, but seed001's (its fights are seed000 or pf2e-core)."""
    duel = Party(party="fighter", monsters="5", level=5)
    assert duel.replace(**kw).has_exact
    assert isinstance(simkit.solve(duel.replace(**kw)), simkit.ExactResult)
    day = make_model("day", party="fighter", fight="[5]", level=5, **kw)
    if kw.get("rules") == "seed001":
        assert not day.has_exact and "rules=seed001" in day.exact_refusal
    else:
        assert day.has_exact


# -- the loop = the reference, and the reading moves the tracks --------------------------
CASES = [
    dict(level=5, target_downed="always", agony_damage="pp", **SEED001),
    dict(level=4, target_downed="sometimes", agony_damage="crit_kills", zero_pp="end_of_turn",
         rules="seed001", threat="extreme"),
    dict(level=3, agony_damage="pp", target_downed="always", downed_pick="random", spend="asap",
         **SEED001),
    dict(level=5, wake_restores="all", party="fighter,rogue,cleric(heals=0),wizard", **SEED001),
    dict(level=5, wake_restores="all", con_damage=1, checks=7,
         party="fighter,rogue,cleric(heals=0),wizard", **SEED001),
    dict(level=5, threat="severe", dying_effect=0.4),
    dict(level=5, threat="severe", dying_effect=0.4, dying_above_0="drop"),
    dict(level=3, threat="extreme", rules="pf2e-core", dying_effect=0.5,
         wounded_adds="every_hit", target_downed="sometimes"),
    dict(level=5, threat="severe", dying_effect=0.5, slowed=True),
    dict(level=5, threat="severe", dying_effect=0.5, slowed=True, dying_above_0="drop",
         hero_policy="immediately", monsters="6,4,4"),
]  # fmt: skip


def _run(rules: Party, n: int, salt: int):
    keys = (np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) ^ np.uint64(salt)
    return block.run(tables.pack(tables.build(rules)), keys, rules.max_rounds)


@pytest.mark.parametrize("i", range(len(CASES)))
def test_loop_is_the_reference_under_each_reading(i):
    """Every outcome, end step, mark and end field (PE too) of 150 tracks, on the loop and
    on the reference; and the reading changes some tracks from the default's."""
    rules = Party(**CASES[i], engine="loop")
    n, salt = 150, 300 + i
    assert_loop_is_reference(rules, n, salt, CASES[i])
    out, ends = _run(rules, n, salt)
    keys = (np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) ^ np.uint64(salt)
    from simkit.models.party_replay import play

    for t in range(0, n, 10):  # the PE (A1-10's wake-up, AP-17) agree too
        tr = play(rules, int(keys[t]) >> 1)
        assert [int(ends[t, k, CARRIED.index(PE)]) for k in range(rules.n_pcs)] == [
            p["pe"] for p in tr["pcs"]
        ]
    default = dataclasses.replace(rules, agony_damage="none", wake_restores="hp", dying_effect=0.0)
    out0, ends0 = _run(default, n, salt)
    assert not (np.array_equal(out, out0) and np.array_equal(ends, ends0))


@pytest.mark.slow
@pytest.mark.parametrize("i", range(len(CASES)))
def test_loop_is_the_reference_under_each_reading_many(i):
    """The same, on 800 more tracks a case."""
    assert_loop_is_reference(Party(**CASES[i], engine="loop"), 800, 900 + i, CASES[i])


def test_a_replay_logs_the_dying_effect():
    from simkit.models.party_replay import replay

    rules = Party(level=5, threat="severe", dying_effect=0.6, dying_above_0="drop")
    frame = replay(rules, 3, 0)
    assert (frame["action"] == "dying effect").any()
    assert _reference_track(rules, 12345)[0] in (-1, 0, 1, 2, 3)


@pytest.mark.parametrize(
    "params",
    [
        dict(rules="seed001", fights=2, fight="severe", between="none", level=5,
             party="fighter,rogue,cleric(heals=0),wizard", wake_restores="all"),
        dict(rules="seed001", plan="severe, short_rest, severe", level=4,
             party="fighter,rogue,cleric(heals=0)", wake_restores="all", pp_back="never",
             agony_damage="pp", target_downed="sometimes"),
        dict(plan="severe, long_rest, severe", level=5, dying_effect=0.3, dying_above_0="drop",
             rules="pf2e-core"),
    ],
)  # fmt: skip
def test_the_day_is_its_reference_under_the_readings(params):
    counts = day_loop_vs_ref(make_model("day", **params), 40, 11)
    assert sum(counts.values()) == 40


# -- each reading moves its number, beyond 5 paired standard errors -------------------------
def _paired(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Mean and standard error of the per-track difference ``b - a``."""
    d = b.astype(float) - a.astype(float)
    return float(d.mean()), float(d.std(ddof=1) / np.sqrt(len(d)))


def _deaths(model, n: int, seed: int) -> np.ndarray:
    res = simkit.simulate(model, n, seed, positional=True, keep_outcomes=True)
    return res.track_marks["deaths"] > 0


def test_a111_hits_while_agonising_kill_more():
    """A1-11 at level 5, severe, seed001, strikes at the downed half the time: a PP lost a
    hit kills more than nothing (R1-01's PP loss comes sooner), death on a critical more
    still."""
    base = Party(level=5, target_downed="sometimes", **SEED001)
    n = 40_000
    none = _deaths(base, n, 5)
    pp = _deaths(base.replace(agony_damage="pp"), n, 5)
    crit = _deaths(base.replace(agony_damage="crit_kills"), n, 5)
    for other in (pp, crit):
        m, se = _paired(none, other)
        assert m > 5 * se > 0
    assert crit.mean() > pp.mean()


def test_a112_getting_up_again_spends_more_pp():
    """A1-12 (level 1, severe, seed001, back_in_fight, spend=asap): 1 PP for 1 HP on every
    later turn spends more PP than once per stabilisation."""
    base = Party(level=1, back_in_fight=True, spend="asap", **SEED001)
    n = 20_000
    once = simkit.simulate(base, n, 6, positional=True, keep_state=True).final.pp.sum(axis=1)
    again = simkit.simulate(base.replace(back_again=True), n, 6, positional=True, keep_state=True)
    m, se = _paired(once, again.final.pp.sum(axis=1))
    assert m < -5 * se < 0


def test_a110_waking_as_after_a_night_gives_pe_and_pp():
    """A1-10 in one fight: a PC woken by R1-07 has every PE and PP back under ``all``, so
    the PCs leave the fight with more; the day's next fight then kills fewer (level 5, two
    severe fights, the cleric's heals spent)."""
    base = Party(level=5, party="fighter,rogue,cleric(heals=0),wizard", **SEED001)
    n = 20_000
    hp = simkit.simulate(base, n, 7, positional=True, keep_state=True).final
    al = simkit.simulate(base.replace(wake_restores="all"), n, 7, positional=True,
                         keep_state=True).final  # fmt: skip
    assert (al.pp >= hp.pp).all() and (al.pe >= hp.pe).all() and (al.hp == hp.hp).all()
    m, se = _paired(hp.pe.sum(axis=1), al.pe.sum(axis=1))
    assert m > 5 * se > 0
    day = make_model(
        "day", rules="seed001", fights=2, fight="severe", between="none", level=5,
        party="fighter,rogue,cleric(heals=0),wizard",
    )  # fmt: skip
    n = 60_000
    m, se = _paired(_deaths(day, n, 8), _deaths(day.replace(wake_restores="all"), n, 8))
    assert m < -5 * se < 0


def test_a09_dropping_to_0_hp_kills_more():
    """AP-35 with A0-9 (level 5, severe, the effect at 2/7 a turn): a PC that drops to 0 HP
    dies more often than one that keeps its HP; with keep_hp the effect costs the monster
    its strikes, and the party dies less than without it."""
    base = Party(level=5, threat="severe", dying_effect=2 / 7)
    n = 20_000
    keep = _deaths(base, n, 9)
    drop = _deaths(base.replace(dying_above_0="drop"), n, 9)
    off = _deaths(base.replace(dying_effect=0.0), n, 9)
    m, se = _paired(keep, drop)
    assert m > 5 * se > 0
    m, se = _paired(off, keep)
    assert m < -5 * se < 0
