"""The README's main job: regenerate the standard reports in a folder.

``python -m simkit.analysis.reports reports`` writes, each CSV with its PNG (every CSV is a
sweep table: grid columns, ``outcome, count, n, p, ci_low, ci_high, exact`` and the
``model, seed, point_seed, version, params`` record of each row):

- ``dying_dc_by_level``: seed 000, P(dead) by the source's DC (14..44) x the
  character's level (1..20; a fighter's Fortitude save, :mod:`simkit.rules.levels`);
- ``dying_dc_by_save``: the same over DC x raw save bonus;
- ``dying_survival``: P(still dying) and P(dead) by round for three DCs (per-step
  rows, :func:`simkit.analysis.sweep.sweep` with ``survival=True``);
- ``dying_seed_vs_pf2e``: the seed as written against ``pf2e-core`` by level, the
  knock-out coming from a monster of the character's level, with differences and
  tests (:func:`simkit.analysis.compare.compare`);
- once those models are registered: ``agony_con_by_healer`` (the seed-001 chain by
  Constitution and healer), ``fatigue_*`` and ``fall_*`` tables; and, for any other
  registered model, ``<model>_defaults`` (its odds and survival curve at defaults).

Every number comes from ``SEED``: rerunning gives the same files.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pandas as pd

from simkit.core.io import atomic_write
from simkit.core.params import ParamError, spec
from simkit.analysis.sweep import sweep, to_csv_text

__all__ = ["SEED", "main", "standard_reports", "write_csv"]

SEED = 20261129
#: Tracks per grid point of the standard reports.
N = 100_000


def write_csv(df: pd.DataFrame, path: Path) -> None:
    with atomic_write(path) as fh:
        fh.write(to_csv_text(df))


def _save(ax, path: Path, title: str) -> None:
    from simkit.analysis import plots

    ax.set_title(title, fontsize="medium")
    plots.save(ax, path)


def _dying(out: Path, n: int) -> list[str]:
    from simkit.analysis import plots
    from simkit.analysis.compare import compare, variants

    written = []
    grid = sweep("dying", {"dc": range(14, 45, 2), "level": range(1, 21)}, n, SEED)
    write_csv(grid, out / "dying_dc_by_level.csv")
    ax = plots.heatmap(grid, "level", "dc")
    _save(ax, out / "dying_dc_by_level.png",
          "Seed 000: P(dead) once knocked out, by source DC and level\n"
          "(fighter's Fortitude: expert, master at 9, Con +2 with boosts, resilient runes)")
    written.append("dying_dc_by_level")

    grid = sweep("dying", {"dc": range(14, 31, 2), "save_bonus": range(0, 21, 2)}, n // 2, SEED)
    write_csv(grid, out / "dying_dc_by_save.csv")
    ax = plots.heatmap(grid, "save_bonus", "dc")
    _save(ax, out / "dying_dc_by_save.png", "Seed 000: P(dead) once knocked out, by source DC and save")
    written.append("dying_dc_by_save")

    surv = sweep("dying", {"dc": [18, 22, 26]}, 2 * n, SEED, fixed={"save_bonus": 11, "max_rounds": 20},
                 survival=True)
    write_csv(surv, out / "dying_survival.csv")
    ax = plots.survival_sweep(surv, outcomes=("active", "dead"))
    _save(ax, out / "dying_survival.png", "Seed 000 dying track, save +11: P(still dying) and P(dead) by round")
    written.append("dying_survival")

    cmp = compare(variants("dying", ("seed", "pf2e-core")), {"level": range(1, 21)}, n, SEED,
                  fixed={"level_diff": 0})
    write_csv(cmp, out / "dying_seed_vs_pf2e.csv")
    ax = plots.compare_chart(cmp, outcome="dead", x="level")
    _save(ax, out / "dying_seed_vs_pf2e.png",
          "P(dead) once knocked out by a monster of the same level:\nseed 000 as written vs Pathfinder 2e as published")
    written.append("dying_seed_vs_pf2e")
    return written


def _candidates(cls, wanted: dict) -> dict:
    """The axes of ``wanted`` whose keys the model takes (parameters or sweep keys)."""
    from simkit.analysis.grid import sweep_keys_for

    known = set(spec(cls)) | set(sweep_keys_for(cls))
    return {k: v for k, v in wanted.items() if k in known}


def _grid_report(out: Path, name: str, stem: str, axes: dict, n: int, title: str,
                 outcome: str = "dead") -> str | None:
    """A sweep of ``axes`` (two: heatmap; one: line of P(outcome)); None if it cannot run."""
    from simkit.analysis import plots
    from simkit.models import REGISTRY

    cls = REGISTRY[name]
    axes = _candidates(cls, axes)
    if not axes:
        return None
    try:
        df = sweep(name, axes, n, SEED)
    except ParamError as exc:
        print(f"note: {stem}: {exc}; writing {name}_defaults instead", file=sys.stderr)
        return None
    outcome = outcome if outcome in set(df["outcome"]) else df["outcome"].iloc[0]
    write_csv(df, out / f"{stem}.csv")
    keys = list(axes)
    if len(keys) >= 2:
        where = {k: axes[k][0] for k in keys[2:]}
        ax = plots.heatmap(df, keys[0], keys[1], outcome=outcome, where=where or None)
    else:
        d = df.assign(variant=name)
        ax = plots.compare_chart(d, outcome=outcome, x=keys[0])
    _save(ax, out / f"{stem}.png", title)
    return stem


def _defaults_report(out: Path, name: str, n: int) -> str:
    from simkit.analysis import plots

    df = sweep(name, {}, n, SEED)
    write_csv(df, out / f"{name}_defaults.csv")
    surv = sweep(name, {}, n, SEED, survival=True)
    write_csv(surv, out / f"{name}_defaults_survival.csv")
    stage = surv["stage"].iloc[0]
    outcomes = [o for o in ("active", "dead") if o in set(surv.loc[surv["stage"] == stage, "outcome"])]
    ax = plots.survival_sweep(surv, outcomes=tuple(outcomes), stage=stage)
    _save(ax, out / f"{name}_defaults.png", f"{name} at its defaults: outcome odds by {surv['time_unit'].iloc[0]}")
    return f"{name}_defaults"


def _probability_params(cls) -> list[str]:
    return [k for k, m in spec(cls).items() if m["kind"] == "float" and m["lo"] == 0 and m["hi"] == 1]


def standard_reports(out: Path, n: int = N) -> list[str]:
    """Write the standard set into ``out``; the stems written."""
    from simkit.models import REGISTRY

    out.mkdir(parents=True, exist_ok=True)
    written = _dying(out, n) if "dying" in REGISTRY else []
    covered = {"dying"}
    small = max(1, n // 5)
    if "agony" in REGISTRY:
        stem = _grid_report(out, "agony", "agony_con_by_healer",
                            {"con": list(range(-1, 6)), "healer": [None, 0, 3, 6, 9, 12]}, small,
                            "Seed 001, knock-out to waking: P(dead) by Constitution and healer")
        written.append(stem or _defaults_report(out, "agony", small))
        covered.add("agony")
    if "fall" in REGISTRY:
        stem = _grid_report(out, "fall", "fall_height_by_level",
                            {"height": [1, 2, 3, 4, 6, 8, 9, 10, 11, 12], "level": [1, 2, 3, 5]}, small,
                            "Seed 004 falls from full HP: P(knocked out) by height (m) and level", outcome="ko")
        written.append(stem or _defaults_report(out, "fall", small))
        covered.add("fall")
    if "fatigue" in REGISTRY:
        probs = _probability_params(REGISTRY["fatigue"])[:2]
        stem = None
        if probs:
            stem = _grid_report(out, "fatigue", "fatigue_" + "_by_".join(probs),
                                {p: [0.0, 0.25, 0.5, 0.75, 1.0] for p in probs}, small,
                                "Seed 004 fatigue and hunger: P(dead) by daily chances")
        written.append(stem or _defaults_report(out, "fatigue", small))
        covered.add("fatigue")
    for name in REGISTRY:
        if name not in covered:
            written.append(_defaults_report(out, name, small))
    return written


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0] if argv else "reports")
    t0 = time.perf_counter()
    stems = standard_reports(out)
    for s in stems:
        print(f"wrote {out / s}.csv and {out / s}.png")
    print(f"{len(stems)} reports in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
