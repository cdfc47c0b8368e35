"""One API for the command line and Python (issue 29, item 3): every key ``--set`` derives
parameters from works in make_model, simulate, calibrate and sensitivity, with the same
derived values; names and parameter dicts are accepted wherever a model is."""

from __future__ import annotations

import pytest

import simkit
from simkit.models import as_rules, make_model
from simkit.testing import run_cli


def _derived_by_cli(model: str, *sets: str) -> dict:
    """The parameters ``simkit run MODEL --set ...`` derives (its stderr line)."""
    args = [a for s in sets for a in ("--set", s)]
    code, _, err = run_cli("run", model, *args, "-n", "10", "--seed", "1", "--format", "csv")
    assert code == 0, err
    line = next(x for x in err.splitlines() if "->" in x)
    rhs = line.split("->", 1)[1].split("(")[0]
    return {k.strip(): int(v) for k, v in (kv.split("=") for kv in rhs.split(","))}


@pytest.mark.parametrize(
    "model, keys",
    [
        ("dying", {"level": 3}),
        ("dying", {"level": 7, "level_diff": 2}),
        ("perseverance", {"level": 4}),
        ("encounter", {"level": 5, "level_diff": 1}),
        ("dying", {"level": 2, "pc_con": 4}),
    ],
)
def test_make_model_derives_what_the_cli_derives(model, keys):
    cli = _derived_by_cli(model, *(f"{k}={v}" for k, v in keys.items()))
    m = make_model(model, **keys)
    assert cli and {k: getattr(m, k) for k in cli} == cli
    # a parameter given explicitly wins over a derived one
    last = list(cli)[-1]
    assert getattr(make_model(model, **keys, **{last: cli[last] - 1}), last) == cli[last] - 1


def test_keys_are_checked_and_fatigue_adds_to_the_penalty():
    with pytest.raises(simkit.ParamError, match=r"level=30 is not allowed"):
        make_model("dying", level=30)
    with pytest.raises(simkit.ParamError, match="unknown parameter"):
        make_model("dying", levle=3)
    m = as_rules(simkit.Dying(check_penalty=-1), days_without_sleep=2)
    assert m.check_penalty == -1 + make_model("dying", days_without_sleep=2).check_penalty


def test_names_and_parameter_dicts_wherever_a_model_is():
    spec = {"model": "dying", "level": 3}
    want = make_model("dying", level=3)
    assert as_rules(spec) == want and as_rules("dying", level=3) == want
    a = simkit.simulate(spec, 2000, 1)
    assert a.counts == simkit.simulate(want, 2000, 1).counts
    assert simkit.simulate("dying", 2000, 1, level=3).counts == a.counts
    assert simkit.solve("dying", level=3)["dead"] == simkit.solve(want)["dead"]
    with pytest.raises(TypeError, match="'levle', not a parameter of model 'dying'"):
        simkit.simulate("dying", 100, 1, levle=3)
    with pytest.raises(TypeError, match="did you mean 'workers'"):
        simkit.simulate("dying", 100, 1, worker=2)
    assert simkit.solve(spec)["dead"] == simkit.solve(want)["dead"]
    swept = simkit.sweep(spec, {"dc": [18]}, 1000, 1)
    assert (swept["save_bonus"] == want.save_bonus).all() if "save_bonus" in swept else True
    assert simkit.sweep(want, {"dc": [18]}, 1000, 1)["p"].tolist() == swept["p"].tolist()
    with pytest.raises(simkit.ParamError, match="names its model"):
        as_rules({"level": 3})
    with pytest.raises(simkit.ParamError, match="parameter dict"):
        as_rules(42)


def test_calibrate_level_is_the_character_level():
    by_key = simkit.calibrate("dying", "10%", "dc", level=5)
    by_model = simkit.calibrate(make_model("dying", level=5), "10%", "dc")
    assert by_key.value == by_model.value and by_key.p == by_model.p
    assert by_key.model.save_bonus == make_model("dying", level=5).save_bonus
    assert by_key.value != simkit.calibrate("dying", "10%", "dc", level=12).value
    with pytest.raises(simkit.ParamError, match="confidence=0.9"):
        simkit.calibrate("dying", "10%", "dc", level=0.9)
    with pytest.raises(simkit.ParamError, match="level=0 is not allowed"):
        simkit.calibrate("dying", "10%", "dc", level=0)


def test_calibrate_and_sensitivity_take_model_parameters():
    cal = simkit.calibrate(
        "day", "20%", "level", outcome="any_death", fight="severe", n=300, rng=1, lo=1, hi=3
    )
    assert cal.model.fight == "severe" and cal.to_frame()["kind"].eq("event").all()
    with pytest.raises(simkit.ParamError, match="fight"):
        simkit.calibrate("day", "20%", "level", outcome="any_death", fight="brawl", n=100)
    a = simkit.sensitivity("dying", params=["save_bonus"], outcomes="dead", level=5)
    b = simkit.sensitivity(make_model("dying", level=5), params=["save_bonus"], outcomes="dead")
    assert a.drop(columns="note").equals(b.drop(columns="note"))
    assert set(a["kind"].dropna()) == {"outcome"}


def test_party_summary_uses_the_names_of_run():
    from simkit.analysis.party_report import party_summary

    res = simkit.simulate("party", 1000, 2)
    df = party_summary(res)
    names = set(df["quantity"])
    assert {"death:fighter", "death:rogue", "death:cleric", "death:wizard", "won"} <= names
    assert not any(q.startswith("dies:") for q in names)
    run = res.summary().set_index("outcome")
    for q in ("death:cleric", "any_death", "victory"):
        assert df.set_index("quantity").at[q, "count"] == run.at[q, "count"]
    out = df[df["kind"] == "outcome"]
    assert out["p"].sum() == pytest.approx(1.0, abs=1e-12)
