"""Helpers for statistical tests of simkit models (used by simkit's own tests)."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "within_se",
    "standard_error",
    "RecordingRng",
    "Draw",
    "Replayed",
    "replay",
    "replay_phase",
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
    through the model's scalar reference (STYLE.md item 6; :func:`replay` does it for a
    whole model, :func:`replay_phase` for one phase). ``draws`` is a list of
    ``(kind, array)`` in call order; ``below`` records as ``"integers"``. ``highs`` is
    parallel to ``draws``: each draw's exclusive upper bound (``None`` for ``random``), so
    a test can check the range a kernel drew from, not only the values it got.
    """

    def __init__(self, seed) -> None:
        self.gen = np.random.default_rng(seed)
        self.draws: list = []
        self.highs: list = []

    def _keep(self, kind, x, high):
        self.draws.append((kind, x))
        self.highs.append(high)
        return x

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        x = self.gen.integers(low, high, size=size, dtype=dtype, endpoint=endpoint)
        top = low if high is None else high
        return self._keep("integers", x, int(top) + int(bool(endpoint)))

    def below(self, width, size=None, out=None):
        x = self.gen.integers(0, width, size=size, dtype=np.uint16)
        if out is not None:
            out[...] = x
            x = out
        return self._keep("integers", x, int(width))

    def random(self, size=None, dtype=np.float64):
        return self._keep("random", self.gen.random(size=size, dtype=dtype), None)

    def d20(self, size=None):
        return self._keep("d20", self.gen.integers(1, 21, size=size, dtype=np.uint8), 21)

    def clear(self) -> None:
        """Forget the draws recorded so far."""
        self.draws.clear()
        self.highs.clear()


class Draw(NamedTuple):
    """One draw as one track saw it (what :func:`replay` hands a scalar reference).

    ``value`` is the track's row of the drawn array (a scalar, or a row of a 2-D draw);
    a draw whose first axis is not one value per track is handed over whole.
    """

    kind: str  # "integers" (also BlockRng.below), "random" or "d20"
    value: Any
    high: int | None  # exclusive upper bound of the draw; None for "random"


@dataclass(frozen=True, slots=True)
class Replayed:
    """The kernel's result of a :func:`replay`, track by track (it equalled the reference)."""

    outcomes: tuple[str, ...]  # the model's outcome names
    outcome: np.ndarray  # (n,) int64: outcome index of each track, -1 if active at the horizon
    step: np.ndarray  # (n,) int64: step at which it absorbed (0 = at init), -1 if unresolved
    marks: dict  # mark name -> (n,) int64: its value at absorption (0 if unresolved)

    @property
    def counts(self) -> dict[str, int]:
        """Tracks per outcome (every outcome listed), as ``Result.counts``."""
        got = np.bincount(self.outcome[self.outcome >= 0], minlength=len(self.outcomes))
        return {o: int(c) for o, c in zip(self.outcomes, got)}


def _rows(draws, highs, n_active: int, row: int) -> list[Draw]:
    """One track's share of the draws of one call: the row ``row`` of each drawn array."""
    return [
        Draw(kind, x[row] if np.ndim(x) and len(x) == n_active else x, high)
        for (kind, x), high in zip(draws, highs)
    ]


def _show_draws(draws: list[Draw]) -> str:
    shown = [
        f"{d.kind} {np.asarray(d.value).tolist()}" + ("" if d.high is None else f" (< {d.high})")
        for d in draws
    ]
    return ", ".join(shown) or "none"


def _show_code(code, outcomes, t: int) -> str:
    if code is None or code < 0:
        return "still active"
    k, j = divmod(int(code), len(outcomes))
    return f"{outcomes[j]!r} at step {t + k}"


def replay(
    model,
    n: int,
    seed,
    *,
    start: Callable,
    step: Callable,
    marks: Callable | None = None,
    check: Callable | None = None,
    state=None,
) -> Replayed:
    """Run ``model``'s kernel on ``n`` tracks and replay each through a scalar reference.

    The kernel runs as the engine runs it (``init``, then ``step`` until every track
    absorbs or the horizon; per-track state arrays compacted after each step) on a
    :class:`RecordingRng` seeded with ``seed``; after every call each track still in play
    is replayed through the reference on its own share of the same draws. The kernel's
    step code and the reference's must agree track by track, and so must every one of
    ``model.marks`` at absorption (the kernel's value being what the engine records: the
    state's array, or 0 where the model keeps none). A difference fails with the track,
    the step, both codes and every draw that track saw.

    Parameters
    ----------
    model : Rules
        Any single-stage model (a chain's stages are replayed one by one).
    n : int
        Tracks.
    seed : int
        Seed of the recording generator.
    start : callable ``start(draws) -> (outcome, track)``
        Step 0 of one track: ``draws`` is its share of what ``model.init`` drew (a list
        of :class:`Draw`, in call order); ``outcome`` an outcome index, or None while
        active; ``track`` the reference's state of that track (any object).
    step : callable ``step(track, t, k, draws) -> (code, track)``
        The ``k`` steps ``t, ..., t + k - 1`` the kernel resolved in one call (``k`` = 1
        unless the kernel returns ``(codes, k)``), with this track's share of the call's
        draws. ``code``: None while still active, else the kernel's step code
        ``outcome + len(model.outcomes) * offset`` for an absorption at step
        ``t + offset``.
    marks : callable ``marks(track) -> {name: value}``, optional
        The reference's value of each mark at absorption; by default ``track[name]``
        (the track must then be a mapping).
    check : callable ``check(state, row, track, t, code)``, optional
        Further assertions after each call, for every track in it (``row``: its row in
        the kernel's ``state``, before compaction; ``code`` the agreed code or None).
    state : optional
        Where the kernel's tracks start, for a model that starts from a given state
        (``model.init(n, rng, start=state)``; the reference's ``start`` gets the same).

    Returns
    -------
    Replayed
        Each track's outcome, absorption step and marks (the kernel's, equal to the
        reference's).
    """
    outcomes = tuple(model.outcomes)
    n_out = len(outcomes)
    names = tuple(model.marks)
    if marks is None:

        def marks(track):
            if names and not isinstance(track, Mapping):
                raise TypeError("replay: give marks= for a reference whose track is no mapping")
            return {name: track[name] for name in names}

    out = np.full(n, -1, dtype=np.int64)
    when = np.full(n, -1, dtype=np.int64)
    got_marks = {name: np.zeros(n, dtype=np.int64) for name in names}
    seen: list[list] = [[] for _ in range(n)]  # per track: (step, its draws) of each call

    def where(i, t):
        lines = "\n".join(f"    step {s}: {_show_draws(d)}" for s, d in seen[i])
        return f"{model!r}: track {i} at step {t}; the draws it saw:\n{lines}"

    def settle(state, codes, ids, trs, t, call):
        """Compare one call's codes and marks with the reference; the rows still active."""
        keep = []
        draws, highs = list(rng.draws), list(rng.highs)
        for row, i in enumerate(ids):
            d = _rows(draws, highs, len(ids), row)
            seen[i].append((t, d))
            try:
                ref, trs[i] = call(trs[i], d)
            except AssertionError as exc:
                raise AssertionError(f"{where(i, t)}\n  the reference's check: {exc}") from exc
            got = int(codes[row])
            if ref is not None and ref < 0:
                raise AssertionError(f"{where(i, t)}\n  the reference gave code {ref}")
            if (got < 0) != (ref is None) or (ref is not None and got != ref):
                raise AssertionError(
                    f"{where(i, t)}\n  kernel: {_show_code(got, outcomes, t)} (code {got}); "
                    f"reference: {_show_code(ref, outcomes, t)} (code {ref})"
                )
            if ref is None:
                keep.append(row)
            else:
                k, j = divmod(ref, n_out)
                out[i], when[i] = j, t + k
                want = marks(trs[i])
                for name in names:
                    v = state.get(name)
                    got_mark = 0 if v is None else int(v[row])
                    if got_mark != int(want[name]):
                        raise AssertionError(
                            f"{where(i, t)}\n  mark {name!r} at {_show_code(ref, outcomes, t)}: "
                            f"kernel {got_mark}, reference {want[name]}"
                        )
                    got_marks[name][i] = got_mark
            if check is not None:
                try:
                    check(state, row, trs[i], t, ref)
                except AssertionError as exc:
                    raise AssertionError(f"{where(i, t)}\n  check: {exc}") from exc
        kept = np.array(keep, dtype=np.intp)
        return compact_state(state, kept, len(ids)), ids.take(kept)

    from simkit.core.engine import compact_state

    rng = RecordingRng(seed)
    given = state
    state, codes = model.init(n, rng) if given is None else model.init(n, rng, start=given)
    trs: list = [None] * n
    ids = np.arange(n)
    state, ids = settle(state, np.broadcast_to(codes, (n,)), ids, trs, 0, lambda _, d: start(d))
    t = 0  # last step completed
    while len(ids) and t < model.horizon:
        rng.clear()
        res = model.step(state, t + 1, rng)
        codes, k = res if isinstance(res, tuple) else (res, 1)
        assert len(codes) == len(ids) and 1 <= k <= model.horizon - t, (
            f"{model!r} broke the step contract at step {t + 1}"
        )
        state, ids = settle(
            state, codes, ids, trs, t + 1, lambda tr, d, t=t, k=k: step(tr, t + 1, k, d)
        )
        t += k
    return Replayed(outcomes=outcomes, outcome=out, step=when, marks=got_marks)


def replay_phase(phase: Callable, reference: Callable, seed):
    """Run a vectorised phase on a :class:`RecordingRng`; replay each element by reference.

    ``phase(rng)`` returns an array, or a tuple of arrays, with one entry per element
    along the first axis; ``reference(j, draws)`` gets element ``j``'s share of the draws
    (a list of :class:`Draw`) and returns that element's value (a tuple for a tuple). The
    first element that differs fails with its index, both values and its draws. Returns
    ``(result, rng.draws)`` for further checks.
    """
    rng = RecordingRng(seed)
    res = phase(rng)
    cols = res if isinstance(res, tuple) else (res,)
    n = len(cols[0])
    for j in range(n):
        d = _rows(rng.draws, rng.highs, n, j)
        got = tuple(np.asarray(c[j]).tolist() for c in cols)
        want = reference(j, d)
        want = tuple(want) if isinstance(res, tuple) else (want,)
        if got != want:
            raise AssertionError(
                f"element {j} of {n}: phase {got if isinstance(res, tuple) else got[0]!r}, "
                f"reference {want if isinstance(res, tuple) else want[0]!r}; "
                f"its draws: {_show_draws(d)}"
            )
    return res, rng.draws


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
