"""The exact duel with the seed rules that fights play (issue 31 item 2; AP-21..AP-24) and
PF2e's dying options (AP-26), AP-31: each held to Monte Carlo (the party of one PC, the
compiled loop) within 5 SE, and moving P(defeat) the way the text says, or not at all
where a duel leaves the rule nothing to do (a lone PC's knock-out is a defeat at once,
unless a hero point undoes it then, dying 0)."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

import simkit
from simkit.core.exact import NoExactSolver, build_chain, propagate
from simkit.models.day import Day
from simkit.models.duel_grid import duel_hist
from simkit.models.party import Party
from simkit.models.party_duel import duel_states
from simkit.testing import assert_agrees_with_exact, run_cli

_S000 = dict(party="fighter", level=3, threat="severe")
_HERO = dict(_S000, hero_points=2, hero_policy="immediately")
_S001 = dict(party="fighter", level=3, threat="severe", rules="seed001")

#: (the duel without the option, the option, how P(defeat) moves: "less", "more", "same")
CASES = [
    # R0-14, AP-23: temporary HP first (seed 000; a PC's own; seed 001 before the PE)
    (_S000, dict(temp_hp=10), "less"),
    (_S000, dict(party="fighter(temp_hp=4)"), "less"),
    (dict(party="wizard", level=3, threat="severe", rules="seed001"), dict(temp_hp=6), "less"),
    # R1-12, AP-24: Constitution damage lowers the PE's maximum (A1-4 per_point)
    (
        dict(party="rogue", level=3, threat="extreme", rules="seed001"),
        dict(con_damage=6, ability_reading="per_point"),
        "more",
    ),
    # P-14: Diehard, the at_death policy following death_at + 1: a critical knock-out at
    # death_at 2 no longer spends the point
    (dict(_HERO, hero_policy="at_death", death_at=2), dict(diehard=True), "more"),
    # P-16: the points reroll recovery checks, none revives
    (_HERO, dict(hero_use="reroll"), "more"),
    # nothing to do in a duel: slowed wakes with dying 0 (R0-04, AP-21), R1-05 needs a
    # turn at 0 HP (AP-22, A1-12), Toughness and fortune change the recovery check
    (_HERO, dict(slowed=True, slowed_loses="strike"), "same"),
    (dict(_S001, spend="asap"), dict(back_in_fight=True, back_again=True), "same"),
    (_HERO, dict(toughness=True), "same"),
    (_HERO, dict(fortune="misfortune"), "same"),
]


def _id(case) -> str:
    return ",".join(f"{k}={v}" for k, v in case[1].items())


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_option_in_the_exact_duel_is_monte_carlo_s_and_moves_as_the_text_says(case):
    base, option, move = case
    off, on = Party(**base), Party(**{**base, **option})
    assert on.has_exact
    assert_agrees_with_exact(on, 20_000, 3100 + CASES.index(case))
    h_off, h_on = duel_hist(off), duel_hist(on)
    d = list(on.outcomes).index("defeat")
    if move == "same":
        np.testing.assert_allclose(h_on, h_off, rtol=0, atol=1e-15)
    elif move == "less":
        assert h_on[d].sum() < h_off[d].sum() - 1e-3
    else:
        assert h_on[d].sum() > h_off[d].sum() + 1e-3


@pytest.mark.parametrize(
    "params",
    [
        dict(party="rogue", level=1, hero_points=2, hero_policy="at_death", death_at=2),
        dict(party="fighter", level=1, hero_points=3, hero_policy=2, diehard=True),
        dict(party="wizard", level=1, hero_points=1, hero_use="reroll", xp_budget=20),
        dict(party="fighter", level=1, hero_points=2, death_at=2, diehard=True, area_chance=0.5),
    ],
)
def test_pf2e_options_on_the_grid_are_the_chain_s(params):
    """Diehard and a hero point's reroll (P-14, P-16) on the grid = the state-by-state chain
    (:mod:`simkit.models.party_duel`), every round."""
    r = Party(**params)
    assert duel_states(r) <= 20_000
    chain = propagate(r, build_chain(r))
    np.testing.assert_allclose(duel_hist(r), chain.hist, rtol=0, atol=1e-13)


@pytest.mark.parametrize(
    "params",
    [
        dict(party="rogue", level=3, con_damage=6, xp_budget=20, hp=5),
        dict(party="fighter", level=3, con_damage=8, xp_budget=20, hp=5, temp_hp=2),
    ],
)
def test_con_damage_on_the_grid_is_the_chain_s(params):
    """R1-12 (AP-24: the PE's maximum lowered after each strike that hurts, A1-4
    ``per_point``) on the grid = the state-by-state chain, every round; and it matters here
    (P(defeat) several times higher)."""
    r = Party(**params, rules="seed001", ability_reading="per_point", area_uses=1)
    chain = propagate(r, build_chain(r))
    np.testing.assert_allclose(duel_hist(r), chain.hist, rtol=0, atol=1e-13)
    d = list(r.outcomes).index("defeat")
    without = duel_hist(dataclasses.replace(r, con_damage=0))
    assert chain.hist[d].sum() > 3 * without[d].sum()


@pytest.mark.parametrize(
    "params",
    [
        dict(party="fighter", level=1, temp_hp=4, hero_points=2, hero_policy="immediately"),
        dict(party="wizard", level=1, rules="seed001", temp_hp=5, xp_budget=20, area_uses=1),
        dict(party="rogue(temp_hp=3)", level=1, rules="seed001", hp=6, area_chance=0.5),
    ],
)
def test_temp_hp_on_the_grid_are_the_chain_s(params):
    """R0-14 (and A1-5's PE after them) on the grid = the state-by-state chain, every
    round."""
    r = Party(**params)
    assert duel_states(r) <= 20_000
    chain = propagate(r, build_chain(r))
    np.testing.assert_allclose(duel_hist(r), chain.hist, rtol=0, atol=1e-13)


def test_temp_hp_in_a_day_are_the_first_fight_s_only():
    """R0-14, AP-23: the day's first step is a fresh start (its temporary HP); a later
    fight starts from the state handed on (none). Exact = Monte Carlo, and the pool helps
    only when the day opens with a fight."""
    plan = "severe, short_rest, severe"
    base = dict(level=2, party="fighter", plan=plan)
    day = Day(**base, temp_hp=8)
    assert day.has_exact
    assert_agrees_with_exact(day, 20_000, 3131)
    d = list(day.outcomes).index("defeat")
    assert day.exact_hist()[d].sum() < Day(**base).exact_hist()[d].sum() - 1e-3
    later = dict(base, plan="short_rest, " + plan)
    np.testing.assert_allclose(
        Day(**later, temp_hp=8).exact_hist(), Day(**later).exact_hist(), rtol=0, atol=1e-15
    )


@pytest.mark.parametrize(
    "option",
    [dict(toughness=True), dict(diehard=True), dict(fortune="fortune"), dict(fortune="misfortune")],
    ids=["toughness", "diehard", "fortune", "misfortune"],
)
def test_pf2e_options_in_a_day_s_care_after_a_fall_are_monte_carlo_s(option):
    """P-13..P-15 in the care of a PC knocked out by a fall (AP-7, AP-32): exact = Monte
    Carlo within 5 SE, and the answer moves (a PC stable at 0 HP loses the next fight,
    R0-08: an easier recovery check leaves fewer PCs to be revived by their hero point)."""
    base = dict(level=1, party="fighter", plan="fall(8), severe", hero_points=1)
    day = Day(**base, **option)
    assert day.has_exact
    assert_agrees_with_exact(day, 20_000, 3140)
    d = list(day.outcomes).index("defeat")
    assert abs(day.exact_hist()[d].sum() - Day(**base).exact_hist()[d].sum()) > 1e-4


@pytest.mark.parametrize(
    ("model", "params", "why"),
    [
        ("party", dict(party="fighter,rogue"), "2 PCs; a duel is one PC"),
        ("party", dict(party="fighter", dying_effect=0.5, slowed=True), "dying_effect"),
        ("day", dict(party="fighter(grant_temp_hp=5)", plan="severe"), "grant_temp_hp"),
        (
            "day",
            dict(party="fighter", plan="severe, fall(6)", hero_use="reroll", hero_points=1),
            "AP-32",
        ),
        ("day", dict(party="fighter", rules="seed001"), "rules=seed001"),
    ],
)
def test_what_stays_refused_says_why_in_one_line(model, params, why):
    assert_refused_in_one_line(model, params, why)


def assert_refused_in_one_line(model: str, params: dict, why: str) -> None:
    """``model`` (party or day, level 1, ``params``) has no exact answer, and says ``why``:
    in ``exact_refusal``, in ``simkit.solve``'s error and in ``simkit exact``'s one line."""
    m = (Party if model == "party" else Day)(level=1, **params)
    assert not m.has_exact and why in m.exact_refusal
    with pytest.raises(NoExactSolver, match=re.escape(why)):
        simkit.solve(m)
    sets = [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in params.items()]
    argv = [x for s in ["level=1", *sets] for x in ("--set", s)]
    code, out, err = run_cli("exact", model, *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and why in err
