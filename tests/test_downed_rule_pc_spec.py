"""A parameterised track per PC in the party text (issue 31, AP-25):
``party="fighter(dying=dnd5e(bonus=2;dc=12)),cleric"``.

The PC's value is the party-wide ``dying=`` text in its own parentheses (``,`` or ``;``
between its parameters; kept with them sorted). Every PC with the same parameterised track
plays exactly as the track given party-wide (same numbers, same dice); a PC's own parameter
moves that PC's death odds; malformed text is refused in one line.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_fight_loop_ref import assert_loop_is_reference

import simkit
from simkit.core.params import ParamError
from simkit.models.party import Party
from simkit.rules.overrides import Field
from simkit.testing import standard_error

ROLES = ("fighter", "rogue", "cleric", "wizard")


def _each(track: str) -> str:
    return ",".join(f"{r}(dying={track})" for r in ROLES)


@pytest.mark.parametrize(
    "raw, text",
    [
        ("dnd5e", "dnd5e"),
        ("dnd5e(dc=12;bonus=2)", "dnd5e(bonus=2;dc=12)"),
        ("dnd5e(dc=12,bonus=2)", "dnd5e(bonus=2;dc=12)"),
        (" dnd5e( bonus = 2 ) ", "dnd5e(bonus=2)"),
        ("dnd5e()", "dnd5e"),
    ],
)
def test_a_spec_field_keeps_its_parameters_sorted(raw, text):
    assert Field("spec").parse("dying", raw, "party") == text


def test_the_party_text_takes_a_parameterised_track_per_pc():
    r = Party(party="fighter(dying=dnd5e(dc=12,bonus=2);temp_hp=3),cleric")
    assert r.party == "fighter(dying=dnd5e(bonus=2;dc=12);temp_hp=3),cleric"  # canonical
    assert Party(party=r.party).party == r.party  # (its text parses again to itself)
    track = r.pc_downed_track(0)
    assert (track.name, track.dc, track.bonus) == ("dnd5e", 12, 2)
    assert r.pc_downed_track(1) is None and r.temp_hp_of(0) == 3


@pytest.mark.parametrize(
    "party, words",
    [
        ("fighter(dying=dnd5e(bonus)),cleric", "dying must be a name or a name with its"),
        ("fighter(dying=dnd5e(bonus=2)(dc=3))", "dying must be a name or a name with its"),
        ("fighter(dying=dnd5e(bonus=2;bonus=3))", "a parameter is given twice"),
        ("fighter(dying=dnd5e(bonus=2)", "unbalanced '('"),
        ("fighter(dying=dnd5e((bonus=2)))", "is not NAME or NAME(key=value; key=value)"),
        ("fighter(dying=dnd5e(nope=2))", "dnd5e has no parameter 'nope'"),
        ("fighter(dying=dnd5e(bonus=200))", "bonus must be an integer in [-20, 20]"),
        ("fighter(hp_max=dnd5e(bonus=2))", "hp_max must be an integer in [1, 10000]"),
    ],
)
def test_malformed_text_is_refused_in_one_line(party, words):
    with pytest.raises(ParamError) as e:
        Party(party=party)
    assert words in str(e.value) and "\n" not in str(e.value), e.value


def test_every_pc_on_the_track_is_the_track_given_party_wide():
    """Same numbers, same dice: the tables, the plan and every track's outcome and marks."""
    track = "dnd5e(bonus=2;dc=12)"
    kw = dict(level=5, threat="severe", target_downed="sometimes", downed_chance=0.5)
    wide, each = Party(**kw, dying=track), Party(**kw, party=_each(track))
    assert wide.plan == each.plan
    a = simkit.simulate(wide, 4000, rng=7, keep_outcomes=True)
    b = simkit.simulate(each, 4000, rng=7, keep_outcomes=True)
    assert (a.track_outcomes == b.track_outcomes).all()
    for m in wide.marks:
        assert (a.track_marks[m] == b.track_marks[m]).all(), m
    assert_loop_is_reference(each, 100, 25)


def test_a_pcs_own_parameter_moves_that_pcs_death_odds():
    """A fighter on dnd5e whose death saves need 18 (``dc=18``) dies more often than one on
    plain dnd5e (10), beyond 5 standard errors; the rogue beside it (plain dnd5e in both)
    moves less. (The downed are spared at a defeat: the track decides the deaths.)"""
    n = 20_000
    kw = dict(level=5, threat="severe", after_defeat="captured", dying="dnd5e")

    def p(party):
        res = simkit.simulate(Party(party=party, **kw), n, 1)
        return res.event_count("death:fighter") / n, res.event_count("death:rogue") / n

    (base, rogue0), (own, rogue1) = (
        p("fighter,rogue,cleric,wizard"),
        p("fighter(dying=dnd5e(dc=18)),rogue,cleric,wizard"),
    )
    se = np.hypot(standard_error(own, n), standard_error(base, n))
    assert own - base > 5 * se, (own, base)
    assert own - base > 2 * abs(rogue1 - rogue0), (own, base, rogue1, rogue0)
