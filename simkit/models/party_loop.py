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
reads each track's. The vectorised kernel of 0.3 stays as ``engine="kernel"`` until it is
retired.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from simkit.core.params import ParamError
from simkit.fight import block, tables
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

__all__ = ["care_ends", "carry", "fight_ends", "init", "packed", "start_fields", "step"]


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


def _starts(rules, start: FightStart, knocked: np.ndarray | None = None) -> np.ndarray:
    """(n, P, len(CARRIED)) int32: the PCs' fields of ``start`` in the loop's order; a dead
    PC stays dead (R0-15), an alive one at 0 HP begins stable; one ``knocked`` (n, P) (a
    care's, :func:`care_ends`) is marked ``DYING`` at 0 HP."""
    hp_max = np.asarray(start.hp_max, dtype=np.int64)
    dead = np.asarray(start.dead, dtype=bool)
    hp = np.where(dead, 0, np.asarray(start.hp, dtype=np.int64))
    if knocked is not None:
        knocked = np.asarray(knocked, dtype=bool) & ~dead
        hp = np.where(knocked, 0, hp)
    cond = np.where(dead, DEAD, np.where(hp > 0, UP, STABLE))
    if knocked is not None:
        cond = np.where(knocked, DYING, cond)
    # what follows from a maximum HP, once per distinct maximum (a block holds few)
    maxima, at = np.unique(hp_max, return_inverse=True)
    at = at.reshape(hp_max.shape)
    fields = {
        HP: hp,
        HP_MAX: hp_max,
        MASSIVE: _massive_at(maxima)[at],
        LOW: np.floor(rules.heal_below * maxima).astype(np.int64)[at],
        HERO: start.hero,
        SLOTS: start.slots,
        HEALS: start.heals,
        WOUNDED: start.wounded,
        COND: cond,
        PP: start.pp,
        PE: start.pe,
        PE_MAX: start.pe_max,
        NIGHT_HP: tables.night_hp(rules, maxima)[at],
    }
    out = np.empty(hp.shape + (len(CARRIED),), dtype=np.int32)
    for i, f in enumerate(CARRIED):
        out[:, :, i] = fields[f]
    return out


def _run(rules, keys: np.ndarray, start: FightStart | None, knocked: np.ndarray | None = None):
    """The block of ``keys`` played from ``start`` (None: fresh): ``(out, ends)`` of
    :func:`simkit.fight.block.run`, on the tables of the start's check penalties; with
    ``knocked`` (n, P), the care of those PCs (:func:`care_ends`)."""
    if start is None:
        return block.run(packed(rules), keys, rules.horizon)
    pens, pen_ix = np.unique(np.asarray(start.check_penalty), return_inverse=True)
    fights = np.asarray(start.fight)
    if fights.size and (fights.min() < 0 or fights.max() >= rules.n_fights):
        bad = int(fights.max() if fights.max() >= rules.n_fights else fights.min())
        raise ParamError(
            f"start: fight must be in [0, {rules.n_fights - 1}] (the rules' lineups), got {bad}"
        )
    T = packed(rules, tuple(int(p) for p in pens))
    starts = _starts(rules, start, knocked)
    care = knocked is not None
    return block.run(T, keys, rules.horizon, starts, fights, pen_ix, care=care)


def init(rules, n: int, rng, start: FightStart | None = None):
    """``(state, codes)`` of a block of ``n`` tracks at step 0 (the engine's ``init``): the
    whole block is played now; :func:`step` hands the engine the rest."""
    if start is not None and (len(start) != n or start.n_pcs != rules.n_pcs):
        raise ParamError(
            f"start must hold {n} tracks of {rules.n_pcs} PCs, got {len(start)} of {start.n_pcs}"
        )
    out, ends = _run(rules, rng.track_keys(), start)
    state = {"out": out, "ends": ends, **block.marks_of(out)}
    if start is not None:  # (handed on by carry; a fresh block's are the rules' own)
        state["penalty"] = np.asarray(start.check_penalty, dtype=np.int32)
        state["fight"] = np.asarray(start.fight, dtype=np.int32)
    return state, block.step_codes(out, len(rules.outcomes), 0)


def step(rules, state, t: int, rng):
    """The tracks still going, as the block's run ended them: ``(codes, k)`` (the engine's
    several-steps contract: a track that ends at round ``r`` has code ``outcome + 4 (r - t)``)."""
    out = state["out"]
    state.update(block.marks_of(out))
    return block.step_codes(out, len(rules.outcomes), t), rules.horizon - t + 1


def carry(rules, state, rows_idx: np.ndarray) -> FightStart:
    """What tracks ``rows_idx`` hand to a next fight (``keep_state``)."""
    ends = state["ends"].take(rows_idx, axis=0)

    def field(f):
        return np.ascontiguousarray(ends[:, :, CARRIED.index(f)])

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
        check_penalty=(
            state["penalty"].take(rows_idx)
            if "penalty" in state
            else np.full(len(rows_idx), rules.check_penalty, dtype=np.int32)
        ),
        fight=(
            state["fight"].take(rows_idx)
            if "fight" in state
            else np.zeros(len(rows_idx), dtype=np.int32)
        ),
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


def care_ends(rules, keys: np.ndarray, start: FightStart, knocked: np.ndarray):
    """A day's care on the loop (AP-7 with no monster): the PCs ``knocked`` (n, P) out
    outside a fight (a fall, a Treat Wounds critical failure) from ``start``, the lineup's
    monsters gone before round 1; each knocked-out PC starts dying ``start_dying`` at the
    recovery DC of ``rules``' first monster (under seed001 agonising; as ``hp=0`` knocks
    one out), the others as the start holds them (up, stable at 0 HP, dead); the clerics
    heal and give first aid until no PC is dying. What it hands back is
    :func:`fight_ends`' (``outcome`` 4: cut at ``max_rounds``)."""
    return _day_ends(*_run(rules, keys, start, knocked))


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
    outcome = out[:, 0]
    res["outcome"] = _DAY_OUTCOME[np.where(outcome < 0, 4, outcome)]
    marks = block.marks_of(out)
    for cause in ("deaths_in_fight", "deaths_after_defeat", "deaths_after_fight"):
        res[cause] = marks[cause].astype(np.int64)
    return res


def start_fields(rules, start: FightStart) -> np.ndarray:
    """The PCs' fields of ``start`` in the loop's order (:data:`CARRIED`), as a block of
    ``rules`` starts from them: the party's, and the encounter's on the loop
    (:mod:`simkit.models.encounter_loop`; ``rules`` read by its ``n_pcs``, ``heal_below``,
    ``checks`` and ``level``)."""
    return _starts(rules, start)
