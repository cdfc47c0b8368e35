"""Paired comparisons: two rule variants on the same dice, counted track by track.

Two variants run with ``simulate(..., positional=True, keep_outcomes=True)`` on one seed
give track ``i`` the same draws at the same call under both (:mod:`simkit.core.streams`),
so their outcomes are strongly correlated where the variants use the dice alike. For an
outcome ``o``, with ``x_i = [track i ends in o under the baseline]`` and ``y_i`` the same
under the variant, the difference ``p_y - p_x`` is the mean of the per-track differences
``y_i - x_i``, and its standard error comes from those differences, i.e. from the
discordant tracks only (``b``: o under the variant only, ``c``: under the baseline only):

``diff = (b - c) / n``, ``se = sqrt(((b + c) / n - diff**2) / n)``

The interval is Tango's score interval for paired proportions (:func:`paired_test`),
near its nominal coverage at every ``n`` (the normal interval ``diff +- z se`` it
replaced in 0.4.0 was too narrow at small ``n`` and collapsed to ``[0, 0]`` without
discordant tracks); the p-value is McNemar's test without continuity correction,
``z = (b - c) / sqrt(b + c)`` (two-sided; 1 when no track is discordant), the same score
statistic at 0. Both are valid whatever the variants do with the dice: where they use
them differently the correlation is smaller and the interval wider (docs/paired.md).

An event of the marks (``any_death``, ``death:<pc>``..., :func:`simkit.core.result.event_specs`)
is tested the same way, from each track's marks under both variants
(``TrackResult.track_marks``). A mean of a mark (``expected_deaths``...) is tested on the
per-track differences ``d_i = y_i - x_i`` (an unresolved track counted as the mean's
rule says): ``diff`` their mean, the t interval ``diff +- t s(d) / sqrt(n)`` with a
small-sample floor and the two-sided t test of ``diff == 0`` (:func:`paired_mean_test`).

:func:`paired_runs` runs a list of variants at one point this way (stepped together
where they draw alike: :mod:`simkit.core.lockstep`, :mod:`simkit.core.lockstep_tables`)
and returns, per variant, its counts and the paired statistics against the baseline (the
first).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from simkit.core.stats import norm_ppf, norm_sf, two_proportion_test

__all__ = [
    "PairedPoint",
    "TrackValues",
    "independent_mean_test",
    "joint_counts",
    "paired_events",
    "paired_from_joint",
    "paired_mean_test",
    "paired_runs",
    "paired_stats",
    "paired_test",
]


def joint_counts(a: np.ndarray, b: np.ndarray, k: int, counts_a=None) -> np.ndarray:
    """``J[i, j]`` = tracks whose outcome index is ``i`` in ``a`` and ``j`` in ``b``
    (shape ``(k, k)``, int64; ``a``, ``b``: per-track outcome indices in ``[0, k)``).
    ``counts_a``: the tracks of each outcome in ``a`` (``bincount(a, minlength=k)``), when
    known (a run's counts). The discordant tracks are counted one by one, the diagonal
    from the counts of ``a``."""
    if a.shape != b.shape:
        raise ValueError(f"paired outcomes of different lengths: {a.shape} and {b.shape}")
    if counts_a is None:
        counts_a = np.bincount(a.astype(np.intp), minlength=k)
    disc = np.flatnonzero(a != b)
    idx = a.take(disc).astype(np.intp) * k
    idx += b.take(disc)
    joint = np.bincount(idx, minlength=k * k).reshape(k, k)
    np.fill_diagonal(joint, np.asarray(counts_a, dtype=np.int64) - joint.sum(axis=1))
    return joint


def _tango_score(b, c, n, delta):
    """Tango's score statistic of ``diff == delta`` (module docs), elementwise.

    ``(b - c - n delta) / sqrt(n (2 q + delta (1 - delta)))``, ``q`` the restricted
    maximum-likelihood share of tracks in the outcome under the baseline only given the
    difference ``delta``: the root in ``[0, 1]`` of ``2 n q**2 + W q - c delta (1 - delta)``
    with ``W = (2 n - b + c) delta - (b + c)``. 0 where numerator and variance are both 0.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return _score(b - c, b + c, 2 * n - b + c, 8 * n * c, n, delta)


def _score(bmc, bpc, a, k, n, delta):
    """:func:`_tango_score` from ``b - c``, ``b + c``, ``2n - b + c`` and ``8nc`` (kept
    between the bisection's steps; floating-point errors to be ignored by the caller)."""
    w = a * delta - bpc
    dd = delta * (1 - delta)
    q = (np.sqrt(np.maximum(w * w + k * dd, 0.0)) - w) / (4 * n)
    var = n * np.maximum(2 * q + dd, 0.0)
    num = bmc - n * delta
    edge = np.where(num > 0, np.inf, np.where(num < 0, -np.inf, 0.0))
    return np.where(var > 0, num / np.sqrt(var), edge)


def _tango_bounds(b, c, n, diff, z):
    """The score interval's two ends: where the (decreasing) score statistic crosses
    ``z`` in ``[-1, diff]`` and ``-z`` in ``[diff, 1]``, by bisection, elementwise, both
    ends in one pass (52 halvings of a width of at most 2: to about 5e-16)."""
    b2, c2, n2 = (np.concatenate([a.ravel(), a.ravel()]) for a in (b, c, n))
    d = diff.ravel()
    lo = np.concatenate([np.full_like(d, -1.0), d])
    hi = np.concatenate([d, np.full_like(d, 1.0)])
    target = np.concatenate([np.full_like(d, z), np.full_like(d, -z)])
    bmc, bpc, a, k = b2 - c2, b2 + c2, 2 * n2 - b2 + c2, 8 * n2 * c2
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(52):
            mid = 0.5 * (lo + hi)
            above = _score(bmc, bpc, a, k, n2, mid) > target
            lo = np.where(above, mid, lo)
            hi = np.where(above, hi, mid)
    ends = 0.5 * (lo + hi)
    return ends[: d.size].reshape(diff.shape), ends[d.size :].reshape(diff.shape)


def paired_test(only_new, only_base, n, level: float = 0.95):
    """Paired difference of proportions from the discordant counts (module docs).

    The interval is Tango's score interval (Tango 1998): every difference ``delta``
    whose score statistic is within ``z`` of 0. Unlike the Wald interval it keeps its
    nominal coverage at small ``n`` and does not collapse to ``[0, 0]`` when no track is
    discordant (``b = c = 0`` at ``n`` tracks gives about ``+-z**2 / (n + z**2)``); it
    stays inside ``[-1, 1]``. The p-value is McNemar's test, the same score statistic at
    ``delta = 0``, so ``p < 1 - level`` exactly when the interval leaves 0 out.

    Parameters
    ----------
    only_new, only_base : array-like of int
        Tracks in the outcome under the variant only (``b``), under the baseline only
        (``c``).
    n : int or array-like
        Tracks (pairs).
    level : float
        Confidence level of the interval.

    Returns
    -------
    diff, ci_low, ci_high, p_value : ndarray
    """
    b = np.asarray(only_new, dtype=np.float64)
    c = np.asarray(only_base, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    b, c, n = np.broadcast_arrays(b, c, n)
    diff = (b - c) / n
    z = norm_ppf(0.5 + level / 2)
    low, high = _tango_bounds(b, c, n, diff, z)
    disc = b + c
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = np.where(disc > 0, (b - c) / np.sqrt(np.where(disc > 0, disc, 1.0)), 0.0)
    p = np.minimum(1.0, 2 * norm_sf(np.abs(stat)))
    return diff, np.minimum(low, diff), np.maximum(high, diff), p


def paired_from_joint(joint: np.ndarray, level: float = 0.95):
    """:func:`paired_test` for every outcome of a joint table ``J[base, new]``."""
    n = int(joint.sum())
    agree = np.diag(joint)
    only_new = joint.sum(axis=0) - agree
    only_base = joint.sum(axis=1) - agree
    return paired_test(only_new, only_base, n, level)


def paired_mean_test(sum_d, sum_d2, n, level: float = 0.95, unit: float = 1.0):
    """Paired difference of means from the per-track differences ``d_i = y_i - x_i``.

    Parameters
    ----------
    sum_d, sum_d2 : array-like of float
        ``sum(d_i)`` and ``sum(d_i ** 2)`` over the ``n`` tracks.
    n : int or array-like
        Tracks (pairs).
    level : float
        Confidence level of the interval.
    unit : float
        The smallest change of a track's value (1 for the marks, which count deaths,
        rounds, knock-outs...): the scale of the small-sample floor below.

    Returns
    -------
    diff, ci_low, ci_high, p_value : ndarray
        ``diff = mean(d)``; the t interval ``diff +- t(n - 1) s / sqrt(n)`` (``s`` the
        sample standard deviation, divisor ``n - 1``), its half-width never below
        ``unit * z**2 / (n + z**2)``, the half-width of the score interval of a share
        when no track moved (:func:`paired_test` with ``b = c = 0``): a run where every
        track moved alike (often at small ``n``) says little about the tracks it did not
        see, so its interval does not collapse to a point. ``n = 1`` has only the floor.
        The p-value is the two-sided t test of ``diff == 0`` on the same standard error,
        so ``p < 1 - level`` exactly when the interval leaves 0 out (1 when ``diff`` is 0).
    """
    from scipy.special import stdtr, stdtrit

    s1 = np.asarray(sum_d, dtype=np.float64)
    s2 = np.asarray(sum_d2, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    s1, s2, n = np.broadcast_arrays(s1, s2, n)
    diff = s1 / n
    df = np.maximum(n - 1, 1.0)
    var = np.maximum(s2 - n * diff**2, 0.0) / df  # sample variance (0 at n = 1)
    z = norm_ppf(0.5 + level / 2)
    t = stdtrit(df, 0.5 + level / 2)
    half = np.maximum(t * np.sqrt(var / n), unit * z * z / (n + z * z))
    se = half / t
    p = np.where(diff == 0, 1.0, np.minimum(1.0, 2 * stdtr(df, -np.abs(diff) / se)))
    return diff, diff - half, diff + half, p


def independent_mean_test(mean, low, high, mean_base, low_base, high_base, level: float = 0.95):
    """The difference of two means as if their runs were independent, from each mean's
    own interval (MOVER, Zou & Donner 2008: the interval of ``mean - mean_base`` from the
    two range-respecting intervals of :func:`simkit.core.result.mean_ci`), for reference.

    ``ci_low = d - sqrt((mean - low)**2 + (high_base - mean_base)**2)``, ``ci_high = d +
    sqrt((high - mean)**2 + (mean_base - low_base)**2)``; ``p_value`` is two-sided, from
    the half-width on the side of 0 (``p < 1 - level`` exactly when the interval leaves 0
    out; 1 when ``d = 0``). Vectorised.
    """
    m, lo, hi, mb, lb, hb = (
        np.asarray(x, dtype=np.float64) for x in (mean, low, high, mean_base, low_base, high_base)
    )
    d = m - mb
    down = np.sqrt((m - lo) ** 2 + (hb - mb) ** 2)
    up = np.sqrt((hi - m) ** 2 + (mb - lb) ** 2)
    z = norm_ppf(0.5 + level / 2)
    half = np.where(d > 0, down, up)
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = np.where(half > 0, z * np.abs(d) / np.where(half > 0, half, 1.0), np.inf)
    p = np.where(d == 0, 1.0, np.minimum(1.0, 2 * norm_sf(stat)))
    p = np.where(np.isnan(d), np.nan, p)
    return d, d - down, d + up, p


def independent_test(count, count_base, n, level: float = 0.95):
    """The same difference as if the two runs were independent (the two-proportion z
    test and its Wald interval, :func:`simkit.core.stats.two_proportion_test`)."""
    diff, se, p = two_proportion_test(count, n, count_base, n)
    z = norm_ppf(0.5 + level / 2)
    return diff, diff - z * se, diff + z * se, p


@dataclass(frozen=True)
class PairedPoint:
    """One variant at one point, run paired with the baseline.

    ``result``: its :class:`~simkit.core.result.Result`; ``joint``: the joint table
    ``J[baseline outcome, this outcome]`` over ``result.outcomes`` (None for a model
    without per-track outcomes, a chain: then only the independent test applies);
    ``events``: event or mean name -> ``(diff, ci_low, ci_high, p_value)`` of the paired
    test against the baseline (:func:`paired_events`; empty where the model has no
    events or its per-track marks are not known).
    """

    result: object
    joint: np.ndarray | None
    events: dict = field(default_factory=dict)


class TrackValues:
    """One run's per-track values for paired tests: its outcome codes
    (``track_outcomes``), its marks (``track_marks``, None where not known) and its
    events' indicators (computed once, when asked). From a
    :class:`~simkit.core.engine.TrackResult`."""

    def __init__(self, res) -> None:
        self.model = res.model
        self.codes = res.track_outcomes
        self.marks: dict | None = getattr(res, "track_marks", None)
        self.n_out = len(res.model.outcomes)
        self._events: dict = {}
        self._unresolved: np.ndarray | None = None

    def event(self, e) -> np.ndarray:
        hit = self._events.get(e)
        if hit is None:
            hit = self._events[e] = e.of_tracks(self.model, self.codes, self.marks)
        return hit

    @property
    def unresolved(self) -> np.ndarray:
        """(n,) bool: the tracks still going at the horizon (kept once computed)."""
        if self._unresolved is None:
            self._unresolved = self.codes == self.n_out
        return self._unresolved


def paired_events(base: TrackValues, res, level: float = 0.95) -> dict:
    """Event or mean name -> ``(diff, ci_low, ci_high, p_value)``: ``res`` (a
    :class:`~simkit.core.engine.TrackResult` or :class:`TrackValues`) against the
    baseline's tracks, paired track by track (module docs), for every event and mean both
    have; ``{}`` where either has no per-track marks."""
    from simkit.core.result import event_specs, mean_specs

    other = res if isinstance(res, TrackValues) else TrackValues(res)
    marks = other.marks
    if base.marks is None or marks is None:
        return {}
    out: dict = {}
    n = len(base.codes)
    events = [
        e
        for e in event_specs(other.model)
        if e.kind == "outcomes" or (e.mark in base.marks and e.mark in marks)
    ]
    if events:
        only_new = np.empty(len(events))
        only_base = np.empty(len(events))
        for j, e in enumerate(events):
            x, y = base.event(e), other.event(e)
            both = np.count_nonzero(x & y)
            only_new[j] = np.count_nonzero(y) - both
            only_base[j] = np.count_nonzero(x) - both
        st = paired_test(only_new, only_base, n, level)
        out.update({e.name: tuple(float(a[j]) for a in st) for j, e in enumerate(events)})
    means = [m for m in mean_specs(other.model) if m.mark in base.marks and m.mark in marks]
    if means:
        unresolved_base, unresolved = base.unresolved, other.unresolved
        whole = not (unresolved_base.any() or unresolved.any())
        s1 = np.empty(len(means))
        s2 = np.empty(len(means))
        for j, m in enumerate(means):
            if whole:  # every track's mark is its value: integer differences, exact sums
                d = marks[m.mark].astype(np.int64)
                d -= base.marks[m.mark]
                s1[j] = d.sum()
                s2[j] = np.dot(d, d)
                continue
            d = m.per_track(marks[m.mark], unresolved)
            d -= m.per_track(base.marks[m.mark], unresolved_base)
            s1[j] = d.sum()
            s2[j] = d @ d
        st = paired_mean_test(s1, s2, n, level)
        out.update({m.name: tuple(float(a[j]) for a in st) for j, m in enumerate(means)})
    return out


def paired_stats(base: TrackValues, other: TrackValues, level: float = 0.95) -> dict:
    """Name -> ``(diff, ci_low, ci_high, p_value)`` of ``other`` against ``base``, paired
    track by track: every outcome (``unresolved`` included) from the joint table, then
    every event and mean of the marks (:func:`paired_events`)."""
    names = tuple(base.model.outcomes) + ("unresolved",)
    st = paired_from_joint(joint_counts(base.codes, other.codes, len(names)), level)
    out = {o: tuple(float(x[i]) for x in st) for i, o in enumerate(names)}
    out.update(paired_events(base, other, level))
    return out


def paired_runs(
    models: list, n: int, seed: int, workers: int = 1, level: float = 0.95
) -> list[PairedPoint]:
    """Run ``models`` (variants of one model at one point, the baseline first) on the
    same positional streams of ``seed``; the joint outcome table of each against the
    baseline, and the paired tests of its events and means (``level``: their intervals'
    confidence level). Variants of a table-driven kernel step together by their tables
    (:func:`simkit.core.lockstep_tables.simulate_tables`: one draw, a lookup a variant,
    the joint counted as tracks leave), those of a kernel that draws by plan by their
    kernels on one draw (:func:`simkit.core.lockstep.simulate_lockstep`), the others one
    after the other; the numbers are the same whichever way. Only the baseline's
    per-track values are kept while the others run."""
    from simkit.core.engine import simulate
    from simkit.core.lockstep import LockstepMismatch, simulate_lockstep
    from simkit.core.lockstep_tables import simulate_tables, steps_by_table

    if len(models) > 1 and steps_by_table(models):
        try:  # one draw and one lookup a variant per track and step, the joint counted
            results, joint = simulate_tables(models, n, seed, workers=workers)
        except LockstepMismatch:
            pass  # their tables draw differently: stepped by their kernels
        else:
            return [PairedPoint(r, j) for r, j in zip(results, joint)]
    together = None
    if len(models) > 1 and all(getattr(m, "lockstep", False) for m in models):
        try:  # one draw per track and step for all the variants (the same numbers)
            together = simulate_lockstep(models, n, seed, workers=workers)
        except LockstepMismatch:
            together = None  # they draw differently: one after the other
    out: list[PairedPoint] = []
    base = None
    base_counts = None
    for i, m in enumerate(models):
        if m.is_chain:  # no per-track outcomes: the same seed, compared as independent
            out.append(PairedPoint(simulate(m, n, rng=seed, workers=workers), None))
            continue
        if together is not None:
            res = together[i]
            together[i] = None  # (only the baseline's per-track values are kept)
        else:
            res = simulate(m, n, rng=seed, workers=workers, positional=True, keep_outcomes=True)
        by_name = res.counts
        counts = np.array([by_name[o] for o in res.outcomes], dtype=np.int64)
        if i == 0:
            base, base_counts = TrackValues(res), counts
            out.append(PairedPoint(res, np.diag(counts)))  # against itself: every track agrees
            continue
        codes = getattr(res, "track_outcomes")  # a TrackResult (keep_outcomes=True)
        joint = None
        if base is not None:
            joint = joint_counts(base.codes, codes, len(res.outcomes), base_counts)
        events = {} if base is None else paired_events(base, res, level)
        out.append(PairedPoint(res, joint, events))
    return out


def narrowing(width_paired: float, width_independent: float) -> float:
    """How many times narrower the paired interval is (``inf`` when it has no width)."""
    return math.inf if width_paired == 0 else width_independent / width_paired
