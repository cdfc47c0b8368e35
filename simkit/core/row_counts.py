"""Counts over the rows of ``(n, P)`` per-PC fields, compiled (numba, ``cache=True``).

What the day's observations (:func:`simkit.models.day_block.observe`) and its rests'
changes (:func:`~simkit.models.day_block.rest_changed`) read off a block: each function
walks the rows it is given, where the numpy forms took a copy of the active rows, a
product with the living PCs, a sum along the short axis and a histogram each. The same
counts (tests/test_row_counts.py holds them to the numpy forms); numba is imported with
this module only (the models that use it), not with ``import simkit``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["alive_counts", "field_counts", "fields_counts", "rows_differ_into"]


def field_counts(values, dead, rows, every, per_pc):
    """The counts of one PC field over a block's active tracks (a dead PC counts 0):
    ``(sums, cols)``, ``sums[v]`` the tracks whose PCs' total is ``v`` (length: the largest
    total + 1), ``cols[k, v]`` the tracks where PC ``k`` holds ``v`` ((P, the largest value
    + 1); (P, 1) of zeros unless ``per_pc``). ``values`` (n, P) non-negative ints, ``dead``
    (n, P) bool; the active tracks are every row (``every``) or the rows ``rows`` (intp).
    (:func:`fields_counts` of one field.)"""
    sums, cols = fields_counts((values,), dead, rows, every, per_pc)
    top = np.flatnonzero(sums[0])
    return sums[0, : top[-1] + 1 if len(top) else 0], cols[0]


@njit(cache=True)
def fields_counts(fields, dead, rows, every, per_pc):
    """:func:`field_counts` of several fields (a tuple of (n, P) arrays of one dtype) in
    one pass over the rows: ``(sums, cols)``, ``sums[f]`` field ``f``'s sums (F, the
    largest total + 1; zeros past each field's own), ``cols[f]`` its columns (F, P, the
    largest value + 1; (F, P, 1) of zeros unless ``per_pc``)."""
    n, P = dead.shape
    F = len(fields)
    m = n if every else len(rows)
    top = 0
    for f in range(F):  # a bound on the sizes, over every row (one flat pass a field)
        for v in fields[f].ravel():
            if v > top:
                top = v
    sums = np.zeros((F, P * np.int64(top) + 1), dtype=np.int64)
    cols = np.zeros((F, P, top + 1 if per_pc else 1), dtype=np.int64)
    negative = False
    for r in range(m):
        i = r if every else rows[r]
        for f in range(F):
            values = fields[f]
            s = 0
            for k in range(P):
                v = np.int64(values[i, k])
                if dead[i, k]:
                    v = 0
                negative |= v < 0
                if per_pc:
                    cols[f, k, max(v, 0)] += 1  # (a negative value is refused below)
                s += v
            sums[f, max(s, 0)] += 1
    if negative:
        raise ValueError("observations must be non-negative integers")
    return sums, cols


@njit(cache=True)
def alive_counts(dead, rows, every):
    """(P,) int64: each PC's count of active tracks where it lives (``dead``, ``rows``,
    ``every`` as :func:`field_counts`)."""
    n, P = dead.shape
    m = n if every else len(rows)
    ones = np.zeros(P, dtype=np.int64)
    for r in range(m):
        i = r if every else rows[r]
        for k in range(P):
            if not dead[i, k]:
                ones[k] += 1
    return ones


@njit(cache=True)
def rows_differ_into(a, b, out):
    """``out[i] |= (a[i] != b[i]).any()`` for every row ``i`` of ``a`` and ``b`` (n, P)."""
    n, P = a.shape
    for i in range(n):
        if out[i]:
            continue
        for k in range(P):
            if a[i, k] != b[i, k]:
                out[i] = True
                break
