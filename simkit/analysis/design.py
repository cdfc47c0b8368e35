"""Designer tools: calibrate a parameter to a target rate, and sensitivity to every parameter.

The tools live one concept a module: :mod:`simkit.analysis.calibrate` (:func:`calibrate`),
:mod:`simkit.analysis.sensitivity` (:func:`sensitivity`) and what they share,
:mod:`simkit.analysis.evaluation` (:class:`Evaluator`, the method and argument checks).
This module re-exports their public names (``from simkit.analysis.design import
calibrate`` keeps working).
"""

from __future__ import annotations

from simkit.analysis.calibrate import (
    CALIBRATION_COLUMNS,
    Calibration,
    calibrate,
    parse_probability,
)
from simkit.analysis.evaluation import (
    METHODS,
    Evaluator,
    check_n,
    choose_method,
    confidence_level,
)
from simkit.analysis.sensitivity import SENSITIVITY_COLUMNS, sensitivity

__all__ = [
    "calibrate",
    "Calibration",
    "sensitivity",
    "parse_probability",
    "CALIBRATION_COLUMNS",
    "SENSITIVITY_COLUMNS",
    "METHODS",
    "Evaluator",
    "check_n",
    "choose_method",
    "confidence_level",
]
