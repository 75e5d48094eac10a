"""Yang, Kim & Lam 2003 at packet level: Fig. 6's smoothness, CoV_time of one flow's per-RTT
sending rate at 1% Bernoulli loss, for TCP, GAIMD(0.31, 0.875), TFRC (the June 2000 ns-2 code
they ran) and TEAR, in their §3.3.1 set-up; and with workloads, the ON/OFF loss model (§2.1,
§3.3) and the transient after half the flows leave (§5.2, Figs. 27-29).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .. import engine, metrics
from ..scenario import load
from .claims import Claim, below, within

#: One RTT: 100 ms of propagation plus serialization; the bin CoV_time is taken over.
BIN_S = 0.104

#: Yang & Lam's TCP-friendly GAIMD pair.
GAIMD = {"name": "gaimd", "alpha": 0.31, "beta": 0.875}

#: Fig. 6 at 1% loss: the source of each curve and its CoV_time as printed.
FIG6 = {
    "TCP": ({"kind": "tcp", "controller": "tcp"}, 0.51),
    "GAIMD(0.31,0.875)": ({"kind": "tcp", "controller": GAIMD}, 0.30),
    "TFRC": ({"kind": "rate", "controller": "tfrc-2000", "jitter": 0.1}, 0.23),
    "TEAR": ({"kind": "rate", "controller": "tear", "jitter": 0.1}, 0.22),
}


def smoothness_scenario(source: dict, seed: int, p: float = 0.01) -> dict:
    """Yang et al. §3.3.1: one flow over a 2.5 Mb/s, 30 ms bottleneck with Bernoulli loss p,
    10 ms access links, DropTail 50 packets; 1000 s measured after 10 s, traced per RTT."""
    return {
        "run": {"duration": "1000s", "warmup": "10s", "seed": seed},
        "topology": {"kind": "dumbbell",
                     "bottleneck": {"rate": "2.5Mbps", "delay": "30ms",
                                    "queue": {"kind": "droptail", "limit": "50pkts"},
                                    "loss": {"kind": "bernoulli", "p": p}},
                     "access": {"rate": "100Mbps", "delay": "10ms"}},
        "flows": [{"source": source}],
        "trace": {"interval": f"{BIN_S * 1000:g}ms", "queues": False},
    }


def cov_time(source: dict, seed: int, p: float = 0.01):
    """CoV_time of the flow's per-RTT sending rate after the warm-up, and the run's per-flow
    table."""
    from ..engine import run

    r = run(smoothness_scenario(source, seed, p))
    fl = r.trace.flows
    return metrics.cov(fl[fl.time_s >= 10].sent_pkts.to_numpy()), r.flows


def fig6_claims(quick: bool = False) -> list[Claim]:
    """Fig. 6 at 1% loss: each CoV_time within 25% of the printed value (the seed farthest
    from it, of 1 and 2, or 1 to 5), TFRC and TEAR below TCP and GAIMD, and the set-up's RTT
    equal to the 104 ms bins within 2%."""
    seeds = (1, 2) if quick else (1, 2, 3, 4, 5)
    claims, mean = [], {}
    for name, (source, printed) in FIG6.items():
        runs = [cov_time(source, seed) for seed in seeds]
        covs = np.array([c for c, _ in runs])
        worst = covs[np.argmax(np.abs(covs - printed))]
        mean[name] = covs.mean()
        claims.append(within(f"{name}: CoV_time at 1%, worst of seeds {seeds[0]}–{seeds[-1]}",
                             printed, float(worst), 0.25))
        if name == "TCP":
            rtt = float(runs[0][1].mean_rtt_s[0])
            claims.append(within("TCP: mean RTT against the 104 ms bin", BIN_S, rtt, 0.02))
    smooth = max(mean["TFRC"], mean["TEAR"])
    rough = min(mean["TCP"], mean["GAIMD(0.31,0.875)"])
    claims.append(Claim("TFRC and TEAR smoother than TCP and GAIMD (mean CoV_time)",
                        "TFRC, TEAR < TCP, GAIMD", f"{smooth:.3f} < {rough:.3f}", "below",
                        smooth < rough, "" if smooth < rough else "unexpected: not smoother"))
    return claims


#: Table 1 as printed: CoV_time at 2% and 20% Bernoulli loss (§3.3.1) and the aggressiveness
#: bound I (packets/RTT per RTT, §5.1; TFRC's is without history discounting, its default).
TABLE1 = {
    "TCP": {"cov_2": 0.58, "cov_20": 1.7, "I": 1.0},
    "GAIMD(0.31,0.875)": {"cov_2": 0.26, "cov_20": 1.7, "I": 0.31},
    "TFRC": {"cov_2": 0.22, "cov_20": 2.0, "I": 0.12},
    "TEAR": {"cov_2": 0.2, "cov_20": 0.4, "I": 1 / 12},
}

#: Aggressiveness (§5.2, Figs. 23 and 25): Bernoulli loss steps from 10% to 0% at 400 s; I is
#: the slope of the per-RTT sending rate over the next 30 RTTs.
STEP_S, STEP_FROM, STEP_TO, STEP_RTTS = 400.0, 0.10, 0.0, 30

#: Why a Table 1 smoothness value at 20% loss does not reproduce: what was measured (mean of
#: seeds 1–5) and what is known of the cause.
COV_20_WHY = {
    "TCP": "ccscope's TCP at 20% Bernoulli loss measures CoV_time 0.98, the analysis (B.2) at "
           "t = 4 gives 1.87 and Table 1 prints 1.7; the gap is not diagnosed yet (at 20% "
           "timeouts dominate, so the RTO's minimum and back-off set how many bins stay empty)",
    "GAIMD(0.31,0.875)": "0.89 measured against 1.7, not diagnosed yet; GAIMD shares TCP's "
                         "timeouts, which dominate at 20%",
    "TFRC": "TFRC-2000 collapses below one packet per RTT as Yang et al. report, but its "
            "CoV_time is 1.05, half of the printed 2; not diagnosed yet",
    "TEAR": "TEAR stays smooth at 20% as Yang et al. report, but smoother than printed: "
            "CoV_time 0.19 against 0.4; not diagnosed yet",
}


def aggressiveness_scenario(source: dict, seed: int) -> dict:
    """§5.2's step (Figs. 23, 25): Bernoulli loss 10% until 400 s, then none; traced per RTT
    until 30 RTTs after the step."""
    sc = smoothness_scenario(source, seed)
    sc["topology"]["bottleneck"]["loss"] = {"kind": "schedule", "steps": [
        {"at": "0s", "p": STEP_FROM}, {"at": f"{STEP_S:g}s", "p": STEP_TO}]}
    sc["run"]["duration"] = f"{STEP_S + (STEP_RTTS + 2) * BIN_S:g}s"
    return sc


def aggressiveness_of(sent: np.ndarray) -> float:
    """I: the least-squares slope (packets/RTT per RTT) of the per-RTT packets sent over the 30
    RTTs after the step (Yang et al. §5), from one flow's per-RTT trace."""
    first = int(round(STEP_S / BIN_S))
    y = np.asarray(sent, dtype=float)[first:first + STEP_RTTS]
    return float(np.polyfit(np.arange(y.size), y, 1)[0])


def aggressiveness(source: dict, seed: int) -> float:
    """I of one flow in :func:`aggressiveness_scenario`."""
    from ..engine import run

    return aggressiveness_of(run(aggressiveness_scenario(source, seed)).trace.flows.sent_pkts)


def table1_claims(quick: bool = False) -> list[Claim]:
    """Table 1's smoothness and aggressiveness rows for TCP, GAIMD, TFRC and TEAR: CoV_time at
    2% within 25% of the printed value and at 20% likewise (mean over seeds 1–2, or 1–5); I at
    most its printed bound (§5.1: "what we derive is an upper bound", mean over seeds 1–3, or
    1–6) and ordered TCP > GAIMD > TFRC > TEAR (§5.2, Table 1)."""
    seeds = (1, 2) if quick else (1, 2, 3, 4, 5)
    step_seeds = (1, 2, 3) if quick else (1, 2, 3, 4, 5, 6)
    claims, slopes = [], {}
    for name, (source, _) in FIG6.items():
        printed = TABLE1[name]
        for p, key in ((0.02, "cov_2"), (0.2, "cov_20")):
            measured = float(np.mean([cov_time(source, s, p)[0] for s in seeds]))
            claims.append(within(f"{name}: CoV_time at {p:.0%}, mean of seeds "
                                 f"{seeds[0]}–{seeds[-1]}", printed[key], measured, 0.25,
                                 COV_20_WHY[name] if key == "cov_20" else ""))
        slopes[name] = float(np.mean([aggressiveness(source, s) for s in step_seeds]))
        claims.append(below(f"{name}: aggressiveness I after 10% → 0% (pkts/RTT per RTT)",
                            printed["I"], slopes[name]))
    order = list(slopes.values())
    ordered = bool(np.all(np.diff(order) < 0))
    claims.append(Claim("aggressiveness ordered TCP > GAIMD > TFRC > TEAR",
                        "TCP > GAIMD > TFRC > TEAR",
                        " > ".join(f"{x:.3f}" for x in order), "strict order", ordered,
                        "" if ordered else "unexpected: not in the published order"))
    return claims


SCENARIOS = Path(__file__).resolve().parents[3] / "scenarios"

#: The four protocols of Yang et al. §3 as sources (GAIMD(0.31, 0.875) is Yang & Lam's
#: TCP-friendly pair; TFRC as Yang et al. ran it, ns-2's June 2000 snapshot).
PROTOCOLS = {
    "TCP": {"kind": "tcp"},
    "GAIMD(0.31,0.875)": {"kind": "tcp", "controller": GAIMD},
    "TFRC": {"kind": "rate", "controller": "tfrc-2000"},
    "TEAR": {"kind": "rate", "controller": "tear"},
}


def _cov_and_loss(sc) -> tuple[float, float, float]:
    """CoV_time of flow 0's sending rate per trace bin (one base RTT) after the warm-up, its
    loss rate and its mean RTT (s)."""
    r = engine.run(sc)
    fl = r.trace.flows
    sent = fl[(fl["flow"] == 0) & (fl["time_s"] >= r.warmup_s)]["sent_pkts"].to_numpy()
    f = r.flows.iloc[0]
    rtt = float(f["mean_rtt_s"]) if "mean_rtt_s" in f and f["mean_rtt_s"] == f["mean_rtt_s"] \
        else float("nan")
    return metrics.cov(sent), float(f["loss_rate"]), rtt


def onoff(quick: bool = False) -> list[Claim]:
    """Yang et al. §3.3: "under ON/OFF loss the smoothness of a protocol is slightly worse than
    that under Bernoulli loss". Each protocol runs beside five Pareto ON/OFF sources
    (scenarios/yang-onoff-loss.toml), then alone with Bernoulli loss at the loss rate it saw
    there; the claim holds when its CoV_time is higher under ON/OFF loss."""
    base = load(SCENARIOS / "yang-onoff-loss.toml")
    if quick:
        base = base.replace("run.duration", "300s")
    claims = []
    for name, source in PROTOCOLS.items():
        sc = base.replace("flows[0].source", source)
        cov_onoff, p, rtt_onoff = _cov_and_loss(sc)
        alone = sc.table
        alone["flows"] = alone["flows"][:1]
        alone["topology"]["bottleneck"]["loss"] = {"kind": "bernoulli", "p": p}
        cov_bern, _, rtt_bern = _cov_and_loss(type(sc).from_dict(alone, sc.file))
        holds = cov_onoff > cov_bern
        claims.append(Claim(
            quantity=f"Yang §3.3: {name} CoV_time, ON/OFF loss vs Bernoulli at its loss rate",
            published="ON/OFF slightly higher",
            measured=f"{cov_onoff:.3f} vs {cov_bern:.3f} (p = {p:.4f})",
            tolerance="higher", holds=holds,
            why="" if holds else (
                f"the ON/OFF run also queues at the DropTail bottleneck: mean RTT "
                f"{rtt_onoff * 1e3:.0f} ms there against {rtt_bern * 1e3:.0f} ms alone under "
                f"Bernoulli loss, so a window's worth of data spreads over "
                f"{rtt_onoff / rtt_bern:.1f} of the 104-ms bins (Yang's RTT) the CoV is "
                "measured in, and TCP's halvings show less per bin")))
    return claims


#: Yang et al. §5.2 (Fig. 29): RTTs each protocol takes to fill the queue again after 8 of 16
#: flows stop ("TEAR takes more than 200 RTTs").
FIG29_RTTS = {"TCP": 20.0, "GAIMD(0.31,0.875)": 42.0, "TFRC": 45.0, "TEAR": 200.0}

#: The stop time of scenarios/yang-fig29-leave.toml (its trace bin is BIN_S, one RTT).
LEAVE_AT_S = 200.0


def refill_rtts(queue_t, queue_pkts, at_s: float = LEAVE_AT_S, rtt_s: float = BIN_S,
                before_s: float = 50.0, level: float | None = None) -> float:
    """RTTs from `at_s` until the queue first gets back to `level` (default its mean over the
    `before_s` seconds before); infinity if it never does."""
    t, q = np.asarray(queue_t, dtype=float), np.asarray(queue_pkts, dtype=float)
    if level is None:
        level = q[(t >= at_s - before_s) & (t < at_s)].mean()
    after = (t >= at_s) & (q >= level)
    return float((t[after][0] - at_s) / rtt_s) if after.any() else float("inf")


def fig27_29(quick: bool = False) -> list[Claim]:
    """Yang et al. Fig. 29: RTTs to refill the bottleneck queue after 8 of 16 flows of one
    protocol stop (scenarios/yang-fig29-leave.toml), within 30% of the paper's TCP 20, GAIMD
    42 and TFRC 45 RTTs, and above 200 for TEAR. One run per protocol; `quick` is the same."""
    del quick  # one 300-s run at 2.5 Mb/s per protocol is already short
    base = load(SCENARIOS / "yang-fig29-leave.toml")
    claims = []
    for name, source in PROTOCOLS.items():
        sc = base.replace("flows[0].source", source).replace("flows[1].source", source)
        q = engine.run(sc).trace.queues
        q = q[q["name"] == "bottleneck"]
        got = refill_rtts(q["time_s"], q["queue_pkts"])
        full = refill_rtts(q["time_s"], q["queue_pkts"], before_s=0.0, level=50.0)
        paper = FIG29_RTTS[name]
        if name == "TEAR":
            holds, tolerance, published = got > paper, "more than 200", "> 200"
        else:
            holds, tolerance, published = abs(got / paper - 1) <= 0.3, "within 30%", paper
        claims.append(Claim(
            quantity=f"Yang Fig. 29: RTTs for {name} to refill the queue after 16 -> 8 flows",
            published=published, measured=round(got, 1), tolerance=tolerance, holds=holds,
            why="" if holds else (
                f"{YANG_FIG29_WHY.get(name, '')} (Measured to the queue's mean level of the "
                f"50 s before the stop; the paper does not say which level counts as "
                f"refilled; to a full queue {name} takes {full:.0f} RTTs here.)")))
    return claims


#: Why a Fig. 29 row does not reproduce, by protocol.
YANG_FIG29_WHY = {
    "TCP": "Eight TCP flows in congestion avoidance add 8 packets per RTT together; the stop "
           "frees about 15 packets per RTT (half of Yang's 30-packet BDP) and the queue held "
           "37 on average, about 6.5 RTTs of additive increase. The paper's 20 RTTs implies a "
           "slower start after the stop than congestion avoidance gives here.",
    "TFRC": "TFRC as Yang et al. ran it (tfrc-2000) climbs more slowly than the 0.12 packets "
            "per RTT per RTT the paper takes as its aggressiveness: measured 0.077 (Yang §5.1, "
            "the README's table), which stretches 45 RTTs to about 70.",
}
