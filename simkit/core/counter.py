"""Counter-based random words: the draws of positional streams.

A word is a function of a key and an index, not of what was drawn before: SplitMix64
(Steele, Lea and Flood 2014), whose output at index ``h`` of the sequence keyed by ``k``
is its finaliser (:func:`mix64`) of ``k + h * GOLDEN`` (mod 2**64). A positional stream
(:class:`simkit.core.streams.BlockRng` with ``positional=True``) keys each call of each
stream (:func:`call_key`) and gives the track at position ``p`` of its stream, drawing
``per`` 16-bit words a row, the words of indices ``p * per .. p * per + per - 1`` of that
call's sequence, word ``w`` being bits ``16 * (w % 4)`` and up of output ``w // 4`` (low
bits first; the words are read as 16-bit views of the outputs, so on a little-endian
machine). So a track's words do not depend on which other tracks draw, and only the
active tracks' words need computing: :meth:`Layout.words` computes them for the active
positions of every stream of a block at once, either output by output for those positions
(sparse) or for every position up to each stream's last active one, then keeps the active
rows (dense), whichever costs less; both give the same words. A rejected word is redrawn
by its position too (:func:`redraw`).

Different calls and streams are different keys of one SplitMix64 sequence (period
2**64), each key a SplitMix64 output itself: two keys' windows (at most ``2**16 * per``
outputs) overlap with a chance of about ``2**-40`` per pair.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "GOLDEN",
    "call_key",
    "mix64",
    "Layout",
    "redraw",
    "stream_key",
    "track_keys",
]

#: SplitMix64's increment (2**64 over the golden ratio, odd).
GOLDEN = 0x9E3779B97F4A7C15
_MASK64 = (1 << 64) - 1
#: The increment between the keys of a stream's consecutive calls.
_CALL_GAMMA = 0xD2B74407B1CE6E93
#: The increment between the keys of a rejected word's redraw rounds.
_ROUND_GAMMA = 0xD1B54A32D192ED03
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)
_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
#: Outputs mixed at a time (256 KiB: in cache, and few NumPy calls a chunk).
_CHUNK = 2**15

# Relative costs (ns) of the ways to compute a stream's words, from timings of each piece
# (they only choose between two ways to the same words): one output, one row taken from a
# dense draw (and each of its words), one output cut to a word by a shift.
_COST_HASH, _COST_TAKE, _COST_TAKE_WORD, _COST_CUT = 2.3, 1.2, 0.1, 1.0


def mix64(z: int) -> int:
    """SplitMix64's finaliser on a Python int (64 bits)."""
    z &= _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def stream_key(gen: np.random.Generator) -> int:
    """A stream's 64-bit key: from its generator's initial state (the stream's
    ``SeedSequence``), read without drawing from it."""
    st = gen.bit_generator.state["state"]
    s, inc = int(st["state"]), int(st["inc"])
    return mix64(mix64(s & _MASK64) ^ (s >> 64) ^ mix64(inc & _MASK64))


def call_key(key: int, call: int) -> int:
    """The key of a stream's sequence at call ``call`` (0, 1, ...) from the stream's key."""
    return mix64(key + (call + 1) * _CALL_GAMMA)


def _mix_into(z: np.ndarray, t: np.ndarray) -> None:
    """SplitMix64's finaliser, in place on ``z`` (uint64; ``t``: a scratch of its shape)."""
    np.right_shift(z, _S30, out=t)
    np.bitwise_xor(z, t, out=z)
    np.multiply(z, _M1, out=z)
    np.right_shift(z, _S27, out=t)
    np.bitwise_xor(z, t, out=z)
    np.multiply(z, _M2, out=z)
    np.right_shift(z, _S31, out=t)
    np.bitwise_xor(z, t, out=z)


_GOLDEN_TABLE: list[np.ndarray] = []


def _golden_table(count: int) -> np.ndarray:
    """``arange(count) * GOLDEN`` (uint64, wrapping; a read-only view of one kept array)."""
    if not _GOLDEN_TABLE or len(_GOLDEN_TABLE[0]) < count:
        table = np.arange(max(count, 2**16), dtype=np.uint64) * np.uint64(GOLDEN)
        table.setflags(write=False)
        _GOLDEN_TABLE[:] = [table]
    return _GOLDEN_TABLE[0][:count]


class Layout:
    """The active tracks of a block, stream by stream, and how to compute their words.

    ``counts``: active tracks of each stream of the block; ``pos``: each active track's
    position in its stream (sorted within a stream, intp), None for ``0 .. count - 1``.
    :meth:`words` gives the ``per`` 16-bit words of every active track at one call, from
    each stream's key at that call, in one vectorised pass for all streams: either each
    active track's own outputs (sparse) or every output of each stream up to its last
    active position, then the active rows taken (dense), whichever costs less; the two give
    the same words. What each way needs is kept by ``per`` (a layout lasts until the next
    compaction)."""

    __slots__ = ("_plans", "_pu", "n", "pos", "segs", "starts")

    def __init__(self, counts, pos: np.ndarray | None):
        self.pos = pos
        #: (stream, first row, count) of each stream with active tracks, in order
        self.segs: list[tuple[int, int, int]] = []
        a = 0
        for j, c in enumerate(counts):
            if c:
                self.segs.append((j, a, int(c)))
                a += int(c)
        self.n = a
        #: (streams,) intp: each stream's first row
        self.starts = np.array([a for _, a, _ in self.segs], np.intp)
        self._plans: dict = {}
        self._pu: np.ndarray | None = None  # the positions, uint64 (when asked for)

    def positions(self, a: int, c: int) -> np.ndarray:
        """The positions (intp) of the rows ``a .. a + c - 1``, the rows of one stream."""
        if self.pos is not None:
            return self.pos[a : a + c]
        return np.arange(c, dtype=np.intp)

    def _plan(self, per: int) -> tuple:
        plan = self._plans.get(per)
        if plan is None:
            plan = self._plans[per] = self._make_plan(per)
        return plan

    def _make_plan(self, per: int) -> tuple:
        """("dense" or "sparse", each stream's (first output, end output) among the
        call's outputs, then what the way needs): see :meth:`words`."""
        counts = np.array([c for _, _, c in self.segs], np.int64)
        starts = self.starts
        lasts = counts if self.pos is None else self.pos.take(starts + counts - 1) + 1
        n_dense = -(-lasts * per // 4)  # (streams,) outputs to the last active position
        dense = int(n_dense.sum()) * _COST_HASH
        # the words of the streams' outputs end to end are the rows' words in order
        aligned = self.pos is None and not ((counts[:-1] * per) % 4).any()
        if not aligned:
            dense += self.n * (_COST_TAKE + _COST_TAKE_WORD * per)
        if per % 4 == 0:
            sparse = self.n * per // 4 * _COST_HASH
        else:
            sparse = self.n * (1 if per == 2 else per) * (_COST_HASH + _COST_CUT)
        if self.pos is None or dense < sparse:
            bounds = np.concatenate(([0], np.cumsum(n_dense))).tolist()
            spans = list(zip(bounds, bounds[1:]))
            if aligned:
                return "dense", spans, None
            return "dense", spans, self._gather(per, np.array(bounds[:-1], np.int64))
        if self._pu is None:
            self._pu = self.pos.astype(np.uint64)
        hg, shift = _sparse_plan(self._pu, per)
        each = len(hg) // self.n  # outputs a row
        spans = [(a * each, (a + c) * each) for _, a, c in self.segs]
        return "sparse", spans, hg, shift

    def _gather(self, per: int, first: np.ndarray) -> np.ndarray:
        """Dense way: where each active row is among the call's outputs (``first``: each
        stream's first output), in units of a row when rows divide an output or are whole
        outputs (of 16, 32 or 64 bits: :func:`_rows_of`), else each word's index among the
        words (flat, intp)."""
        counts = [c for _, _, c in self.segs]
        pos = (
            np.concatenate([np.arange(c, dtype=np.intp) for c in counts])
            if self.pos is None
            else self.pos
        )
        if per in (1, 2) or per % 4 == 0:
            return pos + np.repeat(first * 4 // per, counts)
        w = pos * per + np.repeat(4 * first, counts)
        return (w[:, None] + np.arange(per)).ravel()

    def words(self, keys: list[int], per: int) -> np.ndarray:
        """The ``per`` 16-bit words of each active track (flat uint16, ``n * per``, in the
        order of the active set) at the call whose keys (one a stream of :attr:`segs`)
        are ``keys``."""
        plan = self._plan(per)
        kind, spans = plan[0], plan[1]
        z = np.empty(spans[-1][1], np.uint64)
        table = _golden_table(spans[-1][1]) if kind == "dense" else plan[2]
        for (h0, h1), key in zip(spans, keys):
            src = table[: h1 - h0] if kind == "dense" else table[h0:h1]
            np.add(src, np.uint64(key), out=z[h0:h1])
        t = np.empty(min(len(z), _CHUNK), np.uint64)
        for lo in range(0, len(z), _CHUNK):
            hi = min(lo + _CHUNK, len(z))
            _mix_into(z[lo:hi], t[: hi - lo])
        if kind == "dense":
            gather = plan[2]
            if gather is None:
                return z.view(np.uint16)[: self.n * per]
            return _rows_of(z, per, gather)
        shift = plan[3]
        if shift is None:
            return z.view(np.uint16)
        z >>= shift
        return z.astype(np.uint32).view(np.uint16) if per == 2 else z.astype(np.uint16)

    def locate(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each of ``rows`` (active-set rows, sorted): the index of its stream in
        :attr:`segs` and its position in the stream (intp)."""
        if len(self.segs) == 1:
            seg = np.zeros(len(rows), np.intp)
            pos = rows if self.pos is None else self.pos.take(rows)
            return seg, pos
        seg = np.searchsorted(self.starts, rows, side="right") - 1
        pos = rows - self.starts.take(seg) if self.pos is None else self.pos.take(rows)
        return seg, pos


def _sparse_plan(p: np.ndarray, per: int) -> tuple[np.ndarray, np.ndarray | None]:
    """Sparse way, for the rows at positions ``p`` (uint64): the indices of the outputs
    they need, times :data:`GOLDEN` (uint64), and the shift (uint64, bits) that brings
    each row's word(s) to an output's low bits (None when each row is whole outputs)."""
    g = np.uint64(GOLDEN)
    if per % 4 == 0:
        q = per // 4
        h = (p * np.uint64(q))[:, None] + np.arange(q, dtype=np.uint64) if q > 1 else p
        return h.ravel() * g, None
    if per == 2:  # a row is half an output
        return (p >> np.uint64(1)) * g, (p & np.uint64(1)) << np.uint64(5)
    w: np.ndarray = p
    if per > 1:
        w = ((p * np.uint64(per))[:, None] + np.arange(per, dtype=np.uint64)).ravel()
    return (w >> np.uint64(2)) * g, (w & np.uint64(3)) << np.uint64(4)


def _rows_of(z: np.ndarray, per: int, gather: np.ndarray) -> np.ndarray:
    """Dense way: the rows ``gather`` (:meth:`Layout._gather`) of the outputs ``z``."""
    if per == 1:
        return z.view(np.uint16).take(gather)
    if per == 2:
        return z.view(np.uint32).take(gather).view(np.uint16)
    if per % 4 == 0:
        return z.reshape(-1, per // 4).take(gather, axis=0).view(np.uint16).ravel()
    return z.view(np.uint16).take(gather)


def redraw(v: np.ndarray, bad: np.ndarray, seg: np.ndarray, index: np.ndarray, keys, limit, bits):
    """Redraw, in place, the words ``v[bad]`` (each at or above ``limit``) by their
    positions: round ``r`` (1, 2, ...) gives each word the output at its ``index``
    (uint64: ``p * per + column``, its index among its stream's words at this call) of the
    sequence keyed by ``mix64(key + r * _ROUND_GAMMA)``, ``key`` its stream's key at this
    call (``keys[seg]``, uint64); a word takes the first candidate below ``limit``: of 16
    bits, the output's four words (low bits first), then the next round's; of 64 bits
    (``bits``), the output. Several rounds at once for a few words (the same words as
    round by round)."""
    keys = np.asarray(keys, dtype=np.uint64)
    first = 1
    while len(bad):
        n_rounds = 1 if len(bad) > 4096 else 4
        rounds = np.arange(first, first + n_rounds, dtype=np.uint64) * np.uint64(_ROUND_GAMMA)
        rk = keys[:, None] + rounds  # (streams, rounds): each round's key
        _mix_into(rk, np.empty_like(rk))
        z = rk.take(seg, axis=0)  # (words, rounds)
        z += (index * np.uint64(GOLDEN))[:, None]
        _mix_into(z, np.empty_like(z))
        w = z if bits == 64 else z.view(np.uint16)  # (words, candidates), in order
        if len(bad) > 4096:  # candidate by candidate (a short axis is slow to reduce)
            pick = w[:, 0].copy()
            for c in range(1, w.shape[1]):
                redo = pick >= limit
                np.copyto(pick, w[:, c], where=redo)
            got = pick < limit
            v[bad[got]] = pick[got]
        else:
            ok = w < limit
            got = ok.any(axis=1)
            rows = np.flatnonzero(got)
            v[bad[rows]] = w[rows, ok[rows].argmax(axis=1)]  # each word's first candidate below
        left = ~got
        bad, seg, index = bad[left], seg[left], index[left]
        first += n_rounds


#: The increment between the keys of consecutive tracks of a stream (the fight loop's dice).
_TRACK_GAMMA = 0xC2B2AE3D27D4EB4F


def track_keys(stream_keys, counts) -> np.ndarray:
    """(sum(counts),) uint64: the dice key of each track of a block, stream by stream, the
    track at position ``p`` of a stream keyed ``s`` getting ``mix64(s + (p + 1) *
    gamma)`` (:mod:`simkit.fight.dice`): a function of the seed, the stream and the
    position alone."""
    out = []
    for s, c in zip(stream_keys, counts):
        z = (np.arange(1, int(c) + 1, dtype=np.uint64) * np.uint64(_TRACK_GAMMA)) + np.uint64(
            s & _MASK64
        )
        _mix_into(z, np.empty_like(z))
        out.append(z)
    return np.concatenate(out) if out else np.zeros(0, dtype=np.uint64)
