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
