"""sensitivity: signs that make sense, exact differences, skipped directions, Monte Carlo, CLI."""

import io
import math
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pandas as pd
import pytest

import simkit
from simkit import Dying, ParamError
from simkit.analysis.ambiguities import typical_fortitude
from simkit.analysis.design import SENSITIVITY_COLUMNS, sensitivity
from simkit.cli.main import main
from simkit.models.dnd import DnD4e, DnD5e
from simkit.testing import standard_error

MODEL = Dying(dc=20, save_bonus=11, hit_chance=0.1, crit_chance=0.05)


@pytest.fixture(scope="module")
def table():
    return sensitivity(MODEL)


def row(df, param, delta, outcome):
    sel = df[(df["param"] == param) & (df["delta"] == delta) & (df["outcome"] == outcome)]
    assert len(sel) == 1, (param, delta, outcome)
    return sel.iloc[0]


def test_signs_make_sense(table):
    assert row(table, "dc", 1, "dead")["change"] > 0  # a harder DC kills more
    assert row(table, "dc", -1, "dead")["change"] < 0
    assert row(table, "save_bonus", 1, "dead")["change"] < 0  # a better save kills fewer
    assert row(table, "check_penalty", -1, "dead")["change"] > 0  # fatigue kills more
    assert row(table, "death_at", 1, "dead")["change"] < 0  # more room before death
    assert row(table, "crit_chance", 0.05, "dead")["change"] > 0  # more critical hits kill more
    assert row(table, "hero_points", 1, "dead")["change"] < 0


def test_changes_are_exact_differences(table):
    base = simkit.solve(MODEL).probabilities
    done = table[table["note"] == ""]
    assert len(done) > 20
    for r in done.itertuples():
        p = simkit.solve(MODEL.replace(**{r.param: r.value})).probabilities[r.outcome]
        assert r.p_base == pytest.approx(base[r.outcome], abs=1e-12)
        assert r.p == pytest.approx(p, abs=1e-12)
        assert r.change == pytest.approx(p - base[r.outcome], abs=1e-12)
        assert r.ci_low == r.ci_high == r.change
        assert r.method == "exact"
        assert r.value == pytest.approx(r.base_value + r.delta)


def test_sorted_by_effect_with_skips_last(table):
    assert tuple(table.columns) == SENSITIVITY_COLUMNS
    size = table["change"].abs().to_numpy()
    done = ~np.isnan(size)
    k = int(done.sum())
    assert done[:k].all() and not done[k:].any()  # skipped rows at the end
    s = np.where(size[:k] < 1e-12, 0, size[:k])
    assert (np.diff(s) <= 0).all()


def test_skipped_directions_say_why(table):
    skipped = table[table["change"].isna()]
    notes = dict(zip(zip(skipped["param"], skipped["delta"]), skipped["note"]))
    assert "outside the allowed range" in notes[("start", -1)]
    assert "outside the allowed range" in notes[("hero_points", -1)]
    assert "not set" in notes[("hp_max", 1)] and "not set" in notes[("hp_max", -1)]
    assert "wounded_rule" in notes[("wounded", 1)]  # a cross-parameter rule
    assert skipped["outcome"].isna().all()
    # directions that are fine are never skipped
    assert ("dc", 1) not in notes and ("save_bonus", -1) not in notes
    # every numeric parameter appears, both ways
    numeric = {
        k for k, m in simkit.core.params.spec(Dying).items() if m["kind"] in ("int", "float")
    }
    assert set(table["param"]) == numeric
    for name in numeric:
        assert set(table.loc[table["param"] == name, "delta"].abs()) == (
            {0.05} if "chance" in name else {1}
        )


def test_selection_and_steps():
    df = sensitivity(MODEL, params=["hit_chance", "dc"], outcomes="dead", steps={"hit_chance": 0.2})
    assert set(df["param"]) == {"hit_chance", "dc"} and set(df["outcome"].dropna()) == {"dead"}
    r = row(df, "hit_chance", 0.2, "dead")
    assert r["value"] == pytest.approx(0.3)
    down = df[
        (df["param"] == "hit_chance") & (df["delta"] == -0.2)
    ]  # 0.1 - 0.2 < 0: one skipped row
    assert len(down) == 1 and down["change"].isna().all() and "outside" in down["note"].iloc[0]
    with pytest.raises(ParamError, match="integer"):
        sensitivity(MODEL, params=["dc"], steps={"dc": 0.5})
    with pytest.raises(ParamError, match="steps"):
        sensitivity(MODEL, params=["dc"], steps={"save_bonus": 2})
    with pytest.raises(ParamError, match="choice parameter"):
        sensitivity(MODEL, params=["check"])
    with pytest.raises(ParamError, match="outcome"):
        sensitivity(MODEL, outcomes=["gone"])


def test_monte_carlo_agrees_with_exact_differences():
    n = 100_000
    df = sensitivity(MODEL, params=["dc", "save_bonus"], method="mc", n=n, rng=12)
    ex = sensitivity(MODEL, params=["dc", "save_bonus"]).set_index(["param", "delta", "outcome"])
    assert (df["method"] == "mc").all() and df.attrs["seed"] == 12
    for r in df.itertuples():
        e = ex.loc[(r.param, r.delta, r.outcome)]
        se = math.hypot(standard_error(e["p"], n), standard_error(e["p_base"], n))
        assert abs(r.change - e["change"]) <= 5 * se, r
        assert r.ci_low <= r.change <= r.ci_high


@pytest.mark.parametrize("cls", [DnD5e, DnD4e])
def test_custom_tracks(cls):
    df = sensitivity(cls(), outcomes=["dead"])
    assert row(df, "dc", 1, "dead")["change"] > 0
    assert row(df, "bonus", 1, "dead")["change"] < 0
    assert row(df, "failures", 1, "dead")["change"] > 0


def test_character_level():
    df = sensitivity("dying", params=["dc"], character_level=7, outcomes="dead")
    want = sensitivity(Dying(save_bonus=typical_fortitude(7)), params=["dc"], outcomes="dead")
    pd.testing.assert_frame_equal(df, want)


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_cli_sensitivity():
    code, out, err = run(
        "sensitivity",
        "dying",
        "--set",
        "dc=20",
        "--outcome",
        "dead",
        "--param",
        "dc",
        "--param",
        "save_bonus",
        "--format",
        "csv",
    )
    assert code == 0 and err == ""
    df = pd.read_csv(io.StringIO(out))
    assert tuple(df.columns) == SENSITIVITY_COLUMNS and len(df) == 4
    assert df["change"].abs().is_monotonic_decreasing
    code, out, _ = run("sensitivity", "dnd5e")
    assert code == 0 and "failures" in out and "outside the allowed range" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["sensitivity", "dying", "--param", "check"],
        ["sensitivity", "dying", "--outcome", "gone"],
        ["sensitivity", "dying", "--set", "dc=0"],
        ["sensitivity", "nomodel"],
        ["sensitivity", "dying", "--method", "guess"],
        ["sensitivity", "dying", "--level", "0"],
        ["sensitivity", "dying", "--character-level", "x"],
    ],
)
def test_cli_bad_input_exits_2_with_one_line(argv):
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert err.startswith("simkit: error:") and err.count("\n") == 1


def test_paired_intervals_are_narrower_and_independent_keeps_the_default_streams():
    n = 20_000
    df = sensitivity(MODEL, params=["dc", "save_bonus"], method="mc", n=n, rng=3, outcomes="dead")
    ind = sensitivity(
        MODEL, params=["dc", "save_bonus"], method="mc", n=n, rng=3, outcomes="dead", paired=False
    )
    assert df.attrs["paired"] and not ind.attrs["paired"]
    width = df["ci_high"] - df["ci_low"]
    width_ind = df["ci_high_independent"] - df["ci_low_independent"]
    assert (width < width_ind / 1.5).all()  # measured: x2.4 (the same dice, track by track)
    assert (df["p_value"] < 1e-6).all()
    # independent: today's streams and interval (the default mode's numbers)
    assert ind["p_value"].isna().all()
    np.testing.assert_array_equal(ind["ci_low"], ind["ci_low_independent"])
    base = simkit.simulate(MODEL, n, 3)
    assert ind["p_base"].iloc[0] == base["dead"]


def test_an_event_of_the_marks_is_an_outcome_here_paired_too():
    """`sensitivity party --outcome any_death`: the event's change for each step, paired
    against the base track by track (the same numbers as the two runs' marks give)."""
    from simkit.analysis.paired import paired_test
    from simkit.models import make_model

    base = make_model("party", level=3)
    n = 3000
    df = sensitivity(base, params=["hero_points"], outcomes=["any_death", "tpk"], n=n, rng=5)
    assert set(df["outcome"]) == {"any_death", "tpk"} and (df["method"] == "mc").all()
    r = row(df, "hero_points", 1, "any_death")
    runs = [
        simkit.simulate(m, n, df.attrs["seed"], positional=True, keep_outcomes=True)
        for m in (base, base.replace(hero_points=2))
    ]
    x, y = (res.track_marks["deaths"] >= 1 for res in runs)
    assert (r["p_base"], r["p"]) == pytest.approx((x.mean(), y.mean()))
    d, lo, hi, p = paired_test([np.sum(y & ~x)], [np.sum(x & ~y)], n)
    assert (r["change"], r["ci_low"], r["ci_high"], r["p_value"]) == pytest.approx(
        (d[0], lo[0], hi[0], p[0])
    )
    assert r["ci_high"] - r["ci_low"] < r["ci_high_independent"] - r["ci_low_independent"]
    with pytest.raises(ParamError, match="method='exact'"):
        sensitivity(base, params=["hero_points"], outcomes="any_death", method="exact")
    with pytest.raises(ParamError, match="not a probability"):
        sensitivity(base, params=["hero_points"], outcomes="expected_deaths", n=100)
    out, err = io.StringIO(), io.StringIO()
    argv = ["sensitivity", "party", "--outcome", "any_death", "--param", "hero_points"]
    with redirect_stdout(out), redirect_stderr(err):
        assert main(argv + ["-n", "500", "--seed", "1", "--format", "csv"]) == 0
    got = pd.read_csv(io.StringIO(out.getvalue()))
    assert set(got["outcome"]) == {"any_death"}
