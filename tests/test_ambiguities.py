"""The ambiguity registry and report: every id, documented defaults, odds per reading, CLI."""

import io
import itertools
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from typing import ClassVar

import pandas as pd
import pytest

import simkit
from simkit import Dying, ParamError
from simkit.analysis.ambiguities import (
    AMBIGUITIES,
    REPORT_COLUMNS,
    Ambiguity,
    ambiguity_report,
    side_by_side,
    typical_fortitude,
    typical_params,
)
from simkit.cli.main import main
from simkit.core.params import param, spec
from simkit.models import REGISTRY
from simkit.models.custom import CustomTrack
from simkit.testing import within_se

IDS = [
    "A0-1",
    "A0-2",
    "A0-3",
    "A0-4",
    "A0-5",
    "A0-6",
    "A0-7",
    "A0-8",
    "A0-9",
    "A1-1",
    "A1-2",
    "A1-3",
    "A1-4",
    "A1-5",
    "A1-6",
    "A1-7",
    "A1-8",
    "A1-9",
    "A1-10",
    "A1-11",
    "A1-12",
    "A1-13",
    "A4-1",
    "A4-2",
    "A4-3",
    "A4-4",
    "A4-5",
]


def test_every_ambiguity_of_rules_md_is_listed_once():
    assert [a.id for a in AMBIGUITIES] == IDS
    for a in AMBIGUITIES:
        assert sum(r.default for r in a.readings) == 1 and len(a.readings) >= 2
        assert all(a.param in r.params for r in a.readings), a.id
        assert len({tuple(sorted(r.params.items())) for r in a.readings}) == len(a.readings), a.id
    with pytest.raises(ValueError, match="exactly one"):
        Ambiguity("X", "R", "dying", "check", "?", ())


def test_registered_models_know_every_parameter_and_the_defaults_match():
    checked = 0
    for a in AMBIGUITIES:
        cls = REGISTRY.get(a.model)
        if cls is None:
            continue
        known = spec(cls)
        names = (
            set(a.setup)
            | set(typical_params(a.model, 5))
            | {k for r in a.readings for k in r.params}
        )
        assert names <= set(known), (a.id, names - set(known))
        if known[a.param]["kind"] in ("choice", "bool", "policy"):
            # the reading marked default is the model's default (docs/rules.md's documented default)
            assert a.default_reading.params[a.param] == known[a.param]["default"], a.id
        checked += 1
    assert checked >= 5  # the five seed-000 ambiguities at least


def test_typical_fortitude_grows_with_level():
    values = [typical_fortitude(lv) for lv in range(1, 21)]
    assert values[0] == 1 + 4 + 2 and all(b > a for a, b in itertools.pairwise(values))


@pytest.fixture(scope="module")
def report():
    return ambiguity_report(levels=(1, 5, 10), n=20_000)  # (n: the Monte Carlo rows, A1-5)


def test_report_matches_direct_solves(report):
    assert tuple(report.columns) == REPORT_COLUMNS
    ok = report[report["status"] == "ok"]
    assert set(ok["ambiguity"]) >= {"A0-1", "A0-2", "A0-3", "A0-4", "A0-5"}
    for r in ok[ok["method"] == "exact"].itertuples():  # (A1-5: party, Monte Carlo)
        a = next(x for x in AMBIGUITIES if x.id == r.ambiguity)
        rd = next(x for x in a.readings if x.label == r.reading)
        model = REGISTRY[r.model](**{**typical_params(r.model, r.level), **a.setup, **rd.params})
        assert r.p == pytest.approx(simkit.solve(model)[r.outcome], abs=1e-12)
        assert r.method == "exact" and r.default == rd.default
    # one row per reading and level
    a01 = ok[ok["ambiguity"] == "A0-1"]
    assert len(a01) == 2 * 3 and set(a01["level"]) == {1, 5, 10}


def test_report_shows_readings_that_matter(report):
    ok = report[report["status"] == "ok"].set_index(["ambiguity", "level", "reading"])["p"]
    # A0-1: increment (published) kills more than max (as written) when the enemy keeps hitting
    assert ok[("A0-1", 5, "increment")] > ok[("A0-1", 5, "max")]
    # A0-3: a hero point spent at death saves everyone; never spending it does not
    assert ok[("A0-3", 5, "at death")] == 0 and ok[("A0-3", 5, "never")] > 0.05
    # A0-4 at level 10: the flat check is harsher than a good Fortitude save
    lv10 = Dying(save_bonus=typical_fortitude(10), monster_level=10)
    assert ok[("A0-4", 10, "flat")] == pytest.approx(
        simkit.solve(lv10.replace(check="flat"))["dead"]
    )
    assert ok[("A0-4", 10, "flat")] > ok[("A0-4", 10, "save")]


def test_unregistered_models_are_listed_not_failed(report):
    for a in AMBIGUITIES:
        if a.model not in REGISTRY:
            rows = report[report["ambiguity"] == a.id]
            assert len(rows) == 1 and rows["p"].isna().all() and rows["model"].iloc[0] == a.model
            assert rows["status"].iloc[0] == (a.note or "model not available")
    # A1-5 is the party model's pe_damage (seed001): P(a PC dies) under each reading
    a15 = report[report["ambiguity"] == "A1-5"]
    assert (a15["model"] == "party").all() and (a15["status"] == "ok").all()
    first, hp_only = (
        a15[a15["reading"] == lbl].set_index("level")["p"] for lbl in ("PE first", "HP only")
    )
    assert (first < hp_only).all()  # stamina points save lives
    # issue 31: A1-7, A1-8 and A1-10 are the day model's, priced by it (Monte Carlo); A1-11,
    # A1-12 and A0-9 the party's (item 3: no reading is left unpriced)
    for aid in ("A1-7", "A1-8", "A1-10"):
        rows = report[report["ambiguity"] == aid]
        assert (rows["model"] == "day").all() and (rows["status"] == "ok").all()
        assert set(rows["level"]) == {1, 5, 10}
    a18 = report[report["ambiguity"] == "A1-8"].set_index(["level", "reading"])["p"]
    assert a18[(5, "never")] > a18[(5, "spare PP")]  # no stamina back: more deaths
    for aid in ("A0-9", "A1-11", "A1-12"):
        rows = report[report["ambiguity"] == aid]
        assert (rows["model"] == "party").all() and (rows["status"] == "ok").all()
        assert set(rows["level"]) == {1, 5, 10}
    assert (report["status"] == "ok").all()


def test_issue31_readings_move_the_number_they_should(report):
    ok = report[report["status"] == "ok"].set_index(["ambiguity", "level", "reading"])["p"]
    # A0-8: a DC fixed at the knock-out no longer rises with dying: fewer deaths
    assert ok[("A0-8", 5, "fixed")] < ok[("A0-8", 5, "current")]
    # A1-9: the floor of 10 whenever a healer tends: no death by the hourly check
    assert ok[("A1-9", 5, "always")] == 0 < ok[("A1-9", 5, "after success")]
    # A1-13: 1 PP left of 6: a quarter rounded up (2) cannot be paid
    assert ok[("A1-13", 5, "up")] == 1 and ok[("A1-13", 5, "down")] == 0
    # A1-4: Constitution 14 after 3 points: per point the harshest, per 2 points the mildest
    assert ok[("A1-4", 5, "per 2 points")] < ok[("A1-4", 5, "score")] < ok[("A1-4", 5, "per point")]
    # A4-4: exactly 12 m, dead by the table, knocked out by the text
    assert ok[("A4-4", 5, "dead")] == 1 and ok[("A4-4", 5, "knocked out")] == 0
    # A4-5: a creature of the faller's level: DC 17 at level 1 (< 22), 29 at level 10 (> 22)
    assert ok[("A4-5", 1, "level")] < ok[("A4-5", 1, "fixed 22")]
    assert ok[("A4-5", 10, "level")] > ok[("A4-5", 10, "fixed 22")]


def test_side_by_side(report):
    wide = side_by_side(report)
    ok = wide[wide["status"] == "ok"]
    assert len(ok) == 3 * report.loc[report["status"] == "ok", "ambiguity"].nunique()
    r = ok[(ok["ambiguity"] == "A0-1") & (ok["level"] == 5)].iloc[0]
    long = report[(report["ambiguity"] == "A0-1") & (report["level"] == 5)].set_index("reading")[
        "p"
    ]
    assert r["default"] == "max" and r["p_default"] == long["max"]
    assert r["spread"] == pytest.approx(long.max() - long.min())
    assert (
        r["readings"] == f"max {100 * long['max']:.2f}% | increment {100 * long['increment']:.2f}%"
    )
    assert len(wide) == len(ok) + (report["status"] != "ok").sum()


@dataclass(frozen=True, slots=True)
class FakeFall(CustomTrack):
    """A stand-in 'fall' model (Monte Carlo only) to exercise the report's other paths."""

    name: ClassVar[str] = "fall"
    outcomes: ClassVar[tuple[str, ...]] = ("ko", "standing")
    dice: ClassVar[str] = "1d6"
    has_exact: ClassVar[bool] = False

    reading: str = param("table", kind="choice", choices=("table", "example"), help="A4-1")
    height: int = param(0, kind="int", lo=0, hi=100, help="metres")
    level: int = param(1, kind="int", lo=1, hi=20, help="level")

    def start(self):
        return 0

    def transition(self, state, roll):
        dice = self.height // 2 - (self.reading == "example" and self.height == 8)
        return "ko" if roll <= dice else "standing"


def test_monte_carlo_models_and_wrong_parameter_names(monkeypatch):
    monkeypatch.setitem(REGISTRY, "fall", FakeFall)

    @dataclass(frozen=True, slots=True)
    class Misnamed(FakeFall):
        name: ClassVar[str] = "recovery"
        outcomes: ClassVar[tuple[str, ...]] = ("dead", "ko", "standing")

    monkeypatch.setitem(REGISTRY, "recovery", Misnamed)
    n = 20_000
    rep = ambiguity_report(levels=(3,), n=n, rng=5, ids=["A4-1", "A1-2"])
    a41 = rep[rep["ambiguity"] == "A4-1"].set_index("reading")
    assert (a41["status"] == "ok").all() and (a41["method"] == "mc").all()
    for reading, p in (("table", 4 / 6), ("example", 3 / 6)):
        assert within_se(a41.loc[reading, "p"], p, n)
        assert a41.loc[reading, "ci_low"] < a41.loc[reading, "p"] < a41.loc[reading, "ci_high"]
    a12 = rep[rep["ambiguity"] == "A1-2"]
    assert len(a12) == 1 and a12["status"].iloc[0].startswith("error: unknown parameter")


def test_bad_arguments():
    with pytest.raises(ParamError, match="levels"):
        ambiguity_report(levels=(0,))
    with pytest.raises(ParamError, match="levels"):
        ambiguity_report(levels="x")
    with pytest.raises(ParamError, match="unknown ambiguity"):
        ambiguity_report(ids=["A9-9"])


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_cli_ambiguities():
    code, out, err = run("ambiguities", "--levels", "1,5", "-n", "20000", "--format", "csv")
    assert code == 0 and err == ""
    df = pd.read_csv(io.StringIO(out))
    assert {"ambiguity", "level", "default", "p_default", "spread", "readings", "status"} <= set(
        df.columns
    )
    assert set(df["ambiguity"]) == set(IDS)
    code, out, _ = run("ambiguities", "--id", "A0-4", "--levels", "10", "--long", "--format", "csv")
    df = pd.read_csv(io.StringIO(out))
    assert tuple(df.columns) == REPORT_COLUMNS and list(df["reading"]) == ["save", "flat"]


@pytest.mark.parametrize(
    "argv",
    [
        ["ambiguities", "--levels", "0"],
        ["ambiguities", "--levels", "a,b"],
        ["ambiguities", "--id", "A9-9"],
        ["ambiguities", "-n", "0"],
        ["ambiguities", "--method", "guess"],
    ],
)
def test_cli_bad_input_exits_2_with_one_line(argv):
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert err.startswith("simkit: error:") and err.count("\n") == 1


def test_readings_tested_paired_against_the_default():
    report = ambiguity_report(levels=(5,), n=20_000, rng=2, ids=["A0-1"], method="mc")
    dflt = report[report["default"].astype(bool)].iloc[0]
    other = report[~report["default"].astype(bool)].iloc[0]
    assert dflt["diff"] == 0 and dflt["diff_ci_low"] == dflt["diff_ci_high"] == 0
    assert other["diff"] == pytest.approx(other["p"] - dflt["p"])
    assert other["diff_ci_low"] < other["diff"] < other["diff_ci_high"]
    # paired: far narrower than the two readings' own intervals would give independently
    se_ind = ((other["p"] * (1 - other["p"]) + dflt["p"] * (1 - dflt["p"])) / 20_000) ** 0.5
    assert other["diff_ci_high"] - other["diff_ci_low"] < 2 * 1.96 * se_ind / 1.5
    exact = ambiguity_report(levels=(5,), ids=["A0-1"])
    ex = exact[~exact["default"].astype(bool)].iloc[0]
    assert ex["diff"] == ex["diff_ci_low"] == ex["diff_ci_high"]
    se = (other["diff_ci_high"] - other["diff_ci_low"]) / (2 * 1.959964)
    assert abs(other["diff"] - ex["diff"]) <= 5 * se
