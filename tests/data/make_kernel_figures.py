"""The vectorised party kernel's figures (0.3, ``engine="kernel"``), kept as data.

Issue 28: the compiled loop replaces the kernel, and "every fight number changes once":
tests/test_fight_loop.py holds the loop to these figures (every outcome, event and mark
within 5 standard errors) on the same 47 configurations and 4 day plans, so the check
outlives the kernel. Kept as the record: the kernel was retired after it ran, so it runs
only on a commit that still has the kernel (the JSON's was made on commit
c7ec21ed96b0f5644d1994816e0622997ce2c81e, its ``"commit"``), from the repository root:

    git worktree add /tmp/k c7ec21ed96b0f5644d1994816e0622997ce2c81e
    cd /tmp/k && python tests/data/make_kernel_figures.py  # writes tests/data/kernel_0.3.json

Each configuration ``i`` at n = 200,000 tracks, seed ``7 + i``; each day plan at n = 20,000,
seed 5 (the seeds the tests used when both engines ran side by side).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from test_fight_loop import CONFIGS, DAY_PLANS  # noqa: E402

import simkit  # noqa: E402
from simkit.core.result import event_counts  # noqa: E402
from simkit.models.day import Day  # noqa: E402
from simkit.models.party import Party  # noqa: E402

N, N_DAY = 200_000, 20_000


def _marks(res, names) -> dict:
    out = {}
    for mark in names:
        h = res.marks[mark].sum(axis=0).astype(float)
        v = np.arange(len(h))
        n = h.sum()
        mean = (h * v).sum() / n
        out[mark] = {"mean": mean, "var": (h * (v - mean) ** 2).sum() / n, "n": int(n)}
    return out


def figures(res, n: int, marks) -> dict:
    return {
        "n": n,
        "p": {k: float(v) for k, v in res.probabilities.items()},
        "events": {e: c / n for e, c in event_counts(res).items()},
        "marks": _marks(res, marks),
    }


def main() -> None:
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=HERE
    ).stdout.strip()
    party = []
    for i, kw in enumerate(CONFIGS):
        res = simkit.simulate(Party(**kw, engine="kernel"), N, 7 + i)
        marks = [m for m in Party.marks if m != "dead_mask"]
        party.append({"config": kw, **figures(res, N, marks)})
        print(i, kw, flush=True)
    days = []
    for kw in DAY_PLANS:
        res = simkit.simulate(dataclasses.replace(Day(**kw), engine="kernel"), N_DAY, 5)
        days.append({"config": kw, **figures(res, N_DAY, ["deaths"])})
    out = {"commit": commit, "engine": "kernel", "party": party, "day": days}
    (HERE / "kernel_0.3.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
