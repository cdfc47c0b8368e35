"""Plots: ``ax=None`` in, axes out; matplotlib is imported here only, lazily.

Every function takes tidy frames (``Result.survival()``, sweep and compare tables)
so that it plots a saved CSV as well as a live result. Axis labels say what a
parameter means and in which unit (:data:`LABELS`), probabilities read "P(dead)",
and times carry the model's unit (rounds, hours, days), so a figure can go into a
rules document as it is.

One module a concept: :mod:`~simkit.analysis.plots.style` (colours, words, legends),
:mod:`~simkit.analysis.plots.frames` (reading a tidy frame: rows, grid columns,
categorical order, each model's default outcome), :mod:`~simkit.analysis.plots.titles`,
:mod:`~simkit.analysis.plots.survival` (curves by time),
:mod:`~simkit.analysis.plots.outcomes` (final outcomes as bars),
:mod:`~simkit.analysis.plots.grids` (heatmaps, lines, compare charts) and
:mod:`~simkit.analysis.plots.save`.
"""

from __future__ import annotations

from simkit.analysis.plots.frames import (
    DEFAULT_OUTCOMES,
    PHASE_ENDS,
    axis_order,
    default_outcome,
    filter_rows,
    survival_stage,
)
from simkit.analysis.plots.grids import compare_chart, compare_differences, heatmap, sweep_lines
from simkit.analysis.plots.outcomes import outcome_bars, stacked_outcomes, stacked_panels
from simkit.analysis.plots.save import save
from simkit.analysis.plots.style import (
    ACTIVE_NAMES,
    COLORS,
    LABELS,
    OUTCOME_NAMES,
    SPARE_COLORS,
    label_for,
    outcome_color,
    outcome_label,
    pyplot,
)
from simkit.analysis.plots.survival import settled_time, survival_curves, survival_sweep
from simkit.analysis.plots.titles import chart_title, fixed_text, survival_title

__all__ = [
    "DEFAULT_OUTCOMES",
    "LABELS",
    "OUTCOME_NAMES",
    "PHASE_ENDS",
    "axis_order",
    "chart_title",
    "compare_chart",
    "compare_differences",
    "default_outcome",
    "fixed_text",
    "heatmap",
    "label_for",
    "outcome_bars",
    "outcome_color",
    "outcome_label",
    "pyplot",
    "save",
    "settled_time",
    "stacked_outcomes",
    "stacked_panels",
    "survival_curves",
    "survival_stage",
    "survival_sweep",
    "survival_title",
    "sweep_lines",
]

#: The row filter of every chart (``where=``), under its former name.
_filter = filter_rows
#: Not in ``__all__`` but importable as before.
_ = (ACTIVE_NAMES, COLORS, SPARE_COLORS)
