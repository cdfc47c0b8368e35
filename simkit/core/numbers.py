"""One grammar for a number written as text, wherever simkit reads one.

``--set hp=80``, a party's ``fighter(hp=80)``, a lineup's ``monsters=7(attack=18)``, a
Fortitude schedule's ``expert@9``, ``days_without_sleep=3``, a TOML string: each is read by
:func:`ascii_int` or :func:`ascii_number`, so every place accepts the same spellings.

Python's ``int`` and ``float`` accept more than the README's "ASCII digits": other
scripts' digits (Arabic-Indic ``٨٠``, fullwidth ``８０``), underscores between digits
(``8_0`` is 80) and Unicode spaces around them. These functions accept only

- an integer: optional ASCII spaces, an optional sign, ASCII digits ``0-9``, optional
  ASCII spaces (``"7"``, ``" -10 "``, ``"+3"``);
- a number: the same, with an optional fraction and exponent (``"0.5"``, ``".5"``,
  ``"5."``, ``"1e-3"``); no ``inf``, ``nan``, hexadecimal or underscores.

Standard library only (the command line reads numbers before it imports the engine).
"""

from __future__ import annotations

import re

__all__ = ["ascii_int", "ascii_number", "is_ascii_int"]

_INT = re.compile(r"[ \t]*[+-]?[0-9]+[ \t]*")
_NUMBER = re.compile(r"[ \t]*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \t]*")
#: Longest text read as a number (Python refuses integers of more than 4,300 digits
#: itself; every simkit range is far below this).
_MAX_LEN = 400


def is_ascii_int(text: object) -> bool:
    """Whether ``text`` is a string that :func:`ascii_int` reads."""
    return isinstance(text, str) and len(text) <= _MAX_LEN and _INT.fullmatch(text) is not None


def ascii_int(text: str) -> int:
    """The integer written in ``text`` (ASCII digits, optional sign and spaces).

    Raises
    ------
    ValueError
        For anything else: ``"8_0"``, ``"٨٠"``, ``"８０"``, ``"8.0"``, ``"1e3"``, ``""``.
        The caller's message names the parameter and its range.
    """
    if not is_ascii_int(text):
        raise ValueError(f"not an integer in ASCII digits: {text!r}"[:120])
    return int(text)


def ascii_number(text: str) -> float:
    """The finite number written in ``text`` (ASCII digits, optional sign, fraction,
    exponent and spaces), as a float.

    Raises
    ------
    ValueError
        For anything else (``"0_5"``, ``"٠.٥"``, ``"inf"``, ``"nan"``, ``"0x10"``), or a
        number too large for a float (``"1e999"``).
    """
    if not isinstance(text, str) or len(text) > _MAX_LEN or _NUMBER.fullmatch(text) is None:
        raise ValueError(f"not a number in ASCII digits: {text!r}"[:120])
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"number too large: {text[:40]!r}")
    return value
