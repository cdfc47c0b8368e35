"""A block of tracks for the fight loop: its inputs, its run and its outputs.

:func:`run` plays every track of a block from its start to its end in one compiled call
(:func:`simkit.fight.loop.run_block`): a track's state lives in one reused row while it is
played, and only what a track hands back is kept, ``out`` (its outcome, end step and marks)
and ``ends`` (its PCs' fields at the end, for ``keep_state``): 44 + 52 P bytes a track
(:func:`bytes_per_track`). The first call in a process compiles the loop or loads it from
numba's on-disk cache: when that takes over 2 s it says so on stderr, once.
"""

from __future__ import annotations

import sys
import time

import numba
import numpy as np

from simkit.fight import loop
from simkit.fight.loop import CARRIED, OUT_MARK0, OUT_OUTCOME, OUT_STEP
from simkit.fight.state import MARKS, width
from simkit.fight.tables import H_M, H_P

__all__ = [
    "CARRIED",
    "bytes_per_track",
    "counted",
    "ended_counts",
    "marks_of",
    "run",
    "step_codes",
]

_WARM = [False]
#: Chunks of tracks (:data:`simkit.fight.loop.CHUNK` each) a thread takes at a time: a
#: thread done early takes more (dynamic scheduling; numba's default splits the block in
#: equal parts up front, and a thread slowed by other work then holds the others up).
THREAD_GRAB = 4


def bytes_per_track(P: int, keep: bool = True) -> int:
    """Bytes a block keeps a track (``out``, and ``ends`` when ``keep``; int32)."""
    return 4 * (OUT_MARK0 + len(MARKS) + (P * len(CARRIED) if keep else 0))


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


def run(
    T: np.ndarray,
    keys: np.ndarray,
    horizon: int,
    starts=None,
    fights=None,
    pens=None,
    care=False,
    keep=True,
    ends_out=None,
):
    """Every track of ``keys`` (uint64 dice keys) played from its start to its end or
    ``horizon``: ``(out, ends)``, int32 arrays of shapes (n, 2 + marks) and (n, P,
    len(CARRIED)). ``starts``: the PCs' fields at the start, (n, P, len(CARRIED)) in
    :data:`CARRIED` order (None: fresh); ``fights``, ``pens``: each track's lineup and
    check-penalty index into the tables (None: 0 for every track). ``care``: a care of PCs
    knocked out outside a fight (:data:`simkit.fight.loop.CARE`; ``starts`` marks them
    ``DYING``). ``keep`` False: no end states (``ends`` is None), for a run whose states
    are not carried on (the loop then writes 52 P bytes a track less). ``ends_out``: a
    C-contiguous int32 array of shape (len(CARRIED), n, P) the end states are written into
    (every element: a caller's reused buffer), else a new one."""
    n = len(keys)
    P, M = int(T[H_P]), int(T[H_M])
    k63 = (np.asarray(keys, dtype=np.uint64) >> np.uint64(1)).astype(np.int64)
    given = loop.CARE if care else int(starts is not None)  # (an int: one compiled loop)
    # the loop reads and writes them field by field ((len(CARRIED), n, P), each field's
    # (n, P) contiguous): ``ends`` is handed back as its (n, P, len(CARRIED)) view, and a
    # start made as such a view (:func:`simkit.models.party_loop._starts`) is not copied
    if starts is None:
        by_field = np.zeros((len(CARRIED), 1, P), dtype=np.int32)
    else:
        by_field = np.ascontiguousarray(np.asarray(starts, dtype=np.int32).transpose(2, 0, 1))
    # written field by field ((2 + marks, n)) and handed back as its (n, 2 + marks) view: a
    # field's column is contiguous (the engine's histograms read a mark at a time)
    out = np.empty((OUT_MARK0 + len(MARKS), n), dtype=np.int32)
    if ends_out is not None and keep:
        if ends_out.shape != (len(CARRIED), n, P) or not ends_out.flags.c_contiguous:
            raise ValueError("ends_out must be a C-contiguous (len(CARRIED), n, P) array")
        ends = ends_out
    else:
        ends = np.empty((len(CARRIED), n if keep else 0, P), dtype=np.int32)
    zero = np.zeros(1, dtype=np.int32)
    fights = zero if fights is None else np.ascontiguousarray(fights, dtype=np.int32)
    pens = zero if pens is None else np.ascontiguousarray(pens, dtype=np.int32)
    with np.errstate(over="ignore"), numba.parallel_chunksize(THREAD_GRAB):
        # (uncompiled: uint64 products wrap by design)
        _compiling(
            loop.run_block,
            *(k63, T, int(horizon), width(P, M), by_field, given, fights, pens, out, ends),
        )
    return out.T, (ends.transpose(1, 2, 0) if keep else None)


def step_codes(out: np.ndarray, n_out: int, t: int) -> np.ndarray:
    """The engine's codes for tracks played from step ``t`` (``outcome + n_out * (end - t)``,
    -1 for the unresolved); at ``t = 0``, the tracks that ended at the start. One compiled
    pass over ``out``'s outcome and end-step columns."""
    codes = np.empty(len(out), dtype=np.int64)
    _codes(out[:, OUT_OUTCOME], out[:, OUT_STEP], n_out, t, codes)
    return codes


@numba.njit(cache=True)
def _codes(outcome, step, n_out, t, codes):
    for i in range(codes.shape[0]):
        o, s = outcome[i], step[i]
        if t == 0:
            codes[i] = o if o >= 0 and s == 0 else -1
        else:
            codes[i] = o + n_out * (s - t) if o >= 0 else -1


def ended_counts(codes: np.ndarray, n_out: int, n_codes: int, marks: np.ndarray):
    """What the engine counts of the tracks ``codes`` end (a model's ``absorb_counts``,
    :class:`simkit.core.engine.Ledger`), in two compiled passes: ``(per_code, counts,
    tops)``, ``per_code`` (n_codes,) the tracks ending with each code, ``counts[m, o, v]``
    those ending with outcome ``o`` (``code % n_out``) and value ``v`` of mark ``m``
    (``marks`` (marks, n), any layout: each mark's row), ``tops[m]`` mark ``m``'s largest
    value among them. A negative mark is refused (ValueError), as the engine's counts do."""
    return _ended_counts(codes, n_out, n_codes, marks)


def counted(codes: np.ndarray, n_out: int, n_codes: int, marks: np.ndarray, names) -> tuple:
    """:func:`ended_counts` as the engine's ``absorb_counts`` hook gives them: ``(per_code,
    counts)``, ``counts`` mark name (``names``, in ``marks``' row order) -> (n_out, its
    largest value + 1)."""
    per_code, counts, tops = ended_counts(codes, n_out, n_codes, marks)
    return per_code, {name: counts[i, :, : tops[i] + 1] for i, name in enumerate(names)}


@numba.njit(cache=True)
def _ended_counts(codes, n_out, n_codes, marks):
    M, n = marks.shape
    per_code = np.zeros(n_codes, dtype=np.int64)
    tops = np.zeros(M, dtype=np.int64)
    negative = False
    for i in range(n):
        c = codes[i]
        if c < 0:
            continue
        per_code[c] += 1
        for m in range(M):
            v = np.int64(marks[m, i])
            negative |= v < 0
            if v > tops[m]:
                tops[m] = v
    if negative:
        raise ValueError("marks and observations must be non-negative integers")
    counts = np.zeros((M, n_out, tops.max() + 1 if M else 1), dtype=np.int64)
    for i in range(n):
        c = codes[i]
        if c < 0:
            continue
        o = c % n_out
        for m in range(M):
            counts[m, o, marks[m, i]] += 1
    return per_code, counts, tops


def marks_of(out: np.ndarray) -> dict[str, np.ndarray]:
    """Mark -> (n,) view of each track's value (``Party.marks``)."""
    return {name: out[:, OUT_MARK0 + i] for i, name in enumerate(MARKS)}
