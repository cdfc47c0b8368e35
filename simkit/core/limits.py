"""Limits of a run that the command line checks before anything heavy is imported.

Standard library only: ``simkit sweep`` reads ``-n`` before it starts its workers, and
importing the engine (numpy, pandas) first would keep them waiting.
"""

from __future__ import annotations

__all__ = ["MAX_N"]

#: Most tracks one run may simulate.
MAX_N = 10**13
