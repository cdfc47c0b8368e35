"""What ``simkit models`` prints as a table: a one-screen list, or one model's detail.

``simkit models``: one line per model (name, time unit, exact solver, one-line
description), wrapped to the terminal width. ``simkit models NAME``: the model's
parameters (default, allowed values, unit, rule id, meaning) and the keys that set
parameters from the character level (``level``...) or from days without sleep, food
or water. The rules and ambiguities the ids refer to are stated in ``docs/rules.md``.
"""

from __future__ import annotations

__all__ = ["event_list", "has_exact", "model_detail", "models_list"]

RULES_DOC = "docs/rules.md"


def has_exact(cls) -> str:
    """``yes`` when the model has an exact solver at its defaults; else where it has one
    (its ``exact_scope``, e.g. party's duels), else ``no``."""
    try:
        if getattr(cls(), "has_exact", False):
            return "yes"
    except Exception:  # a model that cannot be built at its defaults
        return "?"
    return getattr(cls, "exact_scope", None) or "no"


def event_list(cls) -> tuple[str, ...]:
    """The model's events and means at its defaults (:func:`simkit.core.result.event_names`),
    none for a model without ``events``."""
    from simkit.core.result import event_names

    if not getattr(cls, "events", None):
        return ()
    try:
        return event_names(cls())
    except Exception:  # a model that cannot be built at its defaults: the declared ones
        return tuple(cls.events)


#: What each kind of row is, as ``simkit models NAME`` says it.
KIND_TEXT = {
    "outcome": "how a track ends, exclusive: their p add up to 1",
    "event": "a question asked of every track (its marks or outcome): they overlap",
    "mean": "the mean of a mark over every track (column mean, no p)",
}


def name_kinds_of(cls, reads: bool = True) -> list[tuple[str, list[str], str]]:
    """``(kind, names, what it is)`` for each kind a model's results have (its outcomes
    always; events and means where it declares ``events``), names as a person reads
    them (``victory (won, nobody died)``) where ``reads``, else as the files have them."""
    from simkit.core.result import NAME_READS, name_kinds

    try:
        kinds = name_kinds(cls())
    except Exception:  # a model that cannot be built at its defaults: its outcomes
        kinds = {o: "outcome" for o in (*cls.outcomes, "unresolved")}
    out = []
    for kind, what in KIND_TEXT.items():
        names = [f"{n} ({NAME_READS[n]})" if reads and n in NAME_READS else n for n in kinds]
        names = [x for x, k in zip(names, kinds.values()) if k == kind]
        if names:
            out.append((kind, names, what))
    return out


def summary_line(cls) -> str:
    """The first paragraph of the model's docstring, as one line (a sentence that wraps
    over two lines of the docstring stays whole: the day's "one step = one step of the
    plan")."""
    first = (cls.__doc__ or "").strip().split("\n\n")[0]
    return " ".join(x.strip() for x in first.splitlines() if x.strip())


def models_list(registry: dict, width: int) -> str:
    """One line per model, wrapped to ``width``, and how to see one model's parameters."""
    import pandas as pd

    from simkit.cli.text import wrap_prose, wrap_table

    df = pd.DataFrame(
        [
            dict(
                model=name,
                step=cls.time_unit.rstrip("s"),
                exact=has_exact(cls),
                description=summary_line(cls),
            )
            for name, cls in registry.items()
        ]
    )
    text = wrap_table(df, width)
    foot = (
        "simkit models NAME: a model's parameters (default, allowed values, rule id, meaning); "
        f"--format csv: every model's parameters. The rules and ambiguities (R0-05, A0-1...) are "
        f"stated in {RULES_DOC}."
    )
    return text + "\n" + "\n".join(wrap_prose(foot, width)) + "\n"


def model_detail(cls, width: int) -> str:
    """One model's parameters and keys, wrapped to ``width``."""
    from simkit.analysis.grid import describe_keys
    from simkit.cli.text import wrap_prose
    from simkit.core.params import describe
    from simkit.rules.penalties import FATIGUE_KEYS

    lines = wrap_prose(
        f"{cls.name}  ({cls.rule_ids}; step = 1 {cls.time_unit.rstrip('s')}; outcomes: "
        f"{', '.join(tuple(cls.outcomes) + ('unresolved',))}; exact solver: {has_exact(cls)})",
        width,
        0,
        4,
    )
    lines += wrap_prose(summary_line(cls), width, 4)
    lines.append("")
    for r in describe(cls):
        unit = f" [{r['unit']}]" if r["unit"] else ""
        rule = f" ({r['rule']})" if r["rule"] else ""
        lines += wrap_prose(
            f"{r['name']:<14} default {r['default']!s:<10} {r['allowed']}{unit}{rule}", width, 4, 19
        )
        lines += wrap_prose(str(r["help"]), width, 19)
    keys = describe_keys(cls)
    level = [r for r in keys if r["name"] not in FATIGUE_KEYS]
    days = [r["name"] for r in keys if r["name"] in FATIGUE_KEYS]
    if level:
        lines.append("")
        lines += wrap_prose(
            "Keys that set parameters from the character level (--set KEY=V on run, exact, "
            "calibrate, sensitivity and sweep; --grid on sweep; the values set are shown):",
            width,
            4,
        )
        for r in level:
            default = f"default {r['default']!s:<10}" if r["default"] is not None else ""
            lines += wrap_prose(f"{r['name']:<14} {default:<18} {r['allowed']}", width, 4, 19)
            lines += wrap_prose(str(r["help"]), width, 19)
    if days:
        lines.append("")
        lines += wrap_prose(
            f"Fatigue keys (add to check_penalty, R4-01..R4-03): {', '.join(days)}", width, 4
        )
    marks = tuple(getattr(cls, "marks", ()))
    if marks:
        lines.append("")
        lines += wrap_prose(
            f"Marks (values recorded when a track ends; run --marks MARK): {', '.join(marks)}",
            width,
            4,
        )
    lines.append("")
    lines += wrap_prose(
        "Names by kind (the column kind of run's, sweep's and compare's rows; res[NAME]; "
        "at the defaults):",
        width,
        4,
    )
    for kind, names, what in name_kinds_of(cls):
        lines += wrap_prose(f"{kind:<8} {', '.join(names)}: {what}", width, 4, 13)
    lines.append("")
    lines += wrap_prose(f"Rules and ambiguities: {RULES_DOC}", width, 4)
    return "\n".join(lines) + "\n"
