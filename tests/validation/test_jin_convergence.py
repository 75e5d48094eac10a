"""Issue 3, check h: two flows converging on Jin et al.'s parking lot (Fig. 20), §6.3.1
(convergence to fairness, T2) and §6.3.2 (convergence to efficiency, T1 and Δ). Table 6's
ordering TCP < SIMD(1/16) < AIMD(1/10, 1/16) < IIAD(1, 2/3) must hold. The set-up and every
assumption about the missing figure are in conftest.jin_parking_lot.

Measures (t = 0 when the background flows stop at 400 s; time in RTTs of the two flows, from
their sender's srtt in the trace):
- T2 (Exp. 1): first time |w1 − w2| < ε = 10 packets (Jin et al. §4.2, §6.3.1).
- T1 (Exp. 2): first time either window is reduced, i.e. the pair reached the efficiency line
  w1 + w2 = W (Jin et al. §4.2, App. C.1); Δ = |w1 − w2| just before that reduction.
- W1, W2: mean windows over [300, 400) s; W: w1 + w2 at that first reduction.
"""

import numpy as np
import pytest
from validation_setups import JIN_CONTROLLERS, JIN_EPS_PKTS, JIN_PKT_BYTES, jin_parking_lot

import ccscope
from ccscope.theory import jin

# Jin et al. Table 6 (simulated / analytical): Exp. 1 (W1, W2, T2 simu, T2 anal) and
# Exp. 2 (W1, W2, T1 simu, T1 anal, Δ simu, Δ anal).
TABLE6 = {
    "TCP": ((6.1, 99.6, 68.0, 88.7), (8.8, 13.8, 55, 43.7, 5.8, 6.0)),
    "AIMD": ((7.9, 99.2, 776, 1217), (12.7, 31.0, 349, 342, 18.6, 18.3)),
    "IIAD": ((7.7, 99.8, 4232, 6684), (11.8, 31.2, 1284, 1242, 8.1, 7.6)),
    "SIMD": ((6.6, 96.3, 218, 852), (10.2, 33.2, 90, 85.1, 13.6, 12.3)),
}
ORDER = ["TCP", "SIMD", "AIMD", "IIAD"]  # Jin et al. Table 6 / §6.3: fastest to slowest
THEORY = {"TCP": ("tcp", None), "SIMD": ("simd", 1 / 16), "AIMD": ("aimd", 1 / 16),
          "IIAD": ("iiad", 2 / 3)}
W_PAPER = 110  # Jin et al. §6.3.1/§6.3.2: "W ≈ 110"
DURATION_S = {"TCP": 700, "SIMD": 800, "AIMD": 900, "IIAD": 1100}  # ≥ 400 s + 1.5 × Table 6


def measure(experiment: int, name: str) -> dict:
    r = ccscope.run(jin_parking_lot(experiment, JIN_CONTROLLERS[name], DURATION_S[name]))
    tr = r.trace.flows
    a = tr[tr["flow"] == 0].set_index("time_s")
    b = tr[tr["flow"] == 1].set_index("time_s")
    pre = (a.index >= 300) & (a.index < 400)
    post = a.index >= 400
    srtt = np.r_[(a["window_pkts"] * JIN_PKT_BYTES * 8 / a["rate_bps"])[post].to_numpy(),
                 (b["window_pkts"] * JIN_PKT_BYTES * 8 / b["rate_bps"])[post].to_numpy()]
    rtt = float(np.nanmean(srtt))
    t = a.index[post].to_numpy() - 400.0
    w1, w2 = a["window_pkts"][post].to_numpy(), b["window_pkts"][post].to_numpy()
    fair = np.flatnonzero(np.abs(w1 - w2) < JIN_EPS_PKTS)
    cut = np.flatnonzero((w1[1:] < w1[:-1]) | (w2[1:] < w2[:-1]))
    k = cut[0] if cut.size else None
    return {
        "W1": float(a["window_pkts"][pre].mean()), "W2": float(b["window_pkts"][pre].mean()),
        "rtt_s": rtt,
        "T2": t[fair[0]] / rtt if fair.size else np.inf,
        "T1": t[k + 1] / rtt if k is not None else np.inf,
        "delta": abs(w1[k] - w2[k]) if k is not None else np.nan,
        "W": w1[k] + w2[k] if k is not None else np.nan,
    }


def _report(rows: dict, experiment: int) -> None:
    print(f"\nJin et al. Fig. 20, experiment {experiment}:")
    for name in ORDER:
        m = rows[name]
        p = TABLE6[name][experiment - 1]
        algo, beta = THEORY[name]
        lo, hi = sorted((m["W1"], m["W2"]))
        if lo + hi > W_PAPER:  # Table 2 needs W1 + W2 <= W; report the paper's W1, W2 then
            lo, hi = sorted(p[:2])
        if experiment == 1:
            anal = jin.jin_convergence_t2(algo, W_PAPER, abs(hi - lo), JIN_EPS_PKTS, beta)
            print(f"  {name:4s} W1 {m['W1']:5.1f} (paper {p[0]})  W2 {m['W2']:5.1f} ({p[1]})  "
                  f"T2 {m['T2']:7.1f} RTT (paper simu {p[2]}, anal {p[3]}; Table 2 with these "
                  f"W1, W2: {float(anal):.1f})  RTT {m['rtt_s'] * 1e3:.0f} ms")
        else:
            t1 = jin.jin_convergence_t1(algo, W_PAPER, lo, hi, beta)
            d = jin.jin_convergence_delta(algo, W_PAPER, lo, hi)
            print(f"  {name:4s} W1 {m['W1']:5.1f} (paper {p[0]})  W2 {m['W2']:5.1f} ({p[1]})  "
                  f"T1 {m['T1']:6.1f} RTT (paper simu {p[2]}, anal {p[3]}; Table 2: "
                  f"{float(t1):.1f})  Δ {m['delta']:5.1f} (paper {p[4]}, {p[5]}; Table 2: "
                  f"{float(d):.1f})  W {m['W']:.0f}  RTT {m['rtt_s'] * 1e3:.0f} ms")


@pytest.mark.slow
@pytest.mark.parametrize("experiment", [1, 2])
def test_convergence_ordering_of_table6(experiment):
    rows = {name: measure(experiment, name) for name in ORDER}
    _report(rows, experiment)
    key = "T2" if experiment == 1 else "T1"
    times = [rows[name][key] for name in ORDER]
    assert all(np.isfinite(times)), times
    # Jin et al. Table 6: TCP < SIMD < AIMD < IIAD.
    assert times == sorted(times), dict(zip(ORDER, times, strict=True))


def test_scenario_file_is_the_tested_set_up():
    from validation_setups import SCENARIOS

    from ccscope.scenario import Scenario

    path = SCENARIOS / "jin-fig20-parkinglot.toml"
    built = Scenario.from_dict(jin_parking_lot(1, JIN_CONTROLLERS["SIMD"], DURATION_S["SIMD"]))
    assert ccscope.load(path) == built
