"""CUBIC's theory, RFC 9438 (ccscope.theory.cubic): the window function, the average windows of
§5 against the RFC's own tables, and the Reno-friendly region."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ccscope import theory as T

loss_rates = st.floats(min_value=1e-9, max_value=1.0)
rtts = st.floats(min_value=1e-4, max_value=10.0)
cs = st.floats(min_value=1e-3, max_value=100.0)
betas = st.floats(min_value=1e-3, max_value=1 - 1e-3)

#: RFC 9438 Table 1 (RTT = 0.1 s) and Table 2 (RTT = 0.01 s): loss rate, then CUBIC's average
#: window at C = 0.04, 0.4 and 4, as printed (rounded to whole packets).
TABLE1 = [
    (1e-2, 12, 12, 12),
    (1e-3, 38, 38, 59),
    (1e-4, 120, 187, 333),
    (1e-5, 593, 1054, 1874),
    (1e-6, 3332, 5926, 10538),
    (1e-7, 18740, 33325, 59261),
    (1e-8, 105383, 187400, 333250),
]
TABLE2 = [
    (1e-2, 12, 12, 12),
    (1e-3, 38, 38, 38),
    (1e-4, 120, 120, 120),
    (1e-5, 379, 379, 379),
    (1e-6, 1200, 1200, 1874),
    (1e-7, 3795, 5926, 10538),
    (1e-8, 18740, 33325, 59261),
]

#: The tables take Reno's window from RFC 3649, 1.2/√p; Figure 3 at α_cubic gives √(3/2)/√p,
#: 2.06% more. Entries in the Reno-friendly region are held to that, the others to rounding.
RENO_RFC3649 = 1.2


@pytest.mark.parametrize(("rtt", "table"), [(0.1, TABLE1), (0.01, TABLE2)])
def test_rfc9438_tables_1_and_2(rtt, table):
    for p, *printed in table:
        for c, value in zip((0.04, 0.4, 4.0), printed, strict=True):
            ours = T.cubic_response(p, rtt, c)
            if T.cubic_reno_friendly(p, rtt, c):
                assert ours == pytest.approx(math.sqrt(1.5) / RENO_RFC3649 * value, abs=0.5)
            else:
                assert round(ours) == value, (rtt, p, c, ours)


def test_figure_8_constant():
    # RFC 9438 Figure 8: with C = 0.4 and β = 0.7, Figure 6 is 1.054·(RTT/p)^(3/4) (printed to
    # four digits).
    assert T.cubic_mean_window(1.0, 1.0) == pytest.approx(1.054, abs=5e-4)


def test_the_cubic_returns_to_w_max_at_k():
    # Figures 1 and 2: from W_max = 100 reduced to 70, K = ∛(30/0.4) = ∛75 s; half-way there
    # the window is 100 − 0.4·75/8 = 96.25.
    k = T.cubic_k(100, 70)
    assert k == pytest.approx(75 ** (1 / 3), rel=1e-15)
    assert T.cubic_window(0, 100, k) == pytest.approx(70, rel=1e-14)
    assert T.cubic_window(k / 2, 100, k) == pytest.approx(96.25, rel=1e-14)
    assert T.cubic_window(k, 100, k) == 100


@given(loss_rates, rtts, cs, betas)
def test_figure_6_is_appendix_c_fixed_point(p, rtt, c, beta):
    # Appendix C: the average is (1/p)/(K/RTT) (Figure 9) with K from Figure 12, and W_max
    # from Figure 10 with cwnd_epoch = β·W_max puts the stage's K at the same value.
    k = (4 * (1 - beta) / (c * (3 + beta)) * rtt / p) ** 0.25  # Figure 12
    assert T.cubic_mean_window(p, rtt, c, beta) == pytest.approx((1 / p) / (k / rtt), rel=1e-12)
    w_max = c * k**3 / (1 - beta)
    assert T.cubic_k(w_max, beta * w_max, c) == pytest.approx(k, rel=1e-12)


@given(loss_rates, rtts, st.floats(min_value=1.01, max_value=100.0))
def test_figure_6_scales_as_rtt_over_p_to_three_quarters(p, rtt, factor):
    w = T.cubic_mean_window(p, rtt)
    assert T.cubic_mean_window(p, rtt * factor) == pytest.approx(w * factor**0.75, rel=1e-12)
    assert T.cubic_mean_window(p / factor, rtt) == pytest.approx(w * factor**0.75, rel=1e-12)


@given(loss_rates, betas)
def test_alpha_cubic_gives_renos_average_whatever_beta(p, beta):
    # RFC 9438 §4.3: AIMD(3(1 − β)/(1 + β), β) has Reno's AIMD(1, 0.5) average window.
    alpha = T.aimd_friendly_alpha_beta_kept(beta)
    reno = T.aimd_mean_window(p, 1.0, 0.5)
    assert T.aimd_mean_window(p, alpha, beta) == pytest.approx(reno, rel=1e-12)
    assert reno == pytest.approx(math.sqrt(1.5 / p), rel=1e-12)


@given(rtts, cs, betas)
def test_the_region_boundary_equates_figures_3_and_6(rtt, c, beta):
    p = T.cubic_reno_friendly_loss_rate(rtt, c, beta)
    if not 1e-300 < p < 1:
        return
    reno = math.sqrt(1.5 / p)
    assert T.cubic_mean_window(p, rtt, c, beta) == pytest.approx(reno, rel=1e-9)
    above, below = min(1.0, 2 * p), p / 2
    assert T.cubic_reno_friendly(above, rtt, c, beta) or above == 1.0
    assert not T.cubic_reno_friendly(below, rtt, c, beta)
    assert T.cubic_response(below, rtt, c, beta) == T.cubic_mean_window(below, rtt, c, beta)


def test_boundary_at_the_rfc_values():
    # C(3 + β)·RTT³/(9(1 − β)) = 0.4·3.7·1e-3/2.7 at RTT = 0.1 s: between Table 1's 1e-4
    # (CUBIC's own window, 187) and 1e-3 (Reno's, 38).
    assert T.cubic_reno_friendly_loss_rate(0.1) == pytest.approx(1.48e-3 / 2.7, rel=1e-12)
    assert T.cubic_reno_friendly(1e-3, 0.1) and not T.cubic_reno_friendly(1e-4, 0.1)


def test_theory_report_at_the_users_parameters():
    report = T.cubic_theory(c=4.0, beta=0.8, rtt=0.01, loss_rates=(1e-2, 1e-8))
    assert report["alpha_cubic"] == pytest.approx(0.6 / 1.8)
    assert report["reno_friendly_above_p"] == pytest.approx(4 * 3.8 * 1e-6 / 1.8)
    low, high = report["windows"]
    assert low["region"] == "Reno-friendly" and low["window"] == low["reno_window"]
    assert high["region"] == "cubic" and high["window"] == high["cubic_window"]


def test_vectorised():
    w = T.cubic_response(np.array([1e-2, 1e-4]), 0.1)
    assert isinstance(w, np.ndarray) and w.shape == (2,)
    assert isinstance(T.cubic_reno_friendly(np.array([1e-2, 1e-4]), 0.1), np.ndarray)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: T.cubic_mean_window(0.0, 0.1), "p"),
        (lambda: T.cubic_mean_window(1e-3, -0.1), "rtt"),
        (lambda: T.cubic_mean_window(1e-3, 0.1, c=0.0), "c"),
        (lambda: T.cubic_response(1e-3, 0.1, beta=1.0), "beta"),
        (lambda: T.cubic_k(100, 120), "cwnd_epoch"),
        (lambda: T.cubic_window(-1.0, 100, 4), "t"),
        (lambda: T.aimd_mean_window(1e-3, 0.0, 0.5), "alpha"),
    ],
)
def test_out_of_domain_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()
