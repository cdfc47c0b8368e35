"""Chained models: stage streams, merged outcomes, exact products."""

from dataclasses import dataclass
from typing import ClassVar

import pytest

from simkit import Dying, simulate, solve
from simkit.core.chain import ChainRules
from simkit.core.params import param
from simkit.testing import within_se


@dataclass(frozen=True, slots=True)
class DyingTwice(ChainRules):
    """Test chain: a dying track whose 'stable' continues as a second dying track."""

    name: ClassVar[str] = "dying_twice"
    outcomes: ClassVar[tuple[str, ...]] = ("stable", "dead", "revived")
    dc: int = param(20, kind="int", lo=1, hi=60, help="dc of both")
    max_rounds: int = param(50, kind="int", lo=1, hi=1000, help="horizon")

    def stages(self):
        m = Dying(dc=self.dc, max_rounds=self.max_rounds)
        return m, {"stable": m.replace(dc=self.dc + 4)}


def test_chain_exact_is_product():
    chain = DyingTwice()
    first, then = chain.stages()
    p1 = solve(first).probabilities
    p2 = solve(then["stable"]).probabilities
    ex = solve(chain).probabilities
    assert ex["dead"] == pytest.approx(p1["dead"] + p1["stable"] * p2["dead"])
    assert ex["stable"] == pytest.approx(p1["stable"] * p2["stable"])
    assert sum(ex.values()) == pytest.approx(1.0)


def test_chain_monte_carlo_matches_exact_and_is_reproducible():
    chain = DyingTwice()
    n = 100_000
    res = simulate(chain, n, rng=5)
    ex = solve(chain).probabilities
    for o, p in ex.items():
        assert within_se(res[o], p, n)
    again = simulate(chain, n, rng=5, block_size=2**14)
    assert again.counts == res.counts
    df = res.summary()
    assert list(df.columns) == ["outcome", "kind", "count", "n", "p", "ci_low", "ci_high", "exact"]
    assert df["count"].sum() == n
    surv = res.survival()
    assert set(surv["stage"]) == {"dying", "stable->dying"}
