"""Saving a chart: a PNG written atomically, complete or absent."""

from __future__ import annotations

from simkit.analysis.plots.style import pyplot

__all__ = ["save"]


def save(ax, path) -> None:
    """Save the figure of ``ax`` (an Axes or a Figure) atomically as PNG (complete or absent)."""
    from simkit.core.io import atomic_write

    fig = (
        ax
        if not hasattr(ax, "get_figure") or ax.get_figure() is None or ax.get_figure() is ax
        else ax.get_figure()
    )
    if hasattr(fig, "get_suptitle") and fig.get_suptitle():
        fig.tight_layout(rect=(0, 0, 1, 0.92 if "\n" in fig.get_suptitle() else 0.95))
    else:
        fig.tight_layout()
    with atomic_write(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=120)
    pyplot().close(fig)
