"""Random streams: seeds to Generators, and the per-stream view a kernel draws from.

Reproducibility contract (STYLE.md items 2-3): tracks are grouped in *streams* of
:data:`STREAM_SIZE` consecutive tracks; stream ``j`` draws from
``SeedSequence(seed, spawn_key=prefix + (j,))`` and from nothing else. A block of the
engine is a run of whole streams, and a kernel's draw for a block is the concatenation
of each stream's own draw. What a track sees therefore depends on the seed and its
stream index only, never on the block size, the number of workers or the executor.

Positional mode (``BlockRng(..., positional=True)``, ``simulate(..., positional=True)``):
the draw a track gets at a call depends only on (its stream, the call number, the track's
position within its stream), not on which other tracks are still active. At call ``c``
each lane (:data:`LANE` consecutive positions of a stream) with active tracks sets its
stream's generator to a fixed base (the stream's initial PCG64 state advanced by
``(c * LANES + lane) * 2**64`` outputs: :data:`CALL_STRIDE`), draws the rows of the lane's
positions up to its last active one and keeps the active ones; a word that
:meth:`BlockRng.below` rejects is redrawn by its position too (SplitMix64 of the lane's
key, the word's index and the round). Two variants run
in this mode on the same seed give track ``i`` the same dice at the same call, however
the variants end their other tracks: that is what pairs them (docs/paired.md). The
default mode's numbers are not changed by it.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "CALL_STRIDE",
    "LANE",
    "LANES",
    "STREAM_SIZE",
    "BlockRng",
    "point_seed",
    "resolve_seed",
    "stream_generator",
]

#: Tracks per independent random stream. Part of the reproducibility contract: changing
#: it changes every simulated number.
STREAM_SIZE = 2**16

#: Positional mode: PCG64 outputs between consecutive bases of a stream (one lane's draw
#: at one call takes far fewer outputs than this).
CALL_STRIDE = 2**64
#: Positional mode: positions per lane. A stream's positions are cut into lanes, and at
#: each call every lane with active tracks draws from its own base, for its positions up
#: to its last active one: a stream with few active tracks draws little.
LANE = 2**13
#: Lanes per stream.
LANES = STREAM_SIZE // LANE


def resolve_seed(rng) -> int:
    """Turn the ``rng`` argument into an integer seed that reproduces the run.

    ``None`` draws fresh OS entropy; an ``int`` is used as is; a ``SeedSequence``
    gives its entropy; a :class:`numpy.random.Generator` gives one 63-bit draw (so
    the same Generator state gives the same run, and the run records a seed that
    replays it).
    """
    if rng is None:
        entropy = np.random.SeedSequence().entropy
        assert isinstance(entropy, int), "a fresh SeedSequence draws an int"
        return entropy
    if isinstance(rng, (bool, np.bool_)):
        raise TypeError(f"rng must be None, an int seed or a numpy Generator, got {rng!r}")
    if isinstance(rng, (int, np.integer)):
        if rng < 0:
            raise ValueError(f"rng (seed) must be a non-negative integer, got {rng}")
        return int(rng)
    if isinstance(rng, np.random.SeedSequence):
        if rng.spawn_key:
            raise ValueError("rng: pass a root SeedSequence (without spawn_key) or an int seed")
        if not isinstance(rng.entropy, (int, np.integer)):
            raise ValueError("rng: pass a SeedSequence made from one integer, or an int seed")
        return int(rng.entropy)
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(0, 2**63))
    raise TypeError(f"rng must be None, an int seed or a numpy Generator, got {type(rng).__name__}")


def stream_generator(seed: int, index: int, prefix: tuple[int, ...] = ()) -> np.random.Generator:
    """The Generator of stream ``index`` (under ``prefix``) for ``seed``."""
    ss = np.random.SeedSequence(seed, spawn_key=tuple(prefix) + (int(index),))
    return np.random.Generator(np.random.PCG64(ss))


class BlockRng:
    """The random source a kernel sees for one block: several streams side by side.

    The active tracks of a block are stored stream by stream, in order, and stay so
    as tracks leave (compaction keeps order). A draw of ``size=m`` or ``size=(m, k)``
    with ``m`` the number of active tracks is made stream by stream, each stream
    drawing its own rows. Kernels must only draw arrays whose first axis is the
    active set; a draw of any other length raises.

    ``positional=True``: each call draws from a fixed base per (stream, call number, lane)
    and gives each active track the row of its position within the stream (module docs),
    so a track's draws do not depend on which other tracks are still active. Costs, per
    call, a generator reset for each lane with active tracks and a draw of its positions
    up to its last active one.
    """

    __slots__ = (
        "_bases",
        "_call",
        "_counts",
        "_gens",
        "_pairs",
        "_pos",
        "_segs",
        "n_active",
        "positional",
    )

    def __init__(self, gens: list[np.random.Generator], counts, positional: bool = False):
        self._gens = list(gens)
        self.positional = bool(positional)
        counts = np.asarray(counts, dtype=np.int64)
        if self.positional:
            self._bases = [g.bit_generator.state for g in self._gens]
            self._call = 0
            # (n_active,) intp: each active track's position within its stream; None while
            # no track has left (position = index within the stream's rows)
            self._pos: np.ndarray | None = None
            self._segs: list | None = None
        self._set_counts(counts)

    def _set_counts(self, counts: np.ndarray) -> None:
        self._counts = counts
        self._pairs = [(g, int(c)) for g, c in zip(self._gens, counts) if c]
        self.n_active = int(counts.sum())

    def _split(self, size):
        shape = (size,) if np.ndim(size) == 0 else tuple(size)
        if shape[0] != self.n_active:
            raise ValueError(
                f"kernel drew {shape[0]} rows but {self.n_active} tracks are active: "
                "draws must have one row per active track"
            )
        return shape[1:]

    def _segments(self) -> list:
        """(stream, lane, active positions within the lane) of every lane with active
        tracks, in the order of the active set (kept until the next compaction)."""
        if self._segs is None:
            segs = []
            pos = 0
            for j, c in enumerate(self._counts):
                c = int(c)
                if not c:
                    continue
                if self._pos is None:  # every track of the stream, in order
                    for lane in range(-(-c // LANE)):
                        segs.append((j, lane, _identity(min(LANE, c - lane * LANE))))
                else:
                    p = self._pos[pos : pos + c]
                    cuts = np.searchsorted(p, np.arange(0, STREAM_SIZE + LANE, LANE))
                    for k in np.flatnonzero(np.diff(cuts)).tolist():
                        segs.append((j, k, p[cuts[k] : cuts[k + 1]] - k * LANE))
                pos += c
            self._segs = segs
        return self._segs

    def _placed(self):
        """Positional mode, one call: yields (generator at the base of this call and lane,
        the active positions within the lane) lane by lane, in the order of the active
        set, each generator set just before it is yielded; advances the call number."""
        call = self._call
        self._call += 1
        for j, lane, p in self._segments():
            bg = self._gens[j].bit_generator
            bg.state = self._bases[j]
            step = call * LANES + lane
            if step:
                bg.advance(step * CALL_STRIDE)
            key = _mix64(int(self._bases[j]["state"]["state"]) ^ (step * _GOLDEN))
            yield self._gens[j], p, key

    def _draw(self, fn_name: str, size, *args, **kwargs) -> np.ndarray:
        rest = self._split(size)
        if self.positional:
            parts = []
            for g, p, _ in self._placed():
                full = getattr(g, fn_name)(*args, size=(int(p[-1]) + 1,) + rest, **kwargs)
                parts.append(full if len(full) == len(p) else full.take(p, axis=0))
        else:
            parts = [getattr(g, fn_name)(*args, size=(c,) + rest, **kwargs) for g, c in self._pairs]
        if not parts:
            return getattr(self._gens[0], fn_name)(*args, size=(0,) + rest, **kwargs)
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        """Like :meth:`numpy.random.Generator.integers`, one row per active track."""
        return self._draw("integers", size, low, high, dtype=dtype, endpoint=endpoint)

    def random(self, size=None, dtype=np.float64):
        """Like :meth:`numpy.random.Generator.random`, one row per active track."""
        return self._draw("random", size, dtype=dtype)

    def d20(self, size=None) -> np.ndarray:
        """Natural d20 rolls (uint8, 1..20), one row per active track."""
        return self._draw("integers", size, 1, 21, dtype=np.uint8)

    def below(self, width: int, size=None, out: np.ndarray | None = None) -> np.ndarray:
        """Exactly uniform integers in ``[0, width)`` (uint16), one row per active track.

        For ``width <= 65536``: 16-bit words from the streams' raw bits, words at or
        above the largest multiple of ``q = 65536 // width`` redrawn (rejection, so no
        bias), then divided by ``q`` (a shift when ``q`` is a power of two). About
        twice as fast as ``integers`` for the base-20 packed rolls of the kernels.

        ``out``: an array of shape ``size`` (any integer dtype, any strides, e.g. a column
        of a larger array) that receives the draw, stream by stream, and is returned;
        the numbers are those of the same call without ``out``.
        """
        if not 1 <= width <= 65536:
            raise ValueError(f"width must be in [1, 65536], got {width}")
        rest = self._split(size)
        per = int(np.prod(rest, dtype=np.int64)) if rest else 1
        q = 65536 // width
        limit = q * width
        shift = q.bit_length() - 1 if q & (q - 1) == 0 else None

        def scaled(v: np.ndarray, dest=None) -> np.ndarray:
            if shift is not None:
                return np.right_shift(v, np.uint16(shift), out=dest)
            return np.floor_divide(v, np.uint16(q), out=dest)

        if self.positional:
            v = _below_lanes(self._placed(), per, limit)
            raw = [(v.reshape((self.n_active,) + rest), self.n_active)] if len(v) else []
        else:
            raw = [(_below(g, c * per, limit).reshape((c,) + rest), c) for g, c in self._pairs]
        if out is not None:
            if out.shape != (self.n_active,) + rest:
                raise ValueError(f"out has shape {out.shape}, the draw {(self.n_active,) + rest}")
            pos = 0
            for v, c in raw:
                if out.dtype == np.uint16:
                    scaled(v, out[pos : pos + c])
                else:
                    out[pos : pos + c] = scaled(v)
                pos += c
            return out
        parts = [v for v, _ in raw]
        v = (
            parts[0]
            if len(parts) == 1
            else (np.concatenate(parts) if parts else np.empty((0,) + rest, np.uint16))
        )
        return scaled(v)

    def compact(self, kept: np.ndarray) -> None:
        """Keep only the tracks at positions ``kept`` (sorted indices into the active set)."""
        bounds = np.concatenate(([0], np.cumsum(self._counts)))
        counts = np.diff(np.searchsorted(kept, bounds)).astype(np.int64)
        if self.positional:
            if self._pos is None:  # index within the block minus its stream's first index
                self._pos = kept - np.repeat(bounds[:-1], counts)
            else:
                self._pos = self._pos[kept]
            self._segs = None
        self._set_counts(counts)


_IDENTITY: list[np.ndarray] = []


def _identity(c: int) -> np.ndarray:
    """``arange(c)`` (intp), a read-only slice of one array kept for the stream size."""
    if not _IDENTITY or len(_IDENTITY[0]) < c:
        ident = np.arange(max(c, STREAM_SIZE), dtype=np.intp)
        ident.setflags(write=False)
        _IDENTITY[:] = [ident]
    return _IDENTITY[0][:c]


def _words(gen: np.random.Generator, count: int) -> np.ndarray:
    return gen.bit_generator.random_raw((count + 3) // 4).view(np.uint16)[:count]


def _below(gen: np.random.Generator, count: int, limit: int) -> np.ndarray:
    """``count`` 16-bit words uniform on ``[0, limit)`` by rejection (one stream)."""
    v = _words(gen, count)
    if limit == 65536 or not count:
        return v
    if (
        count * (65536 - limit) < 65536 and v.max() < limit
    ):  # (a short run: likely no word to redraw)
        return v
    bad = np.flatnonzero(v >= limit)
    while len(bad):
        w = _words(gen, len(bad))
        v[bad] = w
        bad = bad[w >= limit]
    return v


def _below_at(
    gen: np.random.Generator, pos: np.ndarray, per: int, limit: int, key: int
) -> np.ndarray:
    """Positional mode, one lane (the lane-by-lane reference of :func:`_below_lanes`, which
    :meth:`BlockRng.below` uses): ``per`` words for each position of ``pos`` (sorted),
    uniform on ``[0, limit)``: the words of positions ``0..pos[-1]`` from ``gen``, the rows
    of ``pos`` kept, then each word at or above ``limit`` redrawn by position as well: the
    16 top bits of SplitMix64 of ``key`` (this lane and call), the word's index in the lane
    and the round (flat, ``(len(pos) * per,)``)."""
    last = int(pos[-1]) + 1
    v = _words(gen, last * per)
    if last != len(pos):
        v = v.reshape(last, per).take(pos, axis=0).reshape(-1) if per > 1 else v.take(pos)
    if limit == 65536:
        return v
    bad = np.flatnonzero(v >= limit)
    if not len(bad):
        return v
    # (bad,) uint64: each bad word's index in the lane's draw (position * per + column)
    where = pos.astype(np.uint64).repeat(per)[bad] * np.uint64(per) if per > 1 else None
    flat = (
        where + (bad % per).astype(np.uint64)
        if where is not None
        else pos.take(bad).astype(np.uint64)
    )
    round_ = 0
    while len(bad):
        round_ += 1
        w = _splitmix_words(key, flat, round_)
        v[bad] = w
        ok = w < limit
        bad, flat = bad[~ok], flat[~ok]
    return v


def _below_lanes(placed, per: int, limit: int) -> np.ndarray:
    """:func:`_below_at` for every lane of one call at once, the same words: each lane's
    words drawn from its generator as :meth:`BlockRng._placed` yields it (set at the
    lane's base: it draws before the next lane of its stream sets it again), then the
    words to redraw found and redrawn over all lanes together (one SplitMix64 pass a
    round, each word with its lane's key) instead of lane by lane. Returns the lanes'
    words one after the other (flat, uint16: ``per`` words for each active track, in the
    order of the active set)."""
    parts: list = []
    pos_of: list = []
    keys_of: list = []
    for gen, pos, key in placed:
        last = int(pos[-1]) + 1
        v = _words(gen, last * per)
        if last != len(pos):
            v = v.reshape(last, per).take(pos, axis=0).reshape(-1) if per > 1 else v.take(pos)
        parts.append(v)
        pos_of.append(pos)
        keys_of.append(key)
    if not parts:
        return np.empty(0, np.uint16)
    words = parts[0] if len(parts) == 1 else np.concatenate(parts)
    if limit == 65536:
        return words
    bad = np.flatnonzero(words >= limit)
    if not len(bad):
        return words
    sizes = np.fromiter((len(v) for v in parts), np.int64, len(parts))
    starts = np.cumsum(sizes) - sizes  # (lanes,) first word of each lane in ``words``
    lane = np.searchsorted(starts, bad, side="right") - 1  # (bad,) each bad word's lane
    local = bad - starts.take(lane)  # (bad,) its index among its lane's kept words
    row = local // per if per > 1 else local
    if len(parts) == 1:
        pos = pos_of[0].take(row)
    else:
        row_starts = np.cumsum(sizes // per) - sizes // per
        pos = np.concatenate(pos_of).take(row_starts.take(lane) + row)
    # (bad,) uint64: each bad word's index in its lane's draw (position * per + column)
    flat = pos.astype(np.uint64)
    if per > 1:
        flat = flat * np.uint64(per) + (local % per).astype(np.uint64)
    keys = np.array(keys_of, dtype=np.uint64).take(lane)
    round_ = 0
    while len(bad):
        round_ += 1
        w = _splitmix_words_keyed(keys, flat, round_)
        words[bad] = w
        ok = w < limit
        bad, flat, keys = bad[~ok], flat[~ok], keys[~ok]
    return words


def _splitmix_words_keyed(keys: np.ndarray, index: np.ndarray, round_: int) -> np.ndarray:
    """:func:`_splitmix_words` with a key per word (``keys``, uint64 like ``index``): the
    same words, the keys' SplitMix64 finaliser in uint64 (it wraps as the Python one
    masks)."""
    k = keys + np.uint64((round_ * 0xD1B54A32D192ED03) & _MASK64)
    k ^= k >> np.uint64(30)
    k *= np.uint64(0xBF58476D1CE4E5B9)
    k ^= k >> np.uint64(27)
    k *= np.uint64(0x94D049BB133111EB)
    k ^= k >> np.uint64(31)
    z = index * np.uint64(_GOLDEN)
    z += k
    z ^= z >> np.uint64(30)
    z *= np.uint64(0xBF58476D1CE4E5B9)
    z ^= z >> np.uint64(27)
    z *= np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return (z >> np.uint64(48)).astype(np.uint16)


_GOLDEN = 0x9E3779B97F4A7C15
_MASK64 = (1 << 64) - 1


def _mix64(z: int) -> int:
    """SplitMix64's finaliser on a Python int (64 bits)."""
    z &= _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def _splitmix_words(key: int, index: np.ndarray, round_: int) -> np.ndarray:
    """16-bit words (uint16), one per ``index`` (uint64): the top bits of SplitMix64 of
    ``key``, the index and the round (a redraw that depends on its position only)."""
    z = index * np.uint64(_GOLDEN)
    z += np.uint64(_mix64(key + round_ * 0xD1B54A32D192ED03))
    z ^= z >> np.uint64(30)
    z *= np.uint64(0xBF58476D1CE4E5B9)
    z ^= z >> np.uint64(27)
    z *= np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return (z >> np.uint64(48)).astype(np.uint16)


def point_seed(seed: int, params: dict) -> int:
    """A seed for one grid point, from the run's seed and the point's parameters.

    It depends on the parameter values, not on the point's position in a grid, so
    adding points to a grid leaves the others' numbers unchanged.
    """
    import hashlib
    import json

    text = json.dumps({k: params[k] for k in sorted(params)}, sort_keys=True, default=str)
    digest = hashlib.sha256(f"{int(seed)}|{text}".encode()).digest()
    return int.from_bytes(digest[:8], "little") >> 1
