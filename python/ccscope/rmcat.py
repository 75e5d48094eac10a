"""The RMCAT test cases of RFC 8867 for any controller, measured as RFC 8868 §2 lists.

>>> from ccscope import rmcat
>>> suite = rmcat.run("tfrc")          # every case, packet engine, into a store
>>> suite["cases"]["5.1"]["delay_p95_ms"]

Each case of RFC 8867 §5 (and §6.2's ECN, §6.3's multiple bottlenecks) is a table row of
:data:`CASES`: its duration, reference bottleneck capacity and capacity schedule (start time,
ratio of the reference), one-way propagation delay, queue size in milliseconds at the
reference capacity, media flows and TCP flows, with the section each value comes from; where
the RFC leaves a value open the row says what ccscope chose (:attr:`Case.chosen`).

A media flow of a controller is built by one function, :func:`media_source`: every controller
drives the same encoder, RFC 8593 §5's synthetic video (``app.kind = "encoder"``, 150 kb/s to
1.5 Mb/s), over the transport its family runs on: a media controller (GCC, NADA, SCReAM) the
RTP media transport with its RFC 8888 or transport-wide feedback, a rate controller the rate
transport, a window controller TCP. §5.8's pause is the encoder's (``pause``/``resume``): the
flow sends nothing for 20 s and its controller keeps its state.

Each case runs through the sweep machinery into a results store (a DuckDB file, traces kept);
the per-case metrics go into its ``rmcat`` table, one row per (case, controller, TCP, engine),
so that ``ccscope report STORE`` compares controllers case by case, with figures.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .errors import ScenarioError

#: The trace bin: rates over time, freezes and convergence are measured on it.
BIN_S = 0.1
#: Media packets: the RTP payloads of a 1280-byte IPv6 minimum MTU less headers, rounded.
MEDIA_PACKET = "1200B"
#: TCP segments of an Ethernet MTU.
TCP_PACKET = "1500B"
#: Every media flow's application: RFC 8593 §5's encoder at the RFC's values (its target the
#: transport's rate, clipped to [150 kb/s, 1.5 Mb/s]).
ENCODER = {"kind": "encoder"}
#: Access links: fast, 1 ms each way (the bottleneck gets the rest of a case's delay).
ACCESS_DELAY_MS = 1.0
#: A packet later than this after leaving is useless to interactive media (ITU-T G.114's
#: upper limit of one-way delay for interactive use).
LATE_MS = 400.0
#: Convergence: the media flows' total sending rate, averaged over 1 s, within this band of
#: the capacity, and staying there 5 s (or until the next change). RFC 8868 §2 names the
#: convergence time; the band, window and hold are ccscope's.
CONVERGED_BAND = (0.8, 1.1)
CONVERGED_WINDOW_S = 1.0
CONVERGED_HOLD_S = 5.0


@dataclass(frozen=True)
class Media:
    """A media flow: `start` and `stop` (s), its direction, its own one-way delay (ms), the
    bottleneck hops it crosses, and a `pause` (from, until; s) of its encoder."""

    start: float
    stop: float
    reverse: bool = False
    delay_ms: float | None = None
    pause: tuple[float, float] | None = None
    hops: tuple[int, int] | None = None


@dataclass(frozen=True)
class Tcp:
    """TCP flows: `count` long ones (bulk) or short ones (web-like transfers of `size_kb` on
    average, `idle_s` of think time on average, exponential both), from `start` to `stop`."""

    start: float
    stop: float
    count: int = 1
    short: bool = False
    size_kb: float = 0.0
    idle_s: float = 0.0
    hops: tuple[int, int] | None = None


@dataclass(frozen=True)
class Case:
    id: str
    title: str
    section: str
    duration_s: float
    capacity_bps: float
    forward: tuple[tuple[float, float], ...] = ((0.0, 1.0),)
    backward: tuple[tuple[float, float], ...] = ((0.0, 1.0),)
    delay_ms: float = 50.0
    queue_ms: float = 300.0
    media: tuple[Media, ...] = ()
    tcp: tuple[Tcp, ...] = ()
    ecn: bool = False
    #: Bottleneck hops in series (RFC 8867 §6.3), each of the case's capacity and queue.
    hops: int = 1
    chosen: str = ""
    sources: dict[str, str] = field(default_factory=dict)


#: RFC 8867's common attributes (§5.1 to §5.8 repeat them): one-way propagation delay 50 ms,
#: DropTail bottleneck of 300 ms, no path loss; maximum end-to-end jitter 30 ms, which the
#: suite adds only when asked (:data:`RFC_JITTER`, ``run(..., jitter=...)``).
COMMON = "§5 each: 50 ms one-way, DropTail queue of 300 ms, 0% loss, at most 30 ms of jitter"
#: RFC 8867 §5's maximum end-to-end jitter, every case's.
RFC_JITTER = "30ms"
#: Where the jitter's Gaussian is clamped, in standard deviations (draft-ietf-rmcat-eval-
#: criteria-13 §4.5.3, RFC 8868's recommended N_STD): a maximum jitter of J is std = J / 3.
JITTER_N_STD = 3

CASES: tuple[Case, ...] = (
    Case(
        "5.1",
        "variable available capacity, one flow",
        "RFC 8867 §5.1, Table 1",
        100.0,
        1e6,
        forward=((0.0, 1.0), (40.0, 2.5), (60.0, 0.6), (80.0, 1.0)),
        media=(Media(0.0, 99.0),),
    ),
    Case(
        "5.2",
        "variable available capacity, two flows",
        "RFC 8867 §5.2, Table 2",
        125.0,
        2e6,
        forward=((0.0, 2.0), (25.0, 1.0), (50.0, 1.75), (75.0, 0.5), (100.0, 1.0)),
        media=(Media(0.0, 119.0), Media(0.0, 119.0)),
    ),
    Case(
        "5.3",
        "congested feedback link, bidirectional media",
        "RFC 8867 §5.3, Table 3",
        100.0,
        1e6,
        forward=((0.0, 2.0), (20.0, 1.0), (40.0, 0.5), (60.0, 2.0)),
        backward=((0.0, 2.0), (35.0, 0.8), (70.0, 2.0)),
        media=(Media(0.0, 99.0), Media(0.0, 99.0, reverse=True)),
    ),
    Case(
        "5.4",
        "competing media flows of the same controller",
        "RFC 8867 §5.4",
        120.0,
        3.5e6,
        media=(Media(0.0, 119.0), Media(20.0, 119.0), Media(40.0, 119.0)),
    ),
    Case(
        "5.5",
        "round-trip time fairness",
        "RFC 8867 §5.5",
        300.0,
        4e6,
        delay_ms=10.0,
        media=tuple(
            Media(10.0 * i, 299.0, delay_ms=d) for i, d in enumerate((10, 25, 50, 100, 150))
        ),
    ),
    Case(
        "5.6",
        "media against a long TCP flow",
        "RFC 8867 §5.6",
        120.0,
        2e6,
        media=(Media(5.0, 119.0),),
        tcp=(Tcp(0.0, 119.0),),
    ),
    Case(
        "5.6-1000ms",
        "media against a long TCP flow, 1000 ms queue",
        "RFC 8867 §5.6 (its larger queue)",
        120.0,
        2e6,
        queue_ms=1000.0,
        media=(Media(5.0, 119.0),),
        tcp=(Tcp(0.0, 119.0),),
    ),
    Case(
        "5.7",
        "media against short TCP flows",
        "RFC 8867 §5.7",
        300.0,
        2e6,
        media=(Media(5.0, 299.0), Media(5.0, 299.0)),
        tcp=(Tcp(0.0, 299.0, count=10, short=True, size_kb=40.0, idle_s=10.0),),
        chosen="short TCP transfers: exponential sizes of mean 40 kB (the RFC's 30 to 50 kB "
        "uniform has this mean) and exponential idle times of mean 10 s; every short flow "
        "starts with a transfer",
    ),
    Case(
        "5.8",
        "media pause and resume",
        "RFC 8867 §5.8",
        120.0,
        3.5e6,
        media=(Media(0.0, 119.0), Media(0.0, 119.0, pause=(40.0, 60.0)), Media(0.0, 119.0)),
        chosen="the second flow's encoder pauses: no frame from 40 s to 60 s, so its transport "
        "sends nothing and its receiver reports nothing while the controller keeps its state; "
        "at 60 s the encoder takes up the controller's target at once with a key frame",
    ),
    Case(
        "6.2",
        "ECN: case 5.1 through an ECN-marking AQM",
        "RFC 8867 §6.2 on §5.1's set-up",
        100.0,
        1e6,
        forward=((0.0, 1.0), (40.0, 2.5), (60.0, 0.6), (80.0, 1.0)),
        media=(Media(0.0, 99.0),),
        ecn=True,
        chosen="the bottleneck runs CoDel (RFC 8289 defaults) marking ECN-capable packets, "
        "within §5.1's 300 ms buffer; the media flow is ECN-capable",
    ),
    Case(
        "6.3",
        "multiple bottlenecks",
        "RFC 8867 §6.3",
        120.0,
        2e6,
        hops=2,
        media=(Media(0.0, 119.0, hops=(0, 1)),),
        tcp=(Tcp(0.0, 119.0, hops=(0, 0)), Tcp(0.0, 119.0, hops=(1, 1))),
        chosen="two bottlenecks in series, each 2 Mb/s with 25 ms and a 300 ms queue; the media "
        "flow crosses both, one long TCP flow loads each",
    ),
)

#: The cases by id.
BY_ID = {c.id: c for c in CASES}


def case(case_id: str) -> Case:
    """The case `case_id` ("5.1" ...); a :class:`ScenarioError` naming ``case`` otherwise."""
    if case_id not in BY_ID:
        raise ScenarioError.at("case", case_id, "one of " + ", ".join(BY_ID))
    return BY_ID[case_id]


# --- the flows ---------------------------------------------------------------------------------


def media_source(
    controller: str, params: dict[str, Any], pause: tuple[float, float] | None = None
) -> dict[str, Any]:
    """The source of one media flow of `controller` with `params` (its encoder paused from
    `pause[0]` to `pause[1]` s, if given): THE place where a media flow is made.

    Every controller drives RFC 8593's encoder (:data:`ENCODER`): a media controller (GCC,
    NADA, SCReAM) on the RTP media transport with the feedback it asks for, a rate controller
    on the rate transport (a Python one hearing per-RTT reports), a window controller on TCP."""
    from .scorecard import _family, rate_transport_fields

    family = _family(controller, params)
    spec = {"name": controller, **params}
    app = dict(ENCODER)
    if pause is not None:
        app |= {"pause": _s(pause[0]), "resume": _s(pause[1])}
    kind = {"media": "rtp", "window": "tcp"}.get(family, "rate")
    python = {"feedback": "per-rtt"} if kind == "rate" and controller.startswith("python:") else {}
    needs = rate_transport_fields(controller, params) if kind == "rate" else {}
    return {
        "kind": kind,
        "controller": spec,
        "packet_size": MEDIA_PACKET,
        "app": app,
        **python,
        **needs,
    }


#: TCP competitors: Reno (RFC 5681, the suite's default) and CUBIC (RFC 9438).
TCP_SOURCES: dict[str, dict[str, Any]] = {
    "reno": {"kind": "tcp", "variant": "reno", "packet_size": TCP_PACKET},
    "newreno": {"kind": "tcp", "variant": "newreno", "packet_size": TCP_PACKET},
    "cubic": {
        "kind": "tcp",
        "variant": "sack",
        "packet_size": TCP_PACKET,
        "controller": {"name": "cubic"},
    },
}


def _ms(x: float) -> str:
    return f"{x:g}ms"


def _s(x: float) -> str:
    return f"{x:g}s"


def _bps(x: float) -> str:
    return f"{x:.0f}bps"


def _queue(c: Case, rate_bps: float) -> dict[str, Any]:
    """The case's bottleneck queue: `queue_ms` of the reference capacity in bytes (the RFC
    gives the size in time; a router's buffer is bytes, so it is fixed at the reference)."""
    limit = f"{max(int(c.queue_ms * 1e-3 * rate_bps / 8), 1500)}B"
    if c.ecn:
        return {"kind": "codel", "limit": limit, "ecn": True}
    return {"kind": "droptail", "limit": limit}


def _link(c: Case, schedule, delay_ms: float, scale: float) -> dict[str, Any]:
    first, *rest = schedule
    link = {
        "rate": _bps(c.capacity_bps * first[1]),
        "delay": _ms(delay_ms),
        "queue": _queue(c, c.capacity_bps),
    }
    if rest:
        link["capacity_changes"] = [
            {"at": _s(at * scale), "rate": _bps(c.capacity_bps * r)} for at, r in rest
        ]
    return link


def jitter_model(jitter: str) -> dict[str, Any]:
    """A link's jitter (``topology.*.jitter``) whose largest delay variation is `jitter` (a
    time, e.g. RFC 8867's "30ms"): RFC 8868 §4.5's truncated Gaussian clamped at
    :data:`JITTER_N_STD` standard deviations, a flow's packets in order (NR-RPVD, §4.5.2)."""
    from . import _core

    parsed = _core.quantity(jitter)
    if parsed is None or parsed[0] != "time" or not 0 < parsed[1] <= 3 * JITTER_N_STD:
        raise ScenarioError.at(
            "jitter", jitter, f"a time in (0, {3 * JITTER_N_STD}s], e.g. '{RFC_JITTER}'"
        )
    return {"std": f"{parsed[1] / JITTER_N_STD * 1e3:.6g}ms", "n_std": JITTER_N_STD}


def scenario(
    case_id: str,
    controller: str,
    params: dict[str, Any] | None = None,
    tcp: str = "reno",
    engine: str = "packet",
    seed: int = 1,
    scale: float = 1.0,
    jitter: str | None = None,
) -> dict[str, Any]:
    """The scenario table of case `case_id` with media flows of `controller` (flows in the
    order of the case's media, then its TCP flows); `scale` < 1 shrinks every time of the case
    (a smoke test on real packets, not RFC 8867's case). With `jitter` (the largest delay
    variation, RFC 8867's "30ms"), every bottleneck link, each way, adds :func:`jitter_model`
    to every flow's packets (media and TCP alike, none reordered, as RFC 8868 §4.5 asks of
    competing flows)."""
    c = case(case_id)
    if tcp not in TCP_SOURCES:
        raise ScenarioError.at("tcp", tcp, "one of " + ", ".join(TCP_SOURCES))
    if not 0 < scale <= 1:
        raise ScenarioError.at("scale", scale, "a number in (0, 1]")
    params = dict(params or {})
    access = {"rate": "1Gbps", "delay": _ms(ACCESS_DELAY_MS)}
    if c.hops > 1:
        hop = c.delay_ms / c.hops - 2 * ACCESS_DELAY_MS / c.hops
        topology = {
            "kind": "parking_lot",
            "hops": [_link(c, c.forward, hop, scale) for _ in range(c.hops)],
            "access": access,
        }
    else:
        # One-way propagation: access (1 ms) + bottleneck + access (1 ms); in §5.5 each
        # flow's own access link adds the rest of its delay.
        bottleneck = c.delay_ms - 2 * ACCESS_DELAY_MS
        topology = {
            "kind": "dumbbell",
            "bottleneck": _link(c, c.forward, bottleneck, scale),
            "reverse": _link(c, c.backward, bottleneck, scale),
            "access": access,
        }
    if jitter is not None:
        model = jitter_model(jitter)
        for link in topology.get("hops", []) + [
            topology[k] for k in ("bottleneck", "reverse") if k in topology
        ]:
            link["jitter"] = dict(model)
    flows = []
    for m in c.media:
        pause = None if m.pause is None else (m.pause[0] * scale, m.pause[1] * scale)
        flow: dict[str, Any] = {
            "source": media_source(controller, params, pause),
            "start": _s(m.start * scale),
            "stop": _s(m.stop * scale),
        }
        if m.reverse:
            flow["reverse"] = True
        if m.delay_ms is not None:
            flow["left_delay"] = _ms(m.delay_ms - c.delay_ms + ACCESS_DELAY_MS)
        if m.hops is not None:
            flow["hops"] = list(m.hops)
        if c.ecn:
            flow["ecn"] = True
        flows.append(flow)
    for t in c.tcp:
        flow = {
            "source": dict(TCP_SOURCES[tcp]),
            "start": _s(t.start * scale),
            "stop": _s(t.stop * scale),
        }
        if t.count > 1:
            flow["count"] = t.count
        if t.short:
            # A transfer of `size_kb` on average: ON periods of 1 s at size_kb·8 kb/s.
            flow["source"]["app"] = {
                "kind": "onoff",
                "rate": f"{t.size_kb * 8:g}kbps",
                "on": "1s",
                "off": _s(t.idle_s * scale),
                "distribution": "exponential",
                "transfers": True,
            }
        if t.hops is not None:
            flow["hops"] = list(t.hops)
        flows.append(flow)
    return {
        "run": {"duration": _s(c.duration_s * scale), "seed": seed, "engine": engine},
        "topology": topology,
        "flows": flows,
        "trace": {"interval": _s(BIN_S), "flows": True, "queues": True, "delays": True},
    }


# --- the metrics -------------------------------------------------------------------------------


def capacity(c: Case, times: np.ndarray, reverse: bool = False, scale: float = 1.0) -> np.ndarray:
    """The case's bottleneck capacity (b/s) at each of `times` (s): its schedule's ratio in
    force then times the reference capacity."""
    schedule = c.backward if reverse else c.forward
    starts = np.array([at * scale for at, _ in schedule])
    ratios = np.array([r for _, r in schedule])
    return c.capacity_bps * ratios[np.searchsorted(starts, times, side="right") - 1]


def fairness(x: np.ndarray) -> tuple[float, float]:
    """Jain's index and min/max of the shares `x` (:mod:`ccscope.metrics`; RFC 8868 §2 asks for
    fairness among flows), NaN both when every share is zero."""
    from .metrics import jain_index, min_max_ratio

    if not np.any(x):
        return float("nan"), float("nan")
    return jain_index(x), min_max_ratio(x)


def convergence_times(
    t: np.ndarray, rate: np.ndarray, cap: np.ndarray, events: list[float], end: float
) -> list[float]:
    """After each of `events` (s), the time until the `rate` series (b/s, sampled at `t`),
    averaged over :data:`CONVERGED_WINDOW_S`, enters :data:`CONVERGED_BAND` of `cap` and stays
    there for :data:`CONVERGED_HOLD_S` or until the next event (or `end`); inf if never."""
    window = max(int(round(CONVERGED_WINDOW_S / BIN_S)), 1)
    kernel = np.ones(window) / window
    mean = np.convolve(rate, kernel, mode="full")[: len(rate)]
    mean[: window - 1] = np.nan  # a full window only
    low, high = CONVERGED_BAND
    inside = (mean >= low * cap) & (mean <= high * cap)
    out = []
    bounds = sorted(events) + [end]
    for k, at in enumerate(bounds[:-1]):
        following = bounds[k + 1]
        found = float("inf")
        for i in np.flatnonzero((t >= at) & (t < following)):
            if not inside[i]:
                continue
            stay = (t >= t[i]) & (t < min(t[i] + CONVERGED_HOLD_S, following))
            if inside[stay].all():
                # A bin's rate is known at the bin's end: that is when the mean got there.
                found = float(t[i] + BIN_S - at)
                break
        out.append(found)
    return out


def _active(t: np.ndarray, m: Media, scale: float) -> np.ndarray:
    """Whether the media flow `m` sends at each of `t`: between its start and stop, out of its
    pause."""
    on = (t >= m.start * scale) & (t < m.stop * scale)
    if m.pause is not None:
        on &= (t < m.pause[0] * scale) | (t >= m.pause[1] * scale)
    return on


def case_metrics(
    c: Case,
    trace: pd.DataFrame,
    delays: pd.DataFrame,
    flows: pd.DataFrame,
    scale: float = 1.0,
) -> dict[str, Any]:
    """RFC 8868 §2's metrics of one run of case `c` from its flow trace (100 ms bins), its
    delay log and its per-flow table (rows in flow order, with ``feedback_bytes``):

    - ``rate_over_capacity``: the media flows' delivered rate over the capacity of their
      bottleneck, per bin while a media flow of that direction is active, averaged (over both
      directions in §5.3);
    - ``delay_p50_ms``, ``delay_p95_ms``, ``delay_p99_ms``: one-way delay percentiles of the
      media packets (from leaving the sender to arriving);
    - ``loss``: media packets lost over sent;
    - ``feedback_kbps`` and ``feedback_ratio``: the media receivers' reports on the wire, as a
      rate over the run and over the media bytes delivered;
    - ``late_fraction``: media packets more than :data:`LATE_MS` late; ``freeze_fraction``: the
      share of a media flow's active bins (after its first second, out of its pause) in which
      none of its packets arrived within :data:`LATE_MS`;
    - ``frame_delay_p95_ms``: the largest of the media flows' 95th percentile frame delays
      (capture to a frame's last byte: the sender's queue counts), and ``video_freezes``: their
      W3C freezes (a pause's gap is one), from the per-flow table where the encoder reports;
    - ``convergence_s``: per capacity change and per media flow's arrival, pause or
      resumption, the time until the media flows' total sending rate is within the band
      (:func:`convergence_times`; inf, None in :func:`run`'s results, if never), where no TCP
      shares the path; ``convergence_mean_s`` the mean of those that came, ``never_converged``
      how many did not;
    - ``jain``, ``min_max``: among the media flows' mean rates over the bins where all are
      active; ``tcp_ratio``: the media flows' mean rate over the long TCP flows' mean rate
      over the bins where all are active, ``jain_with_tcp`` among both;
    - ``utilization``: everything delivered over the capacity, forward path (one bottleneck
      only)."""
    n_media = len(c.media)
    t_all = np.sort(trace["time_s"].unique())
    by_flow = {
        f: g.set_index("time_s").reindex(t_all, fill_value=0)
        for f, g in trace.groupby("flow", sort=True)
    }

    def series(f: int, column: str) -> np.ndarray:
        g = by_flow.get(f)
        return np.zeros(len(t_all)) if g is None else g[column].to_numpy(dtype=float)

    groups = range(n_media)
    active = {g: _active(t_all, c.media[g], scale) for g in groups}
    rate = {g: series(g, "throughput_bps") for g in groups}
    send = {g: series(g, "send_rate_bps") for g in groups}
    out: dict[str, Any] = {"case": c.id}
    ratios = []
    for reverse in sorted({m.reverse for m in c.media}):
        mine = [g for g in groups if c.media[g].reverse == reverse]
        on = np.logical_or.reduce([active[g] for g in mine])
        cap = capacity(c, t_all, reverse, scale)
        total = sum(rate[g] for g in mine)
        ratios.append(float(np.mean(total[on] / cap[on])) if on.any() else float("nan"))
    out["rate_over_capacity"] = float(np.mean(ratios))
    media_delays = delays[delays["flow"] < n_media]["delay_s"].to_numpy() * 1e3
    for q in (50, 95, 99):
        out[f"delay_p{q}_ms"] = (
            float(np.percentile(media_delays, q)) if media_delays.size else float("nan")
        )
    sent = sum(series(i, "sent_pkts").sum() for i in range(n_media))
    lost = sum(series(i, "lost_pkts").sum() for i in range(n_media))
    out["loss"] = float(lost / sent) if sent else float("nan")
    media_rows = flows.iloc[:n_media]
    feedback = float(media_rows["feedback_bytes"].sum())
    delivered = sum(series(i, "delivered_bytes").sum() for i in range(n_media))
    duration = c.duration_s * scale
    out["feedback_kbps"] = feedback * 8 / duration / 1e3
    out["feedback_ratio"] = feedback / delivered if delivered else float("nan")
    out["late_fraction"] = (
        float((media_delays > LATE_MS).mean()) if media_delays.size else float("nan")
    )
    frozen = active_bins = 0
    in_time = delays[(delays["flow"] < n_media) & (delays["delay_s"] * 1e3 <= LATE_MS)]
    for g in groups:
        arrived = in_time[in_time["flow"] == g]["time_s"].to_numpy()
        bins = np.unique(np.floor(arrived / BIN_S + 1e-9).astype(int))
        on = np.flatnonzero(active[g])
        # Bins of a flow's first second are its start-up, not a freeze.
        on = on[t_all[on] >= c.media[g].start * scale + 1.0]
        active_bins += len(on)
        frozen += len(np.setdiff1d(np.round(t_all[on] / BIN_S).astype(int), bins))
    out["freeze_fraction"] = frozen / active_bins if active_bins else float("nan")
    if "frame_delay_p95_s" in media_rows:
        # The encoder's frames, as its receiver played them (capture to last byte, sender's
        # queue included): the worst flow's 95th percentile, and W3C freezes of all flows.
        out["frame_delay_p95_ms"] = float(media_rows["frame_delay_p95_s"].max() * 1e3)
        out["video_freezes"] = float(media_rows["video_freezes"].sum())
    if not c.tcp and c.hops == 1:
        # A pause frees capacity as a departure does, a resumption takes it as an arrival.
        last = max(m.stop for m in c.media)
        events = sorted(
            {at * scale for at, _ in c.forward}
            | {m.start * scale for m in c.media if not m.reverse}
            | {m.stop * scale for m in c.media if not m.reverse and m.stop < last}
            | {t * scale for m in c.media if not m.reverse and m.pause for t in m.pause}
        )
        forward = [g for g in groups if not c.media[g].reverse]
        total_send = sum(send[g] for g in forward)
        end = max(c.media[g].stop for g in forward) * scale
        times = convergence_times(t_all, total_send, capacity(c, t_all, False, scale), events, end)
        done = [x for x in times if np.isfinite(x)]
        out["convergence_s"] = times
        out["convergence_mean_s"] = float(np.mean(done)) if done else float("nan")
        out["never_converged"] = len(times) - len(done)
    all_on = np.logical_and.reduce([active[g] for g in groups])
    # Fairness among the media flows that share the forward bottleneck.
    shared = [g for g in groups if not c.media[g].reverse]
    shared_on = np.logical_and.reduce([active[g] for g in shared])
    if len(shared) > 1 and shared_on.any():
        means = np.array([rate[g][shared_on].mean() for g in shared])
        out["jain"], out["min_max"] = fairness(means)
    long_tcp = [n_media + k for k, t in enumerate(_expanded_tcp(c)) if not t.short]
    if long_tcp:
        tcp_on = np.logical_and.reduce(
            [(t_all >= t.start * scale) & (t_all < t.stop * scale) for t in _expanded_tcp(c)]
        )
        both = all_on & tcp_on
        media_means = np.array([rate[g][both].mean() for g in groups])
        tcp_means = np.array([series(f, "throughput_bps")[both].mean() for f in long_tcp])
        out["tcp_ratio"] = (
            float(media_means.mean() / tcp_means.mean()) if tcp_means.any() else float("nan")
        )
        out["jain_with_tcp"] = fairness(np.concatenate([media_means, tcp_means]))[0]
    if c.hops > 1:
        return out
    cap = capacity(c, t_all, False, scale)
    forward_flows = [i for i, m in enumerate(c.media) if not m.reverse]
    forward_flows += list(range(n_media, n_media + len(_expanded_tcp(c))))
    everything = sum(series(f, "throughput_bps") for f in forward_flows)
    out["utilization"] = float(np.mean(everything / cap))
    return out


def _expanded_tcp(c: Case) -> list[Tcp]:
    """The case's TCP flows one by one (a `count` of them is that many flows)."""
    return [t for t in c.tcp for _ in range(t.count)]


# --- the suite ---------------------------------------------------------------------------------


def default_store() -> Path:
    """Where the suite keeps its runs: $XDG_CACHE_HOME/ccscope/rmcat-model<N>.duckdb, one store
    per model version (a store holds the runs of one)."""
    from . import _core

    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "ccscope" / f"rmcat-model{_core.MODEL_VERSION}.duckdb"


#: The engines the suite runs on.
ENGINES = ("packet", "udp")


def run(
    controller: str,
    params: dict[str, Any] | None = None,
    cases: list[str] | None = None,
    engine: str = "packet",
    tcp: str = "reno",
    seed: int = 1,
    store: str | Path | None = None,
    jobs: int | None = None,
    scale: float = 1.0,
    jitter: str | None = None,
) -> dict[str, Any]:
    """Runs the cases `cases` (default all of :data:`CASES`) with media flows of `controller`
    (a controller of the catalogue, or ``python:module:Object``) on `engine` ("packet" or
    "udp") against TCP `tcp` ("reno", "newreno" or "cubic"), with the path's `jitter` if given
    (:func:`scenario`; RFC 8867's is :data:`RFC_JITTER`), into `store` (default
    :func:`default_store`; runs already there are not run again), and records each case's
    metrics (:func:`case_metrics`) in the store's ``rmcat`` table. Returns ``{"controller",
    "params", "engine", "tcp", "seed", "jitter", "store", "cases": {id: metrics}}``."""
    from . import sweep
    from .scorecard import _display, _family
    from .store import Store, writable

    params = dict(params or {})
    family = _family(controller, params)
    shown = _display(controller, params, family)
    if jitter is not None:
        jitter_model(jitter)
        shown = f"{shown}, jitter {jitter}"
    if engine not in ENGINES:
        raise ScenarioError.at("engine", engine, "one of " + ", ".join(ENGINES))
    chosen = [case(c) for c in (cases or list(BY_ID))]
    path = writable(store if store is not None else _made(default_store()))
    tasks = {}
    for c in chosen:
        table = scenario(c.id, controller, params, tcp, engine, seed, scale, jitter)
        sw = sweep.Sweep.from_dict({"base": table, "seeds": [seed], "traces": True})
        done = sweep.run(sw, path, 1 if engine == "udp" else jobs)
        if done.failed:
            error = next(iter(done.errors.values()))
            raise ScenarioError(f"RFC 8867 case {c.id} with {shown} failed: {error}")
        tasks[c.id] = sw.tasks()[0].run_id
    runs = sweep.load(path).set_index("run_id")
    flows = sweep.load(path, "flows")
    results = {}
    rows = []
    for c in chosen:
        run_id = tasks[c.id]
        folder = Path(runs.loc[run_id, "trace_dir"])
        metrics = case_metrics(
            c,
            pd.read_parquet(folder / "trace_flows.parquet"),
            pd.read_parquet(folder / "trace_delays.parquet"),
            flows[flows["run_id"] == run_id].sort_values("flow").reset_index(drop=True),
            scale,
        )
        metrics = _finite(metrics)
        results[c.id] = metrics
        rows.append(
            {
                "case": c.id,
                "controller": shown,
                # The path's jitter is part of what was run: a run with it keeps its own row.
                "spec": json.dumps(
                    {"name": controller, **params, **({"path_jitter": jitter} if jitter else {})},
                    sort_keys=True,
                ),
                "tcp": tcp,
                "engine": engine,
                "scale": scale,
                "run_id": run_id,
                "metrics": json.dumps(metrics),
            }
        )
    with Store(path) as db:
        db.replace_rows("rmcat", ("case", "spec", "tcp", "engine", "scale"), rows)
    return {
        "controller": shown,
        "params": params,
        "engine": engine,
        "tcp": tcp,
        "seed": seed,
        "jitter": jitter,
        "store": str(path),
        "cases": results,
    }


def _finite(x: Any) -> Any:
    """`x` with every NaN or infinite number (a metric the case has no data for, a
    convergence that never came) made None, so that no NaN reaches a result or its JSON."""
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_finite(v) for v in x]
    if isinstance(x, (float, np.floating)):
        return float(x) if np.isfinite(x) else None
    if isinstance(x, np.integer):
        return int(x)
    return x


def _made(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


#: The columns of a suite's table: (metric, heading, format).
COLUMNS = (
    ("rate_over_capacity", "rate/capacity", "{:.3f}"),
    ("delay_p50_ms", "delay p50 (ms)", "{:.0f}"),
    ("delay_p95_ms", "delay p95 (ms)", "{:.0f}"),
    ("loss", "loss", "{:.4f}"),
    ("feedback_kbps", "feedback (kb/s)", "{:.1f}"),
    ("freeze_fraction", "frozen", "{:.3f}"),
    ("frame_delay_p95_ms", "frame delay p95 (ms)", "{:.0f}"),
    ("video_freezes", "freezes", "{:.0f}"),
    ("convergence_mean_s", "converge (s)", "{:.1f}"),
    ("never_converged", "never", "{:d}"),
    ("jain", "Jain (media)", "{:.3f}"),
    ("min_max", "min/max (media)", "{:.3f}"),
    ("tcp_ratio", "media/TCP", "{:.3f}"),
)


def cell(metrics: dict[str, Any], key: str, fmt: str) -> str:
    """One metric as the tables show it: "—" where the case has none (or it is not a number)."""
    x = metrics.get(key)
    if x is None or (isinstance(x, float) and not np.isfinite(x)):
        return "—"
    return fmt.format(x)


def table(suite: dict[str, Any]):
    """The suite's results for the terminal (a rich table), one row per case."""
    from rich.table import Table

    out = Table(
        title=f"RFC 8867 cases: {suite['controller']} ({suite['engine']} engine, TCP "
        f"{suite['tcp']})",
        title_justify="left",
        caption="; ".join(f"{c}: {BY_ID[c].title}" for c in suite["cases"])
        + f". Runs in {suite['store']}; `ccscope report {suite['store']}` draws them. "
        f"converge: mean time to {CONVERGED_BAND[0]:g}-{CONVERGED_BAND[1]:g} of the capacity "
        "after each change or arrival; never: how many never did; frozen: share of 100 ms "
        f"bins with no packet within {LATE_MS:g} ms",
        caption_justify="left",
    )
    out.add_column("case", justify="left")
    for _, heading, _ in COLUMNS:
        out.add_column(heading, justify="right")
    for case_id, m in suite["cases"].items():
        out.add_row(case_id, BY_ID[case_id].title, *(cell(m, k, f) for k, _, f in COLUMNS))
    return out


# --- one table for many controllers ------------------------------------------------------------

#: The seeds' media and rate controllers, TCP (Reno) as a media flow, and today's media
#: controllers (GCC, NADA, SCReAM, SCReAMv2), at their defaults (GAIMD at Yang & Lam's β = 7/8).
HEADLINE: tuple[tuple[str, dict], ...] = (
    ("tfrc", {}),
    ("tear", {}),
    ("rap", {}),
    ("ssvp", {}),
    ("ssvp-adp", {}),
    ("iscc", {}),
    ("rate-aimd", {}),
    ("dtaimd", {}),
    ("gaimd", {"beta": 0.875}),
    ("tcp", {}),
    ("gcc", {}),
    ("nada", {}),
    ("scream", {}),
    ("scream2", {}),
)

#: The headline table's columns: (case, metric, heading, format).
HEADLINE_COLUMNS = (
    ("5.1", "rate_over_capacity", "rate/capacity (5.1)", "{:.3f}"),
    ("5.1", "delay_p95_ms", "delay p95, ms (5.1)", "{:.0f}"),
    ("5.1", "loss", "loss (5.1)", "{:.4f}"),
    ("5.1", "freeze_fraction", "frozen (5.1)", "{:.3f}"),
    ("5.1", "frame_delay_p95_ms", "frame delay p95, ms (5.1)", "{:.0f}"),
    ("5.2", "jain", "Jain, 2 media (5.2)", "{:.3f}"),
    ("5.4", "jain", "Jain, 3 media (5.4)", "{:.3f}"),
    ("5.6", "tcp_ratio", "media/TCP (5.6)", "{:.3f}"),
    ("5.6-1000ms", "tcp_ratio", "media/TCP, 1 s queue (5.6)", "{:.3f}"),
)


def headline(
    controllers: tuple[tuple[str, dict], ...] = HEADLINE,
    engine: str = "packet",
    tcp: str = "reno",
    store: str | Path | None = None,
    jobs: int | None = None,
) -> dict[str, Any]:
    """Every controller of `controllers` (name, parameters) through the cases of
    :data:`HEADLINE_COLUMNS`, one row each: ``{"engine", "tcp", "store", "columns", "rows"}``."""
    rows = []
    cases = list(dict.fromkeys(c for c, _, _, _ in HEADLINE_COLUMNS))
    for name, params in controllers:
        suite = run(name, dict(params), cases, engine=engine, tcp=tcp, store=store, jobs=jobs)
        rows.append(
            {
                "controller": suite["controller"],
                **{f"{c}:{k}": suite["cases"][c].get(k) for c, k, _, _ in HEADLINE_COLUMNS},
            }
        )
        store = suite["store"]
    return {
        "engine": engine,
        "tcp": tcp,
        "store": store,
        "columns": {f"{c}:{k}": h for c, k, h, _ in HEADLINE_COLUMNS},
        "rows": rows,
    }


def headline_markdown(table_: dict[str, Any]) -> str:
    """:func:`headline`'s table in Markdown (the docs' RMCAT page)."""
    lines = [
        "| controller | " + " | ".join(h for _, _, h, _ in HEADLINE_COLUMNS) + " |",
        "| --- |" + " --- |" * len(HEADLINE_COLUMNS),
    ]
    for row in table_["rows"]:
        cells = [cell({"x": row[f"{c}:{k}"]}, "x", f) for c, k, _, f in HEADLINE_COLUMNS]
        lines.append(f"| {row['controller']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# --- the HTML report ---------------------------------------------------------------------------


def ran_into(store: Path) -> bool:
    """Whether the suite ran into the sweep store `store` (it has rows of RFC 8867 cases)."""
    from .store import Store

    with Store(store, read_only=True) as db:
        return not db.table("rmcat").empty


def report_section(store: Path, page) -> None:
    """Adds the RFC 8867 part of the HTML page of a store the suite ran into to `page` (a
    :class:`ccscope.htmlreport.Page`; nothing for any other store): per case,
    a table of the controllers' metrics, each controller's media rates against the capacity
    over time, and its media packets' one-way delay over time, as interactive figures."""
    import html

    from .htmlreport import _table
    from .store import Store
    from .views import Line, Panel, View

    with Store(store, read_only=True) as db:
        rows = db.table("rmcat")
        runs = db.table("runs").set_index("run_id")
    if rows.empty:
        return
    page.add(
        "<h2>RFC 8867 test cases, controller by controller</h2>",
        "<p>Metrics after RFC 8868 §2 (<code>ccscope rmcat</code>, "
        "<code>ccscope.rmcat.case_metrics</code> defines each). Media rates are each flow's "
        "delivered rate, averaged over 1 s, beside the bottleneck capacity (and the backward "
        "path's, where media flows both ways).</p>",
    )
    for case_id in [c for c in BY_ID if c in set(rows["case"])]:
        c = BY_ID[case_id]
        mine = rows[rows["case"] == case_id].sort_values(["controller", "tcp", "engine"])
        shown = pd.DataFrame(
            [
                {
                    "controller": r.controller,
                    "TCP": r.tcp,
                    "engine": r.engine,
                    **{h: cell(json.loads(r.metrics), k, f) for k, h, f in COLUMNS},
                }
                for r in mine.itertuples()
            ]
        )
        page.add(
            f"<h3>{html.escape(case_id)}: {html.escape(c.title)} ({html.escape(c.section)})</h3>",
            f"<p>{html.escape(c.chosen)}</p>" if c.chosen else "",
            _table(shown),
        )
        panels, delays = [], []
        for r in mine.itertuples():
            run = f"{r.controller} (TCP {r.tcp}, {r.engine})"
            folder = Path(runs.loc[r.run_id, "trace_dir"])
            trace = pd.read_parquet(folder / "trace_flows.parquet")
            scale = float(r.scale)
            lines = []
            for flow, g in trace.groupby("flow"):
                media = flow < len(c.media)
                smooth = g["throughput_bps"].rolling(int(1 / BIN_S), min_periods=1).mean()
                name = f"media {flow}" if media else f"TCP {flow - len(c.media)}"
                lines.append(Line(g["time_s"].tolist(), (smooth / 1e6).tolist(), name, name))
            t = np.sort(trace["time_s"].unique())
            forward = capacity(c, t, False, scale) / 1e6
            lines.append(Line(t.tolist(), forward.tolist(), "capacity", "capacity", step=True))
            if any(m.reverse for m in c.media):
                back = capacity(c, t, True, scale) / 1e6
                lines.append(Line(t.tolist(), back.tolist(), "backward", "backward", step=True))
            panels.append(Panel(run, "Mb/s", lines))
            d = pd.read_parquet(folder / "trace_delays.parquet")
            d = d[d["flow"] < len(c.media)]
            per = d.groupby((d["time_s"] // 1.0) * 1.0)["delay_s"].quantile(0.95)
            delays.append(Line(per.index.tolist(), (per * 1e3).tolist(), run, run))
        colors = {"capacity": "#000000", "backward": "#7f7f7f"}
        page.figure(
            View(f"Case {case_id}: media rates against the capacity", panels, colors=colors)
        )
        delay = Panel("one-way delay of the media packets", "p95 per s (ms)", delays)
        page.figure(View(f"Case {case_id}: the media packets' one-way delay", [delay]))
