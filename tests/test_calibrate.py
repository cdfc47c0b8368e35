"""calibrate: known answers from the exact solver on monotone grids, unreachable targets, CLI."""

import io
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest

import simkit
from simkit import Dying, ParamError
from simkit.analysis.ambiguities import typical_fortitude
from simkit.analysis.design import CALIBRATION_COLUMNS, Calibration, calibrate, parse_probability
from simkit.cli.main import main
from simkit.models.dnd import DnD5e
from simkit.testing import within_se

BASE = Dying(save_bonus=11)
DCS = range(10, 41)


@pytest.fixture(scope="module")
def grid():
    """P(dead) for every DC 10..40, from the exact solver."""
    g = {dc: simkit.solve(BASE.replace(dc=dc))["dead"] for dc in DCS}
    assert all(np.diff([g[d] for d in DCS]) >= 0)  # the grid is monotone: higher DC, more deaths
    return g


@pytest.mark.parametrize("dc", [14, 17, 22, 27])
@pytest.mark.parametrize("frac, pick", [(0.3, 0), (0.7, 1)])
def test_finds_the_dc_and_its_neighbours(grid, dc, frac, pick):
    target = grid[dc] + frac * (grid[dc + 1] - grid[dc])
    for scan_limit in (None, 2):  # full scan, and integer bisection
        cal = calibrate(BASE, target, "dc", lo=10, hi=40, scan_limit=scan_limit)
        best = dc + pick
        assert isinstance(cal, Calibration)
        assert cal.value == best and cal.method == "exact" and cal.reachable
        assert cal.p == pytest.approx(grid[best], abs=1e-12)
        assert cal.ci_low == cal.ci_high == cal.p
        assert cal.lower == (best - 1, pytest.approx(grid[best - 1], abs=1e-12))
        assert cal.upper == (best + 1, pytest.approx(grid[best + 1], abs=1e-12))
        assert cal.bracket == (dc, dc + 1)
        assert cal.monotone
        assert cal.model == BASE.replace(dc=best)
        assert cal.search_range == (10, 40)


def test_target_on_a_grid_value_and_default_range(grid):
    cal = calibrate(BASE, grid[20], "dc")  # the whole allowed range, 1..100
    assert cal.value == 20 and cal.p == pytest.approx(grid[20], abs=1e-15)
    assert cal.search_range == (1, 100)
    assert cal.achievable[0] <= grid[10] and cal.achievable[1] >= grid[40]


@pytest.mark.parametrize("target, end", [(0.999, 20), (0.0001, 10)])
def test_unreachable_target_is_reported(grid, target, end):
    cal = calibrate(BASE, target, "dc", lo=10, hi=20)
    assert not cal.reachable and cal.bracket is None
    assert cal.value == end
    assert cal.achievable == (pytest.approx(grid[10]), pytest.approx(grid[20]))
    assert "not reachable" in cal.message and "[10, 20]" in cal.message
    df = cal.to_frame()
    assert not df["reachable"].any()


def test_unreachable_with_bisection(grid):
    cal = calibrate(BASE, grid[10] / 2, "dc", lo=10, hi=40, scan_limit=2)
    assert not cal.reachable and cal.value == 10
    assert cal.achievable == (pytest.approx(grid[10]), pytest.approx(grid[40]))
    assert len(cal.evaluations) == 3  # both ends, then the neighbour of the closest


def test_heal_round_over_a_huge_range_by_bisection():
    model = Dying(dc=20, save_bonus=11)
    exact = {h: simkit.solve(model.replace(heal_round=h))["dead"] for h in range(1, 40)}
    target = (exact[4] + exact[5]) / 2 + 1e-4  # nearer heal_round 5
    cal = calibrate(model, target, "heal_round", hi=100_000)
    assert cal.value == 5 and cal.bracket == (4, 5) and cal.reachable
    assert len(cal.evaluations) < 30  # bisection, not a scan of 100000 values
    assert cal.lower[1] == pytest.approx(exact[4]) and cal.upper[1] == pytest.approx(exact[6])
    # no healer arriving ever beats never healing: 25% is out of reach
    far = calibrate(model, 0.30, "heal_round", hi=100_000)
    assert not far.reachable and far.value == 100_000


def test_number_parameter_by_root_finding():
    model = Dying(dc=20, save_bonus=11, on_damage="increment")
    lo_p = simkit.solve(model.replace(hit_chance=0.0))["dead"]
    hi_p = simkit.solve(model.replace(hit_chance=0.5))["dead"]
    target = (lo_p + hi_p) / 2
    cal = calibrate(model, target, "hit_chance", lo=0.0, hi=0.5, xtol=1e-10)
    assert cal.reachable and 0 < cal.value < 0.5
    assert cal.p == pytest.approx(target, abs=1e-7)
    assert simkit.solve(cal.model)["dead"] == pytest.approx(cal.p, abs=1e-12)
    a, b = cal.bracket
    assert a < cal.value < b and cal.lower[0] == a and cal.upper[0] == b
    # out of range for the same model
    miss = calibrate(model, 0.99, "hit_chance", lo=0.0, hi=0.5)
    assert not miss.reachable and miss.value == 0.5


def test_monte_carlo_finds_the_same_dc(grid):
    n = 20_000
    cal = calibrate(BASE, grid[22], "dc", lo=18, hi=26, method="mc", n=n, rng=7)
    assert cal.method == "mc" and cal.n == n and cal.seed == 7
    assert cal.value == 22
    assert within_se(cal.p, grid[22], n)
    assert cal.ci_low < cal.p < cal.ci_high
    assert cal.lower[0] == 21 and cal.upper[0] == 23
    df = cal.to_frame()
    assert (df["ci_high"] > df["ci_low"]).all()
    # same seed, same answer
    again = calibrate(BASE, grid[22], "dc", lo=18, hi=26, method="mc", n=n, rng=7)
    assert again.evaluations == cal.evaluations


@dataclass(frozen=True, slots=True)
class NoExact5e(DnD5e):
    """The 5e track, pretending to have no exact solver (Monte Carlo only)."""

    name: ClassVar[str] = "noexact5e"
    has_exact: ClassVar[bool] = False


def test_models_without_exact_use_monte_carlo():
    exact = {b: simkit.solve(DnD5e(bonus=b))["dead"] for b in range(-3, 6)}
    n = 20_000
    cal = calibrate(NoExact5e(), exact[2], "bonus", lo=-3, hi=5, n=n, rng=3)
    assert cal.method == "mc" and cal.value == 2
    assert within_se(cal.p, exact[2], n)
    with pytest.raises(ParamError, match="no exact solver"):
        calibrate(NoExact5e(), 0.3, "bonus", method="exact")


def test_custom_track_and_model_names():
    cal = calibrate("dnd5e", "30%", "bonus")
    want = min(range(-20, 21), key=lambda b: abs(simkit.solve(DnD5e(bonus=b))["dead"] - 0.3))
    assert cal.value == want and cal.reachable


def test_character_level_is_one_call(grid):
    cal = calibrate("dying", "10%", "dc", character_level=5)
    ref = calibrate(Dying(save_bonus=typical_fortitude(5)), 0.10, "dc")
    assert cal.value == ref.value and cal.model.save_bonus == typical_fortitude(5)
    # the found DC is the best over every DC
    ps = {
        dc: simkit.solve(Dying(save_bonus=typical_fortitude(5), dc=dc))["dead"]
        for dc in range(1, 101)
    }
    assert cal.value == min(ps, key=lambda d: (abs(ps[d] - 0.10), d))


def test_frame_columns():
    df = calibrate(BASE, 0.1, "dc", lo=10, hi=40).to_frame()
    assert tuple(df.columns) == CALIBRATION_COLUMNS
    assert list(df["role"]) == ["lower", "best", "upper"]
    edge = calibrate(BASE, 0.0001, "dc", lo=10, hi=40).to_frame()
    assert list(edge["role"]) == ["best", "upper"]


@pytest.mark.parametrize(
    "text, p", [("10%", 0.1), ("0.25", 0.25), ("1e-3", 0.001), (" 100% ", 1.0)]
)
def test_parse_probability(text, p):
    assert parse_probability(text) == pytest.approx(p)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(target=1.5), "target"),
        (dict(target="ten"), "target"),
        (dict(vary="check"), "choice parameter"),
        (dict(vary="nope"), "unknown parameter"),
        (dict(outcome="gone"), "outcome"),
        (dict(lo=30, hi=20), "lo < hi"),
        (dict(lo=0), "outside the allowed range"),
        (dict(lo=10.5), "integer"),
        (dict(method="guess"), "method"),
        (dict(n=0, method="mc"), "n must"),
        (dict(confidence=1.5), "confidence"),
        (dict(scan_limit=1), "scan_limit"),
    ],
)
def test_bad_arguments(kwargs, match):
    args = dict(target=0.1, vary="dc")
    args.update(kwargs)
    with pytest.raises(ParamError, match=match):
        calibrate(BASE, args.pop("target"), args.pop("vary"), **args)


# -- CLI -------------------------------------------------------------------------------------------
def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_cli_calibrate(grid):
    target = grid[20] + 0.2 * (grid[21] - grid[20])
    code, out, err = run(
        "calibrate",
        "dying",
        "--target",
        f"dead={target}",
        "--vary",
        "dc",
        "--set",
        "save_bonus=11",
        "--range",
        "10..40",
        "--format",
        "csv",
    )
    assert code == 0 and err == ""
    df = pd.read_csv(io.StringIO(out))
    assert tuple(df.columns) == CALIBRATION_COLUMNS
    assert list(df["value"]) == [19, 20, 21]
    code, out, _ = run(
        "calibrate", "dying", "--target", "dead=10%", "--vary", "dc", "--set", "save_bonus=11"
    )
    assert code == 0 and "dc=17 gives dead=" in out


def test_cli_unreachable_note():
    code, out, err = run(
        "calibrate",
        "dying",
        "--target",
        "dead=99.9%",
        "--vary",
        "dc",
        "--range",
        "10..20",
        "--format",
        "csv",
    )
    assert code == 0
    assert err.startswith("simkit: note: target dead=0.9990 is not reachable")
    assert pd.read_csv(io.StringIO(out))["reachable"].eq(False).all()


@pytest.mark.parametrize(
    "argv",
    [
        ["calibrate", "dying", "--target", "dead=110%", "--vary", "dc"],
        ["calibrate", "dying", "--target", "gone=10%", "--vary", "dc"],
        ["calibrate", "dying", "--target", "dead=10%", "--vary", "check"],
        ["calibrate", "dying", "--target", "dead=10%", "--vary", "dc", "--range", "40..10"],
        ["calibrate", "dying", "--target", "dead=10%", "--vary", "dc", "--range", "ten"],
        ["calibrate", "dying", "--target", "dead=10%", "--vary", "dc", "--character-level", "0"],
        ["calibrate", "dying", "--vary", "dc"],
        ["calibrate", "nomodel", "--target", "dead=10%", "--vary", "dc"],
        ["calibrate", "dnd4e", "--target", "10%", "--vary", "dc", "--method", "mc", "-n", "-5"],
        ["calibrate", "dying", "--target", "dead=10%", "--vary", "dc", "--level", "3"],
    ],
)
def test_cli_bad_input_exits_2_with_one_line(argv):
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert err.startswith("simkit: error:") and err.count("\n") == 1


def test_values_ruled_out_by_other_parameters_are_skipped():
    from simkit.models.dnd import DnD4e

    cal = calibrate(DnD4e(), 0.5, "dc")  # dc 21..100 (the range of dc) would exceed surge_at=20
    assert [v for v, _ in cal.skipped] == list(range(21, 101))
    assert "surge_at=20 must be at least dc=21" in cal.message
    ps = {dc: simkit.solve(DnD4e(dc=dc))["dead"] for dc in range(1, 21)}
    assert cal.value == min(ps, key=lambda d: (abs(ps[d] - 0.5), d))
    assert max(v for v, *_ in cal.evaluations) == 20
    with pytest.raises(ParamError, match="no value of dc"):
        calibrate(DnD4e(), 0.5, "dc", lo=21, hi=30)


def test_an_event_of_the_marks_can_be_the_target():
    """party's any_death (a PC died, whatever the outcome) is calibrated by Monte Carlo,
    and the probability reported is the share of tracks with deaths >= 1 at that value."""
    from simkit.models import make_model

    base = make_model("party", level=3)
    cal = calibrate(base, 0.05, "xp_budget", outcome="any_death", n=4000, rng=2, lo=40, hi=160)
    res = simkit.simulate(base.replace(xp_budget=cal.value), 4000, rng=cal.seed)
    deaths = res.marks["deaths"]
    assert cal.p == pytest.approx(deaths[:, 1:].sum() / 4000)
    with pytest.raises(ParamError, match="event of the marks"):
        calibrate(base, 0.05, "xp_budget", outcome="any_death", method="exact")


def test_every_event_of_the_marks_can_be_the_target_and_a_mean_is_refused():
    """Not only the declared any_death: a PC's death (death:cleric) too, from the
    dead_mask mark; a mean (expected_deaths) is refused in one line that says why."""
    from simkit.models import make_model

    base = make_model("party", level=3)
    cal = calibrate(base, 0.05, "hero_points", outcome="death:cleric", n=3000, rng=4)
    res = simkit.simulate(base.replace(hero_points=cal.value), 3000, rng=cal.seed)
    mask = res.marks["dead_mask"].sum(axis=0)  # cleric: the third PC, bit 2
    assert cal.p == pytest.approx(mask[(np.arange(len(mask)) >> 2) & 1 == 1].sum() / 3000)
    with pytest.raises(ParamError, match="a mean of model 'party', not a probability"):
        calibrate(base, 0.05, "hero_points", outcome="expected_deaths", n=100)
    with pytest.raises(ParamError, match="did you mean 'death:cleric'"):
        calibrate(base, 0.05, "hero_points", outcome="death:clerc", n=100)
