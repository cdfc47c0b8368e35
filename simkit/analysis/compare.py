"""The same question under several rule variants, side by side, with the differences.

``compare(variants, grid, n, rng)`` sweeps each variant over the same grid and
returns the sweep tables stacked with a ``variant`` column first, plus, for every
row, its difference from the *baseline* variant (the first one unless named):

``diff``, ``diff_ci_low``, ``diff_ci_high``
    ``p - p_baseline`` (Monte Carlo) with a Wald interval at the sweep's level;
``p_value``
    the two-sided two-proportion z test of ``p == p_baseline``
    (:func:`simkit.core.stats.two_proportion_test`); the variants' points have different
    parameters, hence independent streams, as the test assumes;
``diff_exact``
    ``exact - exact_baseline`` where both variants have exact answers.

In exact-only mode ``diff = diff_exact`` and there is no test. The baseline's own
rows have differences 0 and an empty ``p_value``.

:func:`variants` builds the usual sets: the seed as written, published presets
(``pf2e-core``), and each reading of each ambiguity of docs/rules.md (every parameter
whose rule id starts with ``A``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simkit.analysis.sweep import RECORD_COLUMNS, sweep
from simkit.core.params import ParamError
from simkit.core.stats import norm_ppf, two_proportion_test

__all__ = ["DIFF_COLUMNS", "ambiguity_readings", "compare", "side_by_side", "variants"]

DIFF_COLUMNS = ("diff", "diff_ci_low", "diff_ci_high", "p_value", "diff_exact")


def _base(model):
    from simkit.core.model import Rules
    from simkit.models import get_model

    if isinstance(model, str):
        return get_model(model)()
    if isinstance(model, type) and issubclass(model, Rules):
        return model()
    if isinstance(model, Rules):
        return model
    raise ParamError(f"model must be a model name, a rules class or rules; got {model!r}")


def ambiguity_readings(model_cls) -> dict[str, list[tuple[str, object]]]:
    """Ambiguity id -> [(parameter, value), ...]: the readings of the model's ambiguities.

    From the model's own entries (``model_cls.ambiguities``, the same ones the ambiguity
    report uses), each reading by the value of the ambiguity's parameter (a reading may
    set other parameters too: :func:`variants` applies them all).
    """
    return {
        a.id: [(a.param, r.params.get(a.param)) for r in a.readings] for a in model_cls.ambiguities
    }


def _reading_label(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def variants(model, presets=("seed", "pf2e-core"), ambiguities=False) -> dict:
    """Named rule variants of ``model`` for :func:`compare`.

    Parameters
    ----------
    model : str, Rules class or Rules
        The model (rules: their values are the base of every variant).
    presets : sequence of str
        Preset names (``seed`` = as written); those the model does not have are
        skipped.
    ambiguities : bool or sequence of str
        ``True`` for every ambiguity of the model, or ids (``"A0-1"``) / parameter
        names; one variant per reading, named ``"A0-1 on_damage=increment"``.
    """
    from simkit.models.presets import PRESETS, preset_params

    base = _base(model)
    name = base.name
    out: dict = {}
    known = PRESETS.get(name, {"seed": {}})
    for p in presets or ():
        if p in known:
            out[p] = base.replace(**preset_params(name, p))
    if ambiguities:
        entries = type(base).ambiguities
        if ambiguities is True:
            chosen = list(entries)
        else:
            wanted = list(ambiguities)
            params = {k for a in entries for r in a.readings for k in r.params}
            for w in wanted:
                if w not in {a.id for a in entries} and w not in params:
                    raise ParamError(
                        f"ambiguity {w!r}: not an ambiguity of model {name!r}; known: "
                        f"{', '.join(a.id for a in entries) or 'none'} "
                        f"(parameters: {', '.join(sorted(params))})"
                    )
            chosen = [
                a
                for a in entries
                if a.id in wanted or any(k in wanted for r in a.readings for k in r.params)
            ]
        for a in chosen:
            for r in a.readings:
                label = _reading_label(r.params.get(a.param, r.label))
                try:
                    out[f"{a.id} {a.param}={label}"] = base.replace(**r.params)
                except ParamError:
                    continue  # a reading that this base cannot take
    if not out:
        raise ParamError(f"no variants for model {name!r}")
    return out


def compare(
    variants: dict,
    grid=None,
    n: int | None = 100_000,
    rng=None,
    *,
    baseline: str | None = None,
    fixed=None,
    exact_only: bool = False,
    level: float = 0.95,
    **run,
) -> pd.DataFrame:
    """Sweep every variant over ``grid`` and compare each with the baseline.

    Parameters
    ----------
    variants : dict
        Name -> rules (or model name); see :func:`variants`.
    grid, n, rng, fixed, exact_only, level, **run
        As :func:`simkit.analysis.sweep.sweep` (``run``: executor, workers, progress...).
    baseline : str, optional
        The variant the others are compared with (default: the first).

    Returns
    -------
    pandas.DataFrame
        ``variant``, the sweep columns, then :data:`DIFF_COLUMNS` (module docs).
    """
    if not variants:
        raise ParamError("compare needs at least one variant")
    names = list(variants)
    baseline = names[0] if baseline is None else baseline
    if baseline not in variants:
        raise ParamError(f"baseline {baseline!r} is not a variant; variants: {', '.join(names)}")
    frames = []
    for name, model in variants.items():
        df = sweep(model, grid, n, rng, fixed=fixed, exact_only=exact_only, level=level, **run)
        df.insert(0, "variant", name)
        frames.append(df)
    models = {f["model"].iloc[0] for f in frames if len(f)}
    if len(models) > 1:
        raise ParamError(f"variants must be of one model, got {', '.join(sorted(models))}")
    df = pd.concat(frames, ignore_index=True)
    keys = [c for c in frames[0].attrs.get("grid", [])] + ["outcome"]
    base = df[df["variant"] == baseline][keys + ["count", "n", "p", "exact"]]
    merged = df.merge(base, on=keys, how="left", suffixes=("", "_base"), sort=False)
    if exact_only:
        diff = (merged["p"] - merged["p_base"]).to_numpy(dtype=float)
        low = high = diff
        pval = np.full(len(merged), np.nan)
    else:
        diff, se, pval = two_proportion_test(
            merged["count"], merged["n"], merged["count_base"], merged["n_base"]
        )
        z = norm_ppf(0.5 + level / 2)
        low, high = diff - z * se, diff + z * se
        own = (merged["variant"] == baseline).to_numpy()
        low, high = np.where(own, np.nan, low), np.where(own, np.nan, high)
        pval = np.where(own, np.nan, pval)
    merged["diff"] = diff
    merged["diff_ci_low"] = low
    merged["diff_ci_high"] = high
    merged["p_value"] = pval
    merged["diff_exact"] = merged["exact"] - merged["exact_base"]
    stat_end = list(merged.columns).index("exact") + 1
    lead = [c for c in list(merged.columns)[:stat_end]]
    cols = lead + list(DIFF_COLUMNS) + [c for c in RECORD_COLUMNS if c in merged]
    out = merged[cols].copy()
    out.attrs.update(frames[0].attrs, baseline=baseline, variants=names)
    return out


def side_by_side(df: pd.DataFrame, outcome: str = "dead", value: str = "p") -> pd.DataFrame:
    """A wide table of one outcome: one row per grid point, one column per variant."""
    d = df[df["outcome"] == outcome]
    keys = [c for c in df.attrs.get("grid", []) if c in d]
    order = df.attrs.get("variants") or list(dict.fromkeys(d["variant"]))
    if not keys:
        wide = d.set_index("variant")[[value]].T
        return wide[[v for v in order if v in wide.columns]].reset_index(drop=True)
    wide = d.pivot_table(index=keys, columns="variant", values=value, aggfunc="first", sort=False)
    return wide[[v for v in order if v in wide.columns]].reset_index()
