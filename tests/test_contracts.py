"""The explicit contracts: every model meets TrackModel (chains ChainedModel), every result
(Monte Carlo, exact, chained) meets ModelResult with the same survival columns, and every
registered model documents its parameters in its docstring."""

from __future__ import annotations

import numpy as np
import pytest

import simkit
from simkit.core.contracts import ChainedModel, ModelResult, TrackModel
from simkit.core.params import spec
from simkit.core.tables import SURVIVAL_COLUMNS
from simkit.models import REGISTRY, make_model
from simkit.testing import model_seed


@pytest.mark.parametrize("name", list(REGISTRY))
def test_models_meet_the_contract(name):
    model = make_model(name)
    assert isinstance(model, TrackModel)
    assert isinstance(model, ChainedModel) == model.is_chain
    doc = type(model).__doc__
    assert "Parameters\n----------" in doc
    for p in spec(type(model)):
        assert f"\n{p} : " in doc, (name, p)


@pytest.mark.parametrize("name", ["dying", "agony", "fall", "fatigue", "fall_dying"])
def test_results_meet_the_contract(name):
    model = make_model(name)
    mc = simkit.simulate(model, 5000, rng=model_seed(name))
    ex = simkit.solve(model)
    for res in (mc, ex):
        assert isinstance(res, ModelResult)
        assert set(res.probabilities) == set(model.all_outcomes)
        assert sum(res.probabilities.values()) == pytest.approx(1.0)
        surv = res.survival()
        assert tuple(surv.columns) == SURVIVAL_COLUMNS
        assert "<table" in res._repr_html_()
        stages = res.stage_summary()
        assert {"stage", "time_unit", "outcome", "p"} <= set(stages.columns)
    # the exact survival table is the Monte Carlo one's exact column
    mc_surv, ex_surv = mc.survival(), ex.survival()
    np.testing.assert_allclose(mc_surv["exact"].to_numpy(float), ex_surv["p"].to_numpy(float))
    # at the last step, absorbed + active is all the mass that reached each stage
    last = ex_surv[ex_surv["time"] == ex_surv.groupby("stage")["time"].transform("max")]
    per_stage = last.groupby("stage", sort=False)["p"].sum()
    first = ex.first if model.is_chain else ex
    for stage, mass in per_stage.items():
        reached = 1.0 if "->" not in stage else first.probabilities[stage.split("->")[0]]
        assert mass == pytest.approx(reached), stage
