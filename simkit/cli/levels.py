"""One meaning for "level" on the command line: the character's level.

``--set level=5`` is accepted by ``run``, ``exact``, ``calibrate`` and ``sensitivity``
(as by ``sweep``) for every model whose numbers follow from the character level. The
values it sets are derived exactly as a sweep derives them, by
:func:`simkit.analysis.grid.resolve_point` (numbers of :mod:`simkit.rules.pf2e.levels`): for
``dying`` the Fortitude save and HP, for ``perseverance`` the PP max... The other
*level keys* work the same way: ``level_diff`` (monster level - character level),
``monster_level`` (sets ``dc`` for a model without its own ``monster_level``) and the
``pc_*`` options describing the character. A model with its own ``level`` parameter
(``recovery``, ``fall``, ``encounter``...) takes it as is. A value given explicitly
(``--set save_bonus=10``, or by ``--preset``) wins over a derived one. The derived
values are shown on standard error::

    simkit: level=5 -> save_bonus=12, hp_max=73

The confidence level of the intervals is ``--confidence``; ``--level`` is refused
with a hint (:data:`LEVEL_HINT`).
"""

from __future__ import annotations

import argparse
import sys

from simkit.core.params import ParamError, spec

__all__ = [
    "LEVEL_HINT",
    "add_confidence_arg",
    "add_level_hint",
    "check_confidence",
    "derive",
    "level_keys",
    "show_derived",
]

#: The error of ``--level`` on a verb where it used to be the confidence level.
LEVEL_HINT = (
    "--level is the character level: use --set level=5; "
    "the confidence level is --confidence (e.g. --confidence 0.9)"
)


class _LevelHint(argparse.Action):
    """``--level``: refused with :data:`LEVEL_HINT` (the confidence level is ``--confidence``)."""

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(LEVEL_HINT)  # the simkit parser: one line, exit status 2


def add_confidence_arg(p, default: float | None = 0.95) -> None:
    """``--confidence C`` (dest ``confidence``), and a hidden ``--level`` giving the hint."""
    shown = f" (default {default})" if default is not None else " (default 0.95)"
    p.add_argument(
        "--confidence",
        type=float,
        default=default,
        metavar="C",
        help=f"confidence level of ci_low/ci_high, in (0, 1){shown}",
    )
    add_level_hint(p)


def add_level_hint(p) -> None:
    """A hidden ``--level`` that fails with :data:`LEVEL_HINT`."""
    p.add_argument(
        "--level", dest="_level_hint", nargs="?", action=_LevelHint, help=argparse.SUPPRESS
    )


def check_confidence(value) -> float | None:
    """``value`` if it is a confidence level in (0, 1) (or None); else a one-line error."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise ParamError(f"--confidence must be in (0, 1) (e.g. 0.95), got {value!r}")
    return float(value)


def level_keys(model_cls) -> dict:
    """The sweep keys of ``model_cls`` that ``--set`` turns into parameters.

    Those of :func:`simkit.analysis.grid.sweep_keys_for` except ``days_without_*``
    (which :func:`simkit.models.make_model` handles itself).
    """
    from simkit.analysis.grid import sweep_keys_for
    from simkit.rules.penalties import FATIGUE_KEYS

    return {k: v for k, v in sweep_keys_for(model_cls).items() if k not in FATIGUE_KEYS}


def not_for_model(model_cls, key: str) -> ParamError | None:
    """The error for a level key that means nothing for ``model_cls`` (None if not one)."""
    from simkit.analysis.grid import SWEEP_KEYS
    from simkit.rules.penalties import FATIGUE_KEYS

    if key not in SWEEP_KEYS or key in FATIGUE_KEYS:
        return None
    return ParamError(
        f"--set {key}: the numbers of model {model_cls.name!r} do not follow from the "
        f"character level ({key} sets none of its parameters); its parameters: "
        f"{', '.join(spec(model_cls))}"
    )


def parse_level_key(model_cls, key: str, text: str):
    """The value of ``--set KEY=TEXT`` for a level key, checked (range, kind)."""
    from simkit.analysis.grid import parse_fixed_args

    return parse_fixed_args(model_cls, [f"{key}={text}"])[key]


def derive(model_cls, values: dict, preset: str | None = None) -> tuple[dict, dict, dict]:
    """Split ``--set`` values and derive the parameters the level keys set.

    Parameters
    ----------
    model_cls : type
        The model.
    values : dict
        Parsed ``--set`` values: parameters, ``days_without_*`` and level keys.
    preset : str, optional
        Its values count as given (they win over derived ones, as in a sweep).

    Returns
    -------
    params : dict
        Keyword arguments for :func:`simkit.models.make_model` (the given values and
        the derived ones; ``days_without_*`` kept for it).
    derived : dict
        The parameters set from the level keys.
    keys : dict
        The level keys given.
    """
    from simkit.analysis.grid import resolve_point

    lk = level_keys(model_cls)
    keys = {k: v for k, v in values.items() if k in lk}
    params = {k: v for k, v in values.items() if k not in lk}
    if not keys:
        return params, {}, {}
    base = {}
    if preset:
        from simkit.models.presets import preset_params

        base = preset_params(model_cls.name, preset)
    known = spec(model_cls)
    plain = {k: v for k, v in params.items() if k in known}
    _, derived = resolve_point(model_cls, {**base, **plain, **keys})
    return {**params, **derived}, derived, keys


def show_derived(model_cls, keys: dict, derived: dict, file=None) -> str | None:
    """One line on standard error: ``simkit: level=5 -> save_bonus=12, hp_max=73``.

    Parameters a level key would set but that were given explicitly are named as kept.
    Returns the line (None when no level key was given).
    """
    if not keys:
        return None
    from simkit.analysis.grid import SWEEP_KEYS

    known = spec(model_cls)
    targets = []
    for k in keys:
        for t in SWEEP_KEYS[k].sets:
            if t in known and t not in targets:
                targets.append(t)
    kept = [t for t in targets if t not in derived]
    if "monster_level" in kept and "monster_level" not in keys:
        kept.remove("monster_level")  # the recovery DC was given another way (dc, level_diff)
    lhs = ", ".join(f"{k}={v}" for k, v in keys.items())
    rhs = ", ".join(f"{k}={v}" for k, v in derived.items()) or "nothing"
    line = f"simkit: {lhs} -> {rhs}"
    if kept:
        line += f" ({', '.join(kept)} given explicitly: kept)"
    print(line, file=file if file is not None else sys.stderr)
    return line
