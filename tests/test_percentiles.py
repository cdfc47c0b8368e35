"""How swingy a run is: ``Result.percentiles()`` and ``simkit run --percentiles``."""

import io

import numpy as np
import pandas as pd
import pytest

import simkit
from simkit.core.params import ParamError
from simkit.core.percentiles import hist_quantiles
from simkit.models import make_model
from simkit.models.party import Party
from simkit.testing import run_cli

Q = (0.1, 0.5, 0.9)


def test_histogram_quantiles_equal_numpys_on_the_values():
    """The histogram's quantiles against numpy's inverted_cdf on the values themselves,
    over generated histograms (sparse, one value, ties at the quantiles)."""
    g = np.random.default_rng(20261205)
    qs = (0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99)
    for _ in range(300):
        width = int(g.integers(1, 12))
        counts = g.integers(0, 6, size=width) * (g.random(width) < 0.7)
        if counts.sum() == 0:
            counts[int(g.integers(width))] = 1
        values = np.repeat(np.arange(width), counts)
        want = np.quantile(values, qs, method="inverted_cdf")
        assert hist_quantiles(counts, qs).tolist() == want.astype(int).tolist(), counts


def test_party_percentiles_marks_and_hp_left():
    model = Party(level=5, threat="severe")
    res = simkit.simulate(model, 4000, rng=11, keep_state=True)
    df = res.percentiles().set_index("quantity")
    assert list(df.columns) == ["source", "n", "mean", "p10", "p50", "p90"]
    # a mark: read from its histogram, its mean the table's mean
    rounds = res.marks["rounds"].sum(axis=0)
    values = np.repeat(np.arange(len(rounds)), rounds)
    assert (
        df.loc["rounds", ["p10", "p50", "p90"]].tolist()
        == np.quantile(values, Q, method="inverted_cdf").tolist()
    )
    assert df.loc["rounds", "mean"] == pytest.approx(res["rounds"])
    assert "dead_mask" not in df.index  # (a bit mask has no order)
    # HP left per PC: the kept end states, a dead PC 0
    for k, pc in enumerate(model.roles):
        hp = np.where(res.final.dead[:, k], 0, res.final.hp[:, k])
        row = df.loc[f"hp_left:{pc}"]
        assert row["source"] == "end state" and row["n"] == 4000
        assert (
            row[["p10", "p50", "p90"]].tolist()
            == np.quantile(hp, Q, method="inverted_cdf").tolist()
        )
    # only the resources a PC has (a fighter has no spell slots); no PP under seed000
    assert "slots_left:wizard" in df.index and "slots_left:fighter" not in df.index
    assert not any(q.startswith("pp_left") for q in df.index)
    # pinned (seed 11): the median fight lasts 4 rounds, the cleric ends it low
    assert df.loc["rounds", ["p10", "p50", "p90"]].tolist() == [3, 4, 6]


def test_day_percentiles_equal_the_days_own_marks():
    """The day's marks' percentiles against each day's kept marks (DayEnd), resolved days."""
    day = make_model("day", level=4, plan="moderate, short_rest, severe", rules="pf2e-core")
    res = simkit.simulate(day, 3000, rng=4, keep_state=True)
    df = res.percentiles((0.25, 0.5, 0.9)).set_index("quantity")
    ended = res.final.outcome < len(day.outcomes)
    for mark in ("deaths", "step", "first_death"):
        v = getattr(res.final, mark)[ended]
        want = np.quantile(v, (0.25, 0.5, 0.9), method="inverted_cdf").tolist()
        assert df.loc[mark, ["p25", "p50", "p90"]].tolist() == want, mark
        assert df.loc[mark, "n"] == ended.sum()


def test_a_model_without_marks_gives_its_time():
    res = simkit.simulate(make_model("dying"), 2000, rng=1)
    df = res.percentiles()
    assert df["quantity"].tolist() == ["time (rounds)"]


@pytest.mark.parametrize("q", [(0.0, 0.5), (0.5, 1.0), (), (0.5, 0.5), "x"])
def test_bad_quantiles_name_q(q):
    res = simkit.simulate(make_model("dying"), 10, rng=1)
    with pytest.raises(ParamError, match="q="):
        res.percentiles(q)


def test_cli_percentiles():
    code, out, err = run_cli("run", "party", "--set", "level=3", "-n", "800", "--seed", "2",
                             "--percentiles", "--format", "csv", "--no-threat")  # fmt: skip
    assert code == 0, err
    df = pd.read_csv(io.StringIO(out))
    assert {"rounds", "deaths", "hero_spent", "hp_left:cleric"} <= set(df["quantity"])
    assert list(df.columns[-3:]) == ["p10", "p50", "p90"]
    code, out, err = run_cli("run", "day", "--set", "plan=low, short_rest, low", "-n",
                             "300", "--seed", "2", "--percentiles", "5,95", "--format",
                             "json")  # fmt: skip
    assert code == 0, err
    df = pd.read_json(io.StringIO(out))
    assert "hp_left:wizard" in set(df["quantity"]) and "p95" in df.columns
    for argv in (("--percentiles", "0,50"), ("--percentiles", "x"),
                 ("--percentiles", "--marks", "deaths")):  # fmt: skip
        code, out, err = run_cli("run", "party", "-n", "10", *argv)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
        assert "--percentiles" in err
