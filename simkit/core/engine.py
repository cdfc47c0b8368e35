"""The Monte Carlo engine: any model, ``n`` tracks, bounded memory, any executor.

Tracks are simulated in blocks of whole random streams (:mod:`simkit.core.streams`); each
block keeps only its active tracks (compaction after every step), so memory is
bounded by the block size, not by ``n``. The engine records, per outcome, a histogram
of the step at which tracks absorbed; marks (a state field's value at absorption) and
observations (a per-step histogram of a field over active tracks) when the model
declares them. Integer counts are summed across blocks, so the order in which blocks
finish, the number of workers and the executor do not change any number.

Observations: after step ``t`` (and at ``t = 0``) a model with ``observes`` gives, per
field, the values of its active tracks (``observe(state, t)``: field -> non-negative
int array of shape (m,)), and the engine adds their histogram to row ``t``. A model may
also define ``observe_counts(state, t)``: field -> that histogram itself (a 1-D
non-negative integer array: ``[v]`` = active tracks whose value is ``v``; trailing zeros
are dropped), which it may get more cheaply than the values (say, by counting its few
distinct states and mapping each state's count to its value); the engine then uses it
instead of ``observe``, and records the same numbers.

A model may count the tracks a call ends itself: ``absorb_counts(state, codes, n_codes)``
gives ``(per_code, counts)``, ``per_code`` (n_codes,) the tracks ending with each code and
``counts`` mark -> (n_outcomes, largest value + 1) the ended tracks by outcome and value
(what the engine's own counts give; the fight loop counts them compiled,
:func:`simkit.fight.block.ended_counts`).

A model whose ``init`` makes end states for ``carry`` at a cost (the fight loop's) sets
``init_keeps = True``: the engine then calls ``init(n, rng, ..., keep=...)``, ``keep``
False when it will not ask for ``carry`` (no ``keep_state``), and the model may skip them.
"""

from __future__ import annotations

import math
import os
from collections import deque
from concurrent.futures import Executor
from dataclasses import dataclass, field

import numpy as np

from simkit.core.contracts import MonteCarloResult
from simkit.core.limits import MAX_N
from simkit.core.params import ParamError
from simkit.core.pools import discard_shared_pool, shared_pool
from simkit.core.result import Result
from simkit.core.streams import STREAM_SIZE, BlockRng, resolve_seed, stream_generator

__all__ = ["simulate", "Tally", "TrackResult", "run_tracks"]

#: Default tracks per block (a multiple of the stream size).
DEFAULT_BLOCK = 2**20
#: Tracks per block of the models played on the compiled fight loop (their class's
#: ``block_size``): a block's many short-lived arrays (the loop's outputs, the codes, the
#: marks' histograms, a day's fields) are fresh memory that the kernel clears page by page
#: (huge pages, numpy's default on Linux): at 2**20 tracks 8-13% of a fight's time and a
#: third of a day's at n = 1e6, at 2**18 none for a fight and a sixth as much for a day
#: (the same numbers: blocks change none).
FIGHT_BLOCK = 2**18


@dataclass
class Tally:
    """Integer counts of one or more blocks; adding tallies is exact and commutative."""

    hist: np.ndarray  # (n_outcomes, horizon + 1) int64: absorptions by outcome and step
    marks: dict = field(default_factory=dict)  # field -> (n_outcomes, max value + 1) int64
    observed: dict = field(default_factory=dict)  # field -> (horizon + 1, max value + 1) int64
    final: list = field(default_factory=list)  # (track ids, model.carry(...)) of ended tracks
    # (first track id, (tracks,) int8/int16 outcome index; len(outcomes) = unresolved) per block
    outcome_of: list = field(default_factory=list)
    # (first track id, {mark: (tracks,) int32 value at absorption, 0 if unresolved}) per block
    marks_of: list = field(default_factory=list)

    def __iadd__(self, other: Tally) -> Tally:
        self.hist += other.hist
        self.final += other.final
        self.outcome_of += other.outcome_of
        self.marks_of += other.marks_of
        for d_self, d_other in ((self.marks, other.marks), (self.observed, other.observed)):
            for k, v in d_other.items():
                d_self[k] = _padded_add(d_self.get(k), v)
        return self


@dataclass(frozen=True)
class TrackResult(Result):
    """A :class:`~simkit.core.result.Result` with each track's outcome
    (``simulate(..., keep_outcomes=True)``).

    Attributes
    ----------
    track_outcomes : ndarray, shape (n,), int8 (int16 past 127 outcomes)
        Track ``i``'s outcome as an index into ``result.outcomes`` (the model's outcomes,
        then ``unresolved``), in track order whatever the blocks or workers. Two runs on
        the same seed with ``positional=True`` give the joint outcome of each track under
        two variants (:mod:`simkit.analysis.paired`).
    track_marks : dict or None
        Mark -> shape (n,) array of each track's value of that mark when it ended, in track
        order (0 for an unresolved track: it records no mark), in the smallest integer
        dtype that holds them; None where a composite model's blocks do not give them. The
        per-track events and means of :func:`simkit.core.result.track_events`.
    """

    track_outcomes: np.ndarray | None = None
    track_marks: dict | None = None


def _padded_add(a, b):
    if a is None:
        return b.copy()
    if a.shape[1] < b.shape[1]:
        a, b = b, a
    out = a.copy()
    out[:, : b.shape[1]] += b
    return out


def _outcome_of_codes(codes: np.ndarray, n_out: int, k: int, out: np.ndarray) -> None:
    """``out[i]`` = the outcome of step code ``codes[i]`` (``outcome + n_out * offset``,
    ``offset < k``), ``n_out`` for an active track (any code below 0: a kernel may keep
    ``-1 - state`` there). By small-integer arithmetic in ``out``'s dtype (a lookup
    converts every code to an index: several times slower on a block's first step; with
    many offsets, one remainder); ``out`` may be ``codes``."""
    flag = np.less(codes, 0)  # (before ``out`` is written: it may be ``codes``)
    work = out
    if n_out * k > np.iinfo(out.dtype).max:  # the codes do not fit ``out``: work wider
        work = np.empty(out.shape, dtype=np.int32 if n_out * k < 2**31 else np.int64)
    np.copyto(work, codes, casting="unsafe")  # (an active track's code may wrap: reset below)
    top = np.empty(work.shape, dtype=np.bool_)  # (ufuncs' where= is far slower)
    tmp = np.empty_like(work)  # what to subtract
    if k > 4:  # many offsets (a fight played whole in one call): one remainder
        np.remainder(work, work.dtype.type(n_out), out=work)
    else:  # outcome + n_out * offset -> outcome, one offset at a time
        for _ in range(k - 1):
            np.greater_equal(work, work.dtype.type(n_out), out=top)
            np.multiply(top, work.dtype.type(n_out), out=tmp)
            np.subtract(work, tmp, out=work)
    np.logical_not(flag, out=top)  # active: 0 * code + n_out (copyto's where= is slower)
    np.multiply(work, top, out=work)
    np.multiply(flag, work.dtype.type(n_out), out=tmp)
    np.add(work, tmp, out=work)
    if work is not out:
        np.copyto(out, work, casting="unsafe")


def _per_track(v, n: int) -> bool:
    return isinstance(v, np.ndarray) and v.ndim > 0 and len(v) == n


def compact_state(state, kept: np.ndarray, n: int):
    """The tracks ``kept`` of a block's ``state`` of ``n`` tracks: a typed state compacts
    itself (``take_rows``); in a dict only the per-track arrays move (a model may keep
    other values in its state)."""
    if hasattr(state, "take_rows"):
        return state.take_rows(kept)
    if not len(kept):  # (no track left: empty views; a take copies a strided array first)
        return {name: v[:0] if _per_track(v, n) else v for name, v in state.items()}
    return {name: v.take(kept, axis=0) if _per_track(v, n) else v for name, v in state.items()}


def _bincount2(rows: np.ndarray, values: np.ndarray, n_rows: int) -> np.ndarray:
    """Counts of (row, value) pairs: shape (n_rows, max value + 1); ``rows`` are intp."""
    if not values.size:
        return np.zeros((n_rows, 1), dtype=np.int64)
    lo, hi = int(values.min()), int(values.max())
    if lo < 0:
        raise ValueError("marks and observations must be non-negative integers")
    width = hi + 1
    idx = rows * width if width > 1 else rows.copy()
    idx += values
    return np.bincount(idx, minlength=n_rows * width).reshape(n_rows, width)


class Ledger:
    """One model's bookkeeping over one block's tracks: what :func:`run_tracks` records as
    tracks end (``absorb``) and while they run (``observe_now``), into ``self.tally``.

    ``rng`` is the block's random source (a :class:`~simkit.core.streams.BlockRng`, or a
    view of one shared by variants stepped together, :mod:`simkit.core.lockstep`): the
    ledger calls ``rng.compact(kept)`` after each step, so the draws follow the tracks
    still active. ``first_id``: the number of the block's first track; ``keep`` and
    ``keep_outcomes`` as :func:`run_tracks`.
    """

    def __init__(self, model, first_id: int, n_tracks: int, rng, keep=False, keep_outcomes=False):
        self.model = model
        # the active tracks' numbers, where their end states are kept (``keep``)
        self.ids = np.arange(first_id, first_id + n_tracks) if keep else None
        self.rng = rng
        self.keep = keep
        self.keep_outcomes = keep_outcomes
        self.n_out = n_out = len(model.outcomes)
        self.horizon = model.horizon
        self.tally = Tally(hist=np.zeros((n_out, model.horizon + 1), dtype=np.int64))
        self.rows = None  # (active,) intp: each active track's row; None: every row, in order
        if keep_outcomes:  # (n_tracks,) outcome index of each track; n_out = unresolved
            self.outcome_of = np.full(n_tracks, n_out, dtype=np.int8 if n_out < 127 else np.int16)
            self.tally.outcome_of.append((first_id, self.outcome_of))
            # mark -> (n_tracks,): each track's value when it ended (0 while active), in its
            # state array's integer type (made at the first absorb, when the state is known)
            self.mark_of: dict = {}
            self.n_tracks = n_tracks
            if model.marks:
                self.tally.marks_of.append((first_id, self.mark_of))
        # a model that counts its ended tracks itself (``absorb_counts``)
        self.absorb_counts = getattr(model, "absorb_counts", None)
        self.observe = model.observe if model.observes else None
        self.observe_counts = getattr(model, "observe_counts", None) if model.observes else None

    def absorb(self, state, codes, start, k):
        """Record the tracks that ``codes`` end (-1 active, else outcome + n_out * offset:
        absorbed at step ``start + offset``, offset < k) and return the active tracks'
        state (the random source compacted with it)."""
        model, n_out = self.model, self.n_out
        keep_outcomes = self.keep_outcomes
        n_codes = n_out * k
        done_at = None  # the ended tracks' indices (computed once, where needed)
        counted = None  # the ended tracks' marks counted by the model (``absorb_counts``)
        if keep_outcomes and len(self.mark_of) < len(model.marks):
            self._make_marks(state)
        if codes.strides == (0,) and len(codes):  # one code for every track (a broadcast)
            if codes[0] < 0:
                return state
            per_code = np.zeros(n_codes, dtype=np.int64)
            per_code[codes[0]] = len(codes)
            kept = np.empty(0, dtype=np.intp)
            if keep_outcomes:
                rows = self.rows
                self.outcome_of[slice(None) if rows is None else rows] = codes[0] % n_out
                for name, arr in self.mark_of.items():
                    values = state.get(name)
                    if values is not None:
                        arr[slice(None) if rows is None else rows] = values
        else:
            active = codes < 0
            kept = np.flatnonzero(active)  # indices of tracks still active, in order
            if len(kept) == len(codes):
                return state
            if self.absorb_counts is not None:
                per_code, counted = self.absorb_counts(state, codes, n_codes)
            elif n_codes <= 24:  # (faster than a bincount, which converts the codes to intp)
                per_code = np.array(
                    [np.count_nonzero(codes == c) for c in range(n_codes)], dtype=np.int64
                )
            else:
                per_code = np.bincount(codes[~active], minlength=n_codes)
            rows = self.rows if keep_outcomes else None
            if (keep_outcomes and rows is not None) or (
                model.marks and len(kept) and counted is None
            ):
                done_at = np.flatnonzero(~active)
            if keep_outcomes:
                outcome_of = self.outcome_of
                if self.mark_of and rows is None and not len(kept):
                    # every track ends here, in order: each mark is the state's own array
                    for name, arr in self.mark_of.items():
                        values = state.get(name)
                        if values is not None and values.dtype == arr.dtype:
                            self.mark_of[name] = values
                        elif values is not None:
                            arr[...] = values
                elif self.mark_of and rows is None:  # every row in order: the ended ones'
                    ended = ~active
                    for name, arr in self.mark_of.items():
                        values = state.get(name)
                        if values is not None:
                            np.copyto(arr, values, casting="unsafe", where=ended)
                elif self.mark_of:  # each ended track's marks, in its row
                    at = rows.take(done_at)
                    for name, arr in self.mark_of.items():
                        values = state.get(name)
                        if values is not None:
                            arr[at] = values.take(done_at)
                if rows is None:  # no track has left yet: every row, in order
                    _outcome_of_codes(codes, n_out, k, outcome_of)
                    self.rows = kept
                else:
                    got = codes.take(done_at)
                    if k > 1:
                        _outcome_of_codes(got, n_out, k, got)
                    outcome_of[rows.take(done_at)] = got
                    self.rows = rows.take(kept)
        tally = self.tally
        tally.hist[:, start : start + k] += per_code.reshape(k, n_out).T
        if counted is not None:
            for name in model.marks:
                tally.marks[name] = _padded_add(tally.marks.get(name), counted[name])
        elif model.marks:
            all_done = not len(kept)
            done = None if all_done else done_at
            out = (codes if all_done else codes.take(done)).astype(np.intp)
            if k > 1:  # outcome of each code, by a lookup (no int64 modulo)
                out = np.tile(np.arange(n_out, dtype=np.intp), k).take(out)
            for name in model.marks:
                values = state.get(name)
                if values is None:  # a mark the model keeps no array for never changes: 0
                    counts = np.bincount(out, minlength=n_out)[:, None]
                else:
                    counts = _bincount2(out, values if all_done else values.take(done), n_out)
                tally.marks[name] = _padded_add(tally.marks.get(name), counts)
        if self.ids is not None:  # keep
            done_rows = np.flatnonzero(codes >= 0) if len(kept) else np.arange(len(codes))
            tally.final.append((self.ids[done_rows], model.carry(state, done_rows)))
            self.ids = self.ids[kept]
        self.rng.compact(kept)
        return compact_state(state, kept, len(codes))

    def _make_marks(self, state) -> None:
        """Each mark's per-track array, in its state array's integer type (int32 where
        there is none, or a wider one): writing a byte or two a track, not four."""
        for name in self.model.marks:
            values = state.get(name)
            dtype = np.dtype(np.int32)
            if values is not None and values.dtype.kind in "iu" and values.dtype.itemsize <= 4:
                dtype = values.dtype
            self.mark_of[name] = np.zeros(self.n_tracks, dtype=dtype)

    def _observed_counts(self, state, t):
        """(field, histogram of the active tracks' values after step ``t``), per field."""
        model = self.model
        if self.observe_counts is not None:  # the model counts them itself
            for name, counts in self.observe_counts(state, t).items():
                counts = np.asarray(counts)
                if counts.ndim != 1 or counts.dtype.kind not in "iu" or (counts < 0).any():
                    raise ValueError(
                        f"model {model.name!r}: observe_counts must give 1-D non-negative "
                        f"integer counts, got {counts.dtype} of shape {counts.shape} for {name!r}"
                    )
                nonzero = np.flatnonzero(counts)  # (trailing zeros dropped, as a bincount does)
                yield name, (counts[: nonzero[-1] + 1] if len(nonzero) else None)
            return
        assert self.observe is not None
        for name, values in self.observe(state, t).items():
            try:
                counts = np.bincount(values.astype(np.intp, copy=False)) if values.size else None
            except ValueError:
                raise ValueError("marks and observations must be non-negative integers") from None
            yield name, counts

    def observe_now(self, state, t) -> None:
        """The active tracks' histogram of each observed field, added into row ``t`` (grown
        when needed); nothing for a model without observations."""
        if self.observe is None:
            return
        tally = self.tally
        for name, counts in self._observed_counts(state, t):
            if counts is None:
                continue
            obs = tally.observed.get(name)
            if obs is None or obs.shape[1] < len(counts):
                grown = np.zeros(
                    (
                        self.horizon + 1,
                        len(counts) if obs is None else max(len(counts), obs.shape[1]),
                    ),
                    dtype=np.int64,
                )
                if obs is not None:
                    grown[:, : obs.shape[1]] = obs
                obs = tally.observed[name] = grown
            obs[t, : len(counts)] += counts

    def step(self, state, t: int, active: int):
        """Observe, then advance the ``active`` tracks from step ``t`` by one call of the
        model's ``step`` and record the ones that end: ``(state, k)``, ``k`` the steps
        taken (the engine's step contract checked)."""
        model = self.model
        self.observe_now(state, t)
        res = model.step(state, t + 1, self.rng)
        codes, k = res if isinstance(res, tuple) else (res, 1)
        if len(codes) != active or not 1 <= k <= self.horizon - t:
            raise RuntimeError(f"model {model.name!r} broke the step contract at step {t + 1}")
        return self.absorb(state, codes, t + 1, k), k

    def finish(self, state, t: int, active: int) -> Tally:
        """The block's tally once stepping stopped at step ``t`` with ``active`` tracks
        unresolved (observed at ``t``; their state kept with ``keep``)."""
        if active:
            self.observe_now(state, t)
            if self.keep:  # unresolved at the horizon: their state as it is
                self.tally.final.append((self.ids, self.model.carry(state, np.arange(active))))
        return self.tally


def block_rng(seed: int, first_stream: int, n_tracks: int, prefix=(), positional=False):
    """The :class:`~simkit.core.streams.BlockRng` of the block of ``n_tracks`` tracks
    from stream ``first_stream`` (every stream full but the last), and the number of its
    first track."""
    n_streams = math.ceil(n_tracks / STREAM_SIZE)
    counts = [STREAM_SIZE] * n_streams
    counts[-1] = n_tracks - STREAM_SIZE * (n_streams - 1)
    gens = [stream_generator(seed, first_stream + j, prefix) for j in range(n_streams)]
    return BlockRng(gens, counts, positional=positional), first_stream * STREAM_SIZE


def run_tracks(
    model,
    seed: int,
    first_stream: int,
    n_tracks: int,
    prefix=(),
    start=None,
    keep=False,
    positional=False,
    keep_outcomes=False,
) -> Tally:
    """Simulate ``n_tracks`` tracks made of consecutive streams from ``first_stream``.

    Every stream but the last is full (``STREAM_SIZE`` tracks). This is one block of
    the engine, and the unit of work handed to an executor. ``start``: this block's rows
    of a start state (``model.init(n, rng, start=...)``); ``keep``: record each track's
    end state (``model.carry(state, rows)``) with its track number; ``positional``: the
    streams' positional mode (:class:`~simkit.core.streams.BlockRng`); ``keep_outcomes``:
    record each track's outcome index (``Tally.outcome_of``) and its marks' values
    (``Tally.marks_of``).

    A composite model (one that runs other models' blocks over the same streams, such as
    a day of fights and rests) defines ``run_block(seed, first_stream, n_tracks, prefix,
    start=, keep=)`` returning this block's :class:`Tally`; the engine calls it instead,
    so blocks, workers and executors work for it unchanged.
    """
    if hasattr(model, "run_block"):  # a composite model (the day: fights and rests in a row)
        if positional or keep_outcomes:
            extra = {"positional": positional, "keep_outcomes": keep_outcomes}
            return model.run_block(
                seed, first_stream, n_tracks, prefix, start=start, keep=keep, **extra
            )
        return model.run_block(seed, first_stream, n_tracks, prefix, start=start, keep=keep)
    brng, first_id = block_rng(seed, first_stream, n_tracks, prefix, positional)
    ledger = Ledger(model, first_id, n_tracks, brng, keep, keep_outcomes)
    # a model whose init takes ``keep`` (``init_keeps``) skips the end states nobody carries
    told = {"keep": bool(keep)} if getattr(model, "init_keeps", False) else {}
    if start is None:
        state, codes = model.init(n_tracks, brng, **told)
    else:
        state, codes = model.init(n_tracks, brng, start=start, **told)
    state = ledger.absorb(state, codes, 0, 1)
    t = 0  # last step completed
    horizon = model.horizon
    while brng.n_active and t < horizon:
        state, k = ledger.step(state, t, brng.n_active)
        t += k
    return ledger.finish(state, t, brng.n_active)


def check_n(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer, float)):
        raise ParamError(f"n must be an integer in [1, {MAX_N:.0e}], got {n!r}")
    if isinstance(n, float):
        if not n.is_integer():
            raise ParamError(f"n must be an integer in [1, {MAX_N:.0e}], got {n!r}")
        n = int(n)
    if not 1 <= n <= MAX_N:
        raise ParamError(f"n must be an integer in [1, {MAX_N:.0e}], got {n}")
    return int(n)


def _blocks(n: int, block_size: int):
    """(first stream, n tracks) of each block, generated lazily (n may be 1e13)."""
    per_block = max(1, math.ceil(block_size / STREAM_SIZE))
    n_streams = math.ceil(n / STREAM_SIZE)
    for first in range(0, n_streams, per_block):
        last = min(first + per_block, n_streams)
        yield first, min(n, last * STREAM_SIZE) - first * STREAM_SIZE


def _n_blocks(n: int, block_size: int) -> int:
    return math.ceil(math.ceil(n / STREAM_SIZE) / max(1, math.ceil(block_size / STREAM_SIZE)))


#: Seconds a run lasts before its progress bar appears (``simulate(progress=)``).
PROGRESS_DELAY = 3.0


class _NoBar:
    """A progress bar that shows nothing."""

    def update(self, k: int) -> None:
        pass

    def close(self) -> None:
        pass


def _in_notebook() -> bool:
    """Whether this process is a Jupyter (IPython) kernel."""
    import sys

    shell = sys.modules.get("IPython")
    get = getattr(shell, "get_ipython", None)
    ip = get() if get is not None else None
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def _progress_bar(progress: bool | None, n: int, name: str):
    """The bar of :func:`simulate` (``progress``: True, False, or None for notebooks only)."""
    if progress is False or (progress is None and not _in_notebook()):
        return _NoBar()
    import sys

    from tqdm.auto import tqdm

    return tqdm(
        total=n,
        unit="track",
        unit_scale=True,
        desc=f"simulate {name}",
        file=sys.stderr,
        delay=PROGRESS_DELAY,
        leave=False,
        dynamic_ncols=True,
    )


def simulate(
    model,
    n: int = 100_000,
    rng=None,
    *,
    block_size: int | None = None,
    workers: int = 1,
    executor: Executor | None = None,
    start=None,
    keep_state: bool = False,
    positional: bool = False,
    keep_outcomes: bool = False,
    progress: bool | None = None,
    _prefix: tuple[int, ...] = (),
) -> MonteCarloResult:
    """Simulate ``n`` independent tracks of ``model``.

    Parameters
    ----------
    model : Rules
        A model's rules (e.g. ``simkit.models.Dying(dc=20, save_bonus=10)``).
    n : int
        Number of tracks, 1..1e13. Memory does not grow with ``n``.
    rng : None, int, SeedSequence or numpy.random.Generator
        The seed. The result records the integer seed that replays it.
    block_size : int, optional
        Tracks per block (rounded up to whole streams of ``STREAM_SIZE``). Bounds
        memory; does not change results. None (default): the model's ``block_size``
        where it states one (the fight models: 2**18, :data:`FIGHT_BLOCK`), else
        :data:`DEFAULT_BLOCK` (2**20).
    workers : int
        Local worker processes (1 = in this process). Does not change results.
    executor : concurrent.futures.Executor, optional
        Any executor (e.g. a Dask client's ``get_executor()``); overrides ``workers``.
    start : optional
        Where each track starts, for a model that can start from a given state (``party``:
        a :class:`simkit.models.fight_state.FightStart` of ``n`` rows).
    keep_state : bool
        Also return each track's end state as ``result.final`` (in track order), for a
        model that hands its state on (``party``: a ``FightStart``).
    positional : bool
        Tie each track's draws to the track: the draw it gets at a call depends on its
        stream, the call number and its position in the stream only, not on which other
        tracks are still active (:mod:`simkit.core.streams`). Different numbers from the
        default mode (which it leaves unchanged), equally independent of block size and
        workers. Two variants run positionally on one seed share their dice track by
        track (paired comparisons, docs/paired.md).
    keep_outcomes : bool
        Also return each track's outcome index (``result.track_outcomes``, in track
        order; a :class:`TrackResult`), one byte a track, and each mark's value per track
        (``result.track_marks``). Track models only (not chains).
    progress : bool or None
        A progress bar of the tracks done (``tqdm.auto``: a widget in Jupyter, text on
        stderr elsewhere). ``None`` (default): shown in a Jupyter kernel once a run has
        lasted :data:`PROGRESS_DELAY` seconds, never elsewhere; ``True``: shown (after the
        same delay); ``False``: never. Changes no number.

    Returns
    -------
    Result
        Outcome counts, per-step absorption histograms, the model, seed and ``n``.
    """
    n = check_n(n)
    if block_size is None:
        block_size = getattr(model, "block_size", DEFAULT_BLOCK)
    if (
        isinstance(block_size, bool)
        or not isinstance(block_size, (int, np.integer))
        or block_size < 1
    ):
        raise ParamError(f"block_size must be a positive integer, got {block_size!r}")
    if (
        isinstance(workers, bool)
        or not isinstance(workers, (int, np.integer))
        or not 1 <= workers <= 1024
    ):
        raise ParamError(f"workers must be an integer in [1, 1024], got {workers!r}")
    if progress is not None and not isinstance(progress, bool):
        raise ParamError(f"progress must be True, False or None, got {progress!r}")
    seed = resolve_seed(rng)
    if start is not None or keep_state:
        if not hasattr(model, "carry"):
            what = "start" if start is not None else "keep_state"
            raise ParamError(f"{what}: model {model.name!r} does not start from or hand on a state")
        if start is not None and not (
            callable(getattr(start, "rows", None)) and hasattr(start, "__len__")
        ):
            raise ParamError(
                f"start: model {model.name!r} starts from a fight's state (a FightStart, "
                f"e.g. an earlier result's .final), got {type(start).__name__}"
            )
        if start is not None and len(start) != n:
            raise ParamError(f"start must hold n={n} tracks, got {len(start)}")
    if keep_outcomes and model.is_chain:
        raise ParamError(
            f"keep_outcomes: model {model.name!r} is a chain of stages; its tracks are "
            "renumbered between stages, so it has no per-track outcomes"
        )
    if model.is_chain:
        from simkit.core.chain import simulate_chain

        def run(stage, k, stage_seed, prefix):
            return simulate(
                stage,
                k,
                stage_seed,
                block_size=block_size,
                workers=workers,
                executor=executor,
                positional=positional,
                progress=progress,
                _prefix=prefix,
            )

        return simulate_chain(model, n, seed, _prefix, run)

    def _block_start(first: int, tracks: int) -> tuple:
        """The extra arguments of run_tracks for the block of ``tracks`` from stream ``first``."""
        rows = None if start is None else start.rows(first * STREAM_SIZE, tracks)
        return (rows, keep_state, bool(positional), bool(keep_outcomes))

    bar = _progress_bar(progress, n, model.name)
    total = run_blocks(
        lambda first, tracks: (
            (run_tracks, model, seed, first, tracks, _prefix) + _block_start(first, tracks)
        ),
        n,
        int(block_size),
        workers,
        executor,
        _acc,
        bar=bar,
        sendable=model,
    )
    final = None
    if keep_state:  # the blocks' end states, put back in track order
        order = np.argsort(np.concatenate([ids for ids, _ in total.final]), kind="stable")
        final = type(total.final[0][1]).concat(part for _, part in total.final).take(order)
    return tally_result(model, n, seed, total, final, keep_outcomes)


def tally_result(model, n: int, seed: int, total: Tally, final=None, keep_outcomes=False):
    """The :class:`~simkit.core.result.Result` of ``n`` tracks from their blocks' summed
    ``total`` (a :class:`TrackResult` with ``keep_outcomes``: outcomes and marks per track,
    in track order)."""
    fields = dict(
        model=model,
        n=n,
        seed=seed,
        hist=total.hist,
        marks=total.marks,
        observed=total.observed,
        final=final,
    )
    if keep_outcomes:  # the blocks' outcome arrays, in track order
        parts = sorted(total.outcome_of, key=lambda part: part[0])
        return TrackResult(
            **fields,
            track_outcomes=np.concatenate([a for _, a in parts]),
            track_marks=_track_marks(model, total.marks_of, n),
        )
    return Result(**fields)


def run_blocks(work, n: int, block_size: int, workers: int, executor, add, bar=None, sendable=None):
    """Run the blocks of ``n`` tracks (``block_size`` a block, whole streams) and add up
    what each gives: ``work(first, tracks)`` is ``(fn, *args)``, the call that runs the
    block of ``tracks`` tracks from stream ``first``; it runs here (``workers == 1``
    without an executor, or a single block) or on ``executor`` / the shared pool of
    ``workers`` processes, at most a few blocks in flight (memory stays bounded);
    ``add(total, part)`` adds a block's result into the total (in block order, so the sum
    does not depend on which finished first). ``bar``: a progress bar (``update(tracks)``,
    ``close()``); ``sendable``: what the local workers must be able to receive (checked
    first, :func:`check_sendable`)."""
    blocks = _blocks(n, block_size)
    n_blocks = _n_blocks(n, block_size)
    bar = _NoBar() if bar is None else bar
    total = None
    if executor is None and (workers == 1 or n_blocks == 1):
        for first, tracks in blocks:
            fn, *args = work(first, tracks)
            part = fn(*args)
            total = part if total is None else add(total, part)
            bar.update(tracks)
        bar.close()
        assert total is not None, "at least one block"
        return total
    own = executor is None
    if own and sendable is not None:
        check_sendable(sendable)
    ex = executor if executor is not None else shared_pool(min(workers, n_blocks))
    in_flight = 2 * (workers if own else max(workers, os.cpu_count() or 1))
    pending: deque = deque()
    try:
        # at most `in_flight` blocks submitted and not yet added: memory stays bounded
        for first, tracks in blocks:
            fn, *args = work(first, tracks)
            pending.append((ex.submit(fn, *args), tracks))
            if len(pending) >= in_flight:
                fut, done = pending.popleft()
                part = fut.result()
                total = part if total is None else add(total, part)
                bar.update(done)
        while pending:
            fut, done = pending.popleft()
            part = fut.result()
            total = part if total is None else add(total, part)
            bar.update(done)
    except BaseException:
        for fut, _ in pending:
            fut.cancel()
        if own:  # an error or Ctrl-C: these workers' results are not wanted
            discard_shared_pool()
        raise
    finally:
        bar.close()
    assert total is not None, "at least one block"
    return total


def check_sendable(model, where: str = "workers") -> None:
    """One-line error when ``model`` cannot be sent to worker processes.

    A rule class defined in a notebook or inside a function (e.g. a :func:`simkit.track`)
    cannot be pickled: such a model runs in-process only.
    """
    import pickle

    try:
        pickle.dumps(model)
    except (pickle.PicklingError, AttributeError, TypeError) as exc:
        raise ParamError(
            f"{where}: model {model.name!r} cannot be sent to worker processes "
            f"({type(exc).__name__}); use workers=1, or define its class in a module"
        ) from None


def _track_marks(model, marks_of: list, n: int) -> dict | None:
    """Each mark's per-track values over all blocks, in track order, in the smallest
    signed integer dtype that holds them; None unless the blocks gave every mark for every track."""
    if not model.marks:
        return {}
    parts = sorted(marks_of, key=lambda part: part[0])
    if sum(len(next(iter(d.values()))) for _, d in parts) != n:
        return None
    out = {}
    for name in model.marks:
        if any(name not in d for _, d in parts):
            return None
        each = [d[name] for _, d in parts]
        values = each[0] if len(each) == 1 else np.concatenate(each)  # (one block: no copy)
        if len(values):
            lo, hi = int(values.min()), int(values.max())
            small = next(t for t in (np.int8, np.int16, np.int32) if np.iinfo(t).max >= hi)
            values = values.astype(small if lo >= np.iinfo(small).min else np.int32, copy=False)
        out[name] = values
    return out


def _acc(total: Tally, tally: Tally) -> Tally:
    total += tally
    return total
