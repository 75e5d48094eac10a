"""Scenario builders for the packet-level validation checks of issue 3 ("Window-based
transports"). Each builder returns a scenario dict for :func:`ccscope.run`; every set-up choice
that the papers leave open is stated beside the value it sets.

Papers: Jin, Guo, Matta & Bestavros 2001 (BU-CS TR-2001-015), "A spectrum of TCP-friendly
window-based congestion control algorithms"; Cai, Shen, Pan & Mark 2005 (IEEE Trans. Multimedia
7(2)), "Performance analysis of TCP-friendly AIMD algorithms for multimedia applications".
"""

from __future__ import annotations

import sys
from pathlib import Path

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
        "topology": {"kind": "fat_link", "rate": "10Gbps", "delay": "48ms",
                     "loss": {"kind": "periodic", "every": SIMD_LOSS_EVERY}},
        "flows": [{"source": tcp({"name": "simd", "beta": SIMD_BETA})}],
        # One sample per RTT, as the issue asks.
        "trace": {"interval": "100ms", "queues": False},
    }


# --- check g: Cai Figs. 8-9, n TCP + n (D)TAIMD on a 15 Mb/s RED link -----------------------


def cai_mix(n: int, kind: str, duration_s: float = 100.0, warmup_s: float = 20.0,
            seed: int = 1) -> dict:
    """n TCP and n `kind` ("taimd" or "dtaimd") flows, AIMD(0.2, 0.875), on 15 Mb/s RED.

    From Cai et al. §V: bottleneck 20 ms propagation delay, RED, MSS 1000 B, "the rtt of each
    flow is made slightly different"; §V-A2c: RED thresholds 25 and 125 packets (stated for the
    same 15 Mb/s experiment group, Fig. 13). Assumed (not in the paper): max_p 0.1, gentle and
    w_q automatic (ns-2.35 defaults), queue limit 250 packets (2 × max_th), access delays spread
    over 1–5 ms (golden-ratio sequence, the classes interleaved so neither gets the short ones),
    starts jittered over 1 s, 100 s runs measured after 20 s.
    """
    flows = []
    for i in range(2 * n):
        ctl = {"name": "tcp"} if i % 2 == 0 else {"name": kind, "alpha": 0.2, "beta": 0.875}
        delay_ms = 1 + 4 * ((i * 0.6180339887) % 1)
        flows.append({"source": tcp(ctl), "left_delay": f"{delay_ms:.3f}ms",
                      "start_jitter": "1s"})
    return {
        "run": {"duration": f"{duration_s:g}s", "warmup": f"{warmup_s:g}s", "seed": seed},
        "topology": {"kind": "dumbbell", "bottleneck": {
            "rate": "15Mbps", "delay": "20ms",
            "queue": {"kind": "red", "min_th": 25, "max_th": 125, "limit": 250, "max_p": 0.1}}},
        "flows": flows,
    }
