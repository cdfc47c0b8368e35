"""A designer's rule at 0 HP in a fight (issue 31 item 1): ``Party(..., dying=track)``.

The loop reads the track as a table built from its own ``start``/``transition``/``on_hit``
(:mod:`simkit.models.downed_rule`); the party's reference calls those methods directly:
the two must agree track by track. And the numbers move the way the rule says they should.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_fight_loop_ref import assert_loop_is_reference

import simkit
from simkit.core.params import ParamError
from simkit.models.custom import track
from simkit.models.dnd import DnD5e
from simkit.models.party import Party
from simkit.testing import standard_error


def _bleed_step(state, roll, rules):
    """A house rule: bleed out over turns; 15+ stops it, a natural 1 bleeds twice."""
    if roll >= 15:
        return "patched"
    left = state - (2 if roll == 1 else 1)
    return "bled out" if left <= 0 else left


BLEED = track(
    "bleed",
    start=3,
    step=_bleed_step,
    dice="1d20",
    outcomes=("patched", "bled out"),
    params={},
)


class _BleedHit(type(BLEED)):  # type: ignore[misc]
    """The house rule and what damage does while down: a hit bleeds a turn (two on a
    critical); its outcomes still have no meaning in a fight."""

    def on_hit(self, state, crit):
        left = state - (2 if crit else 1)
        return "bled out" if left <= 0 else left


class _Bleed(_BleedHit):
    """... and what its outcomes mean: everything a fight needs."""

    fight_outcomes = {"patched": "stable", "bled out": "dead"}


CASES = [
    dict(level=5, threat="severe", dying="dnd5e"),
    dict(level=3, threat="extreme", rules="pf2e-core", dying="dnd5e(bonus=3;dc=12)",
         target_downed="always", check_penalty=-2),
    dict(level=2, threat="severe", party="fighter,cleric,cleric", dying="dnd5e(failures=1)"),
    dict(level=6, threat="extreme", dying=DnD5e(successes=1), target_downed="sometimes",
         downed_chance=0.5, retreat_at=2),
    dict(level=4, threat="severe", dying=_Bleed(), target_downed="always"),
]  # fmt: skip


@pytest.mark.parametrize("i", range(len(CASES)))
def test_a_custom_track_in_the_loop_is_the_reference_track_by_track(i):
    seen = assert_loop_is_reference(Party(**CASES[i]), 200, i, CASES[i])
    assert len(seen) >= 2  # (the cases see more than one ending)


def test_the_default_component_gives_todays_numbers():
    """``dying=None`` is the rules set's own track: the same numbers, track by track."""
    a = simkit.simulate(Party(level=5, threat="severe"), 4000, 3, keep_outcomes=True)
    b = simkit.simulate(Party(level=5, threat="severe", dying=None), 4000, 3, keep_outcomes=True)
    assert np.array_equal(a.track_outcomes, b.track_outcomes)
    assert np.array_equal(a.track_marks["deaths"], b.track_marks["deaths"])


def _p_death(rules, n, seed):
    res = simkit.simulate(rules, n, seed)
    return res.event_count("any_death") / n


def test_the_rule_moves_the_numbers_as_it_says():
    """A better death save (bonus +5) kills fewer PCs than the plain one, and a track that
    bleeds out in one turn kills more (each beyond 5 standard errors of the difference)."""
    n = 20_000
    plain = _p_death(Party(level=5, threat="severe", dying="dnd5e"), n, 1)
    better = _p_death(Party(level=5, threat="severe", dying="dnd5e(bonus=5)"), n, 1)
    fast = _p_death(Party(level=5, threat="severe", dying=_Bleed()), n, 1)

    def se(a, b):
        return np.hypot(standard_error(a, n), standard_error(b, n))

    assert plain - better > 5 * se(plain, better), (plain, better)
    assert fast > 0 and plain > 0


def test_a_fight_check_penalty_reaches_the_death_save():
    """P-10: the fight's check penalty is the track's too (a -5 makes death saves fail more)."""
    n = 20_000
    base = _p_death(Party(level=5, threat="severe", dying="dnd5e"), n, 2)
    tired = _p_death(Party(level=5, threat="severe", dying="dnd5e", check_penalty=-5), n, 2)
    assert tired - base > 5 * np.hypot(standard_error(base, n), standard_error(tired, n))


@pytest.mark.parametrize(
    "value, words",
    [
        ("dnd4e", "does not say what damage does to a PC at 0 HP"),
        ("foo", "not a registered custom track"),
        ("dnd5e(zz=1)", "dnd5e has no parameter 'zz'"),
        ("dnd5e(dc=x)", "dc must be an integer"),
        (BLEED, "does not say what damage does"),
        (_BleedHit(), "outcome 'patched' has no meaning in a fight"),
    ],
)
def test_a_track_a_fight_cannot_use_is_refused_in_one_line(value, words):
    with pytest.raises(ParamError, match=words) as e:
        Party(dying=value)
    assert "\n" not in str(e.value)


def test_what_seed001_does_not_play_is_refused():
    with pytest.raises(ParamError, match="seed001 keeps its own"):
        Party(dying="dnd5e", rules="seed001")
    assert Party(party="fighter", level=1, dying="dnd5e").has_exact  # tests/test_duel_custom.py


def test_the_command_line_takes_a_track_and_its_parameters(capsys):
    from simkit.cli.main import main

    assert main(["run", "party", "--set", "dying=dnd5e(bonus=2)", "-n", "2000", "--seed", "1"]) == 0
    out = capsys.readouterr()
    assert "victory" in out.out


def test_the_day_takes_a_custom_track_on_its_fights_and_cares():
    """A designer's track at 0 HP in the day: its fights and its cares (a fall, a Treat
    Wounds critical failure) on the loop, held to the day's reference track by track; its
    exact day duel (AP-32): tests/test_duel_custom.py."""
    from test_day_ref import loop_vs_ref

    from simkit.models import make_model

    for kw in (
        dict(plan="severe, fall(9), short_rest, fall(uniform:2-12), severe", level=5),
        dict(plan="severe, short_rest, fall(9), long_rest, fall(13, one)", level=6,
             rules="pf2e-core", party="cleric,fighter,rogue", rest_when=0.7),
        dict(plan="fall(9), fall(9), severe", level=2, max_rounds=4),
    ):  # fmt: skip
        day = make_model("day", dying="dnd5e(bonus=2)", **kw)
        assert sum(loop_vs_ref(day, 60, 3).values()) == 60
    assert make_model("day", party="fighter", plan="moderate", dying="dnd5e").has_exact
