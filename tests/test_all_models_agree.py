"""Every registered model with an exact solver: Monte Carlo at 1e6 tracks agrees with it.

One fixed seed per model; 5 standard errors from n. Chains are checked outcome by
outcome and stage by stage; single models also step by step (the whole CDF).
"""

import pytest

from simkit import simulate, solve
from simkit.models import REGISTRY, make_model
from simkit.testing import assert_agrees_with_exact, within_se

N = 1_000_000
EXACT = [name for name, cls in REGISTRY.items() if cls().has_exact]


def test_every_exact_model_is_covered():
    assert {"dying", "perseverance", "recovery", "agony", "fatigue", "fall", "fall_dying",
            "fall_perseverance", "dnd5e", "dnd4e"} <= set(EXACT)


@pytest.mark.parametrize("name", EXACT)
def test_defaults_agree_with_exact_at_a_million_tracks(name):
    model = make_model(name)
    seed = 1000 + sorted(REGISTRY).index(name)
    if getattr(model, "is_chain", False):
        res = simulate(model, N, rng=seed)
        for o, p in solve(model).probabilities.items():
            assert within_se(res[o], p, N), (name, o)
        mc = res.stage_summary()
        ex = solve(model).stage_summary()
        assert list(mc["outcome"]) == list(ex["outcome"])
        for (_, row), p in zip(mc.iterrows(), ex["p"]):
            assert within_se(row["p"], p, N), (name, row["stage"], row["outcome"])
    else:
        assert_agrees_with_exact(model, N, seed, steps=30)
