"""The README's main job: regenerate the standard reports in a folder.

``python -m simkit.reports reports`` writes, for the seed-000 dying track:

- ``dying_dc_by_save.csv``: P(outcome) over source DC x save bonus (Monte Carlo with
  Wilson 95% intervals, and the exact probability);
- ``dying_survival.png``: P(still dying) and P(dead) by round for three DCs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from . import __version__
from .engine import simulate
from .io import atomic_write
from .models.dying import Dying
from .streams import point_seed

__all__ = ["dying_grid", "main"]

SEED = 20261129


def dying_grid(dcs=range(14, 31, 2), bonuses=range(0, 21, 2), n: int = 50_000, seed: int = SEED) -> pd.DataFrame:
    """Tidy frame: ``dc, save_bonus, outcome, count, n, p, ci_low, ci_high, exact, seed, version``."""
    frames = []
    for dc in dcs:
        for bonus in bonuses:
            model = Dying(dc=dc, save_bonus=bonus)
            pseed = point_seed(seed, {"model": "dying", "dc": dc, "save_bonus": bonus})
            df = simulate(model, n, rng=pseed).summary()
            df.insert(0, "save_bonus", bonus)
            df.insert(0, "dc", dc)
            df["seed"] = pseed
            df["version"] = __version__
            frames.append(df)
    return pd.concat(frames, ignore_index=True)


def write_csv(df: pd.DataFrame, path: Path) -> None:
    with atomic_write(path) as fh:
        df.to_csv(fh, index=False, lineterminator="\n")


def main(argv=None) -> int:
    from . import plots

    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0] if argv else "reports")
    out.mkdir(parents=True, exist_ok=True)
    grid = dying_grid()
    write_csv(grid, out / "dying_dc_by_save.csv")
    ax = None
    for dc, style in ((18, ":"), (22, "-"), (26, "--")):
        res = simulate(Dying(dc=dc, save_bonus=11, max_rounds=20), 200_000, rng=point_seed(SEED, {"dc": dc}))
        ax = plots.survival_curves(res.survival(), ax=ax, label=f"DC {dc}", linestyle=style)
    ax.set_title("Seed 000 dying track, save +11: survival by round")
    plots.save(ax, out / "dying_survival.png")
    print(f"wrote {out / 'dying_dc_by_save.csv'} and {out / 'dying_survival.png'}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
