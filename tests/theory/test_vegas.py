"""Brakmo & Peterson 1995, Mo et al. 1999 (ccscope.theory.vegas)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ccscope.theory import vegas as V

pos = st.floats(1e-3, 1e3)


def test_diff_by_worked_numbers():
    # 20 packets, BaseRTT 100 ms, RTT 125 ms: Expected 200 pkt/s, Actual 160 pkt/s, and
    # (200 − 160)·0.1 = 4 packets queued.
    assert V.vegas_diff(20, 0.1, 0.125) == pytest.approx(4.0)
    assert V.vegas_diff(20, 0.1, 0.1) == 0.0


@given(st.floats(0.0, 1e4), pos, st.floats(0.0, 10.0))
def test_diff_is_the_flows_backlog(cwnd, base, q):
    # Mo et al. 1999: with RTT = BaseRTT + q and rate cwnd/RTT, Diff is the rate times q.
    rtt = base + q
    assert V.vegas_diff(cwnd, base, rtt) == pytest.approx(
        V.vegas_backlog(cwnd / rtt, q), rel=1e-9, abs=1e-9
    )


@given(st.lists(st.floats(0.1, 100.0), min_size=1, max_size=20), st.floats(1.0, 1e6))
def test_the_alpha_equals_beta_equilibrium_fills_the_link_with_alpha_queued_each(alphas, c):
    rates, q = V.vegas_equilibrium_rates(c, alphas)
    assert rates.sum() == pytest.approx(c)
    assert V.vegas_backlog(rates, q) == pytest.approx(np.array(alphas))
    assert rates.max() / rates.min() == pytest.approx(max(alphas) / min(alphas))


@given(st.floats(0.1, 50.0), st.floats(0.0, 50.0), st.floats(1e-4, 1.0), st.data())
def test_any_two_rates_in_the_band_are_within_the_ratio_bound(alpha, spread, q, data):
    # Backlogs x·q anywhere in [α, β] at a common q give rates within β/α of each other.
    beta = alpha + spread
    b1 = data.draw(st.floats(alpha, beta))
    b2 = data.draw(st.floats(alpha, beta))
    ratio = (b1 / q) / (b2 / q)
    assert ratio <= V.vegas_rate_ratio_bound(alpha, beta) * (1 + 1e-12)


def test_queue_band_and_check_rows():
    assert V.vegas_queue_band(16, 2, 4) == (32.0, 64.0)
    rows = V.vegas_check_rows()
    assert rows[0]["theory"] == "[2, 4]" and rows[2]["theory"] == 2.0
    assert all(r["source"] for r in rows)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: V.vegas_diff(10, 0.1, 0.05), "rtt must be at least base_rtt"),
        (lambda: V.vegas_diff(-1, 0.1, 0.2), "cwnd"),
        (lambda: V.vegas_queue_band(2, 5, 4), "alpha must not exceed beta"),
        (lambda: V.vegas_rate_ratio_bound(0, 4), "alpha"),
        (lambda: V.vegas_equilibrium_rates(1e3, []), "alphas"),
        (lambda: V.vegas_check_rows(gamma=np.nan), "gamma"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()
