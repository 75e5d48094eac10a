"""The AQMs deployed today with long-lived TCP, and FQ-CoDel's isolation of a media flow.

- ``codel-rfc8289`` and ``pie-rfc8033`` (scenarios/codel-rfc8289.toml, scenarios/pie-rfc8033.toml):
  four long-lived TCP flows (Reno's AIMD(1, 1/2) with SACK recovery, or CUBIC) through CoDel or
  PIE at their defaults at 10 and 100 Mb/s with round trips of 20, 100 and 200 ms, against
  DropTail with a buffer of one bandwidth-delay product. CoDel holds the standing queue at or
  below TARGET = 5 ms (RFC 8289 §3.2, §4.4); PIE's proportional-integral control drives the
  queueing delay to QDELAY_REF = 15 ms (RFC 8033 §4.2). Each claim is a mean over seeds 1-10 (the
  flows' start times are drawn from the seed).
- ``fq-codel-isolation`` (scenarios/fq-codel-isolation.toml): a media flow (CBR at 1 Mb/s, or a
  TFRC flow) beside eight bulk CUBIC flows on 10 Mb/s, DropTail of one BDP against FQ-CoDel at
  its defaults. FQ-CoDel serves a queue that has just become active before the others (RFC
  8290 §4.2's new list) and shares the link by deficit round robin: the media flow gets its
  share, 1/9 of the link, at the delay of a packet on the wire (RFC 8290 §1, §6).

The sojourn time is the link's (Result.links' ``sojourn_mean_s``): each packet's wait from its
arrival at the bottleneck to the start of its serialization. A media flow's queueing delay is
its mean one-way delay less the same flow's alone on the path.
"""

from __future__ import annotations

import numpy as np

from .. import engine, theory
from ..scenario import load, shipped
from .claims import SEEDS, STATEMENT, THEORY, Claim
from .cubic import _t975

SCENARIOS = shipped()
#: Seeds whose spread is the tolerance of every row.
SEED_SET = tuple(range(1, 11))
#: Packet size of every flow (bytes) and the access links' one-way delay (s), as the scenarios.
PACKET_BYTES, ACCESS_S = 1000, 0.001
#: The RFCs' targets (s): RFC 8289 §4.4 TARGET, RFC 8033 §4.2 QDELAY_REF.
TARGETS = {"codel": 0.005, "pie": 0.015}
#: CoDel's INTERVAL (s), RFC 8289 §4.5.
INTERVAL_S = 0.1
#: Bulk controllers: the catalogue's TCP (Reno's AIMD(1, 1/2), SACK recovery) and CUBIC.
CONTROLLERS = {"Reno": "tcp", "CUBIC": "cubic"}
#: The AIMD(α, β) each grows at least as fast as and cuts to: Reno's (1, 1/2); CUBIC's β_cubic =
#: 0.7 and the Reno-friendly α = 3(1 − β)/(1 + β) its window never falls below (RFC 9438 §4.3,
#: §4.6).
AIMD = {"Reno": (1.0, 0.5), "CUBIC": (3 * 0.3 / 1.7, 0.7)}
#: Bulk flows in each run (scenarios/codel-rfc8289.toml, scenarios/pie-rfc8033.toml).
FLOWS = 4
#: (rate Mb/s, RTT ms) of the full grid and of the quick form; run and warm-up lengths (s).
FULL_GRID = [(r, t) for r in (10, 100) for t in (20, 100, 200)]
QUICK_GRID = [(10, 100)]
FULL_RUN, QUICK_RUN = (120, 30), (30, 10)


def _mean_ci(x: list[float]) -> tuple[float, float]:
    """The mean of `x` and the half-width of its 95% confidence interval (Student's t)."""
    a = np.asarray(x, dtype=float)
    return float(a.mean()), float(_t975(len(a) - 1) * a.std(ddof=1) / np.sqrt(len(a)))


def bottleneck_run(
    aqm: str, queue: dict, rate: int, rtt: int, controller: str, seed: int, run: tuple[int, int]
) -> tuple[float, float]:
    """One run of scenarios/{aqm}-*.toml with `queue` at the bottleneck: the mean sojourn time
    (s) and the utilization."""
    file = {"codel": "codel-rfc8289.toml", "pie": "pie-rfc8033.toml"}[aqm]
    delay_ms = rtt / 2 - 2 * ACCESS_S * 1e3
    sc = (
        load(SCENARIOS / file)
        .replace("topology.bottleneck.rate", f"{rate}Mbps")
        .replace("topology.bottleneck.delay", f"{delay_ms:g}ms")
        .replace("topology.bottleneck.queue", queue)
        .replace("flows[0].source.controller", controller)
        .replace("run.warmup", f"{run[1]}s")
        .replace("run.duration", f"{run[0]}s")
        .with_seed(seed)
    )
    link = engine.run(sc).links.iloc[0]
    return float(link["sojourn_mean_s"]), float(link["utilization"])


def in_phase_utilization(aqm: str, rate: int, rtt: int, name: str) -> tuple[float, float]:
    """The utilization of the four flows cutting in phase, as one AIMD flow growing by four
    times a flow's α a round trip, with the AQM's target as its buffer: Cai et al. (24) (one
    for a buffer above B'), with B' in packets. Desynchronized cuts keep the link busier, so
    this is a lower bound."""
    alpha, beta = AIMD[name]
    r = rate * 1e6 * rtt * 1e-3 / (8 * PACKET_BYTES)
    b = TARGETS[aqm] * rate * 1e6 / (8 * PACKET_BYTES)
    a = FLOWS * alpha
    b_prime = float(theory.cai_buffer_threshold(a, beta, r))
    return float(theory.cai_single_flow_utilization(a, beta, r, b)), b_prime


def _aqm_rows(aqm: str, rate: int, rtt: int, name: str, run: tuple[int, int]) -> list[Claim]:
    bdp = round(rate * 1e6 * rtt * 1e-3 / (8 * PACKET_BYTES))
    droptail = {"kind": "droptail", "limit": f"{bdp}pkts"}
    runs = {
        q: [bottleneck_run(aqm, queue, rate, rtt, CONTROLLERS[name], s, run) for s in SEED_SET]
        for q, queue in (("aqm", {"kind": aqm}), ("droptail", droptail))
    }
    sojourn, sojourn_ci = _mean_ci([r[0] for r in runs["aqm"]])
    dt_sojourn, _ = _mean_ci([r[0] for r in runs["droptail"]])
    util, util_ci = _mean_ci([r[1] for r in runs["aqm"]])
    dt_util, _ = _mean_ci([r[1] for r in runs["droptail"]])
    bound, b_prime = in_phase_utilization(aqm, rate, rtt, name)
    target = TARGETS[aqm]
    measured_s = run[0] - run[1]
    where = f"{name}, {rate} Mb/s, {rtt} ms RTT, mean of seeds 1-{len(SEED_SET)}, {run[0]} s"
    label = {"codel": "CoDel", "pie": "PIE"}[aqm]
    rfc = {"codel": "RFC 8289 §3.2, §4.4", "pie": "RFC 8033 §4.2"}[aqm]
    # Why a mean can stand above the target: CoDel acts on the minimum over an interval and
    # first drops one packet an interval; PIE's p rises in steps scaled down while it is small.
    growth_ms = FLOWS * (INTERVAL_S / (rtt * 1e-3)) * PACKET_BYTES * 8 / (rate * 1e6) * 1e3
    above = (
        f"CoDel holds the minimum sojourn over each {INTERVAL_S * 1e3:g}-ms interval at the "
        f"target ({rfc}), not the mean: at a {rtt} ms round trip the {FLOWS} flows' windows "
        f"grow by {FLOWS * INTERVAL_S / (rtt * 1e-3):g} packets ({growth_ms:.1f} ms of queue at "
        f"{rate} Mb/s) within one interval, while the control law starts at one drop an interval"
        if aqm == "codel"
        else "PIE's integral action balances α(delay − target) divided by §4.2's scale for the "
        "p of each update, with rises capped at 2% above p = 10% (RFC 8033 §5.5), not the delay "
        "itself; the likely cause, where the flows' small windows need a p that moves across "
        "the scale's steps: rises taken at a smaller p, with a larger divisor, need delays "
        "further above the target than the falls below it"
    )
    shorter = (
        f"one BDP at a {rtt} ms round trip is {rtt} ms of buffer, and DropTail's queue averages "
        f"{dt_sojourn * 1e3:.1f} ms, below the {target * 1e3:g} ms the AQM aims at"
        if dt_sojourn < target
        else "unexpected: the AQM's queue is not the shorter"
    )
    idle_ms = (1 - util) * measured_s * 1e3
    # Busy time is counted in whole packets' serializations.
    util_tol = util_ci + PACKET_BYTES * 8 / (rate * 1e6) / measured_s
    busy = (
        "unexpected: below (24)'s bound for in-phase flows"
        if bound < 1
        else f"(24) gives full use once the buffer exceeds B' = {b_prime:.1f} packets (the target "
        f"holds {target * rate * 1e6 / (8 * PACKET_BYTES):.1f}); the link idled {idle_ms:.0f} "
        f"ms of the {measured_s} s measured, DropTail with one BDP "
        f"{(1 - dt_util) * measured_s * 1e3:.0f} ms"
    )
    alpha, beta = AIMD[name]
    return [
        Claim(
            f"{label} mean sojourn (ms), {where}",
            round(target * 1e3, 4),
            round(sojourn * 1e3, 4),
            f"at most, + {sojourn_ci * 1e3:.3g} (95% CI)",
            sojourn - sojourn_ci <= target,
            "" if sojourn - sojourn_ci <= target else above,
            source=STATEMENT
            + f": the target the AQM holds the queueing delay to ({rfc}), with the 95% CI "
            f"of the mean over seeds 1-{len(SEED_SET)}",
        ),
        Claim(
            f"{label} mean sojourn below DropTail's with one BDP ({bdp} pkts), {where}",
            f"below {dt_sojourn * 1e3:.4g} ms",
            round(sojourn * 1e3, 4),
            "below",
            sojourn < dt_sojourn,
            "" if sojourn < dt_sojourn else shorter,
            source=STATEMENT + f": the AQM controls bufferbloat's excess delay ({rfc})",
        ),
        Claim(
            f"{label} utilization, {where}",
            round(bound, 4),
            round(util, 4),
            f"at least, + {util_tol:.3g} (95% CI and one packet); DropTail with one BDP: "
            f"{dt_util:.4f}",
            util + util_tol >= bound,
            "" if util + util_tol >= bound else busy,
            source=THEORY
            + f": Cai et al. 2005 (24), the {FLOWS} flows cutting in phase as one AIMD("
            f"{FLOWS}×{alpha:.3g}, {beta:g}) flow with the target's {target * 1e3:g} ms as its "
            "buffer, a lower bound; the 95% CI of the mean over seeds 1-"
            f"{len(SEED_SET)} and one packet's serialization in the measured interval",
        ),
    ]


def _aqm_claims(aqm: str, quick: bool) -> list[Claim]:
    grid, run = (QUICK_GRID, QUICK_RUN) if quick else (FULL_GRID, FULL_RUN)
    return [
        claim
        for rate, rtt in grid
        for name in CONTROLLERS
        for claim in _aqm_rows(aqm, rate, rtt, name, run)
    ]


def codel_claims(quick: bool = False) -> list[Claim]:
    """RFC 8289: CoDel's mean sojourn at most its 5-ms target, below DropTail's with one BDP,
    and the link as busy as DropTail keeps it, for Reno and CUBIC at 10 and 100 Mb/s and
    20-200 ms round trips (quick: 10 Mb/s, 100 ms)."""
    return _aqm_claims("codel", quick)


def pie_claims(quick: bool = False) -> list[Claim]:
    """RFC 8033: PIE's mean sojourn at most its 15-ms target, below DropTail's with one BDP,
    and the link as busy as DropTail keeps it, on the grid of :func:`codel_claims`."""
    return _aqm_claims("pie", quick)


# --- FQ-CoDel's isolation -----------------------------------------------------------------------

#: The isolation set-up: capacity (b/s), bulk flows, the CBR media rate (b/s).
CAPACITY_BPS, BULK, CBR_BPS = 10e6, 8, 1e6
#: FQ-CoDel's default quantum (bytes): one Ethernet MTU (RFC 8290 §4.2, Linux psched_mtu).
QUANTUM_BYTES = 1514
#: The media flows: a CBR source below its share, and TFRC (RFC 5348) beside the bulk flows.
MEDIA = {
    "CBR 1 Mb/s": {"kind": "cbr", "rate": "1Mbps"},
    "TFRC": {"kind": "rate", "controller": "tfrc"},
}
FULL_ISOLATION, QUICK_ISOLATION = (60, 20), (20, 5)


def isolation_run(
    queue: dict | None, media: dict, seed: int, run: tuple[int, int]
) -> tuple[float, float]:
    """scenarios/fq-codel-isolation.toml with `queue` at the bottleneck and `media` as flow 0
    (with no bulk flows when `queue` is None): the media flow's mean one-way delay (s) and
    throughput (b/s)."""
    sc = (
        load(SCENARIOS / "fq-codel-isolation.toml")
        .replace("flows[0].source", media)
        .replace("run.warmup", f"{run[1]}s")
        .replace("run.duration", f"{run[0]}s")
        .with_seed(seed)
    )
    if queue is None:
        sc = sc.replace("flows", [sc.table["flows"][0]])
    else:
        sc = sc.replace("topology.bottleneck.queue", queue)
    f = engine.run(sc).flows.iloc[0]
    return float(f["mean_delay_s"]), float(f["throughput_bps"])


def _isolation_rows(name: str, run: tuple[int, int]) -> list[Claim]:
    media = MEDIA[name]
    base, _ = isolation_run(None, media, 1, run)
    rtt_s = 2 * (0.023 + 2 * ACCESS_S)
    bdp = round(CAPACITY_BPS * rtt_s / (8 * PACKET_BYTES))
    runs = {
        q: [isolation_run(queue, media, s, run) for s in SEED_SET]
        for q, queue in (
            ("fq", {"kind": "fq_codel"}),
            ("droptail", {"kind": "droptail", "limit": f"{bdp}pkts"}),
        )
    }
    wait, _ = _mean_ci([r[0] - base for r in runs["fq"]])
    dt_wait, _ = _mean_ci([r[0] - base for r in runs["droptail"]])
    rate, rate_ci = _mean_ci([r[1] for r in runs["fq"]])
    dt_rate, _ = _mean_ci([r[1] for r in runs["droptail"]])
    share = CAPACITY_BPS / (BULK + 1)
    published_rate = min(share, CBR_BPS) if media["kind"] == "cbr" else share
    # A media packet waits for its own queue, which CoDel holds near its target, and for at
    # most one round of the bulk queues, each sending a quantum and at most one packet more.
    round_ms = BULK * (QUANTUM_BYTES + PACKET_BYTES) * 8 / CAPACITY_BPS * 1e3
    bound_ms = TARGETS["codel"] * 1e3 + round_ms
    where = (
        f"{name} beside {BULK} CUBIC flows, 10 Mb/s, mean of seeds 1-{len(SEED_SET)}, {run[0]} s"
    )
    # A rate measured over the interval is counted in whole packets.
    count_bps = PACKET_BYTES * 8 / (run[0] - run[1])
    rate_tol = rate_ci + count_bps
    holds_rate = abs(rate - published_rate) <= rate_tol
    return [
        Claim(
            f"FQ-CoDel: media queueing delay (ms), {where}",
            round(bound_ms, 4),
            round(wait * 1e3, 4),
            "at most",
            wait * 1e3 <= bound_ms,
            ""
            if wait * 1e3 <= bound_ms
            else "unexpected: the media flow waits longer than a "
            "round of the bulk queues and its own queue at CoDel's target",
            source=THEORY
            + ": its own queue at CoDel's 5-ms target (RFC 8290 §4.3) and one round of deficit "
            f"round robin, {BULK} queues each sending at most a quantum and one packet more "
            "(Shreedhar & Varghese, SIGCOMM 1995), an upper bound",
        ),
        Claim(
            f"FQ-CoDel: media queueing delay below DropTail's with one BDP ({bdp} pkts), {where}",
            f"below {dt_wait * 1e3:.4g} ms",
            round(wait * 1e3, 4),
            "below",
            wait < dt_wait,
            "" if wait < dt_wait else "unexpected: the media flow waits no less under FQ-CoDel",
            source=STATEMENT + ": FQ-CoDel isolates low-rate flows from bulk ones (RFC 8290 §1)",
        ),
        Claim(
            f"FQ-CoDel: media throughput (b/s), {where}",
            round(published_rate, 1),
            round(rate, 1),
            f"± {rate_tol:.4g} (95% CI and one packet)",
            holds_rate,
            ""
            if holds_rate
            else f"TFRC's equation rate (RFC 5348 §3.1) from the loss events CoDel gives its own "
            f"queue: {rate / share:.3f} of the share; under DropTail it gets {dt_rate:.4g} b/s",
            source=SEEDS + f": the 95% CI of the mean over seeds 1-{len(SEED_SET)} and one "
            "packet over the measured interval (the count's resolution), about the flow's "
            "share, 1/9 of the link, or its own rate below it (RFC 8290 §1, §6)",
        ),
    ]


def fq_codel_claims(quick: bool = False) -> list[Claim]:
    """RFC 8290: a media flow (CBR below its share, or TFRC) beside eight bulk CUBIC flows gets
    its share of the link under FQ-CoDel at the delay of a packet on the wire, against DropTail
    with one BDP of buffer."""
    run = QUICK_ISOLATION if quick else FULL_ISOLATION
    return [claim for name in MEDIA for claim in _isolation_rows(name, run)]
