"""numba's decorators, in one place (issue 28: the fight loop is compiled).

``NUMBA_DISABLE_JIT=1`` makes them no-ops: the loop then runs as plain Python, for
debugging and for the test that holds the compiled loop to the uncompiled one.

numba's on-disk cache checks each function's own source file only: a compiled caller in
``loop.py`` would keep the code of a helper of ``phases.py`` changed since. So when any
source the loop is compiled from changes, this module clears the loop's cache first
(:func:`_fresh_cache`, once per process, before any function is compiled or loaded).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from numba import njit, prange

__all__ = ["njit", "prange", "scalar", "hot"]

_HERE = Path(__file__).resolve().parent
#: The sources the loop is compiled from: this package, and the rules it compiles as they
#: are (A1-5's split of a hit, :func:`simkit.rules.rest.split_damage_ref`).
_SOURCES = (*sorted(_HERE.glob("*.py")), _HERE.parent / "rules" / "rest.py")


def _fresh_cache() -> None:
    """Remove numba's cache files of the loop when its sources differ from those it was
    cached from (a stamp of their hash beside the cache); never fails (a read-only install
    keeps what it has)."""
    digest = hashlib.sha256()
    for path in _SOURCES:
        try:
            digest.update(path.read_bytes())
        except OSError:
            return
    stamp = _HERE / "__pycache__" / "simkit-fight-sources.sha256"
    try:
        if stamp.read_text() == digest.hexdigest():
            return
    except OSError:
        pass
    caches = [_HERE / "__pycache__", _HERE.parent / "rules" / "__pycache__"]
    for folder in caches:
        for pattern in ("*.nbi", "*.nbc"):
            for f in folder.glob(pattern):
                if folder.name == "__pycache__" and (folder.parent == _HERE or "rest" in f.name):
                    try:
                        f.unlink()
                    except OSError:
                        pass
    try:
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:
        pass


_fresh_cache()


def scalar(fn: Any) -> Any:
    """Compile one of the loop's per-track helpers: cached on disk, and without numba's
    reference counting (``_nrt=False``: a helper allocates nothing; the atomic increments
    of its array arguments were a third of the loop's time)."""
    return njit(cache=True, _nrt=False)(fn)  # type: ignore[call-overload]


def hot(fn: Any) -> Any:
    """:func:`scalar`, inlined into each caller by numba (``inline="always"``): for the
    helpers a round calls many times, the turns and the round among them, so the round
    compiles as one function (a call passes each array as seven words, most of them on
    the stack). Chosen by measurement: 1.2-1.3x on the moderate fight for 4 s more of
    compile; inlining the rarer helpers too gained nothing and doubled the compile
    (docs/ARCHITECTURE.md)."""
    return njit(cache=True, _nrt=False, inline="always")(fn)  # type: ignore[call-overload]
