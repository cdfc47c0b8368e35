"""Seed 001 agony (perseverance): rules by id, kernel vs scalar reference, MC vs exact, CLI."""

import io

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simkit import ParamError, simulate, solve
from simkit.models import make_model
from simkit.models.perseverance import (
    AGONISING,
    BACK,
    DEAD,
    REVIVED,
    STABILISED,
    STABLE,
    Perseverance,
    stabilize_cost,
)
from simkit.testing import assert_agrees_with_exact, replay, within_se
from simkit.testing import run_cli as run


def _kernel_vs_reference(model, n=500, seed=0):
    """Step the kernel; replay each track's draws through the scalar reference.

    One step resolves ``k`` rounds from one packed draw ``r``: the ``j``-th round with a
    first-aid check reads the helper's natural roll ``r // 20**j % 20 + 1``.
    """
    out0, phase0, pp0 = model._start()

    def step(track, t, k, draws):
        assert len(draws) <= 1
        (phase, pp), r = track, int(draws[0].value) if draws else 0
        for off in range(k):
            roll = 0
            if model.medic_acts(t + off):
                roll, r = r % 20 + 1, r // 20
            out, phase, pp = model.ref_round(phase, pp, t + off, roll)
            if out is not None:
                return out + 4 * off, (phase, pp)
        return None, (phase, pp)

    def same_pp(state, row, track, t, code):  # every round, and so the mark at absorption
        assert int(state["pp"][row]) == track[1]

    replay(
        model,
        n,
        seed,
        start=lambda draws: (out0, (phase0, pp0)),
        step=step,
        marks=lambda track: {"pp": track[1]},
        check=same_pp,
    )


CONFIGS = [
    dict(),
    dict(spend="never", medic_bonus=5),
    dict(spend="asap", pp=6, pp_max=12, medic_bonus=0, back_in_fight=True),
    dict(spend=3, pp=5, pp_max=9, medic_bonus=2, medic_from=2, back_in_fight=True, enough_pp=3),
    dict(spend="never", pp=6, medic_bonus=4, heal_round=4, check_penalty=-3),
    dict(pp=0, zero_pp="end_of_turn", medic_bonus=6),
    dict(nonlethal=True, back_in_fight=True, enough_pp=5, pp=2),
    dict(spend="last", pp=8, pp_max=16, stabilize_cap=None, medic_bonus=1, max_rounds=4),
]


@pytest.mark.parametrize("params", CONFIGS)
def test_kernel_matches_scalar_reference_on_same_draws(params):
    _kernel_vs_reference(Perseverance(**params), n=400, seed=7)


# -- rules, by id ---------------------------------------------------------------------------


def test_r1_01_loses_one_pp_per_turn_and_dies_at_zero():
    m = Perseverance(pp=5, spend="never")
    assert m.exact_step((AGONISING, 4), 1) == {(AGONISING, 3): 1.0}
    assert m.exact_step((AGONISING, 1), 1) == {"dead": 1.0}
    e = solve(m)
    assert e["dead"] == 1.0 and e.hist[0, 5] == 1.0  # dies at the end of round 5
    # the kernel: no helper, nothing random: one step resolves several rounds, and every
    # track ends dead in the fifth of them (code = outcome + 4 x offset), 0 PP left
    state, _ = m.init(10, None)
    codes, k = m.step(state, 1, None)
    assert k >= 5 and (codes == DEAD + 4 * 4).all() and (state["pp"] == 0).all()
    res = simulate(m, 1000, rng=1)
    assert res.hist[0, 5] == 1000


def test_a1_1_zero_pp_both_readings():
    assert Perseverance(pp=0).exact_initial() == {"dead": 1.0}
    late = Perseverance(pp=0, zero_pp="end_of_turn")
    assert late.exact_initial() == {(AGONISING, 0): 1.0}
    assert solve(late).hist[0, 1] == 1.0  # dead at the end of round 1
    # rescued during round 1 before the end of its turn: first aid with P = 11/20 (d20 + 5 >= 15)
    aided = solve(late.replace(medic_bonus=5))
    assert aided["stable"] == pytest.approx(11 / 20) and aided["dead"] == pytest.approx(9 / 20)
    assert solve(late.replace(heal_round=1))["revived"] == 1.0


@pytest.mark.parametrize(
    "pp_max,cap,cost",
    [
        (1, 3, 1),
        (3, 3, 1),
        (7, 3, 1),
        (8, 3, 2),
        (11, 3, 2),
        (12, 3, 3),
        (16, 3, 3),
        (40, 3, 3),
        (16, None, 4),
        (40, None, 10),
        (3, None, 1),
        (20, 5, 5),
    ],
)
def test_r1_04_cost_quarter_min_1_max_3(pp_max, cap, cost):
    assert stabilize_cost(pp_max, cap) == cost
    assert Perseverance(pp=pp_max, pp_max=pp_max, stabilize_cap=cap).stabilize_cost == cost


def test_r1_04_spending_stabilises_with_cap_of_3():
    m = Perseverance(pp=10, pp_max=20, spend="asap")  # quarter = 5, capped at 3
    res = simulate(m, 2000, rng=3)
    assert res.counts["stable"] == 2000 and res.hist[1, 1] == 2000
    assert res.marks_frame("pp").set_index("outcome").loc["stable", "value"] == 7
    nocap = simulate(m.replace(stabilize_cap=None), 2000, rng=3)
    assert nocap.marks_frame("pp").set_index("outcome").loc["stable", "value"] == 5


def test_r1_04_minimum_of_1():
    m = Perseverance(pp=2, pp_max=3, spend="asap")  # a quarter of 3 is 0: costs 1
    res = simulate(m, 1000, rng=2)
    assert res.marks_frame("pp").set_index("outcome").loc["stable", "value"] == 1
    # not enough PP to pay: keeps agonising and dies
    poor = Perseverance(pp=2, pp_max=12, spend="asap")  # costs 3
    assert solve(poor)["dead"] == 1.0


def test_r1_04_spend_policies():
    # pp 5, cost 1: 'last' spends on the turn it has 1 PP left, round 5, leaving 0
    last = simulate(Perseverance(pp=5, spend="last"), 1000, rng=1)
    assert last.hist[1, 5] == 1000
    assert last.marks_frame("pp")["value"].tolist() == [0]
    # after 2 turns: spends at its turn in round 3 with 3 PP, leaving 2
    k2 = simulate(Perseverance(pp=5, spend=2), 1000, rng=1)
    assert k2.hist[1, 3] == 1000 and k2.marks_frame("pp")["value"].tolist() == [2]
    # after k turns, but at its last chance if that comes first
    k9 = simulate(Perseverance(pp=5, spend=9), 1000, rng=1)
    assert k9.hist[1, 5] == 1000
    assert solve(Perseverance(pp=5, spend="never"))["dead"] == 1.0
    assert solve(Perseverance(pp=5, spend="asap")).hist[1, 1] == 1.0


def test_r1_02_first_aid_stops_the_drain():
    # a helper who always succeeds (d20 + 20 >= 15) from round 3: two PP lost, then stable
    m = Perseverance(pp=5, spend="never", medic_bonus=20, medic_from=3)
    res = simulate(m, 2000, rng=4)
    assert res.hist[1, 3] == 2000
    assert res.marks_frame("pp")["value"].tolist() == [3]
    # DC 15: d20 + 4 succeeds on 11..20, half the time, every round while PP last
    half = solve(Perseverance(pp=3, spend="never", medic_bonus=4))
    assert half["stable"] == pytest.approx(1 - 0.5**3)
    assert half.hist[1, 1:4] == pytest.approx([0.5, 0.25, 0.125])
    # check_penalty is added to the Medicine check
    assert solve(Perseverance(pp=3, spend="never", medic_bonus=4, check_penalty=-5))[
        "stable"
    ] == pytest.approx(1 - 0.75**3)


def test_first_aid_acts_before_the_characters_turn():
    # 1 PP left and the helper succeeds in round 1: stable, the PP is kept
    m = Perseverance(pp=1, spend="never", medic_bonus=20)
    assert m.ref_round(AGONISING, 1, 1, roll=1) == (STABLE, STABILISED, 1)
    assert solve(m)["stable"] == 1.0


def test_r1_03_healing_at_the_start_of_its_round():
    e = solve(Perseverance(pp=4, spend="never", heal_round=3))
    assert e["revived"] == 1.0 and e.hist[2, 3] == 1.0
    late = solve(Perseverance(pp=2, spend="never", heal_round=3))
    assert late["dead"] == 1.0  # PP ran out at the end of round 2
    assert Perseverance(heal_round=1).ref_round(AGONISING, 3, 1) == (REVIVED, AGONISING, 3)


def test_r1_05_back_in_the_fight_and_a1_3_reserve():
    m = Perseverance(pp=4, pp_max=8, spend="asap", back_in_fight=True)  # cost 2, then 1 more
    res = simulate(m, 1000, rng=5)
    assert res.counts["back"] == 1000 and res.hist[3, 1] == 1000
    assert res.marks_frame("pp")["value"].tolist() == [1]
    # a reserve of 3 PP: after paying 2 it has 2, not enough: stays stable
    reserve = solve(m.replace(enough_pp=3))
    assert reserve["stable"] == 1.0 and reserve["back"] == 0
    # stabilised by first aid, it spends its 1 PP on the same round's turn
    aided = Perseverance(pp=1, spend="never", medic_bonus=20, back_in_fight=True)
    assert aided.ref_round(AGONISING, 1, 1, roll=1) == (BACK, STABILISED, 0)
    assert solve(aided)["back"] == 1.0


def test_r1_11_nonlethal_stabilises_at_once():
    res = simulate(Perseverance(nonlethal=True, pp=0, spend="never"), 500, rng=1)
    assert res.counts["stable"] == 500 and res.hist[1, 0] == 500
    # nonlethal: back in the fight needs only the 1 PP spent, not the A1-3 reserve
    nl = Perseverance(nonlethal=True, pp=2, back_in_fight=True, enough_pp=5, pp_max=6)
    e = solve(nl)
    assert e["back"] == 1.0 and e.hist[3, 1] == 1.0
    assert solve(nl.replace(pp=0))["stable"] == 1.0


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(pp=-1), "pp=-1 is not allowed: pp must be an integer in \\[0, 100\\]"),
        (dict(pp=7, pp_max=6), "pp=7 is not allowed: pp must be at most pp_max=6"),
        (dict(spend="sometimes"), "spend must be one of never, asap, last or an integer"),
        (dict(spend=0), "spend"),
        (dict(stabilize_cap=0), "stabilize_cap"),
        (dict(medic_from=0), "medic_from"),
        (dict(enough_pp=7, pp_max=6), "enough_pp=7 is not allowed"),
        (dict(zero_pp="never"), "zero_pp must be one of at_once, end_of_turn"),
        (dict(check_penalty=2), "check_penalty must be an integer in \\[-50, 0\\]"),
    ],
)
def test_invalid_parameters_name_themselves(kwargs, match):
    with pytest.raises(ParamError, match=match):
        Perseverance(**kwargs)


# -- Monte Carlo against exact ----------------------------------------------------------------


def _agree(model, n, seed):
    assert_agrees_with_exact(model, n, seed, steps=15)


def test_regression_pinned_value():
    # pinned (packed-rounds kernel): a change here means the random streams or the kernel changed
    res = simulate(Perseverance(pp=4, spend="never", medic_bonus=3), 100_000, rng=20261129)
    assert res.counts == {"dead": 9259, "stable": 90741, "revived": 0, "back": 0, "unresolved": 0}
    assert within_se(res["dead"], (11 / 20) ** 4, res.n)  # first aid fails on 1..11


config = st.fixed_dictionaries(
    {
        "pp_max": st.integers(1, 14),
        "pp_frac": st.floats(0, 1),
        "medic_bonus": st.sampled_from([None, -2, 3, 8]),
        "medic_from": st.integers(1, 4),
        "heal_round": st.sampled_from([None, 1, 3, 6]),
        "spend": st.sampled_from(["never", "asap", "last", 1, 3]),
        "stabilize_cap": st.sampled_from([3, None, 1]),
        "back_in_fight": st.booleans(),
        "enough_pp": st.integers(1, 3),
        "nonlethal": st.sampled_from([False, False, True]),
        "zero_pp": st.sampled_from(["at_once", "end_of_turn"]),
        "check_penalty": st.integers(-4, 0),
        "max_rounds": st.sampled_from([3, 8, 100]),
    }
)


@settings(
    max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(config)
def test_monte_carlo_matches_exact_generated(params):
    params = dict(params)
    params["pp"] = round(params.pop("pp_frac") * params["pp_max"])
    params["enough_pp"] = min(params["enough_pp"], params["pp_max"])
    _agree(Perseverance(**params), 30_000, 11)


# -- CLI ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sets",
    [
        [],
        [
            "--set",
            "spend=never",
            "--set",
            "medic_bonus=4",
            "--set",
            "pp=5",
            "--set",
            "heal_round=5",
            "--set",
            "back_in_fight=true",
        ],
    ],
)
def test_cli_run_agrees_with_exact(sets):
    n = 100_000
    code, out, _ = run("run", "perseverance", "-n", str(n), "--seed", "3", "--format", "csv", *sets)
    assert code == 0
    mc = pd.read_csv(io.StringIO(out)).set_index("outcome")
    code, out, _ = run("exact", "perseverance", "--format", "csv", *sets)
    assert code == 0
    ex = pd.read_csv(io.StringIO(out)).set_index("outcome")
    assert list(ex.index) == ["dead", "stable", "revived", "back", "unresolved"]
    for o in ex.index:
        assert within_se(mc.loc[o, "p"], ex.loc[o, "p"], n), o
        assert mc.loc[o, "exact"] == pytest.approx(ex.loc[o, "p"])


def test_cli_lists_the_model():
    code, out, _ = run("models", "perseverance")
    assert code == 0
    for word in (
        "perseverance",
        "step = 1 round",
        "pp_max",
        "medic_bonus",
        "R1-04",
        "A1-1",
        "stabilize_cap",
    ):
        assert word in out
    assert make_model("perseverance", "seed") == Perseverance()


@pytest.mark.parametrize(
    "sets,needle",
    [
        (["pp=-1"], "pp=-1 is not allowed: pp must be an integer in [0, 100]"),
        (["pp=9", "pp_max=6"], "pp=9 is not allowed: pp must be at most pp_max=6"),
        (["spend=whenever"], "spend must be one of never, asap, last or an integer in [1, 100000]"),
        (["medic_bonus=good"], "medic_bonus must be an integer in [-20, 60] or none"),
        (["back_in_fight=maybe"], "back_in_fight must be true or false"),
    ],
)
@pytest.mark.parametrize("verb", ["run", "exact"])
def test_cli_bad_values_one_line_status_2(verb, sets, needle):
    argv = [verb, "perseverance"] + [x for s in sets for x in ("--set", s)]
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], err


def test_a1_13_quarter_rounded_down_or_up():
    # a quarter of 6 PP: 1 rounded down (default), 2 up; with 1 PP left the character can
    # pay 1 and stabilise, not 2 (issue 31)
    assert Perseverance(pp_max=6).stabilize_cost == 1
    assert Perseverance(pp_max=6, quarter="up").stabilize_cost == 2
    assert Perseverance(pp_max=8, quarter="up").stabilize_cost == 2  # a whole quarter: same
    assert Perseverance(pp_max=13, quarter="up", stabilize_cap=None).stabilize_cost == 4
    down = solve(Perseverance(pp=1, pp_max=6)).probabilities
    up = solve(Perseverance(pp=1, pp_max=6, quarter="up")).probabilities
    assert down["dead"] == 0.0 and up["dead"] == 1.0
    m = Perseverance(pp=5, pp_max=7, quarter="up", medic_bonus=2, back_in_fight=True)
    assert solve(m).probabilities["back"] < solve(Perseverance(
        pp=5, pp_max=7, medic_bonus=2, back_in_fight=True
    )).probabilities["back"] + 1e-12
    assert_agrees_with_exact(m, 40_000, 1313)
