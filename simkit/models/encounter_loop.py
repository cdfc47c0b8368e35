"""The encounter on the compiled fight loop, its only engine (issue 28, item 3).

Issue 28, item 3: the encounter is a configuration of the loop (:mod:`simkit.fight.encounter`):
a party of one PC, ``enemies`` monsters that never fall, no defeat, and the encounter's
healer, effect and ending rules as its tactics. This module states the encounter as the
loop's tables (:func:`simkit.fight.tables.build` reads a rules object by its attributes:
:func:`fight_rules` gives it the encounter's PC, enemies and options under the party's
names) and its options ``C``, and hands a block to the loop and back to the engine as
:mod:`simkit.models.party_loop` does for the party: :func:`init` plays the whole block
(each track from :meth:`simkit.core.streams.BlockRng.track_keys`), :func:`step` hands the
engine the rest (a track that ends at round ``r`` has code ``outcome + 5 (r - t)``).

Where the healer sits: its heal dice, heals and Medicine are the PC's own columns of the
tables (a party of one heals itself through them), so the loop's heal and first aid
(:func:`simkit.fight.phases.heal`, :func:`~simkit.fight.phases.first_aid`) are the
healer's. Temporary HP (R0-14) are the loop's own (``TEMP``, the party's ``temp_hp``):
soaked first while the PC is conscious, kept untouched while it is down (as the kernel of
0.3 did), so a PC that starts at ``hp=0`` with temporary HP has them when it is healed. A
start hands them in its ``pe`` column and an end hands them back there (the encounter has
no stamina points).
"""

from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import numpy as np

from simkit.core.params import ParamError
from simkit.fight import block, tables
from simkit.fight import encounter as fe
from simkit.fight.loop import CARRIED
from simkit.fight.state import (
    width,
)
from simkit.models.downed_rule import table_at
from simkit.models.fight_state import FightStart
from simkit.models.party_loop import handed_on, start_fields
from simkit.rules import dying_systems, hourly, perseverance

__all__ = ["absorb_counts", "carry", "fight_rules", "init", "options", "packed", "run", "step"]


def fight_rules(rules) -> SimpleNamespace:
    """``rules`` (an Encounter) under the names :func:`simkit.fight.tables.build` reads: a
    party of one PC (its saves raw; the effect's save in the Reflex column), the healer's
    heal, heals and Medicine as the PC's, ``enemies`` monsters of 1 HP with the strikes'
    recovery DC and the effect as their area effect (``effect_chance`` a turn, no use
    counted; its PF2e options, P-13..P-16, as the party's: ``pf2e_of``)."""
    E = rules.enemies
    pen = rules.check_penalty
    pc = SimpleNamespace(
        hp=rules.max_hp,
        ac=rules.armor,
        reflex=rules.save(rules.effect_save) - pen,
        fort=rules.save("fort") - pen,
        perception=0,
        attack=0,
        role="fighter",
        spell_dc=0,
        heals=rules.heals,
        slots=0,
        damage=None,
        area=None,
        cantrip=None,
        heal=rules.heal,
        medicine=rules.medicine,
        pp_max=rules.max_pp,
        pe_max=0,
        con=rules.con_mod,
        agile=False,
    )
    area_on = rules.effect_chance > 0
    monsters = [
        SimpleNamespace(
            hp=1,
            ac=0,
            reflex=0,
            perception=0,
            attack=rules.strike_bonus,
            recovery_dc=rules.strike_dc,
            spell_dc=rules.spell_dc,
            damage=rules.strike_dice,
            area=rules.effect_dice,
        )
        for _ in range(E)
    ]
    fighters = SimpleNamespace(pcs=[pc], monsters=monsters)
    lineup = SimpleNamespace(
        fighters=fighters,
        area_uses_of=(0,) * E,
        area_chance_of=(rules.effect_chance,) * E,
        map=rules.map,
        start_dc=rules.strike_dc,
    )
    opts = dict(dying_systems.SEED000)
    opts.update(
        check=rules.check,
        wounded_rule=rules.wounded_rule,
        on_damage=rules.on_damage,
        hero_effect=rules.hero_effect,
    )
    return SimpleNamespace(
        dying=rules.dying,  # a custom track at 0 HP (issue 31), or None
        downed_table=lambda p: table_at(rules.dying, p),
        check_penalty=pen,
        fighters=fighters,
        lineup_rules=(lineup,),
        seed000=rules.seed000,
        dying_options=opts,
        area_on=area_on,
        attacks=rules.attacks,
        threshold=rules.threshold,
        death_at=rules.death_at,
        start_dying=rules.start_dying,
        hero_knockout=rules.hero_knockout,
        wounded_adds=rules.wounded_adds,
        spend=rules.spend,
        stabilize_cost=lambda k: rules.stabilize_cost,
        zero_pp=rules.zero_pp,
        checks=rules.checks,
        level=rules.level,
        heal_below=0.5,  # heal_when="wounded": at half HP or less
        hero_points=rules.hero_points,
        first_aid_dc=rules.first_aid_dc,
        first_aid_natural=False,  # a plain check (R1-02)
        natural=rules.natural,
        trait=rules.trait,
        target_downed=rules.target_downed,
        downed_chance=rules.downed_chance,
        downed_pick="first",
        monster_target="focus",
        pc_target="focus",
        after_defeat="alive",
        retreat_at=None,
        max_rounds=rules.max_rounds,
        hp=None,
        n_pcs=1,
        pe_on=False,
        temp_hp_of=lambda k: rules.temp_hp,  # R0-14
        hourly_on=rules.long_term_on,
        # PF2e's options (P-13..P-16, AP-29): the party's, read by the loop's tables
        pf2e_of=lambda k: rules.pf2e,
    )


def _need(rules, phase: int) -> int:
    """The least PP with which a stable PC gets back up (R1-05, A1-3), read from
    :func:`perseverance.perseverance_round` (after a nonlethal knock-out: ``STABILISED``;
    after a lethal one: stabilised this turn by first aid)."""
    for pp in range(0, rules.max_pp + rules.enough_pp + 2):
        res, _, _ = perseverance.perseverance_round(
            phase,
            pp,
            1,
            aided=True,
            cost=rules.stabilize_cost,
            spend="never",
            back_in_fight=True,
            enough_pp=rules.enough_pp,
        )
        if res == perseverance.BACK:
            return pp
    return 1 << 30


def options(rules) -> np.ndarray:
    """The encounter's options ``C`` (:mod:`simkit.fight.encounter`'s ``C_*``)."""
    C = np.zeros(fe.N_C, dtype=np.int64)
    C[fe.C_E] = rules.enemies
    C[fe.C_HEALER_ROUND] = -1 if rules.healer_round is None else rules.healer_round
    C[fe.C_HEALER_EDGE] = tables.edge_of(rules.healer_chance) if rules.healer_chance > 0 else 0
    C[fe.C_UNTIL_HEALER] = rules.until == "healer"
    C[fe.C_FIGHT_ROUNDS] = -1 if rules.fight_rounds is None else rules.fight_rounds
    C[fe.C_END_EDGE] = tables.edge_of(rules.end_chance) if rules.end_chance > 0 else 0
    C[fe.C_HEAL_WOUNDED] = rules.heal_when == "wounded"
    C[fe.C_AID] = rules.medicine is not None
    C[fe.C_PC_FIRST] = rules.initiative == "pc_first"
    C[fe.C_START_HP] = rules.start_hp
    C[fe.C_START_PP] = rules.start_pp
    C[fe.C_WOUNDED0] = rules.wounded
    C[fe.C_LONG_TERM] = rules.long_term_on
    C[fe.C_BACK] = (not rules.seed000) and rules.back_in_fight
    if C[fe.C_BACK]:
        C[fe.C_NEED_LETHAL] = _need(rules, perseverance.AGONISING)
        C[fe.C_NEED_NONLETHAL] = _need(rules, perseverance.STABILISED)
    C[fe.C_HOUR_HEALER] = 1 if rules.medicine is not None else 0
    C[fe.C_AWAKE_HOURS] = hourly.wake_up([hourly.STAYS] * hourly.WAKE_HOURS, 0, 1)[2]
    C.setflags(write=False)
    return C


@lru_cache(maxsize=64)
def packed(rules, pens: tuple[int, ...] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(T, C)``: the packed tables of ``rules``' fight (no defeat), for the check
    penalties ``pens`` (None: the rules' own), and its options."""
    T = tables.build(fight_rules(rules), pens)
    T.opt[tables.DEFEAT_OFF] = 1
    return tables.pack(T), options(rules)


def run(rules, keys: np.ndarray, start: FightStart | None = None):
    """Every track of ``keys`` (uint64 dice keys) played from ``start`` (None: fresh) to
    its end or the horizon: ``(out, ends)``, int32 arrays (n, 8) (outcome, end step, the
    marks in ``Encounter.marks`` order) and (n, 1, len(CARRIED)) (the PC's fields at the
    end, :data:`simkit.fight.loop.CARRIED`)."""
    n = len(keys)
    pen_ix: np.ndarray = np.zeros(1, dtype=np.int32)
    if start is None:
        T, C = packed(rules)
        starts = np.zeros((1, 1, len(CARRIED)), dtype=np.int32)
    else:
        if start.n_pcs != 1:
            raise ParamError(f"start must hold tracks of 1 PC, got {start.n_pcs}")
        if np.any(np.asarray(start.fight) != 0):
            raise ParamError("start.fight must be 0 (an encounter has one lineup)")
        if rules.dying is not None and np.any(
            (np.asarray(start.hp) == 0) & ~np.asarray(start.dead, dtype=bool)
        ):
            raise ParamError(
                "start: a PC at 0 HP under a custom track (dying=) has no state on it to "
                "start from; give it 1 HP or more"
            )
        pens, at = np.unique(np.asarray(start.check_penalty), return_inverse=True)
        T, C = packed(rules, tuple(int(p) for p in pens))
        starts = start_fields(fight_rules(rules), start)
        pen_ix = np.ascontiguousarray(at, dtype=np.int32)
    k63 = (np.asarray(keys, dtype=np.uint64) >> np.uint64(1)).astype(np.int64)
    out = np.empty((n, fe.N_OUT), dtype=np.int32)
    ends = np.empty((n, 1, len(CARRIED)), dtype=np.int32)
    P, M = int(T[tables.H_P]), int(T[tables.H_M])
    args = (k63, T, C, int(rules.horizon), width(P, M) + fe.N_EX, starts, start is not None)
    with np.errstate(over="ignore"):  # (uncompiled: uint64 products wrap by design)
        block._compiling(fe.run_encounters, *args, pen_ix, out, ends)
    return out, ends


def absorb_counts(rules, state, codes: np.ndarray, n_codes: int):
    """The engine's counts of the tracks ``codes`` end, compiled from the block's ``out``
    (:func:`simkit.fight.block.ended_counts`), as the party's
    (:func:`simkit.models.party_loop.absorb_counts`)."""
    marks = state["out"].T[2 : 2 + len(rules.marks)]
    return block.counted(codes, len(rules.outcomes), n_codes, marks, rules.marks)


def _marks(rules, out: np.ndarray) -> dict[str, np.ndarray]:
    return {name: out[:, 2 + i] for i, name in enumerate(rules.marks)}


def init(rules, n: int, rng, start: FightStart | None = None):
    """``(state, codes)`` of a block of ``n`` tracks at step 0 (the engine's ``init``): the
    whole block is played now; :func:`step` hands the engine the rest."""
    if start is not None and len(start) != n:
        raise ParamError(f"start must hold {n} tracks, got {len(start)}")
    out, ends = run(rules, rng.track_keys(), start)
    state = {"out": out, "ends": ends, **_marks(rules, out)}
    state["penalty"] = (
        np.full(n, rules.check_penalty, dtype=np.int32)
        if start is None
        else np.asarray(start.check_penalty, dtype=np.int32)
    )
    return state, block.step_codes(out, len(rules.outcomes), 0)


def step(rules, state, t: int, rng):
    """The tracks still going, as the block's run ended them: ``(codes, k)``."""
    out = state["out"]
    state.update(_marks(rules, out))
    return block.step_codes(out, len(rules.outcomes), t), rules.horizon - t + 1


def carry(rules, state, rows_idx: np.ndarray) -> FightStart:
    """What tracks ``rows_idx`` hand to a next fight (``keep_state``): the PC's HP, hero
    points, the healer's heals left, PP, wounded, temporary HP left (in ``pe``),
    whether it is dead, and the track's check penalty."""
    return handed_on(state["ends"], rows_idx, state["penalty"].take(rows_idx))
