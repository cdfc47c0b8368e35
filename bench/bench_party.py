"""Encounters per second of the party model, and its per-track cost against ``encounter``
(issue 11). Not a test.

The case: a level-5 party of four (fighter, rogue, cleric, wizard) against a moderate
lineup (``boss``, ``boss_and_minions`` and ``pack``), seed 000. Each is simulated in the
same process as the default ``encounter`` model, interleaved round by round (a busy
machine slows both alike), best of ``--rounds`` kept. Printed: encounters/s on one core
(target >= 200,000) and the ratio

    (seconds per party encounter) / (seconds per track of encounter defaults)

(target <= 10).
"""

from __future__ import annotations

import argparse
import os
import time

from simkit import simulate
from simkit.models.encounter import Encounter
from simkit.models.party import Party

CASES = {
    "L5 party of four vs moderate boss": Party(level=5, threat="moderate", lineup="boss"),
    "L5 party of four vs moderate boss_and_minions": Party(
        level=5, threat="moderate", lineup="boss_and_minions"
    ),
    "L5 party of four vs moderate pack": Party(level=5, threat="moderate", lineup="pack"),
}
RATE_TARGET = 200_000
RATIO_TARGET = 10.0


def _per_track(model, n: int, seed: int) -> float:
    t0 = time.perf_counter()
    simulate(model, n, rng=seed)
    return (time.perf_counter() - t0) / n


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=float, default=5e5, help="encounters per timing (default 5e5)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds; the best is kept (default 3)")
    args, _ = ap.parse_known_args(argv)
    n = int(args.n)
    ref = Encounter()
    for model in (ref, *CASES.values()):
        simulate(model, 10_000, rng=0)  # warm tables, caches and imports
    best_ref = float("inf")
    best = {label: float("inf") for label in CASES}
    for r in range(args.rounds):
        for label, model in CASES.items():
            best_ref = min(best_ref, _per_track(ref, n, r))
            best[label] = min(best[label], _per_track(model, n, r))
    print(f"one core (pid {os.getpid()}), n = {n:,} per timing, best of {args.rounds}")
    print(f"encounter defaults: {1 / best_ref:,.0f} tracks/s")
    for label, t in best.items():
        rate, ratio = 1 / t, t / best_ref
        print(
            f"{label}: {rate:,.0f} encounters/s (target >= {RATE_TARGET:,}: "
            f"{'met' if rate >= RATE_TARGET else 'NOT met'}); "
            f"x{ratio:.1f} encounter's per-track cost "
            f"(target <= {RATIO_TARGET:g}: {'met' if ratio <= RATIO_TARGET else 'NOT met'})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
