"""The party fight's state, as typed objects: where a fight starts, and where it is.

:class:`FightStart` is what one fight hands to the next (per track and PC: HP, maximum
HP, hero points, spell slots and heals left, perseverance points, wounded, who is dead,
stamina points and their maximum; per track the check penalty, P-10, and the fight, an
index into the rules' lineups).
``simkit.simulate(party, n, rng, start=...)`` starts each track from its row, and
``keep_state=True`` returns the finished fights' rows as ``result.final`` (a
:class:`FightStart` in track order), so a later fight (or a rest) can continue from them.

:class:`FightState` is the kernel's state of a block of tracks: a slotted dataclass of
arrays, each field's shape and meaning beside it. The engine compacts it with
:meth:`FightState.take_rows` as tracks end; the kernel reads and writes its fields by
name (``S["hp"]`` is ``S.hp``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from simkit.core.params import ParamError

__all__ = ["CARRIED", "MAX_FIGHTS", "MIN_CHECK_PENALTY", "PER_TRACK", "FightStart", "FightState"]

#: The lowest check penalty a PC's d20s take (P-10): a start's, and a day's with its fatigue
#: (R4-03) added, not below it.
MIN_CHECK_PENALTY = -50

#: The per-PC fields a fight hands on (each (n, P)), in order.
CARRIED = ("hp", "hp_max", "hero", "slots", "heals", "pp", "wounded", "dead", "pe", "pe_max")
#: The per-track fields of a start (each (n,)).
PER_TRACK = ("check_penalty", "fight")
#: A start's fight index is below this (a rules object holds at most that many lineups).
MAX_FIGHTS = 64


@dataclass(frozen=True, eq=False)
class FightStart:
    """Where each track's fight starts (what the last step left).

    Attributes
    ----------
    hp, hp_max : ndarray (n, P) int
        Each PC's hit points and maximum (``0 <= hp <= hp_max``, ``hp_max >= 1``). A PC at
        0 HP and alive starts stable (unconscious, not dying).
    hero, slots, heals : ndarray (n, P) int
        Hero points, spell slots (the wizard's area spell) and heals (the cleric's) left.
    pp : ndarray (n, P) int
        Perseverance points (seed 001; kept, unused, under the other dying systems).
    wounded : ndarray (n, P) int
        The wounded value (pf2e-core, A0-2).
    dead : ndarray (n, P) bool
        PCs already dead: they take no turn, are never a target and stay dead (R0-15).
    check_penalty : ndarray (n,) int
        The track's check penalty (<= 0, P-10; fatigue and hunger, R4-03).
    fight : ndarray (n,) int, optional
        The track's fight: an index into the rules' lineups (``Party.with_lineups``; 0,
        the default, is the rules' own lineup). A finished fight hands on the index it
        was fought at; the next fight sets its own.
    pe, pe_max : ndarray (n, P) int, optional
        Stamina points and their maximum (``0 <= pe <= pe_max``; seed 001, A1-5: damage
        takes PE before HP; kept, unused, under the other dying systems and with
        ``pe_damage=hp_only``). Left out: 0, no stamina.
    """

    hp: np.ndarray
    hp_max: np.ndarray
    hero: np.ndarray
    slots: np.ndarray
    heals: np.ndarray
    pp: np.ndarray
    wounded: np.ndarray
    dead: np.ndarray
    check_penalty: np.ndarray
    fight: np.ndarray = None  # type: ignore[assignment]  # (None: every track fight 0)
    pe: np.ndarray = None  # type: ignore[assignment]  # (None: 0)
    pe_max: np.ndarray = None  # type: ignore[assignment]  # (None: 0)

    def __post_init__(self):
        if self.fight is None:
            object.__setattr__(self, "fight", np.zeros(len(np.asarray(self.hp)), dtype=np.int32))
        for name in ("pe", "pe_max"):
            if getattr(self, name) is None:
                object.__setattr__(self, name, np.zeros(np.shape(self.hp), dtype=np.int32))
        arrays = {f.name: np.asarray(getattr(self, f.name)) for f in fields(self)}
        shape = arrays["hp"].shape
        if len(shape) != 2 or shape[0] < 1 or shape[1] < 1:
            raise ParamError(f"start: hp must be an (n tracks, n PCs) array, got shape {shape}")
        for name, a in arrays.items():
            want = shape[:1] if name in PER_TRACK else shape
            if a.shape != want:
                raise ParamError(f"start: {name} must have shape {want}, got {a.shape}")
            if name == "dead":
                if a.dtype != bool:
                    raise ParamError(f"start: dead must be booleans, got {a.dtype}")
            elif a.dtype.kind not in "iu":
                raise ParamError(f"start: {name} must be integers, got {a.dtype}")
        lo = {"hp": 0, "hp_max": 1, "hero": 0, "slots": 0, "heals": 0, "pp": 0, "wounded": 0}
        lo.update(pe=0, pe_max=0)
        for name, least in lo.items():
            if arrays[name].size and int(arrays[name].min()) < least:
                raise ParamError(f"start: {name} must be at least {least}")
        for name in ("hp", "pe"):
            if (arrays[name] > arrays[name + "_max"]).any():
                raise ParamError(f"start: {name} must be at most {name}_max")
        if (arrays["dead"] & (arrays["hp"] != 0)).any():
            raise ParamError("start: a dead PC has hp 0 (R0-15)")
        pen = arrays["check_penalty"]
        if pen.size and not (MIN_CHECK_PENALTY <= int(pen.min()) and int(pen.max()) <= 0):
            raise ParamError(f"start: check_penalty must be in [{MIN_CHECK_PENALTY}, 0]")
        fight = arrays["fight"]
        if fight.size and not (0 <= int(fight.min()) and int(fight.max()) < MAX_FIGHTS):
            raise ParamError(f"start: fight must be in [0, {MAX_FIGHTS - 1}]")
        for name, a in arrays.items():
            a = np.array(a, dtype=bool if name == "dead" else np.int32, order="C")
            a.setflags(write=False)
            object.__setattr__(self, name, a)

    @classmethod
    def trusted(cls, **arrays) -> FightStart:
        """A start from arrays a kernel made (already checked): no validation, no copy
        (``fight`` left out: fight 0; ``pe``, ``pe_max`` left out: 0). Each field is a
        read-only view of the array given (the array itself stays as it was: a kernel may
        hand over its own state's rows), so a start is read-only whichever way it was made."""
        out = object.__new__(cls)
        if arrays.get("fight") is None:
            arrays["fight"] = np.zeros(len(arrays["hp"]), dtype=np.int32)
        for name in ("pe", "pe_max"):
            if arrays.get(name) is None:
                arrays[name] = np.zeros(np.shape(arrays["hp"]), dtype=np.int32)
        for name, a in arrays.items():
            view = np.asarray(a).view()
            view.setflags(write=False)
            object.__setattr__(out, name, view)
        return out

    def __len__(self) -> int:
        return len(self.hp)

    @property
    def n_pcs(self) -> int:
        return self.hp.shape[1]

    def rows(self, first: int, count: int) -> FightStart:
        """Tracks ``first .. first + count - 1`` (views: no copy)."""
        end = first + count
        return FightStart.trusted(
            **{f.name: getattr(self, f.name)[first:end] for f in fields(self)}
        )

    def take(self, rows) -> FightStart:
        """The rows ``rows`` (an index array), in that order."""
        rows = np.asarray(rows)
        if rows.dtype == bool:  # a mask: its rows
            rows = np.flatnonzero(rows)
        return FightStart.trusted(
            **{f.name: getattr(self, f.name).take(rows, axis=0) for f in fields(self)}
        )

    def row(self, i: int) -> dict:
        """Track ``i`` as plain Python values (per-PC lists; ``check_penalty`` an int)."""
        out: dict = {name: [v.item() for v in getattr(self, name)[i]] for name in CARRIED}
        out["check_penalty"] = int(self.check_penalty[i])
        out["fight"] = int(self.fight[i])
        return out

    @classmethod
    def concat(cls, parts) -> FightStart:
        """The rows of ``parts`` one after the other."""
        parts = list(parts)
        return cls.trusted(
            **{f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)}
        )

    @classmethod
    def full(cls, n: int, **per_pc) -> FightStart:
        """``n`` equal tracks: each field a per-PC list (or one number; ``check_penalty`` a
        number; ``fight`` a number or one per track); ``dead`` defaults to nobody,
        ``wounded``, ``pp``, ``pe``, ``pe_max`` and ``fight`` to 0.

        One row is validated, then filled into every track's (C-contiguous) arrays."""
        P = len(per_pc["hp"])
        fight = np.broadcast_to(np.asarray(per_pc.get("fight", 0)), (n,))
        kinds = np.unique(fight)  # (one validated row per distinct fight)
        rows: dict = {}
        for name in CARRIED:
            value = per_pc.get(name, False if name == "dead" else 0)
            rows[name] = np.broadcast_to(np.asarray(value), (len(kinds), P))
        pen = np.full(len(kinds), int(per_pc.get("check_penalty", 0)))
        one = cls(**rows, check_penalty=pen, fight=kinds)
        out: dict = {}
        for name in (*CARRIED, "check_penalty"):
            row = getattr(one, name)[0]
            a = np.empty((n, P) if name in CARRIED else (n,), dtype=row.dtype)
            a[...] = row
            out[name] = a
        out["fight"] = np.array(fight, dtype=np.int32)
        for a in out.values():
            a.setflags(write=False)
        return cls.trusted(**out)


@dataclass(slots=True, eq=False)
class FightState:
    """The state of a block of ``m`` tracks of a party fight (``P`` PCs, ``M`` monsters).

    Per-track fields are arrays whose first axis is the track; the engine moves them all
    when it compacts the block. ``pens`` (the check penalties present, indexed by
    ``pen_i``) is per block.
    """

    # -- the PCs: (m, P) --------------------------------------------------------------------
    hp: np.ndarray  # int32: hit points
    hp_max: np.ndarray  # int32: maximum hit points (massive damage R0-13, healing's cap)
    cond: np.ndarray  # int8: UP / DYING / STABLE / DEAD (party.UP...)
    dying: np.ndarray  # int16: the dying value (seed 000 / pf2e-core)
    wounded: np.ndarray  # int16: the wounded value (pf2e-core, A0-2)
    dcs: np.ndarray  # int16: recovery DC before dying (R0-06)
    hero: np.ndarray  # int8: hero points left (R0-10)
    pp: np.ndarray  # int16: perseverance points (seed 001)
    pe: np.ndarray  # int32: stamina points (seed 001, A1-5: damage takes them before HP)
    pe_max: np.ndarray  # int32: maximum stamina points (handed on)
    turns: np.ndarray  # int16: agonising turns so far (seed 001)
    nl: np.ndarray  # bool: down by nonlethal damage (R1-11)
    moved: np.ndarray  # bool: moved in the order this round (R0-03)
    slots: np.ndarray  # int8: the wizard's spell slots left
    heals: np.ndarray  # int8: the cleric's heals left
    # -- the monsters: (m, M) ---------------------------------------------------------------
    mhp: np.ndarray  # int32: hit points
    area: np.ndarray  # int8: area effects left
    # -- per track: (m,) or (m, P + M) ------------------------------------------------------
    mleft: np.ndarray  # int8 (m,): monsters above 0 HP
    moves: np.ndarray  # int32 (m,): moves in the order so far (AP-2)
    key: np.ndarray  # float64 (m, P + M): initiative sort keys, higher first (P-01)
    order: np.ndarray  # int8 (m, P + M): combatants in acting order (PCs 0..P-1, then monsters)
    phase: np.ndarray  # int8 (m,): FIGHT / WON / FLED
    pen_i: np.ndarray  # int8 (m,): the track's check penalty, as an index into ``pens``
    fight: np.ndarray  # int16 (m,): the track's fight, an index into the rules' lineups
    # -- marks: (m,) ------------------------------------------------------------------------
    deaths: np.ndarray  # int16: PCs who died in this fight
    knockouts: np.ndarray  # int16: knock-outs
    rounds: np.ndarray  # int16: rounds of fighting
    dead_mask: np.ndarray  # int32: bit k set when PC k died in this fight
    hero_spent: np.ndarray  # int16: hero points spent
    heals_spent: np.ndarray  # int16: heals cast
    deaths_in_fight: np.ndarray  # int16: PCs who died in the fight's rounds (phase FIGHT)
    deaths_after_defeat: np.ndarray  # int16: PCs killed at a defeat (``after_defeat=slain``)
    deaths_after_fight: np.ndarray  # int16: PCs who died in the care after the fight
    # -- per block --------------------------------------------------------------------------
    pens: tuple[int, ...] = (0,)  # the check penalties of the block's tracks
    any_moved: bool = False  # some PC of the block moved in the order this round (``moved``)

    def __getitem__(self, name: str):
        return getattr(self, name)

    def __setitem__(self, name: str, value) -> None:
        setattr(self, name, value)

    def __contains__(self, name: str) -> bool:
        return name in self.__slots__

    def get(self, name: str, default=None):
        return getattr(self, name, default)

    def items(self):
        return ((f.name, getattr(self, f.name)) for f in fields(self))

    def take_rows(self, kept: np.ndarray) -> FightState:
        """The tracks ``kept`` (the engine's compaction)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        for name, v in out.items():
            if isinstance(v, np.ndarray):
                out[name] = v.take(kept, axis=0)
        return FightState(**out)

    @property
    def penalty(self) -> np.ndarray:
        """Each track's check penalty (m,) int32."""
        return np.asarray(self.pens, dtype=np.int32).take(self.pen_i)
