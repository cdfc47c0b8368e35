"""numba's decorators, in one place (issue 28: the fight loop is compiled).

``NUMBA_DISABLE_JIT=1`` makes them no-ops: the loop then runs as plain Python, for
debugging and for the test that holds the compiled loop to the uncompiled one.
"""

from __future__ import annotations

from typing import Any

from numba import njit, prange

__all__ = ["njit", "prange", "scalar"]


def scalar(fn: Any) -> Any:
    """Compile one of the loop's per-track helpers: cached on disk, and without numba's
    reference counting (``_nrt=False``: a helper allocates nothing; the atomic increments
    of its array arguments were a third of the loop's time)."""
    return njit(cache=True, _nrt=False)(fn)  # type: ignore[call-overload]
