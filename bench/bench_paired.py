"""Benchmark of paired comparisons (issue 23 item 2). Not a test.

For each case, one grid point, two variants:
  - the width of the 95% interval on the difference of each outcome's or event's
    probability (or of a mean: the party's ``expected_deaths``, ``rounds``), paired
    (``compare(..., paired=True)``: the same positional streams, joint outcomes and marks
    counted track by track) against independent (the two-sample interval of the same
    counts, ``diff_independent_ci_*``), and their ratio (how many times narrower);
  - the cost: CPU time of the paired compare against one variant's plain run
    (``simulate`` in the default mode) and against ``compare(..., paired=False)``.
    Target (issue 23): a paired comparison of two variants costs at most 2.2x one run.

Cases: ``dying`` seed vs pf2e-core (typical character, monster of its level, levels 1, 5,
10 and 15); ``party`` hero_points 1 vs 2; ``party`` seed000 vs pf2e-core (level 5, the
default lineup). ``--n-dying``, ``--n-party``: tracks per variant.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from simkit import simulate
from simkit.analysis.compare import compare
from simkit.models import make_model

#: The party's rows shown: outcomes, then events and means of the marks (paired too).
PARTY_ROWS = [
    "victory",
    "victory_with_deaths",
    "defeat",
    "any_death",
    "tpk",
    "death_in_fight",
    "death_after_defeat",
    "death_after_fight",
    "expected_deaths",
    "rounds",
]


def cpu(fn, repeat=2):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t0)
    return best, out


def report(name, variants, grid, fixed, n, seed, outcomes):
    baseline = next(iter(variants))
    t_pair, df = cpu(lambda: compare(variants, grid, n, seed, fixed=fixed))
    t_ind, _ = cpu(lambda: compare(variants, grid, n, seed, fixed=fixed, paired=False))
    one = make_model(
        variants[baseline].name, **{k: v for k, v in variants[baseline].params().items()}
    )
    t_one, _ = cpu(lambda: simulate(one, n, seed))
    other = df[df["variant"] != baseline]
    print(f"\n## {name} (n = {n:,} per variant)")
    keys = list(df.attrs.get("grid", []))
    print(
        "| "
        + " | ".join(keys + ["outcome", "diff", "width paired", "width independent", "narrower"])
        + " |"
    )
    print("|" + "---|" * (len(keys) + 5))
    rows = other[other["outcome"].isin(outcomes)]
    rows = rows.iloc[np.argsort([outcomes.index(o) for o in rows["outcome"]], kind="stable")]
    for r in rows.itertuples():
        wp = r.diff_ci_high - r.diff_ci_low
        wi = r.diff_independent_ci_high - r.diff_independent_ci_low
        lead = [str(getattr(r, k)) for k in keys]
        ratio = "inf" if wp == 0 else f"x{wi / wp:.2f}"
        print(
            "| "
            + " | ".join(lead + [r.outcome, f"{r.diff:+.4f}", f"{wp:.4f}", f"{wi:.4f}", ratio])
            + " |"
        )
    points = max(1, int(np.prod([len(v) for v in (grid or {}).values()])))
    print(
        f"cost: paired compare {t_pair:.2f} s CPU, independent compare {t_ind:.2f} s, one "
        f"variant's run {t_one:.2f} s x {points} point(s): paired / one run = "
        f"x{t_pair / (t_one * points):.2f}, paired / independent = x{t_pair / t_ind:.2f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-dying", type=int, default=1_000_000)
    ap.add_argument("--n-party", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    from simkit.analysis.compare import variants

    v = variants("dying")
    report(
        "dying: seed vs pf2e-core",
        v,
        {"level": [1, 5, 10, 15]},
        {"level_diff": 0},
        args.n_dying,
        args.seed,
        ["dead"],
    )
    party = make_model("party")
    report(
        "party: hero_points 1 vs 2",
        {
            "hero_points=1": party.replace(hero_points=1),
            "hero_points=2": party.replace(hero_points=2),
        },
        None,
        None,
        args.n_party,
        args.seed,
        PARTY_ROWS,
    )
    report(
        "party: seed000 vs pf2e-core",
        {"seed000": party, "pf2e-core": party.replace(rules="pf2e-core")},
        None,
        None,
        args.n_party,
        args.seed,
        PARTY_ROWS,
    )


if __name__ == "__main__":
    main()
