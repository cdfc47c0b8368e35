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
each stream with active tracks sets its generator to a fixed base (its initial PCG64 state
advanced by ``c * 2**64`` outputs: :data:`CALL_STRIDE`), draws the rows of positions
``0..last active position`` and keeps the active ones; the words that :meth:`BlockRng.below`
rejects are redrawn after that, from the same generator (so a redraw, rare for the widths
the kernels use, is the one part that still depends on the active set). Two variants run
in this mode on the same seed give track ``i`` the same dice at the same call, however
the variants end their other tracks: that is what pairs them (docs/paired.md). The
default mode's numbers are not changed by it.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "CALL_STRIDE",
    "STREAM_SIZE",
    "BlockRng",
    "point_seed",
    "resolve_seed",
    "stream_generator",
]

#: Tracks per independent random stream. Part of the reproducibility contract: changing
#: it changes every simulated number.
STREAM_SIZE = 2**16

#: Positional mode: PCG64 outputs between the bases of consecutive calls of a stream (one
#: call draws at most ``STREAM_SIZE`` rows, far fewer outputs than this).
CALL_STRIDE = 2**64


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

    ``positional=True``: each call draws from a fixed base per (stream, call number) and
    gives each active track the row of its position within the stream (module docs), so
    a track's draws do not depend on which other tracks are still active. Costs a draw
    of every position up to the last active one of each stream, per call.
    """

    __slots__ = ("_bases", "_call", "_counts", "_gens", "_pairs", "_pos", "n_active", "positional")

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

    def _placed(self):
        """Positional mode, one call: (generator at this call's base, active positions)
        per stream with active tracks, in order; advances the call number."""
        call = self._call
        self._call += 1
        out = []
        pos = 0
        for g, base, c in zip(self._gens, self._bases, self._counts):
            c = int(c)
            if not c:
                continue
            bg = g.bit_generator
            bg.state = base
            if call:
                bg.advance(call * CALL_STRIDE)
            p = _identity(c) if self._pos is None else self._pos[pos : pos + c]
            out.append((g, p))
            pos += c
        return out

    def _draw(self, fn_name: str, size, *args, **kwargs) -> np.ndarray:
        rest = self._split(size)
        if self.positional:
            parts = []
            for g, p in self._placed():
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
            raw = [
                (_below_at(g, p, per, limit).reshape((len(p),) + rest), len(p))
                for g, p in self._placed()
            ]
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


def _below_at(gen: np.random.Generator, pos: np.ndarray, per: int, limit: int) -> np.ndarray:
    """Positional mode, one stream: ``per`` words for each position of ``pos`` (sorted),
    uniform on ``[0, limit)``: the words of positions ``0..pos[-1]`` from ``gen``, the rows
    of ``pos`` kept, then those at or above ``limit`` redrawn from ``gen`` (flat, ``(len(pos)
    * per,)``)."""
    last = int(pos[-1]) + 1
    v = _words(gen, last * per)
    if last != len(pos):
        v = v.reshape(last, per).take(pos, axis=0).reshape(-1) if per > 1 else v.take(pos)
    if limit == 65536:
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
