"""Figures (matplotlib) from results: the standard views of :mod:`ccscope.views`, drawn with
their titles, units and legends, as ``result.plot`` gives them; ``ccscope run`` writes the same
panels as overview.png through :mod:`ccscope.pngview`.

>>> fig = result.plot()                      # per class: throughput, window, rate, RTT; queue
>>> fig = result.plot.throughput(per="flow")  # one view: also window, rate, rtt, queue, ...
>>> fig.savefig("throughput.png")

Figures are made with :class:`matplotlib.figure.Figure`, not pyplot: no backend is chosen and
no figure is kept open, so a notebook shows them inline and a script may draw thousands.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from . import views

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Height of one panel and width of one column, inches.
PANEL_IN, WIDTH_IN = 2.1, 9.0

#: The PNGs' resolution (``ccscope run``'s overview.png, :func:`write`).
DPI = 100


def write(fig: Figure, path: str | Path) -> Path:
    """Writes `fig` to `path` (PNG at :data:`DPI`)."""
    out = Path(path)
    fig.savefig(out, dpi=DPI)
    return out


def draw(view: views.View) -> Figure:
    """`view` as a matplotlib figure: a panel per axes (one column, or ``view.columns``), its
    title, unit and x label, the warm-up shaded, one legend of the view's groups above."""
    from matplotlib.ticker import MaxNLocator

    from ._figure import ShownFigure

    n = max(len(view.panels), 1)
    cols = max(1, min(view.columns, n))
    rows = -(-n // cols)
    fig = ShownFigure(figsize=(WIDTH_IN * (1 if cols == 1 else 1.25), PANEL_IN * rows + 0.9))
    axes = fig.subplots(rows, cols, squeeze=False, sharex=view.shared)
    colour = {g: f"C{i % 10}" for i, g in enumerate(view.groups)} | view.colors
    handles: dict[str, object] = {}
    for k, ax in enumerate(axes.flat):
        if k >= len(view.panels):
            ax.set_visible(False)
            continue
        panel = view.panels[k]
        for line in panel.lines:
            c = colour[line.group]
            if line.low is not None and line.high is not None:
                ax.fill_between(line.x, line.low, line.high, color=c, alpha=0.2, lw=0)
            style = {"color": c, "lw": 1.0 if line.lines else 0, "label": line.name}
            if line.markers:
                style.update(marker="o", ms=3.5)
            if line.step:
                (h,) = ax.step(line.x, line.y, where="post", **style)
            else:
                (h,) = ax.plot(line.x, line.y, **style)
            handles.setdefault(line.name, h)
        if view.shade and view.shade[1] > view.shade[0]:
            ax.axvspan(*view.shade, color="0.6", alpha=0.18, lw=0)
        # A title at a given height skips matplotlib's search for the axes' top (half the
        # drawing time).
        ax.set_title(panel.title, fontsize=8.5, loc="left", y=1.0)
        ax.set_ylabel(panel.ylabel, fontsize=8.5)
        ax.tick_params(labelsize=7.5)
        ax.yaxis.set_major_locator(MaxNLocator(4))
        ax.grid(alpha=0.3)
        if k + cols >= len(view.panels):
            ax.set_xlabel(panel.xlabel, fontsize=8.5)
    if handles:
        fig.legend(
            list(handles.values()),
            list(handles),
            loc="upper center",
            ncol=min(len(handles), 4),
            fontsize=7.5,
            frameon=False,
        )
    top = 1 - 0.32 * -(-len(handles) // 4) / fig.get_figheight() - 0.25 / fig.get_figheight()
    fig.subplots_adjust(
        left=0.08, right=0.98, top=top, bottom=0.45 / fig.get_figheight(), hspace=0.45, wspace=0.2
    )
    if view.shade and view.shade[1] > view.shade[0]:
        fig.text(0.99, 0.005, "warm-up shaded", ha="right", va="bottom", fontsize=7, color="0.4")
    return fig


class Plots:
    """The standard figures of a packet-model run (``result.plot``): call it for the overview
    (per class: throughput, window, rate, RTT; then the queue and its delay), or one view.

    Each method returns a :class:`matplotlib.figure.Figure` (``fig.savefig(path)``); `per` is
    ``"flow"`` (at most 16 flows, every class among them, each ``INDEX: LABEL``) or
    ``"class"`` (the mean per flow of the flows of each label). A view the run did not trace
    raises :class:`ValueError` naming what the scenario needs."""

    def __init__(self, result) -> None:
        self._result = result

    def _data(self) -> views.RunData:
        if self._result.trace is None:
            raise ValueError('the run was not traced: add [trace] interval = "100ms" (say)')
        return views.RunData.of_result(self._result)

    def _one(self, view: views.View, what: str) -> Figure:
        if not view.panels:
            raise ValueError(f"the run's trace has no {what}")
        return draw(view)

    def __call__(self) -> Figure:
        """The overview: per class throughput, window, rate and RTT; each bottleneck's queue and
        queueing delay (``ccscope run``'s overview.png)."""
        return self._one(views.overview(self._data()), "series")

    def _flows(self, per: str, columns: set[str], what: str) -> Figure:
        if per not in ("flow", "class"):
            raise ValueError(f"per = {per!r}: expected 'flow' or 'class'")
        return self._one(views.flows_view(self._data(), per == "class", columns), what)

    def throughput(self, per: str = "flow") -> Figure:
        """Throughput over each trace interval (Mb/s)."""
        return self._flows(per, {"throughput_bps"}, "throughput")

    def window(self, per: str = "flow") -> Figure:
        """Congestion window (packets) of the flows with one, sending rate (Mb/s) of the
        others."""
        return self._flows(per, {"window_pkts", "rate_bps"}, "window or rate")

    def rtt(self, per: str = "flow") -> Figure:
        """The senders' smoothed RTT (ms) at the end of each interval."""
        return self._flows(per, {"srtt_s"}, "RTT (a trace of this ccscope version has it)")

    def classes(self) -> Figure:
        """Per class: throughput, window, rate and RTT, the mean per flow of each class."""
        return self._one(views.flows_view(self._data(), per_class=True), "flow series")

    def flows(self) -> Figure:
        """Per flow: throughput, window, rate and RTT."""
        return self._one(views.flows_view(self._data()), "flow series")

    def queue(self) -> Figure:
        """Each monitored link's queue (packets) and queueing delay (ms)."""
        return self._one(views.queue_view(self._data()), "queue series")

    def playback(self) -> Figure:
        """Each playback receiver's buffer (kB)."""
        return self._one(views.playback_view(views.RunData.of_result(self._result)), "playback")


class RoundPlots:
    """The standard figures of a round-model run (``result.plot``): call it for every view,
    or :meth:`aggregate` (utilization and loss per step) and :meth:`load` (each flow's load,
    ``per="flow"`` or ``"class"``, recorded with ``record.flows = true``)."""

    def __init__(self, result) -> None:
        self._result = result

    def _views(self) -> list[views.View]:
        r = self._result
        loads = r.flow_series() if len(r.raw["flow_load_pkts"]) else None
        return views.round_views(r.series, loads, r.flows["name"].tolist())

    def __call__(self) -> Figure:
        shown = self._views()
        if not shown:
            raise ValueError("the run recorded no series: set record.every >= 1")
        panels = [p for v in shown for p in v.panels]
        return draw(views.View("Round model", panels))

    def aggregate(self) -> Figure:
        """Utilization and loss per step."""
        return draw(self._views()[0])

    def load(self, per: str = "flow") -> Figure:
        """Each flow's load (packets per control interval), or the mean per flow of each
        class."""
        if per not in ("flow", "class"):
            raise ValueError(f"per = {per!r}: expected 'flow' or 'class'")
        shown = {v.title: v for v in self._views()}
        view = shown.get("Per flow" if per == "flow" else "Per class")
        if view is None:
            self._result.flow_series()  # raises, naming record.flows
        return draw(view)


def warm_up() -> threading.Thread:
    """Starts loading, on a thread of its own, what drawing a traced run's figures needs
    (pandas and pyarrow for the traces, matplotlib and its font): the engine runs without
    holding the interpreter, so ``ccscope run`` pays for these imports while it simulates
    rather than after, when a CPU is free. Join the thread before drawing."""

    def load() -> None:
        import pandas  # noqa: F401
        import pyarrow  # noqa: F401
        from matplotlib import font_manager
        from matplotlib.backends import backend_agg  # noqa: F401
        from PIL import Image  # noqa: F401

        font_manager.findfont(font_manager.FontProperties())

    thread = threading.Thread(target=load, name="ccscope-warm-up", daemon=True)
    thread.start()
    return thread


def _png(view: views.View, path: str | Path) -> Path:
    """`view` as a PNG at `path`: drawn on the Agg renderer (:mod:`ccscope.pngview`, a
    fraction of a figure's cost), or as a figure when it has bands or markers."""
    from . import pngview

    if pngview.drawable(view):
        return pngview.write(view, path)
    return write(draw(view), path)


def overview(result, path: str | Path) -> Path | None:
    """Writes `result`'s overview (the panels of :meth:`Plots.__call__`) to `path`; None
    without a trace."""
    trace = result.trace
    if trace is None or (trace.flows.empty and trace.queues.empty):
        return None
    view = views.overview(views.RunData.of_result(result))
    return _png(view, path) if view.panels else None


def playback(result, path: str | Path) -> Path | None:
    """Writes the playback receivers' buffers (the panel of :meth:`Plots.playback`) to
    `path`; None when the run has none."""
    if result.playback.empty:
        return None
    return _png(views.playback_view(views.RunData.of_result(result)), path)
