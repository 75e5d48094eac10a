"""BBR v1's steady state and Ware et al. 2019 (ccscope.theory.bbr)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ccscope.theory import bbr as B


def test_the_cap_and_queues_by_worked_numbers():
    # 1250 packets/s and 40 ms: a BDP of 50 packets, a cap of 100 at cwnd_gain 2; a lone flow
    # queues at most the 1.25 phase's 12.5, several flows the cap's extra BDP.
    assert B.bbr_inflight_cap(1250, 0.04) == pytest.approx(100.0)
    assert B.bbr_probe_queue_bound(50) == pytest.approx(12.5)
    assert B.bbr_shared_queue(50) == pytest.approx(50.0)
    assert B.bbr_shared_queue(50, 3) == pytest.approx(100.0)
    # 200 ms and two round trips of 40 ms every 10 s.
    assert B.bbr_probe_rtt_share(0.04) == pytest.approx(0.028)


def test_ware_by_worked_numbers():
    # Ware et al. (9) at X = 16 on a 50-packet BDP: 1/2 − 1/32 − 4/800 = 0.46375; (11): the
    # 800-packet queue drains in 0.64 s, plus 0.2 s and 40 ms, every 10 s.
    assert B.ware_loss_based_share(16, 1, 800) == pytest.approx(0.46375)
    assert B.ware_probe_time_share(800, 1250, 0.04) == pytest.approx(0.088)
    assert B.ware_bbr_share(16, 1250, 0.04) == pytest.approx((1 - 0.46375) * (1 - 0.088))
    # At a buffer of one BDP or less the cap exceeds BDP and buffer together: p = 0.
    assert B.ware_loss_based_share([0.5, 1.0], 1, [25, 50]) == pytest.approx([0.0, 0.0])


@given(st.floats(1.01, 64.0), st.integers(1, 8), st.floats(10.0, 1e4))
def test_the_simple_model_is_the_deep_buffer_limit(x, n, bdp):
    # Ware et al. (5): one BBR flow in a deep buffer takes half, and (9) approaches it from
    # below as X and q grow; more BBR flows leave the loss-based flows less.
    p = B.ware_loss_based_share(x, n, x * bdp)
    assert 0.0 <= p < 0.5
    assert B.ware_loss_based_share(x, n + 1, x * bdp) <= p
    assert B.ware_loss_based_share(1e6, 1, 1e6 * bdp) == pytest.approx(0.5, abs=1e-5)


@given(st.floats(0.1, 64.0), st.floats(10.0, 1e5), st.floats(1e-3, 0.5))
def test_shares_are_shares(x, c, rtt):
    s = B.ware_bbr_share(x, c, rtt)
    assert 0.0 <= s <= 1.0


def test_vectorised_and_bad_input():
    assert isinstance(B.ware_bbr_share(np.array([1.0, 2.0]), 1250, 0.04), np.ndarray)
    with pytest.raises(ValueError, match="buffer_bdp"):
        B.ware_bbr_share(0, 1250, 0.04)
    with pytest.raises(ValueError, match="cwnd_gain"):
        B.bbr_inflight_cap(1, 1, 0.5)
    with pytest.raises(ValueError, match="rtprop"):
        B.bbr_probe_rtt_share(float("nan"))


def test_check_rows():
    rows = B.bbr_check_rows()
    assert rows[0]["theory"] == 2.0
    shares = [r["theory"] for r in rows if "share" in r["quantity"]]
    assert shares == sorted(shares, reverse=True)  # deeper buffers leave BBR less
    assert not any("share" in r["quantity"] for r in B.bbr_check_rows(3.0))
