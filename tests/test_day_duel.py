"""Exact day duels (issue 20, item 5): one PC who is not a cleric through a plan.

The exact answer against the Monte Carlo day (every outcome and its cumulative
probability by plan step, within 5 standard errors) on plans of every step kind under
seed000 and pf2e-core; a plan of one fight against the exact party duel (equal); the
refusal of larger plans with the state count.
"""

from __future__ import annotations

import pytest

import simkit
from simkit.core.exact import ExactTooLarge, solve_if_possible
from simkit.models.day import Day
from simkit.models.day_duel import DAY_DUEL_MAX_CELLS, day_duel_cells, day_duel_states
from simkit.models.party import Party
from simkit.models.party_duel import DUEL_MAX_CELLS
from simkit.testing import assert_agrees_with_exact, run_cli

RULES = ("seed000", "pf2e-core")
N = 20_000

#: Level-1 plans of every step kind, each with a real chance of each end (no certain one).
PLANS = {
    "short_rest": dict(party="fighter", plan="moderate, short_rest, low, severe"),  # low: none
    "long_rest_hero": dict(
        party="fighter",
        plan="severe, long_rest, severe, severe",
        hero_policy="immediately",
        hero_points=2,
        hero_refresh="long_rest",
    ),
    "bed_rest_slots": dict(party="wizard", plan="moderate, moderate, bed_rest, moderate"),
    "falls_care": dict(
        party="fighter", plan="severe, fall(7), fall(7), short_rest, severe", hero_policy=2
    ),
    "road": dict(party="rogue", plan="no_sleep, no_food, severe, long_rest, moderate"),
    "fall_range_one": dict(party="fighter", plan="moderate, fall(uniform:3-11, one), moderate"),
    "unresolved": dict(party="fighter", plan="extreme, extreme", max_rounds=3),
    "care_cut": dict(party="fighter", plan="fall(9), fall(9), moderate", max_rounds=3),
}


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("name", list(PLANS))
def test_exact_day_duels_agree_with_monte_carlo(name, rules):
    day = Day(level=1, rules=rules, **PLANS[name])
    assert day.has_exact
    res = assert_agrees_with_exact(day, N, 20_261_201)
    ex = simkit.solve(day)
    assert 0.01 < ex["defeat"] < 0.99, (name, ex)  # a plan that tells something
    assert ex["survived_with_deaths"] == 0 and ex["retreat"] == 0  # one PC
    assert res["survived_with_deaths"] == 0 and res["retreat"] == 0


@pytest.mark.parametrize("rules", RULES)
def test_a_level_2_day_duel_agrees_with_monte_carlo(rules):
    day = Day(
        level=2,
        party="fighter",
        rules=rules,
        plan="severe, fall(7, one), short_rest, no_sleep, extreme, bed_rest, moderate",
        after_defeat="captured",
    )
    assert_agrees_with_exact(day, 50_000, 20_261_202)


@pytest.mark.parametrize("rules", RULES)
def test_the_road_s_deaths_and_exhaustion_come_at_their_step(rules):
    """Ten days without sleep exhaust the PC (R4-04: the fight is lost); days without
    food and water kill it (R4-05) at the step the fatigue rule says: the exact day and
    the Monte Carlo put all the mass in the same cell."""
    for plan in (", ".join(["no_sleep"] * 10 + ["moderate"]), ", ".join(["no_food"] * 14)):
        day = Day(level=1, party="fighter", rules=rules, plan=plan)
        ex = simkit.solve(day)
        res = simkit.simulate(day, 2_000, rng=3)
        assert ex["defeat"] == 1.0
        (t,) = ex.hist[day.outcomes.index("defeat")].nonzero()[0]
        assert res.hist[day.outcomes.index("defeat"), t] == 2_000


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize(("level", "role"), [(1, "fighter"), (1, "rogue"), (1, "wizard")])
def test_a_plan_of_one_fight_is_the_party_duel(level, role, rules):
    day = simkit.solve(Day(level=level, party=role, rules=rules, plan="severe"))
    duel = simkit.solve(Party(level=level, party=role, rules=rules, threat="severe"))
    assert day["survived"] == pytest.approx(duel["victory"], abs=1e-12)
    assert day["defeat"] == pytest.approx(duel["defeat"], abs=1e-12)
    assert day["unresolved"] == pytest.approx(duel["unresolved"], abs=1e-12)


def test_where_the_exact_solver_applies():
    assert Day(level=1, party="fighter", plan="moderate, long_rest, severe").has_exact
    assert Day(level=1, party="wizard", rules="pf2e-core").has_exact
    assert not Day().has_exact  # four PCs
    assert not Day(level=1, party="cleric").has_exact  # a healer
    assert not Day(level=1, party="fighter", rules="seed001").has_exact
    assert not Day(level=1, party="fighter", plan="moderate, [1, -1]").has_exact  # two monsters
    code, out, _ = run_cli("models")
    assert code == 0 and any(ln.split()[:3] == ["day", "step", "duels"] for ln in out.splitlines())


def test_a_plan_past_a_duel_s_bound_is_refused_with_its_state_count():
    day = Day(level=20, party="fighter(hp_max=9000)", plan="moderate, short_rest, moderate")
    assert day.has_exact
    total, largest = day_duel_states(day)
    assert day_duel_cells(day)[1] > DUEL_MAX_CELLS
    with pytest.raises(ExactTooLarge, match=f"up to {largest} states"):
        simkit.solve(day)
    code, out, err = run_cli(
        "exact",
        "day",
        "--set",
        "level=20",
        "--set",
        "party=fighter(hp_max=9000)",
        "--set",
        "plan=moderate",
    )
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and f"up to {largest} states" in err


def test_a_plan_past_the_day_s_bound_is_refused_with_its_state_count():
    """Fights at five check penalties (each night without sleep adds one): five fights,
    each within a duel's bound, too many together."""
    plan = ", ".join(["moderate", "no_sleep"] * 4 + ["moderate"])
    day = Day(level=20, party="fighter(hp_max=3400)", plan=plan, area_uses=1)
    total, largest = day_duel_states(day)
    cells, most = day_duel_cells(day)
    assert most <= DUEL_MAX_CELLS and DAY_DUEL_MAX_CELLS < cells
    with pytest.raises(ExactTooLarge, match=f"up to {total} states over its fights, {cells} cells"):
        simkit.solve(day)
    assert solve_if_possible(day) is None  # run's table: no exact column


def test_simkit_exact_day_answers():
    code, out, err = run_cli(
        "exact",
        "day",
        "--set",
        "level=1",
        "--set",
        "party=fighter",
        "--set",
        "plan=moderate, short_rest, moderate",
        "--format",
        "csv",
    )
    assert code == 0, err
    head, *lines = out.strip().splitlines()
    cols = head.split(",")
    at_o, at_p = cols.index("outcome"), cols.index("p")
    rows = {c[at_o]: c[at_p] for c in (line.split(",") for line in lines)}
    ex = simkit.solve(Day(level=1, party="fighter", plan="moderate, short_rest, moderate"))
    assert set(rows) == set(ex.probabilities)
    for outcome, p in ex.probabilities.items():
        assert float(rows[outcome]) == pytest.approx(p, abs=1e-9)


@pytest.mark.parametrize(
    ("level", "plan"),
    [
        (5, "severe, short_rest, fall(8, one), long_rest, severe"),
        (12, "trivial, moderate, short_rest, fall(9, one), moderate"),
        (20, "moderate, short_rest, fall(9, one), long_rest, moderate"),
    ],
)
def test_a_high_level_day_duel_agrees_with_monte_carlo(level, plan):
    """Past the old bound of 20,000 states a fight (issue 31): the day on the duel's grid
    against Monte Carlo, rests, a fall and its care included (P(defeat) 0.16, 0.39, 0.48;
    under a second each since AP-30)."""
    day = Day(level=level, party="fighter", plan=plan, hero_points=2, hero_policy="immediately")
    assert day.has_exact
    assert 0.1 < simkit.solve(day)["defeat"] < 0.9
    assert_agrees_with_exact(day, 20_000, 20_261_203)
