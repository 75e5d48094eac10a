"""Copa's equilibrium, Arun & Balakrishnan 2018 §2.1 (ccscope.theory.copa)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ccscope.theory import copa as C


def test_by_worked_numbers():
    # δ = 0.5 at dq = 4 ms: 500 packets/s, which keeps 500·0.004 = 2 = 1/δ packets queued.
    assert C.copa_target_rate(0.5, 0.004) == pytest.approx(500.0)
    assert C.copa_standing_queue(1, 0.5) == pytest.approx(2.0)
    # Four flows on 1250 packets/s: 8 packets, 6.4 ms.
    assert C.copa_queueing_delay(4, 0.5, 1250) == pytest.approx(0.0064)


@given(st.integers(1, 100), st.floats(0.01, 1.0), st.floats(1.0, 1e6))
def test_n_flows_at_their_targets_fill_the_link(n, delta, c):
    # At dq = n/(δ·C) each flow's target is C/n: together they fill the link, and each keeps
    # λt·dq = 1/δ packets queued (Little's law).
    dq = C.copa_queueing_delay(n, delta, c)
    rate = C.copa_target_rate(delta, dq)
    assert n * rate == pytest.approx(c)
    assert rate * dq == pytest.approx(1.0 / delta)


def test_bad_input():
    with pytest.raises(ValueError, match="delta"):
        C.copa_standing_queue(1, 0.0)
    with pytest.raises(ValueError, match="queueing_delay"):
        C.copa_target_rate(0.5, 0.0)
    assert C.copa_check_rows(0.25)[0]["theory"] == 4.0
