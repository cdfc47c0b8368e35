"""A custom rule at 0 HP in the encounter on the fight loop (issue 31 item 1):
``Encounter(..., dying=track)``.

With no enemies and the PC knocked out at the start the encounter is the track alone: its
numbers are the track's exact ones. A custom copy of the seed-000 track gives the built-in
encounter's numbers where the DC is fixed (enemies that never land a critical).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_duel_custom import Seed000Copy

import simkit
from simkit.core.params import ParamError
from simkit.models import as_rules, make_model
from simkit.models.dnd import DnD5e
from simkit.models.encounter import Encounter
from simkit.models.fight_state import FightStart
from simkit.testing import standard_error


def _close(a: dict, b: dict, n: int, keys) -> None:
    for k in keys:
        se = np.hypot(standard_error(a[k], n), standard_error(b[k], n))
        assert abs(a[k] - b[k]) <= 5 * se + 1e-12, (k, a[k], b[k])


def test_a_knocked_out_pc_alone_follows_the_track_exactly():
    n = 20_000
    for track in ("dnd5e", "dnd5e(bonus=3)"):
        e = Encounter(hp=0, enemies=0, dying=track)
        mc = simkit.simulate(e, n, 3).probabilities
        ex = simkit.solve(make_model("dnd5e", bonus=3 if "bonus" in track else 0)).probabilities
        for k in ("stable", "dead", "revived"):
            se = standard_error(ex[k], n)
            assert abs(mc[k] - ex[k]) <= 5 * se, (track, k, mc[k], ex[k])


def test_the_custom_copy_of_the_seed000_track_gives_the_built_in_encounter():
    """Two enemies striking the PC at 0 HP (only a natural 20 hits, never as a critical, as
    the copy's on_hit is told), no effect, no hero point: outcomes within 5 SE."""
    base = Encounter(
        engine="loop",
        hp=0,
        enemies=2,
        target_downed="always",
        attack_bonus=-10,
        ac=40,
        effect_chance=0.0,
        hero_points=0,
        level=3,
    )
    copy = base.replace(dying=Seed000Copy(bonus=base.save("fort"), dc=base.strike_dc))
    n = 20_000
    a = simkit.simulate(base, n, 5).probabilities
    b = simkit.simulate(copy, n, 6).probabilities
    _close(a, b, n, ("stable", "dead", "revived", "standing"))
    assert 0.05 < a["dead"] < 0.95


def test_what_the_encounter_cannot_play_is_refused_in_one_line():
    for kw, words in (
        (dict(dying="dnd5e", engine="kernel"), "kernel of 0.3 was retired"),
        (dict(dying="dnd5e", dying_rules="seed001"), "keeps its own"),
        (dict(dying="dnd4e"), "does not say what damage does"),
    ):
        with pytest.raises(ParamError, match=words) as e:
            Encounter(**kw)
        assert "\n" not in str(e.value)
    start = FightStart.full(4, hp=[0], hp_max=[40])
    with pytest.raises(ParamError, match="no state on it"):
        simkit.simulate(Encounter(dying="dnd5e"), 4, 1, start=start)


def test_dying_keys_on_the_encounter():
    assert make_model("encounter", **{"dying.check": "flat"}).check == "flat"
    e = as_rules(Encounter(dying="dnd5e"), **{"dying.bonus": 2})
    assert e.dying == "dnd5e(bonus=2)" and e.engine == "loop"
    assert Encounter(dying=DnD5e(bonus=2)).dying == DnD5e(bonus=2)
