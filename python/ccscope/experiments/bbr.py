"""BBR v1's queue alone and with its own kind (draft-cardwell-iccrg-bbr-congestion-control-00;
Cardwell et al., ACM Queue 2016), and one BBR flow against CUBIC flows beside Ware, Mukerjee,
Seshan & Sherry's model (IMC 2019, (9)-(11)), BBR v1 and v3 (draft-ietf-ccwg-bbr-06) side by
side.

Set-ups: scenarios/bbr-v1-queue.toml (n = 1, 2, 4, 8 BBR v1 flows, a 500-packet buffer that they
never fill) and scenarios/bbr-vs-cubic.toml (one BBR flow against 1-16 CUBIC flows, buffers of
0.5-16 BDP), both on Ware et al.'s Fig. 2 path: 10 Mb/s, a 40 ms round trip, a BDP of 50
packets of 1000 B.
"""

from __future__ import annotations

import numpy as np

from .. import engine, theory
from ..scenario import load, shipped
from .claims import STATEMENT, THEORY, Claim, below, within

SCENARIOS = shipped()

#: The path of both scenarios: 10 Mb/s of 1000-byte packets, 2 × (18 + 1 + 1) ms.
CAPACITY_PPS = 10e6 / 8000
RTT_S = 0.040
BDP_PKTS = CAPACITY_PPS * RTT_S
#: draft-cardwell-iccrg-bbr-congestion-control-00 §4.3.4: ProbeBW's cwnd_gain.
CWND_GAIN = 2.0
#: §4.2.2: the send quantum at pacing rates from 1.2 to 24 Mb/s, two packets; cwnd adds three
#: quanta for delayed and stretched ACKs (§4.2.3.2).
QUANTUM_PKTS = 2
#: The state BBR v1 reports while in ProbeRTT (its `state` field: 0 Startup, 1 Drain, 2
#: ProbeBW, 3 ProbeRTT).
PROBE_RTT_STATE = 3.0


def queue_run(n: int, seed: int = 1) -> dict[str, float]:
    """n BBR v1 flows on scenarios/bbr-v1-queue.toml: the bottleneck's mean queue (packets),
    its utilization, and the mean interval between flow 0's entries into ProbeRTT (s; NaN with
    fewer than two)."""
    sc = load(SCENARIOS / "bbr-v1-queue.toml").replace("flows[0].count", n).with_seed(seed)
    r = engine.run(sc)
    link = r.links[r.links["name"] == "bottleneck"].iloc[0]
    state = r.trace.state
    mine = state[(state["flow"] == 0) & (state["field"] == "state")]
    entered = mine["time_s"][
        (mine["value"] == PROBE_RTT_STATE) & (mine["value"].shift() != PROBE_RTT_STATE)
    ].to_numpy()
    return {
        "queue": float(link["mean_queue_pkts"]),
        "utilization": float(link["utilization"]),
        "probe_rtt_interval": float(np.diff(entered).mean()) if entered.size > 1 else np.nan,
    }


def queue_claims(quick: bool = False) -> list[Claim]:
    """A lone flow's queue, ProbeRTT interval and utilization; n = 2, 4, 8 flows' queue
    (quick: 2, 4) against the window cap."""
    alone = queue_run(1)
    bound = float(theory.bbr_probe_queue_bound(BDP_PKTS))
    probe_share = float(theory.bbr_probe_rtt_share(RTT_S))
    interval = alone["probe_rtt_interval"]
    # RTprop's stamp moves on while samples match it: through ProbeRTT (a round trip to drain,
    # 200 ms, a round trip) and on until the queue forms again, at the latest in the next 1.25
    # phase, up to seven RTprops after ProbeBW resumes (§4.3.4.1).
    longest = 10.0 + 0.2 + (2 + 7) * RTT_S
    claims = [
        below(
            "n = 1: mean queue (packets)",
            bound,
            round(alone["queue"], 2),
            published="≤ 0.25 BDP",
            source=f"{THEORY}: draft §4.3.4.1, the 1.25 phase adds 0.25·BtlBw for one RTprop",
        ),
        Claim(
            "n = 1: mean interval between entries into ProbeRTT (s)",
            10.0,
            round(interval, 3),
            f"in [10, {longest:.2f}]: 10 s after RTprop's last matching sample, at most "
            "ProbeRTT and seven gain phases after the entry",
            10.0 <= interval <= longest,
            "" if 10.0 <= interval <= longest else "ProbeRTT does not come every 10 s",
            source=f"{THEORY}: draft §4.3.5, RTprop expires after 10 s",
        ),
        Claim(
            "n = 1: utilization",
            f"≥ {1 - probe_share:.3f}",
            round(alone["utilization"], 4),
            "at least 1 − (0.2 s + 2 RTprop)/10 s, ProbeRTT's pause",
            alone["utilization"] >= 1 - probe_share,
            "" if alone["utilization"] >= 1 - probe_share else "the link idles beyond ProbeRTT",
            source=f"{THEORY}: draft §4.3.5, 200 ms at 4 packets and a round trip every 10 s",
        ),
    ]
    shared = float(theory.bbr_shared_queue(BDP_PKTS, CWND_GAIN))
    for n in (2, 4) if quick else (2, 4, 8):
        got = queue_run(n)["queue"]
        top = shared + 3 * QUANTUM_PKTS * n
        holds = shared <= got <= top
        claims.append(
            Claim(
                f"n = {n}: mean queue (packets)",
                shared,
                round(got, 2),
                f"in [{shared:g}, {top:g}]: (cwnd_gain − 1)·BDP, plus the cap's three "
                "send quanta per flow",
                holds,
                ""
                if holds
                else f"{got:.1f} packets queued is outside the window cap's {shared:g}-{top:g}",
                source=f"{THEORY}: draft §4.2.3.2, each flow window-limited at "
                "cwnd_gain·BtlBw·RTprop + 3 quanta",
            )
        )
    return claims


#: Buffers (BDPs) and CUBIC flow counts of the full and the quick grid.
BUFFERS = (0.5, 1, 2, 4, 8, 16)
CUBIC_FLOWS = (1, 2, 4, 8, 16)
QUICK_BUFFERS = (2, 8)
QUICK_CUBIC_FLOWS = (1, 4)
#: Ware et al. report their model's median error against CUBIC as 5% (§5).
WARE_MEDIAN_ERROR = 0.05


def share(controller: str, cubic: int, buffer_bdp: float, seconds: float, seed: int = 1) -> float:
    """One `controller` flow against `cubic` CUBIC flows on scenarios/bbr-vs-cubic.toml with a
    buffer of `buffer_bdp` BDPs, `seconds` long and measured after a third of it: the BBR
    flow's share of the throughput."""
    sc = (
        load(SCENARIOS / "bbr-vs-cubic.toml")
        .replace("topology.bottleneck.queue.limit", f"{round(buffer_bdp * BDP_PKTS)}pkts")
        .replace("flows[0].source.controller", controller)
        .replace("flows[1].count", cubic)
        .replace("run.warmup", "0s")
        .replace("run.duration", f"{seconds:g}s")
        .replace("run.warmup", f"{seconds / 3:g}s")
        .with_seed(seed)
    )
    rate = engine.run(sc).flows["throughput_bps"].to_numpy()
    return float(rate[0] / rate.sum())


def cubic_claims(quick: bool = False) -> list[Claim]:
    """BBR v1's share against Ware et al.'s model over the grid (quick: 2 and 8 BDP, 1 and 4
    CUBIC flows, 300 s), its independence of the number of CUBIC flows, and v3 beside it."""
    buffers = QUICK_BUFFERS if quick else BUFFERS
    counts = QUICK_CUBIC_FLOWS if quick else CUBIC_FLOWS
    seconds = 300.0 if quick else 600.0
    grid = f"{len(buffers)} buffers × {len(counts)} CUBIC counts, {seconds:g} s"
    shares = {
        name: {(x, m): share(name, m, x, seconds) for x in buffers for m in counts}
        for name in ("bbr", "bbr3")
    }
    claims = []
    errors = []
    why = (
        "Ware et al.'s (9) puts BBR at its cap 2·BtlBw·RTprop beside a full buffer; here the "
        "buffer is not full on average and BBR's window sits below its cap, cut a packet per "
        "loss and held to packet conservation in recovery (draft §4.2.3.4), which the model "
        "leaves out; with many CUBIC flows in shallow buffers BBR loses a large part of its "
        "packets and its timeouts back off"
    )
    for x in buffers:
        model = float(theory.ware_bbr_share(x, CAPACITY_PPS, RTT_S))
        v1 = [shares["bbr"][x, m] for m in counts]
        errors += [abs(s - model) / model for s in v1]
        claims.append(
            within(
                f"{x:g} BDP: BBR v1's share against {', '.join(map(str, counts))} CUBIC flows, "
                "mean",
                round(model, 3),
                round(float(np.mean(v1)), 3),
                WARE_MEDIAN_ERROR,
                why,
                source=f"{STATEMENT}: Ware et al. §5, the model's median error against CUBIC",
            )
        )
    median = float(np.median(errors))
    claims.append(
        below(
            f"BBR v1 against Ware et al.'s model, {grid}: median relative error",
            WARE_MEDIAN_ERROR,
            round(median, 3),
            why,
            source=f"{STATEMENT}: Ware et al. §5, the model's median error against CUBIC",
        )
    )
    # The headline: the share does not follow the number of CUBIC flows. It counts as
    # independent while the share at the most CUBIC flows is nearer (in ratio) to the share at
    # the fewest than the per-flow fair share's fall, (1 + m_min)/(1 + m_max), would take it.
    fair_fall = (1 + min(counts)) / (1 + max(counts))
    for name, label in (("bbr", "v1"), ("bbr3", "v3")):
        deep = [x for x in buffers if x >= 2]
        ratio = float(
            np.mean([shares[name][x, max(counts)] / shares[name][x, min(counts)] for x in deep])
        )
        independent = ratio > np.sqrt(fair_fall)
        if label == "v1":
            claims.append(
                Claim(
                    f"BBR v1, buffers {min(deep):g}-{max(deep):g} BDP: share at {max(counts)} "
                    f"CUBIC flows over the share at {min(counts)}, mean",
                    "≈ 1 (independent of the CUBIC flows)",
                    round(ratio, 3),
                    f"above √{fair_fall:.3f} = {np.sqrt(fair_fall):.3f}: nearer 1 than the "
                    "per-flow fair share's fall",
                    independent,
                    "" if independent else "BBR v1's share falls with the CUBIC flows",
                    source=f"{STATEMENT}: Ware et al. §4, BBR's share does not depend on "
                    "the number of loss-based flows",
                )
            )
        else:
            v1_ratio = float(
                np.mean(
                    [shares["bbr"][x, max(counts)] / shares["bbr"][x, min(counts)] for x in deep]
                )
            )
            claims.append(
                Claim(
                    f"BBR v3, same: share at {max(counts)} CUBIC flows over the share at "
                    f"{min(counts)}, mean",
                    f"< v1's {v1_ratio:.3f}",
                    round(ratio, 3),
                    "below v1's: v3 bounds its inflight by the loss it sees",
                    ratio < v1_ratio,
                    "" if ratio < v1_ratio else "v3's share holds up as well as v1's",
                    source=f"{STATEMENT}: draft-ietf-ccwg-bbr-06 §5.5.10, inflight_hi set at "
                    "the inflight where loss passes 2%",
                )
            )
    return claims
