"""Yang, Kim & Lam 2003 at packet level: Fig. 6's smoothness, CoV_time of one flow's per-RTT
sending rate at 1% Bernoulli loss, for TCP, GAIMD(0.31, 0.875), TFRC (the June 2000 ns-2 code
they ran) and TEAR, in their §3.3.1 set-up; and with workloads, the ON/OFF loss model (§2.1,
§3.3) and the transient after half the flows leave (§5.2, Figs. 27-29).
"""

from __future__ import annotations

import numpy as np

from .. import engine, metrics
from ..scenario import load, shipped
from .claims import (
    PRINTED,
    SEEDS,
    STATEMENT,
    THEORY,
    Claim,
    below,
    seed_tolerance,
    within_abs,
)

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


#: Standard deviation of one run's CoV_time at 1% over seeds 1-10
#: (`python bench/seed_spread.py yang-fig6`).
FIG6_SD = {"TCP": 0.0081, "GAIMD(0.31,0.875)": 0.0069, "TFRC": 0.0111, "TEAR": 0.0102}

#: Half the last digit §3.3.1 prints of each Fig. 6 value (0.51, 0.3, 0.23, 0.22).
FIG6_HALF_DIGIT = {"TCP": 0.005, "GAIMD(0.31,0.875)": 0.05, "TFRC": 0.005, "TEAR": 0.005}

#: What is known of a Fig. 6 value that does not reproduce.
FIG6_WHY = {
    "TCP": "ns-2.35's Sack1 on this set-up runs smoother still than ccscope's TCP, at 1% and 2% "
    "(bench/ns2_compare_yang.py): the 2000-era ns-2 TCP Yang et al. ran is neither; not "
    "diagnosed further",
    "TEAR": "TEAR also runs smoother than printed at 20% (Table 1's row); not diagnosed",
}


def smoothness_scenario(source: dict, seed: int, p: float = 0.01) -> dict:
    """Yang et al. §3.3.1: one flow over a 2.5 Mb/s, 30 ms bottleneck with Bernoulli loss p,
    10 ms access links, DropTail 50 packets; 1000 s measured after 10 s, traced per RTT."""
    return {
        "run": {"duration": "1000s", "warmup": "10s", "seed": seed},
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {
                "rate": "2.5Mbps",
                "delay": "30ms",
                "queue": {"kind": "droptail", "limit": "50pkts"},
                "loss": {"kind": "bernoulli", "p": p},
            },
            "access": {"rate": "100Mbps", "delay": "10ms"},
        },
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
    """Fig. 6 at 1% loss: each CoV_time (mean of seeds 1 and 2, or 1 to 5) against the one
    run §3.3.1 prints, within half its last digit and two standard deviations of the
    difference (:data:`FIG6_SD`); TFRC and TEAR below TCP and GAIMD; the set-up's RTT equal
    to the 104 ms bins to the millisecond."""
    seeds = (1, 2) if quick else (1, 2, 3, 4, 5)
    claims, mean = [], {}
    for name, (source, printed) in FIG6.items():
        runs = [cov_time(source, seed) for seed in seeds]
        mean[name] = float(np.mean([c for c, _ in runs]))
        sd = FIG6_SD[name]
        tol = FIG6_HALF_DIGIT[name] + seed_tolerance(sd, len(seeds))
        claims.append(
            within_abs(
                f"{name}: CoV_time at 1%, mean of seeds {seeds[0]}–{seeds[-1]}",
                printed,
                mean[name],
                round(tol, 4),
                f"{mean[name]:.3f} is {abs(mean[name] - printed) / sd:.1f} standard deviations "
                f"of one run from the printed {printed:g}; {FIG6_WHY.get(name, 'not diagnosed')}",
                source=SEEDS
                + f": §3.3.1 prints one run, {printed:g}: ± half its last digit and 2σ of its "
                f"difference from a mean of {len(seeds)} seeds, σ = {sd:g} over seeds 1-10 "
                "(python bench/seed_spread.py yang-fig6)",
                key=f"cov_1/{name}",
            )
        )
        if name == "TCP":
            rtt = float(runs[0][1].mean_rtt_s[0])
            claims.append(
                within_abs(
                    "TCP: mean RTT against the 104 ms bin",
                    BIN_S,
                    rtt,
                    0.0005,
                    source=PRINTED + ": the bin is the set-up's RTT to the millisecond",
                )
            )
    smooth = max(mean["TFRC"], mean["TEAR"])
    rough = min(mean["TCP"], mean["GAIMD(0.31,0.875)"])
    claims.append(
        Claim(
            "TFRC and TEAR smoother than TCP and GAIMD (mean CoV_time)",
            "TFRC, TEAR < TCP, GAIMD",
            f"{smooth:.3f} < {rough:.3f}",
            "below",
            smooth < rough,
            "" if smooth < rough else "unexpected: not smoother",
            source=STATEMENT + ": §3.3.1's order",
        )
    )
    return claims


#: Table 1 as printed: CoV_time at 2% and 20% Bernoulli loss (§3.3.1) and the aggressiveness
#: bound I (packets/RTT per RTT, §5.1; TFRC's is without history discounting, its default).
TABLE1 = {
    "TCP": {"cov_2": 0.58, "cov_20": 1.7, "I": 1.0},
    "GAIMD(0.31,0.875)": {"cov_2": 0.26, "cov_20": 1.7, "I": 0.31},
    "TFRC": {"cov_2": 0.22, "cov_20": 2.0, "I": 0.12},
    "TEAR": {"cov_2": 0.2, "cov_20": 0.4, "I": 1 / 12},
}

#: Standard deviation of one run's CoV_time over seeds 1-10, at 2% and 20% Bernoulli loss
#: (`python bench/seed_spread.py yang-table1`).
TABLE1_SD = {
    "TCP": {"cov_2": 0.00895, "cov_20": 0.145},
    "GAIMD(0.31,0.875)": {"cov_2": 0.00995, "cov_20": 0.126},
    "TFRC": {"cov_2": 0.0128, "cov_20": 0.0213},
    "TEAR": {"cov_2": 0.00793, "cov_20": 0.00348},
}

#: Table 1's CoV_time at 2% (all four) and at 20% (TCP, GAIMD) are the analyses (5), (6), (9),
#: (10) and (8); §3.3.1 calls its simulations "close to" them: 0.51, 0.3, 0.23, 0.22 at 1%
#: against 0.58, 0.26, 0.22, 0.21, and 1.6 at 20% against 1.73. The largest of those gaps,
#: GAIMD's 0.3 against 0.26, is the analyses' error as the paper states it.
TABLE1_ANALYSIS_ERROR = 0.3 / 0.26 - 1

#: Table 1's CoV_time at 20% for TFRC (2) and TEAR (0.4) are Fig. 6's simulated values
#: (§3.3.1), one run each: half their last printed digit.
TABLE1_SIMULATED_HALF_DIGIT = {"TFRC": 0.5, "TEAR": 0.05}


def table1_cov_claim(name: str, key: str, measured: float, k: int, why: str) -> Claim:
    """A Table 1 CoV_time row (`key` "cov_2" or "cov_20") against ccscope's mean of `k` seeds:
    an analysis within its stated error plus the mean's 2σ/√k, or a simulated value within
    half its last digit plus 2σ of the difference of runs."""
    printed, sd = TABLE1[name][key], TABLE1_SD[name][key]
    p = "2%" if key == "cov_2" else "20%"
    spread = f"σ = {sd:g} over seeds 1-10 (python bench/seed_spread.py yang-table1)"
    if key == "cov_20" and name in TABLE1_SIMULATED_HALF_DIGIT:
        tol = TABLE1_SIMULATED_HALF_DIGIT[name] + seed_tolerance(sd, k)
        source = (
            PRINTED + f": Fig. 6's one run, printed {printed:g}: ± half its last digit, and 2σ "
            f"of its difference from a mean of {k} seeds, {spread}"
        )
    else:
        tol = TABLE1_ANALYSIS_ERROR * printed + 2 * sd / np.sqrt(k)
        source = (
            THEORY + f": {printed:g} is §3.2's analysis, which §3.3.1 finds 'close to' its "
            f"simulations, at most {TABLE1_ANALYSIS_ERROR:.0%} apart (0.3 against 0.26); plus "
            f"2σ/√{k} of the mean, {spread}"
        )
    return within_abs(
        f"{name}: CoV_time at {p}, mean of seeds 1–{k}",
        printed,
        measured,
        round(tol, 4),
        why,
        source=source,
        key=f"{key}/{name}",
    )


#: Aggressiveness (§5.2, Figs. 23 and 25): Bernoulli loss steps from 10% to 0% at 400 s; I is
#: the slope of the per-RTT sending rate over the next 30 RTTs.
STEP_S, STEP_FROM, STEP_TO, STEP_RTTS = 400.0, 0.10, 0.0, 30

#: Why a Table 1 smoothness value at 20% loss does not reproduce: what is known of the cause,
#: after the measured value ({measured}, filled in by the claim).
COV_20_WHY = {
    "TCP": "ccscope's TCP at 20% Bernoulli loss measures CoV_time {measured:.2f}, the analysis "
    "(B.2) at t = 4 gives 1.87 and Table 1 prints 1.7. At 20% timeouts dominate: with ns-2.35's "
    "timer and recovery rules (recover_margin = 1 above all: no fast retransmit of the first "
    "packet after a timeout) ccscope gives ns-2.35's CoV_time (bench/ns2_compare_yang.py), "
    "and ns-2.35's Sack1 is itself far below 1.7: the printed value is the analysis's, which "
    "neither simulator reaches at 20%; the RFC 6582 rule ccscope runs by default ends more "
    "backoff chains early",
    "GAIMD(0.31,0.875)": "{measured:.2f} measured against 1.7; GAIMD shares TCP's timeouts, "
    "which dominate at 20%, and ns-2.35's rules bring it to ns-2.35's CoV_time "
    "(bench/ns2_compare_yang.py), itself far below 1.7: as for TCP, the printed value is the "
    "analysis's, which neither simulator reaches at 20%",
    "TFRC": "TFRC-2000 collapses below one packet per RTT as Yang et al. report, but its "
    "CoV_time is {measured:.2f} against the printed 2; not diagnosed yet",
    "TEAR": "TEAR stays smooth at 20% as Yang et al. report, but smoother than printed: "
    "CoV_time {measured:.2f} against 0.4; not diagnosed yet",
}


#: Why a Table 1 smoothness value at 2% loss does not reproduce ({measured} filled in).
COV_2_WHY = {
    "GAIMD(0.31,0.875)": "{measured:.3f} measured against (6)'s 0.26: with ns-2.35's TCP rules "
    "(fractional windows, a first window of 2, Sack1's hole rule, ns-2's packet sizes) ccscope "
    "and ns-2.35 itself both come within this tolerance on this set-up "
    "(bench/ns2_compare_yang.py); ccscope's default rules make GAIMD's per-RTT rate rougher",
}


def aggressiveness_scenario(source: dict, seed: int) -> dict:
    """§5.2's step (Figs. 23, 25): Bernoulli loss 10% until 400 s, then none; traced per RTT
    until 30 RTTs after the step."""
    sc = smoothness_scenario(source, seed)
    sc["topology"]["bottleneck"]["loss"] = {
        "kind": "schedule",
        "steps": [{"at": "0s", "p": STEP_FROM}, {"at": f"{STEP_S:g}s", "p": STEP_TO}],
    }
    sc["run"]["duration"] = f"{STEP_S + (STEP_RTTS + 2) * BIN_S:g}s"
    return sc


def aggressiveness_of(sent: np.ndarray) -> float:
    """I: the least-squares slope (packets/RTT per RTT) of the per-RTT packets sent over the 30
    RTTs after the step (Yang et al. §5), from one flow's per-RTT trace."""
    first = int(round(STEP_S / BIN_S))
    y = np.asarray(sent, dtype=float)[first : first + STEP_RTTS]
    return float(np.polyfit(np.arange(y.size), y, 1)[0])


def aggressiveness(source: dict, seed: int) -> float:
    """I of one flow in :func:`aggressiveness_scenario`."""
    from ..engine import run

    return aggressiveness_of(run(aggressiveness_scenario(source, seed)).trace.flows.sent_pkts)


def table1_claims(quick: bool = False) -> list[Claim]:
    """Table 1's rows for TCP, GAIMD, TFRC and TEAR: CoV_time at 2% and 20% (mean over seeds
    1–2, or 1–5; :func:`table1_cov_claim`); F at low loss within what the analyses' stated
    error on CoV gives through Eq. (3) (:func:`f_band`; same seeds, 300-s or 1000-s runs);
    I at most its printed bound (§5.1: "what we derive is an upper bound", mean over seeds
    1–3, or 1–6) and ordered TCP > GAIMD > TFRC > TEAR (§5.2, Table 1); D within
    :data:`D_TOLERANCE` RTTs of the printed value or range (same seeds as I)."""
    seeds = (1, 2) if quick else (1, 2, 3, 4, 5)
    step_seeds = (1, 2, 3) if quick else (1, 2, 3, 4, 5, 6)
    claims, slopes = [], {}
    for name, (source, _) in FIG6.items():
        printed = TABLE1[name]
        for p, key in ((0.02, "cov_2"), (0.2, "cov_20")):
            measured = float(np.mean([cov_time(source, s, p)[0] for s in seeds]))
            why = (COV_20_WHY if key == "cov_20" else COV_2_WHY).get(name, "")
            why = why.format(measured=measured)
            claims.append(table1_cov_claim(name, key, measured, len(seeds), why))
        slopes[name] = float(np.mean([aggressiveness(source, s) for s in step_seeds]))
        claims.append(
            below(
                f"{name}: aggressiveness I after 10% → 0% (pkts/RTT per RTT)",
                printed["I"],
                slopes[name],
                source=THEORY + ": §5.1's I is an upper bound ('what we derive is an upper bound')",
                key=f"I/{name}",
            )
        )
        claims.append(_fairness_claim(name, source, seeds, 300.0 if quick else 1000.0))
        claims.append(_responsiveness_claim(name, source, step_seeds))
    order = list(slopes.values())
    ordered = bool(np.all(np.diff(order) < 0))
    claims.append(
        Claim(
            "aggressiveness ordered TCP > GAIMD > TFRC > TEAR",
            "TCP > GAIMD > TFRC > TEAR",
            " > ".join(f"{x:.3f}" for x in order),
            "strict order",
            ordered,
            "" if ordered else "unexpected: not in the published order",
            source=STATEMENT + ": Table 1's order",
        )
    )
    return claims


#: Table 1's short-term fairness F at low loss: TCP from Fig. 10, the others from Fig. 13
#: (eight flows of one protocol, §3.3.2). "F ≈ 1" for TFRC and TEAR is taken as the 0.96 that
#: §3.3.2 computes for them from Eq. (3).
TABLE1_F = {"TCP": 0.7, "GAIMD(0.31,0.875)": 0.9, "TFRC": 0.96, "TEAR": 0.96}

#: The ACKs' way back on the §2.2 dumbbell: 10 + 30 + 10 ms of propagation (they never queue).
RETURN_S = 0.05

#: The trace bin fairness is measured in, re-binned to the flows' RTT (1/8 of the base RTT).
FINE_BIN_S = BIN_S / 8


def fairness_scenario(source: dict, seed: int, duration_s: float = 1000.0) -> dict:
    """Yang et al. §3.3.2 (Fig. 13; Fig. 10 for TCP): eight flows of one protocol share the
    §2.2 dumbbell without a loss module (the "N competing flows" loss model, §2.1), traced
    every :data:`FINE_BIN_S` after a 20-s warm-up."""
    sc = smoothness_scenario(source, seed)
    del sc["topology"]["bottleneck"]["loss"]
    sc["run"].update(duration=f"{duration_s:g}s", warmup="20s")
    sc["flows"] = [{"source": source, "count": 8, "start_jitter": "2s"}]
    sc["trace"]["interval"] = f"{FINE_BIN_S * 1000:g}ms"
    return sc


def fairness_of(
    trace, flows, rtt_s: float | None = None, warmup_s: float = 20.0
) -> dict[str, float]:
    """Yang et al.'s short-term fairness F (§3.1.2: Jain's index over the competing flows'
    sending rates "at each RTT", Fig. 10) averaged over the run, and the flows' mean
    CoV_time at the same timescale (for Eq. (3)): ``{"F", "cov", "rtt_s"}``. The RTT is the
    flows' own unless `rtt_s` is given: their packets' mean one-way delay plus the ACKs'
    :data:`RETURN_S`; the fine trace is summed over that many bins."""
    if rtt_s is None:
        rtt_s = float(flows["mean_delay_s"].mean()) + RETURN_S
    k = max(1, int(round(rtt_s / FINE_BIN_S)))
    sent = (
        trace[trace["time_s"] >= warmup_s]
        .pivot_table(index="time_s", columns="flow", values="sent_pkts")
        .to_numpy()
    )
    n = sent.shape[0] // k
    per_rtt = sent[: n * k].reshape(n, k, sent.shape[1]).sum(axis=1)
    cov = float(np.mean([metrics.cov(per_rtt[:, i]) for i in range(per_rtt.shape[1])]))
    return {
        "F": float(metrics.short_term_fairness(per_rtt).mean()),
        "cov": cov,
        "rtt_s": k * FINE_BIN_S,
    }


def fairness(source: dict, seed: int, duration_s: float = 1000.0) -> dict[str, float]:
    """:func:`fairness_of` in :func:`fairness_scenario`, and ``"F_base"``: F in bins of the
    base RTT (:data:`BIN_S`, the bin of the CoV_time rows) instead."""
    r = engine.run(fairness_scenario(source, seed, duration_s))
    out = fairness_of(r.trace.flows, r.flows)
    out["F_base"] = fairness_of(r.trace.flows, r.flows, BIN_S)["F"]
    return out


def f_band(f: float, rel: float) -> tuple[float, float]:
    """The F that Eq. (3), F = 1/(1 + CoV²), gives for a CoV within `rel` of the one behind
    `f`: the CoV_time rows' tolerance carried over to fairness."""
    c = np.sqrt(1 / f - 1)
    return 1 / (1 + ((1 + rel) * c) ** 2), 1 / (1 + ((1 - rel) * c) ** 2)


#: Table 1's responsiveness D (RTTs; §4.1's analysis, "5–6" for TFRC and TEAR in the table).
TABLE1_D = {"TCP": (1, 1), "GAIMD(0.31,0.875)": (5, 5), "TFRC": (5, 6), "TEAR": (5, 6)}

#: §4's persistent congestion, one loss per RTT, starts at D_STEP_S; before it, from
#: D_LIGHT_S, the first packet of every D_LIGHT_RTTS RTTs is lost. The rate before is the mean
#: over D_BEFORE RTTs, and D_RTTS RTTs are traced after.
D_LIGHT_S, D_LIGHT_RTTS = 10.0, 10
D_STEP_S, D_BEFORE, D_RTTS = 100.0, 20, 40

#: The D rows' tolerance (RTTs): §4.1 counts loss indications from the first, which reaches
#: the sender one RTT after the first lost packet the trace counts from; and the per-RTT bins
#: are not aligned with the sender's rounds, one more.
D_TOLERANCE = 2


def responsiveness_scenario(source: dict, seed: int, start_s: float = 0.0) -> dict:
    """§4.1's metric in §3.3.1's set-up: no loss module until :data:`D_LIGHT_S`, then the first
    packet of every :data:`D_LIGHT_RTTS` RTTs is lost, and from :data:`D_STEP_S` the first
    packet of every 104 ms (one RTT: one flow at this loss keeps the queue empty). The flow
    starts at `start_s`."""
    sc = smoothness_scenario(source, seed)
    sc["flows"][0]["start"] = f"{start_s:g}s"
    sc["topology"]["bottleneck"]["loss"] = {
        "kind": "schedule",
        "steps": [
            {"at": f"{D_LIGHT_S:g}s", "interval": f"{D_LIGHT_RTTS * BIN_S * 1000:g}ms"},
            {"at": f"{D_STEP_S:g}s", "interval": f"{BIN_S * 1000:g}ms"},
        ],
    }
    sc["run"]["duration"] = f"{D_STEP_S + D_RTTS * BIN_S:g}s"
    return sc


def responsiveness_of(sent: np.ndarray) -> float:
    """D: whole RTTs after the persistent congestion starts until the per-RTT sending rate is
    at most half its mean over the :data:`D_BEFORE` RTTs before (Yang et al. §4: "the number
    of RTTs D for a protocol to decrease its sending rate to half"); infinity if it never is
    in the traced :data:`D_RTTS`."""
    first = int(round(D_STEP_S / BIN_S))
    y = np.asarray(sent, dtype=float)
    half = y[first - D_BEFORE : first].mean() / 2
    below_half = np.flatnonzero(y[first : first + D_RTTS] <= half)
    return float(below_half[0]) if below_half.size else float("inf")


def responsiveness(source: dict, seed: int, start_s: float = 0.0) -> float:
    """D of one flow in :func:`responsiveness_scenario`."""
    sc = responsiveness_scenario(source, seed, start_s)
    return responsiveness_of(engine.run(sc).trace.flows.sent_pkts.to_numpy())


#: Standard deviation of one run's F over seeds 1-10, by run length (s)
#: (`python bench/seed_spread.py yang-f300 yang-f1000`).
FAIRNESS_SD = {
    300.0: {"TCP": 0.00674, "GAIMD(0.31,0.875)": 0.00296, "TFRC": 0.00238, "TEAR": 0.00486},
    1000.0: {"TCP": 0.0107, "GAIMD(0.31,0.875)": 0.00112, "TFRC": 0.0018, "TEAR": 0.00451},
}


def _fairness_claim(name: str, source: dict, seeds: tuple[int, ...], duration_s: float) -> Claim:
    runs = [fairness(source, s, duration_s) for s in seeds]
    f, cov = (float(np.mean([r[k] for r in runs])) for k in ("F", "cov"))
    sd = FAIRNESS_SD[duration_s][name]
    margin = 2 * sd / np.sqrt(len(seeds))
    lo, hi = f_band(TABLE1_F[name], TABLE1_ANALYSIS_ERROR)
    lo, hi = lo - margin, hi + margin
    holds = lo <= f <= hi
    why = (
        ""
        if holds
        else (
            f"measured at the flows' RTT ({runs[0]['rtt_s'] * 1e3:.0f} ms with the queue), where "
            f"their CoV_time is {cov:.2f} and Eq. (3) gives 1/(1 + CoV²) = {1 / (1 + cov**2):.3f}, "
            "close to F: the flows' per-RTT rates in this DropTail queue are "
            + (
                "smoother than the printed value implies. Not diagnosed further (a cut window "
                "that drains the queue also shortens the RTT, so the sending rate may fall "
                "less than the window). "
                if f > hi
                else "rougher than the printed value implies. Not diagnosed further. "
            )
            + "The paper does not print its bin; in bins of the base RTT (104 ms) F is "
            f"{np.mean([r['F_base'] for r in runs]):.3f}"
        )
    )
    return Claim(
        f"{name}: fairness F, 8 flows, no loss module, mean of seeds {seeds[0]}–{seeds[-1]}",
        TABLE1_F[name],
        f,
        f"{lo:.3f}–{hi:.3f} (CoV within {TABLE1_ANALYSIS_ERROR:.0%}, Eq. (3); 2σ/√{len(seeds)})",
        holds,
        why,
        source=THEORY
        + f": §3.3.2's F is Eq. (3) at the analysed CoV_time; that CoV's stated error "
        f"({TABLE1_ANALYSIS_ERROR:.0%}, the CoV_time rows) carried through Eq. (3), plus 2σ/√"
        f"{len(seeds)} of the mean, σ = {sd:g} over seeds 1-10 (python bench/seed_spread.py "
        f"yang-f{duration_s:.0f})",
        key=f"F/{name}",
    )


def _responsiveness_claim(name: str, source: dict, seeds: tuple[int, ...]) -> Claim:
    d = float(np.mean([responsiveness(source, s) for s in seeds]))
    lo, hi = TABLE1_D[name]
    holds = lo - D_TOLERANCE <= d <= hi + D_TOLERANCE
    return Claim(
        f"{name}: responsiveness D, one loss per RTT (RTTs), mean of seeds {seeds[0]}–{seeds[-1]}",
        f"{lo}" if lo == hi else f"{lo}–{hi}",
        d,
        f"± {D_TOLERANCE} RTTs",
        holds,
        "" if holds else f"unexpected: {d:.3g} RTTs is more than {D_TOLERANCE} from {lo}–{hi}",
        source=THEORY + ": one RTT until the first loss is indicated, one of bin alignment",
        key=f"D/{name}",
    )


SCENARIOS = shipped()

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
    rtt = (
        float(f["mean_rtt_s"])
        if "mean_rtt_s" in f and f["mean_rtt_s"] == f["mean_rtt_s"]
        else float("nan")
    )
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
        claims.append(
            Claim(
                quantity=f"Yang §3.3: {name} CoV_time, ON/OFF loss vs Bernoulli at its loss rate",
                published="ON/OFF slightly higher",
                measured=f"{cov_onoff:.3f} vs {cov_bern:.3f} (p = {p:.4f})",
                tolerance="higher",
                holds=holds,
                source=STATEMENT + ": §3.3, 'slightly higher'",
                key=name,
                why=""
                if holds
                else (
                    f"the ON/OFF run also queues at the DropTail bottleneck: mean RTT "
                    f"{rtt_onoff * 1e3:.0f} ms there against {rtt_bern * 1e3:.0f} ms alone under "
                    f"Bernoulli loss, so a window's worth of data spreads over "
                    f"{rtt_onoff / rtt_bern:.1f} of the 104-ms bins (Yang's RTT) the CoV is "
                    "measured in, and TCP's halvings show less per bin"
                ),
            )
        )
    return claims


#: Yang et al. §5.2 (Fig. 29): RTTs each protocol takes to fill the queue again after 8 of 16
#: flows stop ("TEAR takes more than 200 RTTs").
FIG29_RTTS = {"TCP": 20.0, "GAIMD(0.31,0.875)": 42.0, "TFRC": 45.0, "TEAR": 200.0}

#: Standard deviation of one run's refill time (RTTs) over seeds 1-10
#: (`python bench/seed_spread.py yang-fig29`).
FIG29_SD = {"TCP": 1.9, "GAIMD(0.31,0.875)": 8.29, "TFRC": 5.47}

#: The stop time of scenarios/yang-fig29-leave.toml (its trace bin is BIN_S, one RTT).
LEAVE_AT_S = 200.0
#: Its bandwidth-delay product in 1000-byte packets: 2.5 Mb/s over the base RTT.
FIG29_BDP_PKTS = 2.5e6 * BIN_S / 8000


def refill_rtts(
    queue_t,
    queue_pkts,
    at_s: float = LEAVE_AT_S,
    rtt_s: float = BIN_S,
    before_s: float = 50.0,
    level: float | None = None,
) -> float:
    """RTTs from `at_s` until the queue first gets back to `level` (default its mean over the
    `before_s` seconds before); infinity if it never does."""
    t, q = np.asarray(queue_t, dtype=float), np.asarray(queue_pkts, dtype=float)
    if level is None:
        level = mean_level(t, q, at_s, before_s)
    after = (t >= at_s) & (q >= level)
    return float((t[after][0] - at_s) / rtt_s) if after.any() else float("inf")


def mean_level(t: np.ndarray, q: np.ndarray, at_s: float, before_s: float) -> float:
    """The queue's mean over the `before_s` seconds before `at_s`."""
    return float(q[(t >= at_s - before_s) & (t < at_s)].mean())


def fig29_refill(name: str, seed: int = 1) -> tuple[float, float, float]:
    """RTTs for the flows of protocol `name` (:data:`PROTOCOLS`) in
    scenarios/yang-fig29-leave.toml at `seed` to refill the queue after the stop: to its mean
    level of the 50 s before, and to full (50 packets); then that mean level (packets)."""
    source = PROTOCOLS[name]
    sc = (
        load(SCENARIOS / "yang-fig29-leave.toml")
        .replace("flows[0].source", source)
        .replace("flows[1].source", source)
        .with_seed(seed)
    )
    q = engine.run(sc).trace.queues
    q = q[q["name"] == "bottleneck"]
    t, pkts = q["time_s"].to_numpy(dtype=float), q["queue_pkts"].to_numpy(dtype=float)
    return (
        refill_rtts(t, pkts),
        refill_rtts(t, pkts, before_s=0.0, level=50.0),
        mean_level(t, pkts, LEAVE_AT_S, 50.0),
    )


def ca_refill_rtts(level: float, bdp: float = FIG29_BDP_PKTS, flows: int = 8) -> float:
    """Base RTTs for `flows` TCP flows in congestion avoidance, holding half of the window the
    sixteen held (W1/2, W1 = `bdp` + `level`), to grow back to W1: each adds a packet per
    round trip, and a round trip lasts W/bdp base RTTs once the window W exceeds the pipe, so
    dW/dt = flows·bdp/W per base RTT, which integrates to (W1² − W0²)/(2·flows·bdp) (plus
    (bdp − W0)/flows base RTTs first while W0 is below the pipe)."""
    w1 = bdp + level
    w0 = w1 / 2
    below = max(0.0, bdp - w0) / flows
    return below + (w1**2 - max(w0, bdp) ** 2) / (2 * flows * bdp)


def fig27_29(quick: bool = False) -> list[Claim]:
    """Yang et al. Fig. 29: RTTs to refill the bottleneck queue after 8 of 16 flows of one
    protocol stop (scenarios/yang-fig29-leave.toml), against the paper's TCP 20, GAIMD 42 and
    TFRC 45 RTTs within their seed spread (:data:`FIG29_SD`), and above 200 for TEAR. One run
    per protocol; `quick` is the same."""
    del quick  # one 300-s run at 2.5 Mb/s per protocol is already short
    claims = []
    for name in PROTOCOLS:
        got, full, level = fig29_refill(name)
        paper = FIG29_RTTS[name]
        if name == "TEAR":
            # A queue that never refills (inf) is no reproduction of a slow refill.
            holds = paper < got < float("inf")
            tolerance, published = "more than 200, and refilled", "> 200"
            source = STATEMENT + ": Fig. 29, 'more than 200 RTTs'"
        else:
            sd = FIG29_SD[name]
            tol = 0.5 + seed_tolerance(sd, 1)
            holds, tolerance, published = abs(got - paper) <= tol, f"± {tol:.3g}", paper
            source = (
                SEEDS + f": §5.2 prints one run's time in whole RTTs: ± 0.5 and 2σ of the "
                f"difference of two runs, σ = {sd:g} RTTs over seeds 1-10 "
                "(python bench/seed_spread.py yang-fig29)"
            )
        claims.append(
            Claim(
                quantity=f"Yang Fig. 29: RTTs for {name} to refill the queue after 16 -> 8 flows",
                published=published,
                measured=round(got, 1),
                tolerance=tolerance,
                holds=holds,
                why=""
                if holds
                else (
                    f"{fig29_why(name, level)} (Measured to the queue's mean level of the "
                    f"50 s before the stop; the paper does not say which level counts as "
                    f"refilled; to a full queue {name} takes {full:.0f} RTTs here.)"
                ),
                source=source,
                key=name,
            )
        )
    return claims


def fig29_why(name: str, level: float) -> str:
    """Why the Fig. 29 row of protocol `name` does not reproduce, given the queue's mean
    level before the stop (packets); empty where no reason is known."""
    if name == "TCP":
        return (
            f"Eight TCP flows in congestion avoidance, holding half of the window the sixteen "
            f"held (the pipe's {FIG29_BDP_PKTS:g} packets and the queue's mean {level:.1f} "
            f"before the stop), add 8 packets per round trip together, and each round trip "
            f"lengthens as the queue refills: back to that level takes "
            f"{ca_refill_rtts(level):.1f} base RTTs. The paper's 20 RTTs implies a slower "
            f"start after the stop than congestion avoidance gives here."
        )
    if name == "TFRC":
        return (
            "TFRC as Yang et al. ran it (tfrc-2000) climbs more slowly than the 0.12 packets "
            "per RTT per RTT the paper takes as its aggressiveness (Yang §5.1; the strict "
            "expected failure tfrc_aggressiveness_matches_yang in "
            "crates/ccscope-core/tests/rate.rs finds it below), which stretches the paper's "
            "45 RTTs."
        )
    return ""
