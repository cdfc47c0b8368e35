"""Encounters per second of the party model, and its per-track cost against ``encounter``
(issue 11). Not a test.

The case: a level-5 party of four (fighter, rogue, cleric, wizard) against a moderate
lineup (``boss``, ``boss_and_minions`` and ``pack``), seed 000. Each is simulated in the
same process as the default ``encounter`` model, interleaved round by round (a busy
machine slows both alike), best of ``--rounds`` kept. Printed: encounters/s on one core
(target >= 200,000) and the ratio

    (seconds per party encounter) / (seconds per track of encounter defaults)

(target <= 10). Then the peak traced memory at one block and at four blocks of tracks
(bounded by the block, not by n), the cost of a fight started from a given state
(``start=``, the state a first fight left, and ``keep_state``) over a fresh start (issue
18: at most 5%), the cost of a block mixing two fights (``Party.with_lineups``: tracks of
the boss and of the pack lineup alternating in one block, issue 18 item 3) over the two
fights run apart, and the time of the threat x level x rules report at 20,000 encounters a
point with 2 local workers (target: two minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc

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
    ap.add_argument("--no-memory", action="store_true", help="skip the memory row")
    ap.add_argument("--no-report", action="store_true", help="skip the report timing")
    ap.add_argument("--no-start", action="store_true", help="skip the start-state row")
    ap.add_argument("--no-lineups", action="store_true", help="skip the mixed-lineups row")
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
    if not args.no_start:
        _start(n, args.rounds)
    if not args.no_lineups:
        _lineups(n, args.rounds)
    if not args.no_memory:
        _memory()
    if not args.no_report:
        _report()
    return 0


def _start(n: int, rounds: int) -> None:
    """A fight started from a state (every PC at full HP, so the same fight) against the
    fresh start, interleaved; and the fight that also keeps its end state."""
    model = CASES["L5 party of four vs moderate boss"]
    start = model.fresh_start(n)
    best = {"fresh": float("inf"), "start=": float("inf"), "start= + keep_state": float("inf")}
    for r in range(rounds):
        for label in best:
            t0 = time.perf_counter()
            if label == "fresh":
                simulate(model, n, rng=r)
            else:
                simulate(model, n, rng=r, start=start, keep_state=label != "start=")
            best[label] = min(best[label], time.perf_counter() - t0)
    for label in ("start=", "start= + keep_state"):
        extra = best[label] / best["fresh"] - 1
        verdict = "met" if extra <= 0.05 else "NOT met"
        print(f"{label}: {extra:+.1%} over a fresh start (target <= +5%: {verdict})")


def _lineups(n: int, rounds: int) -> None:
    """A block whose tracks alternate between two fights (boss, pack) against the two
    fights run apart (n / 2 tracks each), interleaved; best of ``rounds``."""
    import dataclasses

    import numpy as np

    boss = CASES["L5 party of four vs moderate boss"]
    pack = CASES["L5 party of four vs moderate pack"]
    both = boss.with_lineups(({}, {"lineup": "pack"}))
    start = dataclasses.replace(both.fresh_start(n), fight=np.arange(n) % 2)
    simulate(both, 10_000, rng=0, start=start.rows(0, 10_000))  # warm its tables
    best = {"apart": float("inf"), "mixed": float("inf")}
    for r in range(rounds):
        t0 = time.perf_counter()
        simulate(boss, n // 2, rng=r)
        simulate(pack, n - n // 2, rng=r)
        best["apart"] = min(best["apart"], time.perf_counter() - t0)
        t0 = time.perf_counter()
        simulate(both, n, rng=r, start=start)
        best["mixed"] = min(best["mixed"], time.perf_counter() - t0)
    print(
        f"two lineups in one block (boss | pack, alternating): {n / best['mixed']:,.0f} "
        f"encounters/s; the two apart {n / best['apart']:,.0f}/s "
        f"(mixed x{best['mixed'] / best['apart']:.2f} the time; no target)"
    )


def _memory() -> None:
    """Peak traced memory of the default party at n = one block and at four blocks."""
    block = 2**18
    model = CASES["L5 party of four vs moderate boss"]
    peaks = []
    for n in (block, 4 * block):
        tracemalloc.start()
        simulate(model, n, rng=1, block_size=block)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    ratio = peaks[1] / peaks[0]
    print(
        f"memory: peak {peaks[0] / 2**20:.0f} MB at n = {block:,} (one block), "
        f"{peaks[1] / 2**20:.0f} MB at n = {4 * block:,} (four): x{ratio:.2f} "
        f"(target: bounded by the block, not by n: {'met' if ratio < 1.25 else 'NOT met'})"
    )


def _report() -> None:
    """The threat x level x rules report at 20,000 encounters a point, 2 local workers."""
    from simkit.analysis.party_report import threat_by_level

    t0 = time.perf_counter()
    df = threat_by_level(n=20_000, rng=0, workers=2)
    dt = time.perf_counter() - t0
    points = len(df[df["outcome"] == "any_death"])
    print(
        f"report party_threat_by_level: {points} points x 20,000 encounters, 2 workers: "
        f"{dt:.1f} s (target <= 120 s: {'met' if dt <= 120 else 'NOT met'})"
    )


if __name__ == "__main__":
    raise SystemExit(main())
