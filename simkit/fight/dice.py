"""Dice by counter: every draw of the fight loop is a function of (track key, draw index).

A track's key is a 64-bit number made from the run's seed, the track's stream and its
position in the stream (:func:`simkit.core.counter.track_keys`); its ``c``-th random word
is SplitMix64's output at index ``c`` of the sequence keyed by it (Steele, Lea and Flood
2014): ``mix64(key + c * GOLDEN)``. Nothing is carried from one track to another, so a
track's dice never depend on the block size, the threads, the workers or the executor, two
variants of a comparison see the same dice on the same track, and one track can be played
again alone from its key.

Integers are exactly uniform: Lemire's multiply-and-reject on the top 32 bits of a word
(a rejected word is followed by the next index of the same track). Every function here is
plain scalar code compiled by numba (``njit``); with ``NUMBA_DISABLE_JIT=1`` the same
functions run as Python (wrap the call in ``np.errstate(over="ignore")``: uint64 products
wrap by design).

A track's key (63 bits) and its draw counter live in its row (``S[KEY]``, ``S[CTR]``,
:mod:`simkit.fight.state`).
"""

from __future__ import annotations

import numpy as np

from simkit.fight._jit import hot, scalar
from simkit.fight.state import CTR, KEY
from simkit.rules import guide

__all__ = ["below", "chance", "d20", "edge_of", "pick", "word"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)
_FULL32 = np.uint64(1 << 32)


@scalar
def word(key, c):
    """The ``c``-th 64-bit word (uint64) of the sequence keyed by ``key`` (SplitMix64)."""
    z = np.uint64(key) + np.uint64(c) * _GOLDEN
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@scalar
def below(S, n):
    """An exactly uniform integer in ``[0, n)`` (``1 <= n <= 2**32``) from the next words
    of track ``S`` (its row, :mod:`simkit.fight.state`)."""
    nn = np.uint64(n)
    m = (word(S[KEY], S[CTR]) >> _S32) * nn  # the top 32 bits, times n
    S[CTR] += 1
    if (m & _LOW32) < nn:  # Lemire: a low half below n may be in the biased zone
        bias = (_FULL32 - nn) % nn
        while (m & _LOW32) < bias:
            m = (word(S[KEY], S[CTR]) >> _S32) * nn
            S[CTR] += 1
    return np.int64(m >> _S32)


@scalar
def d20(S):
    """A natural d20, 1..20."""
    return below(S, 20) + 1


def edge_of(p: float) -> int:
    """The 32-bit edge of a chance ``p``: it happens when a uniform 32-bit word is below
    it (the fight kernels' cells, :func:`simkit.rules.guide.cell_guide`)."""
    return int(guide.cell_guide((p, 1.0 - p))[0][1])


@scalar
def chance(S, edge):
    """Whether an event of probability ``edge / 2**32`` happens (``edge`` from
    :func:`edge_of`)."""
    # below(S, 2**32), which is the word's top 32 bits (Lemire's product with 2**32 never
    # rejects), without its division for the rejection bound: one word a chance, drawn
    # whatever the edge
    w = word(S[KEY], S[CTR])
    S[CTR] += 1
    return np.int64(w >> _S32) < edge


@hot
def pick(S, width, count):
    """The position (0-based) of a uniform choice among ``count`` candidates: ``w mod
    count`` for ``w`` below ``width``, a multiple of every count it serves (the least common
    multiple of 1..the most candidates: exactly uniform, and one draw whatever the count);
    ``width`` 0: one draw below ``count``."""
    if width:
        return below(S, width) % count
    return below(S, count)
