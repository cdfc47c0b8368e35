"""The same question under several rule variants, side by side, with the differences.

``compare(variants, grid, n, rng)`` sweeps each variant over the same grid and
returns the sweep tables stacked with a ``variant`` column first, plus, for every
row, its difference from the *baseline* variant (the first one unless named).

Paired (the default, ``paired=True``): every variant of a grid point runs on the same
streams (the point's seed comes from the sweep's seed and the point's grid coordinates
and fixed values, not from the variant; ``point_seed``), in the streams' positional
mode, and the outcomes are counted track by track (:mod:`simkit.analysis.paired`):

``diff``, ``diff_ci_low``, ``diff_ci_high``
    ``p - p_baseline`` with Tango's score interval for paired proportions (an
    outcome, or an event of the marks: ``any_death``, ``death:<pc>``...); for a mean
    (``expected_deaths``, ``rounds``...: column ``mean``) ``mean - mean_baseline`` with
    the t interval on the per-track differences of the mark;
``p_value``
    McNemar's test of ``p == p_baseline`` (two-sided, no continuity correction); for a
    mean, the t test of the mean per-track difference;
``paired``
    whether the row is paired (outcome, event and mean rows of a track model); a chain
    of stages (no per-track outcomes), or a composite model whose blocks keep no
    per-track marks (its events and means), has the independent numbers in ``diff``...;
``diff_independent``, ``diff_independent_ci_low``, ``diff_independent_ci_high``,
``p_value_independent``
    the same difference as if the runs were independent, for reference: the two-sample z
    test of :func:`simkit.core.stats.two_proportion_test` and its Wald interval; for a
    mean, the interval from the two means' own intervals
    (:func:`simkit.analysis.paired.independent_mean_test`);
``diff_exact``
    ``exact - exact_baseline`` where both variants have exact answers.

Independent (``paired=False``, ``simkit compare --independent``): today's sweep per
variant, each variant's points on their own seeds (from the variant's parameters);
``diff``... are the independent numbers above, and the ``paired`` / ``*_independent``
columns are absent. In exact-only mode ``diff = diff_exact`` and there is no test. The
baseline's own rows have differences 0 and an empty ``p_value``.

:func:`variants` builds the usual sets: the seed as written, published presets
(``pf2e-core``), and each reading of each ambiguity of docs/rules.md (every parameter
whose rule id starts with ``A``).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from simkit.analysis.sweep import RECORD_COLUMNS, sweep
from simkit.core.params import ParamError, spec
from simkit.core.stats import confidence_of

__all__ = [
    "DIFF_COLUMNS",
    "INDEPENDENT_COLUMNS",
    "READINGS_NEED",
    "ambiguity_readings",
    "compare",
    "inert_ambiguities",
    "inert_reason",
    "model_ambiguities",
    "side_by_side",
    "variants",
]

DIFF_COLUMNS = ("diff", "diff_ci_low", "diff_ci_high", "p_value", "diff_exact")
#: Columns of a paired comparison after :data:`DIFF_COLUMNS`.
INDEPENDENT_COLUMNS = (
    "paired",
    "diff_independent",
    "diff_independent_ci_low",
    "diff_independent_ci_high",
    "p_value_independent",
)


def _base(model):
    from simkit.core.model import Rules
    from simkit.models import get_model

    if isinstance(model, str):
        return get_model(model)()
    if isinstance(model, type) and issubclass(model, Rules):
        return model()
    if isinstance(model, Rules):
        return model
    if isinstance(model, dict):  # {"model": name, "preset": ..., params and derived keys}
        from simkit.models import as_rules

        return as_rules(model)
    raise ParamError(
        "model must be a model name, a rules class, rules or a parameter dict "
        f"({{'model': 'dying', 'level': 3}}); got {model!r}"
    )


def _check_not_overridden(variants: dict, grid, fixed) -> None:
    """Refuse a ``fixed`` value or a ``grid`` axis of a parameter the variants differ in:
    it would replace every variant's own value, and each row would keep its variant's
    label while running the same rules (issue 30, W2)."""
    from simkit.core.model import Rules

    models = {k: m for k, m in variants.items() if isinstance(m, Rules)}
    if len(models) < 2:
        return
    given: dict[str, str] = {}
    for key in fixed or {}:
        given[str(key)] = f"fixed (--set) {key}={fixed[key]}"
    for key in grid or {}:
        for name in key if isinstance(key, tuple) else str(key).split(","):
            given.setdefault(str(name).strip(), f"grid (--grid) {str(name).strip()}")
    missing = object()
    for key, what in given.items():
        values = {name: getattr(m, key, missing) for name, m in models.items()}
        if any(v is missing for v in values.values()):
            continue
        if len({repr(v) for v in values.values()}) > 1:
            own = ", ".join(f"{name}: {v}" for name, v in values.items())
            raise ParamError(
                f"{what}: the variants differ in {key} ({own}); setting it would run every "
                f"variant with one {key} under its own name: drop {key} from the settings, "
                "or compare other variants"
            )


def ambiguity_readings(model_cls) -> dict[str, list[tuple[str, object]]]:
    """Ambiguity id -> [(parameter, value), ...]: the readings of the model's ambiguities.

    From the model's own entries (``model_cls.ambiguities``, the same ones the ambiguity
    report uses), each reading by the value of the ambiguity's parameter (a reading may
    set other parameters too: :func:`variants` applies them all).
    """
    return {
        a.id: [(a.param, r.params.get(a.param)) for r in a.readings] for a in model_cls.ambiguities
    }


_AMBIGUITY_ID = re.compile(r"^A\d+-\d+$")  # A0-5, A1-2 (not the party's assumptions AP-3)


def model_ambiguities(cls) -> tuple:
    """Every ambiguity ``cls`` can express: its own entries (``cls.ambiguities``), those of
    the registered models whose readings set only parameters of ``cls``
    (:func:`simkit.core.ambiguity.carried`: the dying track's A0-3 for ``party``), then one
    entry per remaining parameter whose rule id is an ambiguity (``monster_dc (A0-5)``),
    its readings the parameter's values (choices, false/true, or a small integer range),
    the default first-class."""
    from simkit.core.ambiguity import Ambiguity, carried, reading
    from simkit.models import REGISTRY

    params = spec(cls)
    found = list(cls.ambiguities)
    for a in carried(params, *REGISTRY.values()):
        if a.id not in {b.id for b in found}:
            found.append(a)
    for pname, meta in params.items():
        ids = [r.strip() for r in str(meta["rule"]).split(",") if _AMBIGUITY_ID.match(r.strip())]
        ids = [i for i in ids if i not in {b.id for b in found}]
        if not ids:
            continue
        values: list = []
        if meta["kind"] in ("choice", "policy") and meta["choices"]:
            values = list(meta["choices"])
        elif meta["kind"] == "bool":
            values = [False, True]
        elif meta["kind"] == "int" and meta["lo"] is not None and meta["hi"] is not None:
            if meta["hi"] - meta["lo"] <= 3:
                values = list(range(meta["lo"], meta["hi"] + 1))
        if meta["default"] not in values:
            continue
        readings = tuple(
            reading(_reading_label(v), {pname: v}, v == meta["default"]) for v in values
        )
        found.append(Ambiguity(ids[0], "", cls.name, pname, meta["help"], readings))
    return tuple(found)


def _reading_label(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


#: What an ambiguity's readings need of the dying rules to differ at all (docs/rules.md):
#: A0-6 is A0-2 (the wounded rule) with A0-1 ``increment``; A0-5 sets the DC of the
#: recovery save, which a flat check (A0-4 ``flat``) does not use.
READINGS_NEED: dict[str, dict] = {
    "A0-6": {"on_damage": "increment", "wounded_rule": True},
    "A0-5": {"check": "save"},
}

#: What an ambiguity's readings need of a fight to differ (``party``, ``day``): damage while
#: dying (A0-1, and A0-6's every hit) needs enemies that strike a PC at 0 HP (R0-09).
READINGS_NEED_NOT: dict[str, tuple[str, Any]] = {
    "A0-1": ("target_downed", "never"),
    "A0-6": ("target_downed", "never"),
    "A1-11": ("target_downed", "never"),  # (a hit on an agonising PC)
}

#: What a fight's (``party``, ``day``) readings of the seed rules of issue 31 need to differ:
#: an option on (R1-05's A1-3 and A1-12 need ``back_in_fight``, R1-12's A1-4 ``con_damage``).
FIGHT_READINGS_NEED_ON: dict[str, str] = {
    "A1-3": "back_in_fight",
    "A1-12": "back_in_fight",
    "A1-4": "con_damage",
    "A0-9": "dying_effect",  # (AP-35: the effect that gives dying above 0 HP)
}

#: Readings a lone fight (``party``) plays only in what its PCs carry out of it: A1-10's
#: wake-up gives PE and PP after the fight's night, which only a ``day``'s later fights use.
AFTER_THE_FIGHT: dict[str, str] = {"A1-10": "the PE and PP a PC wakes with after the night"}

#: The dying track whose rules an ambiguity is about, by its document (docs/rules.md): the
#: seed-000 track (A0-x: seed000 and pf2e-core play it) or the seed-001 one (A1-x).
_TRACK_OF = {"A0": "seed000", "A1": "seed001"}


def _rule_set(base) -> tuple[str, str] | None:
    """(parameter, dying system) that ``base`` plays (``rules`` or ``dying_rules``), or None."""
    for p in ("rules", "dying_rules"):
        v = getattr(base, p, None)
        if v in ("seed000", "pf2e-core", "seed001"):
            return p, str(v)
    return None


def inert_reason(base, ambiguity) -> str | None:
    """Why every reading of ``ambiguity`` gives the same numbers on ``base`` (a Rules
    instance), or None: the ambiguity is about the other dying system's track
    (``rules=seed000`` plays no seed-001 rule), or its readings need dying rules
    ``base`` does not have (:data:`READINGS_NEED`; a model with ``rules`` takes them from
    its system: ``base.dying_options``)."""
    got = _rule_set(base)
    track = _TRACK_OF.get(ambiguity.id.split("-")[0])
    custom = getattr(base, "dying", None)
    if track == "seed000" and custom is not None and got is not None:
        name = custom if isinstance(custom, str) else getattr(custom, "name", "a track")
        return f"the PCs follow dying={name} at 0 HP here, not the seed-000 track"
    if got is not None and track is not None and (got[1] == "seed001") != (track == "seed001"):
        param, system = got
        return (
            f"it is a rule of the {track} dying track and {base.name} plays {system} here "
            f"(set {param}={track})"
        )
    need = READINGS_NEED.get(ambiguity.id)
    if need:
        values = {**base.params(), **(getattr(base, "dying_options", None) or {})}
        off = {k: v for k, v in need.items() if k in values and values[k] != v}
        if off:
            what = ", ".join(f"{k}={_reading_label(v)}" for k, v in need.items())
            has = ", ".join(f"{k}={_reading_label(values[k])}" for k in off)
            return f"its readings differ only with {what}; here {has}"
    off_when = READINGS_NEED_NOT.get(ambiguity.id)
    fight = "rules" in base.params()  # (party, day: the encounter keeps every reading)
    on = FIGHT_READINGS_NEED_ON.get(ambiguity.id)
    if fight and on is not None and not getattr(base, on, None):
        has = _reading_label(getattr(base, on, None) or False)
        return f"its readings differ only with {on} on; here {on}={has}"
    if base.name == "party" and ambiguity.id in AFTER_THE_FIGHT:
        return (
            f"its readings change only {AFTER_THE_FIGHT[ambiguity.id]}, which a day's later "
            "fights use (model day)"
        )
    if fight and off_when is not None and getattr(base, off_when[0], None) == off_when[1]:
        k, v = off_when
        return (
            f"its readings differ only when enemies strike a PC at 0 HP (R0-09); here "
            f"{k}={_reading_label(v)}"
        )
    return None


def _rule_set_ambiguity(base, wanted: str) -> str | None:
    """Why ``wanted`` (an ambiguity id or parameter) cannot be a variant of ``base``
    alone: it is one of the options its ``rules`` set together (the party's A0-1, A0-2,
    A0-4), or None."""
    from simkit.analysis.ambiguities import AMBIGUITIES
    from simkit.core.params import spec
    from simkit.rules.dying_systems import DYING_OPTIONS

    if "rules" not in spec(type(base)):
        return None
    for a in AMBIGUITIES:
        if wanted not in (a.id, a.param) or a.param in spec(type(base)):
            continue
        by_system = {s: o[a.param] for s, o in DYING_OPTIONS.items() if a.param in o}
        if by_system:
            each = ", ".join(f"{s}: {a.param}={_reading_label(v)}" for s, v in by_system.items())
            return (
                f"ambiguity {a.id!r} ({a.param}): model {base.name!r} takes it from its rule "
                f"set, with the others of that set ({each}), not alone; compare the rule sets "
                f"(--variants {','.join(by_system)})"
            )
    return None


def inert_ambiguities(model, ambiguities=True) -> dict[str, str]:
    """Ambiguity id -> why its readings are all the same on ``model`` (:func:`inert_reason`),
    for the ambiguities :func:`variants` would take (``True``: all; or ids / parameters);
    those :func:`variants` leaves out with ``ambiguities=True``."""
    base = _base(model)
    entries = model_ambiguities(type(base))
    if ambiguities is not True:
        wanted = set(ambiguities)
        entries = tuple(
            a
            for a in entries
            if a.id in wanted or any(k in wanted for r in a.readings for k in r.params)
        )
    out = {}
    for a in entries:
        why = inert_reason(base, a)
        if why is not None:
            out[a.id] = why
    return out


def variants(model, presets=None, ambiguities=False) -> dict:
    """Named rule variants of ``model`` for :func:`compare`.

    Parameters
    ----------
    model : str, Rules class or Rules
        The model (rules: their values are the base of every variant).
    presets : sequence of str, optional
        Preset names (``seed`` = as written); those the model does not have are
        skipped. Default: the model's default variants, as ``simkit compare``
        (:func:`simkit.models.presets.default_variants`: ``party`` and ``encounter``
        seed000, pf2e-core, seed001; ``dying`` seed, pf2e-core).
    ambiguities : bool or sequence of str
        ``True`` for every ambiguity of the model, or ids (``"A0-1"``) / parameter
        names; one variant per reading, named ``"A0-1 on_damage=increment"``. With
        ``True``, an ambiguity whose readings all give the same numbers on this base is
        left out (:func:`inert_ambiguities` says why); named, it is refused, with the
        reason. An ambiguity a model takes from its rule set (the party's A0-1, A0-2,
        A0-4: ``rules``) is refused with the preset that compares it.
    """
    from simkit.models.presets import PRESETS, default_variants, preset_params

    base = _base(model)
    name = base.name
    out: dict = {}
    known = PRESETS.get(name, {"seed": {}})
    if presets is None:
        presets = default_variants(name)
    if isinstance(presets, str):
        presets = [presets]
    twice = sorted({p for p in presets or () if list(presets).count(p) > 1})
    if twice:  # one variant a name: a second would replace the first silently
        raise ParamError(f"presets: {', '.join(map(repr, twice))} given more than once")
    for p in presets or ():
        if p in known:
            out[p] = base.replace(**preset_params(name, p))
    if ambiguities:
        entries = model_ambiguities(type(base))
        if ambiguities is True:
            chosen = [a for a in entries if inert_reason(base, a) is None]
        else:
            wanted = list(ambiguities)
            params = {k for a in entries for r in a.readings for k in r.params}
            for w in wanted:
                if w not in {a.id for a in entries} and w not in params:
                    why = _rule_set_ambiguity(base, w)
                    if why is not None:
                        raise ParamError(why)
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
                why = inert_reason(base, a)
                if why is not None:
                    raise ParamError(
                        f"ambiguity {a.id!r} ({a.param}): its readings give the same numbers "
                        f"on this {name}: {why}"
                    )
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
    confidence: float = 0.95,
    level: float | None = None,
    paired: bool = True,
    **run,
) -> pd.DataFrame:
    """Sweep every variant over ``grid`` and compare each with the baseline.

    Parameters
    ----------
    variants : dict
        Name -> rules (or model name); see :func:`variants`.
    grid, n, rng, fixed, exact_only, confidence, **run
        As :func:`simkit.analysis.sweep.sweep` (``run``: executor, workers, progress...).
    baseline : str, optional
        The variant the others are compared with (default: the first).
    paired : bool
        Run every variant of a point on the same dice and test the paired difference
        (module docs; default). ``False``: independent runs (each variant its own seeds).
        Paired runs go in this process (``workers`` spreads each run's blocks).
    level : float, optional
        Deprecated name of ``confidence`` (removed in 0.4; a warning).

    Returns
    -------
    pandas.DataFrame
        ``variant``, the sweep columns, then :data:`DIFF_COLUMNS` (module docs), then,
        paired, :data:`INDEPENDENT_COLUMNS`.
    """
    level = confidence_of(confidence, level, "compare")
    if not variants:
        raise ParamError("compare needs at least one variant")
    names = list(variants)
    baseline = names[0] if baseline is None else baseline
    if baseline not in variants:
        raise ParamError(f"baseline {baseline!r} is not a variant; variants: {', '.join(names)}")
    if not isinstance(paired, (bool, np.bool_)):
        raise ParamError(f"paired must be True or False, got {paired!r}")
    _check_not_overridden(variants, grid, fixed)
    if paired and not exact_only:
        return _compare_paired(variants, grid, n, rng, baseline, fixed, level, run)
    frames = []
    for name, model in variants.items():
        df = sweep(model, grid, n, rng, fixed=fixed, exact_only=exact_only, confidence=level, **run)
        df.insert(0, "variant", name)
        frames.append(df)
    models = {f["model"].iloc[0] for f in frames if len(f)}
    if len(models) > 1:
        raise ParamError(f"variants must be of one model, got {', '.join(sorted(models))}")
    df = pd.concat(frames, ignore_index=True)
    keys = [c for c in frames[0].attrs.get("grid", [])] + ["outcome"]
    variant = df["variant"].to_numpy()
    base = _baseline_columns(df, _baseline_rows(df, variant, keys, baseline))
    if exact_only:
        diff = pd.to_numeric(df["p"], errors="coerce").to_numpy(dtype=float) - base["p"]
        low = high = diff
        pval = np.full(len(df), np.nan)
    else:
        diff, low, high, pval = _independent_arrays(df, base, level)
        own = variant == baseline
        low, high = np.where(own, np.nan, low), np.where(own, np.nan, high)
        pval = np.where(own, np.nan, pval)
    cols = dict(diff=diff, diff_ci_low=low, diff_ci_high=high, p_value=pval)
    cols["diff_exact"] = pd.to_numeric(df["exact"], errors="coerce").to_numpy(float) - base["exact"]
    out = _assemble(df, cols)
    out.attrs.update(frames[0].attrs, baseline=baseline, variants=names)
    return out


_RUN_KEYS = ("executor", "workers", "scheduler", "client", "progress", "chunk_size", "max_points")


def _compare_paired(variants, grid, n, rng, baseline, fixed, level, run) -> pd.DataFrame:
    """:func:`compare` with ``paired=True`` (module docs)."""
    import dataclasses

    from simkit.analysis.paired import paired_from_joint, paired_runs
    from simkit.analysis.sweep import build_frame, plan_sweep
    from simkit.analysis.sweep.plan import canonical
    from simkit.analysis.sweep.run import exact_answers
    from simkit.core.streams import point_seed, resolve_seed

    bad = [k for k in run if k not in _RUN_KEYS]
    if bad:
        raise TypeError(f"compare() got an unexpected keyword argument {bad[0]!r}")
    executor = run.get("executor", "local")
    if executor not in (None, "local") or run.get("client") is not None or run.get("scheduler"):
        raise ParamError(
            f"executor={executor!r}: a paired comparison runs in this process (workers= spreads "
            "each run's blocks over local processes); use paired=False (--independent) for Dask"
        )
    workers = run.get("workers", 1) or 1
    seed = resolve_seed(rng)
    names = list(variants)
    order = [baseline] + [v for v in names if v != baseline]  # the baseline runs first
    plans = {
        v: plan_sweep(
            variants[v], grid, n, seed, fixed=fixed, level=level, max_points=run.get("max_points")
        )
        for v in names
    }
    first = plans[baseline]
    models = {p.model_name for p in plans.values()}
    if len(models) > 1:
        raise ParamError(f"variants must be of one model, got {', '.join(sorted(models))}")
    for v, p in plans.items():
        if p.points != first.points:
            raise ParamError(f"variant {v!r}: its grid points differ from the baseline's")
    # a point's seed: from its coordinates and the fixed values, never from the variant
    seeds = [
        point_seed(
            seed, {"model": first.model_name, "paired": canonical({**first.grid.fixed, **pt})}
        )
        for pt in first.points
    ]
    records: dict[str, list] = {v: [] for v in names}
    stats: dict[str, list] = {v: [] for v in names}  # per point: (paired stats or None)
    bar = None
    if run.get("progress"):
        import sys

        from tqdm.auto import tqdm

        bar = tqdm(total=len(seeds), unit="pt", file=sys.stderr, desc="compare", leave=False)
    for i, s in enumerate(seeds):
        assert first.n is not None, "paired runs are Monte Carlo"
        point_models = [plans[v].models[i] for v in order]
        got = paired_runs(point_models, first.n, s, workers, level)
        exacts = exact_answers(point_models)  # (solved once a key, as a sweep's)
        for v, pt, ex in zip(order, got, exacts):
            records[v].append(_record(pt.result, level, ex))
            stats[v].append(
                (None if pt.joint is None else paired_from_joint(pt.joint, level), pt.events)
            )
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    # every variant's rows in one frame: the plans end to end (one table to build)
    df = build_frame(
        dataclasses.replace(
            first,
            points=first.points * len(names),
            derived=[d for v in names for d in plans[v].derived],
            models=[m for v in names for m in plans[v].models],
            seeds=seeds * len(names),
            keys=[k for v in names for k in plans[v].keys],
            params_json=[j for v in names for j in plans[v].params_json],
        ),
        [rec for v in names for rec in records[v]],
    )
    rows_of = {v: sum(_rows(rec) for rec in records[v]) for v in names}
    mine: dict[str, list] = {c: [] for c in ("diff", "diff_ci_low", "diff_ci_high", "p_value")}
    flags = []
    for v in names:
        tested = {c: np.full(rows_of[v], np.nan) for c in mine}
        is_paired = np.zeros(rows_of[v], dtype=bool)
        row = 0
        for rec, (st, by_name) in zip(records[v], stats[v]):
            k = len(rec["counts"])
            if st is not None:
                for c, values in zip(mine, st):
                    tested[c][row : row + k] = values
                is_paired[row : row + k] = True
            row += k
            for name in (*rec.get("events", ()), *rec.get("means", ())):  # events, then means
                test = by_name.get(name)
                if test is not None:
                    for c, value in zip(mine, test):
                        tested[c][row] = value
                    is_paired[row] = True
                row += 1
        for c in mine:
            mine[c].append(tested[c])
        flags.append(is_paired)
    variant = np.repeat(np.array(names, dtype=object), [rows_of[v] for v in names])
    keys = list(first.grid.axes) + ["outcome"]
    base = _baseline_columns(df, _baseline_rows(df, variant, keys, baseline))
    own = variant == baseline
    is_paired = np.concatenate(flags)
    ind = _independent_arrays(df, base, level)
    cols: dict = {}
    for j, c in enumerate(mine):
        values = np.asarray(ind[j], dtype=float)
        chosen = np.where(is_paired, np.concatenate(mine[c]), values)
        cols[c] = np.where(own, np.nan, chosen) if j else chosen
    cols["diff_exact"] = df["exact"].to_numpy(dtype=float) - base["exact"]
    cols["paired"] = is_paired
    for j, c in enumerate(INDEPENDENT_COLUMNS[1:]):
        values = np.asarray(ind[j], dtype=float)
        cols[c] = np.where(own, np.nan, values) if j else values
    out = _assemble(df, cols, variant)
    out.attrs.update(df.attrs, baseline=baseline, variants=names, paired=True)
    return out


def _rows(rec: dict) -> int:
    """A point's rows in its table: its outcomes, events and means."""
    return len(rec["counts"]) + len(rec.get("events", ())) + len(rec.get("means", ()))


def _assemble(df: pd.DataFrame, cols: dict, variant=None) -> pd.DataFrame:
    """The comparison's table: ``variant`` first (where given), ``df``'s columns up to its
    statistics, the new columns ``cols`` (arrays), then the record columns of ``df``.
    Built from the columns' arrays (a frame from a dict of Series aligns every column on
    its index: several times slower)."""
    out: dict = {} if variant is None else {"variant": variant}
    out.update({c: df[c].array for c in _lead(df)})
    out.update(cols)
    out.update({c: df[c].array for c in RECORD_COLUMNS if c in df})
    return pd.DataFrame(out)


def _baseline_columns(df: pd.DataFrame, at: np.ndarray) -> dict:
    """The baseline's statistics beside each row (floats; NaN where ``at`` is -1: no
    baseline row, or a missing value)."""
    out = {}
    for c in ("count", "n", "p", "ci_low", "ci_high", "mean", "exact"):
        if c in df:
            got = (
                pd.to_numeric(df[c], errors="coerce").to_numpy(dtype=float).take(np.maximum(at, 0))
            )
            got[at < 0] = np.nan
            out[c] = got
    return out


def _baseline_rows(df: pd.DataFrame, variant: np.ndarray, keys: list, baseline: str):
    """For each row of ``df`` (its variant in ``variant``), the row of the baseline's with the
    same ``keys`` (-1 where none): each variant's rows are usually the baseline's rows in its
    order (the rows tile), else looked up by their keys."""
    is_base = variant == baseline
    at = np.flatnonzero(is_base)
    n_base = len(at)
    values = [df[c].to_numpy() for c in keys]
    base_keys = list(zip(*(a.take(at) for a in values)))
    if n_base and not len(df) % n_base and len(set(base_keys)) == n_base:
        k = len(df) // n_base
        if all((a.reshape(k, n_base) == a.take(at)).all() for a in values):
            return np.tile(at, k)
    where = {key: int(i) for key, i in zip(base_keys, at)}
    return np.array([where.get(key, -1) for key in zip(*values)], dtype=np.intp)


def _independent_arrays(df: pd.DataFrame, base: dict, level: float):
    """:func:`_independent` from ``df``'s columns and the baseline's (``base``: arrays)."""
    from simkit.analysis.paired import independent_mean_test, independent_test

    count = pd.to_numeric(df["count"], errors="coerce").to_numpy(dtype=float)
    out = [
        np.asarray(x, dtype=float)
        for x in independent_test(count, base["count"], df["n"].to_numpy(dtype=float), level)
    ]
    if "mean" in df:
        is_mean = df["mean"].notna().to_numpy()
        if is_mean.any():
            got = independent_mean_test(
                df["mean"].to_numpy(dtype=float)[is_mean],
                df["ci_low"].to_numpy(dtype=float)[is_mean],
                df["ci_high"].to_numpy(dtype=float)[is_mean],
                base["mean"][is_mean],
                base["ci_low"][is_mean],
                base["ci_high"][is_mean],
                level,
            )
            for arr, values in zip(out, got):
                arr[is_mean] = values
    return tuple(out)


def _lead(merged: pd.DataFrame) -> list:
    """The columns up to the statistics' last (``exact``, then ``mean`` where there are
    means), without the baseline's."""
    names = list(merged.columns)
    end = names.index("exact") + 1
    lead = names[:end]
    if "mean" in names:
        lead.append("mean")
    return lead


def _record(res, level: float, ex=None) -> dict:
    """One point's record for :func:`simkit.analysis.sweep.build_frame` (as a sweep's);
    ``ex``: the point's exact answer (None, or an ``ExactTooLarge``: no exact column)."""
    counts = res.counts
    names = res.outcomes
    rec: dict = {"counts": [int(counts[o]) for o in names]}
    m = res.model
    if getattr(m, "events", None):  # the events of the marks: rows after the outcomes
        from simkit.core.result import events_table

        ev = events_table(res, level)
        is_event = ev["mean"].isna().to_numpy()
        rec["events"] = ev["outcome"][is_event].tolist()
        rec["event_counts"] = [int(c) for c in ev["count"][is_event]]
        rec["means"] = ev["outcome"][~is_event].tolist()
        rec["mean_values"] = ev.loc[~is_event, ["mean", "ci_low", "ci_high"]].to_numpy().tolist()
    if ex is not None and hasattr(ex, "probabilities"):
        probs = ex.probabilities
        rec["exact"] = [float(probs[o]) for o in names]
    return rec


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
