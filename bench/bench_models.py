"""Per-track cost of the table-driven models against ``dying`` (issue 13). Not a test.

Each model's defaults are simulated in the same process as the default ``dying`` model,
interleaved round by round (so a busy machine slows both alike), and the best of
``--rounds`` rounds is kept for each. The printed ratio is

    (seconds per track of the model) / (seconds per track of dying)

with the issue's target beside it. Each timing simulates at least ``n`` tracks, and
more when that would take under 0.2 s (a short timing is mostly noise).
"""

from __future__ import annotations

import argparse
import datetime
import os
import time

from simkit import simulate
from simkit.models import make_model

#: model name -> (issue 13's target ratio, or None for a row shown for information; divisor of n)
TARGETS: dict[str, tuple[float | None, int]] = {
    "fatigue": (15.0, 1),
    "recovery": (3.0, 1),
    "fall": (3.0, 1),
    "perseverance": (None, 1),
    "agony": (None, 1),
}


def _time(model, n: int, seed: int) -> float:
    t0 = time.perf_counter()
    simulate(model, n, rng=seed)
    return time.perf_counter() - t0


def _size(model, n: int, seconds: float) -> int:
    """Tracks per timing: at least ``n``, and enough for about ``seconds`` (short is noisy)."""
    per_track = _time(model, n, 0) / n
    return int(min(max(n, seconds / max(per_track, 1e-12)), 50 * n))


def ratios(names, n: int, rounds: int, seconds: float = 0.2) -> dict[str, float]:
    """Best-of-``rounds`` per-track cost of each model over dying's, interleaved."""
    dying = make_model("dying")
    models = {name: make_model(name) for name in names}
    for model in (dying, *models.values()):
        simulate(model, 10_000, rng=0)  # warm tables, caches and imports
    n_ref = _size(dying, n, seconds)
    sizes = {
        name: _size(model, max(1, n // TARGETS[name][1]), seconds) for name, model in models.items()
    }
    best_ref = float("inf")
    best = {name: float("inf") for name in names}
    for r in range(rounds):
        for name, model in models.items():
            best_ref = min(best_ref, _time(dying, n_ref, r) / n_ref)
            best[name] = min(best[name], _time(model, sizes[name], r) / sizes[name])
    return {name: best[name] / best_ref for name in names}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "-n",
        type=float,
        default=1e6,
        help="least tracks per timing (default 1e6; more when a timing would be short)",
    )
    ap.add_argument("--rounds", type=int, default=5, help="rounds; the best is kept (default 5)")
    ap.add_argument("--models", default=",".join(TARGETS), help="comma-separated model names")
    args, _ = ap.parse_known_args(argv)
    names = [s for s in args.models.split(",") if s]
    for name in names:
        if name not in TARGETS:
            ap.error(f"--models: unknown model {name!r}; known: {', '.join(TARGETS)}")
    res = ratios(names, int(args.n), args.rounds)
    when = datetime.date.today().isoformat()
    print(
        f"# per-track cost / dying's, best of {args.rounds} interleaved rounds, "
        f"n >= {int(args.n):,}, {os.cpu_count()} cores, {when}"
    )
    print(f"{'model':<22}{'ratio':>8}{'target':>9}")
    for name, ratio in res.items():
        target = TARGETS[name][0]
        shown = "-" if target is None else "<= " + format(target, "g")
        flag = "" if target is None or ratio <= target else "  (over)"
        print(f"{name + ' / dying':<22}{ratio:>8.2f}{shown:>9}{flag}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
