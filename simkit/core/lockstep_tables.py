"""Variants of a table-driven kernel stepped together: one draw, one lookup a variant.

A kernel whose step is a lookup table (``model.table_step(t)``: ``table[s, r]``, the
engine's code after the step from state ``s`` with the draw ``r``, as the dying track's
packed rounds; ``model.table_start()``: every track's code at step 0) needs nothing of
a track but its state code. Variants of such a kernel run together here on one seed's
positional streams (:mod:`simkit.core.streams`): at each step the block draws once for
the tracks still going under some variant, and each variant looks its next codes up in
its own table, for every one of those tracks, a track that has ended under a variant
staying ended there (an extended table, :func:`extended`). Nothing else is done per
variant: no compaction of its own, no per-track outcome array; the tracks that have ended
under every variant leave the block together, and their joint outcome is counted then.

The first step is cheaper still: every track starts in one state under each variant, so
the step's codes under all the variants are a function of the draw alone
(:func:`_first_step`: each draw's combination of codes); the block counts its draws by
value, folds the counts into the combinations, and looks up only the tracks that go on.

Each variant's histogram is exactly that of ``simulate(variant, n, seed,
positional=True)`` (a test holds them equal), and the joint outcome table of each variant
against the first (the baseline) is that of their per-track outcomes; so a paired
comparison of such variants costs less than two runs: one set of draws, a lookup a
variant, a count (``bench/bench_paired.py --only cost``: x1.7-1.8 one plain run for the
dying track's two variants).
The variants must agree on what they draw (the same width and the same ``k`` at every
step; :class:`~simkit.core.lockstep.LockstepMismatch` otherwise) and keep no marks or
observations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simkit.core.engine import block_rng, check_n, run_blocks
from simkit.core.lockstep import LockstepMismatch

__all__ = ["TablesTally", "extended", "run_tables", "simulate_tables", "steps_by_table"]

#: A block lets its tracks ended under every variant go once they are at least one in
#: ``COMPACT_AT`` of its tracks.
COMPACT_AT = 4

#: Most rounds a table step takes (``k``): the layout of the extended tables' codes.
MAX_K = 3


@dataclass
class TablesTally:
    """One or more blocks of :func:`run_tables`: each variant's absorption histogram and
    each variant's joint outcome table against the first (``joint[v, a, b]``: tracks
    ending in ``a`` under the first variant and ``b`` under variant ``v``; the last index
    of each axis is ``unresolved``)."""

    hists: list
    joint: np.ndarray

    def __iadd__(self, other: TablesTally) -> TablesTally:
        for a, b in zip(self.hists, other.hists):
            a += b
        self.joint += other.joint
        return self


def steps_by_table(models) -> bool:
    """Whether ``models`` can run here: each has ``table_step`` and ``table_start``, no
    marks and no observations, and the first step of each is a table (a later step that
    is not raises :class:`~simkit.core.lockstep.LockstepMismatch`)."""
    return all(
        hasattr(m, "table_step")
        and hasattr(m, "table_start")
        and not m.marks
        and not m.observes
        and not m.is_chain
        and m.table_step(1) is not None
        for m in models
    )


def _extend(table: np.ndarray, n_out: int) -> np.ndarray:
    S, width = table.shape
    new, done = S, S + n_out * MAX_K  # codes of the tracks that end now, and have ended
    # (a byte a code where they fit: the tables of two variants stay in a core's cache)
    ext = np.empty((done + n_out, width), dtype=np.int8 if done + n_out <= 127 else np.int16)
    ext[:S] = np.where(table < 0, -1 - table, new + table)
    for c in range(n_out * MAX_K):  # ended at the last step: ended since
        ext[new + c] = done + c % n_out
    for o in range(n_out):
        ext[done + o] = done + o
    ext.setflags(write=False)
    return ext


#: (id of a table's array, shape, n_out) -> (the array, the extended table): the tables a
#: kernel keeps (read-only, cached by the kernel) are extended once; the array is held so
#: its id stays its own. At most :data:`EXTENDED_KEPT` (a dying table of three rounds
#: extends to ~0.22 MB: ~28 MB at most), all dropped when full.
_EXTENDED: dict[tuple, tuple] = {}
EXTENDED_KEPT = 128


def extended(table: np.ndarray, n_out: int) -> np.ndarray:
    """``table`` (a kernel's step table: the engine's codes, ``-1 - state`` for a track
    still going, else ``outcome + n_out * offset``) over one alphabet of codes that also
    holds the ended tracks: ``0 .. S-1`` a state, ``S + outcome + n_out * offset`` a track
    that ends at this step (at round ``offset`` of its ``k``), ``S + n_out * MAX_K +
    outcome`` a track that had ended; its rows ``S ..`` send an ended track to its "had
    ended" code whatever the draw. Shape ``(S + n_out * (MAX_K + 1), width)``, int8 where
    the codes fit (else int16).
    Cached for a read-only table (a kernel's kept tables)."""
    owner = table if table.base is None else table.base  # (a reshaped view: its array)
    key = (id(owner), table.shape, n_out)
    hit = _EXTENDED.get(key)
    if hit is not None and hit[0] is owner:
        return hit[1]
    ext = _extend(np.asarray(table, dtype=np.int16), n_out)
    if not table.flags.writeable and not getattr(owner, "flags", table.flags).writeable:
        if len(_EXTENDED) >= EXTENDED_KEPT:
            _EXTENDED.clear()
        _EXTENDED[key] = (owner, ext)
    return ext


#: (ids of the extended tables, their start rows) -> (tables, the first step's
#: combinations): a block's first step is the same for every block of a run.
_FIRST: dict[tuple, tuple] = {}


def _first_step(exts: list[np.ndarray], starts: list[int], S: list[int]):
    """The first step: every track starts in one row of each variant's extended table
    (``starts[v]``), so the step's codes under all the variants are a function of the draw
    alone. Returns the distinct combinations of the variants' codes (``combos[v, j]``),
    those where every variant has ended first (``n_ended`` of them), and each draw's
    combination (``lut[r]``, int16 where they fit). Cached for the tables a kernel keeps."""
    key = tuple(id(e) for e in exts) + tuple(starts)
    hit = _FIRST.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], exts)):
        return hit[1]
    rows = [e[r] for e, r in zip(exts, starts)]
    combined = np.zeros(len(rows[0]), dtype=np.int64)
    for e, row in zip(exts, rows):  # mixed radix: one integer a combination
        combined *= e.shape[0]
        combined += row
    _, first, inverse = np.unique(combined, return_index=True, return_inverse=True)
    combos = np.stack([row.take(first) for row in rows])
    ended = np.all(combos >= np.array(S)[:, None], axis=0)
    order = np.argsort(~ended, kind="stable")  # the combinations where all ended first
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    lut = rank[inverse.reshape(-1)].astype(np.int16 if len(order) < 2**15 else np.intp)
    out = (combos[:, order], int(ended.sum()), lut)
    if len(_FIRST) >= 64:
        _FIRST.clear()
    _FIRST[key] = (list(exts), out)
    return out


def _outcome_lut(S: int, size: int, n_out: int) -> np.ndarray:
    """Each extended code's outcome index (``n_out``: still going)."""
    code = np.arange(size)
    return np.where(code < S, n_out, (code - S) % n_out).astype(np.intp)


def run_tables(models, seed: int, first_stream: int, n_tracks: int, prefix=()) -> TablesTally:
    """One block of :func:`simulate_tables`: the ``n_tracks`` tracks from stream
    ``first_stream``."""
    models = list(models)
    n_out = len(models[0].outcomes)
    horizon = models[0].horizon
    V = len(models)
    m = n_out + 1
    hists = [np.zeros((n_out, horizon + 1), dtype=np.int64) for _ in models]
    joint = np.zeros((V, m, m), dtype=np.int64)
    brng, _ = block_rng(seed, first_stream, n_tracks, prefix, positional=True)
    starts = [mo.table_start() for mo in models]  # engine's code: -1 - state, or an outcome
    for h, start in zip(hists, starts):
        if start >= 0:
            h[start, 0] += n_tracks
    cur: list = []  # each variant's extended code of every track in the block
    S: list[int] = []  # each variant's states (the same at every step: checked)
    luts: list = []  # each variant's outcome of each extended code
    pairs: list | None = None  # per variant, tracks by (base code, its code) (int64)
    t = 0
    while brng.n_active and t < horizon:
        steps = [mo.table_step(t + 1) for mo in models]
        if any(st is None for st in steps):
            raise LockstepMismatch(f"a variant's step {t + 1} is not a table")
        ks = {k for _, k in steps}
        widths = {tab.shape[1] for tab, _ in steps}
        if len(ks) != 1 or len(widths) != 1:
            raise LockstepMismatch(f"the variants' tables differ in rounds or draws at {t + 1}")
        k, width = ks.pop(), widths.pop()
        if k > MAX_K:
            raise LockstepMismatch(f"a table step of {k} rounds (at most {MAX_K})")
        exts = [extended(tab, n_out) for tab, _ in steps]
        if S and S != [tab.shape[0] for tab, _ in steps]:
            raise LockstepMismatch(f"a variant's states changed at step {t + 1}")
        if not S:
            S = [tab.shape[0] for tab, _ in steps]
            luts = [_outcome_lut(s, e.shape[0], n_out) for s, e in zip(S, exts)]
        r = None
        if width > 1:  # (the first step's draws as indices: counted and looked up as they are)
            out = np.empty(brng.n_active, dtype=np.intp) if not cur else None
            r = brng.below(width, size=brng.n_active, out=out)
        if not cur:  # the first step: one row a variant, one combined code a track
            rows = [-1 - c if c < 0 else s + n_out * MAX_K + c for c, s in zip(starts, S)]
            combos, n_ended, lut = _first_step(exts, rows, S)
            going = lut >= n_ended  # (width,) bool: the draws after which a track goes on
            if r is None:  # nothing drawn: every track got the one combination
                counts = np.zeros(combos.shape[1], dtype=np.int64)
                counts[lut[0]] = brng.n_active
                kept = np.arange(brng.n_active) if lut[0] >= n_ended else np.empty(0, np.intp)
                sub = np.full(len(kept), lut[0])
            else:  # the draws' counts, folded into combinations; only the going tracks looked up
                per_draw = np.bincount(r, minlength=width)
                counts = np.bincount(lut, weights=per_draw, minlength=combos.shape[1])
                counts = counts.astype(np.int64)
                kept = np.flatnonzero(going.take(r)) if n_ended else np.arange(len(r))
                sub = lut.take(r.take(kept))
            for v in range(V):
                _count_new(hists[v], combos[v], counts, S[v], n_out, t)
            if n_ended:  # the tracks that ended under every variant: counted, and gone
                pairs = _no_pairs(exts)
                done = combos[:, :n_ended]
                for v in range(1, V):
                    np.add.at(pairs[v], (done[0], done[v]), counts[:n_ended])
            cur = [c.take(sub) for c in combos]
            if len(kept) < brng.n_active:
                brng.compact(kept)
            t += k
            continue
        for v in range(V):
            idx = np.multiply(cur[v], width, dtype=np.intp)
            if width > 1:
                idx += r
            code = exts[v].reshape(-1).take(idx)
            new = range(S[v], S[v] + n_out * k)  # the codes of the tracks that end now
            if len(code) > 2**16:  # (no index conversion of every code)
                ended_now = np.array([np.count_nonzero(code == c) for c in new])
            else:  # (few: one call)
                ended_now = np.bincount(code, minlength=new.stop)[new.start : new.stop]
            # code S + outcome + n_out * offset: outcome o at step t + 1 + offset
            hists[v][:, t + 1 : t + 1 + k] += ended_now.reshape(k, n_out).T
            cur[v] = code
        ended = cur[0] >= S[0]
        for code, s in zip(cur[1:], S[1:]):
            ended &= code >= s
        n_done = int(np.count_nonzero(ended))
        if n_done * COMPACT_AT >= len(ended):  # enough ended: count them and let them go
            # (until then their draws and lookups are wasted, less than a compaction)
            pairs = _count_pairs(pairs, cur, exts, np.flatnonzero(ended))
            kept = np.flatnonzero(~ended)
            cur = [c.take(kept) for c in cur]
            brng.compact(kept)
        t += k
    if brng.n_active and cur:  # the rest: unresolved under some variant, or ended
        pairs = _count_pairs(pairs, cur, exts, None)
    elif brng.n_active:  # no step (a horizon of 0): every track as it started
        got = [n_out if c < 0 else c for c in starts]
        for v in range(V):
            joint[v, got[0], got[v]] += n_tracks
    for v, h in enumerate(pairs or ()):  # (base code, code) -> (base outcome, outcome)
        if h is not None:
            joint[v] += _one_hot(luts[0], m).T @ h @ _one_hot(luts[v], m)
    ends = hists[0].sum(axis=1)  # the first variant against itself: its own outcomes
    joint[0] = np.diag(np.append(ends, n_tracks - ends.sum()))
    return TablesTally(hists, joint)


def _count_new(hist, codes, counts, S: int, n_out: int, t: int) -> None:
    """Add to ``hist`` the tracks that end at this step (codes ``S + outcome + n_out *
    offset``: at step ``t + 1 + offset``), ``counts[i]`` tracks having code
    ``codes[i]``."""
    for code, c in zip(np.asarray(codes).tolist(), np.asarray(counts).tolist()):
        if c and S <= code < S + n_out * MAX_K:
            off, o = divmod(code - S, n_out)
            hist[o, t + 1 + off] += int(c)


def _count_pairs(pairs, cur, exts, rows) -> list:
    """``pairs`` (None: zeros) plus the tracks ``rows`` (None: all) by (the first variant's
    code, variant ``v``'s code), one histogram a variant: one bincount of a combined code
    a variant."""
    if pairs is None:
        pairs = _no_pairs(exts)
    codes = cur if rows is None else [c.take(rows) for c in cur]
    base = codes[0].astype(np.intp)
    for code, h in zip(codes[1:], pairs[1:]):
        idx = base * h.shape[1]
        idx += code
        h += np.bincount(idx, minlength=h.size).reshape(h.shape)
    return pairs


def _no_pairs(exts) -> list:
    """Zero pair histograms, one a variant after the first (None for the first)."""
    return [None] + [np.zeros((exts[0].shape[0], e.shape[0]), np.int64) for e in exts[1:]]


def _one_hot(lut: np.ndarray, m: int) -> np.ndarray:
    """``(codes, m)`` 0/1: each extended code's outcome index."""
    out = np.zeros((len(lut), m), dtype=np.int64)
    out[np.arange(len(lut)), lut] = 1
    return out


def simulate_tables(models, n: int, rng, *, workers: int = 1):
    """Simulate ``n`` tracks of every model in ``models`` (variants of one table-driven
    kernel) stepped together on one seed's positional streams (module docs).

    Returns
    -------
    results : list of Result
        Each variant's, equal to ``simulate(model, n, rng, positional=True)``.
    joint : ndarray, shape (variants, outcomes + 1, outcomes + 1)
        ``joint[v, a, b]``: tracks ending in ``a`` under the first variant and ``b``
        under variant ``v`` (the last index: unresolved).

    Raises :class:`~simkit.core.lockstep.LockstepMismatch` where the variants cannot run
    together (:func:`steps_by_table`; their tables differ in width or rounds at a step).
    """
    from simkit.core.engine import DEFAULT_BLOCK
    from simkit.core.result import Result
    from simkit.core.streams import resolve_seed

    models = list(models)
    if not models or not steps_by_table(models):
        raise LockstepMismatch("these models do not step by tables")
    first = models[0]
    for m in models:
        if m.horizon != first.horizon or tuple(m.outcomes) != tuple(first.outcomes):
            raise LockstepMismatch("the variants differ in horizon or outcomes")
    n = check_n(n)
    seed = resolve_seed(rng)
    total = run_blocks(
        lambda a, tracks: (run_tables, models, seed, a, tracks, ()),
        n,
        DEFAULT_BLOCK,
        workers,
        None,
        _add,
        sendable=models,
    )
    results = [
        Result(model=m, n=n, seed=seed, hist=h, marks={}, observed={}, final=None)
        for m, h in zip(models, total.hists)
    ]
    return results, total.joint


def _add(total: TablesTally, part: TablesTally) -> TablesTally:
    total += part
    return total
