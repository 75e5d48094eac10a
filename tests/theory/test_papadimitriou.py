"""Papadimitriou & Zhang 2007 (ccscope.theory.papadimitriou)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ccscope.theory import papadimitriou as P

pos = st.floats(min_value=1e-3, max_value=1e3)


@given(pos, st.floats(1e3, 1e9), st.floats(40.0, 9000.0))
def test_beta_is_half_when_buffer_is_bdp(rtt0, capacity, size):
    # §IV-A: "beta = 0.5 when the buffer size is equal to the bandwidth-delay product".
    bdp = P.ssvp_knee_packets(rtt0, capacity, size)
    assert P.ssvp_optimal_beta(bdp, size, rtt0, capacity) == pytest.approx(0.5)


@given(pos, st.floats(0.0, 1e3), st.floats(1e3, 1e9), st.floats(40.0, 9000.0))
def test_17_is_knee_over_cliff_and_20_at_the_cliff(rtt0, buf, capacity, size):
    # (17) = (12)/(16) with qdelay_max = bufSize*S/B; (20) with RTT = RTT0 + qdelay_max.
    qmax = buf * size / capacity
    beta = P.ssvp_optimal_beta(buf, size, rtt0, capacity)
    knee = P.ssvp_knee_packets(rtt0, capacity, size)
    cliff = P.ssvp_cliff_packets(rtt0, qmax, capacity, size)
    assert beta == pytest.approx(knee / cliff)
    assert P.ssvp_adaptive_beta(rtt0, rtt0 + qmax) == pytest.approx(beta)


@given(pos, pos, st.floats(1.0, 10.0))
def test_21_is_ipg_over_beta(ipg, rtt_min, factor):
    # (21) = (4) with beta from (20).
    rtt = rtt_min * factor
    assert P.ssvp_ipg_after_loss(ipg, rtt_min, rtt) == pytest.approx(
        ipg / P.ssvp_adaptive_beta(rtt_min, rtt)
    )


def test_half_bdp_buffer_used_in_simulations():
    # §V-A: buffer ~ half the BDP -> (17) gives beta = 2/3 (exact arithmetic).
    assert P.ssvp_optimal_beta(0.5 * 8.0, 1000.0, 0.064, 125000.0) == pytest.approx(2 / 3)
