"""Exact answers: absorbing Markov chains built from a model's exact transitions.

The chain is discovered from the model's ``exact_initial()`` and
``exact_step(state, t)`` (see :mod:`simkit.core.model`); nothing here looks at a
Monte Carlo kernel. Steps that share an ``exact_regime(t)`` share one pair of
matrices ``Q`` (transient -> transient) and ``R`` (transient -> outcome); the state
distribution is then pushed forward step by step to the horizon, which gives each
outcome's probability and its per-step absorption distribution.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import pandas as pd

from simkit.core.contracts import ModelResult
from simkit.core.model import Rules
from simkit.core.names import unknown
from simkit.core.params import ParamError
from simkit.core.stats import confidence_of
from simkit.core.tables import summary_html, survival_table

__all__ = [
    "propagate",
    "solve",
    "solve_many",
    "solve_if_possible",
    "solve_ahead",
    "clear_cache",
    "ExactResult",
    "ExactTooLarge",
    "NoExactSolver",
    "Chain",
    "build_chain",
]


@dataclass(frozen=True)
class ExactResult:
    """What :func:`solve` returns: exact outcome probabilities and when they happen.

    ``res.probabilities`` (outcome -> probability, ``unresolved`` last: the mass still in
    the track after the horizon), ``res["dead"]``, ``res.summary()`` (columns
    ``outcome, p``), ``res.survival()`` (P(absorbed by step t), as
    :meth:`simkit.Result.survival` with ``p = exact`` and no counts),
    ``res.stage_summary()`` and ``res.cdf()`` (an array).

    Attributes
    ----------
    model : Rules
        The rules solved.
    hist : ndarray, shape (n_outcomes, horizon + 1)
        P(absorbed in outcome at step t). Row order is ``model.outcomes``.
    unresolved : float or None
        Mass still transient after the horizon (None: 1 minus the absorbed mass).
    """

    model: Rules
    hist: np.ndarray
    unresolved: float | None = None  # mass still transient after the horizon

    @property
    def outcomes(self) -> tuple[str, ...]:
        return tuple(self.model.outcomes) + ("unresolved",)

    @property
    def probabilities(self) -> dict[str, float]:
        # float sums of a full distribution can land a few ulps past 1 (1.0000000000000004)
        p = np.clip(self.hist.sum(axis=1), 0.0, 1.0)
        out = dict(zip(self.model.outcomes, (float(x) for x in p)))
        if self.unresolved is not None:
            out["unresolved"] = float(self.unresolved)
        else:
            rest = 1.0 - float(p.sum())
            out["unresolved"] = (
                rest if rest > 1e-12 else 0.0
            )  # float rounding of a full distribution
        return out

    def __getitem__(self, outcome: str) -> float:
        """The exact probability of ``outcome``; an unknown one is a ``KeyError`` listing
        the outcomes (and the near one meant)."""
        if outcome not in self.probabilities:
            raise KeyError(
                unknown("outcome", outcome, self.probabilities, where=f"of {self.model.name!r}")
            )
        return self.probabilities[outcome]

    def __repr__(self) -> str:
        ps = ", ".join(f"{o}={p:.6f}" for o, p in self.probabilities.items())
        return f"ExactResult({self.model.name}: {ps})"

    def _repr_html_(self) -> str:
        return summary_html(f"{self.model.name}: exact", self.summary())

    def to_xarray(self):
        """The summary as an :class:`xarray.Dataset` over ``name`` (with ``kind`` along it):
        :func:`simkit.core.labelled.to_xarray`. Needs xarray (``pip install
        'simkit[xarray]'``)."""
        from simkit.core.labelled import to_xarray

        return to_xarray(self.summary())

    def summary(self) -> pd.DataFrame:
        """Columns ``outcome, kind, p`` (``kind`` is ``outcome``: the ``p`` add up to 1)."""
        probs = self.probabilities
        return pd.DataFrame({"outcome": list(probs), "kind": "outcome", "p": list(probs.values())})

    def cdf(self) -> np.ndarray:
        """P(absorbed in outcome by step t): shape (n_outcomes, horizon + 1), in [0, 1]."""
        return np.clip(np.cumsum(self.hist, axis=1), 0.0, 1.0)

    @property
    def time_unit(self) -> str:
        return self.model.time_unit

    def survival(
        self,
        confidence: float = 0.95,
        method: str = "wilson",
        exact: bool = True,
        *,
        level: float | None = None,
    ) -> pd.DataFrame:
        """P(absorbed in each outcome by step t) and P(``active``): the survival table.

        Same columns as :meth:`simkit.Result.survival`; ``p``, ``ci_low``, ``ci_high``
        and ``exact`` are the exact probability, ``count`` and ``n`` are missing.
        ``confidence``, ``method`` and ``exact`` are accepted for a common signature.
        """
        level = confidence_of(confidence, level, "survival")
        df = survival_table(
            self.model.outcomes, stage=self.model.name, time_unit=self.time_unit, exact=self.cdf()
        )
        df.attrs.update(model=self.model.name, time_unit=self.time_unit)
        return df

    def stage_summary(self) -> pd.DataFrame:
        """Outcomes by stage (one stage): columns ``stage, time_unit, outcome, p``."""
        df = self.summary()
        df.insert(0, "time_unit", self.time_unit)
        df.insert(0, "stage", self.model.name)
        return df


@dataclass
class Chain:
    """Transient states, and the matrices of each regime."""

    states: list
    index: dict
    initial: np.ndarray  # (S,) initial transient distribution
    initial_absorbed: np.ndarray  # (O,) absorbed at step 0
    matrices: dict  # regime -> (Q (S, S), R (S, O))
    schedule: tuple = ()  # index (in ``matrices`` order) of the regime of steps 1..horizon


#: Chains larger than this are refused (Monte Carlo answers them instead).
MAX_STATES = 250_000
#: Chains with more states than this use sparse matrices.
DENSE_LIMIT = 1_500
#: Chains with more states than this are solved one by one in ``solve_many``.
BATCH_LIMIT = 400


class NoExactSolver(ParamError, NotImplementedError):
    """The model, or this configuration of it, has no exact answer: the library's
    :class:`~simkit.core.params.ParamError` (a ``ValueError``), and a
    ``NotImplementedError`` as :func:`solve` raised before 0.4."""


class ExactTooLarge(NoExactSolver):
    """The model's exact chain has more than :data:`MAX_STATES` transient states."""


def build_chain(model) -> Chain:
    """Enumerate reachable transient states and build each regime's matrices.

    Dense matrices up to :data:`DENSE_LIMIT` states, sparse (CSR) beyond; more than
    :data:`MAX_STATES` states raise :class:`ExactTooLarge`.
    """
    outcomes = list(model.outcomes)
    out_index = {o: i for i, o in enumerate(outcomes)}
    regimes, schedule = _schedule(model)
    init = model.exact_initial()
    states: list = []
    index: dict = {}

    def add(s):
        if s not in index:
            if len(states) >= MAX_STATES:
                raise ExactTooLarge(
                    f"the exact chain of model {model.name!r} has more than {MAX_STATES} states; "
                    "use Monte Carlo (simkit run ... --no-exact)"
                )
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
    S, n_out = len(states), len(outcomes)
    initial = np.zeros(S)
    for key, p in init.items():
        if not isinstance(key, str):
            initial[index[key]] += p
    matrices = {}
    for r in regimes:
        if S <= DENSE_LIMIT:
            Q = np.zeros((S, S))
            R = np.zeros((S, n_out))
            for s in states:
                a = index[s]
                for key, p in trans[(r, s)].items():
                    if isinstance(key, str):
                        R[a, _outcome(out_index, key, model)] += p
                    else:
                        Q[a, index[key]] += p
        else:
            Q, R = _sparse(states, index, trans, r, out_index, model)
        matrices[r] = (Q, R)
    return Chain(states, index, initial, init_abs, matrices, tuple(schedule))


def _sparse(states, index, trans, r, out_index, model):
    """CSR matrices Q (S, S) and R (S, O) of one regime (duplicates are summed)."""
    from scipy import sparse

    qi, qj, qv, ri, rj, rv = [], [], [], [], [], []
    for s in states:
        a = index[s]
        for key, p in trans[(r, s)].items():
            if isinstance(key, str):
                ri.append(a)
                rj.append(_outcome(out_index, key, model))
                rv.append(p)
            else:
                qi.append(a)
                qj.append(index[key])
                qv.append(p)
    S, n_out = len(states), len(out_index)
    Q = sparse.csr_array((qv, (qi, qj)), shape=(S, S))
    R = sparse.csr_array((rv, (ri, rj)), shape=(S, n_out))
    return Q, R


def _schedule(model) -> tuple[dict, list[int]]:
    """({regime: first step}, [index of step t's regime for t = 1..horizon])."""
    regimes: dict = {}  # regime -> first step
    index: dict = {}  # regime -> position in ``regimes``
    schedule = []
    for t in range(1, model.horizon + 1):
        r = model.exact_regime(t)
        i = index.get(r)
        if i is None:
            i = index[r] = len(regimes)
            regimes[r] = t
        schedule.append(i)
    return regimes, schedule


def _outcome(out_index, key, model):
    try:
        return out_index[key]
    except KeyError:
        raise RuntimeError(f"model {model.name!r} produced unknown outcome {key!r}") from None


def solve(model, *, tol: float = 0.0) -> ModelResult:
    """Exact outcome probabilities and absorption-time distribution of ``model``.

    Parameters
    ----------
    model : Rules
        Any model with ``has_exact`` (``simkit models`` says which).
    tol : float
        Stop pushing the distribution forward once less than ``tol`` of it is left in
        the track (0: go to the horizon).

    Returns
    -------
    ExactResult
        For a chained model a :class:`simkit.core.chain.ChainExact` (the same
        interface, plus ``first`` and ``then``, the stages' answers).
        ``res.probabilities`` maps each outcome to its probability (``unresolved``:
        still in the track after the horizon); ``res["dead"]`` is one of them;
        ``res.summary()`` is a DataFrame ``outcome, p``; ``res.survival()`` gives
        P(absorbed in each outcome by step t) in the model's time unit;
        ``res.stage_summary()`` splits outcomes by stage; ``res.hist`` is the array of
        P(absorbed at step t), shape (n_outcomes, horizon + 1).

    Raises
    ------
    NoExactSolver
        The model, or this configuration of it, has no exact solver (a
        :class:`~simkit.core.params.ParamError` and a ``NotImplementedError``).
    ExactTooLarge
        The chain has more than :data:`MAX_STATES` transient states (a
        :class:`NoExactSolver`).
    """
    if not model.has_exact:
        why = getattr(model, "exact_refusal", None)  # (a model that says why: its duels)
        why = f" ({why})" if why else ""
        raise NoExactSolver(f"model {model.name!r} has no exact solver{why}")
    try:
        if model.is_chain:
            return model.solve_stages(solve)
        if model.has_exact_hist:
            return ExactResult(model=model, hist=np.asarray(model.exact_hist(), dtype=np.float64))
        return propagate(model, build_chain(model), tol)
    except NoExactSolver:
        raise
    except NotImplementedError as exc:  # a model's own refusal (a duel only, ...)
        raise NoExactSolver(str(exc)) from None


def propagate(model, chain: Chain, tol: float = 0.0) -> ExactResult:
    """Push the state distribution through ``chain`` (:func:`build_chain`), step by step, to
    the horizon: the exact answer of a model state by state."""
    horizon = model.horizon
    hist = np.zeros((len(model.outcomes), horizon + 1))
    hist[:, 0] = chain.initial_absorbed
    v = chain.initial
    for t in range(1, horizon + 1):
        if not v.any():
            break
        Q, R = chain.matrices[model.exact_regime(t)]
        hist[:, t] = R.T @ v
        v = Q.T @ v
        if tol and v.sum() < tol:
            break
    return ExactResult(model=model, hist=hist, unresolved=_unresolved(float(v.sum())))


def _unresolved(rest: float) -> float:
    """The mass still transient after the horizon, as :func:`solve` and :func:`solve_many`
    both report it: below 1e-15 it is float noise next to probabilities that sum to 1, and
    0 (a report must not print 0 as ``1.94e-22`` from one path and ``0.0`` from the other)."""
    return rest if rest > 1e-15 else 0.0


def solve_many(models) -> list:
    """Exact answers of many models at once (a sweep's grid), same as ``[solve(m) ...]``.

    Chains of models that share a horizon and a step schedule of regimes are pushed
    forward together: their matrices are stacked (padded with unreachable states to a
    common size, which changes no number) into arrays of shape ``(B, S, S)`` and
    ``(B, S, O)``, and one batched product per step advances all ``B`` of them. The
    probabilities agree with :func:`solve` to rounding (the sums are the same, in a
    possibly different order). Chained models (:mod:`simkit.core.chain`) are solved stage
    by stage, every stage of every point in the same batch; models with their own
    ``exact_hist`` are solved one by one. Raises :class:`NoExactSolver` (a ``ParamError``
    and a ``NotImplementedError``) for a model without an exact solver.

    A model with an ``exact_key()`` (the reduced key its chain depends on) is solved once
    per distinct key: the answers are cached (:data:`ANSWER_CACHE_SIZE`, least recently
    used dropped; :func:`clear_cache`), so a sweep over DCs and save bonuses builds one
    chain per distinct margin. The batched products give each chain the same numbers
    whatever else is in its batch, so a cached answer is the one a fresh solve gives.
    """
    models = list(models)
    out: list = [None] * len(models)
    plain: list[int] = []
    chains: list[int] = []
    for i, m in enumerate(models):
        if not m.has_exact:
            raise NoExactSolver(f"model {m.name!r} has no exact solver")
        if m.is_chain:
            chains.append(i)
        elif m.has_exact_hist:
            out[i] = solve(m)
        else:
            plain.append(i)
    if chains:
        stage_models: list = []
        layout: list = []
        for i in chains:
            first, then = models[i].stages()
            keys = list(then)
            layout.append((i, len(stage_models), keys))
            stage_models.append(first)
            stage_models.extend(then[k] for k in keys)
        solved = solve_many(stage_models)
        for i, start, keys in layout:
            then = {k: solved[start + 1 + j] for j, k in enumerate(keys)}
            out[i] = models[i].combine_stages(solved[start], then)
    groups: dict = {}
    built = {}
    solving: dict = {}  # answer key -> the index solved for it in this call
    same: list[tuple[int, int]] = []  # (index, index solved for its key)
    for i in plain:
        m = models[i]
        key = _answer_key(m)
        if key is not None:
            hit = _cached(key)
            if hit is not None:
                out[i] = ExactResult(model=m, hist=hit[0].copy(), unresolved=hit[1])
                continue
            if key in solving:
                same.append((i, solving[key]))
                continue
            solving[key] = i
        chain = build_chain(m)
        if len(chain.states) > BATCH_LIMIT:  # stacking dense (B, S, S) arrays would not fit
            out[i] = propagate(m, chain)
            continue
        built[i] = (chain, list(chain.matrices))
        key = (m.horizon, len(m.outcomes), chain.schedule)
        groups.setdefault(key, []).append(i)
    for (horizon, n_out, schedule), idx in groups.items():
        B = len(idx)
        S = max(1, max(len(built[i][0].states) for i in idx))
        n_reg = max(schedule) + 1 if schedule else 0
        Q = np.zeros((n_reg, B, S, S))
        R = np.zeros((n_reg, B, S, n_out))
        V = np.zeros((B, S))
        hist = np.zeros((B, n_out, horizon + 1))
        for b, i in enumerate(idx):
            chain, regimes = built[i]
            s = len(chain.states)
            V[b, :s] = chain.initial
            hist[b, :, 0] = chain.initial_absorbed
            for r, key in enumerate(regimes):
                q, rr = chain.matrices[key]
                Q[r, b, :s, :s] = q
                R[r, b, :s, :] = rr
        for t in range(1, horizon + 1):
            if not V.any():
                break
            r = schedule[t - 1]
            hist[:, :, t] = np.einsum("bs,bso->bo", V, R[r])
            V = np.einsum("bs,bsk->bk", V, Q[r])
        for b, i in enumerate(idx):
            # summed over the chain's own states: padding must not change the rounding
            rest = float(V[b, : len(built[i][0].states)].sum())
            out[i] = ExactResult(model=models[i], hist=hist[b], unresolved=_unresolved(rest))
    for key, i in solving.items():
        _remember(key, out[i])
    for i, j in same:
        out[i] = ExactResult(model=models[i], hist=out[j].hist.copy(), unresolved=out[j].unresolved)
    return out


def solve_ahead(models, batch: int = 256) -> None:
    """Solve and cache, in few batches, the answers :func:`solve_many` will be asked for.

    Only models with an ``exact_key()`` (see :func:`_answer_key`), one per distinct key not
    cached yet, at most ``batch`` chains at once. A sweep in one process calls it with all
    its points, so that its chunks find their answers cached instead of each pushing its
    few new chains through the horizon. Errors are left to the later :func:`solve_many`.
    """
    todo: dict = {}
    for m in models:
        if not m.has_exact or m.is_chain or m.has_exact_hist:
            continue
        key = _answer_key(m)
        if key is not None and key not in todo and _cached(key) is None:
            todo[key] = m
    reps = list(todo.values())
    for i in range(0, len(reps), batch):
        try:
            solve_many(reps[i : i + batch])
        except Exception:  # raised again, in place, by the chunk's own solve
            continue


#: Answers of :func:`solve_many`, by :func:`_answer_key` (least recently used dropped).
_ANSWERS: OrderedDict = OrderedDict()
#: How many answers :data:`_ANSWERS` keeps.
ANSWER_CACHE_SIZE = 4096
_LOCK = threading.Lock()


def _answer_key(model) -> tuple | None:
    """``(class, model.exact_key())``: rules with equal keys have the same exact answer.

    A model opts in by defining ``exact_key()`` (the reduced key its chain depends on,
    e.g. a save's margin instead of its bonus and DC); None: not cached. Only a class's
    own ``exact_key`` counts: a subclass (a house rule) may change the chain through
    parameters its parent's key does not know.
    """
    key_of = type(model).__dict__.get("exact_key")
    key = key_of(model) if key_of is not None else None
    return None if key is None else (type(model), key)


def _cached(key: tuple) -> tuple | None:
    with _LOCK:  # threads may share the cache (a thread-pool executor)
        hit = _ANSWERS.get(key)
        if hit is not None:
            _ANSWERS.move_to_end(key)
        return hit


def _remember(key: tuple, res: ExactResult) -> None:
    with _LOCK:
        _ANSWERS[key] = (res.hist.copy(), res.unresolved)
        while len(_ANSWERS) > ANSWER_CACHE_SIZE:
            _ANSWERS.popitem(last=False)


def clear_cache() -> None:
    """Forget the answers :func:`solve_many` cached (a benchmark's fresh start)."""
    with _LOCK:
        _ANSWERS.clear()


def solve_if_possible(model) -> ModelResult | None:
    """The exact answer of ``model``, or None when it has no solver or its chain is too
    large (the Monte Carlo answer then stands alone)."""
    if not model.has_exact:
        return None
    try:
        return solve(model)
    except ExactTooLarge:
        return None
