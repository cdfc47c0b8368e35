"""Dice: d20 degrees of success (R0-05) and sums of dice, vectorised and exact.

Degrees of success are coded as small integers so that they can index tables::

    CRIT_FAIL = 0, FAIL = 1, SUCCESS = 2, CRIT_SUCCESS = 3

R0-05: a total >= DC + 10 is a critical success, >= DC a success, <= DC - 10 a
critical failure, anything else a failure; a natural 20 raises the degree one step
and a natural 1 lowers it one step (never past the ends).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from simkit.core.numbers import ascii_int, is_ascii_int
from simkit.core.params import register_kind

__all__ = [
    "CRIT_FAIL",
    "CRIT_SUCCESS",
    "DEGREES",
    "FAIL",
    "MAX_ABS_SUM",
    "MAX_BONUS",
    "MAX_DICE_TABLE",
    "SUCCESS",
    "Dice",
    "degree",
    "degree_pmf",
    "degree_table",
    "degrees",
    "dice_draw",
    "dice_table",
    "dice_value",
    "dice_values",
    "parse_dice",
]

CRIT_FAIL, FAIL, SUCCESS, CRIT_SUCCESS = 0, 1, 2, 3
DEGREES = ("critical failure", "failure", "success", "critical success")


def degree(roll: int, bonus: int, dc: int, *, natural: bool = True) -> int:
    """Degree of success of one d20 check (R0-05), plain Python.

    Parameters
    ----------
    roll : int
        The natural d20 result, 1..20.
    bonus : int
        Everything added to the roll (modifier, penalties).
    dc : int
        The difficulty class.
    natural : bool
        Apply the natural 20 / natural 1 step (R0-05). Checks of seed 001 have no such
        rule (A1-6).
    """
    total = roll + bonus
    if total >= dc + 10:
        d = CRIT_SUCCESS
    elif total >= dc:
        d = SUCCESS
    elif total <= dc - 10:
        d = CRIT_FAIL
    else:
        d = FAIL
    if natural:
        if roll == 20:
            d = min(d + 1, CRIT_SUCCESS)
        elif roll == 1:
            d = max(d - 1, CRIT_FAIL)
    return d


def degree_table(bonus: int, dc: int, *, natural: bool = True) -> np.ndarray:
    """Degree for every natural roll: an int8 array of shape (21,), index = roll.

    Index 0 is unused (set to -1). Looking rolls up in this table with ``take`` is the
    fast way to grade a vector of d20s against one (bonus, DC).
    """
    table = np.full(21, -1, dtype=np.int8)
    for r in range(1, 21):
        table[r] = degree(r, bonus, dc, natural=natural)
    return table


def degrees(rolls: np.ndarray, bonus, dc, *, natural: bool = True) -> np.ndarray:
    """Vectorised degrees of success (R0-05) for arrays of natural rolls.

    ``bonus`` and ``dc`` broadcast against ``rolls``. Returns int8 codes 0..3.
    """
    rolls = np.asarray(rolls)
    total = rolls.astype(np.int32) + np.asarray(bonus, dtype=np.int32)
    dc = np.asarray(dc, dtype=np.int32)
    d = np.where(
        total >= dc + 10,
        CRIT_SUCCESS,
        np.where(total >= dc, SUCCESS, np.where(total <= dc - 10, CRIT_FAIL, FAIL)),
    ).astype(np.int8)
    if natural:
        d = np.where(rolls == 20, np.minimum(d + 1, CRIT_SUCCESS), d)
        d = np.where(rolls == 1, np.maximum(d - 1, CRIT_FAIL), d)
    return d.astype(np.int8)


@lru_cache(maxsize=4096)
def _degree_counts(bonus: int, dc: int, natural: bool) -> tuple[int, int, int, int]:
    counts = [0, 0, 0, 0]
    for r in range(1, 21):
        counts[degree(r, bonus, dc, natural=natural)] += 1
    return tuple(counts)  # type: ignore[return-value]


def degree_pmf(bonus: int, dc: int, *, natural: bool = True, exact: bool = False):
    """Exact probability of each degree of success for one d20 check.

    Returns a float array of shape (4,) indexed by degree (CRIT_FAIL..CRIT_SUCCESS),
    or a tuple of :class:`fractions.Fraction` with ``exact=True``.
    """
    counts = _degree_counts(int(bonus), int(dc), bool(natural))
    if exact:
        return tuple(Fraction(c, 20) for c in counts)
    return np.array(counts, dtype=np.float64) / 20.0


_DICE_RE = re.compile(r"^\s*(?:(\d+)\s*[dD]\s*(\d+))?\s*(?:([+-])\s*(\d+))?\s*$", re.ASCII)

#: Declared ranges of a :class:`Dice` (``count`` d ``sides`` + ``bonus``). The kernels
#: hold sums of dice as int32 (:meth:`Dice.quantile`, the encounter's dice tables) and
#: double or add them (critical hits, damage against HP); with these bounds every sum
#: is at most ``MAX_DICE_PRODUCT + MAX_BONUS`` in absolute value, below 2**31 / 1000,
#: so that arithmetic stays exact.
MAX_COUNT = 100
MAX_SIDES = 1000
MAX_DICE_PRODUCT = 10_000
MAX_BONUS = 1_000_000
#: Largest absolute value of a sum of dice (``MAX_DICE_PRODUCT + MAX_BONUS``).
MAX_ABS_SUM = MAX_DICE_PRODUCT + MAX_BONUS
assert 1000 * MAX_ABS_SUM < 2**31


@dataclass(frozen=True, slots=True)
class Dice:
    """A sum of identical dice plus a constant: ``count`` d ``sides`` + ``bonus``.

    ``Dice.parse("2d6+3")``; ``"0"`` or ``"5"`` is a constant. The exact PMF is
    computed by convolution; draws use the inverse CDF of that PMF with one uniform
    per sum, so a draw costs the same for 1d6 and 20d6 and matches the PMF exactly.
    """

    count: int = 0
    sides: int = 6
    bonus: int = 0

    def __post_init__(self):
        for name in ("count", "sides", "bonus"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise TypeError(f"dice {name} must be an integer, got {v!r}"[:120])
        if not 0 <= self.count <= MAX_COUNT:
            raise ValueError(f"dice count must be in [0, {MAX_COUNT}], got {_short(self.count)}")
        if not 1 <= self.sides <= MAX_SIDES:
            raise ValueError(f"dice sides must be in [1, {MAX_SIDES}], got {_short(self.sides)}")
        if self.count * self.sides > MAX_DICE_PRODUCT:
            raise ValueError(
                f"dice {self.count}d{self.sides}: count x sides must be at most {MAX_DICE_PRODUCT}"
            )
        if not -MAX_BONUS <= self.bonus <= MAX_BONUS:
            raise ValueError(
                f"dice bonus must be in [-{MAX_BONUS}, {MAX_BONUS}], got {_short(self.bonus)}"
            )

    @classmethod
    def parse(cls, text: str | Dice) -> Dice:
        if isinstance(text, Dice):
            return text
        return parse_dice(text)

    def __str__(self) -> str:
        core = f"{self.count}d{self.sides}" if self.count else ""
        if self.bonus or not core:
            sign = "+" if self.bonus >= 0 and core else ("-" if self.bonus < 0 else "")
            return f"{core}{sign}{abs(self.bonus)}"
        return core

    @property
    def min(self) -> int:
        return self.count + self.bonus

    @property
    def max(self) -> int:
        return self.count * self.sides + self.bonus

    @property
    def mean(self) -> float:
        return self.count * (self.sides + 1) / 2 + self.bonus

    def pmf(self) -> tuple[np.ndarray, np.ndarray]:
        """Exact distribution: (values, probabilities), values ascending."""
        return _pmf(self.count, self.sides, self.bonus)

    def cdf_at_least(self, threshold: int) -> float:
        """P(sum >= threshold), exact up to float rounding."""
        values, probs = self.pmf()
        return float(probs[values >= threshold].sum())

    def quantile(self, u):
        """The sum whose CDF first exceeds ``u`` in [0, 1) (inverse CDF), vectorised.

        ``quantile(rng.random(m))`` draws ``m`` sums with exactly the PMF's law.
        """
        values, probs = self.pmf()
        cdf = np.cumsum(probs)
        cdf[-1] = 1.0
        idx = np.searchsorted(cdf, u, side="right")
        return values[np.minimum(idx, len(values) - 1)].astype(
            np.int32
        )  # exact: |value| <= MAX_ABS_SUM

    def sample(self, rng, size) -> np.ndarray:
        """Draw sums (int32) by inverse CDF, one uniform each."""
        return self.quantile(rng.random(size))


@lru_cache(maxsize=256)
def _pmf(count: int, sides: int, bonus: int) -> tuple[np.ndarray, np.ndarray]:
    probs = np.array([1.0])
    one = np.full(sides, 1.0 / sides)
    for _ in range(count):
        probs = np.convolve(probs, one)
    values = np.arange(count, count * sides + 1, dtype=np.int64) + bonus
    if count == 0:
        values = np.array([bonus], dtype=np.int64)
    values.setflags(write=False)
    probs.setflags(write=False)
    return values, probs


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:16]}...{text[-16:]} ({len(text)} characters)"


def parse_dice(text: str) -> Dice:
    """Parse ``"NdX"``, ``"NdX+B"``, ``"NdX-B"`` or a constant ``"B"`` (ASCII digits).

    Ranges: ``N`` in [1, 100], ``X`` in [1, 1000], ``N * X <= 10000``, ``|B| <= 1000000``
    (see :data:`MAX_BONUS`); anything else is a :class:`ValueError` saying which.
    """
    if not isinstance(text, str):
        raise ValueError(f"dice must be a string like '2d6+3', got {_short(text)}")
    if len(text) > 100:
        raise ValueError(f"dice must look like '2d6+3', '1d8' or '4', got {_short(text)}")
    if is_ascii_int(text):  # a constant (one grammar for numbers: simkit.core.numbers)
        return Dice(0, 1, ascii_int(text))
    m = _DICE_RE.match(text)
    if not m or not text.strip():
        raise ValueError(f"dice must look like '2d6+3', '1d8' or '4', got {_short(text)}")
    count, sides, sign, const = m.groups()
    bonus = int(const or 0) * (-1 if sign == "-" else 1)
    if count is not None and int(count) == 0:
        raise ValueError(
            f"dice must roll at least one die (write a constant as '4'), got {_short(text)}"
        )
    if count is None:
        if const is None:
            raise ValueError(f"dice must look like '2d6+3', '1d8' or '4', got {_short(text)}")
        return Dice(0, 1, bonus)
    return Dice(int(count), int(sides), bonus)


def parse_amount(text: str | Dice) -> Dice:
    """:func:`parse_dice` for an amount of hit points (damage, area, cantrip, heal dice).

    A hit never heals and a heal never hurts: an amount is at least 0, so dice whose
    smallest roll is below 0 (``"1d4-100"``, ``"2d6-7"``) are a :class:`ValueError`
    saying so ("dice must not roll below 0 (minimum -99)"). ``"1d4-1"`` (0..3) is allowed.
    Every parameter of kind ``dice`` and every explicit ``damage=``/``area=``/``cantrip=``/
    ``heal=`` number (:mod:`simkit.rules.overrides`) is read by this function, so every
    engine (Monte Carlo, reference, exact duel) sees amounts >= 0 only.
    """
    d = text if isinstance(text, Dice) else parse_dice(text)
    if d.min < 0:
        raise ValueError(f"dice must not roll below 0 (minimum {d.min})")
    return d


register_kind(
    "dice",
    lambda value: str(parse_amount(value)),
    "dice like '2d6+3' that never roll below 0",
    show_reason=True,
)


# -- sums of dice as drawn by the fight kernels --------------------------------------------------
#: The largest number of equally likely dice outcomes drawn as one integer.
MAX_DICE_TABLE = 2**16


def dice_draw(text: str) -> str:
    """How one sum of ``text`` dice is drawn: its kind in a kernel's draw plan.

    ``"below:L"`` (L = sides ** count <= 65,536): one integer in ``[0, L)`` whose
    base-``sides`` digits are the dice (exact, and a table lookup, :func:`dice_table`);
    else ``"random"``: one uniform through the inverse CDF (:meth:`Dice.quantile`).
    """
    d = Dice.parse(text)
    if d.count and d.sides**d.count <= MAX_DICE_TABLE:
        return f"below:{d.sides**d.count}"
    return "random"


@lru_cache(maxsize=64)
def dice_table(text: str) -> np.ndarray:
    """``table[w]``: the sum of ``text`` dice whose base-``sides`` digits are ``w`` (int32,
    read-only, ``sides ** count`` entries; see :func:`dice_draw`)."""
    d = Dice.parse(text)
    idx = np.arange(d.sides**d.count)
    total = np.full(len(idx), d.count + d.bonus, dtype=np.int32)
    for i in range(d.count):
        total += (idx // d.sides**i % d.sides).astype(np.int32)
    total.setflags(write=False)
    return total


def dice_value(text: str, draw) -> int:
    """One sum of ``text`` dice from its draw (the scalar form of :func:`dice_values`):
    the base-``sides`` digits of an integer draw, or a uniform's inverse CDF."""
    d = Dice.parse(text)
    if dice_draw(text) == "random":
        return int(d.quantile(float(draw)))
    w = int(draw)
    return d.bonus + sum(w // d.sides**i % d.sides + 1 for i in range(d.count))


def dice_values(text: str, draws: np.ndarray) -> np.ndarray:
    """Sums of ``text`` dice (int32) from draws made as :func:`dice_draw` says."""
    if dice_draw(text) == "random":
        return Dice.parse(text).quantile(draws)
    return dice_table(text).take(draws)
