"""The exact duel on its grid (:mod:`simkit.models.duel_grid`, issue 31 item 6): held to
the state-by-state chain of :mod:`simkit.models.party_duel` on small duels, to Monte Carlo
at levels 1 to 20, and refused in one line past its bound."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

import simkit
from simkit.core.exact import ExactTooLarge, build_chain, propagate, solve_if_possible
from simkit.core.params import ParamError
from simkit.models.day import Day
from simkit.models.day_duel import _fight, _fight_rules
from simkit.models.day_plan import FightStep
from simkit.models.duel_grid import duel_hist
from simkit.models.party import Party
from simkit.models.party_duel import (
    DUEL_MAX_CELLS,
    duel_cells,
    duel_initial,
    duel_states,
    duel_step,
)
from simkit.testing import assert_agrees_with_exact


def _small_duels(count: int, seed: int) -> list[dict]:
    """Generated small duels: every option the chain has (PE under seed 001, hero points
    up to 3, area effects, traits, short horizons)."""
    g = np.random.default_rng(seed)

    def pick(xs):
        return xs[int(g.integers(len(xs)))]

    out: list[dict] = []
    while len(out) < count:
        params = {
            "level": pick((1, 2)),
            "party": pick(("fighter", "rogue", "wizard", "fighter(pe_max=5)")),
            "xp_budget": pick((20, 40, 60, 80)),
            "rules": pick(("seed000", "pf2e-core", "seed001")),
            "hero_points": pick((0, 1, 3)),
            "hero_policy": pick(["immediately", "at_death", 2]),
            "trait": pick(("lethal", "lethal", "nonlethal", "death")),
            "area_chance": pick((0.0, 0.5, 1.0)),
            "attacks": pick((1, 2, 3)),
            "map": pick(("standard", "agile")),
            "max_rounds": pick((3, 100)),
            "hero_knockout": pick(("spend", "die")),
            "pe_damage": pick(("pe_first", "hp_only")),
            "hp": pick((None, 9)),
        }
        m = Party(**params)
        if m.has_exact and duel_states(m) <= 6000:
            out.append(params)
    return out


@pytest.mark.parametrize("params", _small_duels(24, 31))
def test_grid_gives_the_chain_s_numbers(params):
    """Every round's P(victory) and P(defeat): the grid = the state-by-state chain."""
    r = Party(**params)
    chain = propagate(r, build_chain(r))
    hist = duel_hist(r)
    np.testing.assert_allclose(hist, chain.hist, rtol=0, atol=1e-13)
    assert simkit.solve(r).probabilities == pytest.approx(chain.probabilities, abs=1e-13)


def _chain_fight(r: Party, starts: dict) -> tuple[dict, float]:
    """Reference of a day's fight: each start's chain pushed by plain dicts, one at a time."""
    out: dict = defaultdict(float)
    lost = 0.0
    for start, p0 in starts.items():
        dist = {k: p0 * q for k, q in duel_initial(r, start).items()}
        for _ in range(r.max_rounds):
            if sum(dist.values()) <= 1e-18:  # (the grid stops there too)
                break
            nxt: dict = defaultdict(float)
            for s, p in dist.items():
                for key, q in duel_step(r, s, 1, ends=True).items():
                    if key == "defeat":
                        lost += p * q
                    elif key[0] == "victory":
                        out[key[1:]] += p * q
                    else:
                        nxt[key] += p * q
            dist = nxt
    return dict(out), lost


@pytest.mark.parametrize("party", ["wizard", "fighter"])
def test_day_fight_from_many_starts_is_the_chain_s(party):
    """A day's fight from a mixture of carried states (two wounded values) = each start's
    chain, weighted: the grid is linear in its start."""
    day = Day(level=1, party=party, plan="severe")
    r = _fight_rules(day, next(s for s in day.steps if isinstance(s, FightStep)))
    pc = r.fighters.pcs[0]
    dist = {(pc.hp, 1, pc.slots, 0): 0.5, (5, 0, 0, 0): 0.2, (pc.hp - 3, 1, 1, 1): 0.25}
    dist[(0, 1, 0, 0)] = 0.05  # at 0 HP: a defeat at once
    got, lost = _fight(r, dist)
    want: dict = defaultdict(float)
    want_lost = 0.05
    for w in (0, 1):
        starts = {k[:3]: p for k, p in dist.items() if k[3] == w and k[0] > 0}
        ends, d = _chain_fight(r, starts)
        want_lost += d
        for k, p in ends.items():
            want[k + (w,)] += p
    assert lost == pytest.approx(want_lost, abs=1e-13)
    assert set(got) <= set(want)
    for k, p in want.items():
        assert got.get(k, 0.0) == pytest.approx(p, abs=1e-13), k


@pytest.mark.parametrize("level", [1, 5, 10, 15, 20])
def test_exact_duel_agrees_with_monte_carlo(level):
    """Issue 31's check: the default boss at levels 1, 5, 10, 15, 20 (up to 4,568,256 chain
    states with the calibrated benchmark's 10 area uses, AP-20): exact = Monte Carlo within
    5 SE, every outcome and every round's cumulative absorption (about a second each: the
    exact side is milliseconds, AP-30)."""
    r = Party(party="fighter", level=level)
    assert_agrees_with_exact(r, 20_000, 310 + level)


@pytest.mark.parametrize(
    "params",
    [
        dict(party="wizard", level=12, rules="pf2e-core", area_chance=0.5),
        dict(party="rogue", level=16, rules="seed001", hero_points=0),
        dict(party="wizard", level=20, rules="seed001"),  # (the largest: 18,139,968 states)
        dict(party="fighter", level=20, rules="seed001", hero_points=2),
        dict(party="rogue", level=20, threat="severe", dying="dnd5e"),  # a custom rule at 0 HP
    ],
)
def test_exact_duel_of_other_classes_agrees_with_monte_carlo(params):
    assert_agrees_with_exact(Party(**params), 20_000, 37)


def test_every_class_and_rule_set_is_exact_at_level_20():
    """The bound holds the largest default duel (a seed-001 wizard: HP + PE, slots, the
    calibrated benchmark's 10 area uses, AP-20), with room for its options (AP-31)."""
    for party in ("fighter", "rogue", "wizard"):
        for rules in ("seed000", "pf2e-core", "seed001"):
            r = Party(party=party, level=20, rules=rules)
            assert r.has_exact and duel_cells(r) <= DUEL_MAX_CELLS / 10, (party, rules)


def test_too_large_is_refused_in_one_line_with_its_count():
    big = Party(party="fighter(hp_max=9000)", level=20)
    count, cells = duel_states(big), duel_cells(big)
    assert cells > DUEL_MAX_CELLS
    with pytest.raises(ExactTooLarge) as info:
        simkit.solve(big)
    msg = str(info.value)
    assert isinstance(info.value, ParamError) and "\n" not in msg
    assert f"up to {count} states" in msg and f"needs {cells} cells" in msg
    assert f"more than {DUEL_MAX_CELLS}" in msg
    assert solve_if_possible(big) is None  # run's table: no exact column


def test_a_long_horizon_costs_only_the_rounds_fought(monkeypatch):
    """``max_rounds=100000``: the monster's side is pushed as far as the fight goes (it is
    over, to 1e-18, in under 30 rounds), the answer that of the default horizon."""
    from simkit.models import duel_grid

    pushed: list[int] = []
    upto = duel_grid._MonsterSide.upto
    monkeypatch.setattr(
        duel_grid._MonsterSide, "upto", lambda self, k: (pushed.append(k), upto(self, k))[1]
    )
    long = simkit.solve(Party(party="fighter", level=20, max_rounds=100_000))
    assert 10 < max(pushed) < 40
    r = Party(party="fighter", level=20)
    assert long.probabilities == pytest.approx(simkit.solve(r).probabilities, abs=1e-15)
