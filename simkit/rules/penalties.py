"""Fatigue and hunger as a check penalty (seed 004, R4-01..R4-03, A4-2).

R4-01: -1 to every check after one day without sleep, a further -1 for each further
day. R4-02: the same for days without eating or drinking. R4-03: the penalties add
up (two days without sleep and without food: -4). R4-04: a total of -10 knocks the
character out (the ``fatigue`` model follows that; :func:`penalty` only converts).

A4-2: "without eating or drinking" is one counter for food and water together
(default: give ``days_without_food`` only), or two separate counters (give
``days_without_water`` too, or ``food_water="separate"``): then each counter costs
-1 per day.

The penalty reaches every model that rolls d20 checks through its ``check_penalty``
parameter. :func:`apply_fatigue` is the one-call path used by
:func:`simkit.models.make_model` and by ``simkit run MODEL --set days_without_sleep=3``:
the keys of :data:`FATIGUE_KEYS` are converted and added to ``check_penalty``.
"""

from __future__ import annotations

from simkit.core.numbers import ascii_int
from simkit.core.params import ParamError

__all__ = ["penalty", "FATIGUE_KEYS", "apply_fatigue", "parse_fatigue_value", "MAX_DAYS"]

#: Keyword arguments converted to ``check_penalty`` by :func:`apply_fatigue`.
FATIGUE_KEYS = ("days_without_sleep", "days_without_food", "days_without_water")
#: Largest number of days accepted by :func:`penalty`.
MAX_DAYS = 50


def _days(name: str, value) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ParamError(
                f"{name}={value!r} is not allowed: {name} must be an integer in [0, {MAX_DAYS}]"
            )
    value = int(value)
    if not 0 <= value <= MAX_DAYS:
        raise ParamError(
            f"{name}={value!r} is not allowed: {name} must be an integer in [0, {MAX_DAYS}]"
        )
    return value


def penalty(
    days_without_sleep: int = 0,
    days_without_food: int = 0,
    days_without_water: int | None = None,
    *,
    food_water: str | None = None,
) -> int:
    """The check penalty of a fatigue state (R4-01..R4-03, A4-2); 0 or negative.

    Parameters
    ----------
    days_without_sleep : int
        Consecutive days without sleep, 0..50 (R4-01): -1 per day.
    days_without_food : int
        Days without eating or drinking (R4-02): -1 per day. With separate counters
        (A4-2), days without food only.
    days_without_water : int, optional
        Days without drinking, with separate counters only (A4-2): -1 per day.
    food_water : {"together", "separate"}, optional
        A4-2 reading; by default ``"separate"`` when ``days_without_water`` is given,
        else ``"together"``.

    Returns
    -------
    int
        The penalty added to every d20 check, e.g. ``penalty(2, 2) == -4`` (R4-03).
        At -10 or lower the character is exhausted and unconscious (R4-04).
    """
    if food_water is None:
        food_water = "together" if days_without_water is None else "separate"
    if food_water not in ("together", "separate"):
        raise ParamError(
            f"food_water={food_water!r} is not allowed: "
            "food_water must be one of together, separate"
        )
    s = _days("days_without_sleep", days_without_sleep)
    f = _days("days_without_food", days_without_food)
    w = 0 if days_without_water is None else _days("days_without_water", days_without_water)
    if food_water == "together" and w:
        raise ParamError(
            f"days_without_water={w} needs separate food and water counters (A4-2): "
            "with food_water=together, days_without_food counts days without eating or drinking"
        )
    return -(s + f + w)


def parse_fatigue_value(name: str, text: str) -> int:
    """Parse a ``--set days_without_...=N`` value."""
    try:
        return _days(name, ascii_int(text.strip()))  # ASCII digits only (no '٣', '1_0')
    except (ValueError, ParamError):
        raise ParamError(
            f"{name}={text!r} is not allowed: {name} must be an integer in [0, {MAX_DAYS}]"
        ) from None


def apply_fatigue(model_cls, params: dict) -> dict:
    """Turn the :data:`FATIGUE_KEYS` of ``params`` into ``check_penalty`` (a new dict).

    Keys the model declares itself are left alone. The fatigue penalty is added to
    any ``check_penalty`` given. A model without ``check_penalty`` (no d20 checks)
    rejects the keys with a :class:`~simkit.core.params.ParamError`.
    """
    from simkit.core.params import spec

    known = spec(model_cls)
    keys = [k for k in FATIGUE_KEYS if k in params and k not in known]
    if not keys:
        return params
    if "check_penalty" not in known:
        raise ParamError(
            f"{keys[0]}: model {model_cls.name!r} rolls no d20 checks "
            "(it has no check_penalty parameter)"
        )
    out = {k: v for k, v in params.items() if k not in keys}
    p = penalty(
        params.get("days_without_sleep", 0),
        params.get("days_without_food", 0),
        params.get("days_without_water"),
    )
    base = out.get("check_penalty", 0)
    if isinstance(base, bool) or not isinstance(base, int):
        raise ParamError(f"check_penalty={base!r} is not allowed: check_penalty must be an integer")
    total = base + p
    lo = known["check_penalty"]["lo"]
    if lo is not None and total < lo:
        given = ", ".join(f"{k}={params[k]}" for k in keys)
        raise ParamError(
            f"{given} give a check penalty of {total}; the allowed total is at least {lo}"
        )
    out["check_penalty"] = total
    return out
