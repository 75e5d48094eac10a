"""Vegas's equilibrium: each flow keeps between α and β packets queued (Brakmo & Peterson,
JSAC 1995, §3.2), so n flows hold a standing queue of nα to nβ packets and share the link
within β/α of each other, whatever their RTTs (Mo, La, Anantharam & Walrand, INFOCOM 1999, §3),
where Reno favours the shorter round trip.

Set-ups: scenarios/vegas-equilibrium.toml (n = 1…16 flows, packet engine; the round model on a
link of the same 51 packets per RTT) and scenarios/vegas-rtt-bias.toml (round trips of 20 ms and
100 ms, Vegas against Reno).
"""

from __future__ import annotations

import numpy as np

from .. import engine, roundmodel, theory
from ..controllers import catalogue
from ..scenario import load, shipped
from .claims import STATEMENT, Claim

SCENARIOS = shipped()

#: The round model's link: the dumbbell's 1250 packets/s times its 41 ms base RTT.
ROUND_CAPACITY_PKTS = 51.0


def thresholds() -> tuple[float, float]:
    """Vegas's α and β as the catalogue's vegas entry runs them by default (packets)."""
    entry = next(e for e in catalogue() if e["name"] == "vegas")
    default = {p["name"]: p["default"] for p in entry["params"]}
    return default["alpha"], default["beta"]


def packet_equilibrium(n: int, seed: int = 1) -> dict[str, float]:
    """n Vegas flows on scenarios/vegas-equilibrium.toml: the bottleneck's mean queue per flow
    (packets), its utilization and the ratio of the fastest flow's throughput to the
    slowest's."""
    sc = load(SCENARIOS / "vegas-equilibrium.toml").replace("flows[0].count", n).with_seed(seed)
    return equilibrium_of(engine.run(sc), n)


def equilibrium_of(r, n: int) -> dict[str, float]:
    """:func:`packet_equilibrium`'s measures of a run `r` of `n` flows."""
    link = r.links[r.links["name"] == "bottleneck"].iloc[0]
    rate = r.flows["throughput_bps"]
    return {
        "per_flow": float(link["mean_queue_pkts"]) / n,
        "utilization": float(link["utilization"]),
        "ratio": float(rate.max() / rate.min()),
    }


def round_equilibrium(n: int, steps: int = 2000) -> float:
    """n Vegas flows in the round model on the dumbbell's link: the mean queue per flow over
    the second half (packets)."""
    r = roundmodel.run(
        {
            "run": {"engine": "round", "steps": steps, "warmup_steps": steps // 2},
            "link": {"capacity_pkts": ROUND_CAPACITY_PKTS, "buffer": "300pkts"},
            "flows": [{"controller": "vegas", "count": n, "initial_window": 1}],
            "record": {"every": 1},
        }
    )
    return float(np.mean(r.series["queue_pkts"].to_numpy()[steps // 2 :])) / n


def rtt_ratio(controller: str, seed: int) -> float:
    """scenarios/vegas-rtt-bias.toml with both flows running `controller`: the 20 ms flow's
    throughput over the 100 ms flow's."""
    sc = load(SCENARIOS / "vegas-rtt-bias.toml").with_seed(seed)
    for i in (0, 1):
        sc = sc.replace(f"flows[{i}].source.controller", controller)
    rate = engine.run(sc).flows["throughput_bps"]
    return float(rate.iloc[0] / rate.iloc[1])


def claims(quick: bool = False) -> list[Claim]:
    """The standing queue per flow within [α, β] for n = 1…16 (quick: 1, 4, 16) in both
    engines, the throughput spread within β/α, and the two-RTT ratio under Vegas and Reno over
    seeds 1-10 (quick: 1-3)."""
    alpha, beta = thresholds()
    band = f"[{alpha:g}, {beta:g}]"
    ns = (1, 4, 16) if quick else tuple(range(1, 17))
    shown = f"n = {', '.join(map(str, ns))}" if quick else "n = 1…16"
    packet = [packet_equilibrium(n) for n in ns]
    per_flow = [p["per_flow"] for p in packet]
    rounds = [round_equilibrium(n) for n in ns]
    spread = max(p["ratio"] for p in packet)
    bound = float(theory.vegas_rate_ratio_bound(alpha, beta))
    seeds = range(1, 4) if quick else range(1, 11)
    vegas = float(np.mean([rtt_ratio("vegas", s) for s in seeds]))
    reno = float(np.mean([rtt_ratio("tcp", s) for s in seeds]))
    over = f"mean of seeds {seeds[0]}-{seeds[-1]}"

    def within(values: list[float]) -> bool:
        return alpha <= min(values) and max(values) <= beta

    def queue_claim(engine_name: str, values: list[float], key: str = "") -> Claim:
        holds = within(values)
        return Claim(
            f"{engine_name}, {shown}: mean standing queue per flow (packets), least–most",
            band,
            f"{min(values):.3f}–{max(values):.3f}",
            "within [α, β] (Brakmo & Peterson §3.2: the band Vegas steers Diff into)",
            holds,
            "" if holds else f"a flow count leaves {min(values):.3f}–{max(values):.3f} per flow",
            source=f"{STATEMENT}: Brakmo & Peterson §3.2, Vegas keeps between α and β packets "
            "queued",
            key=key,
        )

    return [
        queue_claim("packet engine", per_flow, "queue"),
        queue_claim("round model", rounds),
        Claim(
            f"packet engine, {shown}: fastest flow's throughput over the slowest's, largest",
            bound,
            round(spread, 3),
            "at most β/α (Mo et al. 1999: every backlog x_i·q in [α, β] at one q)",
            spread <= bound,
            "" if spread <= bound else "two flows keep backlogs further apart than [α, β]",
            source=f"{STATEMENT}: Mo et al. 1999, every flow's backlog in [α, β] at equilibrium",
            key="spread",
        ),
        Claim(
            f"Vegas({alpha:g},{beta:g}), RTTs 20 and 100 ms: throughput ratio, {over}",
            f"≤ {bound:g}",
            round(vegas, 3),
            "at most β/α (Mo et al. 1999: no RTT bias)",
            vegas <= bound,
            "" if vegas <= bound else "the short flow keeps more than β/α times the long one's",
            source=f"{STATEMENT}: Mo et al. 1999, Vegas has no RTT bias in equilibrium",
            key="rtt/Vegas",
        ),
        Claim(
            f"Reno, RTTs 20 and 100 ms: throughput ratio, {over}",
            f"> {bound:g}",
            round(reno, 3),
            "above Vegas's bound β/α (Mo et al. 1999: Reno is biased against long round trips)",
            reno > bound,
            "" if reno > bound else "Reno shared the link within Vegas's bound",
            source=f"{STATEMENT}: Mo et al. 1999, Reno is biased against long round trips",
            key="rtt/Reno",
        ),
    ]
