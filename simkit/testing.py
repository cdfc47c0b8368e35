"""Helpers for statistical tests of simkit models (used by simkit's own tests)."""

from __future__ import annotations

import zlib

import numpy as np

__all__ = [
    "within_se",
    "standard_error",
    "RecordingRng",
    "run_cli",
    "assert_agrees_with_exact",
    "model_seed",
]


def model_seed(name: str, base: int = 1000) -> int:
    """A fixed test seed for model ``name``, from the name alone (CRC-32), so that
    registering another model never re-seeds the other models' tests."""
    return base + zlib.crc32(name.encode()) % 100_000


def standard_error(p: float, n: int) -> float:
    """Standard error of a proportion ``p`` estimated from ``n`` tracks.

    A floor of one track's worth (``1/n``) on ``p(1-p)`` keeps an exact 0 or 1 from
    demanding zero deviation when an outcome is merely very rare.
    """
    return float(np.sqrt(max(p * (1 - p), 1.0 / n) / n))


def within_se(p_hat: float, p: float, n: int, k: float = 5.0) -> bool:
    """Whether a Monte Carlo estimate is within ``k`` standard errors of the exact ``p``."""
    return abs(p_hat - p) <= k * standard_error(p, n)


class RecordingRng:
    """Stands in for the engine's :class:`~simkit.core.streams.BlockRng` and records draws.

    Kernel tests run ``model.step`` with it, then replay each track's recorded draws
    through the model's scalar reference (STYLE.md item 6). ``draws`` is a list of
    ``(kind, array)`` in call order; ``below`` records as ``"integers"``.
    """

    def __init__(self, seed):
        self.gen = np.random.default_rng(seed)
        self.draws: list = []

    def _keep(self, kind, x):
        self.draws.append((kind, x))
        return x

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        return self._keep(
            "integers", self.gen.integers(low, high, size=size, dtype=dtype, endpoint=endpoint)
        )

    def below(self, width, size=None, out=None):
        x = self.gen.integers(0, width, size=size, dtype=np.uint16)
        if out is not None:
            out[...] = x
            x = out
        return self._keep("integers", x)

    def random(self, size=None, dtype=np.float64):
        return self._keep("random", self.gen.random(size=size, dtype=dtype))

    def d20(self, size=None):
        return self._keep("d20", self.gen.integers(1, 21, size=size, dtype=np.uint8))


def run_cli(*argv) -> tuple[int, str, str]:
    """Run the ``simkit`` command in-process: (exit status, stdout, stderr)."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from simkit.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def assert_agrees_with_exact(model, n: int, seed, *, steps: int | None = None, k: float = 5.0):
    """Simulate ``model`` and check it against its exact solver, within ``k`` SEs.

    Checks every outcome's probability and, for the first ``steps`` steps (all by
    default), the cumulative absorption probability of every outcome by each step.
    Returns the Monte Carlo result.
    """
    from simkit.core.engine import simulate
    from simkit.core.exact import ExactResult, solve
    from simkit.core.result import Result

    res = simulate(model, n, rng=seed)
    exact = solve(model)
    assert isinstance(exact, ExactResult) and isinstance(res, Result), (
        "a chained model: check its stages"
    )
    for o, p in exact.probabilities.items():
        assert within_se(res[o], p, n, k), (model, o, res[o], p)
    cdf = exact.cdf()
    mc = np.cumsum(res.hist, axis=1) / n
    last = model.horizon if steps is None else min(model.horizon, steps)
    for i, o in enumerate(model.outcomes):
        for t in range(last + 1):
            assert within_se(mc[i, t], cdf[i, t], n, k), (model, o, t, mc[i, t], cdf[i, t])
    return res
