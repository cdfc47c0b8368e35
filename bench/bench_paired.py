"""Benchmark of paired comparisons (issue 23 item 2). Not a test.

For each case, one grid point, two variants:
  - the width of the 95% interval on the difference of each outcome's or event's
    probability (or of a mean: the party's ``expected_deaths``, ``rounds``), paired
    (``compare(..., paired=True)``: the same positional streams, joint outcomes and marks
    counted track by track) against independent (the two-sample interval of the same
    counts, ``diff_independent_ci_*``), and their ratio (how many times narrower);
  - the cost: CPU time of the paired compare against one variant's plain run
    (``simulate`` in the default mode) and against ``compare(..., paired=False)``.
    Target (issue 23): a paired comparison of two variants costs at most 2.2x one run
    (issue 28: a paired party compare at most 2.1x).

Then (``--only events``) the events' overhead: a party run with its summary, events and
means against the same run with the outcomes' summary only
(target: at most 5% more); and (``--only cost``) where a paired comparison's time goes,
for party seed000 vs pf2e-core, party hero_points 1 vs 2 (``--n-cost`` tracks), dying
seed vs pf2e-core at level 10 (``--n-dying-cost``: 10^6 and 10^7 tracks) and the day's
seed000 vs pf2e-core (``--n-day``; ``--cases`` picks some): each variant's
plain run, positional run and sweep, the two runs as the compare makes them (dying: the
table runner, :mod:`simkit.core.lockstep_tables`), the compare; ``--rounds`` interleaved
rounds, the medians of the rounds' ratios.

Cases: ``dying`` seed vs pf2e-core (typical character, monster of its level, levels 1, 5,
10 and 15); ``party`` hero_points 1 vs 2; ``party`` seed000 vs pf2e-core (level 5, the
default lineup); ``day`` (level 5, four moderate fights with a short rest after each, the
issue 20 bench's day) seed000 vs pf2e-core, and under pf2e-core the seeds' rest vs the
published one (``rest_rules``: the same fights, Treat Wounds or not between them).
``--n-dying``, ``--n-party``, ``--n-day``: tracks per variant; ``--only day``: the day's
cases alone.
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
#: The day's rows: outcomes, then events and means of its marks (paired too).
DAY_ROWS = [
    "survived",
    "survived_with_deaths",
    "defeat",
    "any_death",
    "tpk",
    "death_in_fight",
    "death_after_defeat",
    "death_after_fight",
    "expected_deaths",
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


def events_overhead(n: int, seed: int, rounds: int = 6) -> None:
    """What the events cost (issue 23: at most 5% over the summary before them): a run of
    the party (level 5, moderate) with its summary, events and means (``summary()``),
    against a run with the outcomes' summary alone (``summary(events=False)``). The
    deaths-by-cause marks are the fight loop's own (no run leaves them out since the party
    kernel of 0.3, which could, was retired): the baseline keeps them. Interleaved rounds,
    best of ``rounds`` (CPU time)."""
    party = make_model("party")
    plain = party
    best: dict = {}

    def keep(name, dt):
        best[name] = min(best.get(name, float("inf")), dt)

    for r in range(rounds):
        for which in ("now", "before") if r % 2 == 0 else ("before", "now"):  # either first
            if which == "now":
                t0 = time.process_time()
                res = simulate(party, n, seed)
                t1 = time.process_time()
                res.summary()
                t2 = time.process_time()
                res.summary(events=False)
                t3 = time.process_time()
                keep("run", t1 - t0)
                keep("summary", t2 - t1)
                keep("summary_outcomes", t3 - t2)
            else:
                t0 = time.process_time()
                simulate(plain, n, seed).summary(events=False)
                keep("before", time.process_time() - t0)
    now = best["run"] + best["summary"]
    print(f"\n## events overhead: party level 5 moderate, n = {n:,} (best of {rounds}, CPU)")
    print(
        f"run + summary with events and means: {now:.3f} s (run {best['run']:.3f} s, "
        f"summary {1e3 * best['summary']:.1f} ms); with the "
        f"outcomes' summary alone: {best['before']:.3f} s (summary "
        f"{1e3 * best['summary_outcomes']:.1f} ms): x{now / best['before']:.3f} (target <= 1.05)"
    )


def _point_models(variants, grid, fixed, n, seed) -> dict:
    """Each variant's model at the grid's first point (its sweep keys resolved)."""
    from simkit.analysis.sweep import plan_sweep

    return {v: plan_sweep(m, grid, n, seed, fixed=fixed).models[0] for v, m in variants.items()}


def cost_cases(n: int, n_dying: list[int], n_day: int = 20_000) -> list:
    """The cost bench's cases: (name, variants, grid, fixed, n)."""
    from simkit.analysis.compare import variants

    party = make_model("party")
    day = make_model("day", level=5, fights=4, between="short_rest")
    dying = [
        (
            "dying seed vs pf2e-core, level 10",
            variants("dying"),
            {"level": [10]},
            {"level_diff": 0},
            size,
        )
        for size in n_dying
    ]
    return [
        (
            "party seed000 vs pf2e-core",
            {"seed000": party, "pf2e-core": party.replace(rules="pf2e-core")},
            None,
            None,
            n,
        ),
        (
            "party hero_points 1 vs 2",
            {
                "hero_points=1": party.replace(hero_points=1),
                "hero_points=2": party.replace(hero_points=2),
            },
            None,
            None,
            n,
        ),
        *dying,
        (
            "day seed000 vs pf2e-core (level 5, 4 moderate fights, short rests)",
            {"seed000": day, "pf2e-core": day.replace(rules="pf2e-core")},
            None,
            None,
            n_day,
        ),
    ]


def _together(models: list, size: int, seed: int):
    """How :func:`simkit.analysis.paired.paired_runs` runs these variants: the name of the
    way and the call (the table runner, the kernels stepped together, or one after the
    other keeping each track's outcome and marks)."""
    from simkit.core.lockstep import simulate_lockstep
    from simkit.core.lockstep_tables import simulate_tables, steps_by_table

    if steps_by_table(models):
        return "tables, one draw and a lookup a variant", lambda: simulate_tables(
            models, size, seed
        )
    if all(getattr(m, "lockstep", False) for m in models):
        return "stepped together", lambda: simulate_lockstep(models, size, seed)
    return "both runs, outcomes kept", lambda: [
        simulate(m, size, seed, positional=True, keep_outcomes=True) for m in models
    ]


def paired_cost(
    n: int,
    n_dying: list[int],
    seed: int,
    rounds: int = 5,
    repeat: int = 1,
    n_day: int = 20_000,
    cases: str | None = None,
) -> None:
    """Where a paired comparison's time goes, for each case of :func:`cost_cases` (one
    point, two variants): each variant's plain run (default streams: "one variant's run";
    the ratios are to the mean of the two), each variant's run on positional streams (the
    numbers a paired compare gives each variant), each variant's sweep at the point (the
    same table work for one variant), the two variants' runs as the compare makes them
    (:func:`_together`), and the whole paired compare (the runs, the joint counts, the
    paired tests, the table). Interleaved rounds (the order reversed every other round),
    CPU time, each step the fastest of ``repeat`` calls in a row (a short disturbance of
    this shared machine then spoils one call, not the round); each ratio is the median of
    the rounds' ratios (a round's slow phase touches both sides), the fastest compare over
    the fastest plain runs beside it."""
    from simkit.analysis.sweep import sweep

    for name, variants, grid, fixed, size in cost_cases(n, n_dying, n_day):
        if cases and not any(c in name for c in cases.split(",")):
            continue
        models = _point_models(variants, grid, fixed, size, seed)
        (a, ma), (b, mb) = models.items()
        how, together = _together([ma, mb], size, seed)
        steps = [
            ("plain " + a, lambda: simulate(ma, size, seed)),
            ("plain " + b, lambda: simulate(mb, size, seed)),
            ("positional " + a, lambda: simulate(ma, size, seed, positional=True)),
            ("positional " + b, lambda: simulate(mb, size, seed, positional=True)),
            ("sweep " + a, lambda: sweep(variants[a], grid, size, seed, fixed=fixed)),
            ("sweep " + b, lambda: sweep(variants[b], grid, size, seed, fixed=fixed)),
            ("runs: " + how, together),
            ("compare", lambda: compare(variants, grid, size, seed, fixed=fixed)),
        ]
        for _, fn in steps:  # (tables, caches and imports ready: every round alike)
            fn()
        times: dict = {k: [] for k, _ in steps}
        for r in range(rounds):
            for k, fn in steps if r % 2 == 0 else steps[::-1]:  # either order
                times[k].append(cpu(fn, repeat)[0])
        t = {k: np.array(v) for k, v in times.items()}
        one = (t["plain " + a] + t["plain " + b]) / 2  # a round's mean plain run
        pos = (t["positional " + a] + t["positional " + b]) / 2
        swp = (t["sweep " + a] + t["sweep " + b]) / 2
        print(f"\n## paired cost: {name}, n = {size:,} ({rounds} rounds, best of {repeat}, CPU)")
        print("| what | CPU s (median) | / one plain run (median of the rounds) |")
        print("|---|---|---|")
        for k, v in t.items():
            print(f"| {k} | {np.median(v):.4f} | x{np.median(v / one):.2f} |")
        best = t["compare"].min() / min(t["plain " + a].min(), t["plain " + b].min())
        print(
            f"compare / one plain run: **x{np.median(t['compare'] / one):.2f}** (rounds: "
            f"{', '.join(f'{x:.2f}' for x in t['compare'] / one)}; fastest / fastest: "
            f"x{best:.2f}); / one positional run x{np.median(t['compare'] / pos):.2f}; "
            f"/ one variant's sweep x{np.median(t['compare'] / swp):.2f}; target: <= x2.2 "
            f"(issue 23; party and day: <= x2.1, issue 28)"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-dying", type=int, default=1_000_000)
    ap.add_argument(
        "--n-dying-cost",
        default="1000000,10000000",
        help="tracks of the dying cost rows, comma-separated (default: 10^6 and 10^7)",
    )
    ap.add_argument("--n-party", type=int, default=100_000)
    ap.add_argument("--n-day", type=int, default=20_000)
    ap.add_argument("--n-cost", type=int, default=500_000, help="tracks of the cost rows")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=7, help="rounds of the cost rows (medians)")
    ap.add_argument(
        "--cases",
        help="cost rows whose name holds one of these words (comma-separated: party,dying,day)",
    )
    ap.add_argument(
        "--repeat", type=int, default=1, help="calls of each step a round (its fastest)"
    )
    ap.add_argument(
        "--only",
        choices=("widths", "events", "cost", "day"),
        help="one part (default: all three; day: the widths of the day's cases alone)",
    )
    args = ap.parse_args()
    if args.only in (None, "events"):
        events_overhead(args.n_cost, args.seed)
    if args.only in (None, "cost"):
        sizes = [int(float(x)) for x in args.n_dying_cost.split(",")]
        paired_cost(args.n_cost, sizes, args.seed, args.rounds, args.repeat, args.n_day, args.cases)
    if args.only == "day":
        day_widths(args.n_day, args.seed)
    if args.only not in (None, "widths"):
        return
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
    day_widths(args.n_day, args.seed)


def day_widths(n: int, seed: int) -> None:
    """The day's paired widths: level 5, four moderate fights with a short rest after each
    (bench_day's day), seed000 vs pf2e-core, and pf2e-core's two rests."""
    day = make_model("day", level=5, fights=4, between="short_rest")
    report(
        "day: seed000 vs pf2e-core (level 5, 4 moderate fights, short rests)",
        {"seed000": day, "pf2e-core": day.replace(rules="pf2e-core")},
        None,
        None,
        n,
        seed,
        DAY_ROWS,
    )
    core = day.replace(rules="pf2e-core")
    report(
        "day: pf2e-core, rest_rules seeds vs pf2e (the same day, Treat Wounds or not)",
        {"seeds": core.replace(rest_rules="seeds"), "pf2e": core.replace(rest_rules="pf2e")},
        None,
        None,
        n,
        seed,
        DAY_ROWS,
    )


if __name__ == "__main__":
    main()
