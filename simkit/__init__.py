"""simkit: how deadly are your rules? Monte Carlo and exact odds for RPG dying rules."""

from simkit.analysis.compare import compare
from simkit.analysis.design import calibrate, sensitivity
from simkit.analysis.sweep import sweep
from simkit.core.engine import simulate
from simkit.core.exact import ExactResult, solve
from simkit.core.params import ParamError
from simkit.core.result import Result
from simkit.core.version import __version__
from simkit.models import REGISTRY, get_model, make_model
from simkit.models.custom import CustomTrack, track
from simkit.models.dying import Dying

__all__ = [
    "simulate",
    "solve",
    "sweep",
    "compare",
    "Result",
    "ExactResult",
    "ParamError",
    "REGISTRY",
    "get_model",
    "make_model",
    "Dying",
    "calibrate",
    "sensitivity",
    "track",
    "CustomTrack",
    "__version__",
]
