"""Binomial confidence intervals and two-proportion tests.

The three distribution functions needed (normal quantile and tail, beta quantile) come
from :mod:`scipy.special`, imported on first use: importing :mod:`scipy.stats` costs
about a second, paid at every CLI start and in every worker before (issue 13).
"""

from __future__ import annotations

import numpy as np

__all__ = ["beta_ppf", "check_level", "norm_ppf", "norm_sf", "proportion_ci", "two_proportion_test"]


def norm_ppf(q):
    """Quantile of the standard normal distribution (``scipy.stats.norm.ppf``)."""
    from scipy.special import ndtri

    return ndtri(q)


def norm_sf(x):
    """Upper tail of the standard normal distribution (``scipy.stats.norm.sf``)."""
    from scipy.special import ndtr

    return ndtr(-np.asarray(x, dtype=np.float64))


def beta_ppf(q, a, b):
    """Quantile of the beta distribution (``scipy.stats.beta.ppf``)."""
    from scipy.special import betaincinv

    return betaincinv(a, b, q)


def confidence_of(confidence, level, where: str) -> float:
    """The confidence level given to ``where``: ``confidence``, or the deprecated ``level``.

    ``level=`` named the confidence level in the analysis functions and summaries while
    everywhere else it is the character's level; it still works for one release, with a
    ``DeprecationWarning``, and is removed in simkit 0.4.
    """
    if level is None:
        return confidence
    import warnings

    warnings.warn(
        f"{where}: level= is the confidence level here; call it confidence= "
        "(level= will be removed in simkit 0.4: everywhere else level is the character's)",
        DeprecationWarning,
        stacklevel=3,
    )
    return level


def check_level(level) -> float:
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
        raise ValueError(f"confidence must be a number in (0, 1), got {level!r}")
    return float(level)


def proportion_ci(count, n, level: float = 0.95, method: str = "wilson"):
    """Confidence interval for a binomial proportion, vectorised.

    Parameters
    ----------
    count, n : array_like of int
        Successes and trials (``n >= 1``).
    level : float
        Confidence level in (0, 1).
    method : {"wilson", "clopper-pearson"}
        Wilson score interval (default) or the exact Clopper-Pearson interval.

    Returns
    -------
    (low, high) : arrays of float
    """
    level = check_level(level)
    count = np.asarray(count, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    if method == "wilson":
        z = norm_ppf(0.5 + level / 2)
        p = count / n
        denom = 1 + z**2 / n
        centre = (p + z**2 / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / denom
        low = np.where(count == 0, 0.0, np.clip(centre - half, 0, 1))
        high = np.where(count == n, 1.0, np.clip(centre + half, 0, 1))
        return low, high
    if method == "clopper-pearson":
        a = (1 - level) / 2
        with np.errstate(invalid="ignore"):
            low = np.where(count > 0, beta_ppf(a, count, n - count + 1), 0.0)
            high = np.where(count < n, beta_ppf(1 - a, count + 1, n - count), 1.0)
        return low, high
    raise ValueError(f"method must be one of wilson, clopper-pearson; got {method!r}")


def two_proportion_test(c1, n1, c2, n2):
    """Two-sided z test of p1 == p2 (pooled); returns (difference, standard error, p-value)."""
    c1, n1, c2, n2 = (np.asarray(x, dtype=np.float64) for x in (c1, n1, c2, n2))
    p1, p2 = c1 / n1, c2 / n2
    pooled = (c1 + c2) / (n1 + n2)
    se_pooled = np.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    se = np.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se_pooled > 0, (p1 - p2) / se_pooled, 0.0)
    pval = 2 * norm_sf(np.abs(z))
    return p1 - p2, se, pval
