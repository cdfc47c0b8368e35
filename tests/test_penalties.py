"""Check penalties everywhere (R4-01..R4-03, A4-2): the conversion and the one-call path."""

import io

import pandas as pd
import pytest

from simkit import Dying, ParamError, simulate, solve
from simkit.core.params import spec
from simkit.models import REGISTRY, make_model
from simkit.rules.penalties import FATIGUE_KEYS, apply_fatigue, penalty
from simkit.testing import run_cli as _cli


def test_r4_03_two_days_without_sleep_and_food_is_minus_4():
    assert penalty(days_without_sleep=2, days_without_food=2) == -4


def test_r4_01_r4_02_one_per_day():
    assert penalty() == 0
    assert penalty(days_without_sleep=1) == -1
    assert penalty(days_without_food=1) == -1
    assert penalty(days_without_sleep=3) == -3
    assert penalty(days_without_sleep=5, days_without_food=5) == -10  # R4-04: exhausted


def test_a4_2_separate_counters():
    assert penalty(days_without_sleep=1, days_without_food=2, days_without_water=3) == -6
    assert penalty(days_without_food=2, food_water="separate") == -2
    with pytest.raises(ParamError, match="days_without_water=2 needs separate"):
        penalty(days_without_food=1, days_without_water=2, food_water="together")
    with pytest.raises(ParamError, match="food_water"):
        penalty(food_water="both")


@pytest.mark.parametrize("bad", [-1, 51, 1.5, "3", True, None])
def test_bad_days(bad):
    with pytest.raises(ParamError, match="days_without_sleep=.* must be an integer in \\[0, 50\\]"):
        penalty(days_without_sleep=bad)


def test_every_model_rolling_d20_checks_takes_check_penalty():
    for name, cls in REGISTRY.items():
        if getattr(cls, "rolls_d20", True):
            meta = spec(cls).get("check_penalty")
            assert meta is not None, f"model {name!r} rolls d20 checks but has no check_penalty"
            assert meta["kind"] == "int" and meta["hi"] == 0
    assert not REGISTRY["fatigue"].rolls_d20 and not REGISTRY["fall"].rolls_d20


def test_make_model_translates_fatigue_state():
    m = make_model("dying", days_without_sleep=2, days_without_food=2)
    assert m.check_penalty == -4
    assert solve(m).probabilities == solve(Dying(check_penalty=-4)).probabilities
    # added to a penalty given too
    assert make_model("dying", check_penalty=-1, days_without_sleep=3).check_penalty == -4
    assert make_model("dying", days_without_food=1, days_without_water=2).check_penalty == -3
    assert make_model("dying", "pf2e-core", days_without_sleep=1).check_penalty == -1
    # a starving character dies more often (save-based recovery checks)
    assert solve(make_model("dying", days_without_food=4))["dead"] > solve(Dying())["dead"]


def test_make_model_rejects_fatigue_for_models_without_checks():
    with pytest.raises(ParamError, match="rolls no d20 checks"):
        make_model("fall", days_without_sleep=1)
    with pytest.raises(
        ParamError, match="days_without_sleep=50, days_without_food=50 give a check penalty of -100"
    ):
        make_model("dying", days_without_sleep=50, days_without_food=50)


def test_apply_fatigue_leaves_other_params_alone():
    p = {"dc": 20, "save_bonus": 5}
    assert apply_fatigue(Dying, p) is p
    out = apply_fatigue(Dying, {"dc": 20, "days_without_sleep": 1})
    assert out == {"dc": 20, "check_penalty": -1}
    assert set(FATIGUE_KEYS) == {"days_without_sleep", "days_without_food", "days_without_water"}


def test_cli_one_call_dying_odds_of_a_starving_character():
    base = ("-n", "20000", "--seed", "3", "--format", "csv")
    code, a, _ = _cli(
        "run", "dying", *base, "--set", "days_without_sleep=3", "--set", "days_without_food=2"
    )
    assert code == 0
    code, b, _ = _cli("run", "dying", *base, "--set", "check_penalty=-5")
    assert a == b
    code, a, _ = _cli("exact", "dying", "--format", "csv", "--set", "days_without_sleep=3")
    _, b, _ = _cli("exact", "dying", "--format", "csv", "--set", "check_penalty=-3")
    assert code == 0 and a == b
    df = pd.read_csv(io.StringIO(a)).set_index("outcome")
    assert df.loc["dead", "p"] == pytest.approx(solve(Dying(check_penalty=-3))["dead"])


def test_simulated_penalty_changes_odds():
    n = 50_000
    fresh = simulate(Dying(), n, rng=2)
    tired = simulate(make_model("dying", days_without_sleep=4), n, rng=2)
    assert tired["dead"] > fresh["dead"]


@pytest.mark.parametrize(
    "argv,needle",
    [
        (
            ["run", "dying", "--set", "days_without_sleep=-1"],
            "days_without_sleep='-1' is not allowed",
        ),
        (
            ["run", "dying", "--set", "days_without_food=lots"],
            "days_without_food='lots' is not allowed",
        ),
        (
            ["exact", "dying", "--set", "days_without_sleep=30", "--set", "days_without_food=30"],
            "days_without_sleep=30, days_without_food=30 give a check penalty of -60",
        ),
        (["run", "fatigue", "--set", "days_without_sleep=1"], "unknown parameter"),
    ],
)
def test_cli_bad_fatigue_input_one_line(argv, needle):
    code, out, err = _cli(*argv)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], err


def test_sweeps_take_days_without_keys_like_make_model():
    from simkit import sweep
    from simkit.models import make_model

    df = sweep(
        "dying",
        {"days_without_sleep": [0, 3]},
        None,
        fixed={"days_without_food": 1, "check_penalty": -1},
        exact_only=True,
    )
    for days, group in df.groupby("days_without_sleep"):
        model = make_model(
            "dying", days_without_sleep=int(days), days_without_food=1, check_penalty=-1
        )
        assert group["check_penalty"].iloc[0] == model.check_penalty
        probs = solve(model).probabilities
        for _, row in group.iterrows():
            assert row["exact"] == pytest.approx(probs[row["outcome"]])
    assert set(df["check_penalty"]) == {-2, -5}


def test_days_without_beyond_the_penalty_range_names_the_days():
    from simkit import sweep

    with pytest.raises(ParamError, match="days_without_sleep=30, days_without_food=30"):
        sweep(
            "dying",
            {"days_without_sleep": [30]},
            None,
            fixed={"days_without_food": 30},
            exact_only=True,
        )
