"""Jin, Guo, Matta & Bestavros 2001 in the round model: Table 6's analysis columns (T1, Δ from
Experiment 2's initial points; the ranking of T2 from Experiment 1's), with synchronized
feedback as in their App. C.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .. import metrics, roundmodel, theory
from .claims import Claim

#: Jin et al. §6.3: "W ≈ 110" packets in both experiments.
W = 110.0

#: The four controls of Table 6 (catalogue name, parameters, App. C name, β of App. C).
CONTROLS = {
    "TCP": ("tcp", {}, "tcp", None),
    "AIMD(1/10,1/16)": ("aimd", {"alpha": 0.1, "beta": 1 / 16}, "aimd", 1 / 16),
    "IIAD(1,2/3)": ("iiad", {"alpha": 1.0, "beta": 2 / 3}, "iiad", 2 / 3),
    "SIMD(1/16)": ("simd", {"beta": 1 / 16}, "simd", 1 / 16),
}

#: Jin et al. Table 6, Experiment 2: initial (W1, W2) and the analysis columns T1 (RTT), Δ (pkts).
TABLE6_EXP2 = {
    "TCP": {"w1": 8.8, "w2": 13.8, "t1": 43.7, "delta": 6.0},
    "AIMD(1/10,1/16)": {"w1": 12.7, "w2": 31.0, "t1": 342.0, "delta": 18.3},
    "IIAD(1,2/3)": {"w1": 11.8, "w2": 31.2, "t1": 1242.0, "delta": 7.6},
    "SIMD(1/16)": {"w1": 10.2, "w2": 33.2, "t1": 85.1, "delta": 12.3},
}

#: Jin et al. Table 6, Experiment 1: initial (W1, W2) and the analysis column T2 (RTT), ε = 10.
TABLE6_EXP1 = {
    "TCP": {"w1": 6.1, "w2": 99.6, "t2": 88.7},
    "AIMD(1/10,1/16)": {"w1": 7.9, "w2": 99.2, "t2": 1217.0},
    "IIAD(1,2/3)": {"w1": 7.7, "w2": 99.8, "t2": 6684.0},
    "SIMD(1/16)": {"w1": 6.6, "w2": 96.3, "t2": 852.0},
}

#: Jin et al. §6.3.1: "Here we use ε = 10 packets".
EPSILON = 10.0


def _windows(name: str, w1: float, w2: float, steps: int) -> tuple[np.ndarray, np.ndarray,
                                                                    np.ndarray]:
    """Two synchronized flows of control `name` from (w1, w2) on a link of W packets per RTT:
    their windows and the congestion flags, step by step."""
    controller, params, _, _ = CONTROLS[name]
    result = roundmodel.run({
        "run": {"engine": "round", "steps": steps},
        "link": {"capacity_pkts": W},
        "flows": [{"controller": controller, "params": params, "initial_window": w}
                  for w in (w1, w2)],
        "record": {"every": 1, "flows": True},
    })
    w = result.flow_series().to_numpy()
    return w[:, 0], w[:, 1], result.series["loss_fraction"].to_numpy() > 0


def convergence_to_efficiency(name: str) -> dict[str, float]:
    """T1: steps until the first congestion, and Δ = w2 − w1 then (App. C.1), beside Table 6
    and App. C's formulas."""
    start = TABLE6_EXP2[name]
    w1, w2, congested = _windows(name, start["w1"], start["w2"], 5000)
    t1 = int(np.argmax(congested))
    _, _, algorithm, beta = CONTROLS[name]
    return {
        "control": name, "t1": t1, "delta": float(abs(w2[t1] - w1[t1])),
        "table6_t1": start["t1"], "table6_delta": start["delta"],
        "appc_t1": theory.jin_convergence_t1(algorithm, W, start["w1"], start["w2"], beta),
        "appc_delta": theory.jin_convergence_delta(algorithm, W, start["w1"], start["w2"]),
    }


def convergence_to_fairness(name: str, steps: int = 40_000) -> dict[str, float]:
    """T2: steps until |w1 − w2| < ε for good (Experiment 1), beside Table 6."""
    start = TABLE6_EXP1[name]
    w1, w2, _ = _windows(name, start["w1"], start["w2"], steps)
    apart = np.flatnonzero(np.abs(w2 - w1) >= EPSILON)
    t2 = int(apart[-1]) + 1 if apart.size else 0
    return {"control": name, "t2": t2, "table6_t2": start["t2"], "converged": t2 < steps}


def table6() -> pd.DataFrame:
    """Table 6's analysis columns reproduced: T1, Δ and T2 per control."""
    rows = []
    for name in CONTROLS:
        rows.append({**convergence_to_efficiency(name), **convergence_to_fairness(name)})
    return pd.DataFrame(rows)


#: Jin et al. Table 5: 1/aggressiveness (RTTs) from simulation, as 95% confidence intervals,
#: and the analysis column; the controls are Table 6's plus AIAD(2/3) (§6.2.4).
TABLE5 = {
    "TCP": ((12.8, 14.1), ("tcp", {}), ("tcp", None)),
    "AIMD(1/10,1/16)": ((108.1, 110.7), ("aimd", {"alpha": 0.1, "beta": 1 / 16}), ("aimd", 1 / 16)),
    "IIAD(1,2/3)": ((172.8, 176.0), ("iiad", {"alpha": 1.0, "beta": 2 / 3}), ("iiad", 2 / 3)),
    "SIMD(1/16)": ((31.6, 34.6), ("simd", {"beta": 1 / 16}), ("simd", 1 / 16)),
    "AIAD(2/3)": ((103.3, 107.9), ("aiad", {"beta": 2 / 3}), ("aiad", 2 / 3)),
}

#: Table 5's analysis assumes the window W = 11 packets before the bandwidth doubles (m = 2),
#: the W that reproduces its analysis column (tests/theory/test_jin.py).
TABLE5_W = 11.0

#: §6.2.4: t_on = t_off = 30 s; RTT about 100 ms.
SQUARE_ON_S = SQUARE_OFF_S = 30.0
RTT_S = 0.1


def square_wave_run(controller: str, params: dict, duration_s: float, seed: int = 1):
    """One flow of `controller` beside Jin et al.'s square wave
    (scenarios/jin-table5-square-wave.toml)."""
    from .. import engine
    from ..scenario import load

    here = Path(__file__).resolve().parents[3] / "scenarios" / "jin-table5-square-wave.toml"
    sc = (load(here).replace("run.duration", f"{duration_s:g}s").with_seed(seed)
          .replace("flows[0].source.controller", {"name": controller, **params}))
    return engine.run(sc)


def table5(quick: bool = False) -> list[Claim]:
    """Jin et al. Table 5, 1/aggressiveness: the RTTs a flow's window takes to settle within
    one packet of its new level after the square wave goes OFF, measured from its traced
    window (ccscope.metrics.square_wave_response), held to the paper's interval within 25%,
    with the analysis column (ccscope.theory.jin_aggressiveness_time at the paper's W = 11)
    beside it. A row that misses gives the analysis at the window the run had before the
    step."""
    duration = 330.0 if quick else 1230.0
    claims = []
    for name, ((lo, hi), (controller, params), (algorithm, beta)) in TABLE5.items():
        r = square_wave_run(controller, params, duration)
        w = r.trace.flows[r.trace.flows["flow"] == 0]
        t, win = w["time_s"].to_numpy(), w["window_pkts"].to_numpy()
        got = metrics.square_wave_response(t, win, SQUARE_ON_S, SQUARE_OFF_S, RTT_S)
        measured = got["inv_aggressiveness_rtts"]
        analysis = float(theory.jin_aggressiveness_time(algorithm, TABLE5_W, 2.0, beta))
        holds = 0.75 * lo <= measured <= 1.25 * hi
        why = ""
        if not holds:
            period = SQUARE_ON_S + SQUARE_OFF_S
            phase = t % period
            before = float(np.mean(win[(t >= period) & (phase >= SQUARE_ON_S / 2)
                                       & (phase < SQUARE_ON_S)]))
            at_w = float(theory.jin_aggressiveness_time(algorithm, before, 2.0, beta))
            why = (f"the run's window before the wave goes OFF is {before:.1f} packets, not "
                   f"the W = {TABLE5_W:g} of the paper's analysis column; Table 3's time "
                   f"grows with W ({algorithm}: {at_w:.0f} RTTs at {before:.1f} packets), and "
                   "the paper's set-up (queue, exact RTT) that gives W = 11 is not printed")
        claims.append(Claim(
            quantity=f"Jin Table 5: 1/aggressiveness of {name} (RTTs; analysis {analysis:.1f})",
            published=f"{lo}-{hi}", measured=round(measured, 1), tolerance="within 25%",
            holds=holds, why=why))
    return claims
