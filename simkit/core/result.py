"""Monte Carlo results: counts, per-step histograms, tidy summaries with intervals."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from simkit.core.model import Rules
from simkit.core.tables import result_summary, summary_html, survival_table

__all__ = ["Result", "SUMMARY_COLUMNS"]

#: Columns of :meth:`Result.summary` (a public contract, with ``exact`` when known).
SUMMARY_COLUMNS = ("outcome", "count", "n", "p", "ci_low", "ci_high")


@dataclass(frozen=True)
class Result:
    """What :func:`simkit.simulate` returns.

    Attributes
    ----------
    model : Rules
        The rules simulated (with every parameter).
    n : int
        Number of tracks.
    seed : int
        The integer seed that replays the run (``simulate(model, n, rng=seed)``).
    hist : ndarray, shape (n_outcomes, horizon + 1), int64
        Tracks absorbed in each outcome at each step (row order ``model.outcomes``).
    marks : dict
        Field -> (n_outcomes, values) counts of that field's value at absorption.
    observed : dict
        Field -> (horizon + 1, values) counts over tracks still active after step t.
    """

    model: Rules
    n: int
    seed: int
    hist: np.ndarray
    marks: dict = field(default_factory=dict)
    observed: dict = field(default_factory=dict)
    #: each track's end state, in track order, with ``simulate(..., keep_state=True)``
    final: object = None

    @property
    def outcomes(self) -> tuple[str, ...]:
        return tuple(self.model.outcomes) + ("unresolved",)

    @property
    def params(self) -> dict:
        return self.model.params()

    @property
    def time_unit(self) -> str:
        return self.model.time_unit

    @property
    def counts(self) -> dict[str, int]:
        c = self.hist.sum(axis=1)
        out = dict(zip(self.model.outcomes, (int(x) for x in c)))
        out["unresolved"] = self.n - int(c.sum())
        return out

    def __getitem__(self, outcome: str) -> float:
        """Estimated probability of ``outcome``."""
        return self.counts[outcome] / self.n

    @cached_property
    def exact(self):
        """The :class:`~simkit.core.exact.ExactResult` of the same model, or None."""
        from simkit.core.exact import solve_if_possible

        return solve_if_possible(self.model)

    def summary(
        self, level: float = 0.95, method: str = "wilson", exact: bool = True
    ) -> pd.DataFrame:
        """One row per outcome: ``outcome, count, n, p, ci_low, ci_high`` (+ ``exact``).

        ``level`` is the confidence level of the interval (Wilson by default,
        ``method="clopper-pearson"`` for the exact interval). ``exact`` adds the exact
        probability when the model has an exact solver.
        """
        return result_summary(self, level, method, exact)

    @property
    def probabilities(self) -> dict[str, float]:
        """Estimated probability of each outcome (``count / n``), ``unresolved`` last."""
        return {o: c / self.n for o, c in self.counts.items()}

    def survival(self, level: float = 0.95, method: str = "wilson", exact=True) -> pd.DataFrame:
        """Per-step probabilities by outcome, with bands (:mod:`simkit.core.tables`).

        Long format with columns ``stage, time_unit, time, outcome, count, n, p, ci_low,
        ci_high, exact``: for each absorbing outcome, P(absorbed in it by the end of step
        ``time``); for ``active``, P(still in the track after step ``time``). Time is in
        the model's unit (``time_unit``, also ``df.attrs["time_unit"]``). ``exact``: True
        to add the exact answer when the model has one, False for none, or an
        :class:`~simkit.core.exact.ExactResult` already solved.
        """
        ex = self.exact if exact is True else (exact or None)
        df = survival_table(
            self.model.outcomes,
            stage=self.model.name,
            time_unit=self.time_unit,
            counts=np.cumsum(self.hist, axis=1),
            n=self.n,
            exact=None if ex is None else ex.cdf(),
            level=level,
            method=method,
        )
        df.attrs.update(model=self.model.name, time_unit=self.time_unit, seed=self.seed, n=self.n)
        return df

    def stage_summary(self, level: float = 0.95, method: str = "wilson") -> pd.DataFrame:
        """Outcomes by stage: one stage here (columns as :meth:`ChainResult.stage_summary`)."""
        df = self.summary(level, method, exact=False)
        df.insert(0, "time_unit", self.time_unit)
        df.insert(0, "stage", self.model.name)
        return df

    def event_count(self, event: str) -> int:
        """Tracks in one of the model's ``events`` (a mark at least its minimum)."""
        mark, minimum = self.model.events[event]
        return int(self.marks[mark][:, minimum:].sum())

    def marks_frame(self, name: str) -> pd.DataFrame:
        """Distribution of a mark: columns ``outcome, value, count, p`` (p over all tracks)."""
        counts = self.marks[name]
        rows = []
        for i, o in enumerate(self.model.outcomes):
            for v in np.flatnonzero(counts[i]):
                rows.append((o, int(v), int(counts[i, v]), counts[i, v] / self.n))
        return pd.DataFrame(rows, columns=["outcome", "value", "count", "p"])

    def _repr_html_(self) -> str:
        return summary_html(
            f"{self.model.name}: {self.n:,} tracks, seed {self.seed} (95% intervals)",
            self.summary(),
        )

    def __repr__(self) -> str:
        ps = ", ".join(f"{o}={c / self.n:.4f}" for o, c in self.counts.items())
        return f"Result({self.model.name}, n={self.n}, seed={self.seed}: {ps})"
