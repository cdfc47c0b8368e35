"""Colours, words and legends every chart shares; matplotlib imported lazily (:func:`pyplot`)."""

from __future__ import annotations

from simkit.analysis.plots.frames import half_width, n_text
from simkit.core.result import NAME_READS

__all__ = [
    "ACTIVE_NAMES",
    "COLORS",
    "LABELS",
    "OUTCOME_NAMES",
    "SPARE_COLORS",
    "label_for",
    "legend_keys",
    "place_legend",
    "variant_label",
    "wrap_label",
    "outcome_color",
    "outcome_label",
    "pyplot",
]


COLORS = {
    "dead": "#b2182b",
    "active": "#2166ac",
    "stable": "#4d9221",
    "revived": "#e08214",
    "awake": "#4d9221",
    "rested": "#8073ac",
    "back": "#fdb863",
    "recovered": "#4d9221",
    "exhausted": "#762a83",
    "ko": "#e08214",
    "standing": "#35978f",
    "dying": "#f4a582",
    "ko_not_dying": "#e08214",
    "unresolved": "#999999",
    "victory": "#4d9221",
    "victory_with_deaths": "#fdb863",
    "retreat": "#8073ac",
    "defeat": "#b2182b",
}


#: Colours for outcomes not in :data:`COLORS`, none of them a colour listed there.
SPARE_COLORS = (
    "#01665e",
    "#c51b7d",
    "#8c510a",
    "#5ab4ac",
    "#de77ae",
    "#bf812d",
    "#542788",
    "#7fbc41",
)


def outcome_color(outcome: str, others=()) -> str:
    """The colour of an outcome: its own (:data:`COLORS`), else a spare one.

    ``others`` lists the outcomes drawn on the same chart: an unlisted outcome takes
    the spare colour of its rank among the unlisted ones, so two never share one.
    """
    if outcome in COLORS:
        return COLORS[outcome]
    unlisted = [o for o in dict.fromkeys([*others, outcome]) if o not in COLORS]
    return SPARE_COLORS[unlisted.index(outcome) % len(SPARE_COLORS)]


#: How an outcome reads on a chart (its name when not listed).
OUTCOME_NAMES = {
    "ko": "knocked out (0 HP)",
    "ko_not_dying": "knocked out, not dying",
    **NAME_READS,  # victory: "won, nobody died"
}


#: Axis labels of parameters and sweep keys a designer can read.
LABELS = {
    "dc": "DC of the source (recovery DC = DC + dying)",
    "save_bonus": "Fortitude save modifier",
    "level": "character level",
    "monster_level": "monster level",
    "level_diff": "monster level \u2212 character level",
    "hit_chance": "chance per round of a hit on the downed character",
    "crit_chance": "chance per round of a critical hit",
    "hero_points": "hero points",
    "heal_round": "round healing arrives",
    "check_penalty": "check penalty (fatigue, hunger)",
    "con": "Constitution modifier",
    "healer": "healer's Medicine modifier",
    "pp": "perseverance points (PP)",
    "pp_max": "maximum PP",
    "height": "fall height (m)",
    "pc_con": "Constitution modifier at level 1",
}


#: How "still in the track" reads in a time unit, for a frame that does not name its model.
ACTIVE_NAMES = {"rounds": "still dying"}


def label_for(key: str) -> str:
    """The axis label of a parameter or sweep key (its name when unknown)."""
    return LABELS.get(key, key.replace("_", " "))


def outcome_label(outcome: str, unit: str | None = None, model: str | None = None) -> str:
    """How an outcome reads on a chart.

    ``still dying`` for ``active`` of a dying track, ``knocked out (0 HP)`` for ``ko``.
    """
    if outcome == "active":
        from simkit.models import REGISTRY

        if model in REGISTRY:  # the model's own words (Model.active_label)
            return REGISTRY[model].active_label
        if model is None:  # a frame that does not say its model: guess from the unit
            return ACTIVE_NAMES.get(unit or "", "still in the track")
        return "still in the track"
    return OUTCOME_NAMES.get(outcome, str(outcome).replace("_", " "))


def pyplot():
    """``matplotlib.pyplot``, imported on first use (Agg when there is no display)."""
    import matplotlib

    if matplotlib.get_backend().lower() not in ("agg", "module://matplotlib_inline.backend_inline"):
        try:
            import matplotlib.pyplot as plt
        except ImportError:  # pragma: no cover
            matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def legend_keys(
    ax,
    exact_dots: bool,
    banded=None,
    line_text: str = "lines: Monte Carlo",
    exact_text: str = "dots: exact (Markov chain)",
    marker: str = "o",
    below: bool = False,
) -> None:
    """The curves' entries, then what every mark means: lines, bands, exact dots."""
    from matplotlib.patches import Patch

    handles, labels = ax.get_legend_handles_labels()
    keys = []
    if banded is not None and len(banded):
        n = n_text(banded)
        keys.append(
            (ax.plot([], [], "-", color="0.35")[0], f"{line_text}" + (f", {n}" if n else ""))
        )
        hw = half_width(banded)
        width = f"at most \u00b1{hw:.1%}" if hw >= 0.001 else "under \u00b10.1%"
        keys.append(
            (
                Patch(color="0.35", alpha=0.3, lw=0),
                f"shaded: 95% interval ({width}"
                + ("; narrower than the line: not visible)" if hw < 0.01 else ")"),
            )
        )
    if exact_dots:
        keys.append(
            (
                ax.plot(
                    [], [], marker, color="0.35", ms=4, mfc="0.35" if marker == "o" else "none"
                )[0],
                exact_text,
            )
        )
    handles, labels = handles + [h for h, _ in keys], labels + [t for _, t in keys]
    if below or len(labels) > 4:  # many entries: below the plot, never beside it nor over it
        place_legend(ax, handles, labels)
    else:
        ax.legend(handles, labels, frameon=False, fontsize="small", loc="best")


def place_legend(ax, handles, labels, *, ncol: int | None = None, align: str = "center"):
    """A legend under the axes' tick labels and x label, no wider than the axes if it can be.

    A legend beside the plot took up to a third of a figure's width; under it, the plot
    keeps the width and the legend takes a few lines. ``ncol`` columns (default: as many
    as fit in the axes' width, at most 3); ``align="left"`` anchors it at the axes' left
    edge (a legend for a row of panels). Returns the legend (None with no entries).
    """
    from matplotlib.transforms import offset_copy

    if not labels:
        return None
    if ax.get_legend() is not None:
        ax.get_legend().remove()
    fig = ax.figure
    try:
        renderer = fig.canvas.get_renderer()
        tight, box = ax.get_tightbbox(renderer), ax.get_window_extent(renderer)
        below = max(0.0, box.y0 - tight.y0) * 72.0 / fig.dpi + 4.0
        width = box.width
    except AttributeError:  # pragma: no cover - a canvas without a renderer
        renderer, below, width = None, 40.0, None
    trans = offset_copy(ax.transAxes, fig=fig, y=-below, units="points")
    anchor, loc = ((0.0, 0.0), "upper left") if align == "left" else ((0.5, 0.0), "upper center")
    cols = ncol or min(3, len(labels))
    while True:
        leg = ax.legend(
            handles,
            labels,
            frameon=False,
            fontsize="small",
            loc=loc,
            bbox_to_anchor=anchor,
            bbox_transform=trans,
            ncol=cols,
            borderaxespad=0.0,
        )
        if ncol or cols == 1 or renderer is None or width is None:
            return leg
        if leg.get_window_extent(renderer).width <= 1.02 * width:
            return leg
        cols -= 1


def wrap_label(text: str, width: int = 12) -> str:
    """A tick label on lines of about ``width`` characters, so that neighbours never overlap."""
    import textwrap

    return "\n".join(textwrap.wrap(text, width, break_long_words=False)) or text


def variant_label(name: str, model: str | None = None) -> str:
    """How a rule variant reads in a legend: ``seed`` names the seed it is (``seed 000 as
    written``), from the model's rule ids (R0-... seed 000, R1-... seed 001, R4-... seed 004)."""
    if name != "seed" or model is None:
        return str(name)
    import re

    from simkit.models import REGISTRY

    seeds = set(re.findall(r"\bR(\d+)-", str(getattr(REGISTRY.get(model), "rule_ids", ""))))
    if len(seeds) == 1:
        return f"seed {int(seeds.pop()):03d} as written"
    return "seed as written"
