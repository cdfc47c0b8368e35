"""The cost of an exact duel by level (issue 31, item 6). Not a test.

The case: ``simkit exact party --set party=fighter --set level=L`` (one fighter against
the default boss) at levels 1, 5, 10, 15 and 20, solved on the duel's grid
(:mod:`simkit.models.duel_grid`). Each level is solved in a fresh process (``--level L``
runs one), with BLAS held to one thread, so that its peak resident memory (``ru_maxrss``,
the interpreter and numpy included) and its time are its own; the time is the best of
``--rounds`` solves (the matrices rebuilt each time). Printed: level, states (the grid's
cells, :func:`simkit.models.party_duel.duel_states`), rounds until the fight is over,
seconds, peak memory, P(defeat). Target at level 20: <= 10 s and <= 2 GB on one core.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time

LEVELS = (1, 5, 10, 15, 20)
SECONDS_TARGET = 10.0
MB_TARGET = 2048.0
_THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def one(level: int, party: str, rules: str, rounds: int) -> str:
    """One level in this process: a line of figures."""
    import numpy as np

    import simkit
    from simkit.models.duel_grid import _grid
    from simkit.models.party import Party
    from simkit.models.party_duel import duel_states

    r = Party(party=party, level=level, rules=rules)
    best = float("inf")
    res = None
    for _ in range(rounds):
        _grid.cache_clear()
        t0 = time.perf_counter()
        res = simkit.solve(r)
        best = min(best, time.perf_counter() - t0)
    assert res is not None
    last = int(np.flatnonzero(res.hist.sum(axis=0))[-1])
    mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # (KiB on Linux)
    return f"{level:5d} {duel_states(r):10,d} {last:6d} {best:8.3f} {mb:8.0f} {res['defeat']:.6f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--level", type=int, help="solve this level only, in this process")
    ap.add_argument("--party", default="fighter", help="the PC (default fighter)")
    ap.add_argument("--rules", default="seed000", help="the dying system (default seed000)")
    ap.add_argument("--rounds", type=int, default=3, help="solves; the best kept (default 3)")
    args, _ = ap.parse_known_args(argv)
    if args.level is not None:
        print(one(args.level, args.party, args.rules, args.rounds), flush=True)
        return 0
    env = dict(os.environ, **{k: "1" for k in _THREADS})
    print(f"{args.party}, {args.rules}, one BLAS thread")
    print("level     states rounds  seconds  peak MB P(defeat)")
    worst_s = worst_mb = 0.0
    for level in LEVELS:
        cmd = [sys.executable, __file__, "--level", str(level), "--party", args.party]
        cmd += ["--rules", args.rules, "--rounds", str(args.rounds)]
        line = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
        print(line.rstrip(), flush=True)
        fields = line.split()
        worst_s, worst_mb = max(worst_s, float(fields[3])), max(worst_mb, float(fields[4]))
    ok = worst_s <= SECONDS_TARGET and worst_mb <= MB_TARGET
    print(
        f"worst: {worst_s:.3f} s (target <= {SECONDS_TARGET:g}), {worst_mb:.0f} MB "
        f"(target <= {MB_TARGET:g}): {'met' if ok else 'MISSED'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
