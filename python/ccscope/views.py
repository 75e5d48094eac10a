"""The standard views of a run as plain data, drawn alike by :mod:`ccscope.report` (matplotlib:
``Result.plot``, ``ccscope run``'s overview.png) and :mod:`ccscope.htmlreport` (interactive
pages): what each panel shows, in which unit, and each line with its legend name and group.

A flow's legend name is its index and label (``2: TFRC``); its class is its label, so the flows
of one class run the same sender and controller (``TCP/SACK``, ``GAIMD(0.31,0.875) (SACK)``).
A flow without a window (a rate-based or application-paced sender) is drawn on the rate panel,
never as a window of 0; an RTT before the sender's first sample is a gap, not 0.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

#: Flows drawn one by one in a per-flow view (every flow counts in the per-class view).
MAX_FLOWS = 16

#: Points per line; a longer series is averaged over runs of consecutive intervals.
MAX_POINTS = 2000


@dataclass
class Line:
    """One curve: `x`, `y` (NaN is a gap), its legend `name` and `group` (the lines of one
    group toggle together), optional 95% band `low`-`high`, and how it is drawn."""

    x: list
    y: list
    name: str
    group: str
    low: list | None = None
    high: list | None = None
    step: bool = False
    markers: bool = False
    lines: bool = True


@dataclass
class Panel:
    title: str
    ylabel: str
    lines: list[Line]
    xlabel: str = "time (s)"


@dataclass
class View:
    """Panels drawn one under the other (or in `columns`), sharing their x axis when `shared`;
    `shade` is the warm-up interval (start, end) in x units, drawn shaded when it is not empty."""

    title: str
    panels: list[Panel]
    shade: tuple[float, float] | None = None
    shared: bool = True
    columns: int = 1
    caption: str = ""
    groups: list[str] = field(default_factory=list)
    #: Colours of some groups (``#rrggbb``); the others take the palette's in order.
    colors: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.panels = [p for p in self.panels if p.lines]
        if not self.groups:
            self.groups = list(dict.fromkeys(ln.group for p in self.panels for ln in p.lines))


@dataclass
class RunData:
    """What the views of one packet-model run read: the flows' labels by index, the warm-up,
    the traced series (empty frames when not traced) and the monitored links' rates."""

    labels: list[str]
    warmup_s: float
    flows: pd.DataFrame
    queues: pd.DataFrame
    link_rates: dict[str, float]
    playback: pd.DataFrame

    @classmethod
    def of_result(cls, result) -> RunData:
        import pandas as pd

        trace = result.trace
        empty = pd.DataFrame()
        return cls(
            labels=result.flows["label"].tolist(),
            warmup_s=result.warmup_s,
            flows=trace.flows if trace is not None else empty,
            queues=trace.queues if trace is not None else empty,
            link_rates=dict(zip(result.links["name"], result.links["rate_bps"], strict=True)),
            playback=result.playback,
        )

    @classmethod
    def of_dir(cls, out, summary: dict) -> RunData:
        """From a run directory and its summary.json."""
        import pandas as pd

        def frame(name: str) -> pd.DataFrame:
            path = out / name
            return pd.read_parquet(path) if path.exists() else pd.DataFrame()

        return cls(
            labels=[f["label"] for f in summary.get("flows", [])],
            warmup_s=float(summary.get("warmup_s", 0.0)),
            flows=frame("trace_flows.parquet"),
            queues=frame("trace_queues.parquet"),
            link_rates={k["name"]: k["rate_bps"] for k in summary.get("links", [])},
            playback=frame("playback.parquet"),
        )

    def name(self, flow: int) -> str:
        label = self.labels[flow] if flow < len(self.labels) else "?"
        return f"{flow}: {label}"

    def classes(self) -> dict[str, list[int]]:
        """The flows of each class (label), classes in the order of their first flow."""
        out: dict[str, list[int]] = {}
        for i, label in enumerate(self.labels):
            out.setdefault(label, []).append(i)
        return out


def _thin(index, values):
    """`index` and `values` (1-D numpy), averaged over runs of consecutive points when there
    are more than :data:`MAX_POINTS`."""
    import numpy as np

    n = len(index)
    k = -(-n // MAX_POINTS)
    if k <= 1:
        return index, values
    m = n // k * k
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a run of gaps stays a gap
        y = np.nanmean(values[:m].reshape(-1, k), axis=1)
    return index[:m].reshape(-1, k)[:, -1], y


def _line(index, values, name: str, group: str, **kw) -> Line:
    import numpy as np

    x, y = _thin(np.asarray(index, dtype=float), np.asarray(values, dtype=float))
    return Line(x.tolist(), y.tolist(), name, group, **kw)


def _averaged(n: int) -> str:
    k = -(-n // MAX_POINTS)
    return f" (averaged over {k} intervals)" if k > 1 else ""


#: The per-flow series of the views: trace column, panel title, unit, scale, and which flows
#: it is drawn for ("all", "window": flows with a window, "rate": flows without one).
SERIES = (
    ("throughput_bps", "throughput", "Mb/s", 1e-6, "all"),
    ("window_pkts", "congestion window", "packets", 1.0, "window"),
    ("rate_bps", "sending rate of the flows without a window", "Mb/s", 1e-6, "rate"),
    ("srtt_s", "smoothed RTT", "ms", 1e3, "all"),
)


def _wide(data: RunData, column: str):
    """A (time x flow) numpy table of one trace column, with the times; gaps as NaN (an RTT
    of 0 is no sample yet)."""
    import numpy as np

    table = data.flows.pivot(index="time_s", columns="flow", values=column)
    values = table.to_numpy(dtype=float)
    if column == "srtt_s":
        values = np.where(values > 0, values, np.nan)
    return table.index.to_numpy(), list(table.columns), values


def _windowed(data: RunData) -> set[int]:
    """The flows that have a congestion window (some interval with one above 0)."""
    if "window_pkts" not in data.flows:
        return set()
    return set(data.flows.loc[data.flows["window_pkts"] > 0, "flow"].unique().tolist())


def drawn_flows(data: RunData) -> set[int]:
    """The flows a per-flow view draws: all of them up to :data:`MAX_FLOWS`; beyond, the first
    flow of each class, then the others in order up to :data:`MAX_FLOWS` (every class seen)."""
    firsts = [members[0] for members in data.classes().values()]
    rest = [i for i in range(len(data.labels)) if i not in set(firsts)]
    return set((firsts + rest)[: max(MAX_FLOWS, len(firsts))])


def _flow_panels(data: RunData, per_class: bool, only: set[str] | None = None) -> list[Panel]:
    import numpy as np

    if data.flows.empty:
        return []
    windowed = _windowed(data)
    chosen = drawn_flows(data)
    n = data.flows["time_s"].nunique()
    panels = []
    for column, title, unit, scale, which in SERIES:
        if column not in data.flows or (only is not None and column not in only):
            continue
        times, flows, values = _wide(data, column)
        keep = [
            j
            for j, f in enumerate(flows)
            if which == "all" or (which == "window") == (int(f) in windowed)
        ]
        lines = []
        if per_class:
            for label, members in data.classes().items():
                cols = [j for j in keep if int(flows[j]) in members]
                if not cols:
                    continue
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    y = np.nanmean(values[:, cols], axis=1) * scale
                lines.append(_line(times, y, f"{label} ({len(cols)})", label))
        else:
            drawn = [j for j in keep if int(flows[j]) in chosen]
            for j in drawn:
                f = int(flows[j])
                lines.append(_line(times, values[:, j] * scale, data.name(f), str(f)))
        what = "mean per flow of each class" if per_class else "per flow"
        cut = f", {len(drawn)} of {len(keep)}" if not per_class and len(drawn) < len(keep) else ""
        panels.append(Panel(f"{title}, {what}{cut}{_averaged(n)}", unit, lines))
    return panels


def flows_view(data: RunData, per_class: bool = False, only: set[str] | None = None) -> View:
    """Throughput, window (flows with one), sending rate (flows without), smoothed RTT: per
    flow (at most :data:`MAX_FLOWS`, every class among them: :func:`drawn_flows`), or the mean
    per flow of each class."""
    title = "Per class" if per_class else "Per flow"
    caption = (
        "Each class's flows (their number in brackets) averaged: the throughput, window, rate "
        "and RTT a flow of that class had."
        if per_class
        else "Click a flow in the legend to hide or show it in every panel."
    )
    return View(
        title,
        _flow_panels(data, per_class, only),
        shade=(0.0, data.warmup_s),
        caption=caption,
    )


def queue_view(data: RunData) -> View:
    """Each monitored link's queue at the end of each interval, in packets and as the
    queueing delay it makes (its bytes at the link's rate)."""
    if data.queues.empty:
        return View("Queues", [])
    n = data.queues["time_s"].nunique()
    length, delay = [], []
    for name, q in data.queues.groupby("name", sort=False):
        length.append(_line(q["time_s"], q["queue_pkts"], name, name, step=True))
        rate = data.link_rates.get(name)
        if rate:
            delay.append(
                _line(q["time_s"], q["queue_bytes"] * 8 / rate * 1e3, name, name, step=True)
            )
    return View(
        "Queues",
        [
            Panel(f"queue length at the end of each interval{_averaged(n)}", "packets", length),
            Panel(
                f"queueing delay: the queue's bytes at the link's rate{_averaged(n)}", "ms", delay
            ),
        ],
        shade=(0.0, data.warmup_s),
    )


def playback_view(data: RunData) -> View:
    """Each playback receiver's buffer (an interruption each time it runs dry)."""
    if data.playback.empty:
        return View("Playback", [])
    lines = [
        _line(p["time_s"], p["buffer_bytes"] * 1e-3, data.name(int(f)), str(f), step=True)
        for f, p in list(data.playback.groupby("flow"))[:MAX_FLOWS]
    ]
    return View(
        "Playback",
        [
            Panel(
                "playback buffer per media flow (an interruption each time it runs dry)",
                "kB",
                lines,
            )
        ],
        shade=(0.0, data.warmup_s),
    )


def run_views(data: RunData) -> list[View]:
    """Every view of a run that has something to draw: per class, per flow, queues, playback."""
    views = [flows_view(data, per_class=True), flows_view(data), queue_view(data)]
    views.append(playback_view(data))
    return [v for v in views if v.panels]


def overview(data: RunData) -> View:
    """The one figure of a run (``ccscope run``'s overview.png): per class, the throughput,
    window or rate and RTT, then the queue and its delay."""
    flows = flows_view(data, per_class=True)
    queues = queue_view(data)
    return View(
        "Overview", flows.panels + queues.panels, shade=(0.0, data.warmup_s), caption=flows.caption
    )


def round_views(series: pd.DataFrame, loads: pd.DataFrame | None, names: list[str]) -> list[View]:
    """The round model's views: utilization and loss per step, and each flow's load (per flow,
    and the mean per flow of each class, a class being the flows of one name)."""
    views = []
    if not series.empty:
        views.append(
            View(
                "Aggregate",
                [
                    Panel(
                        "utilization",
                        "fraction",
                        [_line(series["step"], series["utilization"], "utilization", "u")],
                        "step",
                    ),
                    Panel(
                        "loss",
                        "fraction of packets",
                        [_line(series["step"], series["loss_fraction"], "loss", "l")],
                        "step",
                    ),
                ],
            )
        )
    if loads is not None and not loads.empty:
        steps = loads.index.to_numpy()
        values = loads.to_numpy(dtype=float)
        unit = "packets per control interval"
        classes: dict[str, list[int]] = {}
        for j, name in enumerate(names):
            classes.setdefault(name, []).append(j)
        per_class = [
            _line(steps, values[:, cols].mean(axis=1), f"{name} ({len(cols)})", name)
            for name, cols in classes.items()
        ]
        per_flow = [
            _line(steps, values[:, j], f"{j}: {names[j]}", str(j))
            for j in range(min(values.shape[1], MAX_FLOWS))
        ]
        views.append(
            View("Per class", [Panel("load, mean per flow of each class", unit, per_class, "step")])
        )
        views.append(View("Per flow", [Panel("load per flow", unit, per_flow, "step")]))
    return views
