"""Reductions along the short axis of a ``(n, c)`` array, column by column.

A kernel's per-PC arrays are ``(n tracks, c PCs)`` with ``c`` small (1..8): numpy's
``any(axis=1)`` / ``all(axis=1)`` / ``sum(axis=1)`` over such a short axis cost about
1.5 ms per 10^5 rows, a loop over the ``c`` columns a fraction of that. Shared by the
``party`` and ``day`` kernels (same results as the numpy reductions: tested).
"""

from __future__ import annotations

import numpy as np

__all__ = ["row_all", "row_any", "row_sum"]


def row_any(m: np.ndarray) -> np.ndarray:
    """Rows of bool ``m`` (n, c), c >= 1, with a True: (n,) bool."""
    out = m[:, 0].copy()
    for c in range(1, m.shape[1]):
        out |= m[:, c]
    return out


def row_all(m: np.ndarray) -> np.ndarray:
    """Rows of bool ``m`` (n, c), c >= 1, all True: (n,) bool."""
    out = m[:, 0].copy()
    for c in range(1, m.shape[1]):
        out &= m[:, c]
    return out


def row_sum(m: np.ndarray) -> np.ndarray:
    """Sum of each row of ``m`` (n, c), c >= 1, bool or integer: (n,) int64 (the True
    cells of a bool array)."""
    out = m[:, 0].astype(np.int64)
    for c in range(1, m.shape[1]):
        out += m[:, c]
    return out
