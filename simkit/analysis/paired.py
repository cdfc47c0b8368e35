"""Paired comparisons: two rule variants on the same dice, counted track by track.

Two variants run with ``simulate(..., positional=True, keep_outcomes=True)`` on one seed
give track ``i`` the same draws at the same call under both (:mod:`simkit.core.streams`),
so their outcomes are strongly correlated where the variants use the dice alike. For an
outcome ``o``, with ``x_i = [track i ends in o under the baseline]`` and ``y_i`` the same
under the variant, the difference ``p_y - p_x`` is the mean of the per-track differences
``y_i - x_i``, and its standard error comes from those differences, i.e. from the
discordant tracks only (``b``: o under the variant only, ``c``: under the baseline only):

``diff = (b - c) / n``, ``se = sqrt(((b + c) / n - diff**2) / n)``

The interval is the normal (Wald) interval on the per-track differences,
``diff +- z se``; the p-value is McNemar's test without continuity correction,
``z = (b - c) / sqrt(b + c)`` (two-sided; 1 when no track is discordant). Both are
valid whatever the variants do with the dice: where they use them differently the
correlation is smaller and the interval wider, never wrong (docs/paired.md).

:func:`paired_runs` runs a list of variants at one point this way and returns, per
variant, its counts and the paired statistics against the baseline (the first).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simkit.core.stats import norm_ppf, norm_sf, two_proportion_test

__all__ = ["PairedPoint", "joint_counts", "paired_from_joint", "paired_runs", "paired_test"]


def joint_counts(a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    """``J[i, j]`` = tracks whose outcome index is ``i`` in ``a`` and ``j`` in ``b``
    (shape ``(k, k)``, int64; ``a``, ``b``: per-track outcome indices in ``[0, k)``)."""
    if a.shape != b.shape:
        raise ValueError(f"paired outcomes of different lengths: {a.shape} and {b.shape}")
    idx: np.ndarray
    if k * k <= 256 and a.dtype.itemsize == b.dtype.itemsize == 1:  # one byte a pair
        idx = a.view(np.uint8) * np.uint8(k)
        idx += b.view(np.uint8)
    else:
        idx = a.astype(np.intp) * k
        idx += b
    return np.bincount(idx, minlength=k * k).reshape(k, k)


def paired_test(only_new, only_base, n, level: float = 0.95):
    """Paired difference of proportions from the discordant counts (module docs).

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
    diff = (b - c) / n
    var = np.maximum((b + c) / n - diff**2, 0.0) / n
    se = np.sqrt(var)
    z = norm_ppf(0.5 + level / 2)
    disc = b + c
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = np.where(disc > 0, (b - c) / np.sqrt(np.where(disc > 0, disc, 1.0)), 0.0)
    p = np.minimum(1.0, 2 * norm_sf(np.abs(stat)))
    return diff, diff - z * se, diff + z * se, p


def paired_from_joint(joint: np.ndarray, level: float = 0.95):
    """:func:`paired_test` for every outcome of a joint table ``J[base, new]``."""
    n = int(joint.sum())
    agree = np.diag(joint)
    only_new = joint.sum(axis=0) - agree
    only_base = joint.sum(axis=1) - agree
    return paired_test(only_new, only_base, n, level)


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
    without per-track outcomes, a chain: then only the independent test applies).
    """

    result: object
    joint: np.ndarray | None


def paired_runs(models: list, n: int, seed: int, workers: int = 1) -> list[PairedPoint]:
    """Run ``models`` (variants of one model at one point, the baseline first) on the
    same positional streams of ``seed``; the joint outcome table of each against the
    baseline. Only the baseline's per-track outcomes are kept while the others run."""
    from simkit.core.engine import simulate

    out: list[PairedPoint] = []
    base = None
    for i, m in enumerate(models):
        if m.is_chain:  # no per-track outcomes: the same seed, compared as independent
            out.append(PairedPoint(simulate(m, n, rng=seed, workers=workers), None))
            continue
        res = simulate(m, n, rng=seed, workers=workers, positional=True, keep_outcomes=True)
        codes = getattr(res, "track_outcomes")  # a TrackResult (keep_outcomes=True)
        if i == 0:
            base = codes
        joint = None if base is None else joint_counts(base, codes, len(res.outcomes))
        out.append(PairedPoint(res, joint))
    return out


def narrowing(width_paired: float, width_independent: float) -> float:
    """How many times narrower the paired interval is (``inf`` when it has no width)."""
    return math.inf if width_paired == 0 else width_independent / width_paired
