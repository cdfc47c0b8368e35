"""The day's rests on a block of days (:mod:`simkit.models.day`): the seeds' (R1-09, R1-10,
A1-7) and the published PF2e rest (P-11 Treat Wounds in a short rest, played as AP-18 reads
it; P-12 a night), the stamina a short rest gives back for a PP (R1-09, A1-8) and the short
rests ``rest_when`` adds before a fight. Each function takes the day's rules (``day``) and
its block (:class:`~simkit.models.day_block.DayBlock`); a PC knocked out by a Treat Wounds
critical failure is cared for by the day (``day._care``, on the compiled loop).
"""

from __future__ import annotations

import numpy as np

from simkit.core.rows import row_any as _row_any
from simkit.models.day_block import put_rows, rested, row_argmin, rows_at, take_rows
from simkit.models.day_plan import MAX_EXTRA_RESTS
from simkit.rules.pf2e import rest as pf2e_rest
from simkit.rules.rest import hp_after_rest, pe_after_short_rest, pp_after_rest

__all__ = ["rest", "rest_when", "short_rest", "treat", "treat_and_care"]


def treat(day, B, tracks, rng):
    """One short rest of Treat Wounds (P-11) on ``tracks`` (the rng's tracks, in order):
    each conscious medic, in the party's order, treats the most hurt living PC (lowest
    HP fraction, ties the lower index) that no one treated this hour; the PCs knocked
    out by a critical failure are returned (n_tracks, P)."""
    S, tw_wait = B.S, B.tw_wait
    m, P = len(tracks), S["hp"].shape[1]
    at = rows_at(tracks, len(tw_wait))  # (every track: views, changed in place)
    pen = day._penalty(B)[at]
    hp, hp_max, dead = take_rows(S["hp"], at), take_rows(S["hp_max"], at), take_rows(S["dead"], at)
    wait = take_rows(tw_wait, at)  # (m, P, W)
    knocked = np.zeros((m, P), dtype=bool)
    rows = np.arange(m)
    for j, (c, medicine) in enumerate(day._medics()):
        w = j if wait.shape[2] > 1 else 0  # (per_healer: this medic's own counter)
        change = pf2e_rest.treat_wounds_phase(rng, m, medicine + pen)
        able = ~dead[:, c] & (hp[:, c] > 0)
        hurt = ~dead & (hp < hp_max) & (wait[:, :, w] == 0)
        frac = np.where(hurt, hp / hp_max, np.inf)
        k = row_argmin(frac)
        go = able & hurt[rows, k]
        r, k = rows[go], k[go]
        was = hp[r, k]
        new = np.clip(was + change[go], 0, hp_max[r, k])
        hp[r, k] = new
        wait[r, k, w] = day.immune_rests
        healed = change[go] > 0
        S["wounded"][tracks[r[healed]], k[healed]] = 0
        ko = (new == 0) & (was > 0)
        knocked[r[ko], k[ko]] = True
    put_rows(S["hp"], at, hp)
    put_rows(tw_wait, at, np.maximum(wait.astype(np.int16) - 1, 0))
    return knocked


def treat_and_care(day, B, mask, prefix):
    """A short rest of Treat Wounds for the tracks ``mask`` on the streams under
    ``prefix``, then the care of the PCs it knocked out (under ``prefix + (1,)``)."""
    tracks = np.flatnonzero(mask)
    knocked = treat(day, B, tracks, B.src(mask, prefix))
    if knocked.any():
        full = np.zeros(B.S["hp"].shape, dtype=bool)
        full[tracks] = knocked
        day._care(B, full, prefix + (1,), "deaths_after_fight")


def rest(day, B, step, active, t):
    S = B.S
    kind = step.kind
    tracks = np.flatnonzero(active)
    at = rows_at(tracks, len(active))
    alive = ~S["dead"][at]
    if kind == "short_rest":
        if day.pe_rest_on:
            spend_pp_on_pe(day, B, tracks)
        if day.pf2e_rest and day._medics():
            short_rest(day, B, active, t, once=step.once)
    else:
        bed = kind == "bed_rest"
        hp, hp_max = S["hp"][at], S["hp_max"][at]
        if day.pf2e_rest:
            con = np.array([p.con for p in day.base_party.fighters.pcs])
            new = pf2e_rest.night_rest_hp(hp, hp_max, con[None, :], day.level, bed)
        else:
            new = hp_after_rest(hp, hp_max, day.level, rest="bed" if bed else "night")
        S["hp"][at] = np.where(alive, new, 0)
        F = day.base_party.fighters
        for name, full in (
            ("slots", [p.slots for p in F.pcs]),
            ("heals", [p.heals for p in F.pcs]),
        ):
            S[name][at] = np.where(alive, np.asarray(full)[None, :], S[name][at])
        if day.hero_refresh == "long_rest":
            S["hero"][at] = np.where(alive, day.hero_points, S["hero"][at])
        pp_max = np.array([p.pp_max for p in F.pcs])[None, :]
        pp = pp_after_rest(S["pp"][at], pp_max, "bed" if bed else "night", day.pp_back)
        S["pp"][at] = np.where(alive, pp, S["pp"][at])
        if "pe" in S:  # stamina back in full after a night (R1-09)
            S["pe"][at] = np.where(alive, S["pe_max"][at], S["pe"][at])
        B.tw_wait[at] = 0
        day._road(B, "rest", active)
    rested(S, tracks)


def short_rest(day, B, active, t, once=False):
    """A short rest's Treat Wounds (P-11) for the tracks ``active``; each track's
    number of 10-minute rests (n,) int64 is returned.

    The first 10-minute rest is every track's (``short_rest(once)`` stops there: its
    draws, on the streams under ``prefix + (t,)``, are the played rest's first); the
    played rest (AP-18) then goes on, rest ``j`` on the streams under ``prefix + (t, 3,
    j)``, for the tracks where a Treat Wounds could still help within the budget
    (:meth:`treat_can_help`, ``short_rest_minutes``), so no PC is left below its max
    HP while one could. Time passes only in the rests played: a track that stops early
    counts fewer rests of immunity (``tw_wait``)."""
    used = active.astype(np.int64)
    treat_and_care(day, B, active, B.prefix + (t,))
    if once:
        return used
    R = day.short_rests
    going = active.copy()
    for j in range(1, R):
        going &= (B.ended < 0) & day.treat_can_help(B.S, B.tw_wait, R - j)
        if not going.any():
            break
        treat_and_care(day, B, going, B.prefix + (t, 3, j))
        used += going
    return used


def rest_when(day, B, active, t):
    """Short rests before the fight of step ``t`` while some living PC is below
    ``rest_when`` of its max HP (HP + PE when the fights use PE) and a short rest can
    help it: Treat Wounds can reach it (pf2e rest, a medic conscious) or it would spend
    a PP on its PE (R1-09, ``pe_rest``)."""
    treat = day.pf2e_rest and bool(day._medics())
    pe = day.pe_rest_on
    if not (treat or pe):
        return
    S = B.S
    for j in range(MAX_EXTRA_RESTS):
        if pe:
            low = S["hp"] + S["pe"] < day.rest_when * (S["hp_max"] + S["pe_max"])
        else:
            low = S["hp"] < day.rest_when * S["hp_max"]
        low &= ~S["dead"]  # (n, P) bool
        helps = np.zeros(low.shape, dtype=bool)  # (n, P): a short rest would help it
        if treat:
            for i, (c, _) in enumerate(day._medics()):
                w = i if B.tw_wait.shape[2] > 1 else 0
                conscious = ~S["dead"][:, c] & (S["hp"][:, c] > 0)  # (n,)
                helps |= (B.tw_wait[:, :, w] == 0) & conscious[:, None]
        if pe:
            helps |= pe_after(day, S, slice(None))[0] > S["pe"]
        need = active & (B.ended < 0) & _row_any(low & helps)
        if not need.any():
            return
        tracks = np.flatnonzero(need)
        if pe:
            spend_pp_on_pe(day, B, tracks)
        if treat:
            treat_and_care(day, B, need, B.prefix + (t, 2, j))
        rested(S, tracks)


def pe_after(day, S, at):
    """Each PC's ``(pe, pp)`` (m, P) after the PP it would spend on its PE in a short
    rest (R1-09 as ``pe_rest`` reads it, A1-8; keeping its stabilisation cost, R1-04),
    on the rows ``at``."""
    keep = [day.base_party.stabilize_cost(k) for k in range(S["pp"].shape[1])]
    return pe_after_short_rest(
        S["pe"][at], S["pe_max"][at], S["pp"][at], np.asarray(keep)[None, :], day.pe_rest
    )


def spend_pp_on_pe(day, B, tracks):
    """A short rest's stamina for the tracks ``tracks`` (sorted): each living PC whose
    PE are below the maximum spends 1 PP for them as ``pe_rest`` reads it (R1-09, A1-8)."""
    S = B.S
    at = rows_at(tracks, len(B.ended))
    pe, pp = pe_after(day, S, at)
    alive = ~S["dead"][at]
    S["pe"][at] = np.where(alive, pe, S["pe"][at])
    S["pp"][at] = np.where(alive, pp, S["pp"][at])
