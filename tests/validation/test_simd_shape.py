"""SIMD(1/16) in the packet engine. Between losses the window follows
w0 + c·t² (Jin et al. eq. (1) with k = −1/2: u = 1/(k+1) = 2), with c as Jin et al. eq. (7),
c ≈ 9β/(8·w_max) (Table 1, SIMD row); each loss removes β·w (multiplicative decrease, eq. (3)
with l = 1).

Set-up (conftest.simd_fat_link): one SIMD(1/16) TCP/SACK flow on a fat link with a loss every
600th packet, 100 ms RTT, window sampled once per RTT; epochs after t = 100 s are in steady
state (w_max ≈ 26). The validation page's table shows what this measures (python
bench/packet_checks.py).
"""

import numpy as np
import pytest
from validation_setups import SIMD_BETA, STEADY_FROM_S, simd_epoch_fit, simd_epochs, simd_fat_link

import ccscope
from ccscope.theory import jin

BETA = SIMD_BETA


@pytest.fixture(scope="module")
def epochs():
    return simd_epochs(ccscope.run(simd_fat_link()))


def test_each_epoch_grows_as_t_squared(epochs):
    steady = [e for e in epochs if e["start_s"] >= STEADY_FROM_S]
    assert len(steady) >= 50
    exps, c_ratio, c_band = [], [], []
    for e in steady:
        p, ratio = simd_epoch_fit(e)
        exps.append(p)
        c_ratio.append(ratio)
        # ACK clocking: a window w sends ⌊w⌋ ≥ w − 1 packets per RTT, so the per-RTT increase
        # is between (w−1)/w and 1 times the fluid α√(w − w0) of (3); c ∝ α² lies between
        # ((w_max−1)/w_max)²·c5 and c5 (Jin et al. (5): c7 / (1 − 2β/3)²).
        c7 = jin.jin_c(BETA, e["w_max"], -0.5, 1, approx=True)
        c5 = jin.jin_c(BETA, e["w_max"], -0.5, 1)
        c_band.append((((e["w_max"] - 1) / e["w_max"]) ** 2 * c5 / c7, c5 / c7))
    exps, c_ratio = np.array(exps), np.array(c_ratio)
    print(
        f"\nSIMD(1/16): {len(steady)} epochs, exponent median {np.median(exps):.3f} "
        f"[{exps.min():.3f}, {exps.max():.3f}] (target 2 ± 0.2); c/c_eq7 median "
        f"{np.median(c_ratio):.4f} [{c_ratio.min():.4f}, {c_ratio.max():.4f}]"
    )
    # Jin et al. (1), Table 1: w(t) = w0 + c t², exponent 2; ± 0.2 is our assumption (the
    # paper states no tolerance).
    assert np.all(np.abs(exps - 2) <= 0.2)
    lo = np.array([b[0] for b in c_band])
    hi = np.array([b[1] for b in c_band])
    assert np.all((c_ratio >= lo) & (c_ratio <= hi)), (c_ratio, lo, hi)


def test_decrease_is_multiplicative(epochs):
    """w0 = (1 − β)·w_max for every w_max (an additive decrease would remove a constant)."""
    # The first reduction ends slow start; ns-2 halves there for any decrease rule (`tcp.cc`
    # `slowdown()` halves the first decrease and any in slow start), so it is not SIMD's decrease.
    later = epochs[1:]
    w_max = np.array([e["w_max"] for e in later])
    ratio = np.array([e["w0"] / e["w_max"] for e in later])
    assert w_max.max() / w_max.min() > 10  # the slow-start overshoot decays from ≈ 600 to ≈ 26
    # w_max is the last sample before the reduction, so it can miss the growth of one RTT,
    # at most 2c·T ≈ 2 · 9β/(8 w_max) · 0.9 w_max = 2.03β packets (epoch T ≈ 0.9 w_max RTTs,
    # Jin et al. App. C.2 SIMD epoch at β ≪ 1), i.e. a relative 2.03β / w_max ≤ 0.5 % here.
    slack = 2.03 * BETA / w_max
    print(
        f"\nw0/w_max over w_max in [{w_max.min():.1f}, {w_max.max():.1f}]: "
        f"[{ratio.min():.4f}, {ratio.max():.4f}] (target 1 − β = {1 - BETA:.4f})"
    )
    # TCP keeps whole packets (ssthresh is floored), which lowers w0 by less than one packet.
    assert np.all(ratio >= (1 - BETA) - 1 / w_max - 1e-9)
    assert np.all(ratio <= (1 - BETA) * (1 + slack) + 1e-9)


def test_scenario_file_is_the_tested_set_up():
    from validation_setups import SCENARIOS

    from ccscope.scenario import Scenario

    built = Scenario.from_dict(simd_fat_link())
    assert ccscope.load(SCENARIOS / "simd-fat-link.toml") == built
