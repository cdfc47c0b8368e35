"""A fall by height (seed 004, R4-07; A4-1) with seed-000 HP rules (R0-13, R0-14) as one phase.

:func:`band_of`, :func:`fall_dice`
    The height's band of R4-07 and the d6s it rolls (A4-1 ``reading``).
:func:`fall_result`
    The rule (scalar reference): a band and the d6s rolled in, ``(outcome code,
    damage)`` out.
:func:`fall_cells`
    The exact distribution: every band (with its probability) and every equally likely
    combination of d6s, through :func:`fall_result` (cached).
:func:`fall_table`, :func:`fall_phase`
    The vectorised fall: ``fall_table`` runs :func:`fall_result` over every band and
    every combination of up to four d6s (``6**4 = 1296``; cached on what it depends
    on); :func:`fall_phase` draws the band (one draw from the height distribution, none
    for a fixed band) and one uniform integer for the dice per track, and reads the
    outcome, damage and band in the tables: no search, no quantile.

R4-07, by height: under 2 m none; 2 m to under 4 m 1d6; 4-<6 m 2d6; 6-<8 m 3d6;
8-<10 m 4d6 (``reading="table"``) or 3d6 (``"example"``, the worked example, A4-1);
10-<12 m HP drop to 0, unconscious, no HP deterioration (``ko``); 12 m or more dead.
Damage removes temporary HP first (R0-14), then HP; at 0 HP the faller is ``ko``, else
``standing``. With ``massive_damage`` a fall dealing at least twice the maximum HP
kills (R0-13; the raw damage counts, temporary HP included).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np

from simkit.rules.guide import draw_cells
from simkit.rules.heights import Heights

__all__ = [
    "FALL_EDGES",
    "BAND_KO",
    "BAND_DEAD",
    "DEAD",
    "KO",
    "STANDING",
    "DICE_WIDTH",
    "TWELVE_M",
    "band_of",
    "fall_dice",
    "twelve_metres",
    "fall_result",
    "fall_results",
    "STABLE",
    "fall_cells",
    "fall_table",
    "band_draw",
    "fall_phase",
]

#: Lower edges (metres) of bands 1..6 of R4-07; band 0 is under 2 m.
FALL_EDGES = (2.0, 4.0, 6.0, 8.0, 10.0, 12.0)
#: The 10-<12 m band (0 HP, not dying) and the 12 m+ band (dead).
BAND_KO, BAND_DEAD = 5, 6
#: Outcome codes of a fall.
DEAD, KO, STANDING = 0, 1, 2
#: A code a fall's caller may give the 10-<12 m band (``band_ko``): at 0 HP, stable (R4-07:
#: not dying, unlike ``KO``, damage that brings the faller to 0 HP).
STABLE = 3
#: Equally likely combinations of the most d6s a band rolls (4): one draw in ``0..1295``.
DICE_WIDTH = 6**4
_N_BANDS = len(FALL_EDGES) + 1


def band_of(height: float, at_12m: str = "dead") -> int:
    """Band of R4-07 of a height in metres (plain Python): 0..6.

    ``at_12m`` (A4-4): a fall of exactly 12 m is in the dead band (``"dead"``, the
    table's "12 m or more") or the knocked-out band (``"ko"``, the text's "between 10 and
    12 m", death "beyond 12 m").
    """
    if at_12m == "ko" and height == FALL_EDGES[-1]:
        return BAND_KO
    return sum(height >= edge for edge in FALL_EDGES)


#: A4-4's readings of a fall of exactly 12 m (R4-07): the table's ``dead`` (default) or the
#: text's ``ko``.
TWELVE_M = ("dead", "ko")


def twelve_metres(heights: Heights, at_12m: str = "dead") -> Heights:
    """``heights`` with a listed height of exactly 12 m read as A4-4 ``at_12m`` says.

    ``"dead"`` (default) leaves them as they are (12 m is the dead band); ``"ko"`` moves
    each listed 12 m just below 12 m (the 10-<12 m band: knocked out, R4-07), so that the
    band draw and :meth:`Heights.band_probabilities` read it as :func:`band_of` does. A
    uniform range is unchanged (exactly 12 m has probability 0).
    """
    if at_12m == "dead" or heights.kind != "list" or FALL_EDGES[-1] not in heights.values:
        return heights
    below = math.nextafter(FALL_EDGES[-1], 0.0)
    return Heights("list", tuple(below if v == FALL_EDGES[-1] else v for v in heights.values))


def fall_dice(band: int, reading: str = "table") -> int:
    """Number of d6 of a damage band 1..4 (R4-07; A4-1 ``reading``); 0 otherwise."""
    if not 1 <= band <= 4:
        return 0
    if band == 4 and reading == "example":
        return 3
    return band


def fall_result(
    band: int,
    dice_total: int = 0,
    *,
    hp: int,
    hp_max: int,
    temp_hp: int = 0,
    massive_damage: bool = False,
    reading: str = "table",
    band_ko: int = KO,
) -> tuple[int, int]:
    """One fall (R4-07, A4-1, R0-13, R0-14): ``(outcome code, damage)``.

    Parameters
    ----------
    band : int
        The height's band, 0..6 (:func:`band_of`).
    dice_total : int
        The sum of the band's d6s (:func:`fall_dice` of them; ignored when it rolls none).
    hp, hp_max : int
        Current and maximum HP of the faller.
    temp_hp : int
        Temporary HP, lost first (R0-14).
    massive_damage : bool
        Seed-000 massive damage: damage >= 2 x ``hp_max`` kills (R0-13).
    reading : {"table", "example"}
        A4-1: 8-<10 m rolls 4d6 (table) or 3d6 (example).
    band_ko : int
        The code given to the 10-<12 m band (``KO``; a chain may tell it apart).

    Returns
    -------
    tuple of int
        The outcome code (``DEAD``, ``KO``, ``STANDING`` or ``band_ko``) and the damage
        rolled (0 when no dice are rolled).
    """
    if band == BAND_DEAD:
        return DEAD, 0
    if band == BAND_KO:
        return band_ko, 0
    if fall_dice(band, reading) == 0:
        return STANDING, 0
    damage = dice_total
    if massive_damage and damage >= 2 * hp_max:
        return DEAD, damage
    return (KO if max(0, damage - temp_hp) >= hp else STANDING), damage


def fall_results(
    band,
    roll,
    *,
    hp,
    hp_max,
    temp_hp=0,
    massive_damage: bool = False,
    reading: str = "table",
    band_ko: int = KO,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`fall_result` over arrays (broadcast together): ``(codes int8, damage int64)``
    of falls in bands ``band`` whose dice are the packed rolls ``roll`` (``< 1296``; the d6
    ``i`` is ``roll // 6**i % 6 + 1``, a band rolling ``k`` d6s reads the first ``k``)."""
    band = np.asarray(band, dtype=np.int64)
    roll = np.asarray(roll, dtype=np.int64)
    _, table = fall_table(hp=0, hp_max=0, reading=reading)  # the dice's damage by band
    damage = table.take(band * DICE_WIDTH + roll)
    n_dice = np.array([fall_dice(b, reading) for b in range(_N_BANDS)]).take(band)
    massive = massive_damage & (damage >= 2 * np.asarray(hp_max))
    knocked = np.maximum(damage - np.asarray(temp_hp), 0) >= np.asarray(hp)
    code = np.where(massive, DEAD, np.where(knocked, KO, STANDING))
    code = np.where(n_dice == 0, STANDING, code)
    code = np.where(band == BAND_KO, band_ko, np.where(band == BAND_DEAD, DEAD, code))
    return code.astype(np.int8), damage


def _dice_totals(k: int) -> np.ndarray:
    """Sum of the first ``k`` d6s of every packed roll ``r < 1296``.

    The d6 ``i`` of ``r`` is ``r // 6**i % 6 + 1``.
    """
    r = np.arange(DICE_WIDTH)
    return sum((r // 6**i % 6 + 1 for i in range(k)), start=np.zeros(DICE_WIDTH, dtype=np.int64))


@lru_cache(maxsize=256)
def _table(
    hp: int, hp_max: int, temp_hp: int, massive_damage: bool, reading: str, band_ko: int
) -> tuple[np.ndarray, np.ndarray]:
    codes = np.empty((_N_BANDS, DICE_WIDTH), dtype=np.int8)
    damage = np.empty((_N_BANDS, DICE_WIDTH), dtype=np.int64)
    opts: dict[str, Any] = dict(
        hp=hp,
        hp_max=hp_max,
        temp_hp=temp_hp,
        massive_damage=massive_damage,
        reading=reading,
        band_ko=band_ko,
    )
    for band in range(_N_BANDS):
        totals = _dice_totals(fall_dice(band, reading)).tolist()
        for r, total in enumerate(totals):
            codes[band, r], damage[band, r] = fall_result(band, total, **opts)
    flat_codes, flat_damage = codes.ravel(), damage.ravel()
    for a in (flat_codes, flat_damage):
        a.setflags(write=False)
    return flat_codes, flat_damage


def fall_table(
    *,
    hp: int,
    hp_max: int,
    temp_hp: int = 0,
    massive_damage: bool = False,
    reading: str = "table",
    band_ko: int = KO,
) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, damage)`` of every band and packed roll, flat: index ``band * 1296 + r``.

    The d6 ``i`` of roll ``r`` is ``r // 6**i % 6 + 1`` (a band rolling ``k`` d6s reads
    the first ``k``). int8 codes and int64 damage, read-only, cached on the arguments.
    """
    return _table(int(hp), int(hp_max), int(temp_hp), bool(massive_damage), reading, int(band_ko))


@lru_cache(maxsize=256)
def _cells(
    band_probs: tuple[float, ...],
    hp: int,
    hp_max: int,
    temp_hp: int,
    massive_damage: bool,
    reading: str,
    band_ko: int,
) -> tuple[tuple[float, int, int, int], ...]:
    codes, damage = _table(hp, hp_max, temp_hp, massive_damage, reading, band_ko)
    out: dict[tuple[int, int, int], float] = {}
    for band, pb in enumerate(band_probs):
        if pb == 0:
            continue
        width = 6 ** fall_dice(band, reading)  # the combinations of the dice the band rolls
        for r in range(width):
            key = (int(codes[band * DICE_WIDTH + r]), int(damage[band * DICE_WIDTH + r]), band)
            out[key] = out.get(key, 0.0) + pb / width
    return tuple((p, code, dmg, band) for (code, dmg, band), p in out.items())


def fall_cells(
    band_probs,
    *,
    hp: int,
    hp_max: int,
    temp_hp: int = 0,
    massive_damage: bool = False,
    reading: str = "table",
    band_ko: int = KO,
) -> tuple[tuple[float, int, int, int], ...]:
    """Exact ``(probability, outcome code, damage, band)`` of every case (cached).

    ``band_probs[b]`` is P(band ``b``) (``Heights.band_probabilities(FALL_EDGES)``); the
    d6s of a band are enumerated, every combination equally likely, through
    :func:`fall_result`.
    """
    return _cells(
        tuple(float(p) for p in band_probs),
        int(hp),
        int(hp_max),
        int(temp_hp),
        bool(massive_damage),
        reading,
        int(band_ko),
    )


@lru_cache(maxsize=256)
def _band_plan(heights: Heights) -> tuple[str, Any]:
    probs = heights.band_probabilities(FALL_EDGES)
    if np.count_nonzero(probs) == 1:
        return "fixed", int(np.flatnonzero(probs)[0])
    if heights.kind == "list":
        table = np.array([band_of(v) for v in heights.values], dtype=np.int64)
        table.setflags(write=False)
        return "list", table
    return "guide", tuple(float(p) for p in probs)


def band_draw(m: int, rng, heights: Heights) -> np.ndarray | int:
    """Bands of ``m`` falls (int64 array), or one int when every fall has the same band.

    A list of ``L`` equally likely heights: one ``rng.below(L)`` per track picks the
    height; a uniform range: :func:`simkit.rules.guide.draw_cells` over the bands'
    probabilities; a single band: no draw.
    """
    kind, plan = _band_plan(heights)
    if kind == "fixed":
        return int(plan)
    if kind == "list":
        return plan.take(rng.below(len(plan), size=m))
    return draw_cells(m, rng, plan).astype(np.int64)


def fall_phase(
    m: int,
    rng,
    heights: Heights,
    *,
    hp: int,
    hp_max: int,
    temp_hp: int = 0,
    massive_damage: bool = False,
    reading: str = "table",
    band_ko: int = KO,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``m`` falls: ``(codes int8, damage int64, band int64)``, each of shape ``(m,)``.

    Draws the band (:func:`band_draw`), then one ``rng.below(w)`` per track for the
    dice (``w = 6**k`` for a fixed band rolling ``k`` d6s, else 1296), and reads
    :func:`fall_table`. A fixed band that rolls no dice draws nothing.
    """
    codes, damage = fall_table(
        hp=hp,
        hp_max=hp_max,
        temp_hp=temp_hp,
        massive_damage=massive_damage,
        reading=reading,
        band_ko=band_ko,
    )
    band = band_draw(m, rng, heights)
    if isinstance(band, int):
        width = 6 ** fall_dice(band, reading)
        base = band * DICE_WIDTH
        if width == 1:
            return (
                np.full(m, codes[base], dtype=np.int8),
                np.full(m, damage[base], dtype=np.int64),
                np.full(m, band, dtype=np.int64),
            )
        idx = rng.below(width, size=m).astype(np.intp)
        if base:
            idx += base
        return codes.take(idx), damage.take(idx), np.full(m, band, dtype=np.int64)
    idx = np.multiply(band, DICE_WIDTH, dtype=np.intp)
    idx += rng.below(DICE_WIDTH, size=m)
    return codes.take(idx), damage.take(idx), band
