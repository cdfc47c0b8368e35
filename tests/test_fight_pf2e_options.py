"""PF2e's options on the seed-000/pf2e-core track in fights, per PC (issue 31 item 4):
Toughness (P-13), Diehard (P-14), fortune / misfortune on the recovery check (P-15) and a
hero point's reroll (P-16), party-wide (``Party(toughness=True)``) and per PC
(``party="fighter(toughness=true),cleric"``). The loop reads them as tables of the rules'
scalar functions (:mod:`simkit.fight.tables_pf2e`, ``rec``'s toughness); the reference
calls those functions directly: the two agree track by track, and each option moves the
PCs' death odds the way the rule says.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_fight_loop_ref import assert_loop_is_reference

import simkit
from simkit.core.params import ParamError
from simkit.models.party import Party
from simkit.testing import standard_error

CASES = [
    dict(level=5, threat="severe", toughness=True, diehard=True, target_downed="always"),
    dict(level=3, threat="extreme", party="fighter(fortune=fortune),rogue(fortune=misfortune),"
         "cleric(diehard=true),wizard(toughness=true)", target_downed="sometimes",
         downed_chance=0.5),
    dict(level=4, threat="severe", hero_use="reroll", hero_points=2, target_downed="always"),
    dict(level=4, threat="extreme", rules="pf2e-core", party="fighter(hero_use=reroll),rogue,"
         "cleric", hero_points=1, hero_policy="immediately", check_penalty=-2,
         target_downed="always"),
    dict(level=6, threat="extreme", fortune="misfortune", party="fighter(dying=dnd5e),rogue,"
         "cleric(fortune=none;diehard=true)", target_downed="always"),
]  # fmt: skip


@pytest.mark.parametrize("i", range(len(CASES)))
def test_the_options_in_the_loop_are_the_reference_track_by_track(i):
    seen = assert_loop_is_reference(Party(**CASES[i]), 200, i, CASES[i])
    assert len(seen) >= 2  # (the cases see more than one ending)


def test_the_defaults_draw_no_second_d20():
    assert not any(d[0] == "check2" for d in Party().plan)
    assert any(d[0] == "check2" for d in Party(party="fighter(fortune=fortune)").plan)


#: A fight whose deaths come from the dying track (no cleric: the care after the fight is
#: the recovery checks; captured, not slain, at a defeat; no hero point unless given).
N = 60_000
FIGHT = dict(level=5, threat="severe", rules="pf2e-core", hero_points=0, after_defeat="captured")


def _death(party="fighter,rogue,wizard", **kw):
    rules = Party(party=party, **{**FIGHT, **kw})
    return simkit.simulate(rules, N, 1).event_count("death:fighter") / N


def _apart(a, b):
    return (b - a) / np.hypot(standard_error(a, N), standard_error(b, N))


@pytest.mark.parametrize(
    "better, worse",
    [
        ("fighter(toughness=true)", "fighter"),  # P-13: DC 1 lower
        ("fighter(diehard=true)", "fighter"),  # P-14: dead at dying 5
        ("fighter(fortune=fortune)", "fighter"),  # P-15: the higher d20
        ("fighter", "fighter(fortune=misfortune)"),  # P-15: the lower d20
    ],
)
def test_a_pc_option_lowers_that_pcs_death_odds(better, worse):
    """Each option moves the fighter's ``death:fighter`` odds the way the rule says, beyond
    5 standard errors."""
    a, b = _death(better + ",rogue,wizard"), _death(worse + ",rogue,wizard")
    assert _apart(a, b) > 5, (better, a, worse, b)


def test_a_hero_point_reroll_saves_more_than_none():
    a = _death(hero_use="reroll", hero_points=3)
    b = _death()
    assert _apart(a, b) > 5, (a, b)


def test_a_party_wide_option_is_each_pcs():
    assert _death(toughness=True) == _death(
        "fighter(toughness=true),rogue(toughness=true),wizard(toughness=true)"
    )


@pytest.mark.parametrize(
    "kw, words",
    [
        (dict(party="fighter(fortune=lucky)"), "fortune must be one of none, fortune"),
        (dict(party="fighter(hero_use=reroll;fortune=fortune)"), "cannot combine"),
        (dict(toughness=True, rules="seed001"), "rules=seed001 plays agonising"),
        (dict(diehard=True, engine="kernel"), "fight loop only"),
    ],
)
def test_what_cannot_be_played_is_refused_in_one_line(kw, words):
    with pytest.raises((ParamError, ValueError), match=words) as e:
        Party(**kw)
    assert "\n" not in str(e.value)


def test_an_option_is_an_exact_duel_too():
    """AP-31 (tests/test_duel_seed_rules.py); a grant of temporary HP (AP-37, AP-38) in a
    party duel (state by state), not in a day."""
    from simkit.models import make_model

    assert Party(party="fighter", level=1).has_exact
    assert Party(party="fighter(toughness=true)", level=1).has_exact
    assert Party(party="fighter(grant_temp_hp=5)", level=1).has_exact
    day = make_model("day", plan="moderate", party="fighter(grant_temp_hp=5)", level=1)
    assert not day.has_exact


def test_the_day_takes_each_pcs_rule_on_its_fights_and_cares():
    """A PC's own track and PF2e options in the day: its fights and cares on the loop, held
    to the day's reference track by track."""
    from test_day_ref import loop_vs_ref

    from simkit.models import make_model

    for kw in (
        dict(plan="severe, fall(9), short_rest, fall(uniform:2-12), severe", level=5,
             party="fighter(dying=dnd5e),rogue(diehard=true;fortune=fortune),"
             "cleric(toughness=true),wizard"),
        dict(plan="severe, short_rest, fall(9), long_rest, fall(13, one)", level=6,
             rules="pf2e-core", party="cleric,fighter(hero_use=reroll),rogue(dying=dnd5e)",
             rest_when=0.7),
    ):  # fmt: skip
        day = make_model("day", **kw)
        assert sum(loop_vs_ref(day, 60, 3).values()) == 60
        assert not day.has_exact


def test_the_command_line_takes_them(capsys):
    from simkit.cli.main import main

    args = ["run", "party", "--set", "toughness=true", "--set", "fortune=fortune",
            "--set", "party=fighter(dying=dnd5e;diehard=true),cleric", "-n", "2000"]  # fmt: skip
    assert main(args) == 0
    assert "victory" in capsys.readouterr().out
