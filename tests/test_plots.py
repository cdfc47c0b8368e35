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
    labels = ax.get_legend_handles_labels()[1]
    assert "DC 18: P(still dying)" in labels and "DC 24: P(dead)" in labels and "exact (dots)" in labels
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
    df = sweep("dying", {"dc": [14, 20, 26], "level": [1, 5, 9], "hit_chance": [0.0, 0.2]}, exact_only=True)
    with pytest.raises(ValueError, match="hit_chance also var"):
        plots.heatmap(df, "level", "dc")
    ax = plots.heatmap(df, "level", "dc", where={"hit_chance": 0.2})
    assert ax.get_xlabel() == "character level" and ax.get_ylabel().startswith("DC of the source")
    assert ax.figure.axes[-1].get_ylabel() == "P(dead)"
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
    assert ax.get_legend_handles_labels()[1] == ["seed", "pf2e-core"]
    plots.save(ax, tmp_path / "c.png")
    _png(tmp_path / "c.png")
    ax = plots.compare_chart(_csv_round_trip(df, tmp_path, "c.csv"), where={"level": 5})
    plots.save(ax, tmp_path / "bars.png")
    _png(tmp_path / "bars.png")
    with pytest.raises(ValueError, match="level also var"):
        plots.compare_chart(df)


def test_core_and_cli_do_not_import_matplotlib():
    code = ("import sys, simkit, simkit.analysis.sweep, simkit.analysis.compare, simkit.cli.main, simkit.cli.sweep, simkit.analysis.grid; "
            "simkit.cli.main.build_parser(); assert 'matplotlib' not in sys.modules, 'matplotlib imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_standard_reports_cover_models_registered_later(tmp_path, monkeypatch):
    """A model that appears in the registry gets its report without code changes."""
    from simkit.analysis import reports
    from simkit.models import REGISTRY
    from test_sweep import DyingTwice  # a chained model standing in for a later one

    import simkit.models

    monkeypatch.setattr(reports, "_dying", lambda out, n: [])
    only = {"dying": REGISTRY["dying"], "agony": DyingTwice, "dying_twice": DyingTwice}
    monkeypatch.setattr(simkit.models, "REGISTRY", only)
    stems = reports.standard_reports(tmp_path, n=2000)
    assert stems == ["agony_defaults", "dying_twice_defaults"]  # dying is covered by _dying
    for stem in stems:
        _png(tmp_path / f"{stem}.png")
        df = pd.read_csv(tmp_path / f"{stem}.csv")
        assert {"outcome", "p", "exact", "model", "seed", "version"} <= set(df.columns)
