"""Per-track cost of the encounter model against the dying model (issue 13). Not a test.

Each case is simulated in the same process as the default ``dying`` model, interleaved
round by round (a busy machine slows both alike), and the best of ``--rounds`` rounds is
kept for each. The printed ratio is

    (seconds per track of the case) / (seconds per track of dying defaults)

with the target beside it (issue 13: ``encounter`` defaults <= 40x). The other cases are
printed for scale (no target):
  - the designer's question: a level-5 fighter against a level-7 monster that keeps
    attacking the downed character, a cleric arriving at round 3 (seed 000);
  - the same under seed 001 (perseverance, then hourly recovery);
  - three enemies with three strikes each, some spell-like effects, a healer that may
    arrive any round.
"""

from __future__ import annotations

import argparse
import os
import time

from simkit import Dying, simulate
from simkit.models.encounter import Encounter

#: label -> (model, target ratio or None, divisor of n)
CASES = {
    "encounter (defaults)": (Encounter(), 40.0, 4),
    "L5 vs L7, target downed, cleric r3": (
        Encounter(level=5, monster_level=7, target_downed="always", healer_round=3),
        None,
        20,
    ),
    "same, seed 001": (
        Encounter(
            level=5, monster_level=7, target_downed="always", healer_round=3, dying_rules="seed001"
        ),
        None,
        20,
    ),
    "3 enemies x 3 strikes, effects, healer 20%": (
        Encounter(
            level=8,
            monster_level=6,
            enemies=3,
            attacks=3,
            effect_chance=0.3,
            target_downed="sometimes",
            healer_chance=0.2,
            medicine=14,
        ),
        None,
        40,
    ),
}


def _per_track(model, n: int, seed: int) -> float:
    t0 = time.perf_counter()
    simulate(model, n, rng=seed)
    return (time.perf_counter() - t0) / n


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=float, default=2e6, help="dying tracks per timing (default 2e6)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds; the best is kept (default 5)")
    args, _ = ap.parse_known_args(argv)
    n = int(args.n)
    dying = Dying()
    for model in (dying, *(c[0] for c in CASES.values())):
        simulate(model, 10_000, rng=0)  # warm tables, caches and imports
    best_ref = float("inf")
    best = {label: float("inf") for label in CASES}
    for r in range(args.rounds):
        for label, (model, _, div) in CASES.items():
            best_ref = min(best_ref, _per_track(dying, n, r))
            best[label] = min(best[label], _per_track(model, max(1, n // div), r))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"encounter / dying, per track, best of {args.rounds} interleaved rounds "
        f"(dying: {best_ref * 1e9:.0f} ns/track; load average {load:.1f})"
    )
    print(f"{'case':<46} {'ns/track':>9} {'ratio':>7}  target")
    for label, (_, target, _) in CASES.items():
        ratio = best[label] / best_ref
        mark = f"<= {target:g}  {'ok' if ratio <= target else 'MISSED'}" if target else "-"
        print(f"{label:<46} {best[label] * 1e9:9.0f} {ratio:7.1f}  {mark}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
