"""A fight with a designer's rule at 0 HP against the default fight (issue 31). Not a test.

The case: a level-5 party against a severe boss (the default), played on the compiled
fight loop with the rules set's own dying track, then with ``dying=dnd5e`` (a custom
track read as tables, :mod:`simkit.models.downed_rule`). Ratios in one run, interleaved
rounds, CPU time (``time.process_time``), one thread. Target: the custom rule costs at most
1.2x the default.

    python bench/bench_custom_rule.py [--n 200000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numba

import simkit
from simkit.models.party import Party

TARGET = 1.2


def seconds(rules: Party, n: int, seed: int) -> float:
    """CPU seconds of one run of ``n`` fights."""
    t0 = time.process_time()
    simkit.simulate(rules, n, seed)
    return time.process_time() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=200_000, help="fights a run (default 2e5)")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (median)")
    args = ap.parse_args(argv)
    numba.set_num_threads(1)
    base = Party(level=5, threat="severe")
    custom = Party(level=5, threat="severe", dying="dnd5e")
    for r in (base, custom):  # compile and warm (not timed)
        simkit.simulate(r, 2000, 1)
    ratios = []
    for i in range(args.rounds):
        ratios.append(seconds(custom, args.n, i) / seconds(base, args.n, i))
    ratio = statistics.median(ratios)
    print(f"# {os.cpu_count()} CPUs; load {os.getloadavg()[0]:.2f}; n = {args.n:,}; one thread")
    print(
        f"dying=dnd5e / the default track, level 5 severe (CPU): {ratio:.2f}x "
        f"(target <= {TARGET}x){'' if ratio <= TARGET else '  OVER THE TARGET'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
