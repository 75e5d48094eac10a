"""Figures from results. Plotting lives only here and reads traces."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from .engine import Result  # noqa: E402

MAX_FLOW_LINES = 16


def write(fig, path: str | Path) -> Path:
    """Lays out `fig`, writes it to `path` (PNG, 110 dpi) and closes it."""
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def plot_run(result: Result, path: str | Path) -> Path | None:
    """Per-flow throughput and bottleneck queue length over time; None without a trace."""
    trace = result.trace
    if trace is None or (trace.flows.empty and trace.queues.empty):
        return None
    panels = [p for p in ("flows", "queues") if not getattr(trace, p).empty]
    fig, axes = plt.subplots(
        len(panels), 1, figsize=(9, 3.2 * len(panels)), sharex=True, squeeze=False
    )
    for ax, panel in zip(axes[:, 0], panels, strict=True):
        if panel == "flows":
            series = trace.flow_series("throughput_bps") / 1e6
            shown = series.columns[:MAX_FLOW_LINES]
            labels = result.flows.set_index("flow")["label"]
            for flow in shown:
                ax.plot(series.index, series[flow], lw=0.8, label=f"{flow}: {labels[flow]}")
            title = "throughput per flow"
            if len(series.columns) > len(shown):
                title += f" (first {len(shown)} of {len(series.columns)})"
            ax.set_title(title)
            ax.set_ylabel(f"Mb/s over {trace.interval_s * 1e3:g} ms")
            if len(shown) <= 8:
                ax.legend(fontsize=7, ncol=2, loc="upper right")
        else:
            for name, q in trace.queues.groupby("name", sort=False):
                ax.step(q["time_s"], q["queue_pkts"], where="post", lw=0.8, label=name)
            ax.set_title("queue length at the end of each interval")
            ax.set_ylabel("packets")
            ax.legend(fontsize=7, loc="upper right")
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel("time (s)")
    return write(fig, path)


def plot_playback(result: Result, path: str | Path) -> Path | None:
    """The playback receivers' buffer levels over time; None when the run has none."""
    pb = result.playback
    if pb.empty:
        return None
    fig, ax = plt.subplots(figsize=(9, 3.2))
    labels = result.flows.set_index("flow")["label"]
    for flow, rows in list(pb.groupby("flow"))[:MAX_FLOW_LINES]:
        ax.plot(rows["time_s"], rows["buffer_bytes"] / 1e3, lw=0.8, label=f"{flow}: {labels[flow]}")
    ax.set_title("playback buffer per media flow")
    ax.set_ylabel("kB buffered")
    ax.set_xlabel("time (s)")
    ax.legend(fontsize=7, ncol=2, loc="upper right")
    ax.grid(alpha=0.3)
    return write(fig, path)
