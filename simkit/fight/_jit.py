"""numba's decorators, in one place (issue 28: the fight loop is compiled).

``NUMBA_DISABLE_JIT=1`` makes them no-ops (the loop then runs as plain Python, for
debugging and for the test that holds the compiled loop to the uncompiled one).
"""

from __future__ import annotations

from numba import njit, prange

__all__ = ["njit", "prange"]
