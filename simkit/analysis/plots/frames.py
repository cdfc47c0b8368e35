"""Reading tidy frames for a chart: the rows kept, the grid columns, the model, n."""

from __future__ import annotations

import numpy as np

from simkit.core.numbers import ascii_number

__all__ = [
    "DEFAULT_OUTCOMES",
    "axis_order",
    "check_outcomes",
    "default_outcome",
    "is_numeric",
    "outcomes_of",
    "PHASE_ENDS",
    "phase_ends",
    "check_single",
    "filter_rows",
    "half_width",
    "lead_columns",
    "model_of",
    "stage_model",
    "n_text",
    "numeric",
    "survival_stage",
    "tick",
    "time_unit",
]


def model_of(frame) -> str | None:
    """The model a frame describes: ``attrs["model"]`` (live) or a ``model`` column (CSV)."""
    model = frame.attrs.get("model")
    if model is None and "model" in frame and len(frame):
        model = frame["model"].iloc[0]
    return model


def stage_model(surv) -> str | None:
    """The model whose words describe one stage of a chain's frame: ``recovery`` for agony's
    ``stable->recovery`` rows (its ``active`` is "still unconscious", not "still agonising");
    the frame's model (:func:`model_of`) for a first stage or a frame without stages."""
    model = model_of(surv)
    if "stage" in surv and len(surv) and surv["stage"].nunique() == 1:
        after = str(surv["stage"].iloc[0]).rpartition("->")[2]
        from simkit.models import REGISTRY

        if "->" in str(surv["stage"].iloc[0]) and after in REGISTRY:
            return after
    return model


def lead_columns(df) -> list[str]:
    """Grid (and derived) columns: those before ``stage``/``outcome``, without ``variant``."""
    cols = list(df.columns)
    stop = (
        min(cols.index(c) for c in ("stage", "time_unit", "time", "outcome") if c in cols)
        if any(c in cols for c in ("stage", "time_unit", "time", "outcome"))
        else len(cols)
    )
    return [c for c in cols[:stop] if c != "variant"]


def filter_rows(df, where: dict | None):
    if not where:
        return df
    for k, v in where.items():
        if k not in df:
            raise ValueError(f"where: no column {k!r}; columns: {', '.join(map(str, df.columns))}")
        col = df[k]
        mask = col.astype(str) == str(v)
        if not mask.any():
            try:
                number = ascii_number(v) if isinstance(v, str) else float(v)  # one grammar
                mask = np.isclose(col.astype(float), number)
            except (TypeError, ValueError):
                pass
        if not np.any(mask):
            raise ValueError(
                f"where {k}={v}: no such rows; values: {', '.join(map(str, col.unique()[:20]))}"
            )
        df = df[np.asarray(mask)]
    return df


def check_single(df, keep: list[str], what: str) -> None:
    """Raise when a grid column other than ``keep`` varies within the plotted cells."""
    others = [c for c in lead_columns(df) if c not in keep]
    if not others:
        return
    g = (
        df.groupby(keep, dropna=False, sort=False)[others].nunique(dropna=False)
        if keep
        else df[others].nunique(dropna=False).to_frame().T
    )
    varying = [c for c in others if (g[c] > 1).any()]
    if varying:
        hint = " ".join(f"--where {c}={df[c].iloc[0]}" for c in varying)
        raise ValueError(
            f"{what}: columns {', '.join(varying)} also vary; pick one value of each "
            f"(where=..., e.g. {hint})"
        )


def time_unit(surv) -> str:
    if "time_unit" in surv and len(surv):
        return str(surv["time_unit"].iloc[0])
    return surv.attrs.get("time_unit", "steps")


def numeric(col):
    """A grid column as numbers when every value reads as one (heights stored as text)."""
    import pandas as pd

    conv = pd.to_numeric(col, errors="coerce")
    return conv if conv.notna().sum() == col.notna().sum() else col


def tick(v) -> str:
    """A grid value as a designer reads it: ``none`` for a missing value, 12 not 12.0."""
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return "none"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def n_text(frame) -> str:
    """``n = 200,000 tracks`` (or a range) from a frame's ``n`` column."""
    if "n" not in frame:
        return ""
    ns = frame["n"].dropna()
    if not len(ns):
        return ""
    lo, hi = int(ns.min()), int(ns.max())
    points = [c for c in lead_columns(frame) if frame[c].nunique(dropna=False) > 1]
    each = " a point" if points or ("variant" in frame and frame["variant"].nunique() > 1) else ""
    return (f"n = {lo:,} tracks" if lo == hi else f"n = {lo:,}..{hi:,} tracks") + each


def half_width(frame) -> float:
    if "ci_low" not in frame or not len(frame):
        return 0.0
    return float(np.nanmax((frame["ci_high"].astype(float) - frame["ci_low"].astype(float)) / 2))


#: Each model's default outcome on a chart, the first of its list that the frame has
#: (party: ``any_death`` once runs carry it as a row, ``defeat`` until then). A model
#: not listed gets ``dead`` when it has it, else its first outcome. Kept here, not on
#: the model classes, until the models declare it themselves.
DEFAULT_OUTCOMES: dict[str, tuple[str, ...]] = {
    "party": ("any_death", "defeat"),
    "day": ("any_death", "defeat"),
}


def outcomes_of(df) -> list[str]:
    """The outcomes a frame has rows for, in the frame's order."""
    return list(dict.fromkeys(map(str, df["outcome"]))) if "outcome" in df else []


def default_outcome(df) -> str:
    """The outcome a chart of ``df`` shows when none is asked for (:data:`DEFAULT_OUTCOMES`)."""
    known = outcomes_of(df)
    for o in (*DEFAULT_OUTCOMES.get(str(model_of(df)), ()), "dead"):
        if o in known:
            return o
    if not known:
        raise ValueError("no outcome rows in the frame")
    return next((o for o in known if o != "active"), known[0])


def survival_stage(surv, outcomes=None) -> str | None:
    """The stage of a chain's survival frame a chart shows when none is asked for: the first
    that is one step (a fall: bars of every outcome) or in which one of ``outcomes``
    (default: the model's outcome, see :func:`default_outcome`; ``active`` aside) happens,
    else the first stage. Agony's chart is its recovery stage, where the deaths are, not the
    agonising turns, where P(dead) is 0. ``None`` for a frame without stages."""
    if "stage" not in surv or not len(surv):
        return None
    stages = list(dict.fromkeys(surv["stage"]))
    for stage in stages:
        d = surv[surv["stage"] == stage]
        if d["time"].nunique() <= 1:
            return stage
        wanted = [o for o in (outcomes or (default_outcome(d),)) if o != "active"]
        if (d.loc[d["outcome"].isin(wanted), "p"].astype(float) > 0).any():
            return stage
    return stages[0]


def check_outcomes(df, outcomes, what: str) -> None:
    """Raise, in one line listing the valid ones, when an outcome has no rows in ``df``."""
    known = outcomes_of(df)
    for o in outcomes:
        if o not in known:
            raise ValueError(f"{what}: no rows for outcome {o!r}; outcomes: {', '.join(known)}")


def _declared_choices(model, col: str) -> tuple | None:
    """The declared choices of a categorical parameter (the frame's model first)."""
    from simkit.core.params import spec
    from simkit.models import REGISTRY

    names = [model] if model in REGISTRY else []
    names += [m for m in REGISTRY if m != model]
    for name in names:
        decl = spec(REGISTRY[name]).get(col)
        if decl and decl.get("kind") == "choice" and decl.get("choices"):
            return tuple(map(str, decl["choices"]))
    return None


def axis_order(df, col: str) -> list:
    """The values of grid column ``col`` in the order a chart shows them.

    Numbers ascending (``"10"`` after ``"9"``, a missing value last); a declared choice
    in its declared order (threat trivial -> extreme, lineups, rule sets as the model's
    parameter lists them); anything else (variants, parties) in the frame's order, which
    is the order the grid was declared in.
    """
    values = list(dict.fromkeys(numeric(df[col])))
    conv = numeric(df[col])
    if len(conv) and np.issubdtype(np.asarray(conv).dtype, np.number):
        present = sorted(v for v in values if not (isinstance(v, float) and np.isnan(v)))
        return present + [v for v in values if isinstance(v, float) and np.isnan(v)][:1]
    if col == "variant":
        return values
    choices = _declared_choices(model_of(df), col)
    if choices:
        declared = [v for c in choices for v in values if str(v) == c]
        return declared + [v for v in values if str(v) not in choices]
    return values


def is_numeric(df, col: str) -> bool:
    """Whether a grid column reads as numbers (heights stored as text count)."""
    return bool(np.issubdtype(np.asarray(numeric(df[col])).dtype, np.number))


#: Where a model's time axis changes phase, from a parameter: (parameter, what happens
#: then, with ``{v}`` for its value). A survival frame with a ``phase`` column says it
#: itself; this covers the frames that do not.
PHASE_ENDS: dict[str, tuple[str, str]] = {
    "encounter": (
        "fight_rounds",
        "round {v}: the fight ends (fight_rounds = {v}); a PC down, not dying, ends stable",
    ),
}


def _shared_param(df, key: str):
    """The value every row's ``params`` JSON gives ``key`` (None when absent or mixed)."""
    import json

    if "params" not in df or not len(df):
        return None
    seen = set()
    for text in dict.fromkeys(df["params"].dropna().astype(str)):
        try:
            seen.add(str(json.loads(text).get(key, "\0")))
        except (ValueError, TypeError, AttributeError):
            return None
    return seen.pop() if len(seen) == 1 else None


def phase_ends(surv) -> list[tuple[float, str]]:
    """(time, what changes) for each phase boundary of a survival frame's time axis.

    From a ``phase`` column where the frame has one (the last time of each phase but
    the last), else from :data:`PHASE_ENDS` and the parameter's value (the rows'
    ``params``, else the model's default). ``[]`` when nothing is known.
    """
    if "phase" in surv and len(surv):
        d = surv.drop_duplicates("time").sort_values("time")
        phase = d["phase"].fillna("").astype(str)
        named = phase[phase != ""]
        if named.str.contains(r"\+").any() or named.nunique() < 2:
            return []  # tracks in different phases at one time: no single boundary to draw
        nxt = phase.shift(-1).fillna("")
        change = (phase != nxt) & (phase != "") & (nxt != "")
        return [
            (float(t), f"after {int(t)}: {n} begins")
            for t, n in zip(d["time"][change], nxt[change])
        ]
    model = model_of(surv)
    if model not in PHASE_ENDS:
        return []
    key, text = PHASE_ENDS[model]
    value = _shared_param(surv, key)
    if value == "\0" or value is None:
        from simkit.core.params import spec
        from simkit.models import REGISTRY

        if value is None and "params" in surv and len(surv):
            return []  # mixed values across the rows: no one boundary
        value = spec(REGISTRY[model]).get(key, {}).get("default") if model in REGISTRY else None
    if value in (None, "None", "none"):
        return []
    try:
        t = float(value)
    except (TypeError, ValueError):
        return []
    return [(t, text.format(v=int(t) if t.is_integer() else t))]
