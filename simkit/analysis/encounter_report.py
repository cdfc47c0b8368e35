"""Reports of the encounter model: the designer's numbers and a level-difference sweep."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simkit.core.stats import confidence_of
from simkit.models.encounter import Encounter

__all__ = ["encounter_summary", "level_sweep"]


def encounter_summary(res, confidence: float = 0.95, *, level: float | None = None) -> pd.DataFrame:
    """The designer's numbers of an encounter result, one row each.

    Columns ``quantity, count, n, p, ci_low, ci_high`` (Wilson intervals; ``p`` a
    probability) and ``mean`` for the averages. Rows: P(knocked out), P(dead), P(dead
    before the healer arrived), P(revived), P(stable), P(standing), P(dying) (with
    ``until="healer"``: dying when the healer arrived; otherwise still dying when the
    track was cut at the horizon), P(unresolved);
    mean rounds to the first knock-out (over those knocked out), mean rounds to death
    (over the dead), mean HP left (over the survivors), mean hero points spent.
    Marks are recorded when a track ends, so "knocked out" and the means leave out
    the ``unresolved`` tracks (none with the default horizon).
    """
    level = confidence_of(confidence, level, "encounter_summary")
    from simkit.core.stats import proportion_ci

    o = {name: i for i, name in enumerate(res.model.outcomes)}
    n = res.n
    ko = res.marks["knocked_out"]
    healer = res.marks["healer"]
    counts = res.counts
    until_healer = getattr(res.model, "until", "safe") == "healer"
    dying_label = "dying when the healer arrived" if until_healer else "still dying at the horizon"
    rows = {
        "knocked out": int(ko[:, 1:].sum()) if ko.shape[1] > 1 else 0,
        "dead": counts["dead"],
        "dead before the healer": int(healer[o["dead"], 0]),
        "revived": counts["revived"],
        "stable": counts["stable"],
        "standing": counts["standing"],
        # the final outcome ``dying``: with until="healer" it is the PC's state when the
        # healer arrives; otherwise only a track cut by the horizon ends dying
        dying_label: counts["dying"],
        "unresolved": counts["unresolved"],
    }
    c = np.array(list(rows.values()), dtype=np.int64)
    low, high = proportion_ci(c, n, level, "wilson")
    df = pd.DataFrame(
        {"quantity": list(rows), "count": c, "n": n, "p": c / n, "ci_low": low, "ci_high": high}
    )
    df["mean"] = np.nan

    def mean_of(hist, rows_sel=slice(None)):
        h = hist[rows_sel].sum(axis=0) if hist.ndim == 2 else hist
        total = h.sum()
        return float((np.arange(len(h)) * h).sum() / total) if total else np.nan

    n_ko = rows["knocked out"]
    kr = res.marks["ko_round"].sum(axis=0)  # never knocked out: value 0, adds nothing
    alive = [o[k] for k in ("standing", "revived", "stable", "dying")]
    extra = {
        "rounds to knock-out": float((np.arange(len(kr)) * kr).sum() / n_ko) if n_ko else np.nan,
        "rounds to death": mean_of(res.hist[o["dead"]]),
        "HP left": mean_of(res.marks["hp"], alive),
        "hero points spent": mean_of(res.marks["hero_spent"]),
    }
    more = pd.DataFrame(
        {
            "quantity": list(extra),
            "count": np.nan,
            "n": n,
            "p": np.nan,
            "ci_low": np.nan,
            "ci_high": np.nan,
            "mean": list(extra.values()),
        }
    )
    out = pd.concat([df, more], ignore_index=True)
    out["count"] = out["count"].astype("Int64")
    out.attrs.update(model=res.model.name, seed=res.seed, n=n)
    return out


def level_sweep(
    model: Encounter, deltas=range(-4, 5), n: int = 20_000, rng: int = 0, **sweep_options
) -> pd.DataFrame:
    """P(outcome) as the enemies' level runs over ``model.level + delta``.

    A sweep over the ``level_diff`` key (:func:`simkit.sweep`, so workers, executors
    and point seeds from each point's parameters come with it), as a tidy frame whose
    first columns are ``delta, monster_level``, then ``outcome, count, n, p, ci_low,
    ci_high`` and the sweep's bookkeeping columns. Levels outside 0..24 are skipped.
    ``sweep_options`` go to :func:`simkit.sweep` (``workers=``, ``executor=``...).
    """
    from simkit.analysis.sweep import sweep

    ds = [int(d) for d in deltas if 0 <= model.level + d <= 24]
    base = model.replace(monster_level=None)  # the grid sets it: level + delta
    df = sweep(base, {"level_diff": ds}, n, rng, fixed={"level": model.level}, **sweep_options)
    return df.rename(columns={"level_diff": "delta"})
