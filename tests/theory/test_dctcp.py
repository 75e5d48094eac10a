"""Alizadeh et al. 2010 §3.3-3.4 (ccscope.theory.dctcp)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ccscope.theory import dctcp as D

windows = st.floats(1.0, 1e5)


def s(w1, w2):
    """Packets sent while a window grows from w1 to w2, Alizadeh et al. (4)."""
    return (w2**2 - w1**2) / 2


@given(windows)
def test_alpha_solves_5_and_6(w):
    a = D.dctcp_alpha(w)
    assert 0 < a <= 1
    assert a * a * (1 - a / 4) == pytest.approx((2 * w + 1) / (w + 1) ** 2, rel=1e-9)
    # (5): the marked fraction is the last RTT's packets over the whole period's.
    assert a == pytest.approx(s(w, w + 1) / s((w + 1) * (1 - a / 2), w + 1), rel=1e-9)


@given(st.floats(1e3, 1e7))
def test_the_approximation_of_6_holds_for_large_windows(w):
    assert D.dctcp_alpha_approx(w) == pytest.approx(D.dctcp_alpha(w), rel=0.05)


@given(st.floats(1e3, 1e7), st.floats(1e-5, 1e-2), st.floats(0.0, 100.0), st.integers(1, 100))
def test_amplitude_and_queue_extremes_8_to_12(c, rtt, k, n):
    a = D.dctcp_queue_amplitude(c, rtt, k, n)
    w = D.dctcp_critical_window(c, rtt, k, n)
    assert a == pytest.approx(n * D.dctcp_window_amplitude(w))
    assert D.dctcp_period_rtts(c, rtt, k, n) == pytest.approx(a / n)
    # (10): N(W* + 1) − C·RTT = K + N.
    assert n * (w + 1) - c * rtt == pytest.approx(D.dctcp_queue_max(k, n), abs=1e-6 * c * rtt)
    approx = D.dctcp_queue_amplitude_approx(c, rtt, k, n)
    assert D.dctcp_queue_min(c, rtt, k, n) == pytest.approx(D.dctcp_queue_max(k, n) - approx)
    if w > 1000:
        assert a == pytest.approx(approx, rel=0.05)


@given(st.floats(10.0, 1e4), st.floats(0.01, 10.0))
def test_13_is_where_no_number_of_flows_empties_the_queue(bdp, factor):
    # (12) over real N ≥ 1 is least at N = (C·RTT + K)/8; with K above C·RTT/7 it stays
    # positive for every N, below it some N empties the queue.
    k = D.dctcp_min_threshold(bdp, 1.0) * factor
    n = np.append(np.linspace(1.0, 10 * (bdp + k), 10_000), max((bdp + k) / 8, 1.0))
    least = D.dctcp_queue_min(bdp, 1.0, k, n).min()
    if factor > 1.001:
        assert least > 0
    elif factor < 0.999 and (bdp + k) / 8 >= 1:
        assert least < 0


def test_the_papers_numbers():
    # Fig. 12's set-up: 10 Gb/s of 1500-byte packets, 100 µs, g = 1/16. (13) asks K > 11.9;
    # with K = 40 and N = 2: W* = (83.3 + 40)/2 = 61.7, A ≈ 11.1 packets, Q_max = 42, and (15)
    # allows g = 1/16.
    c = 10e9 / (8 * 1500)
    assert D.dctcp_min_threshold(c, 100e-6) == pytest.approx(11.9, abs=0.05)
    assert D.dctcp_critical_window(c, 100e-6, 40, 2) == pytest.approx(61.67, abs=0.01)
    assert D.dctcp_queue_amplitude_approx(c, 100e-6, 40, 2) == pytest.approx(11.1, abs=0.05)
    assert D.dctcp_queue_max(40, 2) == 42
    assert 1 / 16 < D.dctcp_max_gain(c, 100e-6, 40)
    assert D.dctcp_alpha(0.5) == 1.0
    rows = D.dctcp_check_rows(1 / 16, c, 100e-6, 40, 2)
    assert [r["theory"] for r in rows[-2:]] == ["holds", "holds"]
    assert all(r["source"].startswith("Alizadeh et al.") for r in rows)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: D.dctcp_alpha(0.0), "w_star"),
        (lambda: D.dctcp_queue_amplitude(1e6, 1e-4, -1, 2), "k"),
        (lambda: D.dctcp_queue_min(1e6, 1e-4, 10, 0.5), "flows"),
        (lambda: D.dctcp_min_threshold(np.nan, 1e-4), "capacity"),
        (lambda: D.dctcp_check_rows(1.5, 1e6, 1e-4, 10, 2), "g"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()
