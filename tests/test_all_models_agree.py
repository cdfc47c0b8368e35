"""Every registered model with an exact solver: Monte Carlo at 1e6 tracks agrees with it.

One fixed seed per model; 5 standard errors from n. Chains are checked outcome by
outcome and stage by stage; single models also step by step (the whole CDF).
"""

import pytest

from simkit import simulate, solve
from simkit.models import REGISTRY, make_model
from simkit.testing import assert_agrees_with_exact, model_seed, within_se

N = 1_000_000
EXACT = [name for name, cls in REGISTRY.items() if cls().has_exact]


def test_every_exact_model_is_covered():
    assert {
        "dying",
        "perseverance",
        "recovery",
        "agony",
        "fatigue",
        "fall",
        "fall_dying",
        "fall_perseverance",
        "dnd5e",
        "dnd4e",
    } <= set(EXACT)


@pytest.mark.parametrize("name", EXACT)
def test_defaults_agree_with_exact_at_a_million_tracks(name):
    model = make_model(name)
    seed = model_seed(name)
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


def _reading_models():
    from simkit.analysis.ambiguities import AMBIGUITIES

    out = []
    for a in AMBIGUITIES:
        if a.model not in REGISTRY:
            continue
        for r in a.readings:
            model = make_model(a.model, **{**a.setup, **r.params})
            if model.has_exact:
                out.append(pytest.param(model, id=f"{a.id}-{r.label}"))
    return out


@pytest.mark.parametrize("model", _reading_models())
def test_every_ambiguity_reading_agrees_with_exact(model):
    n = 200_000
    res = simulate(model, n, rng=77)
    for o, p in solve(model).probabilities.items():
        assert within_se(res[o], p, n), (model.name, o)
