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


# --- check h: Jin et al. Fig. 20 parking lot, §6.3.1 and §6.3.2 --------------------------------
#
# Fig. 20 itself is not in the text; what §6.3 gives: c1 + 1 connections share (b1, b2), 2 share
# (b2, b3), c2 + 1 share (b3, b4); background flows end at t = 400 s; 500 B packets (footnote 9);
# Exp. 1: c1 = 15, c2 = 0, x = y = 6 Mb/s, W ≈ 110, W1 ≈ 7, W2 ≈ 100; Exp. 2: c1 = 11, c2 = 3,
# x = 6 Mb/s, y = 10 Mb/s, W ≈ 110, W1 ≈ 10, W2 ≈ 30. Table 4: SACK, max window 128, timer
# granularity 0.1 s, RED limit Q = 2.5 × BDP, min_th 0.15Q, max_th 0.5Q, w_q 0.002, max_p 0.1,
# wait and gentle on. Assumptions (each tuned only to reproduce the paper's W1, W2 at t = 400 s):
# - parking_lot hops: hop0 = (b1, b2) at x, hop1 = (b2, b3) at JIN_C23, hop2 = (b3, b4) at y;
#   flow (s1, r1) crosses hops 0-1, flow (s2, r2) hops 1-2, the c1 background flows hop 0 and
#   the c2 background flows hop 2. (§6.3.1 says s1's bottleneck moves "from (b3, b4)"; with
#   c2 = 0 only (b1, b2) can hold s1 at W1 ≈ 7, so we read it as (b1, b2), as in §6.3.2.)
# - (b2, b3) at 3 Mb/s: with 100 ms propagation RTT and the RED queue that gives W ≈ 110-120
#   packets of 500 B at loss;
# - every hop 10 ms; the two flows' access links 15 ms each side (100 ms propagation RTT, the
#   paper's "100 ms RTT"); background flows 5 ms (b1, b2) and 1 ms (b3, b4) access each side
#   (RTT 40 and 24 ms), shorter than the two flows' so that these get W1 ≈ 7-10 and W2 ≈ 30
#   rather than the equal-RTT shares x/(c1+1), y/(c2+1);
# - RED sized per hop with the BDP at 100 ms; background flows start jittered over 2 s, the two
#   flows over 1 s.

JIN_PKT_BYTES = 500  # Jin et al. §6.3 footnote 9
JIN_C23 = "3Mbps"  # assumed, see above
JIN_EPS_PKTS = 10  # Jin et al. §6.3.1: "we use ε = 10 packets"
JIN_CONTROLLERS = {  # Jin et al. §6 (after Table 4)
    "TCP": {"name": "tcp"},
    "SIMD": {"name": "simd", "beta": 1 / 16},
    "AIMD": {"name": "aimd", "alpha": 0.1, "beta": 1 / 16},  # AIMD(1/10, 1/16), β removed
    "IIAD": {"name": "iiad", "alpha": 1.0, "beta": 2 / 3},
}


def _jin_red(rate_bps: float, rtt_s: float = 0.1) -> dict:
    q = round(2.5 * rate_bps * rtt_s / (JIN_PKT_BYTES * 8))  # Jin et al. Table 4
    return {"kind": "red", "limit": q, "min_th": 0.15 * q, "max_th": 0.5 * q, "w_q": 0.002,
            "max_p": 0.1, "gentle": True, "wait": True, "mean_packet_size": "500B"}


def _jin_hop(rate_mbps: float) -> dict:
    return {"rate": f"{rate_mbps:g}Mbps", "delay": "10ms", "queue": _jin_red(rate_mbps * 1e6)}


def jin_parking_lot(experiment: int, controller: dict, duration_s: float, seed: int = 1) -> dict:
    """Jin et al. Fig. 20, experiment 1 (§6.3.1) or 2 (§6.3.2), all flows running `controller`
    (§6.3: "a homogeneous protocol environment")."""
    c1, c2, x, y = (15, 0, 6, 6) if experiment == 1 else (11, 3, 6, 10)  # Jin et al. §6.3.1/2
    src = tcp(controller, packet_size="500B", max_window=128, tick="100ms")  # Table 4
    flows = [
        {"source": src, "hops": [0, 1], "left_delay": "15ms", "right_delay": "15ms",
         "start_jitter": "1s"},
        {"source": src, "hops": [1, 2], "left_delay": "15ms", "right_delay": "15ms",
         "start_jitter": "1s"},
        {"source": src, "hops": [0, 0], "count": c1, "stop": "400s", "left_delay": "5ms",
         "right_delay": "5ms", "start_jitter": "2s"},
    ]
    if c2:
        flows.append({"source": src, "hops": [2, 2], "count": c2, "stop": "400s",
                      "left_delay": "1ms", "right_delay": "1ms", "start_jitter": "2s"})
    return {
        "run": {"duration": f"{duration_s:g}s", "seed": seed},
        "topology": {"kind": "parking_lot",
                     "hops": [_jin_hop(x), _jin_hop(float(JIN_C23[:-4])), _jin_hop(y)]},
        "flows": flows,
        "trace": {"interval": "100ms", "queues": False},
    }
