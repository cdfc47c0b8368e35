"""Seed 001 chain: agony (rounds) then recovery (hours) as one model."""

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simkit import ParamError, simulate, solve
from simkit.models import get_model
from simkit.models.agony import Agony
from simkit.models.perseverance import Perseverance
from simkit.models.recovery import Recovery
from simkit.testing import run_cli as run
from simkit.testing import within_se

WITH_HELP = dict(spend="never", medic_bonus=3, pp=4, con=2, healer=4, level=3)


def test_stages_take_the_chains_parameters():
    chain = Agony(
        pp=5, pp_max=9, medic_bonus=2, spend=2, con=3, healer=1, checks=7, level=4, check_penalty=-2
    )
    first, then = chain.stages()
    assert first == Perseverance(pp=5, pp_max=9, medic_bonus=2, spend=2, check_penalty=-2)
    assert then == {"stable": Recovery(con=3, healer=1, checks=7, level=4, check_penalty=-2)}
    assert get_model("agony") is Agony


def test_exact_is_the_product_of_the_stages():
    chain = Agony(**WITH_HELP)
    first, then = chain.stages()
    p1 = solve(first).probabilities
    p2 = solve(then["stable"]).probabilities
    ex = solve(chain).probabilities
    assert ex["dead"] == pytest.approx(p1["dead"] + p1["stable"] * p2["dead"])
    assert ex["awake"] == pytest.approx(p1["stable"] * p2["awake"])
    assert ex["rested"] == pytest.approx(p1["stable"] * p2["rested"])
    assert sum(ex.values()) == pytest.approx(1.0)
    # perseverance d20 + 3 >= 15 fails on 1..11: dies in agony if it fails 4 times
    assert p1["dead"] == pytest.approx((11 / 20) ** 4)
    # the split by stage: deaths in agony (rounds) and in recovery (hours)
    split = solve(chain).stage_summary().set_index(["stage", "outcome"])["p"]
    assert split["perseverance", "dead"] == pytest.approx((11 / 20) ** 4)
    assert split["stable->recovery", "dead"] == pytest.approx(p1["stable"] * p2["dead"])
    assert split.sum() == pytest.approx(1.0)


def test_outcomes_that_end_in_agony_do_not_continue():
    ex = solve(Agony(pp=3, spend="never", heal_round=2, back_in_fight=True))
    assert ex["revived"] == 1.0
    back = solve(Agony(pp=3, pp_max=4, spend="asap", back_in_fight=True))
    assert back["back"] == 1.0 and back["dead"] == 0
    short = solve(Agony(pp=10, pp_max=10, spend="never", max_rounds=4))
    assert short["unresolved"] == 1.0
    # no track reaches the recovery stage: every count stays where it belongs
    none_stable = simulate(Agony(pp=0), 1000, rng=1)
    assert none_stable.counts["dead"] == 1000 and none_stable.counts["unresolved"] == 0


def test_monte_carlo_matches_exact_and_is_reproducible():
    chain = Agony(**WITH_HELP)
    n = 100_000
    res = simulate(chain, n, rng=9)
    ex = solve(chain).probabilities
    for o, p in ex.items():
        assert within_se(res[o], p, n), o
    again = simulate(chain, n, rng=9, block_size=2**14)
    assert again.counts == res.counts
    assert again.then["stable"].counts == res.then["stable"].counts
    assert np.array_equal(again.then["stable"].marks["hp"], res.then["stable"].marks["hp"])
    other = simulate(chain, n, rng=10)
    assert other.counts != res.counts
    df = res.summary()
    assert list(df.columns) == ["outcome", "kind", "count", "n", "p", "ci_low", "ci_high", "exact"]
    assert list(df["outcome"]) == ["dead", "revived", "back", "awake", "rested", "unresolved"]
    assert df["count"].sum() == n
    stages = res.stage_summary()
    assert stages["count"].sum() == n
    exact_split = solve(chain).stage_summary()
    for (_, row), p in zip(stages.iterrows(), exact_split["p"]):
        assert within_se(row["p"], p, n), row


def test_both_time_scales_in_the_survival_frame():
    chain = Agony(**WITH_HELP)
    res = simulate(chain, 50_000, rng=2)
    surv = res.survival()
    units = surv.groupby("stage")["time_unit"].first().to_dict()
    assert units == {"perseverance": "rounds", "stable->recovery": "hours"}
    hours = surv[surv["stage"] == "stable->recovery"]
    assert hours["time"].max() == 8
    for _, row in surv.iterrows():
        assert within_se(row["p"], row["exact"], res.n), row.to_dict()
    # the HP on waking, from the recovery stage
    marks = res.then["stable"].marks_frame("hp").set_index("outcome")
    assert marks.loc["rested", "value"] == 3 and marks.loc["awake", "value"] == 1


def test_invalid_values_are_the_stages_errors():
    with pytest.raises(ParamError, match="pp=8 is not allowed: pp must be at most pp_max=6"):
        Agony(pp=8)
    with pytest.raises(ParamError, match="checks must be an integer in \\[7, 8\\]"):
        Agony(checks=9)
    with pytest.raises(ParamError, match="spend must be one of never, asap, last"):
        Agony(spend="often")


config = st.fixed_dictionaries(
    {
        "pp": st.integers(0, 6),
        "medic_bonus": st.sampled_from([None, 0, 5]),
        "spend": st.sampled_from(["never", "asap", "last", 2]),
        "heal_round": st.sampled_from([None, 3]),
        "back_in_fight": st.booleans(),
        "nonlethal": st.sampled_from([False, False, True]),
        "con": st.integers(-3, 8),
        "healer": st.sampled_from([None, 0, 6]),
        "checks": st.sampled_from([7, 8]),
        "check_penalty": st.integers(-3, 0),
    }
)


@settings(
    max_examples=15, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(config)
def test_monte_carlo_matches_exact_generated(params):
    chain = Agony(**params)
    n = 30_000
    res = simulate(chain, n, rng=21)
    for o, p in solve(chain).probabilities.items():
        assert within_se(res[o], p, n), (params, o)


# -- CLI ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sets", [[], [x for k, v in WITH_HELP.items() for x in ("--set", f"{k}={v}")]]
)
def test_cli_run_agrees_with_exact(sets):
    n = 100_000
    code, out, _ = run("run", "agony", "-n", str(n), "--seed", "5", "--format", "csv", *sets)
    assert code == 0
    mc = pd.read_csv(io.StringIO(out)).set_index("outcome")
    code, out, _ = run("exact", "agony", "--format", "csv", *sets)
    assert code == 0
    ex = pd.read_csv(io.StringIO(out)).set_index("outcome")
    assert list(ex.index) == list(Agony.outcomes) + ["unresolved"]
    for o in ex.index:
        assert within_se(mc.loc[o, "p"], ex.loc[o, "p"], n), o


def test_cli_lists_the_chain():
    code, out, _ = run("models")
    assert code == 0
    for word in ("perseverance", "recovery", "agony"):
        assert word in out
    code, out, _ = run("models", "agony")  # one model's listing: its rule ids, both time units
    assert code == 0 and "rounds then hours" in out


@pytest.mark.parametrize(
    "sets,needle",
    [
        (["pp=-2"], "pp=-2 is not allowed: pp must be an integer in [0, 100]"),
        (["pp=7"], "pp=7 is not allowed: pp must be at most pp_max=6"),
        (["spend=sometimes"], "spend must be one of never, asap, last"),
        (["checks=6"], "checks=6 is not allowed"),
    ],
)
@pytest.mark.parametrize("verb", ["run", "exact"])
def test_cli_bad_values_one_line_status_2(verb, sets, needle):
    argv = [verb, "agony"] + [x for s in sets for x in ("--set", s)]
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], err


def test_cli_stages_split_deaths_by_stage():
    code, out, _ = run(
        "exact",
        "agony",
        "--stages",
        "--format",
        "csv",
        "--set",
        "pp=4",
        "--set",
        "spend=never",
        "--set",
        "medic_bonus=3",
    )
    assert code == 0
    df = pd.read_csv(io.StringIO(out))
    assert list(df.columns) == ["stage", "time_unit", "outcome", "kind", "p"]
    assert set(df["stage"]) == {"perseverance", "stable->recovery"}
    assert df["p"].sum() == pytest.approx(1.0)
    code, _, err = run("exact", "dying", "--stages")
    assert code == 2 and "not a chain" in err


def test_nonlethal_knockout_is_not_in_danger_of_death():
    # R1-11 + the seed's "sans la mettre en danger de mort": safe by default
    safe = solve(Agony(nonlethal=True))
    assert safe["dead"] == 0 and safe["awake"] + safe["rested"] == pytest.approx(1.0)
    literal = solve(Agony(nonlethal=True, nonlethal_recovery="checks"))
    assert literal["dead"] == pytest.approx(solve(Recovery())["dead"])
    # a lethal knock-out still faces lethal checks, whatever the option
    assert solve(Agony(pp=4, spend="never", medic_bonus=3))["dead"] > 0.5
    res = simulate(Agony(nonlethal=True), 50_000, rng=3)
    assert res.counts["dead"] == 0
    # with lethal checks off, "under 10" keeps the character down: it wakes by hour 8
    r = Recovery(lethal=False, con=-3)
    assert solve(r)["dead"] == 0 and solve(r)["rested"] > 0.9
