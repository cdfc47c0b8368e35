"""The perseverance turn of an agonising character at 0 HP (seed 001, R1-01..R1-05, R1-11;
A1-1, A1-3) as one rule phase.

:func:`knockout`
    Step 0: the state after the knock-out (R1-01, R1-11, A1-1).
:func:`perseverance_round`
    The rule for one round (scalar reference): healing, first aid's result (see
    :mod:`simkit.rules.first_aid`), the character's turn (spending PP to stabilise,
    getting back in the fight) and the end-of-turn PP loss.
:func:`round_pmf`
    The exact distribution of one round: the reference weighted by first aid's
    probability.
:func:`packed_rounds`
    The vectorised form: tables over every state (phase, PP) and every natural roll of
    the helper, for ``k`` rounds at once (built by composing the reference's one-round
    table; cached on what they depend on). A kernel indexes them with one
    ``rng.below(20**j)`` per track (``j`` = rounds with a first-aid check; none when no
    helper acts).
:func:`agony_hit`
    A hit on an agonising character (A1-11: nothing more, 1 PP lost, or death on a
    critical): the fights' (``agony_damage``), the track has no enemy.

The round ``t`` (1-based), in order:

1. Healing (R1-03): ``healed``: 1 HP or more, ``revived``.
2. First aid (R1-02): ``aided`` (the helper's check succeeded this round, before the
   character's turn): the PP loss stops, stabilised.
3. Its turn, if still agonising: the ``spend`` policy may spend ``cost`` PP to
   stabilise (R1-04) when it has that many: ``never``; ``asap``; ``last`` (when its PP
   equal the cost); an integer ``k`` (in round ``k + 1`` or later, or at its last chance).
4. Stabilised (by first aid, its PP, or a nonlethal knock-out) with ``back_in_fight``:
   it spends 1 PP to regain 1 HP (R1-05), ``back``, when it has ``enough_pp`` (A1-3;
   1 after a nonlethal knock-out); else ``stable``.
5. End of its turn, still agonising: it loses 1 PP (R1-01); at 0 PP, ``dead``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

__all__ = [
    "DEAD",
    "STABLE",
    "REVIVED",
    "BACK",
    "AGONISING",
    "STABILISED",
    "QUARTER",
    "stabilize_cost",
    "knockout",
    "wants_to_spend",
    "wants_to_spend_phase",
    "perseverance_round",
    "round_pmf",
    "packed_rounds",
    "AGONY_DAMAGE",
    "agony_hit",
]

#: Outcome codes of the perseverance track.
DEAD, STABLE, REVIVED, BACK = 0, 1, 2, 3
#: Phases of a character still in the track.
AGONISING, STABILISED = 0, 1
_N_OUT = 4


#: A1-11: what damage taken while agonising does (R1-01 says nothing): nothing more
#: (``none``, default), 1 PP lost a hit (``pp``) or death on a critical (``crit_kills``).
AGONY_DAMAGE = ("none", "pp", "crit_kills")

#: A1-13: a quarter of the maximum PP rounded down (default) or up (R1-04).
QUARTER = ("down", "up")


def stabilize_cost(pp_max, cap: int | None = 3, rounding: str = "down"):
    """PP spent to stabilise (R1-04): a quarter of ``pp_max`` (rounded ``down``, default,
    or ``up``: A1-13), min 1, max ``cap``.

    Vectorised over ``pp_max``; ``cap=None`` removes the maximum.
    """
    pp_max = np.asarray(pp_max)
    cost = np.maximum((pp_max + 3) // 4 if rounding == "up" else pp_max // 4, 1)
    if cap is not None:
        cost = np.minimum(cost, cap)
    return cost if cost.ndim else int(cost)


def knockout(
    pp: int, *, nonlethal: bool = False, back_in_fight: bool = False, zero_pp: str = "at_once"
) -> tuple[int | None, int, int]:
    """``(outcome or None, phase, pp)`` at the knock-out, step 0.

    Nonlethal: stabilised at once (R1-11): ``stable``, unless the character may get
    back in the fight and has 1 PP (then it waits for its turn). Lethal with 0 PP
    (A1-1): ``zero_pp="at_once"`` dead at once, ``"end_of_turn"`` agonising with 0 PP.
    Otherwise agonising (R1-01).
    """
    if nonlethal:
        if back_in_fight and pp >= 1:
            return None, STABILISED, pp
        return STABLE, STABILISED, pp
    if pp == 0 and zero_pp == "at_once":
        return DEAD, AGONISING, 0
    return None, AGONISING, pp


def wants_to_spend(spend: str | int, pp: int, cost: int, t: int) -> bool:
    """Whether the ``spend`` policy spends PP to stabilise at its turn in round ``t`` (R1-04)."""
    if spend == "never":
        return False
    if spend == "asap":
        return True
    if spend == "last":
        return pp <= cost
    return t > int(spend) or pp <= cost


def wants_to_spend_phase(spend: str | int, pp, cost, t) -> np.ndarray:
    """:func:`wants_to_spend` over tracks: ``pp``, ``cost`` and ``t`` arrays (or numbers)
    broadcast; bool array."""
    pp = np.asarray(pp)
    if spend == "never":
        return np.zeros(pp.shape, dtype=bool)
    if spend == "asap":
        return np.ones(pp.shape, dtype=bool)
    if spend == "last":
        return pp <= cost
    return (np.asarray(t) > int(spend)) | (pp <= cost)


def perseverance_round(
    phase: int,
    pp: int,
    t: int,
    *,
    healed: bool = False,
    aided: bool = False,
    cost: int,
    spend: str | int = "last",
    back_in_fight: bool = False,
    enough_pp: int = 1,
) -> tuple[int | None, int, int]:
    """One round of one character (R1-01..R1-05, A1-3): ``(outcome or None, phase, pp)``.

    Parameters
    ----------
    phase, pp : int
        ``AGONISING`` or ``STABILISED`` (a nonlethal knock-out waiting for its turn), and
        its PP at the start of the round.
    t : int
        The round, 1-based (for an integer ``spend`` policy).
    healed : bool
        Healing reaches it at the start of the round (R1-03).
    aided : bool
        First aid succeeded this round, before its turn (R1-02).
    cost, spend, back_in_fight, enough_pp
        PP to stabilise (:func:`stabilize_cost`), the spending policy, R1-05 on, and the
        PP it needs to get back in the fight after a lethal knock-out (A1-3).
    """
    if healed:
        return REVIVED, phase, pp
    stabilised = phase == STABILISED
    need = 1 if stabilised else enough_pp  # only a nonlethal knock-out starts stabilised
    if not stabilised and aided:
        stabilised = True
    if not stabilised and pp >= cost and wants_to_spend(spend, pp, cost, t):
        pp -= cost
        stabilised = True
    if stabilised:
        if back_in_fight and pp >= need:
            return BACK, STABILISED, pp - 1
        return STABLE, STABILISED, pp
    pp -= 1
    if pp <= 0:
        return DEAD, AGONISING, 0
    return None, AGONISING, pp


def round_pmf(
    phase: int,
    pp: int,
    t: int,
    *,
    p_aid: float = 0.0,
    healed: bool = False,
    cost: int,
    spend: str | int = "last",
    back_in_fight: bool = False,
    enough_pp: int = 1,
) -> dict[tuple[int | None, int, int], float]:
    """Exact ``{(outcome or None, phase, pp): probability}`` of one round.

    :func:`perseverance_round` with first aid succeeding with probability ``p_aid``.
    """
    out: dict = {}
    opts: dict[str, Any] = dict(
        healed=healed, cost=cost, spend=spend, back_in_fight=back_in_fight, enough_pp=enough_pp
    )
    for aided, p in ((True, p_aid), (False, 1.0 - p_aid)):
        if p > 0:
            key = perseverance_round(phase, pp, t, aided=aided, **opts)
            out[key] = out.get(key, 0.0) + p
    return out


def _one_round(
    pp_max: int, t: int, healed: bool, aid: bool, opts: tuple
) -> tuple[np.ndarray, np.ndarray]:
    """Next engine code and PP of every state (``phase * (pp_max + 1) + pp``) for one round."""
    cost, spend, back_in_fight, enough_pp = opts
    n_states = 2 * (pp_max + 1)
    code = np.empty(n_states, dtype=np.int64)
    pps = np.empty(n_states, dtype=np.int64)
    for s in range(n_states):
        phase, pp = divmod(s, pp_max + 1)
        out, ph2, pp2 = perseverance_round(
            phase,
            pp,
            t,
            healed=healed,
            aided=aid and phase == AGONISING,
            cost=cost,
            spend=spend,
            back_in_fight=back_in_fight,
            enough_pp=enough_pp,
        )
        code[s] = out if out is not None else -1 - (ph2 * (pp_max + 1) + pp2)
        pps[s] = pp2
    return code, pps


@lru_cache(maxsize=512)
def packed_rounds(
    pp_max: int,
    cost: int,
    spend: str | int,
    back_in_fight: bool,
    enough_pp: int,
    aid_table: tuple[bool, ...] | None,
    rounds: tuple[tuple[int, bool, bool], ...],
) -> tuple[np.ndarray, np.ndarray, int]:
    """Tables of ``len(rounds)`` rounds for every state and packed roll (cached).

    Parameters
    ----------
    pp_max, cost, spend, back_in_fight, enough_pp
        The character's PP maximum and the round's options (:func:`perseverance_round`).
    aid_table : tuple of bool or None
        First aid's result for each natural d20 (``first_aid_table``), None without a helper.
    rounds : tuple of (t, healed, helper acts)
        The rounds, in order.

    Returns
    -------
    (codes, pp, width)
        ``codes`` (int16) and ``pp`` (int16), flat, index ``state * width + r``, state =
        ``phase * (pp_max + 1) + pp``: the engine code after the rounds (``-1 - state``
        still in the track, else ``outcome + 4 * offset`` for a track ending in round
        ``offset`` of them) and the PP then. Round ``i`` with a helper reads the natural
        roll ``r // 20**j % 20 + 1``, ``j`` counting only the rounds with a helper.
    """
    opts = (cost, spend, back_in_fight, enough_pp)
    n_states = 2 * (pp_max + 1)
    code = (-1 - np.arange(n_states, dtype=np.int64))[:, None]  # (S, width so far)
    pps = (np.arange(n_states, dtype=np.int64) % (pp_max + 1))[:, None]
    for offset, (t, healed, helper) in enumerate(rounds):
        plain = _one_round(pp_max, t, healed, False, opts)
        if helper and aid_table is not None:
            aided = _one_round(pp_max, t, healed, True, opts)
            aid = np.asarray(aid_table, dtype=bool)  # (20,)
            nxt_code = np.where(aid[:, None], aided[0][:, None].T, plain[0][None, :])  # (20, S)
            nxt_pp = np.where(aid[:, None], aided[1][:, None].T, plain[1][None, :])
        else:
            nxt_code, nxt_pp = plain[0][None, :], plain[1][None, :]  # (1, S)
        active = code < 0  # (S, W)
        s_now = np.where(active, -1 - code, 0)
        step_code = nxt_code[:, s_now]  # (R, S, W)
        step_code = np.where(step_code >= 0, step_code + _N_OUT * offset, step_code)
        step_pp = nxt_pp[:, s_now]
        # the new digit is the most significant: index r + W * roll
        code = (
            np.where(active[None], step_code, code[None]).transpose(1, 0, 2).reshape(n_states, -1)
        )
        pps = np.where(active[None], step_pp, pps[None]).transpose(1, 0, 2).reshape(n_states, -1)
    width = code.shape[1]
    code16, pp16 = code.astype(np.int16).ravel(), pps.astype(np.int16).ravel()
    for a in (code16, pp16):
        a.setflags(write=False)
    return code16, pp16, width


def agony_hit(pp: int, crit: bool, reading: str = "none") -> tuple[bool, int]:
    """A hit on an agonising character (R1-01 under A1-11's ``reading``): ``(dead, pp)``.

    ``none`` (default): nothing more (the text says nothing). ``pp``: it loses 1 PP, and
    as at the end of its turn (R1-01) it dies when its PP fall to 0 (a character
    agonising with 0 PP, A1-1's ``end_of_turn``, dies of any hit). ``crit_kills``: a
    critical hit (a strike's critical success, a save's critical failure) kills it.
    """
    if reading not in AGONY_DAMAGE:
        raise ValueError(f"reading={reading!r}: one of {', '.join(AGONY_DAMAGE)}")
    if reading == "pp":
        pp = max(int(pp) - 1, 0)
        return pp == 0, pp
    return reading == "crit_kills" and bool(crit), int(pp)
