"""The cost of an adventuring day against one party fight (issue 20). Not a test.

The case: a level-5 party of four (fighter, rogue, cleric, wizard) through four moderate
fights with a short rest after each (``plan="moderate, short_rest" x 4``), under seed 000
with the seeds' rest and under pf2e-core with the published rest (Treat Wounds), against
one moderate ``party`` fight of the same rules. The day and the fight are timed
interleaved, round by round (a busy machine slows both alike), by the process's CPU time,
best of ``--rounds`` kept. Printed: days/s, fights/s and the ratio (target <= 5), then the
peak traced memory of one block and of four blocks of days (bounded by the block).
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

from simkit import simulate
from simkit.models import make_model

PLAN = ", ".join(["moderate, short_rest"] * 4)
RATIO_TARGET = 5.0


def _cpu(model, n: int, seed: int) -> float:
    t0 = time.process_time()
    simulate(model, n, rng=seed)
    return time.process_time() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=float, default=1e5, help="tracks per timing (default 1e5)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds; the best is kept (default 3)")
    ap.add_argument("--no-memory", action="store_true", help="skip the memory row")
    args, _ = ap.parse_known_args(argv)
    n = int(args.n)
    worst = 0.0
    for rules in ("seed000", "pf2e-core"):
        day = make_model("day", level=5, plan=PLAN, rules=rules)
        fight = make_model("party", level=5, threat="moderate", rules=rules)
        simulate(day, 1000, rng=0)  # (tables and caches built once)
        simulate(fight, 1000, rng=0)
        best_day = best_fight = float("inf")
        for r in range(args.rounds):
            best_fight = min(best_fight, _cpu(fight, n, 10 + r))
            best_day = min(best_day, _cpu(day, n, 10 + r))
        ratio = best_day / best_fight
        worst = max(worst, ratio)
        print(
            f"{rules:9s}: day {n / best_day:10,.0f}/s, fight {n / best_fight:10,.0f}/s, "
            f"day / fight x{ratio:.2f} (target <= {RATIO_TARGET:g})"
        )
    if not args.no_memory:
        day = make_model("day", level=5, plan=PLAN)
        for blocks in (1, 4):
            tracemalloc.start()
            simulate(day, blocks * 2**16, rng=1, block_size=2**16)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            print(f"peak traced memory, {blocks} block(s) of 65,536 days: {peak / 2**20:.1f} MiB")
    return 0 if worst <= RATIO_TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
