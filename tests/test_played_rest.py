"""The played short rest (P-11 as AP-18 reads it) and ``short_rest(once)``."""

from dataclasses import replace

import numpy as np
import pytest

import simkit
from simkit.core.params import ParamError
from simkit.models import make_model
from simkit.models.day_block import DayBlock, streams_source
from simkit.models.day_plan import RestStep, parse_plan, plan_text
from simkit.models.day_rest import short_rest


def _generated_block(day, n, seed):
    """A block of ``n`` days from generated states: HP anywhere in 0..max, some PCs dead,
    the cleric sometimes down, immunities running (0..6 rests), wounded."""
    g = np.random.default_rng(seed)
    start = day.fresh_start(n)
    hp = (start.hp * g.uniform(0.0, 1.0, size=start.hp.shape)).astype(np.int32)
    full = g.random(start.hp.shape) < 0.3
    dead = g.random(start.hp.shape) < 0.1
    start = replace(
        start,
        hp=np.where(dead, 0, np.where(full, start.hp, hp)).astype(np.int32),
        dead=dead,
        wounded=g.integers(0, 3, size=start.hp.shape).astype(np.int32),
        check_penalty=g.choice([0, 0, -4, -14], size=n).astype(np.int32),
    )
    src = streams_source(seed, 0, n, False)
    B = DayBlock.new(day, start, n, src, ())
    B.tw_wait[...] = g.integers(0, day.immune_rests + 1, size=B.tw_wait.shape)
    return B


@pytest.mark.parametrize(
    "params",
    [
        dict(),
        dict(short_rest_minutes=120),
        dict(short_rest_minutes=30),
        dict(treat_immunity="ten_minutes"),
        dict(treat_immunity="ten_minutes", short_rest_minutes=240),
        dict(party="cleric,cleric,fighter"),
        dict(party="fighter,cleric,cleric,wizard,rogue", level=12),
        dict(party="cleric,cleric,fighter", treat_immunity="per_healer"),
        dict(
            party="cleric,fighter,cleric,wizard", treat_immunity="per_healer", short_rest_minutes=90
        ),
    ],
)
def test_the_played_rest_leaves_no_pc_hurt_that_treat_wounds_could_still_help(params):
    """After the played short rest, every living PC below its max HP is one no Treat
    Wounds could reach within what is left of the budget: no medic alive and conscious,
    or its immunity (to that medic, under per_healer) lasts past the budget's end
    (written here from the rule, not from the kernel's own test)."""
    day = make_model("day", **{"plan": "short_rest, moderate", "level": 5, "rules": "pf2e-core",
                               **params})  # fmt: skip
    n = 3000
    B = _generated_block(day, n, 20261205)
    active = np.ones(n, dtype=bool)
    used = short_rest(day, B, active, 1)
    R = day.short_rest_minutes // 10
    assert used.min() >= 1 and used.max() <= R
    S = B.S
    medics = [c for c, p in enumerate(day.base_party.fighters.pcs) if p.medicine is not None]
    checked = 0
    for i in range(n):
        if B.ended[i] >= 0:  # (a care cut at max_rounds: the day is over)
            continue
        left = R - int(used[i])
        own = day.treat_immunity == "per_healer"
        counters = [  # the immunity counter of each conscious medic
            j if own else 0
            for j, c in enumerate(medics)
            if not S["dead"][i, c] and S["hp"][i, c] > 0
        ]
        for k in range(day.n_pcs):
            hurt = not S["dead"][i, k] and S["hp"][i, k] < S["hp_max"][i, k]
            for w in counters if hurt else ():
                checked += 1
                # it could be treated again only after the budget is spent
                assert int(B.tw_wait[i, k, w]) >= left, (i, k, w, left, B.tw_wait[i, k])
    assert checked > 100  # (the generated states reach the interesting case)
    # the rests were needed: a track that went on had someone to help
    assert (used > 1).mean() > 0.2


def test_short_rest_once_keeps_the_single_attempt_numbers():
    """``short_rest(once)`` is the one-attempt short rest: its histogram is pinned (seed 7,
    4,000 days; pinned again when the day's fights and cares left the party's kernel for
    the compiled loop, whose dice they draw since)."""
    day = make_model("day", level=5, plan="moderate, short_rest(once), moderate", rest_rules="pf2e")
    day = replace(day, area_chance=0.2, area_uses=1)  # (the benchmark's area before AP-20)
    res = simkit.simulate(day, 4000, rng=7)
    assert res.hist.tolist() == [[0, 0, 0, 3138], [0, 0, 0, 329], [0, 33, 0, 500], [0, 0, 0, 0]]
    assert res.marks["deaths"].sum(axis=0).tolist() == [3138, 285, 41, 3, 533]


def test_the_played_rest_heals_more_than_one_attempt():
    """Same seed, same first 10-minute rest: the played rest's later rests only heal (a
    critical failure aside), so fewer days lose a PC; the difference is beyond 3 standard
    errors of the two runs' difference at n = 20,000."""
    n = 20_000
    once = simkit.simulate(
        make_model("day", level=5, plan="moderate, short_rest(once), moderate",
                   rules="pf2e-core"), n, rng=3)  # fmt: skip
    played = simkit.simulate(
        make_model("day", level=5, plan="moderate, short_rest, moderate", rules="pf2e-core"),
        n,
        rng=3,
    )
    p1, p2 = once["any_death"], played["any_death"]
    se = np.sqrt(p1 * (1 - p1) / n + p2 * (1 - p2) / n)
    assert p1 - p2 > 3 * se, (p1, p2, se)


def test_the_plan_step_and_between():
    steps = parse_plan("moderate, short_rest(once), short_rest, moderate")
    assert steps[1] == RestStep("short_rest", once=True) and steps[2] == RestStep("short_rest")
    assert plan_text(steps) == "moderate, short_rest(once), short_rest, moderate"
    day = make_model("day", fights=2, between="short_rest(once)")
    assert day.plan_text == "moderate, short_rest(once), moderate"


def test_a_bad_budget_names_the_parameter():
    with pytest.raises(ParamError, match="short_rest_minutes"):
        make_model("day", short_rest_minutes=15)
    with pytest.raises(ParamError, match="treat_immunity"):
        make_model("day", treat_immunity="day")


def test_run_day_notes_a_rest_that_changed_nothing():
    from simkit.testing import run_cli

    code, _, err = run_cli("run", "day", "--set", "plan=fall(9), short_rest, moderate",
                           "-n", "500", "--seed", "1")  # fmt: skip
    assert code == 0
    notes = [line for line in err.splitlines() if "changed nothing" in line]
    assert len(notes) == 1 and "step 2 (short_rest)" in notes[0] and "seeds' rest" in notes[0]
    code, _, err = run_cli("run", "day", "--set", "plan=moderate, short_rest, moderate",
                           "--set", "rules=pf2e-core", "-n", "500", "--seed", "1")  # fmt: skip
    assert code == 0 and "changed nothing" not in err


def test_per_healer_immunity_lets_a_second_medic_treat_again():
    """Two clerics, one hurt PC (a level-5 fighter at 1 HP): with the hour's immunity to
    every healer it is treated once in the played rest; with per_healer (the Remaster's
    wording) each cleric treats it once, so it ends the rest with more HP (by more than 5
    standard errors of the difference of the two means)."""
    n = 4000
    hp = {}
    for reading in ("hour", "per_healer"):
        day = make_model("day", plan="short_rest, low", level=5, rules="pf2e-core",
                         party="cleric,cleric,fighter", treat_immunity=reading)  # fmt: skip
        B = _generated_block(day, n, 7)
        B.tw_wait[...] = 0
        B.S["hp"][:, :2] = B.S["hp_max"][:, :2]  # the clerics at full HP, up
        B.S["dead"][...] = False
        B.S["hp"][:, 2] = 1
        short_rest(day, B, np.ones(n, dtype=bool), 1)  # (per_healer: both in the first)
        hp[reading] = B.S["hp"][:, 2].astype(float)
    se = np.sqrt(hp["hour"].var() / n + hp["per_healer"].var() / n)
    assert hp["per_healer"].mean() - hp["hour"].mean() > 5 * se
