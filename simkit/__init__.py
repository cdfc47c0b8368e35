"""simkit: how deadly are your rules? Monte Carlo and exact odds for RPG dying rules."""

from importlib.metadata import PackageNotFoundError, version

from .engine import simulate
from .exact import ExactResult, solve
from .models import REGISTRY, get_model, make_model  # isort: skip  (before custom: dnd presets)
from .custom import CustomTrack, track  # noqa: E402
from .design import calibrate, sensitivity  # noqa: E402
from .models.dying import Dying
from .params import ParamError
from .result import Result
from .sweep import sweep
from .compare import compare

try:
    __version__ = version("simkit")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+unknown"

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
