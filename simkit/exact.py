"""Exact answers: absorbing Markov chains built from a model's exact transitions.

The chain is discovered from the model's ``exact_initial()`` and
``exact_step(state, t)`` (see :mod:`simkit.models.base`); nothing here looks at a
Monte Carlo kernel. Steps that share an ``exact_regime(t)`` share one pair of
matrices ``Q`` (transient -> transient) and ``R`` (transient -> outcome); the state
distribution is then pushed forward step by step to the horizon, which gives each
outcome's probability and its per-step absorption distribution.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["solve", "ExactResult", "Chain", "build_chain"]


@dataclass(frozen=True)
class ExactResult:
    """Exact outcome probabilities of a model, with the per-step distribution.

    Attributes
    ----------
    model : Rules
    hist : ndarray, shape (n_outcomes, horizon + 1)
        P(absorbed in outcome at step t). Row order is ``model.outcomes``.
    """

    model: object
    hist: np.ndarray
    unresolved: float | None = None  # mass still transient after the horizon

    @property
    def outcomes(self) -> tuple[str, ...]:
        return tuple(self.model.outcomes) + ("unresolved",)

    @property
    def probabilities(self) -> dict[str, float]:
        p = self.hist.sum(axis=1)
        out = dict(zip(self.model.outcomes, (float(x) for x in p)))
        if self.unresolved is not None:
            out["unresolved"] = float(self.unresolved)
        else:
            rest = 1.0 - float(p.sum())
            out["unresolved"] = rest if rest > 1e-12 else 0.0  # float rounding of a full distribution
        return out

    def __getitem__(self, outcome: str) -> float:
        return self.probabilities[outcome]

    def summary(self) -> pd.DataFrame:
        """Columns ``outcome, p``."""
        probs = self.probabilities
        return pd.DataFrame({"outcome": list(probs), "p": list(probs.values())})

    def cdf(self) -> np.ndarray:
        """P(absorbed in outcome by step t): shape (n_outcomes, horizon + 1)."""
        return np.cumsum(self.hist, axis=1)


@dataclass
class Chain:
    """Transient states, and the matrices of each regime."""

    states: list
    index: dict
    initial: np.ndarray  # (S,) initial transient distribution
    initial_absorbed: np.ndarray  # (O,) absorbed at step 0
    matrices: dict  # regime -> (Q (S, S), R (S, O))


def build_chain(model) -> Chain:
    """Enumerate reachable transient states and build each regime's matrices."""
    outcomes = list(model.outcomes)
    out_index = {o: i for i, o in enumerate(outcomes)}
    horizon = model.horizon
    regimes: dict = {}
    for t in range(1, horizon + 1):
        r = model.exact_regime(t)
        if r not in regimes:
            regimes[r] = t
    init = model.exact_initial()
    states: list = []
    index: dict = {}

    def add(s):
        if s not in index:
            index[s] = len(states)
            states.append(s)

    init_abs = np.zeros(len(outcomes))
    for key, p in init.items():
        if isinstance(key, str):
            init_abs[_outcome(out_index, key, model)] += p
        else:
            add(key)
    # Breadth-first discovery over every regime.
    trans: dict = {}
    i = 0
    while i < len(states):
        s = states[i]
        for r, t in regimes.items():
            d = model.exact_step(s, t)
            trans[(r, s)] = d
            for key in d:
                if not isinstance(key, str):
                    add(key)
        i += 1
    S, O = len(states), len(outcomes)
    initial = np.zeros(S)
    for key, p in init.items():
        if not isinstance(key, str):
            initial[index[key]] += p
    matrices = {}
    for r in regimes:
        Q = np.zeros((S, S))
        R = np.zeros((S, O))
        for s in states:
            a = index[s]
            for key, p in trans[(r, s)].items():
                if isinstance(key, str):
                    R[a, _outcome(out_index, key, model)] += p
                else:
                    Q[a, index[key]] += p
        matrices[r] = (Q, R)
    return Chain(states, index, initial, init_abs, matrices)


def _outcome(out_index, key, model):
    try:
        return out_index[key]
    except KeyError:
        raise RuntimeError(f"model {model.name!r} produced unknown outcome {key!r}") from None


def solve(model, *, tol: float = 0.0) -> ExactResult:
    """Exact outcome probabilities and absorption-time distribution of ``model``.

    Raises ``NotImplementedError`` for a model without an exact solver.
    """
    if not getattr(model, "has_exact", False):
        raise NotImplementedError(f"model {model.name!r} has no exact solver")
    if getattr(model, "is_chain", False):
        from .chain import solve_chain

        return solve_chain(model, solve)
    custom = getattr(model, "exact_hist", None)
    if custom is not None:
        return ExactResult(model=model, hist=np.asarray(custom(), dtype=np.float64))
    chain = build_chain(model)
    horizon = model.horizon
    hist = np.zeros((len(model.outcomes), horizon + 1))
    hist[:, 0] = chain.initial_absorbed
    v = chain.initial
    for t in range(1, horizon + 1):
        if not v.any():
            break
        Q, R = chain.matrices[model.exact_regime(t)]
        hist[:, t] = v @ R
        v = v @ Q
        if tol and v.sum() < tol:
            break
    return ExactResult(model=model, hist=hist, unresolved=float(v.sum()))
