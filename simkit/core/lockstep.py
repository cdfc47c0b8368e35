"""Variants stepped together: one draw per track, one lookup per variant (issue 23).

A paired comparison (:mod:`simkit.analysis.paired`) runs two or more variants of a model
on the same positional streams: track ``i`` gets the same draw at the same call under
every variant (:mod:`simkit.core.streams`). Run one after the other, each variant draws
its own copy of those numbers. :func:`simulate_lockstep` runs them side by side instead,
block by block: at each step the block's positional source draws once for the tracks
still active under *any* variant, and each variant's kernel gets its own active tracks'
rows of that draw (through a :class:`VariantRng`, which behaves as the block's source
would in a run of that variant alone), then steps and records its tracks as the engine
does (:class:`simkit.core.engine.Ledger`).

So each variant's numbers are exactly those of ``simulate(variant, n, seed,
positional=True)`` (a test holds them equal, histograms, marks and per-track outcomes),
for the cost of one draw per track and step instead of one per variant: for a
table-driven kernel such as ``dying`` (one draw, one table lookup a step) that is most of
a run.

It applies when the variants draw alike: at every step, the same calls (method, width,
shape, dtype) in the same order, and the same number of steps taken (``k``). A kernel
whose draws depend only on its parameters and the step, not on its tracks' states, draws
alike under variants that agree on those parameters (the dying track's packed rounds:
``horizon``, ``heal_round``, the enemy's odds). Variants that draw differently raise
:class:`LockstepMismatch` as soon as it shows; the caller then runs them one after the
other (the same numbers, more draws). A model says its kernel draws by plan with the
class attribute ``lockstep = True``.
"""

from __future__ import annotations

import numpy as np

from simkit.core.engine import Ledger, Tally, block_rng, check_n, run_blocks, tally_result
from simkit.core.streams import draw_shape

__all__ = ["LockstepMismatch", "VariantRng", "run_lockstep", "simulate_lockstep"]


class LockstepMismatch(Exception):
    """The variants stepped together did not draw alike (module docs)."""


class _Draws:
    """One block's shared draws: the block's positional source, the calls made at this
    step (signature, the draw over the tracks active under any variant) and the views."""

    __slots__ = ("brng", "calls", "views")

    def __init__(self, brng) -> None:
        self.brng = brng
        self.calls: list = []
        self.views: list[VariantRng] = []

    def view(self) -> VariantRng:
        v = VariantRng(self)
        self.views.append(v)
        return v

    def end_step(self, stepped) -> None:
        """Check that every view that stepped made this step's calls (no fewer), forget
        them, and keep in the block's source only the tracks still active under some
        variant (each view's positions renumbered)."""
        for v in stepped:
            if v._calls != len(self.calls):
                raise LockstepMismatch(
                    f"the variants made {v._calls} and {len(self.calls)} draws at one step"
                )
        for v in self.views:
            v._calls = 0
        self.calls = []
        brng = self.brng
        union = brng.n_active
        if any(v._pos is None and v.n_active == union for v in self.views):
            return  # a variant still has every track: none leaves the block's source
        mask = np.zeros(union, dtype=bool)
        for v in self.views:
            if v.n_active:
                assert v._pos is not None, "a view with fewer tracks than the block has positions"
                mask[v._pos] = True
        kept = np.flatnonzero(mask)
        if len(kept) == union:
            return
        brng.compact(kept)
        # each kept track's new index (int32 where it fits: half the memory to fill)
        dtype = np.int32 if union < 2**31 else np.intp
        remap = np.empty(union, dtype=dtype)
        remap[kept] = np.arange(len(kept), dtype=dtype)
        for v in self.views:
            if v.n_active == len(kept):
                v._pos = None  # (a sorted subset of the kept tracks as long as they: all)
            elif v.n_active:
                assert v._pos is not None
                v._pos = remap.take(v._pos)
            else:
                v._pos = np.empty(0, dtype=np.intp)


class VariantRng:
    """The random source one variant's kernel sees in :func:`run_lockstep`: the block's
    positional draws, one row per track this variant still has (the methods and checks
    of :class:`~simkit.core.streams.BlockRng` in positional mode). The first variant to
    make a step's ``j``-th call draws it for every track active under any variant; the
    others take their rows of it, or raise :class:`LockstepMismatch` if their ``j``-th
    call is another (method, width, shape or dtype)."""

    __slots__ = ("_calls", "_pos", "_shared", "n_active")
    positional = True

    def __init__(self, shared: _Draws) -> None:
        self._shared = shared
        self._pos: np.ndarray | None = None  # rows in the block's active set; None: all
        self._calls = 0
        self.n_active = shared.brng.n_active

    def compact(self, kept: np.ndarray) -> None:
        """Keep this variant's tracks at ``kept`` (sorted indices into its active set)."""
        self._pos = kept if self._pos is None else self._pos.take(kept)
        self.n_active = len(self._pos)

    def _rest(self, size) -> tuple:
        return draw_shape(size, self.n_active)

    def _draw(self, sig: tuple, rest: tuple, make) -> np.ndarray:
        shared = self._shared
        j = self._calls
        if j < len(shared.calls):
            known, full = shared.calls[j]
            if known != sig:
                raise LockstepMismatch(f"the variants drew {known} and {sig} at one call")
        else:
            full = make((shared.brng.n_active,) + rest)
            shared.calls.append((sig, full))
        self._calls = j + 1
        return full if self._pos is None else full.take(self._pos, axis=0)

    def below(self, width: int, size=None, out: np.ndarray | None = None) -> np.ndarray:
        """As :meth:`simkit.core.streams.BlockRng.below`."""
        rest = self._rest(size)
        v = self._draw(("below", width, rest), rest, lambda s: self._shared.brng.below(width, s))
        if out is None:
            return v
        if out.shape != v.shape:
            raise ValueError(f"out has shape {out.shape}, the draw {v.shape}")
        out[...] = v
        return out

    def d20(self, size=None) -> np.ndarray:
        """As :meth:`simkit.core.streams.BlockRng.d20`."""
        rest = self._rest(size)
        return self._draw(("d20", rest), rest, lambda s: self._shared.brng.d20(s))

    def random(self, size=None, dtype=np.float64) -> np.ndarray:
        """As :meth:`simkit.core.streams.BlockRng.random`."""
        rest = self._rest(size)
        sig = ("random", np.dtype(dtype).str, rest)
        return self._draw(sig, rest, lambda s: self._shared.brng.random(s, dtype=dtype))

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False) -> np.ndarray:
        """As :meth:`simkit.core.streams.BlockRng.integers` (scalar bounds)."""
        rest = self._rest(size)
        if np.ndim(low) or np.ndim(high):
            raise ValueError("integers on positional streams takes scalar low and high")
        sig = ("integers", low, high, np.dtype(dtype).str, bool(endpoint), rest)
        return self._draw(
            sig,
            rest,
            lambda s: self._shared.brng.integers(low, high, s, dtype=dtype, endpoint=endpoint),
        )


def _check_models(models) -> None:
    """The variants can be stepped together at all: track models (no chain, no composite
    model) that say they draw by plan, with one horizon and one set of outcomes."""
    if not models:
        raise ValueError("lockstep needs at least one model")
    first = models[0]
    for m in models:
        if m.is_chain or hasattr(m, "run_block") or not getattr(m, "lockstep", False):
            raise LockstepMismatch(f"model {m.name!r} does not step by plan")
        if m.horizon != first.horizon or tuple(m.outcomes) != tuple(first.outcomes):
            raise LockstepMismatch("the variants differ in horizon or outcomes")


def run_lockstep(
    models, seed: int, first_stream: int, n_tracks: int, prefix=(), keep_outcomes=True
) -> list[Tally]:
    """One block of :func:`simulate_lockstep`: each model's :class:`Tally` of the
    ``n_tracks`` tracks from stream ``first_stream``, as
    ``run_tracks(model, ..., positional=True, keep_outcomes=keep_outcomes)`` gives it."""
    _check_models(models)
    brng, first_id = block_rng(seed, first_stream, n_tracks, prefix, positional=True)
    shared = _Draws(brng)
    views = [shared.view() for _ in models]
    ledgers = [
        Ledger(m, first_id, n_tracks, v, False, keep_outcomes) for m, v in zip(models, views)
    ]
    states = []
    for m, ledger, v in zip(models, ledgers, views):
        state, codes = m.init(n_tracks, v)
        states.append(ledger.absorb(state, codes, 0, 1))
    shared.end_step(views)
    t = 0  # last step completed
    horizon = models[0].horizon
    while brng.n_active and t < horizon:
        took = set()
        stepped = []
        for j, (ledger, v) in enumerate(zip(ledgers, views)):
            if v.n_active:
                states[j], k = ledger.step(states[j], t, v.n_active)
                took.add(k)
                stepped.append(v)
        if len(took) != 1:
            raise LockstepMismatch(f"the variants took {sorted(took)} steps at step {t + 1}")
        shared.end_step(stepped)
        t += took.pop()
    return [ledger.finish(s, t, v.n_active) for ledger, s, v in zip(ledgers, states, views)]


def _add_each(total: list[Tally], part: list[Tally]) -> list[Tally]:
    for a, b in zip(total, part):
        a += b
    return total


def simulate_lockstep(models, n: int, rng, *, workers: int = 1, keep_outcomes: bool = True):
    """Simulate ``n`` tracks of every model in ``models`` (variants of one model) stepped
    together on one seed's positional streams (module docs): a list of results, each
    that of ``simulate(model, n, rng, positional=True, keep_outcomes=keep_outcomes)``.

    Raises :class:`LockstepMismatch` where the variants cannot be stepped together (the
    caller runs them one by one). ``workers``: local processes over the blocks (changes
    no number).
    """
    from simkit.core.engine import DEFAULT_BLOCK
    from simkit.core.streams import resolve_seed

    models = list(models)
    _check_models(models)
    n = check_n(n)
    seed = resolve_seed(rng)
    total = run_blocks(
        lambda first, tracks: (run_lockstep, models, seed, first, tracks, (), keep_outcomes),
        n,
        DEFAULT_BLOCK,
        workers,
        None,
        _add_each,
        sendable=models,
    )
    return [tally_result(m, n, seed, t, None, keep_outcomes) for m, t in zip(models, total)]
