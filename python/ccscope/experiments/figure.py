"""The reproductions' figures: one way to open and to write them."""

from __future__ import annotations

from pathlib import Path


def new(figsize: tuple[float, float] = (6, 4)):
    """A figure and its axes, drawn without a display."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=figsize)


def save(fig, ax, title: str, path: Path, legend_size: int = 8) -> Path:
    """Titles, grids and writes `fig` to `path` (PNG), and closes it."""
    from ..report import write

    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=legend_size)
    return write(fig, path)
