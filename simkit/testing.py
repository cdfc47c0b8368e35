"""Helpers for statistical tests of simkit models (used by simkit's own tests)."""

from __future__ import annotations

import numpy as np

__all__ = ["within_se", "standard_error"]


def standard_error(p: float, n: int) -> float:
    """Standard error of a proportion ``p`` estimated from ``n`` tracks.

    A floor of one track's worth (``1/n``) on ``p(1-p)`` keeps an exact 0 or 1 from
    demanding zero deviation when an outcome is merely very rare.
    """
    return float(np.sqrt(max(p * (1 - p), 1.0 / n) / n))


def within_se(p_hat: float, p: float, n: int, k: float = 5.0) -> bool:
    """Whether a Monte Carlo estimate is within ``k`` standard errors of the exact ``p``."""
    return abs(p_hat - p) <= k * standard_error(p, n)
