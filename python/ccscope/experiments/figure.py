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
    """Titles, grids, lays out and writes `fig` to `path` (PNG, 110 dpi), and closes it."""
    import matplotlib.pyplot as plt

    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=legend_size)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return Path(path)
