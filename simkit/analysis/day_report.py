"""Reports of the day model: the designer's summary and the notes of ``simkit run day``."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["SUMMARY_COLUMNS", "day_summary", "run_notes"]

#: Columns of :func:`day_summary`.
SUMMARY_COLUMNS = (
    "step",
    "step_text",
    "fight",
    "pc",
    "quantity",
    "n",
    "mean",
    "ci_low",
    "ci_high",
    "full",
)
#: At most this many steps in the notes' curve (a longer plan shows its fights).
NOTE_STEPS = 12


def _moments(counts: np.ndarray) -> tuple[int, float, float]:
    """(tracks, mean, variance) of a histogram ``counts[v]`` = tracks with value ``v``."""
    total = int(counts.sum())
    if not total:
        return 0, float("nan"), float("nan")
    v = np.arange(len(counts), dtype=np.float64)
    mean = float((v * counts).sum() / total)
    return total, mean, float(((v - mean) ** 2 * counts).sum() / total)


def day_summary(res, level: float = 0.95) -> pd.DataFrame:
    """What is left at the start of each fight of a day, with intervals.

    One row per fight of the plan and quantity: ``pc="party"``, ``quantity="going"``:
    P(the day is still going at that fight) over every track (``n`` the tracks, Wilson
    interval); then for each PC (its event name, ``fighter`` or ``fighter1``...) over the
    days still going (``n`` of them): ``alive`` (P(it is alive), Wilson), and the means of
    ``hp``, ``slots``, ``heals``, ``hero`` (hero points) and ``pp`` (perseverance points),
    a dead PC counting 0 of each, with the range-bound interval of
    :func:`simkit.core.result.mean_ci` (within ``[0, full]``). ``full`` is what the PC
    starts the day with (1 for ``alive``); a quantity a PC has none of (the fighter's
    slots) or the rules do not use (hero points under ``seed001``, PP under the others)
    is left out. Columns :data:`SUMMARY_COLUMNS`; ``mean`` is NaN at a fight no
    day reached.
    """
    from simkit.core.result import mean_ci
    from simkit.core.stats import proportion_ci
    from simkit.models.day import PC_FIELDS
    from simkit.models.day_plan import FightStep

    model, n, obs = res.model, res.n, res.observed
    start = model.fresh_start(1)
    full_of = {
        "alive": [1] * model.n_pcs,
        **{q: [int(v) for v in getattr(start, q)[0]] for q in PC_FIELDS if q != "alive"},
    }
    unused = ("pp",) if model.base_party.seed000 else ("hero",)  # (R0-10; R1-01..R1-05)
    fights = [t for t, s in enumerate(model.steps, 1) if isinstance(s, FightStep)]
    rows: list[tuple] = []
    for j, t in enumerate(fights, 1):
        text = model.steps[t - 1].text()
        hist = obs.get(f"alive:{model.pc_names[0]}")
        going = int(hist[t - 1].sum()) if hist is not None and len(hist) >= t else 0
        low, high = proportion_ci(going, n, level)
        rows.append((t, text, j, "party", "going", n, going / n, float(low), float(high), 1))
        for k, pc in enumerate(model.pc_names):
            for q in PC_FIELDS:
                full = full_of[q][k]
                if full <= 0 or q in unused:
                    continue
                h = obs.get(f"{q}:{pc}")
                m, mean, var = _moments(h[t - 1]) if h is not None else (0, np.nan, np.nan)
                if not m:
                    rows.append((t, text, j, pc, q, 0, np.nan, np.nan, np.nan, full))
                    continue
                if q == "alive":
                    lo, hi = proportion_ci(round(mean * m), m, level)
                else:
                    lo, hi = mean_ci(mean, var, m, level, upper=full)
                rows.append((t, text, j, pc, q, m, mean, float(lo), float(hi), full))
    df = pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))
    df.attrs.update(model=model.name, seed=res.seed, n=n, plan=model.plan_text)
    return df


def _pct(p: float, lo: float, hi: float) -> str:
    return f"{100 * p:.2f}% [{100 * lo:.2f}, {100 * hi:.2f}]"


def run_notes(res, level: float = 0.95) -> list[str]:
    """Lines for ``simkit run day`` (on stderr): the party, rules, rest and plan (and
    :attr:`~simkit.models.day.Day.rest_when_note` where ``rest_when`` adds no rest); the
    designer's odds over the day (the table's events and means: P(a PC dies), expected
    deaths, P(defeat)); P(a PC has died) by the end of each step
    (:func:`simkit.models.day.death_by_step`, with intervals; a plan longer than
    :data:`NOTE_STEPS` steps shows its fights, thinned to that many)."""
    from simkit.core.result import event_values
    from simkit.core.stats import proportion_ci
    from simkit.models.day import death_by_step
    from simkit.models.day_plan import FightStep

    model = res.model
    s = event_values(res, level)
    rest = "the published PF2e rest" if model.pf2e_rest else "the seeds' rest"
    plan = model.plan_text
    if len(plan) > 90:
        plan = plan[:80].rsplit(",", 1)[0] + ", ..."
    lo, hi = proportion_ci(res.counts["defeat"], res.n, level)
    m, mlo, mhi = s["expected_deaths"]
    odds = (
        f"P(a PC dies) {_pct(*s['any_death'])}; expected deaths {m:.3f} [{mlo:.3f}, {mhi:.3f}]; "
        f"P(defeat) {_pct(res['defeat'], float(lo), float(hi))}"
    )
    unresolved = res.counts["unresolved"]
    if unresolved:
        odds += f" ({100 * unresolved / res.n:.2f}% unresolved, counted as no death)"
    curve = death_by_step(res, level)
    shown = np.arange(len(curve))
    if len(shown) > NOTE_STEPS:
        shown = np.array(
            [t - 1 for t, st in enumerate(model.steps, 1) if isinstance(st, FightStep)]
        )
        if len(shown) > NOTE_STEPS:
            shown = shown[np.unique(np.linspace(0, len(shown) - 1, NOTE_STEPS).round().astype(int))]
    by_step = "; ".join(
        f"{r.step} {r.step_text} {_pct(r.p, r.ci_low, r.ci_high)}"
        for r in curve.iloc[shown].itertuples()
    )
    note = model.rest_when_note
    return [
        (
            f"party of {model.n_pcs} at level {model.level} ({model.party}), rules "
            f"{model.rules}, {rest}; plan ({model.horizon} steps): {plan}"
        ),
        *([f"note: {note}"] if note else []),
        odds,
        f"P(a PC has died) by the end of step: {by_step}",
    ]
