"""A rule at 0 HP per PC (issue 31 item 1): ``party="fighter(dying=dnd5e),cleric"``.

Each PC follows its own custom track, else the fight's ``dying``, else the rules set's
track. The loop reads each PC's table (:mod:`simkit.fight.tables_trk`); the reference
calls each PC's track: the two agree track by track on mixed parties, and a PC's own rule
moves that PC's death odds (``death:<pc>``) the way the rule says.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_downed_rule import _Bleed
from test_fight_loop_ref import assert_loop_is_reference

import simkit
from simkit.core.params import ParamError
from simkit.models.party import Party
from simkit.testing import standard_error


class _Bleed6(_Bleed):
    """The bleed house rule on a d6 (5+ stops it): another face count than dnd5e's d20, so
    the ``trk`` draw is below their least common multiple (60)."""

    def faces(self):
        return (1, 2, 3, 4, 5, 6), np.full(6, 1 / 6)

    def transition(self, state, roll):
        if roll >= 5:
            return "patched"
        left = state - (2 if roll == 1 else 1)
        return "bled out" if left <= 0 else left


CASES = [
    # a dnd5e PC beside seed000 PCs
    dict(level=5, threat="severe", party="fighter(dying=dnd5e),rogue,cleric,wizard"),
    dict(level=3, threat="extreme", party="fighter,rogue(dying=dnd5e),cleric",
         target_downed="always", check_penalty=-2),
    dict(level=4, threat="severe", rules="pf2e-core", hero_points=2, hero_policy="immediately",
         party="fighter(dying=dnd5e),fighter,cleric(dying=dnd5e)", target_downed="sometimes",
         downed_chance=0.5),
    # two different tracks: the fight's own (a bleed on a d6) and a PC's (dnd5e)
    dict(level=6, threat="extreme", party="fighter(dying=dnd5e),rogue,cleric,wizard",
         dying=_Bleed6(), target_downed="always"),
    dict(level=4, threat="severe", party="fighter,fighter(dying=dnd5e),cleric",
         dying=_Bleed(), downed_pick="random", target_downed="always"),
]  # fmt: skip


@pytest.mark.parametrize("i", range(len(CASES)))
def test_each_pc_track_in_the_loop_is_the_reference_track_by_track(i):
    seen = assert_loop_is_reference(Party(**CASES[i]), 200, i, CASES[i])
    assert len(seen) >= 2  # (the cases see more than one ending)


def test_the_draw_is_below_the_faces_common_multiple():
    wide = Party(party="fighter(dying=dnd5e),rogue", dying=_Bleed6())
    assert ("trk", "below:60", (2,)) in wide.plan
    one = Party(party="fighter(dying=dnd5e),rogue")
    assert ("trk", "below:20", (2,)) in one.plan
    assert not any(d[0] == "trk" for d in Party(party="fighter,rogue").plan)


def test_a_pc_rule_moves_that_pcs_death_odds():
    """Struck whenever down (``target_downed=always``), a fighter on dnd5e dies more often
    than on seed000's track: every hit is a failed death save (a critical two) and three
    kill, on top of the saves failed on 1-9 (vs dying 1 at the knock-out, +1 a hit, dead at
    4, and a recovery check a level-5 Fortitude often passes). Beyond 5 standard errors,
    and the fighter's odds move more than the rogue's beside it (same rules)."""
    n = 20_000
    kw = dict(level=5, threat="severe", target_downed="always")

    def p(party):
        res = simkit.simulate(Party(party=party, **kw), n, 1)
        return res.event_count("death:fighter") / n, res.event_count("death:rogue") / n

    (base, rogue0), (own, rogue1) = (
        p("fighter,rogue,cleric,wizard"),
        p("fighter(dying=dnd5e),rogue,cleric,wizard"),
    )
    se = np.hypot(standard_error(own, n), standard_error(base, n))
    assert own - base > 5 * se, (own, base)
    assert own - base > 2 * abs(rogue1 - rogue0), (own, base, rogue1, rogue0)


@pytest.mark.parametrize(
    "kw, words",
    [
        (dict(party="fighter(dying=foo)"), "not a registered custom track"),
        (dict(party="fighter(dying=dnd4e)"), "does not say what damage does"),
        (dict(party="fighter(dying=dnd5e)", rules="seed001"), "rules=seed001"),
        (dict(party="fighter(dying=dnd5e)", engine="kernel"), "kernel"),
    ],
)
def test_a_pc_track_a_fight_cannot_use_is_refused_in_one_line(kw, words):
    with pytest.raises(ParamError, match=words) as e:
        Party(**kw)
    assert "\n" not in str(e.value)


def test_a_pc_track_is_an_exact_duel_as_the_fight_s_track():
    """AP-25, AP-31: one PC's own track is the fight's (tests/test_duel_custom.py)."""
    own = Party(party="fighter(dying=dnd5e)", level=1)
    assert own.has_exact
    assert (
        own.exact_hist().tolist()
        == Party(party="fighter", level=1, dying="dnd5e").exact_hist().tolist()
    )
