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
from functools import cached_property
from typing import ClassVar

import numpy as np
import pandas as pd

from simkit.core.exact import ExactResult, solve_if_possible
from simkit.core.model import Rules
from simkit.core.result import Result
from simkit.core.stats import confidence_of, proportion_ci
from simkit.core.tables import result_summary, summary_html, survival_table

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

    def solve_stages(self, solve) -> ChainExact:
        """The exact answer, each stage solved by ``solve`` (the exact solver's hook)."""
        first, then = self.stages()
        return self.combine_stages(solve(first), {o: solve(m) for o, m in then.items()})

    def combine_stages(self, first, then: dict) -> ChainExact:
        """The chain's exact answer from its stages' exact answers."""
        return ChainExact(model=self, first=first, then=then)


def _merge(model: ChainRules, first_probs: dict, then_probs: dict) -> dict:
    """Combine stage probabilities (or counts) into the chain's outcomes."""
    out = {name: 0 for name in model.all_outcomes}
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
    first: ExactResult
    then: dict[str, ExactResult]  # outcome -> its stage's answer (conditional on that outcome)

    @property
    def outcomes(self) -> tuple[str, ...]:
        return self.model.all_outcomes

    @property
    def probabilities(self) -> dict[str, float]:
        p1 = self.first.probabilities
        cond = {o: {k: p1[o] * v for k, v in r.probabilities.items()} for o, r in self.then.items()}
        return {k: min(max(float(v), 0.0), 1.0) for k, v in _merge(self.model, p1, cond).items()}

    def __getitem__(self, outcome: str) -> float:
        return self.probabilities[outcome]

    def _repr_html_(self) -> str:
        return summary_html(f"{self.model.name}: exact", self.summary())

    def to_xarray(self):
        """The summary as an :class:`xarray.Dataset` over ``name`` (with ``kind`` along it):
        :func:`simkit.core.labelled.to_xarray`. Needs xarray (``pip install
        'simkit[xarray]'``)."""
        from simkit.core.labelled import to_xarray

        return to_xarray(self.summary())

    def summary(self) -> pd.DataFrame:
        probs = self.probabilities
        return pd.DataFrame({"outcome": list(probs), "kind": "outcome", "p": list(probs.values())})

    def survival(
        self,
        confidence: float = 0.95,
        method: str = "wilson",
        exact: bool = True,
        *,
        level: float | None = None,
    ) -> pd.DataFrame:
        """Stage survival tables stacked (columns of :meth:`simkit.Result.survival`),
        probabilities over all tracks; ``p = exact``, no counts."""
        level = confidence_of(confidence, level, "survival")
        p1 = self.first.probabilities
        frames = [
            survival_table(
                self.first.model.outcomes,
                stage=self.first.model.name,
                time_unit=self.first.model.time_unit,
                exact=self.first.cdf(),
            )
        ]
        for o, r in self.then.items():
            frames.append(
                survival_table(
                    r.model.outcomes,
                    stage=f"{o}->{r.model.name}",
                    time_unit=r.model.time_unit,
                    exact=r.cdf() * p1[o],
                    exact_total=p1[o],
                )
            )
        df = pd.concat(frames, ignore_index=True)
        df.attrs.update(model=self.model.name)
        return df

    def stage_summary(self) -> pd.DataFrame:
        """Each stage's outcomes: columns ``stage, time_unit, outcome, kind, p`` (p over all
        tracks; ``kind`` is ``outcome``: the rows' ``p`` add up to 1)."""
        p1 = self.first.probabilities
        rows = [
            (self.first.model.name, self.first.model.time_unit, o, p)
            for o, p in p1.items()
            if o not in self.then
        ]
        for o, r in self.then.items():
            rows += [
                (f"{o}->{r.model.name}", r.model.time_unit, o2, p1[o] * p)
                for o2, p in r.probabilities.items()
            ]
        df = pd.DataFrame(rows, columns=["stage", "time_unit", "outcome", "p"])
        df.insert(3, "kind", "outcome")
        return df


@dataclass(frozen=True)
class ChainResult:
    """Monte Carlo result of a chain: the stage results and combined counts."""

    model: ChainRules
    n: int
    seed: int
    first: Result
    then: dict[str, Result]  # outcome -> Result (over the tracks that reached that outcome)

    @property
    def outcomes(self) -> tuple[str, ...]:
        return self.model.all_outcomes

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

    @cached_property
    def exact(self):
        """The chain's exact answer (:class:`ChainExact`), or None (solved once)."""
        return solve_if_possible(self.model)

    def to_xarray(self):
        """The summary as an :class:`xarray.Dataset` over ``name`` (with ``kind`` along it):
        :func:`simkit.core.labelled.to_xarray`. Needs xarray (``pip install
        'simkit[xarray]'``)."""
        from simkit.core.labelled import to_xarray

        return to_xarray(self.summary())

    def summary(
        self,
        confidence: float = 0.95,
        method: str = "wilson",
        exact: bool = True,
        *,
        level: float | None = None,
    ) -> pd.DataFrame:
        """Same columns as :meth:`simkit.Result.summary`, over the chain's outcomes."""
        level = confidence_of(confidence, level, "summary")
        return result_summary(self, level, method, exact)

    def stage_summary(
        self, confidence: float = 0.95, method: str = "wilson", *, level: float | None = None
    ) -> pd.DataFrame:
        """Each stage's outcomes, probabilities over all ``n`` tracks.

        Columns ``stage, time_unit, outcome, kind, count, n, p, ci_low, ci_high``: the first
        stage's outcomes that end the chain, then for each continued outcome ``o`` the
        next stage's outcomes (stage ``"o->model"``). Their counts add up to ``n``.
        """
        level = confidence_of(confidence, level, "stage_summary")
        rows = [
            (self.first.model.name, self.first.time_unit, o, c)
            for o, c in self.first.counts.items()
            if o not in self.then
        ]
        for o, r in self.then.items():
            rows += [(f"{o}->{r.model.name}", r.time_unit, o2, c) for o2, c in r.counts.items()]
        df = pd.DataFrame(rows, columns=["stage", "time_unit", "outcome", "count"])
        df.insert(3, "kind", "outcome")
        df["n"] = self.n
        df["p"] = df["count"] / self.n
        low, high = proportion_ci(df["count"].to_numpy(), self.n, level, method)
        df["ci_low"], df["ci_high"] = low, high
        return df

    @property
    def probabilities(self) -> dict[str, float]:
        """Estimated probability of each chain outcome (``count / n``)."""
        return {o: c / self.n for o, c in self.counts.items()}

    def survival(
        self,
        confidence: float = 0.95,
        method: str = "wilson",
        exact=True,
        *,
        level: float | None = None,
    ) -> pd.DataFrame:
        """Stage survival tables stacked, with ``stage`` and ``time_unit`` columns.

        Probabilities are over all ``n`` tracks of the chain (not conditional). ``exact``:
        True, False, or a :class:`ChainExact` already solved.
        """
        level = confidence_of(confidence, level, "survival")
        ex = self.exact if exact is True else (exact or None)
        r1 = self.first
        frames = [
            survival_table(
                r1.model.outcomes,
                stage=r1.model.name,
                time_unit=r1.time_unit,
                counts=np.cumsum(r1.hist, axis=1),
                n=self.n,
                exact=None if ex is None else ex.first.cdf(),
                level=level,
                method=method,
            )
        ]
        for o, r in self.then.items():
            w = 1.0 if ex is None else ex.first.probabilities[o]
            frames.append(
                survival_table(
                    r.model.outcomes,
                    stage=f"{o}->{r.model.name}",
                    time_unit=r.time_unit,
                    counts=np.cumsum(r.hist, axis=1),
                    n=self.n,
                    reached=r.n,
                    exact=None if ex is None else ex.then[o].cdf() * w,
                    exact_total=w,
                    level=level,
                    method=method,
                )
            )
        df = pd.concat(frames, ignore_index=True)
        df.attrs.update(model=self.model.name, seed=self.seed, n=self.n)
        return df

    def _repr_html_(self) -> str:
        return summary_html(
            f"{self.model.name}: {self.n:,} tracks, seed {self.seed} (95% intervals)",
            self.summary(),
        )

    def __repr__(self) -> str:
        ps = ", ".join(f"{o}={c / self.n:.4f}" for o, c in self.counts.items())
        return f"ChainResult({self.model.name}, n={self.n}, seed={self.seed}: {ps})"


def simulate_chain(
    model: ChainRules, n: int, seed: int, prefix: tuple[int, ...], run
) -> ChainResult:
    """Run the stages of ``model``; ``run(model, n, seed, prefix)`` simulates one stage."""
    first, then = model.stages()
    r1 = run(first, n, seed, prefix + (0,))
    counts = r1.counts
    results = {}
    for i, o in enumerate(first.outcomes):
        if o in then and counts[o] > 0:
            results[o] = run(then[o], counts[o], seed, prefix + (i + 1,))
    return ChainResult(model=model, n=n, seed=seed, first=r1, then=results)
