"""Several steps per draw: the k-step tables of a table-driven kernel (issue 13 item 1).

A kernel whose next state depends on the current state and one roll of ``K`` equally
likely faces can advance ``k`` steps with one uniform integer in ``[0, K**k)``: its
base-``K`` digits are ``k`` independent rolls (exact). :func:`pack_steps` builds the
table that maps (state, packed rolls) to the state after ``k`` steps, from the one-step
table. Used by the dying kernel and by custom tracks.
"""

from __future__ import annotations

import numpy as np

__all__ = ["pack_steps"]


def pack_steps(
    nxt: np.ndarray, n_out: int, max_k: int = 3, *, max_width: int = 2**16, max_entries: int = 2**24
) -> dict[int, np.ndarray]:
    """Tables for ``k = 1 .. max_k`` steps at once.

    Parameters
    ----------
    nxt : ndarray, shape (S, K), int
        One step: ``nxt[s, r]`` is the next state's code (>= 0) or ``-1 - outcome``.
    n_out : int
        Number of outcomes.
    max_k : int
        Most steps per table.
    max_width, max_entries : int
        No table with more than ``max_width`` roll combinations (``K**k``) or
        ``max_entries`` entries (``S * K**k``) is built.

    Returns
    -------
    dict
        ``k -> table`` (int32, shape ``(S * K**k,)``): index ``s * K**k + r`` with roll
        ``i`` (0-based) ``= r // K**i % K``; entry a state code, or ``-1 - (outcome +
        n_out * offset)`` for a track absorbed at step ``offset`` (0-based) of the ``k``.
    """
    nxt = np.asarray(nxt, dtype=np.int32)
    S, K = nxt.shape
    out: dict[int, np.ndarray] = {}
    prev = np.arange(S, dtype=np.int32)[:, None]  # (S, K**(k-1)): state after k-1 steps
    for k in range(1, max_k + 1):
        width = K**k
        if width > max_width or S * width > max_entries:
            break
        # step k as one lookup: rows for the codes absorbed at earlier steps (they stay) and
        # for the states (absorbing now at offset k - 1); index r = roll_k * K**(k-1) + r_low
        done = n_out * (k - 1)
        step = np.empty((done + S, K), dtype=np.int32)
        step[:done] = np.arange(-done, 0, dtype=np.int32)[:, None]
        step[done:] = np.where(nxt < 0, nxt - done, nxt)
        idx = (prev + done) * K  # (S, K**(k-1))
        prev = step.ravel().take(idx[:, None, :] + np.arange(K, dtype=np.int32)[None, :, None])
        prev = prev.reshape(S, width)
        out[k] = prev.ravel()
    return out
