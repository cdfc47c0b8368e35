"""Optional packages (the extras of ``pyproject.toml``): imported where used, and one line
saying what to install where one is missing.

``xarray`` (extra ``xarray``) for :meth:`simkit.Result.to_xarray` and
:func:`simkit.core.labelled.to_xarray`; ``pyarrow`` (extra ``parquet``) for ``-o
FILE.parquet`` and :func:`simkit.core.io.write_parquet`.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

__all__ = ["EXTRAS", "MissingExtra", "need"]

#: module -> the extra that installs it
EXTRAS = {"xarray": "xarray", "pyarrow": "parquet"}


class MissingExtra(ImportError):
    """An optional package is not installed; the message is one line naming it and the
    command that installs it."""


def need(module: str, what: str) -> ModuleType:
    """``import module``, or :class:`MissingExtra`: "``what`` needs xarray: pip install
    'simkit[xarray]'" (``what``: the feature asked for, e.g. ``"Result.to_xarray()"``)."""
    try:
        return import_module(module)
    except ImportError:
        extra = EXTRAS.get(module, module)
        raise MissingExtra(
            f"{what} needs the optional package {module}: pip install 'simkit[{extra}]' "
            f"(or pip install {module})"
        ) from None
