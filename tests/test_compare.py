"""compare(): rule variants side by side, with differences, tests and exact differences."""

import numpy as np
import pytest

from simkit import Dying, solve
from simkit.analysis.compare import ambiguity_readings, compare, side_by_side, variants
from simkit.core.params import ParamError
from simkit.core.stats import two_proportion_test

N = 20_000


def test_variants_from_presets_and_ambiguities():
    v = variants("dying")
    assert list(v) == ["seed", "pf2e-core"]
    assert v["seed"] == Dying()
    assert v["pf2e-core"].check == "flat" and v["pf2e-core"].on_damage == "increment"
    table = ambiguity_readings(Dying)
    assert table["A0-1"] == [("on_damage", "max"), ("on_damage", "increment")]
    assert table["A0-4"] == [("check", "save"), ("check", "flat")]
    amb = variants(Dying(hit_chance=0.2), presets=(), ambiguities=["A0-1", "check"])
    assert list(amb) == [
        "A0-1 on_damage=max",
        "A0-1 on_damage=increment",
        "A0-4 check=save",
        "A0-4 check=flat",
    ]
    assert all(m.hit_chance == 0.2 for m in amb.values())
    with pytest.raises(ParamError, match="not an ambiguity"):
        variants("dying", ambiguities=["A9-9"])


def test_differences_and_tests_against_the_baseline():
    df = compare(
        variants("dying"), {"level": [1, 10]}, N, 4, fixed={"level_diff": 0}, paired=False
    )
    assert list(df.columns[:1]) == ["variant"]
    assert {"diff", "diff_ci_low", "diff_ci_high", "p_value", "diff_exact"} <= set(df.columns)
    base = df[df["variant"] == "seed"].set_index(["level", "outcome"])
    core = df[df["variant"] == "pf2e-core"].set_index(["level", "outcome"])
    assert (base["diff"] == 0).all() and base["p_value"].isna().all()
    d, _, pv = two_proportion_test(core["count"], core["n"], base["count"], base["n"])
    np.testing.assert_allclose(core["diff"], d)
    np.testing.assert_allclose(core["p_value"], pv)
    np.testing.assert_allclose(core["diff_exact"], core["exact"] - base["exact"])
    # level 10 against a level-10 monster: the flat check is much worse than the save
    row = core.loc[(10, "dead")]
    ex_seed = solve(Dying(save_bonus=int(base.loc[(10, "dead"), "save_bonus"]), monster_level=10))[
        "dead"
    ]
    assert row["diff_exact"] == pytest.approx(row["exact"] - ex_seed)
    assert row["diff_exact"] > 0.05 and row["diff"] > 0 and row["p_value"] < 1e-6
    se = (row["diff_ci_high"] - row["diff_ci_low"]) / (
        2 * 1.959964
    )  # the interval's standard error
    assert abs(row["diff"] - row["diff_exact"]) <= 5 * se


def test_same_rules_under_two_names_do_not_differ():
    for paired in (False, True):
        df = compare({"a": Dying(dc=20), "b": Dying(dc=20)}, None, N, 2, paired=paired)
        b = df[df["variant"] == "b"]
        assert (b["diff"] == 0).all() and (b["diff_exact"] == 0).all()
        assert (b["p_value"] == 1).all()
    # paired: the same dice track by track, so not one track differs: the score interval
    # of no discordant track in N, +-z^2 / (N + z^2) (not [0, 0]: W3)
    half = 1.959964**2 / (N + 1.959964**2)
    assert np.allclose(b["diff_ci_low"], -half) and np.allclose(b["diff_ci_high"], half)
    assert (b["diff_independent_ci_high"] > 0).any()


def test_exact_only_compare_and_side_by_side():
    v = variants("dying", presets=("seed",), ambiguities=["A0-4"])
    df = compare(v, {"dc": [16, 24]}, exact_only=True, baseline="A0-4 check=flat")
    np.testing.assert_allclose(df["diff"], df["diff_exact"])
    assert df["p_value"].isna().all()
    wide = side_by_side(df, "dead")
    assert list(wide.columns) == ["dc", "seed", "A0-4 check=save", "A0-4 check=flat"]
    assert wide.loc[wide["dc"] == 16, "seed"].item() == pytest.approx(solve(Dying(dc=16))["dead"])
    with pytest.raises(ParamError, match="baseline"):
        compare(v, None, exact_only=True, baseline="nope")
