"""Plots render to PNG without a display, from live frames and from CSVs."""

import subprocess
import sys

import matplotlib
import pandas as pd
import pytest

from simkit.analysis import plots
from simkit.analysis.compare import compare, variants
from simkit.analysis.sweep import sweep, to_csv_text

matplotlib.use("Agg")
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def _png(path):
    data = path.read_bytes()
    assert data[:8] == PNG and len(data) > 5000
    return data


def _csv_round_trip(df, tmp_path, name):
    p = tmp_path / name
    p.write_text(to_csv_text(df))
    return pd.read_csv(p)


@pytest.fixture(scope="module")
def surv():
    return sweep("dying", {"dc": [18, 24]}, 5000, 1, survival=True, fixed={"max_rounds": 10})


def test_survival_curves_from_frame_and_csv(surv, tmp_path):
    ax = plots.survival_sweep(surv, outcomes=("active", "dead"))
    assert ax.get_xlabel() == "time (rounds)"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "DC 18: P(still dying)" in labels and "DC 24: P(dead)" in labels
    assert (
        "dots: exact (Markov chain)" in labels
        and "lines: Monte Carlo, n = 5,000 tracks a point" in labels
    )
    assert any(x.startswith("shaded: 95% interval") for x in labels)
    plots.save(ax, tmp_path / "s.png")
    _png(tmp_path / "s.png")
    back = _csv_round_trip(surv, tmp_path, "s.csv")
    import matplotlib.pyplot as plt

    _, given = plt.subplots()
    ax = plots.survival_curves(back[back["dc"] == 18], outcomes=("dead",), ax=given)
    assert ax is given
    plots.save(ax, tmp_path / "one.png")
    _png(tmp_path / "one.png")
    with pytest.raises(ValueError, match="outcome 'gone'"):
        plots.survival_curves(back, outcomes=("gone",))


def test_heatmap_labels_and_ambiguous_cells(tmp_path):
    df = sweep(
        "dying", {"dc": [14, 20, 26], "level": [1, 5, 9], "hit_chance": [0.0, 0.2]}, exact_only=True
    )
    with pytest.raises(ValueError, match="hit_chance also var"):
        plots.heatmap(df, "level", "dc")
    ax = plots.heatmap(df, "level", "dc", where={"hit_chance": 0.2})
    assert ax.get_xlabel() == "character level" and ax.get_ylabel().startswith("DC of the source")
    assert ax.figure.axes[-1].get_ylabel() == "P(dead), exact"  # an exact-only sweep
    plots.save(ax, tmp_path / "h.png")
    _png(tmp_path / "h.png")
    back = _csv_round_trip(df, tmp_path, "h.csv")
    ax = plots.heatmap(back, "level", "dc", value="exact", where={"hit_chance": "0.2"})
    plots.save(ax, tmp_path / "h2.png")
    _png(tmp_path / "h2.png")


def test_compare_charts(tmp_path):
    df = compare(variants("dying"), {"level": [1, 5, 10]}, 5000, 3, fixed={"level_diff": 0})
    ax = plots.compare_chart(df, x="level")
    assert ax.get_ylabel() == "P(dead)" and ax.get_xlabel() == "character level"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[:2] == ["seed 000 as written", "pf2e-core"] and "hollow diamonds: exact" in labels
    plots.save(ax, tmp_path / "c.png")
    _png(tmp_path / "c.png")
    ax = plots.compare_chart(_csv_round_trip(df, tmp_path, "c.csv"), where={"level": 5})
    plots.save(ax, tmp_path / "bars.png")
    _png(tmp_path / "bars.png")
    with pytest.raises(ValueError, match="level also var"):
        plots.compare_chart(df)


def test_core_and_cli_do_not_import_matplotlib():
    code = (
        "import sys, simkit, simkit.analysis.sweep, simkit.analysis.compare, simkit.cli.main, "
        "simkit.cli.sweep, simkit.analysis.grid; simkit.cli.main.build_parser(); "
        "assert 'matplotlib' not in sys.modules, 'matplotlib imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_standard_reports_cover_models_registered_later(tmp_path, monkeypatch):
    """A model that appears in the registry gets its report without code changes."""
    from test_sweep import DyingTwice  # a chained model standing in for a later one

    import simkit.models
    from simkit.analysis import reports

    only = {"agony": DyingTwice, "dying_twice": DyingTwice}
    monkeypatch.setattr(simkit.models, "REGISTRY", only)
    stems = reports.standard_reports(tmp_path, n=2000)
    assert stems == [
        "agony_defaults",
        "dying_twice_defaults",
    ]  # agony's grid keys are not DyingTwice's
    for stem in stems:
        _png(tmp_path / f"{stem}.png")
        df = pd.read_csv(tmp_path / f"{stem}.csv")
        assert {"outcome", "p", "exact", "model", "seed", "version"} <= set(df.columns)


def test_survival_axis_ends_where_the_tracks_have_settled(surv):
    """99.9% absorbed: the axis stops there, not at the horizon; cut=None shows it all."""
    assert plots.settled_time(surv) is None  # DC 24 is not settled by round 10: the whole horizon
    assert plots.survival_sweep(surv, outcomes=("dead",)).get_xlim()[1] >= 10
    long = sweep("dying", {"dc": [18, 24]}, 5000, 1, survival=True, fixed={"max_rounds": 40})
    d = long[long["outcome"] == "active"]
    last = max(
        int(g.loc[(g["exact"] <= 0.001) & (g["p"] <= 0.001), "time"].min())
        for _, g in d.groupby("dc")
    )
    assert plots.settled_time(long) == last
    ax = plots.survival_sweep(long, outcomes=("active", "dead"))
    assert last <= ax.get_xlim()[1] <= last + 1.5 < 40
    ax = plots.survival_sweep(long, outcomes=("active", "dead"), cut=None)
    assert ax.get_xlim()[1] >= 40


def test_outcome_bars_show_every_outcome_and_explain_the_marks():
    df = sweep("fall", {}, 4000, 2, fixed={"height": 9, "hp": 12, "massive_damage": True})
    ax = plots.outcome_bars(df)
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks == ["dead", "knocked out\n(0 HP)", "standing"]  # unresolved never happens
    heights = [b.get_height() for b in ax.patches]
    assert abs(sum(heights) - 1) < 1e-9
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == [
        "bars: Monte Carlo, n = 4,000 tracks",
        "whiskers: 95% interval",
        "hollow diamonds: exact",
    ]


def test_stacked_outcomes_even_axis_and_all_outcomes():
    df = sweep("fall", {"height": [1, 2, 4, 10, 12]}, exact_only=True)
    ax = plots.stacked_outcomes(df, "height")
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert set(labels) == {"dead", "knocked out (0 HP)", "standing"}
    assert [t.get_position()[0] for t in ax.get_xticklabels()] == [
        1,
        2,
        4,
        10,
        12,
    ]  # at their values
    dead = next(c for c in ax.containers if c.get_label() == "dead")
    assert [round(b.get_height(), 9) for b in dead] == [0, 0, 0, 0, 1]


def test_heatmap_cells_never_round_to_never_or_always():
    df = sweep("dying", {"dc": [14, 44], "level": [1, 20]}, exact_only=True)
    ax = plots.heatmap(df, "level", "dc", value="p")
    cells = {t.get_text() for t in ax.texts}
    p = df.loc[df["outcome"] == "dead", "p"]
    assert ("0%" in cells) == bool((p == 0).any()) and ("100%" in cells) == bool((p == 1).any())
    assert "<1%" in cells or ">99%" in cells  # level 20 vs DC 14 rounds to 0% but is not 0


def test_outcomes_of_a_new_model_get_their_own_colours_and_words():
    """An outcome simkit has no colour for gets a spare one, never a listed one or a neighbour's."""
    new = ["victory_with_losses", "rout", "dead", "truce"]
    colours = [plots.outcome_color(o, new) for o in new]
    assert len(set(colours)) == 4 and colours[2] == plots.COLORS["dead"]
    assert not {colours[0], colours[1], colours[3]} & set(plots.COLORS.values())
    assert plots.outcome_label("victory_with_losses") == "victory with losses"
    assert plots.outcome_label("active", "rounds", "some_new_model") == "still in the track"


def test_a_one_step_model_draws_bars_not_an_empty_curve():
    """A fall happens at once: its survival frame has one time; the chart shows its outcomes."""
    one = sweep("fall", {}, 3000, 4, survival=True, fixed={"height": 9, "hp": 12})
    ax = plots.survival_sweep(one, outcomes=("active", "dead"))
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        "dead",
        "knocked out\n(0 HP)",
        "standing",
    ]
    assert sum(b.get_height() for b in ax.patches) == pytest.approx(1)
    by_height = sweep("fall", {"height": [2, 10, 12]}, 3000, 4, survival=True)
    ax = plots.survival_sweep(by_height, outcomes=("dead",))
    assert [t.get_position()[0] for t in ax.get_xticklabels()] == [2, 10, 12]
    dead = next(c for c in ax.containers if c.get_label() == "dead")
    assert [round(b.get_height(), 9) for b in dead] == [0, 0, 1]


def test_a_later_stage_that_some_grid_points_never_reach(tmp_path):
    """Falls from 12 m never reach the dying stage: the other heights' curves are drawn."""
    df = sweep("fall_dying", {"height": [6, 9, 12]}, 3000, 1, survival=True)
    back = _csv_round_trip(df, tmp_path, "fs.csv")
    ax = plots.survival_sweep(back, outcomes=("active", "dead"), stage="ko->dying")
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "height 9: P(still dying)" in labels and not any(
        x.startswith("height 12") for x in labels
    )
    assert ax.get_xlabel() == "time (rounds)"
    with pytest.raises(ValueError, match="stage 'nope'"):
        plots.survival_sweep(back, stage="nope")


def test_survival_titles_say_what_is_drawn():
    df = sweep("fall_dying", {"height": [6, 9]}, 2000, 1, survival=True)
    n = "\n(n = 2,000 tracks a point)"
    assert plots.survival_title(df) == "fall_dying (fall stage): outcomes of one fall" + n
    assert plots.survival_title(df, stage="ko->dying") == (
        "fall_dying (ko->dying stage): P(still dying), P(dead) by round" + n
    )


def test_titles_name_the_fixed_parameters():
    df = sweep(
        "dying",
        {"dc": [18, 22]},
        1000,
        1,
        survival=True,
        fixed={"hit_chance": 0.3, "max_rounds": 20},
    )
    assert plots.fixed_text(df) == "hit_chance=0.3, max_rounds=20"  # not dc: a grid column
    assert plots.survival_title(df).endswith(
        "\n(n = 1,000 tracks a point; hit_chance=0.3, max_rounds=20)"
    )
    assert plots.fixed_text(sweep("dying", {"dc": [18, 22]}, exact_only=True)) == ""


def test_a_share_too_thin_to_see_is_written_above_its_bar():
    df = sweep("fall", {"height": [4, 6, 8]}, exact_only=True)  # level 1: 6 m knocks out 0.5%
    ax = plots.stacked_outcomes(df, "height", value="p")
    ko = df[(df["outcome"] == "ko")].set_index("height")["p"]
    notes = [t.get_text() for t in ax.texts]
    assert notes == [f"{ko.loc['6']:.2%} knocked out (0 HP)"] and 0 < ko.loc["6"] < 0.01


def test_a_chain_is_drawn_where_its_outcome_happens():
    """Agony's agonising turns never kill at its defaults: its curves default to the recovery
    stage (hours), where the deaths are, in that stage's words; a stage can still be asked."""
    import simkit
    from simkit.models import make_model

    surv = simkit.simulate(make_model("agony"), 3000, rng=1).survival()
    assert plots.survival_stage(surv) == "stable->recovery"
    ax = plots.survival_curves(surv)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "P(still unconscious)" in labels and "P(dead)" in labels
    assert ax.get_xlabel() == "time (hours)"
    assert "(stable->recovery stage): P(still unconscious), P(dead) by hour" in ax.get_title()
    first = plots.survival_curves(surv, stage="perseverance")
    assert first.get_xlabel() == "time (rounds)"


def test_bar_labels_never_run_into_each_other():
    """Six outcomes in a narrow panel ("standing" beside "knocked out (0 HP)",
    fall_perseverance's defaults): the tick labels shrink until neighbours keep apart."""
    import matplotlib.pyplot as plt

    df = sweep("fall_perseverance", {}, 2000, 1)
    fig, ax = plt.subplots(figsize=(5.0, 4.0))
    plots.outcome_bars(df, ax=ax)
    r = fig.canvas.get_renderer()
    boxes = sorted((t.get_window_extent(r) for t in ax.get_xticklabels()), key=lambda b: b.x0)
    assert len(boxes) >= 5
    assert all(a.x1 < b.x0 for a, b in zip(boxes, boxes[1:]))
