"""Checks a, b, c: packet-level TCP and GAIMD against the models and the papers
(check e, Yang et al. Fig. 6, is the reproduction yang-fig6).

The validation page's table of these checks is `python bench/packet_checks.py`, which calls
the functions here.
"""

import pytest
from validation_setups import GAIMD

import ccscope
from ccscope import metrics, theory


def fat_link(p: float, controller: str = '"tcp"', seconds: int = 1000, seed: int = 1):
    """One flow over a fat link with Bernoulli loss (Jin §6.1.1): RTT 2 (20 + 1 + 1) ms."""
    return ccscope.run(
        ccscope.loads(f'''
[run]
duration = "{seconds}s"
warmup = "20s"
seed = {seed}
[topology]
kind = "fat_link"
rate = "1Gbps"
delay = "20ms"
loss = {{ kind = "bernoulli", p = {p} }}
[[flows]]
source = {{ kind = "tcp", controller = {controller} }}
''')
    )


def pftk_ratio(p: float):
    """One TCP's goodput over PFTK (Padhye et al. 1998) with the flow's own RTT and RTO, b = 1
    (no delayed ACKs) and the 10 000-packet receiver window (packets/s -> bits/s with
    1000-byte packets); and the flow's row."""
    f = fat_link(p).flows.iloc[0]
    model = theory.pftk_throughput(p, f.mean_rtt_s, f.rto_s, 1.0, 10_000) * 8000
    return f.goodput_bps / model, f


def gaimd_ratio(p: float) -> float:
    """GAIMD(0.31, 0.875)'s goodput over TCP's on the same fat link."""
    return fat_link(p, GAIMD).flows.goodput_bps[0] / fat_link(p).flows.goodput_bps[0]


def eight_tcp_on_red():
    """Eight TCP flows on a 10 Mb/s, 20 ms RED bottleneck, 100 s after 10 s."""
    return ccscope.run(
        ccscope.loads("""
[run]
duration = "110s"
warmup = "10s"
seed = 1
[topology]
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "20ms", queue = { kind = "red", limit = 100, min_th = 5, max_th = 15, w_q = 0.002 } }
[[flows]]
source = { kind = "tcp" }
count = 8
start_jitter = "1s"
""")
    )


@pytest.mark.parametrize("p", [0.005, 0.01, 0.02, 0.05])
def test_a_tcp_throughput_matches_pftk(p):
    ratio, f = pftk_ratio(p)
    print(
        f"\na p={p}: goodput {f.goodput_bps / 1e6:.3f} Mb/s, ratio {ratio:.3f}, "
        f"RTT {f.mean_rtt_s * 1e3:.1f} ms, RTO {f.rto_s:.3f} s, timeouts {f.timeouts:.0f}"
    )
    assert ratio == pytest.approx(1, rel=0.15)


@pytest.mark.parametrize("p", [0.005, 0.01, 0.02])
def test_b_gaimd_is_tcp_friendly_under_bernoulli_loss(p):
    ratio = gaimd_ratio(p)
    print(f"\nb p={p}: GAIMD(0.31,0.875)/TCP = {ratio:.3f}")
    assert 0.8 <= ratio <= 1.25


def test_c_eight_tcp_flows_share_a_red_bottleneck_fairly():
    r = eight_tcp_on_red()
    jain = metrics.jain_index(r.flows.goodput_bps)
    print(f"\nc: Jain {jain:.4f}, utilization {r.bottlenecks.utilization[0]:.4f}")
    assert jain >= 0.95
