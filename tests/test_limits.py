"""Integer limits: every integer that reaches a kernel has a declared range that keeps
its arithmetic exact in the dtype the kernels use, and values outside are refused.

- Every model's every integer parameter, at both ends of its declared range, runs,
  and (for models with an exact solver) its Monte Carlo agrees with the exact answer,
  which is computed in float64/Python from the same rules: a wrapped int16/int32 in a
  kernel would show as a disagreement (issue 14: ``hit_damage=2147483648`` gave
  P(dead) 0.39 against an exact 0.55).
- Dice at the ends of their ranges (count, sides, bonus) give exact sums in the int32
  the kernels hold them in, also doubled (critical hits).
- n x steps fits the int64 histograms.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from simkit.core.engine import MAX_N, simulate
from simkit.core.exact import solve
from simkit.core.params import ParamError, spec
from simkit.models import REGISTRY
from simkit.rules.dice import MAX_ABS_SUM, MAX_BONUS, Dice, parse_dice
from simkit.testing import run_cli, within_se

N = 3000


def _companions(param: str, value: int) -> dict:
    """Other values a parameter's extreme needs to be allowed at all (declared cross-checks)."""
    return {
        "pp": {"pp_max": max(value, 1)},
        "pp_max": {"pp": value},
        "enough_pp": {"pp_max": value, "pp": value},
        "wounded": {"wounded_rule": True},
        "start_water": {"food_water": "separate"},
        "hp": {"hp_max": value} if value else {},
        "retreat_at": {"party": ",".join(["fighter"] * value)},
        "dc": {"surge_at": value},
        "surge_at": {"dc": value},
    }.get(param, {})


#: Extremes refused by a model's own rule although inside the declared range (one line).
#: (dnd4e: surge_at <= 40 must be at least dc, so dc past 40 is always refused; party: the
#: starting hp may not pass a PC's maximum.)
REFUSED = {
    ("fall", "hp", 0),
    ("fall_dying", "hp", 0),
    ("fall_perseverance", "hp", 0),
    ("dnd4e", "dc", 100),
    ("party", "hp", 100000),  # above every PC's maximum (hp_max at most 10,000): refused
}


def _cases():
    for name, cls in REGISTRY.items():
        for param, meta in spec(cls).items():
            if meta["kind"] not in ("int", "policy"):
                continue
            for v in (meta["lo"], meta["hi"]):
                if v is not None:
                    yield pytest.param(name, param, int(v), id=f"{name}.{param}={int(v)}")


def _model(cls, param, value):
    try:
        return cls(**{param: value})
    except ParamError:
        extra = _companions(param, value)
        keep = {k: v for k, v in extra.items() if k in spec(cls)}
        return cls(**{param: value, **keep})


@pytest.mark.parametrize("name, param, value", list(_cases()))
def test_every_integer_parameter_at_the_ends_of_its_range(name, param, value):
    cls = REGISTRY[name]
    if (name, param, value) in REFUSED:
        with pytest.raises(ParamError):
            _model(cls, param, value)
        return
    model = _model(cls, param, value)
    assert MAX_N * (model.horizon + 1) < 2**63  # n x steps fits the int64 histograms
    seed = zlib.crc32(f"{name}.{param}={value}".encode())
    res = simulate(model, N, rng=seed)
    counts = {o: int(c) for o, c in res.counts.items()}
    assert all(c >= 0 for c in counts.values()) and sum(counts.values()) == N, counts
    if not model.has_exact:
        return
    exact = solve(model).probabilities
    total = sum(float(p) for p in exact.values())
    assert abs(total - 1.0) < 1e-9 or total <= 1.0 + 1e-9  # 'unresolved' may be left out
    for outcome, p in exact.items():
        assert within_se(res[outcome], float(p), N), (
            name,
            param,
            value,
            outcome,
            res[outcome],
            float(p),
        )


def test_integers_past_the_declared_range_are_refused():
    for cls in REGISTRY.values():
        for param, meta in spec(cls).items():
            if meta["kind"] != "int":
                continue
            for bad in (
                (meta["lo"] - 1) if meta["lo"] is not None else None,
                (meta["hi"] + 1) if meta["hi"] is not None else None,
            ):
                if bad is None:
                    continue
                with pytest.raises(ParamError, match=param):
                    cls(**{param: bad})


# -- dice ------------------------------------------------------------------------------


EXTREME_DICE = [
    "100d100+1000000",
    "100d100-1000000",
    "1d1000+1000000",
    "10d1000-1000000",
    "1000000",
    "-1000000",
    "1d1",
    "100d1",
    "4d6",
]


@pytest.mark.parametrize("text", EXTREME_DICE)
def test_dice_sums_are_exact_in_int32_at_the_ends_of_the_ranges(text):
    d = parse_dice(text)
    lo = d.count + d.bonus  # Python integers: the exact answer
    hi = d.count * d.sides + d.bonus
    assert max(abs(lo), abs(hi)) <= MAX_ABS_SUM
    values, _ = d.pmf()  # every sum a draw can return
    assert int(values[0]) == lo and int(values[-1]) == hi and len(values) == hi - lo + 1
    as32 = values.astype(np.int32)  # the kernels' dtype (Dice.quantile, the encounter's tables)
    assert np.array_equal(as32.astype(np.int64), values)
    assert np.array_equal((as32 * 2).astype(np.int64), values * 2)  # doubled by a critical
    assert np.array_equal(
        (as32 - np.int32(100_000)).astype(np.int64), values - 100_000
    )  # against HP
    got = d.quantile(np.random.default_rng(3).random(10_000))
    assert got.dtype == np.int32 and lo <= int(got.min()) and int(got.max()) <= hi
    assert int(d.quantile(np.array([0.0]))[0]) == lo


@pytest.mark.parametrize(
    "text, words",
    [
        ("2147483648", "bonus must be in [-1000000, 1000000]"),
        ("1d6+1000001", "bonus must be in"),
        ("1d6-3000000000", "bonus must be in"),
        ("101d6", "count must be in [0, 100]"),
        ("1d1001", "sides must be in [1, 1000]"),
        ("11d1000", "count x sides must be at most 10000"),
        ("1d6+1e20", "must look like"),
        ("１d6", "must look like"),
        ("1d6+" + "9" * 5000, "must look like"),
    ],
)
def test_dice_outside_their_ranges_are_refused(text, words):
    with pytest.raises(ValueError, match=words.replace("[", r"\[").replace("]", r"\]")):
        parse_dice(text)


def test_dice_constructor_checks_types_and_bonus():
    with pytest.raises(ValueError):
        Dice(1, 6, MAX_BONUS + 1)
    with pytest.raises(TypeError):
        Dice(1, 6, 1.5)
    assert Dice(1, 6, -MAX_BONUS).min == 1 - MAX_BONUS


def test_massive_damage_at_the_largest_bonus_agrees_with_exact():
    """The issue's case: a 2**31 bonus is refused; the largest allowed one is exact."""
    base = ("--set", "hit_chance=1", "--set", "hp_max=20")
    code, out, err = run_cli("run", "dying", *base, "--set", "hit_damage=2147483648", "-n", "1000")
    assert (
        code == 2
        and out == ""
        and err.count("\n") == 1
        and "hit_damage" in err
        and "1000000" in err
    )
    model = REGISTRY["dying"](hit_chance=1.0, hp_max=20, hit_damage=str(MAX_BONUS))
    res = simulate(model, 20_000, rng=14)
    exact = solve(model).probabilities
    for o, p in exact.items():
        assert within_se(res[o], float(p), 20_000), (o, res[o], float(p))
    assert float(exact["dead"]) > 0.5  # massive damage (R0-13) kills whenever the hit lands in time


def test_encounter_damage_past_the_range_is_one_line():
    code, out, err = run_cli("run", "encounter", "--set", "damage=1d6+3000000000", "-n", "100")
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert "damage" in err and "1000000" in err
    code, _, err = run_cli(
        "run",
        "encounter",
        "--set",
        f"damage=100d100+{MAX_BONUS}",
        "-n",
        "2000",
        "--seed",
        "1",
        "--format",
        "csv",
    )
    assert code == 0, err


def test_n_times_steps_fits_int64():
    """The engine's histograms are int64: n tracks x (horizon + 1) steps must fit."""
    horizons = [REGISTRY[name]().horizon for name in REGISTRY]
    for cls in REGISTRY.values():
        for param, meta in spec(cls).items():
            if (
                meta["kind"] == "int"
                and meta["hi"] is not None
                and param in ("max_rounds", "max_days", "max_hours", "horizon")
            ):
                horizons.append(int(meta["hi"]))
    assert MAX_N * (max(horizons) + 1) < 2**63


# -- grid sizes ----------------------------------------------------------------------------


def test_a_huge_grid_is_refused_before_it_is_built():
    """4e8 points: counted from the axes' lengths and refused at once (no point list built)."""
    import time

    from simkit.analysis.grid import MAX_POINTS
    from simkit.analysis.sweep import plan_sweep

    t0 = time.perf_counter()
    with pytest.raises(ParamError) as info:
        plan_sweep(
            "dying",
            {
                "dc": range(1, 101),
                "save_bonus": range(-20, 81),
                "start": range(1, 21),
                "death_at": range(1, 21),
                "hero_points": range(10),
            },
            exact_only=True,
        )
    msg = str(info.value)
    assert "40,400,000 points" in msg and f"{MAX_POINTS:,}" in msg and "max_points" in msg
    with pytest.raises(ParamError, match="400,000,000 points"):
        plan_sweep("dying", {"max_rounds": "1..400000000"}, exact_only=True)
    assert time.perf_counter() - t0 < 5.0


def test_max_points_raises_or_lowers_the_limit(tmp_path):
    grid = ("--grid", "dc=14..19", "--exact-only")  # 6 points
    code, out, err = run_cli("sweep", "dying", *grid, "--max-points", "5")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "6 points, more than the limit of 5" in err and "--max-points 6" in err
    code, out, err = run_cli("sweep", "dying", *grid, "--max-points", "6")
    assert code == 0 and out.startswith("dc,"), err
    code, _, err = run_cli("sweep", "dying", "--grid", "max_rounds=1..200000", "--exact-only")
    assert code == 2 and "200,000 points" in err and "--max-points" in err
    code, _, err = run_cli("compare", "dying", *grid, "--max-points", "5")
    assert code == 2 and "more than the limit of 5" in err
    code, out, err = run_cli("compare", "dying", *grid, "--max-points", "6", "--format", "csv")
    assert code == 0 and out.startswith("variant,dc,"), err


def test_long_lists_in_errors_are_abbreviated():
    values = ",".join(["14"] * 50_000)  # a repeated value in a 50,000-value list
    code, out, err = run_cli("sweep", "dying", "--grid", f"dc={values}", "--exact-only")
    assert code == 2 and out == "" and err.count("\n") == 1 and len(err) < 500, len(err)
    code, out, err = run_cli("run", "dying", "--set", "hit_damage=" + "1" * 100_000)
    assert code == 2 and err.count("\n") == 1 and len(err) < 500, len(err)
