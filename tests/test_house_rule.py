"""A toy house-rule model, written in this file alone and registered in one line, gets the
CLI (run, exact, sweep, calibrate), sweeps, calibration and the exact solver for free."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest

import simkit
from simkit.core.model import Rules
from simkit.core.params import param
from simkit.models import REGISTRY, register
from simkit.rules.parameters import shared
from simkit.testing import assert_agrees_with_exact, run_cli

DEAD, STABLE = 0, 1


@dataclass(frozen=True, slots=True)
class CoinFlip(Rules):
    """House rule: each round a d20; ``dc`` or more stabilises, under ``fail_under`` kills."""

    name: ClassVar[str] = "coinflip_test"
    outcomes: ClassVar[tuple[str, ...]] = ("dead", "stable")
    has_exact: ClassVar[bool] = True

    dc: int | None = shared("dc", default=15, optional=False)
    fail_under: int = param(3, kind="int", lo=1, hi=21, help="a d20 under this kills")
    max_rounds: int = shared("max_rounds")

    def ref_round(self, roll: int) -> int | None:
        """The rule, for one natural d20: the outcome, or None (still dying)."""
        if roll < self.fail_under:
            return DEAD
        return STABLE if roll >= self.dc else None

    def init(self, n, rng):
        return {}, np.full(n, -1, dtype=np.int8)

    def step(self, state, t, rng):
        table = np.array(
            [-1 if (o := self.ref_round(r)) is None else o for r in range(1, 21)], dtype=np.int8
        )
        return table[rng.d20(size=rng.n_active) - 1]

    def exact_initial(self):
        return {("dying",): 1.0}

    def exact_step(self, state, t):
        out: dict = {}
        for r in range(1, 21):
            o = self.ref_round(r)
            key = ("dying",) if o is None else self.outcomes[o]
            out[key] = out.get(key, 0.0) + 1 / 20
        return out


@pytest.fixture
def toy():
    register(CoinFlip)  # the one line
    yield CoinFlip
    REGISTRY.pop(CoinFlip.name)


def test_exact_and_monte_carlo_for_free(toy):
    model = simkit.make_model("coinflip_test", dc=12)
    ex = simkit.solve(model)
    # P(dead) = P(roll < 3) / P(roll < 3 or roll >= 12) = 2 / 11, derived by hand
    assert ex["dead"] == pytest.approx(2 / 11)
    assert_agrees_with_exact(model, 200_000, 3)


def test_cli_run_and_exact(toy):
    code, out, err = run_cli("exact", "coinflip_test", "--set", "dc=12", "--format", "csv")
    assert code == 0, err
    df = pd.read_csv(io.StringIO(out))
    assert df.set_index("outcome").loc["dead", "p"] == pytest.approx(2 / 11)
    code, out, err = run_cli("run", "coinflip_test", "-n", "1e4", "--seed", "1", "--format", "csv")
    assert code == 0, err
    assert set(pd.read_csv(io.StringIO(out))["outcome"]) >= {"dead", "stable"}


def test_sweep_and_calibrate(toy):
    df = simkit.sweep("coinflip_test", {"dc": [10, 15, 20]}, exact_only=True)
    dead = df[df["outcome"] == "dead"].set_index("dc")["exact"]
    assert dead[10] < dead[15] < dead[20]  # a harder DC leaves more time to die
    cal = simkit.calibrate("coinflip_test", 0.2, "dc", outcome="dead")
    assert abs(cal.p - 0.2) <= min(
        abs(simkit.solve(CoinFlip(dc=v))["dead"] - 0.2) for v in range(1, 21)
    )
    code, out, err = run_cli("calibrate", "coinflip_test", "--target", "dead=20%", "--vary", "dc")
    assert code == 0, err
    assert f"dc={cal.value}" in out


def test_register_refuses_a_taken_name(toy):
    @dataclass(frozen=True, slots=True)
    class Other(CoinFlip):
        pass

    with pytest.raises(simkit.ParamError, match="already taken"):
        register(Other)
