"""Random streams: seeds to Generators, and the per-stream view a kernel draws from.

Reproducibility contract (STYLE.md items 2-3): tracks are grouped in *streams* of
:data:`STREAM_SIZE` consecutive tracks; stream ``j`` draws from
``SeedSequence(seed, spawn_key=prefix + (j,))`` and from nothing else. A block of the
engine is a run of whole streams, and a kernel's draw for a block is the concatenation
of each stream's own draw. What a track sees therefore depends on the seed and its
stream index only, never on the block size, the number of workers or the executor.

Positional mode (``BlockRng(..., positional=True)``, ``simulate(..., positional=True)``):
the draw a track gets at a call depends only on (its stream, the call number, the track's
position within its stream), not on which other tracks are still active. Its words are
counter-based (:mod:`simkit.core.counter`): SplitMix64 outputs keyed by the stream and
the call, at indices given by the track's position, computed for the active tracks only;
a word that :meth:`BlockRng.below` rejects is redrawn by its position too. Two variants
run in this mode on the same seed give track ``i`` the same dice at the same call,
however the variants end their other tracks: that is what pairs them (docs/paired.md).
The default mode's numbers are not changed by it.
"""

from __future__ import annotations

import math

import numpy as np

from simkit.core import counter

__all__ = [
    "STREAM_SIZE",
    "BlockRng",
    "draw_shape",
    "point_seed",
    "resolve_seed",
    "stream_generator",
]

#: Tracks per independent random stream. Part of the reproducibility contract: changing
#: it changes every simulated number.
STREAM_SIZE = 2**16


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

    ``positional=True``: each active track's draw at a call is a function of its stream,
    the call number and its position within the stream alone (counter-based words,
    :mod:`simkit.core.counter`), computed for the active tracks only, so it does not
    depend on which other tracks are still active. ``integers`` then takes scalar bounds.
    """

    __slots__ = (
        "_call",
        "_counts",
        "_gens",
        "_keys",
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
            self._keys = [counter.stream_key(g) for g in self._gens]
            self._call = 0
            # (n_active,) intp: each active track's position within its stream; None while
            # no track has left (position = index within the stream's rows)
            self._pos: np.ndarray | None = None
            self._segs: counter.Layout | None = None
        self._set_counts(counts)

    def _set_counts(self, counts: np.ndarray) -> None:
        self._counts = counts
        self._pairs = [(g, int(c)) for g, c in zip(self._gens, counts) if c]
        self.n_active = int(counts.sum())

    def _split(self, size):
        return draw_shape(size, self.n_active)

    def _layout(self) -> counter.Layout:
        """Positional mode: the active tracks by stream (kept until the next compaction)."""
        if self._segs is None:
            self._segs = counter.Layout(self._counts.tolist(), self._pos)
        return self._segs

    def _words(self, per: int) -> tuple[np.ndarray, np.ndarray]:
        """Positional mode, one call: ``per`` 16-bit words for each active track (flat
        uint16, in the order of the active set: :meth:`counter.Layout.words`) and each
        stream's key at this call (uint64, one a stream with active tracks); advances
        the call number."""
        call = self._call
        self._call += 1
        layout = self._layout()
        keys = [counter.call_key(self._keys[j], call) for j, _, _ in layout.segs]
        return layout.words(keys, per), np.array(keys, dtype=np.uint64)

    def _redraw(self, v: np.ndarray, keys: np.ndarray, per: int, limit, bits: int) -> None:
        """Positional mode: redraw, in place, each word of ``v`` (``per`` a track, flat, as
        :meth:`_words` gives them; ``bits`` 16 or 64) at or above ``limit`` by its position
        (:func:`counter.redraw`: from its stream's key at this call and its index ``p *
        per + column`` among its stream's words)."""
        if v.max() < limit:  # (a reduction: no word to redraw, the likely case for few)
            return
        bad = np.flatnonzero(v >= limit)
        seg, pos = self._layout().locate(bad // per if per > 1 else bad)
        index = pos.astype(np.uint64)
        if per > 1:
            index *= np.uint64(per)
            index += (bad % per).astype(np.uint64)
        counter.redraw(v, bad, seg, index, keys, limit, bits)

    def _words64(self, per: int) -> tuple[np.ndarray, np.ndarray]:
        """Positional mode, one call: ``per`` 64-bit words for each active track, (n, per)
        uint64: the call's 16-bit words four by four (a word of 64 bits is one output)."""
        v, keys = self._words(4 * per)
        return v.view(np.uint64).reshape(self.n_active, per), keys

    def _draw_positional(self, fn_name: str, size, *args, **kwargs) -> np.ndarray:
        rest = self._split(size)
        per = int(math.prod(rest))
        shape = (self.n_active,) + rest
        if fn_name == "random":
            dtype = np.dtype(kwargs.get("dtype", np.float64))
            z, _ = self._words64(per)
            if dtype == np.float64:  # 53 bits, as numpy's Generator.random
                out = np.right_shift(z, np.uint64(11)).astype(np.float64)
                out *= 2.0**-53
            elif dtype == np.float32:
                out = np.right_shift(z, np.uint64(40)).astype(np.float32)
                out *= np.float32(2.0**-24)
            else:
                raise TypeError(f"random: dtype must be float64 or float32, got {dtype}")
            return out.reshape(shape)
        low, high = args
        dtype = np.dtype(kwargs.get("dtype", np.int64))
        if high is None:
            low, high = 0, low
        if np.ndim(low) or np.ndim(high):
            raise ValueError("integers on positional streams takes scalar low and high")
        low, high = int(low), int(high) + bool(kwargs.get("endpoint", False))
        width = high - low
        if not 1 <= width <= 2**64:
            raise ValueError(f"integers: high - low must be in [1, 2**64], got {width}")
        if width <= 65536:
            v = self.below(width, shape)
            return v.astype(dtype) + dtype.type(low) if low else v.astype(dtype)
        z, keys = self._words64(per)
        z = z.reshape(-1)
        if width & (width - 1):  # not a power of two: words at or above the limit redrawn
            self._redraw(z, keys, per, np.uint64((2**64 // width) * width), 64)
            np.remainder(z, np.uint64(width), out=z)
        elif width < 2**64:
            np.bitwise_and(z, np.uint64(width - 1), out=z)
        z += np.uint64(low & (2**64 - 1))  # wraps to the value when low < 0
        return (z.view(np.int64) if low < 0 else z).astype(dtype).reshape(shape)

    def _draw(self, fn_name: str, size, *args, **kwargs) -> np.ndarray:
        if self.positional:
            return self._draw_positional(fn_name, size, *args, **kwargs)
        rest = self._split(size)
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
        if self.positional:
            v = self.below(20, size).astype(np.uint8)
            v += np.uint8(1)
            return v
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
        per = int(math.prod(rest))
        q = 65536 // width
        limit = q * width
        shift = q.bit_length() - 1 if q & (q - 1) == 0 else None

        def scaled(v: np.ndarray, dest=None) -> np.ndarray:
            if shift is not None:
                return np.right_shift(v, np.uint16(shift), out=dest)
            return np.floor_divide(v, np.uint16(q), out=dest)

        if self.positional:
            v, keys = self._words(per)
            if limit != 65536 and len(v):
                self._redraw(v, keys, per, limit, 16)
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

    def track_keys(self) -> np.ndarray:
        """(n_active,) uint64: each track's dice key for a loop that draws by counter
        (:func:`simkit.core.counter.track_keys`): a function of the seed, the stream and the
        track's position in it. Asked for before any track has left the block."""
        if getattr(self, "_pos", None) is not None:
            raise RuntimeError("track_keys: asked for after tracks left the block")
        keys = [counter.stream_key(g) for g in self._gens]
        return counter.track_keys(keys, self._counts.tolist())

    def compact(self, kept: np.ndarray) -> None:
        """Keep only the tracks at positions ``kept`` (sorted indices into the active set)."""
        bounds = np.concatenate(([0], np.cumsum(self._counts)))
        counts = np.diff(np.searchsorted(kept, bounds)).astype(np.int64)
        if self.positional:
            if self._pos is None:  # index within the block minus its stream's first index
                self._pos = kept - np.repeat(bounds[:-1], counts)
            else:
                self._pos = self._pos.take(kept)
            self._segs = None
        self._set_counts(counts)


def draw_shape(size, n_active: int) -> tuple:
    """The shape of one active track's draw (``size`` without its first axis), checking
    that the draw has one row per active track (a kernel's draws must)."""
    if type(size) is tuple:
        shape = size
    else:
        shape = (size,) if np.ndim(size) == 0 else tuple(size)
    if shape[0] != n_active:
        raise ValueError(
            f"kernel drew {shape[0]} rows but {n_active} tracks are active: "
            "draws must have one row per active track"
        )
    return shape[1:]


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
