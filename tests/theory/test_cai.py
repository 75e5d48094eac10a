"""Cai, Shen, Pan & Mark 2005 (ccscope.theory.cai)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ccscope.theory import cai as C
from ccscope.theory.tcp import aimd_friendly_alpha_beta_kept as friendly

unit = st.floats(min_value=0.01, max_value=0.99)
caps = st.floats(min_value=1.0, max_value=1e4)


@given(unit, caps)
def test_overload_windows_with_friendly_alpha(beta, r):
    # §III-C1: with (13), AIMD cwnd at overload is 3r/(5+2beta), TCP's 2(1+beta)r/(5+2beta).
    a = friendly(beta)
    assert C.cai_aimd_overload_window(a, beta, r) == pytest.approx(3 * r / (5 + 2 * beta))
    assert C.cai_tcp_overload_window(a, beta, r) == pytest.approx(
        2 * (1 + beta) * r / (5 + 2 * beta)
    )


@given(unit, caps, st.floats(0.01, 3.0))
def test_mean_windows_equal_iff_13(beta, r, alpha):
    # (11) = (12) is the necessary and sufficient condition (13).
    a = friendly(beta)
    assert C.cai_aimd_mean_window(a, beta, r) == pytest.approx(C.cai_tcp_mean_window(a, beta, r))
    if abs(alpha - a) > 1e-6:
        assert C.cai_aimd_mean_window(alpha, beta, r) != pytest.approx(
            C.cai_tcp_mean_window(alpha, beta, r), rel=1e-9
        )


@given(unit, unit)
def test_16_constant_and_14_ratio(b1, b2):
    # (16): alpha(1+beta)/(1-beta) = 3 (TCP's value) for every (13) pair; (14) is the ratio.
    assert C.cai_friendliness_constant(friendly(b1), b1) == pytest.approx(3.0)
    assert C.cai_friendly_alpha_ratio(b1, b2) == pytest.approx(friendly(b1) / friendly(b2))


@pytest.mark.parametrize(("k", "alpha2"), [(2, 0.8), (3, 1.8), (4, 3.2)])
def test_service_differentiation_40(k, alpha2):
    # §IV-C: alpha1 = 1, beta1 = 0.5, beta2 = 0.875 -> alpha2 = 0.8, 1.8, 3.2 (exact).
    assert C.cai_weighted_alpha_ratio(k, 0.5, 0.875) * 1.0 == pytest.approx(alpha2, rel=1e-12)


def test_sender_delay_reduced_by_six_sevenths():
    # §IV-B: "Let beta be 0.875 instead of 0.5, the delay can be reduced by a factor of 6/7".
    ratio = C.cai_sender_queuing_delay(0.875, 1.0) / C.cai_sender_queuing_delay(0.5, 1.0)
    assert 1 - ratio == pytest.approx(6 / 7, rel=1e-12)


def test_consumption_rate_ratio():
    # §IV-A1: "C of an AIMD(1, 0.5) flow is 25 % less than that of AIMD(0.2, 0.875)";
    # (34) gives C_max(0.875)/C_max(0.5) = 1.875/1.5 = 1.25, i.e. 25 % *more* for 0.875
    # (equivalently 20 % less for 0.5) — the paper's percentage is relative to the smaller.
    assert C.cai_max_consumption_rate(0.875, 10) / C.cai_max_consumption_rate(0.5, 10) == (
        pytest.approx(1.25)
    )


@given(unit, caps)
def test_receiver_buffer_first_term_is_continuous_fill(beta, r):
    # The r^2(1-beta^2)/24 term equals the filling-phase surplus (r - C_max)^2/(2 alpha)
    # with alpha from (13); the second term adds r(1-beta)/4.
    a = friendly(beta)
    surplus = (r - C.cai_max_consumption_rate(beta, r)) ** 2 / (2 * a)
    assert C.cai_min_receiver_buffer(beta, r) == pytest.approx(surplus + r * (1 - beta) / 4)


@given(st.floats(0.05, 3.0), unit, caps)
def test_24_limits(alpha, beta, r):
    # (24) at B = 0 is (25); at B = B' utilisation reaches exactly 1 (continuity).
    assert C.cai_single_flow_utilization(alpha, beta, r, 0.0) == pytest.approx(
        C.cai_utilization_no_buffer(beta)
    )
    bp = C.cai_buffer_threshold(alpha, beta, r)
    assert C.cai_single_flow_utilization(alpha, beta, r, bp) == pytest.approx(1.0, rel=1e-6)
    assert C.cai_single_flow_utilization(alpha, beta, r, 2 * bp + 1) == 1.0


def test_larger_beta_needs_smaller_buffer():
    # §III-B1: "TCP-friendly AIMD flows with a larger beta only require a smaller buffer".
    betas = np.array([0.5, 0.667, 0.765, 0.875])
    bp = C.cai_buffer_threshold(friendly(betas), betas, 30.0)
    assert np.all(np.diff(bp) < 0)


@given(unit, st.integers(1, 1000))
def test_27_best_case(beta, n):
    assert C.cai_best_case_utilization(beta, 1) == pytest.approx(C.cai_utilization_no_buffer(beta))
    assert C.cai_utilization_no_buffer(beta) <= C.cai_best_case_utilization(beta, n) + 1e-12
    assert C.cai_best_case_utilization(beta, n) < 1.0


@given(unit, st.floats(0.5, 50.0), st.floats(0.01, 0.49))
def test_29_and_30_follow_from_28(beta, n, share):
    assert C.cai_friendly_convergence_speed(beta, n) == pytest.approx(
        C.cai_convergence_speed(friendly(beta), beta, n)
    )
    cycles = np.log(1 - 2 * share) / np.log(beta)
    assert C.cai_time_to_share_speed(beta, share) == pytest.approx(
        C.cai_friendly_convergence_speed(beta, cycles)
    )


@given(st.floats(0.0, 1.0), caps, st.floats(0.05, 3), unit, st.floats(0.05, 3), unit)
def test_33_is_gain_over_cycle_time(frac, r, a1, b1, a2, b2):
    # (33) = (x1 - x0) / ((x1 - beta1 x0)/alpha1) with x1 from (31); (32): x1 + y1 = r.
    x0 = frac * r
    x1, y1 = C.cai_two_class_next_point(x0, r, a1, b1, a2, b2)
    assert x1 + y1 == pytest.approx(r)
    speed = C.cai_two_class_convergence_speed(x0, r, a1, b1, a2, b2)
    assert speed == pytest.approx((x1 - x0) / ((x1 - b1 * x0) / a1), rel=1e-7, abs=1e-9)


def test_dtaimd_rule():
    # §III-C3, L1-L6 with beta = 0.875: regular alpha 0.2 for cwnd >= 8, alpha = 1 at
    # cwnd = 1, 3/(2cwnd-1) in between; the branches meet at cwnd = 1/(1-beta).
    assert C.dtaimd_alpha(1.0, 0.875) == 1.0
    assert C.dtaimd_alpha(4.0, 0.875) == pytest.approx(3 / 7)
    assert C.dtaimd_alpha(8.0, 0.875) == pytest.approx(0.2)
    assert C.dtaimd_alpha(50.0, 0.875) == pytest.approx(0.2)
    assert C.dtaimd_alpha(8.0 - 1e-9, 0.875) == pytest.approx(0.2, rel=1e-6)
    assert np.allclose(C.dtaimd_alpha(np.array([1.0, 2.0, 16.0]), 0.5), [1.0, 1.0, 1.0])


@given(st.floats(0.1, 5.0), unit, st.floats(5.0, 1e3))
def test_iiad_appendix_is_self_consistent(alpha, beta, r):
    # Appendix: IIAD range equals its additive decrease beta, TCP max = 2 * TCP min,
    # and both maxima sum to the capacity r.
    imin, imax, tmin, tmax = C.cai_iiad_tcp_window_bounds(alpha, beta, r)
    assert imax - imin == pytest.approx(beta)
    assert tmax == pytest.approx(2 * tmin)
    assert imax + tmax == pytest.approx(r)


def test_iiad_ratio_a3():
    # (A.3): equal parameters give 1 for any r; different ones depend on r.
    assert C.cai_iiad_window_ratio(1.0, 0.5, 1.0, 0.5, np.array([10.0, 100.0])) == (
        pytest.approx([1.0, 1.0])
    )
    v = C.cai_iiad_window_ratio(1.0, 0.5, 2.0, 0.3, np.array([10.0, 100.0]))
    assert abs(v[0] - v[1]) > 1e-3
