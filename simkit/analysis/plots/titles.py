"""Titles that say what a chart drew: the model, n and the settings every row shares."""

from __future__ import annotations

import json

from simkit.analysis.plots.frames import (
    lead_columns,
    model_of,
    n_text,
    stage_model,
    survival_stage,
    time_unit,
)
from simkit.analysis.plots.style import outcome_label

__all__ = ["chart_title", "fixed_text", "settings_text", "survival_title"]


def fixed_text(df, skip=()) -> str:
    """The settings every row of ``df`` shares, as ``k=v, ...``: what a chart's title should
    name besides its axes.

    First the grid (and derived) columns that hold one value in every row, in column order
    (a sweep's fixed ``--set level=5`` and what it derived: ``level=5, save_bonus=12,
    hp_max=73``), then the other non-default parameters every row's ``params`` JSON shares
    (``hit_chance=0.3`` for ``--set hit_chance=0.3``), sorted. Columns that vary and
    ``skip`` are left out; ``""`` when nothing is shared.
    """
    import json

    if not len(df):
        return ""
    leave = set(skip) | {"variant"}
    lead = lead_columns(df)
    constant = [
        (c, _value_text(df[c].iloc[0]))
        for c in lead
        if c not in leave and df[c].nunique(dropna=False) == 1
    ]
    shared: set[tuple[str, str]] | None = None
    for text in dict.fromkeys(df["params"].dropna().astype(str)) if "params" in df else ():
        try:
            items = {(k, str(v)) for k, v in json.loads(text).items()}
        except (ValueError, TypeError, AttributeError):
            shared = set()
            break
        shared = items if shared is None else shared & items
    rest = [(k, v) for k, v in sorted(shared or ()) if k not in leave and k not in lead]
    return ", ".join(f"{k}={v}" for k, v in constant + rest)


def _value_text(v) -> str:
    """A cell as a title shows it: ``5`` not ``5.0``, text as it is."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    return str(int(f)) if f.is_integer() else f"{f:g}"


def survival_title(df, outcomes=("active", "dead"), stage: str | None = None) -> str:
    """A title that says what :func:`survival_sweep` drew from ``df``.

    ``fall_dying (ko->dying stage): P(still dying), P(dead) by round``; for a one-step
    stage, whose chart is outcome bars: ``fall_dying: outcomes of one fall``.
    """
    model = model_of(df) or "model"
    staged, where = df, ""
    if "stage" in df and len(df):
        stages = list(dict.fromkeys(df["stage"]))
        stage = survival_stage(df, outcomes) if stage is None or stage not in stages else stage
        staged = df[df["stage"] == stage]
        where = f" ({stage} stage)" if len(stages) > 1 else ""
    unit = time_unit(staged)
    step = unit.removesuffix("s")
    fixed = settings_text(df)
    if len(staged) and staged["time"].nunique() <= 1:
        return f"{model}{where}: outcomes of one {step}{fixed}"
    names = ", ".join(f"P({outcome_label(o, unit, stage_model(staged))})" for o in outcomes)
    return f"{model}{where}: {names} by {step}{fixed}"


def monsters_text(df) -> str:
    """Which monsters a party or day chart assumes (AP-19, AP-20): ``"monsters: the
    benchmark creature"``, ``"monsters: real bundled creatures (lineup=bestiary)"``, both,
    or ``""`` (another model, or every point's monsters given, which its settings show)."""
    if model_of(df) not in ("party", "day") or not len(df):
        return ""
    points = []
    for text in dict.fromkeys(df["params"].dropna().astype(str)) if "params" in df else ():
        try:
            points.append(dict(json.loads(text)))
        except (ValueError, TypeError):
            continue
    lineups = {str(p.get("lineup", "boss")) for p in points if not p.get("monsters")}
    lineups |= set(df["lineup"].astype(str)) if "lineup" in df else set()
    given = bool(points) and all(p.get("monsters") for p in points)
    real = "bestiary" in lineups
    bench = not given and bool(lineups - {"bestiary"} or not points)
    parts = ["the benchmark creature (area effect AP-20)"] if bench else []
    parts += ["real bundled creatures (lineup=bestiary)"] if real else []
    return "monsters: " + " and ".join(parts) if parts else ""


def settings_text(df) -> str:
    """The second line of a title: ``\n(n = 5,000 tracks a point; hit_chance=0.3)`` or ``""``;
    a party or day chart also says which monsters it assumes (:func:`monsters_text`)."""
    bits = [b for b in (n_text(df), fixed_text(df), monsters_text(df)) if b]
    return f"\n({'; '.join(bits)})" if bits else ""


def chart_title(df, what: str) -> str:
    """The default title of a chart of ``df``: the model, what is drawn, n and the settings.

    ``party: P(any death) by threat and level`` then, on a second line, ``(n = 2,000 tracks
    a point; rules=pf2e-core)``: what a figure must say to be read away from its command.
    """
    return f"{model_of(df) or 'model'}: {what}{settings_text(df)}"
