"""Running scenarios and reading their results.

>>> result = ccscope.run(ccscope.load("scenarios/dumbbell-cbr.toml"))
>>> result.flows[["label", "throughput_bps", "loss_rate"]]
"""

from __future__ import annotations

import functools
import shutil
import tempfile
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from . import plainmetrics
from .controllers import ControllerSpec, FlowControllers, per_flow
from .errors import Interrupted, ScenarioError
from .output import moved, output_dir, provenance, scenario_hash, write_json, write_parquet
from .scenario import Scenario, coerce

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

# numpy and pandas load when a result's tables are read, not before or after a run: `ccscope
# run` computes summary.json from plain rows (ccscope.plainmetrics).


def _core():
    from . import _core

    return _core


@dataclass(frozen=True)
class Trace:
    """A traced run's series as pandas frames (empty frames when not recorded).

    - ``flows``: one row per (time bin, flow): packets and bytes sent, delivered and lost in the
      bin, with ``send_rate_bps`` and ``throughput_bps`` over the bin, and the sender's
      ``window_pkts`` (0 without a window), ``rate_bps`` and ``srtt_s`` (0 before its first RTT
      sample or without one) at the bin's end.
    - ``queues``: one row per (time bin, monitored link): queue length at the end of the bin,
      drops, marks and departures in the bin, and ``utilization`` over the bin.
    - ``events``: one row per drop, mark or loss: time, link, flow and kind.
    - ``state`` (``[trace] state = true``): one row each time a value of a sender's or
      receiver's control state changed: time, flow, side ("sender" or "receiver"), field and
      the new value, which holds until the next row of that flow, side and field.
    - ``delays`` (``[trace] delays = true``): one row per data packet delivered: its arrival
      ``time_s``, ``flow`` and one-way ``delay_s`` (from leaving its sender to arriving).
    """

    interval_s: float
    flows: pd.DataFrame
    queues: pd.DataFrame
    events: pd.DataFrame
    state: pd.DataFrame
    delays: pd.DataFrame

    def flow_series(self, column: str = "send_rate_bps") -> pd.DataFrame:
        """A (time x flow) table of one flow column."""
        return self.flows.pivot(index="time_s", columns="flow", values=column)

    def state_series(self, flow: int = 0, side: str = "sender") -> pd.DataFrame:
        """One flow's control state as a (time x field) table: a row for each time a value
        changed, every field holding its latest value (missing before it was first defined)."""
        rows = self.state[(self.state["flow"] == flow) & (self.state["side"] == side)]
        wide = rows.pivot_table(
            index="time_s",
            columns="field",
            values="value",
            aggfunc="last",
            observed=True,
            sort=False,
        )
        wide = wide.sort_index().ffill()
        wide.columns = wide.columns.astype(str)
        wide.columns.name = None
        return wide


class Result:
    """What one run produced: summaries per flow and per link, traces, and provenance."""

    def __init__(self, scenario: Scenario, raw: dict, python: FlowControllers | None = None):
        self.scenario = scenario
        self.raw = raw
        self.python = python or FlowControllers({}, {})
        #: The Python controller object each flow ran, by flow index (its own instance).
        self.controllers: dict[int, object] = self.python.objects
        self.seed: int = raw["seed"]
        #: True when Ctrl-C stopped the run: the numbers cover the time it had reached.
        self.partial: bool = raw.get("partial", False)
        self.events: int = raw["events"]
        self.duration_s = raw["duration_ns"] * 1e-9
        self.warmup_s = raw["warmup_ns"] * 1e-9
        self.measured_s = self.duration_s - self.warmup_s
        #: The packet captures ``[trace] pcap`` asked for, by link name: pcap-ng files in a
        #: temporary folder that lives as long as this result; :meth:`write` copies them into
        #: the run's folder, ``pcap/LINK.pcapng`` (docs/scenarios.md, ``[trace]``).
        self.pcap: dict[str, Path] = {f["link"]: Path(f["path"]) for f in raw.get("pcap", [])}
        #: A real-time run's sockets by role ("emulator": datagrams from the hosts on their way
        #: into the emulated network; "senders", "receivers": the hosts' halves, what the network
        #: delivered to them; "kernel.bottleneck" and "kernel.bottleneck.reverse" with
        #: ``run.emulator = "kernel"``: what the kernel's queue let through), each with the
        #: datagrams lost there over the whole run: dropped by the kernel for a full receive
        #: buffer or refused by a full send buffer; and with flows of the kernel's TCP, "TUN
        #: devices": the packets their devices dropped (the kernel's receive and transmit drops)
        #: or refused. These losses are outside the emulated network, which counts none of them;
        #: None for the simulated engines.
        self.socket_drops: dict[str, int] | None = raw.get("socket_drops")

    #: The columns ``repr`` and a notebook show of :attr:`flows`.
    SHOWN = ("flow", "label", "throughput_bps", "loss_rate", "mean_delay_s", "mean_rtt_s")

    def _shown(self) -> tuple[str, pd.DataFrame]:
        from .display import columns, scenario_line

        partial = " (partial: stopped early)" if self.partial else ""
        return scenario_line(self.scenario) + partial, columns(self.flows, self.SHOWN)

    def __repr__(self) -> str:
        from .display import text

        return text("ccscope.Result", *self._shown())

    def _repr_html_(self) -> str:
        from .display import as_html

        return as_html("ccscope.Result", *self._shown())

    # The tables are built on first use: `ccscope run` writes summary.json from the rows, so a
    # run that neither plots nor traces never loads pandas.
    @functools.cached_property
    def flows(self) -> pd.DataFrame:
        """One row per flow (see `_flow_rows`)."""
        import pandas as pd

        return pd.DataFrame(self._flow_rows)

    @functools.cached_property
    def links(self) -> pd.DataFrame:
        """One row per link (see `_link_rows`)."""
        import pandas as pd

        return pd.DataFrame(self._link_rows)

    @functools.cached_property
    def trace(self) -> Trace | None:
        """The traced series, if the scenario traced any."""
        return self._trace()

    def capacity_samples(self) -> dict[int, np.ndarray]:
        """The packet-bunch capacity samples (bits/s) each rate flow's receiver took over the
        whole run, warm-up included, by flow index: flows whose source sets ``bunch >= 3``
        (Loguinov & Radha §VI-A)."""
        import numpy as np

        return {
            i: np.asarray(f["series"]["capacity_bps"])
            for i, f in enumerate(self.raw["flows"])
            if "capacity_bps" in f.get("series", {})
        }

    @functools.cached_property
    def _flow_rows(self) -> list[dict]:
        rows = []
        for i, f in enumerate(self.raw["flows"]):
            d = f["data"]
            dropped = d["queue_drops"] + d["link_losses"]
            rows.append(
                {
                    "flow": i,
                    "label": f["label"],
                    "sent_pkts": d["sent_pkts"],
                    "delivered_pkts": d["delivered_pkts"],
                    "dropped_pkts": dropped,
                    "marked_pkts": d["marked"],
                    "send_rate_bps": d["sent_bytes"] * 8 / self.measured_s,
                    "throughput_bps": d["delivered_bytes"] * 8 / self.measured_s,
                    "loss_rate": plainmetrics.ratio(dropped, d["sent_pkts"]),
                    "mean_delay_s": (
                        d["delay_sum_ns"] * 1e-9 / d["delivered_pkts"]
                        if d["delivered_pkts"]
                        else 0.0
                    ),
                    "feedback_pkts": f["feedback"]["sent_pkts"],
                    "feedback_bytes": f["feedback"]["sent_bytes"],
                    **self._transport(f),
                }
            )
        return rows

    def _transport(self, f: dict) -> dict:
        """A transport's own numbers (TCP: goodput, RTT, RTO, timeouts...), where it has them."""
        out = {**f["sender"], **f["receiver"]}
        if "goodput_pkts" in out:
            size = f["data"]["sent_bytes"] / max(f["data"]["sent_pkts"], 1)
            out["goodput_bps"] = out["goodput_pkts"] * size * 8 / self.measured_s
        if "goodput_bytes" in out:  # the kernel's TCP: what its receiving socket read
            out["goodput_bps"] = out["goodput_bytes"] * 8 / self.measured_s
        if "jitter_free_pkts" in out:
            out.update(_media(out, f["data"]))
        samples = out.pop("rtt_samples", 0)
        total = out.pop("rtt_sum_s", 0.0)
        if samples:
            out["mean_rtt_s"] = total / samples
        return out

    @functools.cached_property
    def notes(self) -> list[str]:
        """What a reader of the numbers must know, one sentence each: a real-time run that
        did not keep time, a playback that never started within the run (summary.json's
        ``notes``, printed by ``ccscope run``)."""
        rows = self._flow_rows
        notes = []
        timer = max((r.get("timer_late_p99_ms", 0.0) for r in rows), default=0.0)
        arrival = max((r.get("arrival_late_p99_ms", 0.0) for r in rows), default=0.0)
        timing = self.timing()
        if max(timer, arrival) > LATE_MS:
            notes.append(
                f"the udp engine did not keep time: timers fired up to {timer:.3g} ms late and "
                f"datagrams arrived up to {arrival:.3g} ms late (a flow's 99th percentile) "
                f"where it aims for {AIM_MS:g} ms, so the numbers describe what this machine "
                "could do rather than the scenario (fewer flows or packets per second keep time)"
                + (
                    f"; {_lost_in_sockets(self.socket_drops)}"
                    if timing and timing["socket_drops"]
                    else ""
                )
            )
        elif timing and timing["missed"]:
            notes.append(
                "the udp engine missed its timing goals: "
                + "; ".join(timing["missed"])
                + ", so delays and rates are off by that much (fewer flows or packets per "
                "second, or a quieter machine, keep them)"
            )
        startups = [
            f.get("playback", {}).get("startup")
            for f in self.scenario.table["flows"]
            for _ in range(f.get("count", 1))
        ]
        for i, (row, startup) in enumerate(zip(rows, startups, strict=True)):
            if startup is None or "session_s" not in row:
                continue
            startup_s = _core().quantity(startup)[1]
            if row["session_s"] < startup_s:
                notes.append(
                    f"flow {i}: playback never started: its start-up of {startup} after the "
                    f"first delivery outlasted the deliveries ({row['session_s']:.3g} s), so "
                    "its interruptions and frozen time say nothing"
                )
        return notes

    def timing(self) -> dict | None:
        """How well a real-time run met the udp engine's timing goals (None for the simulated
        engines): ``delay_late_p99_ms``, the largest of the flows' 99th percentiles of how late
        datagrams reached their host after the emulated network had them due (goal: at most
        :data:`AIM_MS`); ``entry_late_p99_ms``, the same of how late data datagrams entered the
        emulated network after their host sent them (a wait before the network, which its
        delays do not count; goal: at most :data:`AIM_MS`); ``rate_error``, the largest
        relative gap between the rate a flow's receiving host got by its own clock and the rate
        the emulated network delivered to it (goal: at most :data:`RATE_AIM`);
        ``socket_drops``, the datagrams lost at the run's sockets (:attr:`socket_drops`; goal:
        none); with ``run.emulator = "kernel"`` (when a flow had packets after the warm-up),
        ``release_late_p99_ms``, the largest of the
        flows' 99th percentiles of how late the emulator read packets out of the kernel's
        queues after the kernel let them through (the kernel's own timestamps; a packet read
        late leaves the bottleneck late, but its delay in the emulated network counts from when
        it should have left; goal: at most :data:`AIM_MS`); ``missed``, one phrase per goal
        missed. Flows of the kernel's TCP hand no datagram to the hosts and count in none of
        the first three."""
        if self.scenario.engine != "udp":
            return None
        rows = [r for r in self._flow_rows if r.get("host_rx_bps", 0.0) > 0.0]
        late = max((r["arrival_late_p99_ms"] for r in rows), default=0.0)
        entry = max((r.get("entry_late_p99_ms", 0.0) for r in rows), default=0.0)
        error = max(
            (abs(r["host_rx_bps"] / r["throughput_bps"] - 1) for r in rows if r["throughput_bps"]),
            default=0.0,
        )
        missed = []
        if late > AIM_MS:
            missed.append(
                f"datagrams arrived up to {late:.3g} ms late (a flow's 99th percentile; goal: "
                f"at most {AIM_MS:g} ms)"
            )
        if entry > AIM_MS:
            missed.append(
                f"datagrams entered the emulated network up to {entry:.3g} ms after they were "
                f"sent (a flow's 99th percentile; goal: at most {AIM_MS:g} ms)"
            )
        if error > RATE_AIM:
            missed.append(
                f"a receiving host got a rate {error:.2%} away from what the emulated network "
                f"delivered (goal: within {RATE_AIM:.0%})"
            )
        drops = sum((self.socket_drops or {}).values())
        if drops:
            missed.append(_lost_in_sockets(self.socket_drops))
        timing = {
            "delay_late_p99_ms": late,
            "entry_late_p99_ms": entry,
            "rate_error": error,
            "socket_drops": drops,
            "missed": missed,
        }
        released = [r["release_late_p99_ms"] for r in self._flow_rows if "release_late_p99_ms" in r]
        if released:
            timing["release_late_p99_ms"] = released = max(released)
            if released > AIM_MS:
                missed.append(
                    f"packets left the kernel's queue up to {released:.3g} ms before the "
                    f"emulator read them (a flow's 99th percentile; goal: at most {AIM_MS:g} ms)"
                )
        return timing

    @functools.cached_property
    def playback(self) -> pd.DataFrame:
        """Playback receivers' buffer levels: one row per (flow, 100 ms interval with a
        delivery), the level after the interval's last delivery."""
        import pandas as pd

        frames = [
            pd.DataFrame(
                {
                    "flow": i,
                    "time_s": f["series"]["playback_time_s"],
                    "buffer_bytes": f["series"]["playback_buffer_bytes"],
                }
            )
            for i, f in enumerate(self.raw["flows"])
            if "playback_time_s" in f.get("series", {})
        ]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    @property
    def media(self) -> pd.DataFrame:
        """The flows with a playback receiver and their media columns (empty when none)."""
        import pandas as pd

        if "interruptions" not in self.flows:
            return pd.DataFrame()
        cols = [
            "flow",
            "label",
            "throughput_bps",
            *MEDIA_COLUMNS,
            *[c for c in VIDEO_COLUMNS if c in self.flows],
        ]
        return self.flows.loc[self.flows["interruptions"].notna(), cols].reset_index(drop=True)

    @functools.cached_property
    def _link_rows(self) -> list[dict]:
        ns = self.measured_s * 1e9
        rows = []
        for i, link in enumerate(self.raw["links"]):
            drops = link["forced_drops"] + link["early_drops"]
            row = {
                "link": i,
                "name": link["name"],
                "from": link["from"],
                "to": link["to"],
                "monitor": link["monitor"],
                "rate_bps": link["rate_bps"],
                "delay_s": link["delay_ns"] * 1e-9,
                "utilization": link["busy_ns"] / ns,
                "throughput_bps": link["tx_bytes"] * 8 / self.measured_s,
                "mean_queue_pkts": link["queue_pkt_ns"] / ns,
                "mean_queue_bytes": link["queue_byte_ns"] / ns,
                "max_queue_pkts": link["max_queue_pkts"],
                "arrivals": link["arrivals"],
                "departures": link["departures"],
                "drops": drops,
                "early_drops": link["early_drops"],
                "marks": link["marks"],
                "losses": link["losses"],
                "drop_rate": plainmetrics.ratio(drops + link["losses"], link["arrivals"]),
            }
            if "sojourn_mean_ns" in link:
                row.update({f"sojourn_{k}_s": link[f"sojourn_{k}_ns"] * 1e-9 for k in SOJOURN})
            rows.append(row)
        return rows

    def _trace(self) -> Trace | None:
        t = self.raw.get("trace")
        if t is None:
            return None
        import numpy as np
        import pandas as pd

        dt = t["interval_ns"] * 1e-9
        flows = pd.DataFrame(t.get("flows", {}))
        if not flows.empty:
            flows.insert(0, "time_s", flows.pop("bin") * dt)
            flows["send_rate_bps"] = flows["sent_bytes"] * 8 / dt
            flows["throughput_bps"] = flows["delivered_bytes"] * 8 / dt
        queues = pd.DataFrame(t.get("queues", {}))
        if not queues.empty:
            queues.insert(0, "time_s", queues.pop("bin") * dt)
            names = self.links["name"].to_numpy()
            rates = self.links["rate_bps"].to_numpy()
            queues.insert(2, "name", names[queues["link"].to_numpy()])
            queues["utilization"] = queues["tx_bytes"] * 8 / dt / rates[queues["link"].to_numpy()]
        ev = t.get("events")
        events = pd.DataFrame()
        if ev is not None:
            kinds = np.asarray(ev["kind_names"])
            events = pd.DataFrame(
                {
                    "time_s": ev["time_ns"] * 1e-9,
                    "link": ev["link"],
                    "flow": ev["flow"],
                    "kind": pd.Categorical.from_codes(ev["kind"].astype(int), categories=kinds),
                }
            )
        st = t.get("state")
        state = pd.DataFrame()
        if st is not None:
            code = pd.Categorical.from_codes
            state = pd.DataFrame(
                {
                    "time_s": st["time_ns"] * 1e-9,
                    "flow": st["flow"],
                    "side": code(st["side"].astype(int), categories=["sender", "receiver"]),
                    "field": code(st["field"].astype(int), categories=list(st["field_names"])),
                    "value": st["value"],
                }
            )
        dl = t.get("delays")
        delays = pd.DataFrame()
        if dl is not None:
            delays = pd.DataFrame(
                {
                    "time_s": dl["time_ns"] * 1e-9,
                    "flow": dl["flow"],
                    "delay_s": dl["delay_ns"] * 1e-9,
                }
            )
        return Trace(dt, flows, queues, events, state, delays)

    @property
    def plot(self):
        """The standard figures (matplotlib), with titles, units and the flows' labels:
        ``result.plot()`` the overview (per class throughput, window, rate and RTT; the queue
        and its delay), ``result.plot.throughput(per="flow")``, ``.window()``, ``.rtt()``,
        ``.queue()``, ``.classes()``, ``.flows()``, ``.playback()``
        (:class:`ccscope.report.Plots`)."""
        from .report import Plots

        return Plots(self)

    @property
    def bottlenecks(self) -> pd.DataFrame:
        """The monitored links (bottlenecks and hops; not the access links)."""
        return self.links[self.links["monitor"]].reset_index(drop=True)

    def fairness(self) -> dict[str, float]:
        """Jain's index and min/max of the flows' throughputs over the measurement window."""
        return plainmetrics.fairness([f["throughput_bps"] for f in self._flow_rows])

    def flow_classes(self) -> list[str]:
        """Each flow's class, by flow index: its source kind ("tcp", "rate", "cbr",
        "poisson", ...): flows of one class answer congestion alike, or not at all."""
        return [
            f["source"]["kind"]
            for f in self.scenario.table["flows"]
            for _ in range(f.get("count", 1))
        ]

    def fairness_by_class(self) -> dict[str, dict[str, float]]:
        """:meth:`fairness` among the flows of each class (:meth:`flow_classes`), with their
        number: an unresponsive CBR flow does not weigh on the TCP flows' index."""
        by_class: dict[str, list[float]] = {}
        for c, f in zip(self.flow_classes(), self._flow_rows, strict=True):
            by_class.setdefault(c, []).append(f["throughput_bps"])
        return {c: {**plainmetrics.fairness(x), "flows": len(x)} for c, x in by_class.items()}

    def flow_records(self) -> list[dict]:
        """One dict per flow, by index, without the index: :attr:`flows`' rows as plain
        values, each with only the transport numbers its transport has (summary.json's
        ``flows``)."""
        return [
            {k: v for k, v in row.items() if k != "flow" and _present(v)}
            for row in _as_table_rows(self._flow_rows)
        ]

    def link_records(self) -> list[dict]:
        """One dict per monitored link (:attr:`bottlenecks`' rows as plain values, without the
        index: summary.json's ``links``)."""
        return [
            {
                k: v
                for k, v in row.items()
                if k not in ("link", "monitor") and (_present(v) or not k.startswith("sojourn_"))
            }
            for row in _as_table_rows(self._link_rows)
            if row["monitor"]
        ]

    def metrics(self) -> dict[str, float | int]:
        """The run's summary metrics (a sweep store's ``runs`` columns): the flows' total
        throughput and loss rate, Jain's index and min/max, the first bottleneck's utilization,
        mean queue and drop rate, and the events simulated."""
        fair = self.fairness()
        flows = self.flow_records()
        out: dict[str, float | int] = {
            "jain": fair["jain"],
            "min_max": fair["min_max"],
            "throughput_bps": plainmetrics.numpy_sum([f["throughput_bps"] for f in flows]),
            "loss_rate": plainmetrics.ratio(
                sum(f["dropped_pkts"] for f in flows), sum(f["sent_pkts"] for f in flows)
            ),
        }
        links = self.link_records()
        if links:
            first = links[0]
            out.update(
                utilization=first["utilization"],
                mean_queue_pkts=first["mean_queue_pkts"],
                drop_rate=first["drop_rate"],
            )
        out = {k: float(v) for k, v in out.items()}
        out["events"] = int(self.events)
        return out

    def summary(self) -> dict:
        """Everything summary.json holds: provenance, scenario echo, per-flow and per-link.
        A flow lists only the transport numbers its transport has."""
        return {
            **provenance(),
            "seed": self.seed,
            "scenario_sha256": scenario_hash(self.scenario.table),
            "engine": self.scenario.engine,
            "duration_s": self.duration_s,
            "warmup_s": self.warmup_s,
            "events": self.events,
            "fairness": self.fairness(),
            "fairness_by_class": self.fairness_by_class(),
            "flows": self.flow_records(),
            "links": self.link_records(),
            "scenario": self.scenario.echo(),
            **self.python.summary(),
            **({"socket_drops": self.socket_drops} if self.socket_drops is not None else {}),
            **({"notes": self.notes} if self.notes else {}),
            **({"partial": True} if self.partial else {}),
        }

    def parquet_metadata(self) -> dict:
        """What every Parquet file of the run carries (key ``ccscope``): provenance, seed,
        scenario hash and the flows' labels by index."""
        return {
            **provenance(),
            "seed": self.seed,
            "scenario_sha256": scenario_hash(self.scenario.table),
            "flow_labels": [f["label"] for f in self._flow_rows],
        }

    def write_files(self, folder: Path) -> list[Path]:
        """Writes summary.json, the traces and the playback buffers (playback.parquet) as
        Parquet files into an existing `folder`."""
        written = [write_json(folder / "summary.json", self.summary())]
        meta = self.parquet_metadata()
        if any("playback_time_s" in f.get("series", {}) for f in self.raw["flows"]):
            written.append(write_parquet(self.playback, folder / "playback.parquet", meta))
        if self.trace is not None:
            meta = self.parquet_metadata()
            for name in ("flows", "queues", "events", "state", "delays"):
                frame = getattr(self.trace, name)
                if not frame.empty:
                    written.append(write_parquet(frame, folder / f"trace_{name}.parquet", meta))
        if self.pcap:
            (folder / "pcap").mkdir(exist_ok=True)
            for link, path in self.pcap.items():
                written.append(Path(shutil.copyfile(path, folder / "pcap" / f"{link}.pcapng")))
        return written

    def write(self, out_dir: str | Path) -> list[Path]:
        """Writes summary.json, the traces and the playback buffers into `out_dir`, all at once: a
        previous run there is replaced whole, and on failure `out_dir` is left as it was
        (:mod:`ccscope.output`)."""
        with output_dir(out_dir) as tmp:
            written = self.write_files(tmp)
        return moved(written, tmp, out_dir)


#: The sojourn-time statistics of the links a run reports (monitored), as columns
#: ``sojourn_{mean,p95,p99}_s``: the wait in the queue of every packet the link served over the
#: measured part of the run, from its arrival to the start of its serialization; the mean
#: exact, the percentiles by nearest rank within 1.6% (the core.s sojourn histogram).
#: Missing (NaN in :attr:`Result.links`, absent from summary.json) on other links and on a link
#: that served nothing.
SOJOURN = ("mean", "p95", "p99")

#: How well the udp engine aims to keep time: the 99th percentile of its emulated delay's
#: error (docs/realnet.md; bench/realnet_accuracy.py measures it), ms.
AIM_MS = 0.5
#: How close to the emulated network's rate the udp engine aims to deliver to each host
#: (docs/realnet.md; bench/realnet_accuracy.py measures it): 1%.
RATE_AIM = 0.01


def _lost_in_sockets(drops: dict[str, int]) -> str:
    """The phrase for datagrams lost at a real-time run's sockets, and packets lost at its TUN
    devices (:attr:`Result.socket_drops`)."""
    where = ", ".join(f"{n} at the {socket}" for socket, n in drops.items() if n)
    return (
        f"{sum(drops.values())} datagrams or packets were lost in full socket buffers or devices "
        f"outside the emulated network ({where}; goal: none), which the flows saw as losses of "
        "the network"
    )


#: A timer or arrival later than this (a flow's 99th percentile, ms: ten times the aim) makes
#: a real-time run's result say that the run did not keep time.
LATE_MS = 10 * AIM_MS

#: Per-flow columns of a flow with a playback receiver (see ccscope.apps::playback and
#: ccscope.metrics): consumption rate, interruptions (buffer underruns, Cai et al. §V-B),
#: frozen time and its fraction of the session, the largest receiver buffer, Papadimitriou &
#: Zhang's Video Delivery Index and delayed-packet rate (§V).
MEDIA_COLUMNS = (
    "playback_rate_bps",
    "interruptions",
    "frozen_s",
    "frozen_fraction",
    "max_receiver_queue_bytes",
    "vdi",
    "delayed_pkt_rate",
)

#: Per-flow columns of a playback receiver whose packets carry production times: the longest
#: wait of a packet in the sender (Cai et al. §IV-B's d_q) and, for video, the frames decoded
#: before the end, the freeze frames (base layer incomplete at decoding time, Loguinov & Radha
#: §VI-C) and their fraction; with FGS retransmission (`retransmit = true`), the base-layer
#: packets resent on NACK, those received and those received before their frame's decoding.
VIDEO_COLUMNS = (
    "max_sender_delay_s",
    "frames",
    "freeze_frames",
    "freeze_fraction",
    "retransmissions_sent",
    "retransmissions_received",
    "retransmissions_useful",
)


def _media(receiver: dict, data: dict) -> dict:
    """A playback receiver's derived columns."""
    session = receiver["session_s"]
    delivered = receiver["jitter_free_pkts"] + receiver["delayed_pkts"]
    video = {}
    if "frames" in receiver:
        frames = receiver["frames"]
        video["freeze_fraction"] = receiver["freeze_frames"] / frames if frames else 0.0
    return {
        **video,
        "frozen_fraction": receiver["frozen_s"] / session if session > 0 else 0.0,
        "vdi": plainmetrics.video_delivery_index(receiver["jitter_free_pkts"], data["sent_pkts"]),
        "delayed_pkt_rate": plainmetrics.delayed_packet_rate(receiver["delayed_pkts"], delivered),
    }


def _present(v) -> bool:
    """Not a gap: neither None nor NaN."""
    return v is not None and v == v


def _as_table_rows(rows: list[dict]) -> list[dict]:
    """The rows as a table of them would give them back (pandas' `DataFrame(rows)` then
    `to_dict("records")`): every row has every column, in order of first appearance, a missing
    value is None, and a numeric column with a gap or a float in it holds floats."""
    columns = list(dict.fromkeys(k for row in rows for k in row))
    widened = set()
    for c in columns:
        values = [row.get(c) for row in rows]
        numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
        if len(numbers) == len(values) - sum(v is None for v in values) and (
            any(isinstance(v, float) for v in numbers) or len(numbers) < len(values)
        ):
            widened.add(c)
    return [
        {
            c: float(row[c]) if c in widened and row.get(c) is not None else row.get(c)
            for c in columns
        }
        for row in rows
    ]


def run(
    scenario: Scenario | dict | str | Path,
    controllers: dict[str, ControllerSpec] | None = None,
    progress: bool | Callable[[float, float], None] = False,
    force: bool = False,
) -> Result:
    """Runs a scenario (object, dict, or path to a TOML file) and returns its result: a
    :class:`Result` for the packet model, a :class:`ccscope.roundmodel.RoundResult` when the
    scenario says ``run.engine = "round"``.

    A flow whose controller is written in Python gets its own object: ``python:module:Object``
    is loaded from ``module.py`` beside the scenario file or in the working directory and
    called with the scenario's parameters; ``python:NAME`` is made from ``controllers[NAME]``
    (a class or factory is called once per flow, an instance deep-copied once per flow), so
    flows never share state; ``result.controllers[i]`` is the object flow i ran.

    `progress` shows a bar of simulated time (True) or is called as ``progress(done_s,
    total_s)``. Ctrl-C stops the run within a fraction of a second and raises
    :class:`ccscope.errors.Interrupted`, whose ``result`` is what was measured so far
    (``result.partial``). A Python controller that raises or gives an output outside what is
    allowed stops the run the same way, with a :class:`ccscope.ControllerError` naming the
    flow, the hook and the value, whose ``result`` is what was measured up to then.

    A scenario whose run would take more than about half an hour or 8 GB (estimated from the
    scenario, see ``ccscope.scenario.cost``) raises :class:`ccscope.CostError` with the
    estimate, unless `force` is true.
    """
    sc = coerce(scenario)
    if sc.engine == "round":
        from . import roundmodel

        return roundmodel.run(sc, controllers, progress, force)
    python = _named(sc, lambda: per_flow(sc, controllers))
    pcap_dir = None
    if (sc.table.get("trace") or {}).get("pcap") is not None:
        pcap_dir = tempfile.mkdtemp(prefix="ccscope-pcap-")
    try:
        raw = _watched(
            sc,
            lambda watch: _core().run_packet(sc.to_json(), python.by_flow, watch, force, pcap_dir),
            progress,
            "s",
        )
    except BaseException:
        if pcap_dir is not None:
            shutil.rmtree(pcap_dir, ignore_errors=True)
        raise
    result = Result(sc, raw, python)
    if pcap_dir is not None:
        weakref.finalize(result, shutil.rmtree, pcap_dir, True)
    return _checked(result)


def _named(sc: Scenario, make: Callable):
    """`make()`, its errors naming the scenario file."""
    try:
        return make()
    except ScenarioError as e:
        raise e.in_file(sc.file) from e.__cause__


def _watched(sc: Scenario, run_core: Callable, progress, unit: str) -> dict:
    """Runs the core with the progress callback `progress` asks for, naming the scenario file
    in errors."""
    from .progress import callback

    watch = callback(progress, unit)
    try:
        return run_core(watch)
    except ScenarioError as e:
        raise e.in_file(sc.file) from None
    finally:
        if hasattr(watch, "close"):
            watch.close()


def _checked(result):
    """`result`; or, when a Python controller's error stopped the run, that error carrying the
    result up to then; or :class:`Interrupted` carrying it when Ctrl-C stopped the run."""
    error = result.raw.get("error")
    if error is not None:
        error.result = result
        if isinstance(error, ScenarioError):
            raise error.in_file(result.scenario.file).with_result(result)
        raise error
    if result.partial:
        raise Interrupted(result)
    return result
