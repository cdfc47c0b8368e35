"""The party report's figure: the "what changes" lines wrapped, never cut; the bars of
deaths by cause inside their shared axis."""

import numpy as np
import pandas as pd

from simkit.analysis.party_report import CAUSES, changes_text, level_changes


def test_change_lines_are_wrapped_not_cut():
    changes = level_changes(levels=range(8, 12))
    entries = changes_text(changes, width=40, most=4)
    assert [e.split(":")[0] for e in entries] == ["8->9", "9->10", "10->11"]
    for e in entries:
        lines = e.split("\n")
        assert all(len(line) <= 40 for line in lines) and len(lines) > 1
        assert "..." not in e
    # the spike at 10: the fighter's attack step is named (a tie goes to the party's order)
    nine_ten = " ".join(entries[1].split())
    assert "fighter attack 20->23" in nine_ten
    assert " ".join(changes_text(changes, width=1000, most=4)[1].split()) == nine_ten


def _frame(tallest_in: str) -> pd.DataFrame:
    """A made-up table of the report: two rule sets, the severe threat, levels 1..3; the
    tallest stack of deaths by cause in ``tallest_in``'s panel."""
    rows = []
    for r in ("seed000", "pf2e-core"):
        for L in (1, 2, 3):
            for o in ("any_death", "defeat"):
                rows.append(dict(rules=r, threat="severe", level=L, outcome=o, p=0.2, n=100,
                                 ci_low=0.1, ci_high=0.3, mean=np.nan))  # fmt: skip
            for k, (name, _) in enumerate(CAUSES):
                big = r == tallest_in and L == 3
                rows.append(dict(rules=r, threat="severe", level=L, outcome=name, p=np.nan,
                                 n=100, ci_low=0.0, ci_high=1.0,
                                 mean=(1.5 if big else 0.1) * (k + 1)))  # fmt: skip
    return pd.DataFrame(rows)


def test_every_panel_s_bars_fit_the_shared_axis():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from simkit.analysis.party_report import threat_by_level_figure

    for tallest_in in ("seed000", "pf2e-core"):
        df = _frame(tallest_in)
        fig, _ = threat_by_level_figure(df)
        bars = [ax for ax in fig.axes if ax.patches]
        assert len(bars) == 2
        fig.canvas.draw()
        for ax in bars:
            top = max(p.get_y() + p.get_height() for p in ax.patches)
            assert top <= ax.get_ylim()[1], (tallest_in, top, ax.get_ylim())
        plt.close(fig)


def _threat_frame(levels, rules=("seed000", "pf2e-core")) -> pd.DataFrame:
    """A made-up table of the report at ``levels``: P(defeat) on P(a PC dies) in pf2e-core's
    panel (as there: nearly every death follows a defeat), well under it in the seed's."""
    rows = []
    for r in rules:
        for L in levels:
            for o, p in (("any_death", 0.3), ("defeat", 0.3 if r == "pf2e-core" else 0.1)):
                rows.append(dict(rules=r, threat="severe", level=L, outcome=o, p=p, n=100,
                                 ci_low=p - 0.05, ci_high=p + 0.05, mean=np.nan))  # fmt: skip
    return pd.DataFrame(rows)


def test_the_threat_figure_shows_defeat_on_death_and_says_why_it_zigzags():
    """The dashed P(defeat) is drawn over the solid lines with hollow dots, and a panel where
    the two coincide says so; the side column explains the zigzag in words (no monospace),
    its per-level list readable; a sparse set of levels gets a tick at each level and a
    side text that says why there is no list (issue 29: notebook 04's empty box)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from simkit.analysis.party_report import threat_by_level_figure

    fig, axes = threat_by_level_figure(_threat_frame(range(1, 21)))
    for ax in axes:
        solid = [ln for ln in ax.get_lines() if ln.get_linestyle() == "-"]
        dashed = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
        assert dashed and min(d.get_zorder() for d in dashed) > max(s.get_zorder() for s in solid)
        assert all(d.get_markerfacecolor() == "white" for d in dashed)
    notes = {ax.get_title(): " ".join(t.get_text() for t in ax.texts) for ax in axes}
    assert "follows a defeat" in notes["rules pf2e-core"] and not notes["rules seed000"]
    side = [t for ax in fig.axes if not ax.axison for t in ax.texts]
    words = " ".join(t.get_text() for t in side)
    assert "Why the lines zigzag" in words and "9->10" in words  # the list, level by level
    assert all(t.get_fontfamily() != ["monospace"] and t.get_fontsize() >= 7 for t in side)
    plt.close(fig)
    fig, axes = threat_by_level_figure(_threat_frame((1, 5, 10, 15, 20)))
    assert [int(x) for x in axes[0].get_xticks()] == [1, 5, 10, 15, 20]
    side = " ".join(t.get_text() for ax in fig.axes if not ax.axison for t in ax.texts)
    assert "are not consecutive" in side
    plt.close(fig)


def test_the_threat_figure_is_written_without_a_layout_warning(tmp_path):
    """Its own layout engine: ``Report.write`` saves it as laid out (the standard report
    printed a tight_layout UserWarning; pytest turns warnings into errors)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    from simkit.analysis.party_report import threat_by_level_figure
    from simkit.analysis.reports import Report

    df = _threat_frame(range(1, 21))
    fig, axes = threat_by_level_figure(df)
    assert isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine)
    Report("party_threat_by_level", {"": df}, fig, axes).write(tmp_path)
    assert (tmp_path / "party_threat_by_level.png").stat().st_size > 10_000
