"""PF2e's options on the seed-000/pf2e-core track in the encounter (issue 31 item 4, AP-29):
Toughness (P-13), Diehard (P-14), fortune / misfortune on the recovery check (P-15) and a
hero point's reroll (P-16), the party's parameters (same names, same meanings, the same
refusals), played by the loop's tables (:mod:`simkit.fight.tables_pf2e`) and by the
encounter's scalar reference: the two agree track by track, and each option moves P(dead)
the way the rule says."""

from __future__ import annotations

import numpy as np
import pytest
from test_encounter import assert_loop_is_reference

import simkit
from simkit.core.params import ParamError
from simkit.models.encounter import Encounter
from simkit.testing import standard_error

CASES = [
    dict(level=5, monster_level=7, toughness=True, diehard=True, target_downed="always"),
    dict(level=3, monster_level=5, fortune="fortune", target_downed="sometimes",
         downed_chance=0.5, healer_round=4),
    dict(level=4, monster_level=6, fortune="misfortune", check="flat", hero_points=2,
         target_downed="always", medicine=6, healer_chance=0.2),
    dict(level=4, hero_use="reroll", hero_points=2, target_downed="sometimes",
         downed_chance=0.3, healer_round=3),
    dict(level=6, **Encounter.presets["pf2e-core"], hero_use="reroll", hero_points=1,
         hero_policy="immediately", check_penalty=-2, diehard=True,
         target_downed="sometimes", downed_chance=0.3, healer_round=4),
    dict(level=5, hp=0, enemies=0, toughness=True, fortune="fortune", start_dying=2),
]  # fmt: skip


@pytest.mark.parametrize("i", range(len(CASES)))
def test_the_options_in_the_loop_are_the_reference_track_by_track(i):
    seen = assert_loop_is_reference(Encounter(**CASES[i]), 200, 40 + i)
    assert sum(v > 0 for v in seen.values()) >= 2  # (the cases see more than one ending)


#: An encounter whose deaths come mostly from the dying track: enemies that now and then
#: strike a PC at 0 HP for 6 rounds, a healer at round 6, no hero point unless given.
N = 20_000
BASE = dict(level=5, target_downed="sometimes", downed_chance=0.1, fight_rounds=6,
            healer_round=6, hero_points=0)  # fmt: skip


def _dead(**kw) -> float:
    return simkit.simulate(Encounter(**{**BASE, **kw}), N, 1).probabilities["dead"]


def _apart(a, b):
    return (b - a) / np.hypot(standard_error(a, N), standard_error(b, N))


@pytest.mark.parametrize(
    "better, worse",
    [
        (dict(toughness=True), {}),  # P-13: the recovery DC 1 lower
        (dict(diehard=True), {}),  # P-14: dead at dying 5
        (dict(fortune="fortune"), {}),  # P-15: the higher d20
        ({}, dict(fortune="misfortune")),  # P-15: the lower d20
        (dict(hero_use="reroll", hero_points=3), {}),  # P-16: a failed check rerolled
        (dict(toughness=True), dict(toughness=True, **Encounter.presets["pf2e-core"])),
    ],
)
def test_each_option_moves_p_dead_the_way_the_rule_says(better, worse):
    """Beyond 5 standard errors (the last: the published flat check, wounded and increment
    under pf2e-core, is deadlier than the seed's save, Toughness on both)."""
    a, b = _dead(**better), _dead(**worse)
    assert _apart(a, b) > 5, (better, a, worse, b)


def test_the_defaults_are_no_option():
    """The options off are today's encounter, track by track (the pins hold the rest)."""
    off = dict(toughness=False, diehard=False, fortune="none", hero_use="recover")
    a = simkit.simulate(Encounter(**BASE), 3_000, 2, keep_outcomes=True)
    b = simkit.simulate(Encounter(**BASE, **off), 3_000, 2, keep_outcomes=True)
    assert np.array_equal(a.track_outcomes, b.track_outcomes)
    assert Encounter().pf2e["death_at"] == 4 and Encounter(diehard=True).pf2e["death_at"] == 5


@pytest.mark.parametrize(
    "kw, words",
    [
        (dict(fortune="lucky"), "fortune must be one of none, fortune"),
        (dict(hero_use="reroll", fortune="fortune"), "cannot combine"),
        (dict(toughness=True, dying_rules="seed001"), "dying_rules=seed001 plays agonising"),
        (dict(hero_use="reroll", dying_rules="seed001"), "options of the seed000/pf2e-core"),
    ],
)
def test_what_cannot_be_played_is_refused_in_one_line(kw, words):
    with pytest.raises(ParamError, match=words) as e:
        Encounter(**kw)
    assert "\n" not in str(e.value)


def test_the_command_line_takes_them(capsys):
    from simkit.cli.main import main

    args = ["run", "encounter", "--set", "toughness=true", "--set", "fortune=fortune",
            "--set", "diehard=true", "-n", "2000"]  # fmt: skip
    assert main(args) == 0
    assert "dead" in capsys.readouterr().out
