"""Categorical draws from 32-bit uniforms through a guide table (the phases' shared sampler).

A categorical distribution ``pmf`` over cells ``0..k-1`` (``k <= 127``) is cut into the
2**32 values of a 32-bit uniform ``u = (hi << 16) | lo``: cell ``i`` gets the values in
``[edges[i], edges[i + 1])``, ``edges[i]`` = the cumulative probability before cell
``i`` times 2**32, rounded (so each cell's probability is exact to 2**-32). ``guide[hi]``
is the cell of every ``u`` sharing the top word ``hi`` when they all fall in one cell,
else -1; at most ``k - 1`` top words are split so, and only their tracks need ``lo``.

:func:`cell_of_draw` is the scalar reference, :func:`draw_cells` the vectorised draw
(one 16-bit word per track, and a second one per track only when some top word is
split: which words are drawn depends on ``pmf`` alone, never on the draws).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

__all__ = ["FULL", "cell_guide", "cell_of_draw", "draw_cells"]

#: Number of values of the 32-bit uniform.
FULL = 2**32


def _edges(pmf: np.ndarray) -> np.ndarray:
    cum = np.concatenate(([0.0], np.cumsum(pmf)))
    edges = np.minimum(np.round(cum * FULL), FULL).astype(np.int64)
    edges = np.maximum.accumulate(edges)
    edges[-1] = FULL
    return edges


@lru_cache(maxsize=1024)
def _guide(pmf: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray, bool]:
    if not 1 <= len(pmf) <= 127:
        raise ValueError(f"a guide table takes 1..127 cells, got {len(pmf)}")
    edges = _edges(np.asarray(pmf))
    lo = np.arange(2**16, dtype=np.int64) << 16
    first = np.searchsorted(edges, lo, side="right") - 1
    final = np.searchsorted(edges, lo + (2**16 - 1), side="right") - 1
    guide = np.where(first == final, first, -1).astype(np.int8)
    for a in (edges, guide):
        a.setflags(write=False)
    return edges, guide, bool((guide < 0).any())


def cell_guide(pmf) -> tuple[np.ndarray, np.ndarray, bool]:
    """``(edges, guide, split)`` of the cell probabilities ``pmf`` (cached on them).

    ``edges`` (int64, ``len(pmf) + 1``): cell ``i`` takes the 32-bit values in
    ``[edges[i], edges[i + 1])``. ``guide`` (int8, 65536): the cell of a top word, or -1
    when that word is split between cells. ``split``: whether any word is.
    """
    return _guide(tuple(float(p) for p in pmf))


@lru_cache(maxsize=256)  # (65536 cells each: at most 32 MiB of int16 guides)
def _typed_guide(pmf: tuple[float, ...], dtype: str) -> np.ndarray:
    guide = _guide(pmf)[1].astype(dtype)
    guide.setflags(write=False)
    return guide


def cell_of_draw(hi: int, lo: int, pmf) -> int:
    """Cell of the 32-bit value ``(hi << 16) | lo`` (scalar reference)."""
    edges, _, _ = cell_guide(pmf)
    return int(np.searchsorted(edges, (int(hi) << 16) | int(lo), side="right")) - 1


def draw_cells(m: int, rng, pmf, dtype=np.int8) -> np.ndarray:
    """Cells of ``m`` tracks: a top word ``hi = rng.below(65536)`` per track, then, when
    the distribution has a split word, a low word ``lo`` per track.

    ``dtype``: a signed integer type for the cells (int8 by default; a wider one saves the
    caller a conversion, e.g. to combine them with int16 codes in place). The words are
    drawn into preallocated arrays (``below(..., out=)``, the same numbers): ``hi`` as
    intp, the guide's index as it is (a lookup would convert it).
    """
    probs = tuple(float(p) for p in pmf)
    edges, guide, split = _guide(probs)
    if np.dtype(dtype) != guide.dtype:
        guide = _typed_guide(probs, np.dtype(dtype).str)
    hi = rng.below(2**16, size=m, out=np.empty(m, dtype=np.intp))
    cell = guide.take(hi)
    if split:
        lo = rng.below(2**16, size=m, out=np.empty(m, dtype=np.uint16))
        near = np.flatnonzero(cell < 0)
        if len(near):
            u = (hi[near].astype(np.int64) << 16) | lo[near]
            cell[near] = np.searchsorted(edges, u, side="right") - 1
    return cell
