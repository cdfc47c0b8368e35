"""Benchmark of the encounter model (issue 6), next to the dying model's. Not a test.

Measures simulate() in one process, best of ``--repeat`` runs, for:
  (a) the dying model's defaults (the foundation's kernel, for scale);
  (b) the designer's question: a level-5 fighter against a level-7 monster that keeps
      attacking the downed character, a cleric arriving at round 3 (seed 000);
  (c) the same under seed 001 (perseverance, then hourly recovery);
  (d) three enemies with three strikes each, some spell-like effects, a healer that
      may arrive any round.
Prints tracks/s and the mean number of rounds a track lasts (its active rounds).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from simkit import Dying, simulate
from simkit.models.encounter import Encounter

CASES = {
    "dying (defaults)": Dying(),
    "encounter: L5 vs L7, target downed, cleric r3": Encounter(
        level=5, monster_level=7, target_downed="always", healer_round=3),
    "encounter: same, seed 001": Encounter(
        level=5, monster_level=7, target_downed="always", healer_round=3, dying_rules="seed001"),
    "encounter: 3 enemies x 3 strikes, effects, healer 20%/round": Encounter(
        level=8, monster_level=6, enemies=3, attacks=3, effect_chance=0.3, target_downed="sometimes",
        healer_chance=0.2, medicine=14),
}


def mean_rounds(res) -> float:
    """Mean number of rounds simulated per track (absorbed at step t: t rounds)."""
    steps = np.arange(res.hist.shape[1])
    absorbed = res.hist.sum(axis=0)
    unresolved = res.n - absorbed.sum()
    return float((steps * absorbed).sum() + unresolved * (res.hist.shape[1] - 1)) / res.n


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=float, default=5e5, help="tracks per run")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    n = int(args.n)
    print(f"{'model':<62} {'tracks/s':>12} {'rounds/track':>13}")
    for label, model in CASES.items():
        simulate(model, 10_000, rng=0)  # warm caches and imports
        best, res = float("inf"), None
        for r in range(args.repeat):
            t0 = time.perf_counter()
            res = simulate(model, n, rng=r + 1)
            best = min(best, time.perf_counter() - t0)
        print(f"{label:<62} {n / best:12,.0f} {mean_rounds(res):13.2f}")


if __name__ == "__main__":
    main()
