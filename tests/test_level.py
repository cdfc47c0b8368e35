"""One meaning for "level" (issue 12, item 2): the character's level, on every verb.

``--set level=N`` is accepted by run, exact, calibrate and sensitivity (as by sweep),
derived by the sweeps' own derivation; the confidence level is ``--confidence``;
``--level`` gets an error with the hint.
"""

from __future__ import annotations

import json

import pytest

from simkit.analysis.sweep import sweep
from simkit.testing import run_cli as run

# A level-5 fighter by hand (PF2e): Fortitude expert from level 1 = level + 4 = 9, Con +2
# raised to +3 by the level-5 boost, no resilient rune before level 8: 9 + 3 = 12.
# HP: ancestry 8 + 5 x (class 10 + Con 3) = 73.
SAVE_5, HP_5 = 12, 73


def _csv(out: str) -> list[str]:
    return out.strip().splitlines()


def test_run_accepts_level_and_shows_what_it_sets():
    code, out, err = run(
        "run", "dying", "--set", "level=5", "-n", "2000", "--seed", "4", "--format", "csv"
    )
    assert code == 0
    assert f"level=5 -> save_bonus={SAVE_5}, hp_max={HP_5}" in err
    _, same, _ = run(
        "run",
        "dying",
        "--set",
        f"save_bonus={SAVE_5}",
        "--set",
        f"hp_max={HP_5}",
        "-n",
        "2000",
        "--seed",
        "4",
        "--format",
        "csv",
    )
    assert out == same


def test_exact_accepts_level_and_level_diff():
    code, out, err = run(
        "exact", "dying", "--set", "level=5", "--set", "level_diff=2", "--format", "csv"
    )
    assert code == 0
    assert "monster_level=7" in err
    _, same, _ = run(
        "exact",
        "dying",
        "--set",
        f"save_bonus={SAVE_5}",
        "--set",
        f"hp_max={HP_5}",
        "--set",
        "monster_level=7",
        "--format",
        "csv",
    )
    assert out == same


def test_the_cli_derivation_is_the_sweeps():
    from simkit.rules.pf2e import levels

    for model, lv in (("dying", 9), ("perseverance", 7)):
        code, out, err = run("exact", model, "--set", f"level={lv}", "--format", "json")
        assert code == 0
        df = sweep(model, {"level": [lv]}, exact_only=True)
        derived = df.attrs["derived"]
        assert derived  # the sweep derived something
        for col in derived:
            assert f"{col}={df[col].iloc[0]}" in err
        cli = {r["outcome"]: r["p"] for r in json.loads(out)}
        for o, p in zip(df["outcome"], df["p"]):
            assert cli[o] == pytest.approx(p, abs=1e-12)
    assert f"pp_max={levels.pp_max(7)}" in run("exact", "perseverance", "--set", "level=7")[2]


@pytest.mark.parametrize("model", ["dying", "perseverance"])
def test_the_cli_level_agrees_with_the_typical_character(model):
    """What ``--set level=`` derives agrees with the typical character of the ambiguity report."""
    from simkit.analysis.ambiguities import typical_character
    from simkit.cli.levels import derive
    from simkit.models import get_model

    for lv in (1, 4, 5, 8, 10, 14, 20):
        _, derived, _ = derive(get_model(model), {"level": lv})
        typical = typical_character(model, lv)
        shared = set(derived) & set(typical)
        assert shared
        assert {k: derived[k] for k in shared} == {k: typical[k] for k in shared}, lv


def test_explicit_values_win_and_are_named():
    code, out, err = run(
        "exact", "dying", "--set", "level=5", "--set", "save_bonus=3", "--format", "csv"
    )
    assert code == 0
    assert f"-> hp_max={HP_5}" in err and "save_bonus given explicitly: kept" in err
    _, same, _ = run(
        "exact", "dying", "--set", "save_bonus=3", "--set", f"hp_max={HP_5}", "--format", "csv"
    )
    assert out == same


def test_a_model_with_its_own_level_takes_it_as_is():
    code, _, err = run("exact", "recovery", "--set", "level=5", "--format", "csv")
    assert code == 0 and "->" not in err


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["exact", "fatigue", "--set", "level=5"], "do not follow from the character level"),
        (["run", "dying", "--set", "level=0"], "level must be an integer in [1, 20]"),
        (["exact", "dying", "--set", "level_diff=2"], "level_diff needs level"),
    ],
)
def test_bad_level_one_line(argv, needle):
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and needle in err


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "dying", "--level", "5"],
        ["run", "dying", "--level", "0.9"],
        ["run", "dying", "--level"],
        ["exact", "dying", "--level", "5"],
        ["sweep", "dying", "--grid", "dc=18", "--level", "0.9"],
        ["compare", "dying", "--level", "0.9"],
        ["calibrate", "dying", "--target", "dead=10%", "--vary", "dc", "--level", "0.9"],
        ["sensitivity", "dying", "--level", "5"],
    ],
)
def test_level_flag_gives_the_hint(argv):
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert "--level is the character level: use --set level=" in err and "--confidence" in err


def test_confidence_sets_the_interval():
    def width(*extra):
        _, out, _ = run("run", "dying", "-n", "4000", "--seed", "2", "--format", "json", *extra)
        row = next(r for r in json.loads(out) if r["outcome"] == "dead")
        return row["ci_high"] - row["ci_low"]

    w95, w80, w99 = width(), width("--confidence", "0.8"), width("--confidence", "0.99")
    assert w80 < w95 < w99
    assert run("run", "dying", "--confidence", "1")[0] == 2


def test_sweep_confidence_and_toml(tmp_path):
    base = ["sweep", "dying", "--grid", "dc=18", "-n", "4000", "--seed", "2"]
    _, a, _ = run(*base)
    _, b, _ = run(*base, "--confidence", "0.8")
    head = _csv(a)[0].split(",")
    lo, hi = head.index("ci_low"), head.index("ci_high")
    wa = [float(r.split(",")[hi]) - float(r.split(",")[lo]) for r in _csv(a)[1:]]
    wb = [float(r.split(",")[hi]) - float(r.split(",")[lo]) for r in _csv(b)[1:]]
    assert all(y <= x for x, y in zip(wa, wb)) and sum(wb) < sum(wa)
    cfg = tmp_path / "s.toml"
    cfg.write_text('model = "dying"\nconfidence = 0.8\nn = 4000\nseed = 2\n[grid]\ndc = [18]\n')
    assert run("sweep", "--config", cfg)[1] == b
    cfg.write_text('model = "dying"\nlevel = 0.8\n[grid]\ndc = [18]\n')
    code, out, err = run("sweep", "--config", cfg)
    assert code == 2 and "level is the character level" in err and "confidence" in err


def test_calibrate_character_level_is_an_alias():
    argv = ["calibrate", "dying", "--target", "dead=10%", "--vary", "dc", "--format", "csv"]
    code, a, err_a = run(*argv, "--character-level", "5")
    _, b, err_b = run(*argv, "--set", "level=5")
    assert code == 0 and a == b
    assert f"save_bonus={SAVE_5}" in err_a and err_a == err_b
    _, c, _ = run(*argv, "--set", f"save_bonus={SAVE_5}")
    assert a == c  # the level only moves dc's neighbours through the save
    code, _, err = run(*argv, "--character-level", "5", "--set", "level=6")
    assert code == 2 and "give the character level once" in err
    code, _, _ = run(*argv, "--character-level", "5", "--set", "level=5")
    assert code == 0


def test_sensitivity_accepts_level():
    code, out, err = run(
        "sensitivity",
        "dying",
        "--set",
        "level=5",
        "--set",
        "dc=22",
        "--param",
        "dc",
        "--outcome",
        "dead",
        "--format",
        "json",
    )
    assert code == 0 and f"save_bonus={SAVE_5}" in err
    _, same, _ = run(
        "sensitivity",
        "dying",
        "--set",
        f"save_bonus={SAVE_5}",
        "--set",
        f"hp_max={HP_5}",
        "--set",
        "dc=22",
        "--param",
        "dc",
        "--outcome",
        "dead",
        "--format",
        "json",
    )
    assert out == same


def test_python_calibrate_character_level_still_works():
    from simkit.analysis.design import calibrate

    cal = calibrate("dying", "10%", "dc", character_level=5)
    assert cal.model.save_bonus == SAVE_5


# -- issue 31 item 5: the recovery DC follows a swept level unless dc is given ---------------


def test_level_sets_the_recovery_dc_of_a_creature_of_that_level():
    import io

    import pandas as pd

    from simkit import solve
    from simkit.models import make_model
    from simkit.rules.pf2e.levels import monster_high_dc

    code, out, err = run("sweep", "dying", "--grid", "level=1,10,20", "--exact-only")
    assert code == 0
    assert err.count("\n") == 1 and "level sets the recovery DC too" in err
    df = pd.read_csv(io.StringIO(out))
    dead = df[df.outcome == "dead"].set_index("level")
    assert (dead["monster_level"] == dead.index).all()
    for lv in (1, 10, 20):
        m = make_model("dying", level=lv)
        assert m.base_dc == monster_high_dc(lv)
        assert dead.loc[lv, "exact"] == pytest.approx(solve(m)["dead"], abs=1e-12)
    # a DC given keeps it at every level (issue: 69% dead at level 1, 0% at 20 with DC 22)
    code, out, err = run(
        "sweep", "dying", "--grid", "level=1,20", "--set", "dc=22", "--exact-only"
    )
    assert code == 0 and "does not follow level (dc=22 given)" in err
    fixed = pd.read_csv(io.StringIO(out))
    fixed = fixed[fixed.outcome == "dead"].set_index("level")["exact"]
    assert fixed[1] > dead.loc[1, "exact"] and fixed[20] < dead.loc[20, "exact"]
    # level 5: the level's DC is the default 22, so the README's numbers stay
    assert make_model("dying", level=5).base_dc == 22
    assert make_model("dying", level=3, level_diff=2).monster_level == 5
    # calibrating dc at a level replaces the DC the level set
    code, out, err = run(
        "calibrate", "dying", "--target", "dead=10%", "--vary", "dc", "--set", "level=5"
    )
    assert code == 0 and "dc=18 gives" in out


def test_toughness_adds_the_level_to_the_maximum_hp():
    from simkit.models import make_model

    # P-13 (Player Core, Toughness): + level max HP where the level sets them
    assert make_model("dying", level=5, toughness=True).hp_max == HP_5 + 5
    assert make_model("dying", level=5).hp_max == HP_5
