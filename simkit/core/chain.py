"""Chained models: a first model whose outcomes continue as other models.

Example: seed 001's ``perseverance`` track (rounds) whose ``stable`` outcome continues
as a ``recovery`` track (hours). A chain is a :class:`ChainRules` (a frozen rules
dataclass like any model, so the registry, CLI and sweeps take it as is) whose
:meth:`~ChainRules.stages` says which model follows which outcome.

Simulation: the first stage runs ``n`` tracks on streams under spawn key ``(0, ...)``;
the tracks that end in the ``i``-th continued outcome (in the first model's outcome
order) then run the next model on streams under ``(i + 1, ...)``. Nothing is carried
from one stage to the next but the count of tracks (the stages this project chains
start from a fixed state: stable at 0 HP, knocked out at 0 HP). Every number is still
a function of the seed alone.

Exact: stage probabilities multiply (``P(o1) * P(o2 | o1)``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from simkit.core.model import Rules
from simkit.core.stats import proportion_ci

__all__ = ["ChainRules", "ChainResult", "ChainExact"]


@dataclass(frozen=True, slots=True)
class ChainRules(Rules):
    """Base class of chained models. Subclasses define fields, ``outcomes`` and ``stages``."""

    is_chain: ClassVar[bool] = True

    def stages(self) -> tuple[Rules, dict[str, Rules]]:
        """(first model, {first-model outcome: the model that continues it})."""
        raise NotImplementedError

    def final_outcome(self, first: str, second: str | None) -> str:
        """Name of the chain outcome of a track ending in ``first`` then ``second``.

        ``second`` is None for a first-stage outcome that does not continue. The
        default keeps the last stage's name (``unresolved`` of either stage stays
        ``unresolved``).
        """
        return first if second is None else second

    @property
    def has_exact(self) -> bool:  # type: ignore[override]
        first, then = self.stages()
        return first.has_exact and all(m.has_exact for m in then.values())

    def _final_names(self) -> tuple[str, ...]:
        return tuple(self.outcomes) + ("unresolved",)


def _merge(model: ChainRules, first_probs: dict, then_probs: dict) -> dict:
    """Combine stage probabilities (or counts) into the chain's outcomes."""
    out = {name: 0 for name in model._final_names()}
    continued = model.stages()[1]
    for o1, v1 in first_probs.items():
        if o1 in continued and o1 not in then_probs:
            continue  # no track reached that stage (its count is 0)
        if o1 in then_probs:
            for o2, v2 in then_probs[o1].items():
                name = model.final_outcome(o1, o2)
                out[name] = out.get(name, 0) + v2
        else:
            name = model.final_outcome(o1, None)
            out[name] = out.get(name, 0) + v1
    return out


@dataclass(frozen=True)
class ChainExact:
    """Exact answer of a chain: stage results and the combined probabilities."""

    model: ChainRules
    first: object  # ExactResult
    then: dict  # outcome -> ExactResult (conditional on that outcome)

    @property
    def outcomes(self) -> tuple[str, ...]:
        return self.model._final_names()

    @property
    def probabilities(self) -> dict[str, float]:
        p1 = self.first.probabilities
        cond = {o: {k: p1[o] * v for k, v in r.probabilities.items()} for o, r in self.then.items()}
        return {k: float(v) for k, v in _merge(self.model, p1, cond).items()}

    def __getitem__(self, outcome: str) -> float:
        return self.probabilities[outcome]

    def summary(self) -> pd.DataFrame:
        probs = self.probabilities
        return pd.DataFrame({"outcome": list(probs), "p": list(probs.values())})

    def stage_summary(self) -> pd.DataFrame:
        """Each stage's outcomes: columns ``stage, time_unit, outcome, p`` (p over all tracks)."""
        p1 = self.first.probabilities
        rows = [(self.first.model.name, self.first.model.time_unit, o, p) for o, p in p1.items()
                if o not in self.then]
        for o, r in self.then.items():
            rows += [(f"{o}->{r.model.name}", r.model.time_unit, o2, p1[o] * p) for o2, p in r.probabilities.items()]
        return pd.DataFrame(rows, columns=["stage", "time_unit", "outcome", "p"])


@dataclass(frozen=True)
class ChainResult:
    """Monte Carlo result of a chain: the stage results and combined counts."""

    model: ChainRules
    n: int
    seed: int
    first: object  # Result
    then: dict  # outcome -> Result (over the tracks that reached that outcome)

    @property
    def outcomes(self) -> tuple[str, ...]:
        return self.model._final_names()

    @property
    def params(self) -> dict:
        return self.model.params()

    @property
    def counts(self) -> dict[str, int]:
        c1 = self.first.counts
        cond = {o: r.counts for o, r in self.then.items()}
        return {k: int(v) for k, v in _merge(self.model, c1, cond).items()}

    def __getitem__(self, outcome: str) -> float:
        return self.counts[outcome] / self.n

    @property
    def exact(self):
        if not self.model.has_exact:
            return None
        from simkit.core.exact import ExactTooLarge, solve

        try:
            return solve(self.model)
        except ExactTooLarge:
            return None

    def summary(self, level: float = 0.95, method: str = "wilson", exact: bool = True) -> pd.DataFrame:
        """Same columns as :meth:`simkit.Result.summary`, over the chain's outcomes."""
        counts = self.counts
        c = np.array(list(counts.values()), dtype=np.int64)
        low, high = proportion_ci(c, self.n, level, method)
        df = pd.DataFrame({"outcome": list(counts), "count": c, "n": np.full(len(c), self.n, dtype=np.int64),
                           "p": c / self.n, "ci_low": low, "ci_high": high})
        if exact:
            ex = self.exact
            if ex is not None:
                probs = ex.probabilities
                df["exact"] = [probs[o] for o in df["outcome"]]
        df.attrs.update(model=self.model.name, seed=self.seed, n=self.n, level=level)
        return df

    def stage_summary(self, level: float = 0.95, method: str = "wilson") -> pd.DataFrame:
        """Each stage's outcomes, probabilities over all ``n`` tracks.

        Columns ``stage, time_unit, outcome, count, n, p, ci_low, ci_high``: the first
        stage's outcomes that end the chain, then for each continued outcome ``o`` the
        next stage's outcomes (stage ``"o->model"``). Their counts add up to ``n``.
        """
        rows = [(self.first.model.name, self.first.time_unit, o, c) for o, c in self.first.counts.items()
                if o not in self.then]
        for o, r in self.then.items():
            rows += [(f"{o}->{r.model.name}", r.time_unit, o2, c) for o2, c in r.counts.items()]
        df = pd.DataFrame(rows, columns=["stage", "time_unit", "outcome", "count"])
        df["n"] = self.n
        df["p"] = df["count"] / self.n
        low, high = proportion_ci(df["count"].to_numpy(), self.n, level, method)
        df["ci_low"], df["ci_high"] = low, high
        return df

    def survival(self, level: float = 0.95, method: str = "wilson", exact: bool = True) -> pd.DataFrame:
        """Stage survival frames stacked, with ``stage`` and ``time_unit`` columns.

        Probabilities are over all ``n`` tracks of the chain (not conditional).
        """
        frames = []
        ex = self.exact if exact else None
        f1 = self.first.survival(level, method, exact=False)
        if ex is not None:
            f1["exact"] = _exact_surv(ex.first, 1.0)
        f1.insert(0, "time_unit", self.first.time_unit)
        f1.insert(0, "stage", self.first.model.name)
        frames.append(f1)
        for o, r in self.then.items():
            cum = np.cumsum(r.hist, axis=1)
            active = r.n - cum.sum(axis=0)
            counts = np.vstack([cum, active[None, :]])
            names = list(r.model.outcomes) + ["active"]
            T = counts.shape[1]
            low, high = proportion_ci(counts, self.n, level, method)
            f = pd.DataFrame({"time": np.tile(np.arange(T), len(names)), "outcome": np.repeat(names, T),
                              "count": counts.ravel(), "p": (counts / self.n).ravel(),
                              "ci_low": low.ravel(), "ci_high": high.ravel()})
            if ex is not None:
                f["exact"] = _exact_surv(ex.then[o], ex.first.probabilities[o])
            f.insert(0, "time_unit", r.time_unit)
            f.insert(0, "stage", f"{o}->{r.model.name}")
            frames.append(f)
        df = pd.concat(frames, ignore_index=True)
        df.attrs.update(model=self.model.name, seed=self.seed, n=self.n)
        return df

    def __repr__(self) -> str:
        ps = ", ".join(f"{o}={c / self.n:.4f}" for o, c in self.counts.items())
        return f"ChainResult({self.model.name}, n={self.n}, seed={self.seed}: {ps})"


def _exact_surv(exact, weight: float) -> np.ndarray:
    cum = exact.cdf()
    act = 1.0 - cum.sum(axis=0)
    return (np.vstack([cum, act[None, :]]) * weight).ravel()


def simulate_chain(model: ChainRules, n: int, seed: int, prefix: tuple[int, ...], run) -> ChainResult:
    """Run the stages of ``model``; ``run(model, n, seed, prefix)`` simulates one stage."""
    first, then = model.stages()
    r1 = run(first, n, seed, prefix + (0,))
    counts = r1.counts
    results = {}
    for i, o in enumerate(first.outcomes):
        if o in then and counts[o] > 0:
            results[o] = run(then[o], counts[o], seed, prefix + (i + 1,))
    return ChainResult(model=model, n=n, seed=seed, first=r1, then=results)


def solve_chain(model: ChainRules, solve) -> ChainExact:
    first, then = model.stages()
    return ChainExact(model=model, first=solve(first), then={o: solve(m) for o, m in then.items()})
