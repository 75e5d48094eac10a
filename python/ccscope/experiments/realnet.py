"""The papers' set-ups on real packets (``run.engine = "udp"``), each beside the packet engine
on the same scenario: the udp engine's accuracy on a small dumbbell, and Loguinov & Radha's
packet-bunch capacity estimates (§VI-A, Fig. 7), which they measured on their Cisco testbed.

These run in real time: a claim's numbers differ from run to run, and the run takes its
duration in wall time.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .claims import Claim, within
from .loguinov import T1_BPS, fig7_scenario, histogram_peak
from .papadimitriou import FIG3_COV, fig3_cov

SCENARIOS = Path(__file__).resolve().parents[3] / "scenarios"


def _both(table: dict) -> tuple:
    """The scenario `table` run in real time and in the packet engine."""
    from ..engine import run
    from ..scenario import Scenario

    sc = Scenario.from_dict(table)
    return run(sc.replace("run.engine", "udp")), run(sc.replace("run.engine", "packet"))


def accuracy_claims(quick: bool = False) -> list[Claim]:
    """One TCP SACK flow and one rate AIMD flow over an emulated 2 Mb/s, 40 ms path
    (scenarios/realnet-two-flows.toml): each flow's throughput and loss rate, and the mean
    one-way delay, on real packets within 10% of the packet engine's on the same file, as
    means over three runs of 30 s (seeds 1-3). Quick: one 5 s run, the flows' total
    throughput and the mean delay (how they split the link varies more in 4 s)."""
    from ..scenario import load

    base = load(SCENARIOS / "realnet-two-flows.toml")
    seeds, duration = ([1], "5s") if quick else ([1, 2, 3], "30s")
    real, sim = [], []
    for seed in seeds:
        table = base.with_seed(seed).replace("run.duration", duration).table
        r, s = _both(table)
        real.append(r.flows)
        sim.append(s.flows)

    def mean(frames: list, column: str, flow: int | None = None) -> float:
        values = [f[column].sum() if flow is None else f.loc[flow, column] for f in frames]
        return float(np.mean(values))

    def delay(frames: list) -> float:
        return float(np.mean([np.average(f["mean_delay_s"], weights=f["delivered_pkts"])
                              for f in frames]))

    runs = f"mean of {len(seeds)} run(s) of {duration}"
    claims = [
        within(f"flows' total throughput on real packets vs the packet engine (b/s), {runs}",
               mean(sim, "throughput_bps"), mean(real, "throughput_bps"), 0.10),
        within(f"mean one-way delay on real packets vs the packet engine (s), {runs}",
               delay(sim), delay(real), 0.10),
    ]
    if not quick:
        for flow, name in ((0, "TCP SACK"), (1, "rate AIMD(1,1/2)")):
            claims += [
                within(f"{name}: throughput on real packets vs the packet engine (b/s), {runs}",
                       mean(sim, "throughput_bps", flow), mean(real, "throughput_bps", flow),
                       0.10),
                within(f"{name}: loss rate on real packets vs the packet engine, {runs}",
                       mean(sim, "loss_rate", flow), mean(real, "loss_rate", flow), 0.10),
            ]
    return claims


def fig7_udp_claims(quick: bool = False) -> list[Claim]:
    """Loguinov & Radha Fig. 7 on real packets: packet-bunch capacity estimates of 2 and of 8
    AIMD(1, 1/2) flows on an emulated T1 (Fig. 6's path as ``loguinov-fig7`` builds it); the
    histogram's peak within 3% of the T1's 1.544 Mb/s, as the paper's testbed estimates were
    (1510 kb/s), beside the packet engine's. 60 s per run (quick: 10 s)."""
    duration = 10.0 if quick else 60.0
    claims = []
    for n in (2, 8):
        real, sim = _both(fig7_scenario(n, 5, duration))
        peaks = [histogram_peak(np.concatenate(list(r.capacity_samples().values())))
                 for r in (real, sim)]
        claims.append(within(f"{n} flows: histogram peak of the capacity estimates on real "
                             f"packets (b/s; packet engine {peaks[1]:.0f})", T1_BPS, peaks[0],
                             0.03))
    return claims


def fig3_udp_claims(quick: bool = False) -> list[Claim]:
    """Papadimitriou & Zhang Fig. 3 on real packets (SSVP runs over UDP, §III): three MPEG-4
    flows of SSVP, then of SSVP-ADP, on the 1 Mb/s, 64 ms path of ``papadimitriou-fig3``; the
    CoV of each flow's 150-ms sending rate within 30% of the packet engine's on the same file
    (the paper's own values, 0.0868 and 0.0581, are ``papadimitriou-fig3``'s to compare). The
    file's 202 s per protocol (quick: 30 s)."""
    duration = "30s" if quick else None
    claims = []
    for controller in FIG3_COV:
        real = fig3_cov(controller, "udp", duration)[0]
        sim = fig3_cov(controller, "packet", duration)[0]
        claims.append(within(f"{controller}: CoV of the 150-ms sending rate on real packets vs "
                             "the packet engine", round(sim, 4), round(real, 4), 0.30))
    return claims
