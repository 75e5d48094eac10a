"""Yang, Kim & Lam 2003 (ccscope.theory.yang)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ccscope.theory import yang as Y
from ccscope.theory.tcp import gaimd_friendly_alpha


def test_cov_of_tcp_and_gaimd():
    # (5) sqrt(1/3) ~ 0.58 and (6) sqrt(1/15) ~ 0.26, printed to two decimals.
    assert Y.yang_aimd_cov_time(0.5) == pytest.approx(0.58, abs=0.005)
    assert Y.yang_aimd_cov_time(7 / 8) == pytest.approx(0.26, abs=0.005)
    assert Y.yang_aimd_cov_time(7 / 8) == pytest.approx(np.sqrt(1 / 15), rel=1e-12)


def test_fairness_index_from_cov():
    # §3.3.2: F = 1/(1 + 0.58^2) = 0.7 (one decimal), 1/(1 + 0.21^2) = 0.96 (two
    # decimals), 1/(1 + 0.26^2) = 0.93 (the paper truncates 0.9367, hence abs 0.01).
    assert Y.yang_fairness_index(0.58) == pytest.approx(0.7, abs=0.05)
    assert Y.yang_fairness_index(0.21) == pytest.approx(0.96, abs=0.005)
    assert Y.yang_fairness_index(0.26) == pytest.approx(0.93, abs=0.01)


def test_long_term_cov_halves_with_four_times_longer_interval():
    # §3.3.2: CoV_lf at 60 s is about half of that at 15 s, as (2) predicts.
    assert Y.yang_long_term_cov(0.4, 4) == pytest.approx(0.2)


@given(st.floats(0.0, 1.0), st.floats(1.0, 64.0))
def test_b2_matches_markov_chain_b1(p, t):
    # (B.1): p_(2^i) = (1-p) p^i for i <= 5, p_64 = p^6; a packet is sent in an RTT with
    # probability pi_1 = sum p_(2^k)/(2^k t); per-RTT Bernoulli rate -> CoV = sqrt(1/pi1 - 1).
    probs = [(1 - p) * p**i for i in range(6)] + [p**6]
    pi1 = sum(pk / (2**k * t) for k, pk in enumerate(probs))
    assert Y.yang_aimd_timeout_cov_time(p, t) == pytest.approx(
        np.sqrt(1 / pi1 - 1), rel=1e-9, abs=1e-6
    )


@pytest.mark.xfail(strict=True, reason="paper quotes ~1.7/1.73 at p=20%, t=4; (B.2) gives 1.87")
def test_b2_value_quoted_in_paper():
    assert Y.yang_aimd_timeout_cov_time(0.2, 4.0) == pytest.approx(1.73, abs=0.05)


@pytest.mark.parametrize(
    ("raw", "smoothed", "tol"),
    [(0.66, 0.25, 0.005), (0.54, 0.21, 0.005), (2.2, 0.8, 0.05), (6.4, 2.4, 0.05)],
)
def test_c8_tfrc_smoothing(raw, smoothed, tol):
    # Appendix C: CoV[R'] 0.66/0.54 -> CoV[R] 0.25/0.21; 2.2 -> 0.8; 6.4 -> 2.4 (tolerance =
    # half a unit of the printed last digit).
    assert Y.yang_tfrc_cov_time(raw) == pytest.approx(smoothed, abs=tol)


def test_c4_c7_unsmoothed_tfrc_cov():
    # Appendix C: CoV[R'] "between 0.66 and 0.54 when the loss rate varies from 0.5 % to 9 %".
    # The model gives 0.536 at 9 % (abs 0.005) but 0.698 at 0.5 %; we hold the low-loss
    # end to 0.04 only and report the discrepancy.
    assert Y.yang_tfrc_unsmoothed_cov(0.09) == pytest.approx(0.54, abs=0.005)
    assert Y.yang_tfrc_unsmoothed_cov(0.005) == pytest.approx(0.66, abs=0.04)
    vals = Y.yang_tfrc_unsmoothed_cov(np.array([0.005, 0.01, 0.05, 0.09]))
    assert np.all(np.diff(vals) < 0)


def test_tear_cov():
    # (D.5) 0.07708 (5 digits), (D.6) 0.37 (2 digits), (D.7) 0.37 x 0.58 = 0.21.
    assert Y.yang_tear_variance_factor() == pytest.approx(0.07708, abs=5e-6)
    assert Y.yang_tear_cov_time(1.0) == pytest.approx(0.37, abs=0.005)
    assert Y.yang_tear_cov_time(0.58) == pytest.approx(0.21, abs=0.005)


def test_table1_responsiveness_and_aggressiveness():
    # Table 1 / §4.1: D_TCP = 1, D_GAIMD = log_{7/8} 0.5 ~ 5, D_TEAR = 5 RTTs.
    assert Y.yang_aimd_responsiveness(0.5) == pytest.approx(1.0)
    assert round(Y.yang_aimd_responsiveness(7 / 8)) == 5
    assert Y.yang_tear_responsiveness() == 5
    # Table 1 / §5.1: I_TCP = 1.0, I_GAIMD = alpha = 0.31, I_TEAR <= 1/12 ("0.08/RTT").
    assert Y.yang_aimd_aggressiveness(1.0) == 1.0
    assert Y.yang_aimd_aggressiveness(gaimd_friendly_alpha(7 / 8)) == pytest.approx(0.31, abs=0.005)
    assert Y.yang_tear_aggressiveness_bound() == pytest.approx(0.08, abs=0.005)


def test_tear_history_after_five_indications():
    # §4.1: after five indications the history is {W/32, ..., W/2, 3W/4 x3}; its weighted
    # average is at most half of 3W/4, while after four it is still above.
    w = Y.TFRC_LOSS_INTERVAL_WEIGHTS
    five = np.array([1 / 32, 1 / 16, 1 / 8, 1 / 4, 1 / 2, 0.75, 0.75, 0.75])
    four = np.array([1 / 16, 1 / 8, 1 / 4, 1 / 2, 0.75, 0.75, 0.75, 0.75])
    assert w @ five <= 0.375 < w @ four


@pytest.mark.parametrize("level", [0.0, 20.0, 37.0, 50.0])
def test_fig29_congestion_avoidance_refill_integrates_the_growth(level):
    """experiments.yang.ca_refill_rtts is eight flows' congestion avoidance integrated: each adds
    a packet per round trip, which lasts max(W, BDP)/BDP base RTTs (the queue's delay), from
    half of W1 = BDP + level back to W1; stepped here one round trip at a time."""
    from ccscope.experiments.yang import FIG29_BDP_PKTS as bdp
    from ccscope.experiments.yang import ca_refill_rtts

    w1, w, t, dw = bdp + level, (bdp + level) / 2, 0.0, 1e-3
    while w < w1:
        t += dw / 8 * max(w + dw / 2, bdp) / bdp
        w += dw
    assert ca_refill_rtts(level) == pytest.approx(t, rel=1e-3)
