"""Sweep keys (``level``, ``level_diff``, ``monster_level``, ``pc_*``...): they live in
:mod:`simkit.models.keys`, where :func:`simkit.models.make_model` derives them too (one
derivation for the command line, sweeps and Python); this module keeps the old import path.
"""

from __future__ import annotations

from simkit.models.keys import (
    PC_OPTIONS,
    SWEEP_KEYS,
    ModelKeys,
    SweepKey,
    check_key,
    describe_keys,
    model_keys,
    parse_key,
    resolve_point,
    sweep_keys_for,
)

__all__ = [
    "PC_OPTIONS",
    "SWEEP_KEYS",
    "ModelKeys",
    "SweepKey",
    "check_key",
    "describe_keys",
    "model_keys",
    "parse_key",
    "resolve_point",
    "sweep_keys_for",
]
