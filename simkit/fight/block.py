"""A block of tracks for the fight loop: its rows, its start and its play.

:func:`new_block` lays out ``n`` tracks' rows (:mod:`simkit.fight.state`) with their dice
keys; :func:`start_tracks` plays step 0 and :func:`play_tracks` the rounds, both compiled
(:mod:`simkit.fight.loop`). The first call in a process compiles the loop or loads it from
numba's on-disk cache: when that takes over 2 s it says so on stderr, once.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from simkit.fight import loop
from simkit.fight.state import KEY, MARK0, MARKS, OUTCOME, STEP, width
from simkit.fight.tables import H_M, H_P

__all__ = ["marks_of", "new_block", "play_tracks", "start_tracks"]

_WARM = [False]


def new_block(T: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """(n, width) int64: the rows of ``len(keys)`` tracks of the fight ``T`` (packed
    tables), every field 0 but the dice keys (their low 63 bits)."""
    rows = np.zeros((len(keys), width(int(T[H_P]), int(T[H_M]))), dtype=np.int64)
    rows[:, KEY] = (np.asarray(keys, dtype=np.uint64) >> np.uint64(1)).astype(np.int64)
    return rows


def _compiling(fn, *args):
    """``fn(*args)``, saying on stderr when the first call of a process takes over 2 s (the
    loop being compiled, once: later runs load numba's cache)."""
    if _WARM[0]:
        return fn(*args)
    t0 = time.perf_counter()
    out = fn(*args)
    took = time.perf_counter() - t0
    _WARM[0] = True
    if took > 2.0:
        print(
            f"simkit: compiling the fight engine, once ({took:.0f} s; cached for later runs)",
            file=sys.stderr,
        )
    return out


def start_tracks(T: np.ndarray, rows: np.ndarray, given: bool = False) -> np.ndarray:
    """Step 0 of every track: (n,) int64, the outcome of a track that ends there, else -1.
    ``given``: the PCs' fields are already set in ``rows`` (a start), else fresh."""
    with np.errstate(over="ignore"):  # (uncompiled: uint64 products wrap by design)
        _compiling(loop.start_block, rows, T, bool(given))
    return rows[:, OUTCOME].copy()


def play_tracks(T: np.ndarray, rows: np.ndarray, horizon: int) -> tuple[np.ndarray, np.ndarray]:
    """Every track still going played to its end or ``horizon``: (outcome, step) per track,
    (n,) int64 each (outcome -1: unresolved)."""
    with np.errstate(over="ignore"):
        _compiling(loop.play_block, rows, T, int(horizon))
    return rows[:, OUTCOME].copy(), rows[:, STEP].copy()


def marks_of(rows: np.ndarray) -> dict[str, np.ndarray]:
    """Mark -> (n,) int64 view of each track's value (``Party.marks``)."""
    return {name: rows[:, MARK0 + i] for i, name in enumerate(MARKS)}
