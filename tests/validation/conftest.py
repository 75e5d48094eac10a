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
