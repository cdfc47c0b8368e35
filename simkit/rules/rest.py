"""Seed 001 rest and healing: HP and PE recovery, damage to PE and HP, ability damage.

Vectorised functions for notebooks (R1-09, R1-10, R1-12; A1-4, A1-5). Every argument
that is a number may be an array; arrays broadcast together as in numpy. Options are
strings; a bad value raises :class:`simkit.core.params.ParamError` naming the argument.

- :func:`hp_after_rest`, :func:`days_to_full_hp`, :func:`rest_table`: HP regained by a
  night's rest (8 h: 1 HP per level) or 24 h in bed (2 HP per level), never above the
  maximum (R1-10). One rest period per day.
- :func:`pp_after_rest`: perseverance points after a rest within an adventuring day
  (A1-7: back in full after a night's rest, default, or never within the day).
- :func:`recover_pe`: PE back to the maximum by spending 1 PP and resting 10 minutes,
  or after a night's rest (R1-09); :func:`recover_pe_ref` is its scalar reference.
- :func:`pe_after_short_rest`: whether a character spends that PP in a 10-minute rest
  (A1-8's readings, :data:`PE_REST`), through :func:`recover_pe`;
  :func:`pe_after_short_rest_ref` is its scalar reference (through
  :func:`recover_pe_ref`).
- :func:`split_damage`: damage taken by PE first, then HP (A1-5 default ``pe_first``,
  as in the resolve-point system the text follows), or by HP only (``hp_only``);
  :func:`split_damage_ref` is its scalar reference (the party fight's reference uses it,
  its kernel the vectorised one).
- :func:`ability_modifier`, :func:`modifier_loss`: ability damage under A1-4's two
  readings: ``score`` (default: modifier = floor((score - damage - 10) / 2), as the
  text's example computes: Strength reduced by 4 loses 2 points of modifier) and
  ``per_point`` (one modifier point per point of damage, as the sentence reads).
- :func:`con_damage`: what Constitution damage does (R1-12): the Constitution
  modifier drives the hourly recovery checks (R1-06) and PE. The text only says lower
  Constitution "can cost extra PE"; the reading here is the resolve-point system's:
  maximum PE = level x (class PE per level + Constitution modifier), at least 0.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simkit.core.params import ParamError
from simkit.rules.hourly import hourly_odds

__all__ = [
    "ABILITY_READINGS",
    "REST_HOURS",
    "hp_after_rest",
    "days_to_full_hp",
    "rest_table",
    "recover_pe",
    "recover_pe_ref",
    "PE_REST",
    "pe_after_short_rest",
    "pe_after_short_rest_ref",
    "PE_DAMAGE",
    "PP_BACK",
    "pp_after_rest",
    "WAKE_RESTORES",
    "wake_rest",
    "split_damage",
    "split_damage_ref",
    "ability_modifier",
    "modifier_loss",
    "pe_max",
    "con_damage",
]

#: Hours of each kind of rest (R1-09, R1-10) and HP regained per level per rest.
REST_HOURS = {"night": 8, "bed": 24}
HP_PER_LEVEL = {"night": 1, "bed": 2}
#: Minutes of rest after spending 1 PP to regain all PE (R1-09).
PP_REST_MINUTES = 10


# -- input validation ---------------------------------------------------------------------
def _ints(name: str, value, lo: int | None = None) -> np.ndarray:
    arr = np.asarray(value)
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or _integral_float(arr)):
        raise ParamError(f"{name}={value!r} is not allowed: {name} must be integers")
    arr = arr.astype(np.int64)
    if lo is not None and arr.size and arr.min() < lo:
        raise ParamError(f"{name}={value!r} is not allowed: {name} must be integers >= {lo}")
    return arr


def _integral_float(arr: np.ndarray) -> bool:
    return (
        np.issubdtype(arr.dtype, np.floating)
        and bool(np.all(np.isfinite(arr)))
        and bool(np.all(arr == np.round(arr)))
    )


def _choice(name: str, value, choices: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise ParamError(
            f"{name}={value!r} is not allowed: {name} must be one of {', '.join(choices)}"
        )
    return value


def _out(x: np.ndarray):
    return x if x.ndim else int(x)


# -- HP (R1-10) ---------------------------------------------------------------------------
def hp_after_rest(hp, hp_max, level, days=1, rest: str = "night"):
    """HP after ``days`` days of rest (R1-10), never above ``hp_max``.

    Parameters
    ----------
    hp, hp_max : int or array_like
        Current and maximum HP (``0 <= hp <= hp_max``).
    level : int or array_like
        Character level (>= 1).
    days : int or array_like
        Days of rest (>= 0), one rest period a day.
    rest : {"night", "bed"}
        ``night``: a full night's rest (8 h), 1 HP per level; ``bed``: 24 consecutive
        hours in bed, 2 HP per level.
    """
    hp, hp_max = _ints("hp", hp, 0), _ints("hp_max", hp_max, 1)
    level, days = _ints("level", level, 1), _ints("days", days, 0)
    rest = _choice("rest", rest, tuple(REST_HOURS))
    if np.any(hp > hp_max):
        raise ParamError(f"hp={hp!r} is not allowed: hp must be at most hp_max={hp_max!r}")
    return _out(np.minimum(hp + days * level * HP_PER_LEVEL[rest], hp_max))


def days_to_full_hp(hp_max, level, hp=0, rest: str = "night"):
    """Days of rest from ``hp`` to ``hp_max`` (R1-10): ceil(missing / (level x rate)).

    ``rest`` is ``"night"`` (1 HP per level a day) or ``"bed"`` (2 HP per level a
    day, 24 h in bed). Vectorised; 0 when already at full HP.
    """
    hp, hp_max, level = _ints("hp", hp, 0), _ints("hp_max", hp_max, 1), _ints("level", level, 1)
    rest = _choice("rest", rest, tuple(REST_HOURS))
    if np.any(hp > hp_max):
        raise ParamError(f"hp={hp!r} is not allowed: hp must be at most hp_max={hp_max!r}")
    per_day = level * HP_PER_LEVEL[rest]
    return _out(-(-(hp_max - hp) // per_day))


def rest_table(levels, hp_max, hp=0) -> pd.DataFrame:
    """Days (and hours) of rest to full HP for each level and maximum HP (R1-10).

    ``hp_max`` is one value per level (broadcast). Columns ``level, hp_max, hp,
    night_days, night_hours, bed_days, bed_hours``: ``night_hours`` counts only the
    8-hour nights, ``bed_hours`` the 24-hour days in bed.
    """
    levels = _ints("levels", np.atleast_1d(levels), 1)
    hp_max_b, hp_b = np.broadcast_arrays(_ints("hp_max", hp_max, 1), _ints("hp", hp, 0))
    levels, hp_max_b, hp_b = np.broadcast_arrays(levels, hp_max_b, hp_b)
    night = np.atleast_1d(days_to_full_hp(hp_max_b, levels, hp_b, "night"))
    bed = np.atleast_1d(days_to_full_hp(hp_max_b, levels, hp_b, "bed"))
    return pd.DataFrame(
        {
            "level": levels,
            "hp_max": hp_max_b,
            "hp": hp_b,
            "night_days": night,
            "night_hours": night * REST_HOURS["night"],
            "bed_days": bed,
            "bed_hours": bed * REST_HOURS["bed"],
        }
    )


# -- PE (R1-09) ----------------------------------------------------------------------------
def recover_pe(pe, pe_max, pp, method: str = "pp"):
    """PE recovery (R1-09): ``(pe, pp, minutes)`` after one recovery.

    ``method="pp"``: a character missing PE with at least 1 PP spends 1 PP and rests
    10 minutes to regain all its PE (others are unchanged, 0 minutes). ``"night"``:
    a night's rest (8 h = 480 minutes) restores all PE, no PP spent.
    """
    pe, pe_max, pp = _ints("pe", pe, 0), _ints("pe_max", pe_max, 0), _ints("pp", pp, 0)
    method = _choice("method", method, ("pp", "night"))
    if np.any(pe > pe_max):
        raise ParamError(f"pe={pe!r} is not allowed: pe must be at most pe_max={pe_max!r}")
    pe, pe_max, pp = np.broadcast_arrays(pe, pe_max, pp)
    match method:
        case "pp":
            does = (pe < pe_max) & (pp >= 1)
            return (
                _out(np.where(does, pe_max, pe)),
                _out(np.where(does, pp - 1, pp)),
                _out(np.where(does, PP_REST_MINUTES, 0)),
            )
        case "night":
            return (
                _out(pe_max.copy()),
                _out(pp.copy()),
                _out(np.full(pe.shape, 60 * REST_HOURS["night"])),
            )


def recover_pe_ref(pe: int, pe_max: int, pp: int, method: str = "pp") -> tuple[int, int, int]:
    """Scalar reference of :func:`recover_pe` for one character (R1-09), plain Python:
    ``(pe, pp, minutes)``."""
    if method == "night":  # a night's rest: every PE back, no PP spent
        return pe_max, pp, 60 * REST_HOURS["night"]
    if pe < pe_max and pp >= 1:  # 1 PP and 10 minutes of rest: every PE back
        return pe_max, pp - 1, PP_REST_MINUTES
    return pe, pp, 0


# -- PE in a short rest (R1-09, A1-8) ------------------------------------------------------------
#: A1-8: when a character spends 1 PP in a 10-minute rest to get all its PE back (R1-09;
#: the seed leaves it to the player, and PP also keep a character alive while it agonises,
#: R1-01, R1-04): ``spare_pp`` (default) when its PE are below the maximum and it keeps
#: at least ``keep`` PP after spending (its stabilisation cost: a PP kept to stabilise is
#: worth more than stamina); ``any_pp`` whenever its PE are below the maximum and it has a
#: PP; ``never``.
PE_REST = ("spare_pp", "any_pp", "never")


def pe_after_short_rest(pe, pe_max, pp, keep=0, reading: str = "spare_pp"):
    """``(pe, pp)`` after a 10-minute rest (R1-09 under A1-8's ``reading``).

    Parameters
    ----------
    pe, pe_max, pp : int or array_like
        Current and maximum stamina points (``0 <= pe <= pe_max``) and PP (>= 0).
    keep : int or array_like
        PP the character keeps under ``spare_pp`` (>= 0; its stabilisation cost, R1-04:
        :func:`simkit.rules.perseverance.stabilize_cost`).
    reading : {"spare_pp", "any_pp", "never"}
        A1-8 (:data:`PE_REST`): a character with PE below the maximum spends 1 PP when it
        has ``keep + 1`` or more (``spare_pp``), 1 or more (``any_pp``), or never; the
        spending is :func:`recover_pe` (``method="pp"``): every PE back, 1 PP gone.
    """
    pe, pe_max, pp = _ints("pe", pe, 0), _ints("pe_max", pe_max, 0), _ints("pp", pp, 0)
    keep = _ints("keep", keep, 0)
    reading = _choice("reading", reading, PE_REST)
    pe, pe_max, pp, keep = np.broadcast_arrays(pe, pe_max, pp, keep)
    match reading:
        case "spare_pp":
            may = pp >= keep + 1
        case "any_pp":
            may = pp >= 1
        case "never":
            may = np.zeros(pp.shape, dtype=bool)
    new_pe, new_pp, _ = recover_pe(pe, pe_max, np.where(may, pp, 0), "pp")
    return _out(np.where(may, new_pe, pe)), _out(np.where(may, new_pp, pp))


def pe_after_short_rest_ref(
    pe: int, pe_max: int, pp: int, keep: int = 0, reading: str = "spare_pp"
) -> tuple[int, int]:
    """Scalar reference of :func:`pe_after_short_rest` for one character (R1-09, A1-8),
    plain Python: ``(pe, pp)``."""
    if reading == "never" or (reading == "spare_pp" and pp - 1 < keep):
        return pe, pp  # it keeps its PP (A1-8)
    pe, pp, _ = recover_pe_ref(pe, pe_max, pp, "pp")  # 1 PP for every PE, if it has one
    return pe, pp


# -- PP within a day (A1-7) -------------------------------------------------------------------
#: A1-7: how perseverance points come back within an adventuring day (the seed does not
#: say): in full after a night's rest (``night``, default) or not at all (``never``).
PP_BACK = ("night", "never")


def pp_after_rest(pp, pp_max, rest: str, reading: str = "night"):
    """PP after a rest (A1-7): ``rest`` is ``short`` (10 minutes: none back), ``night`` or
    ``bed`` (back to ``pp_max`` under ``reading="night"``, unchanged under ``"never"``)."""
    pp, pp_max = _ints("pp", pp, 0), _ints("pp_max", pp_max, 0)
    rest = _choice("rest", rest, ("short",) + tuple(REST_HOURS))
    reading = _choice("reading", reading, PP_BACK)
    if rest == "short" or reading == "never":
        return _out(np.broadcast_arrays(pp, pp_max)[0].copy())
    return _out(np.maximum(*np.broadcast_arrays(pp, pp_max)))


#: A1-10: what R1-07's wake-up after 8 hours "as after a good night's rest" gives besides
#: its HP: nothing (``hp``, default) or the PE and PP a night's rest gives (``all``: R1-09,
#: the PP as A1-7's ``pp_back`` reads a night).
WAKE_RESTORES = ("hp", "all")


def wake_rest(
    pe: int, pe_max: int, pp: int, pp_max: int, reading: str = "hp", pp_back: str = "night"
) -> tuple[int, int]:
    """``(pe, pp)`` of a character that wakes by R1-07 (8 hours, no hourly result) under
    A1-10's ``reading``: unchanged (``hp``), or as after a night's rest (``all``: every PE
    back, :func:`recover_pe_ref` ``night``; the PP by :func:`pp_after_rest` ``night`` under
    A1-7's ``pp_back``)."""
    _choice("reading", reading, WAKE_RESTORES)
    if reading == "hp":
        return int(pe), int(pp)
    pe = recover_pe_ref(pe, pe_max, pp, "night")[0]
    return int(pe), int(pp_after_rest(pp, pp_max, "night", pp_back))


# -- damage (A1-5) ---------------------------------------------------------------------------
#: A1-5's readings: damage takes PE first, then HP (default), or HP only (PE untouched).
PE_DAMAGE = ("pe_first", "hp_only")


def split_damage(damage, pe, hp, order: str = "pe_first"):
    """Apply ``damage`` to PE and HP (A1-5): ``(pe, hp, excess)`` after the hit.

    ``order="pe_first"`` (default): PE absorb the damage first, the rest goes to HP;
    ``"hp_only"``: HP take it all, PE are untouched. Neither goes below 0; ``excess``
    is the damage beyond 0 HP. HP at 0 means agonising (R1-01), or stabilised after
    nonlethal damage (R1-11).
    """
    damage, pe, hp = _ints("damage", damage, 0), _ints("pe", pe, 0), _ints("hp", hp, 0)
    order = _choice("order", order, PE_DAMAGE)
    match order:
        case "pe_first":
            to_pe = np.minimum(damage, pe)
        case "hp_only":
            to_pe = np.zeros_like(damage)
    rest = damage - to_pe
    to_hp = np.minimum(rest, hp)
    return _out(pe - to_pe), _out(hp - to_hp), _out(rest - to_hp)


def split_damage_ref(
    damage: int, pe: int, hp: int, order: str = "pe_first"
) -> tuple[int, int, int]:
    """Scalar reference of :func:`split_damage` for one hit (A1-5), plain Python:
    ``(pe, hp, excess)``."""
    to_pe = min(damage, pe) if order == "pe_first" else 0  # PE first (A1-5), or untouched
    rest = damage - to_pe
    to_hp = min(rest, hp)
    return pe - to_pe, hp - to_hp, rest - to_hp


# -- abilities (R1-12, A1-4) ---------------------------------------------------------------------
#: A1-4's readings of ability damage: the damaged score's modifier (default), one modifier
#: point per point of damage, or one per 2 points whatever the score's parity.
ABILITY_READINGS = ("score", "per_point", "per_two")


def ability_modifier(score, damage=0, reading: str = "score"):
    """Ability modifier after ``damage`` points of ability damage (R1-12, A1-4).

    ``reading="score"`` (default): modifier of the damaged score, floor((score -
    damage - 10) / 2), so Strength 14 reduced by 4 loses 2 points of modifier, as the
    text's example says. ``"per_point"``: floor((score - 10) / 2) - damage, one point
    of modifier per point of damage, as the sentence before the example says.
    ``"per_two"`` (A1-4's third reading): floor((score - 10) / 2) - floor(damage / 2), one
    point of modifier per 2 points of damage whatever the score's parity (Strength 14
    damaged by 1 loses 1 under ``score``, 0 under ``per_two``).
    """
    score, damage = _ints("score", score, 0), _ints("damage", damage, 0)
    reading = _choice("reading", reading, ABILITY_READINGS)
    match reading:
        case "score":
            return _out((np.maximum(score - damage, 0) - 10) // 2)
        case "per_point":
            return _out((score - 10) // 2 - damage)
        case "per_two":
            return _out((score - 10) // 2 - damage // 2)


def modifier_loss(score, damage, reading: str = "score"):
    """Points of modifier lost to ``damage`` points of ability damage (A1-4)."""
    return _out(
        np.asarray(ability_modifier(score, 0, reading))
        - np.asarray(ability_modifier(score, damage, reading))
    )


def pe_max(level, pe_per_level, con_mod):
    """Maximum PE = level x (class PE per level + Constitution modifier), at least 0.

    The resolve-point system's formula (a reading: the seed only says that lower
    Constitution "can cost extra PE", R1-12).
    """
    level = _ints("level", level, 1)
    pe_per_level, con_mod = _ints("pe_per_level", pe_per_level, 0), _ints("con_mod", con_mod)
    return _out(level * np.maximum(pe_per_level + con_mod, 0))


def con_damage(
    score,
    damage,
    *,
    level: int = 1,
    pe_per_level: int = 6,
    reading: str = "score",
    healer: int | None = None,
    check_penalty: int = 0,
    checks: int = 8,
    natural: bool = False,
) -> pd.DataFrame:
    """What Constitution damage does (R1-12): modifier, PE and the hourly checks.

    Parameters
    ----------
    score : int
        Constitution score before damage.
    damage : int or array_like of int
        Points of Constitution damage (one row each).
    level, pe_per_level : int
        Character level and class PE per level (for the maximum PE, see :func:`pe_max`).
    reading : {"score", "per_point", "per_two"}
        A1-4's reading of ability damage.
    healer, check_penalty, checks, natural
        As in the ``recovery`` model (R1-08, A1-6, A1-2; the check itself is
        :func:`simkit.rules.hourly.hourly_result`).

    Returns
    -------
    DataFrame
        Columns ``damage, con_mod, mod_loss, pe_max, pe_lost, p_dead_hour,
        p_awake_hour, p_dead_recovery``: the modifier after damage, the modifier and
        maximum PE lost, the odds of one hourly Constitution check (R1-06) and the
        exact probability of dying during the hours of recovery (the ``recovery``
        model's answer: a death on one of ``checks`` independent checks, each reached
        only while the character stays stable).
    """
    damage = np.atleast_1d(_ints("damage", damage, 0))
    mods = np.atleast_1d(ability_modifier(score, damage, reading))
    base = ability_modifier(score, 0, reading)
    odds = hourly_odds(mods, healer, check_penalty, natural=bool(natural))
    if checks not in (7, 8):
        raise ParamError(f"checks={checks!r} is not allowed: checks must be 7 or 8 (A1-2)")
    stay_powers = (
        odds["stay"][:, None] ** np.arange(checks)[None, :]
    )  # P(still stable before check h)
    p_rec = odds["dead"] * stay_powers.sum(axis=1)
    pe_before = pe_max(level, pe_per_level, base)
    pe_after = np.atleast_1d(pe_max(level, pe_per_level, mods))
    return pd.DataFrame(
        {
            "damage": damage,
            "con_mod": mods,
            "mod_loss": base - mods,
            "pe_max": pe_after,
            "pe_lost": pe_before - pe_after,
            "p_dead_hour": odds["dead"],
            "p_awake_hour": odds["awake"],
            "p_dead_recovery": p_rec,
        }
    )
