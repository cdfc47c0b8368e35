"""The party fight through the compiled fight loop (``Party(...)``, ``engine="loop"``, the
default since 0.4.0).

Issue 28, first stage: :mod:`simkit.fight` plays the party's fight one track at a time,
compiled, with dice by counter; this module is how the :class:`~simkit.models.party.Party`
model hands a block to it and reads it back for the engine (:mod:`simkit.core.engine`):

- :func:`init` plays the whole block at once (:func:`simkit.fight.block.run`), each track
  from its dice key (:meth:`simkit.core.streams.BlockRng.track_keys`) and its start, and
  gives the engine the tracks that ended at step 0;
- :func:`step` gives it the rest in one call (the engine's several-steps contract: a track
  that ends at round ``r`` has code ``outcome + 4 (r - 1)``);
- :func:`carry` hands the end states on (``keep_state``) as a
  :class:`~simkit.models.fight_state.FightStart`.

Several lineups (``Party.with_lineups``, a start's ``fight``) and a check penalty per track
(a start's ``check_penalty``) are tables over (fight, slot) and (penalty, PC): the loop
reads each track's. The vectorised kernel of 0.3 (``engine="kernel"``) was retired; this
is the party's only Monte Carlo.
"""

from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import numpy as np

from simkit.core.params import ParamError
from simkit.fight import block, tables, tables_con
from simkit.fight.loop import CARRIED
from simkit.fight.state import (
    COND,
    DEAD,
    DYING,
    HEALS,
    HERO,
    HP,
    HP_MAX,
    LOW,
    MARKS,
    MASSIVE,
    NIGHT_HP,
    PE,
    PE_MAX,
    PP,
    SLOTS,
    STABLE,
    UP,
    WOUNDED,
)
from simkit.models.fight_state import FightStart
from simkit.rules.massive_damage import is_massive
from simkit.rules.pf2e import bestiary

__all__ = [
    "absorb_counts",
    "care_ends",
    "carry",
    "fight_ends",
    "fight_into",
    "handed_on",
    "init",
    "packed",
    "start_fields",
    "step",
]


@lru_cache(maxsize=64)
def packed(rules, pens: tuple[int, ...] | None = None) -> np.ndarray:
    """The packed tables of ``rules``' fight, for the check penalties ``pens`` (None: the
    rules' own), cached."""
    return tables.pack(tables.build(rules, pens))


def _massive_at(hp_max: np.ndarray) -> np.ndarray:
    """The least damage that kills outright at each maximum HP (R0-13,
    :func:`~simkit.rules.massive_damage.is_massive`), by bisection over the array."""
    lo = np.ones_like(hp_max)
    hi = np.maximum(1, 4 * hp_max + 2)
    while (lo < hi).any():
        mid = (lo + hi) // 2
        yes = np.asarray(is_massive(mid, hp_max))  # type: ignore[arg-type]
        hi = np.where(yes, mid, hi)
        lo = np.where(yes, lo, mid + 1)
    return lo


def _of_maxima(rules, maxima: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What follows from each maximum HP of ``maxima`` (int64): the least damage that kills
    outright (R0-13), the HP at or below which a cleric heals (AP-5: ``heal_below``), the
    HP after a night with no hourly result (R1-07)."""
    return (
        _massive_at(maxima),
        np.floor(rules.heal_below * maxima).astype(np.int64),
        tables_con.night_hp(rules, maxima),
    )


def _unique(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(a, return_inverse=True)``, the inverse in ``a``'s shape or, when every
    row of ``a`` is its first (a day's tracks mostly are: the same maximum HP, the same
    check penalty), in the shape of one row (it broadcasts): no sort of every track."""
    a = np.asarray(a)
    if len(a) and (a == a[:1]).all():
        values = np.unique(a[0])
        return values, np.searchsorted(values, a[0])
    values, at = np.unique(a, return_inverse=True)
    return values, at.reshape(a.shape)


def _starts(rules, start: FightStart, knocked: np.ndarray | None = None) -> np.ndarray:
    """(n, P, len(CARRIED)) int32: the PCs' fields of ``start`` in the loop's order (a
    view of a field-by-field array: :func:`simkit.fight.block.run` does not copy it); a
    dead PC stays dead (R0-15), an alive one at 0 HP begins stable; one ``knocked`` (n, P)
    (a care's, :func:`care_ends`) is marked ``DYING`` at 0 HP."""
    hp_max = np.asarray(start.hp_max)
    dead = np.asarray(start.dead, dtype=bool)
    hp = np.where(dead, 0, np.asarray(start.hp))
    if knocked is not None:
        knocked = np.asarray(knocked, dtype=bool) & ~dead
        hp = np.where(knocked, 0, hp)
    # what follows from a maximum HP, once per distinct maximum (a block holds few)
    maxima, at = _unique(hp_max)
    maxima = maxima.astype(np.int64)
    cond = np.full(hp.shape, UP, dtype=np.int32)
    cond[hp <= 0] = STABLE
    cond[dead] = DEAD
    if knocked is not None:
        cond[knocked] = DYING
    massive, low, night = _of_maxima(rules, maxima)
    fields = {
        HP: hp,
        HP_MAX: hp_max,
        MASSIVE: massive[at],
        LOW: low[at],
        HERO: start.hero,
        SLOTS: start.slots,
        HEALS: start.heals,
        WOUNDED: start.wounded,
        COND: cond,
        PP: start.pp,
        PE: start.pe,
        PE_MAX: start.pe_max,
        NIGHT_HP: night[at],
    }
    by_field = np.empty((len(CARRIED),) + hp.shape, dtype=np.int32)  # (the loop's layout)
    for i, f in enumerate(CARRIED):
        by_field[i] = fields[f]
    return by_field.transpose(1, 2, 0)


def _run(
    rules,
    keys: np.ndarray,
    start,
    knocked: np.ndarray | None = None,
    keep: bool = True,
    starts: np.ndarray | None = None,
    ends_out: np.ndarray | None = None,
):
    """The block of ``keys`` played from ``start`` (a :class:`FightStart`; None: fresh):
    ``(out, ends)`` of :func:`simkit.fight.block.run`, on the tables of the start's check
    penalties; with ``knocked`` (n, P), the care of those PCs (:func:`care_ends`); ``keep``
    False: no ``ends``. ``starts``: the PCs' fields already laid out (:func:`_starts`'
    form; ``start`` then gives only ``check_penalty`` and ``fight``); ``ends_out``: where
    the end states are written (:func:`simkit.fight.block.run`)."""
    if start is None:
        return block.run(packed(rules), keys, rules.horizon, keep=keep, ends_out=ends_out)
    pens, pen_ix = _unique(start.check_penalty)
    fights = np.asarray(start.fight)
    if fights.size and (fights.min() < 0 or fights.max() >= rules.n_fights):
        bad = int(fights.max() if fights.max() >= rules.n_fights else fights.min())
        raise ParamError(
            f"start: fight must be in [0, {rules.n_fights - 1}] (the rules' lineups), got {bad}"
        )
    T = packed(rules, tuple(int(p) for p in pens))
    # one penalty, one lineup for every track: their (1,) forms (no per-track array)
    each_pen = None if len(pens) == 1 else pen_ix
    if fights.size and (fights == fights[:1]).all():
        fights = fights[:1]
    if starts is None:
        starts = _starts(rules, start, knocked)
    care = knocked is not None
    return block.run(
        T, keys, rules.horizon, starts, fights, each_pen, care=care, keep=keep, ends_out=ends_out
    )


def init(rules, n: int, rng, start: FightStart | None = None, keep: bool = True):
    """``(state, codes)`` of a block of ``n`` tracks at step 0 (the engine's ``init``): the
    whole block is played now; :func:`step` hands the engine the rest. ``keep`` False:
    the engine will not ask for :func:`carry`, so the end states are not made."""
    if start is not None and (len(start) != n or start.n_pcs != rules.n_pcs):
        raise ParamError(
            f"start must hold {n} tracks of {rules.n_pcs} PCs, got {len(start)} of {start.n_pcs}"
        )
    keys = rng.track_keys()
    drawn = None if start is not None else bestiary.track_fights(rules, rng)
    if drawn is not None:  # a bestiary lineup (AP-19): each fresh track's own
        out, ends = block.run(packed(rules), keys, rules.horizon, None, drawn, keep=keep)
    else:
        out, ends = _run(rules, keys, start, keep=keep)
    # ``ends`` (a view of field-by-field arrays) is not a per-track array of the state: the
    # engine's compaction would gather it row by row; ``row`` (each track's row in it) moves
    # instead
    state = {"out": out, "row": np.arange(n), **block.marks_of(out)}
    if keep:
        state["ends"] = (ends,)
    if start is not None:  # (handed on by carry; a fresh block's are the rules' own)
        state["penalty"] = np.asarray(start.check_penalty, dtype=np.int32)
        state["fight"] = np.asarray(start.fight, dtype=np.int32)
    elif drawn is not None:
        state["fight"] = drawn
    return state, block.step_codes(out, len(rules.outcomes), 0)


def step(rules, state, t: int, rng):
    """The tracks still going, as the block's run ended them: ``(codes, k)`` (the engine's
    several-steps contract: a track that ends at round ``r`` has code ``outcome + 4 (r - t)``)."""
    out = state["out"]
    state.update(block.marks_of(out))
    return block.step_codes(out, len(rules.outcomes), t), rules.horizon - t + 1


def absorb_counts(rules, state, codes: np.ndarray, n_codes: int):
    """The engine's counts of the tracks ``codes`` end (its ``absorb_counts`` hook,
    :class:`simkit.core.engine.Ledger`): per code, and each mark's by outcome and value,
    counted compiled from the block's ``out`` (:func:`simkit.fight.block.ended_counts`)."""
    marks = state["out"].T[block.OUT_MARK0 : block.OUT_MARK0 + len(MARKS)]
    return block.counted(codes, len(rules.outcomes), n_codes, marks, MARKS)


def handed_on(ends: np.ndarray, rows: np.ndarray, check_penalty, fight=None) -> FightStart:
    """The :class:`FightStart` that tracks ``rows`` of ``ends`` ((n, P, len(CARRIED)), a
    block's end fields) hand to a next fight, with their ``check_penalty`` and ``fight``
    ((m,) each; None: fight 0): the party's :func:`carry` and the encounter's."""

    def field(f):
        return np.ascontiguousarray(ends[:, :, CARRIED.index(f)].take(rows, axis=0))

    return FightStart.trusted(
        hp=field(HP),
        hp_max=field(HP_MAX),
        hero=field(HERO),
        slots=field(SLOTS),
        heals=field(HEALS),
        pp=field(PP),
        pe=field(PE),
        pe_max=field(PE_MAX),
        wounded=field(WOUNDED),
        dead=field(COND) == DEAD,
        check_penalty=check_penalty,
        fight=np.zeros(len(rows), dtype=np.int32) if fight is None else fight,
    )


def carry(rules, state, rows_idx: np.ndarray) -> FightStart:
    """What tracks ``rows_idx`` hand to a next fight (``keep_state``)."""
    if "ends" not in state:
        raise RuntimeError("carry: this block was played with keep=False (no end states)")
    (ends,) = state["ends"]  # (a field's (n, P) is contiguous: taken field by field)
    return handed_on(
        ends,
        state["row"].take(rows_idx),
        (
            state["penalty"].take(rows_idx)
            if "penalty" in state
            else np.full(len(rows_idx), rules.check_penalty, dtype=np.int32)
        ),
        state["fight"].take(rows_idx) if "fight" in state else None,
    )


#: How a fight ended, for the day (:mod:`simkit.models.day`'s ``F_*`` codes): the party's
#: outcome index, unresolved last.
_DAY_OUTCOME = np.array([0, 1, 2, 3, 4], dtype=np.int8)


def fight_ends(rules, keys: np.ndarray, start: FightStart | None) -> dict[str, np.ndarray]:
    """A day's fight on the loop: every track of ``keys`` (uint64 dice keys, one a track)
    from ``start`` (None: fresh) played to its end, and what it hands back to the day: the
    carried fields (HP, hero points, slots, heals, PP, PE, wounded, the dead; each (n, P)),
    ``outcome`` ((n,) int8: won, won with deaths, retreat, defeat, unresolved) and the
    deaths by cause (the party's marks, (n,))."""
    return _day_ends(*_run(rules, keys, start))


def fight_into(
    rules, keys: np.ndarray, S: dict, rows: np.ndarray | None, pen, fresh=False, work=None
):
    """:func:`fight_ends` played from and written back into a day's fields: ``S`` holds
    each carried field of every track ((n, P) each, :class:`FightStart`'s names, ``fight``
    (n,)), ``rows`` the tracks that fight (sorted; None: every track), ``keys`` their dice
    keys (m,), ``pen`` every track's check penalty (n,). ``fresh`` (every track only): the
    rules' own start, as ``party`` plays it, and ``S`` is only written. The fight's
    changes (HP, hero points, slots, heals, PP, PE, wounded, the dead) are written into
    ``S`` at ``rows`` (compiled: :mod:`simkit.fight.rows`); returned: ``outcome`` and the
    deaths by cause, (m,) each, as :func:`fight_ends`'. ``work``: a dict the caller keeps
    from one fight to the next (a day's block), where the laid-out starts and the end states
    are written in buffers made once (fresh memory is cleared by the kernel at first touch:
    two 52 P-byte arrays a track a fight)."""
    from simkit.fight.rows import gather, scatter

    every = rows is None
    at = _NO_ROWS if rows is None else np.asarray(rows, dtype=np.intp)
    m, P = len(keys), S["hp"].shape[1]
    ends_out = _buffer(work, "ends", (len(CARRIED), m, P))
    if fresh:
        if not every:
            raise ValueError("fight_into: a fresh start is every track's")
        out, ends = _run(rules, keys, None, ends_out=ends_out)
    else:
        hp_max = S["hp_max"]
        maxima = _unique(hp_max)[0].astype(np.int64)
        by_max = np.zeros((3, int(maxima[-1]) + 1 if len(maxima) else 1), dtype=np.int64)
        by_max[:, maxima] = _of_maxima(rules, maxima)
        by_field = _buffer(work, "starts", (len(CARRIED), m, P))
        if by_field is None:
            by_field = np.empty((len(CARRIED), m, P), dtype=np.int32)
        gather(
            at, every, *(S[k] for k in _GATHERED), np.asarray(S["dead"], dtype=bool), by_max,
            by_field,
        )  # fmt: skip
        fights = S["fight"] if every else S["fight"].take(at)
        pens = pen if every else np.asarray(pen).take(at)
        start = SimpleNamespace(check_penalty=pens, fight=fights)  # (the fields: laid out)
        out, ends = _run(
            rules, keys, start, starts=by_field.transpose(1, 2, 0), ends_out=ends_out
        )
    scatter(ends.transpose(2, 0, 1), at, every, *(S[k] for k in _SCATTERED), S["dead"])
    return _outcome_causes(out)


#: The fields :func:`fight_into` reads (after them: ``dead``) and writes back, in
#: :func:`simkit.fight.rows.gather`'s and :func:`~simkit.fight.rows.scatter`'s order.
_GATHERED = ("hp", "hp_max", "hero", "slots", "heals", "wounded", "pp", "pe", "pe_max")
_SCATTERED = ("hp", "hero", "slots", "heals", "pp", "pe", "wounded")
_NO_ROWS = np.zeros(0, dtype=np.intp)


def _buffer(work: dict | None, name: str, shape: tuple) -> np.ndarray | None:
    """A C-contiguous int32 array of ``shape`` in ``work``'s buffer ``name`` (made, or
    grown, when too small; its contents are whatever the last use left), or None without
    ``work``."""
    if work is None:
        return None
    size = int(np.prod(shape))
    flat = work.get(name)
    if flat is None or len(flat) < size:
        flat = work[name] = np.empty(size, dtype=np.int32)
    return flat[:size].reshape(shape)


def care_ends(rules, keys: np.ndarray, start: FightStart, knocked: np.ndarray):
    """A day's care on the loop (AP-7 with no monster): the PCs ``knocked`` (n, P) out
    outside a fight (a fall, a Treat Wounds critical failure) from ``start``, the lineup's
    monsters gone before round 1; each knocked-out PC starts dying ``start_dying`` at the
    recovery DC of ``rules``' first monster (under seed001 agonising; as ``hp=0`` knocks
    one out), the others as the start holds them (up, stable at 0 HP, dead); the clerics
    heal and give first aid until no PC is dying. What it hands back is
    :func:`fight_ends`' (``outcome`` 4: cut at ``max_rounds``)."""
    return _day_ends(*_run(rules, keys, start, knocked))


def _outcome_causes(out: np.ndarray) -> dict[str, np.ndarray]:
    """A day's reading of ``out``: ``outcome`` ((n,) int8, unresolved 4) and the deaths by
    cause ((n,) int64 each)."""
    outcome = out[:, 0]
    res = {"outcome": _DAY_OUTCOME[np.where(outcome < 0, 4, outcome)]}
    marks = block.marks_of(out)
    for cause in ("deaths_in_fight", "deaths_after_defeat", "deaths_after_fight"):
        res[cause] = marks[cause].astype(np.int64)
    return res


def _day_ends(out: np.ndarray, ends: np.ndarray) -> dict[str, np.ndarray]:
    res = {
        name: np.ascontiguousarray(ends[:, :, CARRIED.index(f)])
        for name, f in (
            ("hp", HP),
            ("hero", HERO),
            ("slots", SLOTS),
            ("heals", HEALS),
            ("pp", PP),
            ("pe", PE),
            ("wounded", WOUNDED),
        )
    }
    res["dead"] = ends[:, :, CARRIED.index(COND)] == DEAD
    return {**res, **_outcome_causes(out)}


def start_fields(rules, start: FightStart) -> np.ndarray:
    """The PCs' fields of ``start`` in the loop's order (:data:`CARRIED`), as a block of
    ``rules`` starts from them: the party's, and the encounter's on the loop
    (:mod:`simkit.models.encounter_loop`; ``rules`` read by its ``n_pcs``, ``heal_below``,
    ``checks`` and ``level``)."""
    return _starts(rules, start)
