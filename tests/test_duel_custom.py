"""A custom rule at 0 HP in the exact duel, and a custom copy of the seed-000 track (issue 31).

In a duel (one PC, one monster) a knock-out that leaves the PC at 0 HP is a defeat at once
(every PC is down): under a custom track its start decides (a state, dead or stable: the
PC is down; hero points belong to the seed-000 track). The exact duel is held to the loop's
Monte Carlo; and a custom track written to mirror the seed-000 dying track (state = the
dying value, d20 + Fortitude vs the source's DC + dying, A0-1's ``max`` on a hit) gives the
built-in numbers, in a duel and in a party fight where the DC is fixed (one monster).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

import simkit
from simkit.core.params import param
from simkit.models.custom import CustomTrack
from simkit.models.party import Party
from simkit.rules.dice import degree
from simkit.rules.recovery_check import DELTA
from simkit.testing import assert_agrees_with_exact, standard_error


@dataclass(frozen=True, slots=True)
class Seed000Copy(CustomTrack):
    """The seed-000 dying track (R0-03..R0-09, A0-1 ``max``) as a custom track, its DC fixed:
    dying 1 at the knock-out (a critical's dying 2 is not told to ``start``), a recovery
    Fortitude save against ``dc`` + dying (natural 20 / 1 one step, R0-05), dead at 4,
    stable at 0; a hit: dying 1 (2 on a critical) or more."""

    name: ClassVar[str] = "seed000_copy"
    outcomes: ClassVar[tuple[str, ...]] = ("stable", "dead")
    dice: ClassVar[str] = "1d20"

    bonus: int = param(11, kind="int", lo=-20, hi=80, help="Fortitude save")
    dc: int = param(22, kind="int", lo=1, hi=100, help="the source's DC")
    check_penalty: int = param(0, kind="int", lo=-50, hi=0, help="P-10")

    def start(self):
        return 1

    def _to(self, value):
        return "dead" if value >= 4 else "stable" if value <= 0 else value

    def transition(self, state, roll):
        d = degree(roll, self.bonus + self.check_penalty, self.dc + state)
        return self._to(state + DELTA[d])

    def on_hit(self, state, crit):
        return self._to(max(state, 2 if crit else 1))


def _copy_of(rules: Party) -> Seed000Copy:
    pc, mo = rules.fighters.pcs[0], rules.fighters.monsters[0]
    return Seed000Copy(bonus=pc.fort, dc=mo.recovery_dc)


@pytest.mark.parametrize("level", [1, 5])
def test_exact_duel_with_a_custom_track_agrees_with_monte_carlo(level):
    r = Party(party="fighter", level=level, threat="severe", dying="dnd5e")
    assert r.has_exact
    assert_agrees_with_exact(r, 20_000, 410 + level)


@pytest.mark.parametrize("level", [1, 5])
def test_the_custom_copy_of_the_seed000_track_is_the_built_in_duel(level):
    """In a duel a knock-out is a defeat unless a hero point revives: with none, the copy
    and the built-in track give the same exact numbers."""
    base = Party(party="fighter", level=level, threat="extreme", hero_points=0)
    copy = base.replace(dying=_copy_of(base))
    a, b = simkit.solve(base), simkit.solve(copy)
    for o in ("victory", "defeat", "retreat", "unresolved"):
        assert a[o] == pytest.approx(b[o], abs=1e-12), o
    assert a["defeat"] > 0.01
    # a hero point revives on the built-in track only (R0-10): it lowers the defeat there
    held = simkit.solve(base.replace(hero_points=1, hero_policy="immediately"))
    assert held["defeat"] < a["defeat"]
    copy_held = simkit.solve(copy.replace(hero_points=1, hero_policy="immediately"))
    assert copy_held["defeat"] == pytest.approx(b["defeat"])


@pytest.mark.parametrize(
    "params",
    [
        dict(party="fighter", level=1, xp_budget=60, hero_points=3, hero_policy="immediately"),
        dict(party="wizard", level=2, xp_budget=80, rules="pf2e-core", area_chance=0.5),
        dict(party="rogue", level=1, xp_budget=40, trait="nonlethal", max_rounds=3),
    ],
)
def test_the_grid_gives_the_chains_numbers_under_a_custom_track(params):
    from simkit.core.exact import build_chain, propagate
    from simkit.models.duel_grid import duel_hist

    r = Party(**params, dying="dnd5e(bonus=2)")
    chain = propagate(r, build_chain(r))
    np.testing.assert_allclose(duel_hist(r), chain.hist, rtol=0, atol=1e-13)
    assert simkit.solve(r).probabilities == pytest.approx(chain.probabilities, abs=1e-13)


def test_a_track_whose_start_revives_is_not_an_exact_duel():
    from simkit.models.custom import track

    def step(state, roll, rules):
        return "up"

    up = track("up_at_once", start=0, step=step, outcomes=("up",), params={})

    class _Up(type(up)):  # type: ignore[misc]
        fight_outcomes = {"up": "revived"}

        def start(self):
            return "up"

        def on_hit(self, state, crit):
            return "up"

    assert not Party(party="fighter", level=1, dying=_Up()).has_exact


def test_the_custom_copy_of_the_seed000_track_gives_the_built_in_numbers_in_a_party_fight():
    """Three fighters against one monster that never lands a critical (only a natural 20
    hits, and then as a plain hit: every knock-out at dying 1, as the copy's start) and has
    no area effect (the recovery DC stays the monster's): P(a PC dies) and the expected
    deaths agree within 5 standard errors."""
    base = Party(
        party="fighter(hp_max=20),fighter(hp_max=20),fighter(hp_max=20)",
        level=5,
        monsters="7(hp=1200;attack=-5;damage=2d6+14)",
        area_uses=0,
        hero_points=0,
        target_downed="always",
    )
    copy = base.replace(dying=_copy_of(base))
    n = 20_000
    ra = simkit.simulate(base, n, 7, keep_outcomes=True)
    rb = simkit.simulate(copy, n, 8, keep_outcomes=True)
    pa, pb = ra.event_count("any_death") / n, rb.event_count("any_death") / n
    assert 0.05 < pa < 0.95, pa
    se = np.hypot(standard_error(pa, n), standard_error(pb, n))
    assert abs(pa - pb) < 5 * se, (pa, pb)
    da, db = ra.track_marks["deaths"], rb.track_marks["deaths"]
    sd = np.hypot(da.std(), db.std()) / np.sqrt(n)
    assert abs(da.mean() - db.mean()) < 5 * sd, (da.mean(), db.mean())


@pytest.mark.parametrize("dying", ["dnd5e", "dnd5e(bonus=2)"])
def test_a_custom_track_in_an_exact_day_is_monte_carlo_s(dying):
    """A custom rule at 0 HP in the exact day duel (AP-32): a knock-out in a fight is a
    defeat, a fall's knock-out follows the track (one equally likely face a round) until
    dead, stable at 0 HP (a defeat at the next fight) or revived at 1 HP. Exact = Monte
    Carlo within 5 SE; the answer moves from the seed-000 track's."""
    from simkit.models.day import Day

    base = dict(level=2, party="fighter", plan="fall(8), severe, long_rest, fall(9), moderate")
    day = Day(**base, dying=dying)
    assert day.has_exact
    assert_agrees_with_exact(day, 20_000, 3300)
    d = list(day.outcomes).index("defeat")
    assert abs(day.exact_hist()[d].sum() - Day(**base).exact_hist()[d].sum()) > 1e-3


def test_a_pcs_own_track_is_the_fight_s_track_in_exact_duels_and_days():
    """AP-25: one PC on its own track is that PC on the fight's track (same numbers and
    dice), in the exact duel and the exact day (AP-31, AP-32); and Monte Carlo agrees."""
    from simkit.models.day import Day

    duel = dict(level=3, threat="severe")
    own, wide = (
        Party(party="fighter(dying=dnd5e)", **duel),
        Party(party="fighter", dying="dnd5e", **duel),
    )
    assert own.exact_hist().tolist() == wide.exact_hist().tolist()
    plan = dict(level=2, plan="fall(8), severe, long_rest, fall(9), moderate")
    own_day = Day(party="fighter(dying=dnd5e(bonus=2))", **plan)
    wide_day = Day(party="fighter", dying="dnd5e(bonus=2)", **plan)
    assert own_day.exact_hist().tolist() == wide_day.exact_hist().tolist()
    assert_agrees_with_exact(own_day, 20_000, 3301)
