"""``simkit threat``, Foundry's threat label, and ``run party``'s measured-threat line."""

import io
import json

import numpy as np
import pandas as pd
import pytest

from simkit.analysis.threat import measured_threat, threat_frame
from simkit.models import make_model
from simkit.rules.pf2e.budget import (
    EDITIONS,
    THREATS,
    foundry_threat_of,
    threat_of,
    xp_budget,
)
from simkit.testing import run_cli


def test_threat_command_equals_measured_threat_in_python():
    code, out, err = run_cli(
        "threat", "medusa", "--level", "4", "-n", "2000", "--seed", "5", "--format", "json"
    )
    assert code == 0, err
    got = pd.DataFrame(json.loads(out)).set_index("measure")
    model = make_model("party", monsters="medusa", level=4)
    m = measured_threat(model, n=2000, rng=5)
    lin = m.table[m.table["run"] == "lineup"].set_index("measure")
    for measure, band in (("any_death", m.death), ("defeat", m.defeat)):
        for col in ("p", "ci_low", "ci_high"):
            want = lin.loc[measure, col]
            assert got.loc[measure, "value" if col == "p" else col] == pytest.approx(want)
        assert got.loc[measure, "measured"] == band
    assert (got["budgeted"] == m.budgeted).all() and (got["xp"] == 120).all()
    assert (got["budgeted_foundry"] == foundry_threat_of(120, 4)).all()
    # expected deaths: the lineup's run, its mean deaths
    res = m.result
    deaths = res.marks["deaths"].sum(axis=0)
    mean = float((deaths * np.arange(len(deaths))).sum() / res.n)
    assert got.loc["expected_deaths", "value"] == pytest.approx(mean)
    assert threat_frame(m).equals(threat_frame(m))  # (a pure function of the measurement)


def test_threat_command_one_screen_and_csv():
    code, out, err = run_cli("threat", "7", "--level", "4", "--party", "fighter,cleric,wizard",
                             "-n", "500", "--seed", "1")  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("lineup: ") and "3 PCs at level 4" in lines[0]
    assert lines[1].startswith("XP 120 against the gm-core budgets for 3 PCs")
    assert "Foundry:" in lines[2] and "measures like" in lines[3]
    assert len(lines) < 24  # one screen
    code, out, _ = run_cli("threat", "7", "--level", "4", "-n", "500", "--seed", "1",
                           "--format", "csv")  # fmt: skip
    df = pd.read_csv(io.StringIO(out))
    assert list(df["measure"]) == ["any_death", "defeat", "expected_deaths"]


@pytest.mark.parametrize(
    "argv, word",
    [
        (("threat", "7", "--level", "40"), "level"),
        (("threat", "nosuch", "--level", "4"), "monsters"),
        (("threat", "7", "--set", "monsters=5"), "monsters"),
        (("threat", "7", "-n", "0"), "-n"),
        (("threat", "7", "--set", "rules=nope"), "rules"),
    ],
)
def test_threat_command_bad_input_is_one_line_naming_it(argv, word):
    code, out, err = run_cli(*argv)
    assert code != 0 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and word in lines[0], err


def _lowest_covering(xp, n_pcs, edition):
    """Foundry's rule, read from the budgets one by one."""
    for t in THREATS:
        if xp <= xp_budget(t, n_pcs, edition):
            return t
    return "beyond extreme"


@pytest.mark.parametrize("edition", EDITIONS)
def test_foundry_label_is_foundrys_rule_on_the_budgets_of_1_to_8_pcs(edition):
    for n_pcs in range(1, 9):
        top = xp_budget("extreme", n_pcs, edition)
        budgets = {xp_budget(t, n_pcs, edition) for t in THREATS}
        for xp in range(0, top + 60):
            foundry, simkit_ = foundry_threat_of(xp, n_pcs, edition), threat_of(xp, n_pcs, edition)
            assert foundry == _lowest_covering(xp, n_pcs, edition), (n_pcs, xp)
            if xp > top:
                assert foundry == simkit_ == "beyond extreme"
            elif xp in budgets and sorted(budgets) == [
                xp_budget(t, n_pcs, edition) for t in THREATS
            ]:
                assert foundry == simkit_, (n_pcs, xp)  # at a budget exactly they agree
    assert foundry_threat_of(-10) == "unrated"
    # the case: 88 XP for four PCs, "severe" in Foundry, "moderate" in simkit
    assert (foundry_threat_of(88, 4), threat_of(88, 4)) == ("severe", "moderate")


def test_run_party_ends_with_the_measured_threat_line():
    argv = ("run", "party", "--set", "level=4", "--set", "monsters=medusa", "-n", "800",
            "--seed", "2", "--format", "csv")  # fmt: skip
    code, out, err = run_cli(*argv)
    assert code == 0, err
    last = err.strip().splitlines()[-1]
    m = measured_threat(make_model("party", level=4, monsters="medusa"), n=800, rng=2)
    assert last == f"simkit: measured: {m.sentence()}; 800 fights a run (simkit threat)"
    pd.read_csv(io.StringIO(out))  # stdout stays the table alone
    code, _, err = run_cli(*argv, "--no-threat")
    assert code == 0 and "measured:" not in err
