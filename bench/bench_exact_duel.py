"""The cost of an exact duel by level (issue 31, item 6). Not a test.

The cases: ``simkit exact party --set party=fighter --set level=L`` (one fighter against
the default boss) at levels 1, 5, 10, 15 and 20, then every class and rule set at level 20
(the largest: a seed-001 wizard, 18.1M chain states), a custom rule at 0 HP
(``dying=dnd5e``), the seed rules' options (temporary HP, Constitution damage) and a
monster's dying effect under pf2e-core's wounded rule (AP-38) at level 20, all solved on
the duel's grid (:mod:`simkit.models.duel_grid`). Each case is solved in a fresh process
(``--case N`` runs one), with BLAS held to one thread, so that its peak resident memory
(``ru_maxrss``, the interpreter and numpy included) and its time are its own; the time is
CPU time (``time.process_time``), the best of ``--rounds`` solves (the matrices rebuilt
each time). Printed: the case, chain states
(:func:`simkit.models.party_duel.duel_states`), rounds until the fight is over, CPU
seconds, peak memory, P(defeat), and ok or MISSED against the target: <= 10 s and <= 2 GB
on one core. The exit status is 1 when a case missed.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time

SECONDS_TARGET = 10.0
MB_TARGET = 2048.0
_THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

#: (label, Party parameters)
CASES: list[tuple[str, dict]] = [
    *[(f"fighter L{lv}", dict(party="fighter", level=lv)) for lv in (1, 5, 10, 15, 20)],
    *[
        (f"{p} L20 {rules}", dict(party=p, level=20, rules=rules))
        for p in ("fighter", "rogue", "wizard")
        for rules in ("seed000", "pf2e-core", "seed001")
    ],
    ("fighter L20 dying=dnd5e", dict(party="fighter", level=20, dying="dnd5e")),
    ("wizard L20 seed001 temp_hp=30", dict(party="wizard", level=20, rules="seed001", temp_hp=30)),
    (
        "fighter L20 seed001 con_damage=2",
        dict(party="fighter", level=20, rules="seed001", con_damage=2),
    ),
    ("fighter L20 hero_points=3", dict(party="fighter", level=20, hero_points=3)),
    (
        "wizard L20 pf2e-core dying_effect",  # (AP-38: four wounded values on the grid)
        dict(party="wizard", level=20, rules="pf2e-core", dying_effect=0.4),
    ),
]


def one(case: int, rounds: int) -> str:
    """One case in this process: a line of figures."""
    import numpy as np

    import simkit
    from simkit.models.duel_grid import _grid
    from simkit.models.party import Party
    from simkit.models.party_duel import duel_states

    label, params = CASES[case]
    r = Party(**params)
    best = float("inf")
    res = None
    for _ in range(rounds):
        _grid.cache_clear()
        t0 = time.process_time()
        res = simkit.solve(r)
        best = min(best, time.process_time() - t0)
    assert res is not None
    last = int(np.flatnonzero(res.hist.sum(axis=0))[-1])
    mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # (KiB on Linux)
    ok = best <= SECONDS_TARGET and mb <= MB_TARGET
    return (
        f"{label:34s} {duel_states(r):11,d} {last:6d} {best:8.3f} {mb:8.0f} "
        f"{res['defeat']:.6f} {'ok' if ok else 'MISSED'}"
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", type=int, help="solve this case only, in this process")
    ap.add_argument("--rounds", type=int, default=3, help="solves; the best kept (default 3)")
    args, _ = ap.parse_known_args(argv)
    if args.case is not None:
        print(one(args.case, args.rounds), flush=True)
        return 0
    env = dict(os.environ, **{k: "1" for k in _THREADS})
    print(f"one BLAS thread; load average {os.getloadavg()[0]:.2f}")
    print(f"{'case':34s} {'states':>11s} rounds  cpu s  peak MB P(defeat) target")
    missed = 0
    worst_s = worst_mb = 0.0
    for i in range(len(CASES)):
        cmd = [sys.executable, __file__, "--case", str(i), "--rounds", str(args.rounds)]
        line = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
        print(line.rstrip(), flush=True)
        fields = line.split()
        worst_s, worst_mb = max(worst_s, float(fields[-4])), max(worst_mb, float(fields[-3]))
        missed += fields[-1] == "MISSED"
    print(
        f"worst: {worst_s:.3f} s (target <= {SECONDS_TARGET:g}), {worst_mb:.0f} MB "
        f"(target <= {MB_TARGET:g}): {'met' if not missed else f'MISSED ({missed})'}; "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    return 0 if not missed else 1


if __name__ == "__main__":
    raise SystemExit(main())
