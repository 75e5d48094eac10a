"""Scenario builders for the packet-level validation checks of the window-based transports
that are not reproductions; the reproductions' set-ups live with them in
ccscope.experiments. Each builder returns a scenario dict for :func:`ccscope.run`; every set-up
choice that the paper leaves open is stated beside the value it sets.

Paper: Jin, Guo, Matta & Bestavros 2001 (BU-CS TR-2001-015), "A spectrum of TCP-friendly
window-based congestion control algorithms".
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

# pytest runs in importlib mode, where a test module cannot import this conftest by name; it is
# registered as `validation_setups` so that the tests can `from validation_setups import ...`.
sys.modules.setdefault("validation_setups", sys.modules[__name__])

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def tcp(controller: dict, **extra) -> dict:
    """A TCP/SACK source with a catalogued window controller (ns-2 defaults otherwise)."""
    return {"kind": "tcp", "variant": "sack", "controller": controller, **extra}


GAIMD = '{ name = "gaimd", alpha = 0.31, beta = 0.875 }'  # Yang & Lam's TCP-friendly pair


# --- check d: SIMD window shape ----------------------------------------------------------------

SIMD_BETA = 1 / 16  # Jin et al. §6, Table 4 text: "We choose β = 1/16 for SIMD"
SIMD_RTT_S = 0.100  # 2 × (48 ms fat link + 1 ms + 1 ms access); queueing is nil on a fat link
SIMD_LOSS_EVERY = 600  # one loss per ~600 packets: steady w_max ≈ 26, epochs ≈ 23 RTTs


def simd_fat_link(duration_s: float = 300.0, seed: int = 1) -> dict:
    """One SIMD(1/16) flow on a fat link with periodic loss (Jin et al. §6.1.1 uses a fat link
    with random loss; periodic loss gives identical, deterministic epochs)."""
    return {
        "run": {"duration": f"{duration_s:g}s", "seed": seed},
        "topology": {
            "kind": "fat_link",
            "rate": "10Gbps",
            "delay": "48ms",
            "loss": {"kind": "periodic", "every": SIMD_LOSS_EVERY},
        },
        "flows": [{"source": tcp({"name": "simd", "beta": SIMD_BETA})}],
        # One sample per RTT, as the issue asks.
        "trace": {"interval": "100ms", "queues": False},
    }


STEADY_FROM_S = 100.0  # the slow-start overshoot (w ≈ 600) has decayed by then


def simd_epochs(result) -> list[dict]:
    """The congestion epochs of :func:`simd_fat_link`'s run: start time, w_max, w0 and the
    growth w − w0 against the RTTs since the reduction (while the window grows)."""
    rtt = result.flows.loc[0, "mean_rtt_s"]
    assert result.flows.loc[0, "timeouts"] == 0
    tr = result.trace.flows
    w = tr["window_pkts"].to_numpy()
    t = tr["time_s"].to_numpy()
    # A reduction removes β·w = w/16; growth within one RTT bin is < w/100.
    drops = [i for i in range(1, len(w)) if w[i] < w[i - 1] * (1 - SIMD_BETA / 2)]
    out = []
    for a, b in zip(drops, drops[1:], strict=False):
        seg, tt = w[a:b], (t[a:b] - t[a]) / rtt
        w0, w_max = seg.min(), w[a - 1]
        d = seg - w0
        grow = d > 1e-9  # the window is frozen during SACK recovery
        out.append({"start_s": t[a], "w_max": w_max, "w0": w0, "t": tt[grow], "d": d[grow]})
    return out


def simd_epoch_fit(e: dict) -> tuple[float, float]:
    """One epoch's fitted exponent p of w − w0 = c (t − t0)^p, and c (exponent held at 2) over
    Jin et al. (7)'s c = 9β/(8 w_max)."""
    from scipy.optimize import curve_fit

    from ccscope.theory import jin

    c7 = jin.jin_c(SIMD_BETA, e["w_max"], -0.5, 1, approx=True)

    def model(t, c, t0, p):
        return c * np.clip(t - t0, 1e-9, None) ** p

    # Exponent: t0 absorbs where in its RTT bin the epoch began.
    (_, _, p), _ = curve_fit(model, e["t"], e["d"], p0=(c7, 0.0, 2.0), maxfev=10_000)
    # c: √(w − w0) is linear in t with slope √c.
    slope, _ = np.polyfit(e["t"], np.sqrt(e["d"]), 1)
    return float(p), float(slope**2 / c7)
