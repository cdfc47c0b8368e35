"""The exact solver: dense and sparse matrices agree; oversized chains are refused clearly."""

import numpy as np
import pytest

import simkit.core.exact as exact
from simkit import Dying, simulate, solve
from simkit.models.fatigue import Fatigue
from simkit.models.perseverance import Perseverance
from simkit.testing import run_cli

MODELS = [
    Dying(hit_chance=0.3, crit_chance=0.1, hero_points=1, hero_policy=3, heal_round=5, hit_dc=30),
    Perseverance(pp=6, pp_max=12, medic_bonus=2, spend=3),
    Fatigue(food_water="separate", exhaust_at=12, max_days=40),
]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.name)
def test_sparse_and_dense_chains_agree(model, monkeypatch):
    dense = solve(model)
    monkeypatch.setattr(exact, "DENSE_LIMIT", 0)
    sparse = solve(model)
    np.testing.assert_allclose(sparse.hist, dense.hist, rtol=1e-12, atol=1e-15)
    assert sparse["unresolved"] == pytest.approx(dense["unresolved"], abs=1e-15)


def test_solve_many_solves_big_chains_one_by_one(monkeypatch):
    monkeypatch.setattr(exact, "BATCH_LIMIT", 1)
    many = exact.solve_many(MODELS)
    for m, r in zip(MODELS, many):
        np.testing.assert_allclose(r.hist, solve(m).hist, rtol=1e-12, atol=1e-15)


def test_too_many_states_is_a_clear_refusal(monkeypatch):
    monkeypatch.setattr(exact, "MAX_STATES", 5)
    model = MODELS[2]
    with pytest.raises(exact.ExactTooLarge, match="more than 5 states"):
        solve(model)
    res = simulate(model, 1000, rng=1)
    assert res.exact is None and "exact" not in res.summary().columns
    code, out, err = run_cli("exact", "fatigue", "--set", "food_water=separate")
    assert (
        code == 2
        and out == ""
        and len(err.strip().splitlines()) == 1
        and "more than 5 states" in err
    )


def test_solve_many_reports_float_noise_after_the_horizon_as_solve_does():
    """A level-1 fighter (save +7) against a level-1 monster is still dying after 100 rounds
    with float-noise mass (about 1e-22): solve and the batched solve_many both say 0, so
    a report prints 0, whichever path (and cache) answered."""
    model = Dying(save_bonus=7, monster_level=1)
    exact.clear_cache()
    (batched,) = exact.solve_many([model])
    exact.clear_cache()
    assert solve(model)["unresolved"] == 0.0
    assert batched["unresolved"] == 0.0
    assert batched.probabilities == solve(model).probabilities
