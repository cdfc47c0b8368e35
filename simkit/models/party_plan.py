"""The party's draw plan, the named draw contract of a round (:attr:`Party.plan`): what the
scalar references (:mod:`simkit.models.party_ref`, :mod:`simkit.models.day_ref`) draw by
name, and how a drawn value reads (:func:`faces`, :func:`pick_draw`)."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from simkit.models.party_lineups import lineup_sources
from simkit.rules import hourly
from simkit.rules.dice import dice_draw

__all__ = ["HOURS", "faces", "pick_draw", "round_plan"]

HOURS = hourly.WAKE_HOURS  # R1-07


def faces(kind: str, raw: np.ndarray) -> np.ndarray:
    """What a draw of plan ``kind`` means, from the ``below`` integers drawn for it: a d20
    face 1..20 from ``[0, 20)``; any other kind is used as drawn."""
    return raw + np.uint16(1) if kind == "d20" else raw


def pick_draw(count: int) -> str:
    """How a uniform choice among at most ``count`` candidates is drawn: ``"below:L"`` with
    ``L`` the least common multiple of ``1..count`` (then ``w mod c`` is exactly uniform on
    ``c <= count`` candidates: a pick is ``w % c``); ``"random"`` (a uniform float) when ``L``
    would pass 65,536."""
    lcm = math.lcm(*range(1, max(count, 1) + 1))
    return f"below:{lcm}" if lcm <= 65536 else "random"


@lru_cache(maxsize=256)
def round_plan(rules) -> list[tuple[str, str, tuple[int, ...]]]:
    """(name, kind, trailing shape) of every array drawn in a round of ``rules``' fight
    (:attr:`Party.plan`), from the rules alone, never the tracks' states."""
    P, M, A = rules.n_pcs, rules.n_slots, rules.attacks
    F = rules.fighters
    L = lineup_sources(rules)
    out: list[tuple[str, str, tuple[int, ...]]] = [
        ("check", "d20", (P,)),
        ("patk", "d20", (P, 2)),
    ]
    for k, pc in enumerate(F.pcs):
        out.append((f"dmg{k}", dice_draw(pc.damage), (2,)))
        if pc.area and pc.cantrip:
            out += [
                (f"area{k}", dice_draw(pc.area), ()),
                (f"cantrip{k}", dice_draw(pc.cantrip), ()),
            ]
        if pc.heal:
            out.append((f"heal{k}", dice_draw(pc.heal), ()))
    if rules.wizards:
        out.append(("msave", "d20", (len(rules.wizards), M)))
    if rules.clerics:
        out.append(("aid", "d20", (len(rules.clerics),)))
    if rules.pc_target == "spread":
        out.append(("pc_tgt", pick_draw(M), (P, 2)))
    if M:
        out += [("matk", "d20", (M, A))]
        for j in range(M):  # (one source a slot with one lineup)
            for x in (x for x, slot in enumerate(L.mdmg_slot) if slot == j):
                out.append((f"mdmg{x}", dice_draw(L.mdmg_texts[x]), (A,)))
            if rules.area_on:
                for x in (x for x, slot in enumerate(L.marea_slot) if slot == j):
                    out.append((f"marea{x}", dice_draw(L.marea_texts[x]), ()))
        if rules.area_on:
            out += [("area_u", "chance", (M,)), ("psave", "d20", (M, P))]
        if rules.monster_target == "random":
            out.append(("mon_tgt", pick_draw(P), (M, A)))
        if rules.target_downed == "sometimes":
            out.append(("downed_u", "chance", (M, A)))
        if rules.target_downed != "never" and rules.downed_pick == "random":
            out.append(("down_tgt", pick_draw(P), (M, A)))
        if rules.dying_effect:  # AP-35: its chance, its target, the target's Fortitude save
            out += [("dying_u", "chance", (M,)), ("dying_tgt", pick_draw(P), (M,))]
            out.append(("dying_save", "d20", (M,)))
    if rules.hourly_on:
        out += [("con", "d20", (P, HOURS)), ("med", "d20", (P, HOURS))]
    if any(rules.pf2e_of(k)["two"] for k in range(P)):  # P-15, P-16: a second d20
        out.append(("check2", "d20", (P,)))
    tracks = [rules.pc_downed_track(k) for k in range(P)]  # each PC's (issue 31)
    faces = [len(t.faces()[0]) for t in tracks if t is not None]
    if faces:  # a face of the designer's tracks: below their common multiple
        out.append(("trk", f"below:{math.lcm(*faces)}", (P,)))
    return out
