"""A block of adventuring days (:mod:`simkit.models.day`): its state (:class:`DayBlock`),
its random source, the rows it reads and writes, and its observations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

import numpy as np

from simkit.core.streams import STREAM_SIZE, BlockRng, stream_generator
from simkit.models.day_outcomes import CAUSES, PC_FIELDS
from simkit.models.fight_state import FightStart

__all__ = [
    "FIELDS",
    "DayBlock",
    "add_row",
    "bincount2",
    "observe",
    "put_rows",
    "rest_fields",
    "rested",
    "row_argmin",
    "rows_at",
    "streams_source",
    "take_rows",
]

FIELDS = tuple(f.name for f in fields(FightStart))


def streams_source(seed: int, first_stream: int, n: int, positional: bool):
    """The random source of a block of ``n`` tracks from stream ``first_stream``:
    ``source(mask, prefix)`` is a :class:`BlockRng` over the tracks ``mask`` (n,) of the
    block, stream by stream under ``prefix``. Positional (``positional``): each track's
    draws are tied to its position in its stream, whichever other tracks draw
    (:mod:`simkit.core.streams`); the default mode draws rows for the tracks of ``mask``
    only, in order."""
    n_streams = math.ceil(n / STREAM_SIZE)
    counts = [STREAM_SIZE] * n_streams
    counts[-1] = n - STREAM_SIZE * (n_streams - 1)

    def source(mask: np.ndarray, prefix) -> BlockRng:
        gens = [stream_generator(seed, first_stream + j, prefix) for j in range(n_streams)]
        brng = BlockRng(gens, counts, positional=positional)
        if not mask.all():
            brng.compact(np.flatnonzero(mask))
        return brng

    return source


def rested(S: dict, tracks: np.ndarray) -> None:
    """The wounded condition ends at full HP after a rest (A0-2's published rule, P-12)."""
    ends = (S["wounded"] != 0) & (S["hp"] == S["hp_max"]) & ~S["dead"]  # (n, P), every track
    if len(tracks) < len(ends):
        rested = np.zeros(len(ends), dtype=bool)
        rested[tracks] = True
        ends &= rested[:, None]
    np.putmask(S["wounded"], ends, 0)


def rest_fields(B) -> list[np.ndarray]:
    """What a rest can change, copied for every track: each PC's HP, PE, PP, slots, heals,
    hero points, wounded and death ((n, P) each), and the track's fatigue state ((n,); a
    Treat Wounds immunity running down is time passing, not a change)."""
    S = B.S
    return [S[k].copy() for k in REST_FIELDS if k in S] + [B.fat.copy()]


def rest_changed(B, active: np.ndarray, was: list[np.ndarray]) -> np.ndarray:
    """(m,) bool: the tracks ``active`` whose :func:`rest_fields` differ from ``was``
    (compared over every track, compiled, then the active ones taken)."""
    from simkit.core.row_counts import rows_differ_into  # (numba: imported when a day runs)

    S = B.S
    now = [S[k] for k in REST_FIELDS if k in S]
    changed = B.fat != was[-1]
    for a, b in zip(now, was[:-1]):
        rows_differ_into(a, b, changed)
    return changed[active]


#: The carried fields a rest can change (:func:`rest_fields`).
REST_FIELDS = ("hp", "pe", "pp", "slots", "heals", "hero", "wounded", "dead")


def row_argmin(a: np.ndarray) -> np.ndarray:
    """Column of each row's smallest value of ``a`` (m, P), the first of equals (as
    ``argmin(axis=1)``, column by column: a short-axis reduction is slow)."""
    best, k = a[:, 0].copy(), np.zeros(len(a), dtype=np.intp)
    for c in range(1, a.shape[1]):
        lower = a[:, c] < best
        k[lower] = c
        np.minimum(best, a[:, c], out=best)
    return k


def take_rows(a: np.ndarray, at) -> np.ndarray:
    """The rows ``at`` (an index array, or a slice: a view) of ``a`` (n, ...): taken along
    axis 0 (``a[rows]`` on a 2-D array is several times slower)."""
    return a[at] if isinstance(at, slice) else a.take(at, axis=0)


def put_rows(a: np.ndarray, at, values: np.ndarray) -> None:
    """``a[at] = values`` for the rows ``at`` (an index array or a slice) of ``a`` (n, ...),
    C-contiguous: a 2-D array's rows written as one opaque item each (a row index
    assignment on a 2-D array is about ten times slower)."""
    if a.ndim == 2 and not isinstance(at, slice):
        row = np.dtype((np.void, a.shape[1] * a.itemsize))
        a.view(row).reshape(len(a))[at] = (
            np.ascontiguousarray(values, dtype=a.dtype).view(row).reshape(len(values))
        )
    else:
        a[at] = values


def rows_at(tracks: np.ndarray, n: int):
    """An index for the rows ``tracks`` (sorted) of ``n``: every row is a slice (a view,
    no fancy index)."""
    return slice(None) if len(tracks) == n else tracks


def add_row(observed: dict, name: str, row: int, T: int, values: np.ndarray) -> None:
    """Add the histogram of ``values`` (non-negative ints) to row ``row`` of
    ``observed[name]``."""
    add_counts(observed, name, row, T, np.bincount(values.astype(np.intp)))


def add_counts(observed: dict, name: str, row: int, T: int, counts: np.ndarray) -> None:
    """Add ``counts`` (a histogram) to row ``row`` of ``observed[name]`` ((T + 1, width)
    int64, widened when needed)."""
    obs = observed.get(name)
    if obs is None or obs.shape[1] < len(counts):
        grown = np.zeros((T + 1, max(len(counts), 0 if obs is None else obs.shape[1])), np.int64)
        if obs is not None:
            grown[:, : obs.shape[1]] = obs
        obs = observed[name] = grown
    obs[row, : len(counts)] += counts


def bincount2(rows: np.ndarray, values: np.ndarray, n_rows: int) -> np.ndarray:
    width = int(values.max()) + 1 if values.size else 1
    flat = rows.astype(np.int64) * width + values.astype(np.int64)
    return np.bincount(flat, minlength=n_rows * width).reshape(n_rows, width)


def observe(observed, S, active, row, T, fight, names):
    """Before step ``row + 1``, over the tracks still going: the party's totals, and at
    a fight each PC's (``<field>:<pc>``, :data:`PC_FIELDS`; a dead PC has 0 of each);
    counted in one compiled pass over the rows (:mod:`simkit.core.row_counts`)."""
    from simkit.core.row_counts import alive_counts, fields_counts  # (numba: when a day runs)

    every = bool(active.all())
    rows = _NO_ROWS if every else np.flatnonzero(active)
    m = len(active) if every else len(rows)
    dead = S["dead"]
    counted = [name for name in PC_FIELDS if name != "alive"]
    sums, cols = fields_counts(tuple(S[name] for name in counted), dead, rows, every, fight)
    for f, name in enumerate(counted):
        add_counts(observed, name, row, T, _trimmed(sums[f]))
        if fight:
            for k, pc in enumerate(names):
                add_counts(observed, f"{name}:{pc}", row, T, _trimmed(cols[f, k]))
    if fight:  # (a 0/1 column's histogram: its count of 0s and of 1s)
        ones = alive_counts(dead, rows, every)
        for k, pc in enumerate(names):
            hist = np.array([m - ones[k], ones[k]], dtype=np.int64)
            add_counts(observed, f"alive:{pc}", row, T, hist[: 2 if ones[k] else int(m > 0)])


def _trimmed(counts: np.ndarray) -> np.ndarray:
    """``counts`` up to its last non-zero count (nothing when none)."""
    top = np.flatnonzero(counts)
    return counts[: top[-1] + 1 if len(top) else 0]


#: The rows argument of :mod:`simkit.core.row_counts` when every track is active.
_NO_ROWS = np.zeros(0, dtype=np.intp)


@dataclass(eq=False)
class DayBlock:
    """The state of one block of days (n tracks, P PCs), handed to every step."""

    S: dict  # the FightStart fields, writable: (n, P) per PC, (n,) per track
    src: object  # source(mask, prefix) -> the random source of those tracks
    prefix: tuple  # the block's stream prefix
    base_pen: np.ndarray  # (n,) int32: the start's check penalty (P-10)
    dead0: np.ndarray  # (n, P) bool: dead before the day
    ended: np.ndarray  # (n,) int8: the day's outcome, -1 still going
    end_step: np.ndarray  # (n,) int64: the step it ended at (0: not yet)
    first_death: np.ndarray  # (n,) int64: the step of the first death (0: none)
    fat: np.ndarray  # (n,) int64: fatigue state index (day_chain, R4-01..R4-06)
    tw_wait: np.ndarray  # (n, P, W) int8: short rests before Treat Wounds again (P-11,
    #   AP-18; W = 1, or one counter per medic under treat_immunity=per_healer)
    cause: dict  # CAUSES -> (n,) int64: the day's deaths by cause
    record: object = None  # a replay's recorder (Day.run_block's _record), or None
    work: dict = field(default_factory=dict)  # buffers its fights reuse (party_loop.fight_into)

    @classmethod
    def new(cls, day, first: FightStart, n: int, src, prefix) -> DayBlock:
        """A block of ``n`` days of ``day`` (its rules) from ``first``: its ``n`` rows, or
        one row for every day."""
        P = first.n_pcs
        S = {}
        for k in FIELDS:
            v = getattr(first, k)
            S[k] = np.empty((n,) + v.shape[1:], dtype=bool if k == "dead" else np.int32)
            S[k][...] = v  # (a copy: the block writes its own)
        return cls(
            S=S,
            src=src,
            prefix=tuple(prefix),
            base_pen=S["check_penalty"].copy(),
            dead0=S["dead"].copy(),
            ended=np.full(n, -1, dtype=np.int8),
            end_step=np.zeros(n, dtype=np.int64),
            first_death=np.zeros(n, dtype=np.int64),
            fat=np.zeros(n, dtype=np.int64),
            tw_wait=np.zeros((n, P, day.immunity_counters), dtype=np.int8),
            cause={c: np.zeros(n, dtype=np.int64) for c in CAUSES},
        )
