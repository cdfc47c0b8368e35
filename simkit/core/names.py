"""Messages for a name that is not known: what exists, and the near name meant.

Every unknown-name error (a parameter, a choice, a model, a role, a creature, an
outcome, a mark) is one line that lists what exists and, when one of them is close to
what was written, suggests it::

    >>> unknown("parameter", "save_bonu", ("start", "save_bonus"))
    "unknown parameter 'save_bonu' (did you mean 'save_bonus'?); known: start, save_bonus"
    >>> suggest("wizzard", ("fighter", "rogue", "cleric", "wizard"))
    " (did you mean 'wizard'?)"

Closeness is :func:`difflib.get_close_matches` (ratio at least :data:`CUTOFF`), after
folding case and treating ``-`` and ``_`` alike, so ``"Save-Bonus"`` finds
``save_bonus``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["CUTOFF", "pc_names", "suggest", "unknown"]

#: Least :class:`difflib.SequenceMatcher` ratio (0..1) of a suggested name.
CUTOFF = 0.7


def _fold(text: str) -> str:
    return text.casefold().replace("-", "_")


def suggest(name: object, choices: Iterable[object]) -> str:
    """``" (did you mean 'x'?)"`` for the choice nearest ``name``, or ``""`` when none is near.

    Parameters
    ----------
    name : object
        What was written (a non-string suggests nothing).
    choices : iterable
        The names that exist (non-strings are skipped).

    Returns
    -------
    str
        The suggestion, with its leading space, ready to append to a message.
    """
    if not isinstance(name, str) or not name:
        return ""
    names = [c for c in choices if isinstance(c, str)]
    folded: dict[str, str] = {}
    for c in names:
        folded.setdefault(_fold(c), c)
    key = _fold(name)
    if key in folded and folded[key] != name:  # only the case or the dash differs
        return f" (did you mean {folded[key]!r}?)"
    near = difflib.get_close_matches(key, list(folded), n=1, cutoff=CUTOFF)
    if not near or folded[near[0]] == name:
        return ""
    return f" (did you mean {folded[near[0]]!r}?)"


def unknown(kind: str, name: object, choices: Iterable[object], *, where: str = "") -> str:
    """One line: ``unknown <kind> <name!r> [<where>] [(did you mean ...?)]; known: a, b, c``.

    Parameters
    ----------
    kind : str
        What the name names (``"parameter"``, ``"role"``, ``"model"``...).
    name : object
        What was written.
    choices : iterable
        The names that exist, in the order they are listed.
    where : str, optional
        Where the name was looked for (``"for model 'dying'"``).

    Returns
    -------
    str
        The message (raise it as the caller's error type: ``ParamError``, ``KeyError``...).
    """
    names = [str(c) for c in choices]
    place = f" {where}" if where else ""
    known = ", ".join(names) if names else "(none)"
    return f"unknown {kind} {name!r}{place}{suggest(name, names)}; known: {known}"


def pc_names(roles) -> tuple[str, ...]:
    """The PCs' names in events: the role, or role + index (from 1) when a role repeats
    (``fighter,fighter,cleric`` -> ``fighter1, fighter2, cleric``)."""
    roles = tuple(roles)
    seen: dict[str, int] = {}
    out = []
    for r in roles:
        if roles.count(r) > 1:
            seen[r] = seen.get(r, 0) + 1
            out.append(f"{r}{seen[r]}")
        else:
            out.append(r)
    return tuple(out)
