"""Every standard chart follows the conventions (issue 22 item 5, issue 23 item 5).

Each chart is rendered small and read back from matplotlib: a title naming the model,
n and the fixed settings; axis labels with their units; every series drawn and not
empty; a legend that does not eat the width beside the plot; tick labels that do not
overlap; categorical axes in their declared order; each model's default outcome; an
unknown outcome's error listing the valid ones.
"""

import matplotlib
import numpy as np
import pandas as pd
import pytest

from simkit.analysis import plots
from simkit.analysis.compare import compare, variants
from simkit.analysis.sweep import sweep
from simkit.testing import run_cli

matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def _laid_out(ax):
    """The figure laid out as :func:`plots.save` lays it out, and its renderer."""
    fig = ax.figure
    fig.tight_layout()
    fig.canvas.draw()
    return fig, fig.canvas.get_renderer()


def _legend_beside_share(ax) -> float:
    """How much of the figure's width the legend takes beside (outside) the axes' span."""
    fig, r = _laid_out(ax)
    leg, box = ax.get_legend().get_window_extent(r), ax.get_window_extent(r)
    beside = max(0.0, leg.x1 - box.x1) + max(0.0, box.x0 - leg.x0)
    return beside / fig.bbox.width


def _no_overlap(labels, renderer) -> bool:
    boxes = [t.get_window_extent(renderer) for t in labels if t.get_text()]
    return all(a.x1 <= b.x0 + 0.5 for a, b in zip(boxes, boxes[1:]))


def _lines_with_data(ax, prefix=""):
    return {
        ln.get_label(): len(ln.get_xdata())
        for ln in ax.get_lines()
        if ln.get_label().startswith(prefix) and not ln.get_label().startswith("_")
    }


def _party_frame(threats=("extreme", "low", "moderate", "severe", "trivial"), with_any=True):
    """A party sweep table by threat (made, not run): rows the way a sweep writes them."""
    rows = []
    outcomes = ("victory", "defeat") + (("any_death",) if with_any else ())
    for i, t in enumerate(threats):
        for o in outcomes:
            p = 0.1 * (i + 1) if o != "victory" else 0.5
            rows.append(
                {
                    "threat": t,
                    "outcome": o,
                    "count": int(p * 1000),
                    "n": 1000,
                    "p": p,
                    "ci_low": p - 0.02,
                    "ci_high": p + 0.02,
                    "model": "party",
                    "params": '{"level":5}',
                }
            )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def dying_surv():
    return sweep("dying", {"dc": [18, 24]}, 2000, 1, survival=True, fixed={"max_rounds": 12})


def test_survival_chart_title_labels_series_and_legend_below(dying_surv):
    ax = plots.survival_sweep(dying_surv, outcomes=("active", "dead"))
    title = ax.get_title()
    assert title.startswith("dying: P(still dying), P(dead) by round")
    assert "n = 2,000 tracks a point" in title and "max_rounds=12" in title
    assert ax.get_xlabel() == "time (rounds)" and ax.get_ylabel() == "probability"
    drawn = _lines_with_data(ax, "DC ")
    assert set(drawn) == {f"DC {d}: P({o})" for d in (18, 24) for o in ("still dying", "dead")}
    assert all(n > 1 for n in drawn.values())
    assert _legend_beside_share(ax) <= 0.02  # it was about a third beside the plot


def test_heatmap_has_a_default_title_and_orders_numbers(dying_surv):
    df = sweep("dying", {"dc": [14, 20, 26], "level": [1, 5, 10]}, exact_only=True)
    ax = plots.heatmap(df, "level", "dc")
    assert ax.get_title() == "dying: P(dead) by level and dc"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "5", "10"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["26", "20", "14"]
    assert ax.get_xlabel() == "character level" and ax.figure.axes[-1].get_ylabel()
    assert plots.heatmap(df, "level", "dc", title="").get_title() == ""


def test_outcome_bars_ticks_do_not_overlap_and_the_legend_is_below():
    df = sweep("fall_dying", {}, 2000, 3)
    _, ax = plots.pyplot().subplots(figsize=(5.6, 4.4))  # the width a defaults report gives
    plots.outcome_bars(df, ax=ax)
    fig, r = _laid_out(ax)
    assert _no_overlap(ax.get_xticklabels(), r)
    assert _legend_beside_share(ax) <= 0.02
    assert ax.get_title().startswith("fall_dying: P(each outcome)\n(n = 2,000 tracks")
    texts = {t.get_text() for t in ax.texts}
    summary = df.set_index("outcome")
    for o in summary.index:  # "never" only where the exact answer is 0
        if summary.loc[o, "p"] == 0 and summary.loc[o, "exact"] == 0:
            assert "never" in texts
    assert "0.0%" not in texts


def test_compare_chart_ticks_every_level_names_the_seed_and_draws_differences():
    df = compare(variants("dying"), {"level": [1, 2, 3, 4]}, 1000, 5, fixed={"level_diff": 0})
    ax = plots.compare_chart(df, x="level")
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "3", "4"]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[:2] == ["seed 000 as written", "pf2e-core"]
    assert ax.get_title().startswith("dying: P(dead) under seed 000 as written, pf2e-core")
    assert {k: v for k, v in _lines_with_data(ax).items() if k in labels[:2]} == {
        "seed 000 as written": 4,
        "pf2e-core": 4,
    }
    diff = plots.compare_differences(df, x="level")
    drawn = _lines_with_data(diff)
    assert drawn == {"pf2e-core \u2212 seed 000 as written": 4}
    assert "percentage points" in diff.get_ylabel()
    seed = df[(df["variant"] == "pf2e-core") & (df["outcome"] == "dead")]["diff"].to_numpy()
    line = next(ln for ln in diff.get_lines() if ln.get_label().startswith("pf2e-core"))
    assert np.allclose(line.get_ydata(), 100 * seed)


def test_categorical_axes_in_their_declared_order():
    df = _party_frame()
    assert plots.axis_order(df, "threat") == ["trivial", "low", "moderate", "severe", "extreme"]
    ax = plots.sweep_lines(df, "threat")
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        "trivial",
        "low",
        "moderate",
        "severe",
        "extreme",
    ]
    line = next(ln for ln in ax.get_lines() if ln.get_label() == "P(any death)")
    # extreme was written first (p 0.1) and trivial last (p 0.5): drawn at their ranks
    assert list(line.get_ydata()) == pytest.approx([0.5, 0.2, 0.3, 0.4, 0.1])
    order = _party_frame(threats=("pack", "boss")).rename(columns={"threat": "lineup"})
    assert plots.axis_order(order, "lineup") == ["boss", "pack"]
    mixed = pd.DataFrame({"variant": ["seed", "pf2e-core", "seed"], "model": "dying"})
    assert plots.axis_order(mixed, "variant") == ["seed", "pf2e-core"]  # the table's order


def test_each_model_has_its_default_outcome():
    assert plots.default_outcome(_party_frame()) == "any_death"
    assert plots.default_outcome(_party_frame(with_any=False)) == "defeat"
    assert plots.default_outcome(sweep("dying", {}, exact_only=True)) == "dead"
    ax = plots.sweep_lines(_party_frame(), "threat")
    assert ax.get_ylabel() == "P(any death)" and ax.get_title().startswith("party: P(any death)")


def test_an_unknown_outcome_lists_the_valid_ones(tmp_path):
    df = sweep("dying", {"dc": [14, 20], "level": [1, 5]}, exact_only=True)
    with pytest.raises(ValueError, match=r"no rows for outcome 'gone'; outcomes: stable, dead"):
        plots.heatmap(df, "level", "dc", outcome="gone")
    csv = tmp_path / "p.csv"
    _party_frame().to_csv(csv, index=False)
    code, _, err = run_cli(
        "plot",
        csv,
        "--kind",
        "line",
        "--x",
        "threat",
        "--outcome",
        "dead",
        "-o",
        tmp_path / "x.png",
    )
    assert code == 2 and err.count("\n") == 1
    assert "outcomes: victory, defeat, any_death" in err and not (tmp_path / "x.png").exists()
    code, _, err = run_cli("plot", csv, "--kind", "line", "--x", "threat", "-o", tmp_path / "y.png")
    assert code == 0, err  # the party's default outcome, not dead
    assert (tmp_path / "y.png").read_bytes()[:4] == b"\x89PNG"


def test_stacked_panels_merge_identical_levels_and_label_thin_shares_exactly():
    df = sweep("fall", {"height": [5, 6, 7, 8, 10, 12], "level": [1, 2, 3]}, 2000, 7)
    fig, axes = plots.stacked_panels(df, "height", "level")
    assert [ax.get_title() for ax in axes] == ["level 1", "level 2, 3"]  # 2 and 3: the same odds
    thin = [t.get_text() for t in axes[0].texts]
    ko = df[(df["level"] == 1) & (df["outcome"] == "ko")].set_index("height")["exact"]
    assert thin[:2] == [f"{ko.loc['6']:.2%} knocked out (0 HP)"] * 2  # 6 and 7 m: one band
    labels = [t.get_text() for t in axes[0].get_legend().get_texts()]
    assert labels[:3] == ["standing", "knocked out (0 HP)", "dead"]  # top of the stack first
    assert "black dashes: exact boundaries" in labels
    assert "numbers up a bar: shares under 2%, exact" in labels
    assert fig.get_suptitle().startswith("fall: P(each outcome) by height")


def test_a_phase_boundary_is_drawn_and_explained():
    surv = sweep("encounter", {}, 400, 2, survival=True)
    stage = surv["stage"].iloc[0]
    ax = plots.survival_curves(surv, stage=stage, outcomes=("active", "stable"))
    vlines = [ln for ln in ax.get_lines() if ln.get_label().startswith("dotted line")]
    assert len(vlines) == 1 and list(vlines[0].get_xdata()) == [10, 10]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(
        t.startswith("dotted line: round 10: the fight ends (fight_rounds = 10)") for t in labels
    )
    short = sweep("encounter", {}, 400, 2, survival=True, fixed={"fight_rounds": 4})
    ax = plots.survival_curves(short, stage=stage, outcomes=("active",))
    assert [ln.get_xdata()[0] for ln in ax.get_lines() if ln.get_label().startswith("dotted")] == [
        4
    ]


def test_a_band_too_narrow_to_see_is_said_in_the_legend(dying_surv):
    wide = sweep("dying", {}, 20_000, 1, survival=True, fixed={"max_rounds": 8})
    ax = plots.survival_curves(wide, outcomes=("dead",))
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    band = next(t for t in labels if t.startswith("shaded: 95% interval"))
    assert band.endswith("narrower than the line: not visible)")
    ax = plots.survival_curves(dying_surv[dying_surv["dc"] == 24], outcomes=("dead",))
    band = next(t.get_text() for t in ax.get_legend().get_texts() if "95%" in t.get_text())
    assert "not visible" not in band  # n = 2,000: wide enough to see


def test_a_title_names_a_fixed_sweep_key_and_what_it_derived():
    """`--set level=5` on a sweep is a constant column, not a params entry: the title says it."""
    import pandas as pd

    from simkit.analysis.plots.titles import fixed_text

    df = pd.DataFrame(
        {
            "dc": [14, 14, 15, 15],
            "level": [5, 5, 5, 5],
            "save_bonus": [12, 12, 12, 12],
            "outcome": ["stable", "dead"] * 2,
            "p": [0.98, 0.02, 0.97, 0.03],
            "params": ['{"dc": 14, "save_bonus": 12, "hit_chance": 0.3}'] * 2
            + ['{"dc": 15, "save_bonus": 12, "hit_chance": 0.3}'] * 2,
        }
    )
    assert fixed_text(df) == "level=5, save_bonus=12, hit_chance=0.3"
    assert fixed_text(df, skip=("level",)) == "save_bonus=12, hit_chance=0.3"
