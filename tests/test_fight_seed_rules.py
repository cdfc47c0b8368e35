"""Issue 31 item 2: the seed rules in the party fight, on the loop and its reference.

Slowed after waking (R0-04, R0-10; AP-21), back in the fight (R1-05, A1-3, A1-12) and
temporary HP (R0-14): the compiled loop = the scalar reference (:mod:`simkit.models.
party_ref`, its seed rules in :mod:`simkit.models.party_ref_seeds`) track by track on the
same dice, each rule changes some tracks, and each moves the party's numbers the way the
text implies, beyond 5 standard errors.
"""

from __future__ import annotations

import numpy as np
import pytest

import simkit
from simkit.fight import block, tables
from simkit.fight.loop import CARRIED, OUT_MARK0, OUT_OUTCOME, OUT_STEP
from simkit.fight.state import COND, HEALS, HERO, HP, MARKS, PE, PP, SLOTS, WOUNDED
from simkit.models.party import Party
from simkit.models.party_replay import play

#: The seed rules' parameters (issue 31 item 2).
SEED_PARAMS = ("slowed", "slowed_loses", "temp_hp", "back_in_fight", "enough_pp", "back_again",
               "con_damage", "ability_reading")  # fmt: skip
FIELDS = (HP, COND, HERO, SLOTS, HEALS, WOUNDED, PP, PE)
COND_CODE = {"up": 0, "dying": 1, "stable": 2, "dead": 3}

#: (the fight, the seed rule(s) it adds)
CASES = [
    (dict(level=5, threat="severe"), dict(slowed=True)),
    (dict(level=5, threat="extreme", hero_points=2), dict(slowed=True, slowed_loses="strike")),
    (dict(level=3, threat="severe", hero_policy="immediately"), dict(slowed=True)),
    (
        dict(
            level=6,
            threat="extreme",
            target_downed="sometimes",
            downed_chance=0.5,
            monster_target="weakest",
        ),
        dict(slowed=True, slowed_loses="strike"),
    ),
    (
        dict(level=3, threat="extreme", rules="seed001", party="fighter,rogue,cleric(heals=0)"),
        dict(back_in_fight=True),
    ),  # spend=last: R1-05 after first aid (R1-02)
    (dict(level=5, threat="extreme", rules="seed001", spend="asap"), dict(back_in_fight=True)),
    (
        dict(level=4, threat="extreme", rules="seed001", spend="asap"),
        dict(back_in_fight=True, back_again=True),
    ),
    (
        dict(level=8, threat="extreme", rules="seed001", spend="asap", target_downed="always"),
        dict(back_in_fight=True, enough_pp=2, back_again=True),
    ),
    (
        dict(
            level=8,
            threat="extreme",
            rules="seed001",
            spend=1,
            party="fighter,rogue,cleric(heals=0)",
        ),
        dict(back_in_fight=True, enough_pp=2, back_again=True),
    ),
    (dict(level=3, threat="severe", rules="seed001", trait="nonlethal"), dict(back_in_fight=True)),
    (dict(level=5, threat="severe"), dict(temp_hp=10)),
    (
        dict(
            level=4,
            threat="extreme",
            rules="seed001",
            party="fighter(temp_hp=12),rogue,cleric,wizard(temp_hp=4)",
        ),
        dict(temp_hp=3),
    ),
    (
        dict(level=5, threat="extreme", hero_points=2, hp=10),
        dict(slowed=True, temp_hp=6),
    ),
    (dict(level=5, threat="severe", rules="seed001"), dict(con_damage=2)),
    (
        dict(level=7, threat="extreme", rules="seed001", target_downed="sometimes", spend="asap"),
        dict(con_damage=3, ability_reading="per_point", back_in_fight=True),
    ),
    (
        dict(
            level=3,
            threat="severe",
            rules="seed001",
            natural=True,
            check_penalty=-2,
            party="fighter(con=1),rogue,cleric(heals=0)",
        ),
        dict(con_damage=1, ability_reading="per_two"),
    ),
]


def _loop(rules: Party, keys):
    T = tables.pack(tables.build(rules))
    out, ends = block.run(T, keys, rules.max_rounds)
    cols = [CARRIED.index(f) for f in FIELDS]
    return [
        (
            int(out[t, OUT_OUTCOME]),
            int(out[t, OUT_STEP]),
            [int(v) for v in out[t, OUT_MARK0:]],
            [tuple(int(ends[t, k, f]) for f in cols) for k in range(rules.n_pcs)],
        )
        for t in range(len(keys))
    ]


def _reference(rules: Party, key63: int):
    tr = play(rules, key63)
    pcs = [
        (p["hp"], COND_CODE[p["cond"]], p["hero"], p["slots"], p["heals"], p["wounded"],
         p["pp"], p["pe"])
        for p in tr["pcs"]
    ]  # fmt: skip
    return (tr["code"], tr["step"], [tr[m] for m in MARKS], pcs)


@pytest.mark.parametrize("i", range(len(CASES)))
def test_the_seed_rules_on_the_loop_are_the_reference_track_by_track(i):
    fight, seed = CASES[i]
    rules = Party(**fight, **seed)
    assert rules.seed_rules_on
    keys = (np.arange(1, 121, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) ^ np.uint64(31 + i)
    loop = _loop(rules, keys)
    for t, key in enumerate(keys):
        want = _reference(rules, int(key) >> 1)
        assert loop[t] == want, (CASES[i], t, loop[t], want)
    # the rule changes some of these tracks (it is not inert here), and so does each reading
    assert loop != _loop(Party(**fight), keys), CASES[i]
    readings = {"back_again": (False,), "enough_pp": (1,), "slowed_loses": ("spare",),
                "ability_reading": ("score", "per_point")}  # fmt: skip
    for name, others in readings.items():
        others = [o for o in others if name in seed and seed[name] != o]
        if others:
            changed = [loop != _loop(Party(**fight, **{**seed, name: o}), keys) for o in others]
            assert any(changed), (CASES[i], name)


def _not_won(rules: Party, n: int, rng: int) -> tuple[float, float]:
    """P(not a clean victory: a death or a defeat) and its standard error."""
    p = 1.0 - simkit.simulate(rules, n, rng=rng)["victory"]
    return p, (p * (1 - p) / n) ** 0.5


def _moves(base: Party, changed: Party, n: int = 20000) -> float:
    """(changed - base) / SE of the difference of P(not won), independent runs."""
    a, sa = _not_won(base, n, 1)
    b, sb = _not_won(changed, n, 2)
    return (b - a) / (sa**2 + sb**2) ** 0.5


def test_slowed_after_waking_costs_the_party():
    """R0-04: a woken PC acts less on its next turn: more deaths and defeats."""
    fight = dict(level=5, threat="severe", hero_points=1)
    assert _moves(Party(**fight), Party(**fight, slowed=True)) > 5
    # losing a strike at once (AP-21 strike) costs more than losing the spare action first
    assert (
        _moves(Party(**fight, slowed=True), Party(**fight, slowed=True, slowed_loses="strike")) > 0
    )


def test_back_in_the_fight_saves_lives_under_seed001():
    """R1-05: a stable PC back at 1 HP is not left to the hourly checks (R1-06): fewer
    deaths; with spend=last it fires after first aid (R1-02 keeps the PP) and nonlethal
    knock-outs (R1-11), with spend=asap after every stabilisation."""
    fight = dict(level=5, threat="severe", rules="seed001", spend="asap")
    assert _moves(Party(**fight), Party(**fight, back_in_fight=True)) < -5
    fight = dict(level=5, threat="severe", rules="seed001", trait="nonlethal")
    assert _moves(Party(**fight), Party(**fight, back_in_fight=True)) < -5


def test_temporary_hp_protect_the_party():
    """R0-14: damage takes the temporary HP first: fewer deaths and defeats."""
    fight = dict(level=5, threat="severe")
    assert _moves(Party(**fight), Party(**fight, temp_hp=10)) < -5


def test_constitution_damage_costs_lives_under_seed001():
    """R1-12: a strike that takes Constitution lowers the PE and the hourly checks'
    modifier: more deaths."""
    fight = dict(level=5, threat="severe", rules="seed001")
    assert _moves(Party(**fight), Party(**fight, con_damage=2)) > 5


def test_the_seed_rules_default_off_and_refuse_where_not_played():
    base = Party()
    assert not base.slowed and not base.back_in_fight and base.temp_hp == 0
    assert not base.seed_rules_on
    # slowed is seed000's (R0-04); back_in_fight seed001's (R1-05): inert elsewhere
    assert not Party(rules="pf2e-core", slowed=True).seed_rules_on
    assert not Party(rules="seed000", back_in_fight=True).seed_rules_on
    assert not Party(rules="seed000", con_damage=2).seed_rules_on  # (R1-12: seed001's)
    # a PC's own temporary HP, else the party's
    r = Party(party="fighter(temp_hp=5),cleric", temp_hp=2)
    assert [r.temp_hp_of(k) for k in range(2)] == [5, 2]
    # the exact duel plays them too (AP-31: tests/test_duel_seed_rules.py)
    duel = dict(party="fighter", lineup="boss", threat="moderate")
    assert Party(**duel).has_exact and Party(**duel, temp_hp=5).has_exact


@pytest.mark.parametrize(
    "params",
    [
        dict(plan="severe, short_rest, severe, fall(9), moderate", level=5, rules="seed001",
             party="fighter,rogue,cleric(heals=0)", spend="asap", back_in_fight=True,
             back_again=True, temp_hp=5, con_damage=1),
        dict(plan="severe, short_rest, extreme, fall(11), long_rest, severe", level=4,
             hero_points=1, slowed=True, slowed_loses="strike",
             party="fighter(temp_hp=8),cleric,wizard"),
    ],
)  # fmt: skip
def test_the_days_fights_take_the_seed_rules_track_by_track(params):
    """A day's fights are party fights: the day on the loop = its replay on the reference
    (each fight on the party's reference, its end state checked inside the replay);
    temporary HP only in the day's first fight (a fresh start; later fights start from
    the state handed on); the care after a fall has no fight turn (no seed rule there)."""
    from test_day_replay import assert_days_replay

    from simkit.models.day import Day

    n = 120
    rules = Day(**params)
    res = assert_days_replay(rules, n, 5)
    plain = {k: v for k, v in params.items() if k not in SEED_PARAMS}
    plain["party"] = params["party"].replace("(temp_hp=8)", "")
    base = simkit.simulate(Day(**plain), n, 5, keep_outcomes=True)
    assert (base.track_outcomes != res.track_outcomes).any() or any(
        (base.track_marks[m] != res.track_marks[m]).any() for m in rules.marks
    )  # (the rules change some of these days)
