"""TCP throughput models and TCP-friendly α rules (ccscope.theory.tcp)."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ccscope.theory import tcp

betas = st.floats(min_value=1e-3, max_value=1 - 1e-3)


# --- TCP-friendly α rules ------------------------------------------------------------


def test_gaimd_alpha_at_seven_eighths_is_031():
    # Yang et al. §1 and Papadimitriou & Zhang §II: beta = 7/8 -> alpha = 0.31;
    # exact value 4(1 - 49/64)/3 = 0.3125, printed to two decimals (tolerance 0.005).
    assert tcp.gaimd_friendly_alpha(7 / 8) == pytest.approx(0.3125, abs=1e-12)
    assert tcp.gaimd_friendly_alpha(7 / 8) == pytest.approx(0.31, abs=0.005)


def test_ssvp_pairs_from_papadimitriou():
    # Papadimitriou & Zhang §VI: TCP-friendly pairs (0.31, 0.875) and (0.58, 0.75);
    # printed to two decimals.
    assert tcp.gaimd_friendly_alpha(0.875) == pytest.approx(0.31, abs=0.005)
    assert tcp.gaimd_friendly_alpha(0.75) == pytest.approx(0.58, abs=0.005)


@pytest.mark.parametrize(("alpha", "beta"), [(0.2, 0.875), (0.4, 0.765), (0.6, 0.667), (1.0, 0.5)])
def test_cai_friendly_pairs(alpha, beta):
    # Cai et al. §V-A2: four pairs "chosen according to the TCP-friendly condition" (13);
    # alpha printed with one significant decimal, beta with three: tolerance 0.002.
    assert tcp.aimd_friendly_alpha_beta_kept(beta) == pytest.approx(alpha, abs=0.002)


@pytest.mark.parametrize(
    ("alpha", "beta"), [(1 / 5, 1 / 8), (1 / 10, 1 / 16), (1 / 20, 1 / 30), (1.0, 0.5)]
)
def test_jin_aimd_pairs(alpha, beta):
    # Jin et al. §5/§6: AIMD(1/5,1/8), AIMD(1/10,1/16) ("alpha ~ 1/10"), AIMD(1/20,1/30),
    # TCP; the paper rounds 3/31 = 0.0968 to 1/10, hence 5 % relative tolerance.
    assert tcp.aimd_friendly_alpha_beta_removed(beta) == pytest.approx(alpha, rel=0.05)


@given(betas)
def test_removed_and_kept_rules_are_the_same_rule(b):
    # 3b/(2-b) with b removed equals 3(1-beta)/(1+beta) with beta = 1 - b kept.
    assert tcp.aimd_friendly_alpha_beta_removed(b) == pytest.approx(
        tcp.aimd_friendly_alpha_beta_kept(1 - b), rel=1e-12
    )


@given(betas)
def test_only_tcp_satisfies_both_cai_13_and_15(b):
    # Cai et al. §III-A1: "the only (alpha, beta) pair satisfying both (13) and (15) is (1, 0.5)".
    a13 = tcp.aimd_friendly_alpha_beta_kept(b)
    a15 = tcp.gaimd_friendly_alpha(b)
    assert (abs(a13 - a15) < 1e-9) == (abs(b - 0.5) < 1e-9)


def test_all_rules_give_tcp_at_one_half():
    assert tcp.aimd_friendly_alpha_beta_kept(0.5) == pytest.approx(1.0)
    assert tcp.aimd_friendly_alpha_beta_removed(0.5) == pytest.approx(1.0)
    assert tcp.gaimd_friendly_alpha(0.5) == pytest.approx(1.0)


# --- TFRC equation (RFC 5348 §3.1) ---------------------------------------------------

# f(p) = R*X/s from the Linux DCCP CCID-3 table (net/dccp/ccids/lib/tfrc_equation.c),
# an independent RFC 5348 implementation with b = 1, t_RTO = 4R; entries are
# floor(1e6 f(p)), so they are exact to 1e-6 absolute (< 1.3e-4 relative here).
LINUX_F = [
    (0.0001, 0.008172),
    (0.002, 0.037172),
    (0.05, 0.271305),
    (0.1, 0.564939),
    (1.0, 243.315981),
]


@pytest.mark.parametrize(("p", "f"), LINUX_F)
def test_tfrc_equation_matches_linux_table(p, f):
    x = tcp.tfrc_throughput(s=1.0, rtt=1.0, p=p)
    assert 1.0 / x == pytest.approx(f, rel=2e-4)


@given(st.floats(1e-6, 1.0), st.floats(1e-3, 10.0), st.floats(1.0, 9000.0))
def test_tfrc_scales_as_s_over_r(p, r, s):
    assert tcp.tfrc_throughput(s, r, p) * r / s == pytest.approx(
        tcp.tfrc_throughput(1.0, 1.0, p), rel=1e-9
    )


# --- Mathis and PFTK -----------------------------------------------------------------


@given(st.floats(1e-8, 1e-5), st.floats(0.01, 1.0))
def test_pftk_reduces_to_mathis_at_small_p_without_timeouts(p, rtt):
    # Padhye et al. 1998: with T0 = 0 and no window limit PFTK's leading term is
    # 1/(RTT*sqrt(2bp/3)) = Mathis with C = sqrt(3/2); corrections are O(sqrt(p)),
    # below 1 % for p <= 1e-5.
    assert tcp.pftk_throughput(p, rtt, 0.0) == pytest.approx(
        tcp.mathis_throughput(p, rtt), rel=0.01
    )
    assert tcp.pftk_throughput(p, rtt, 0.0, b=2) == pytest.approx(
        tcp.mathis_throughput(p, rtt, c=tcp.MATHIS_C_DELACK), rel=0.01
    )


def test_mathis_constants():
    # Mathis et al. 1997: C = 1.22 (ACK per packet), 0.87 (delayed ACK), two decimals.
    assert tcp.MATHIS_C_NO_DELACK == pytest.approx(1.22, abs=0.005)
    assert tcp.MATHIS_C_DELACK == pytest.approx(0.87, abs=0.005)


def test_pftk_window_limited_tends_to_wmax_over_rtt():
    # PFTK window-limited branch: as p -> 0, B -> W_max/RTT (ns-2's default
    # `window_ 20` in `ns-default.tcl` is such a cap; it dominates at low p).
    assert tcp.pftk_throughput(1e-9, 0.1, 1.0, w_max=20) == pytest.approx(200.0, rel=1e-3)


@given(st.floats(1e-5, 0.5), st.floats(0.01, 1.0), st.floats(0.0, 5.0))
def test_pftk_is_decreasing_in_t0_and_below_window_cap(p, rtt, t0):
    b = tcp.pftk_throughput(p, rtt, t0, w_max=30)
    assert b <= 30 / rtt * (1 + 1e-9)
    assert tcp.pftk_throughput(p, rtt, t0 + 1.0, w_max=30) <= b


def test_pftk_vectorised_matches_scalar():
    ps = np.array([1e-4, 1e-3, 1e-2, 0.1, 0.3])
    vec = tcp.pftk_throughput(ps, 0.1, 0.4, w_max=np.array([[20.0], [1e9]]))
    assert vec.shape == (2, 5)
    for j, p in enumerate(ps):
        assert vec[0, j] == pytest.approx(tcp.pftk_throughput(p, 0.1, 0.4, w_max=20.0))


@given(st.floats(1e-6, 1.0), st.floats(0.01, 1.0), st.floats(0.0, 5.0))
def test_gaimd_formula_at_tcp_parameters_is_pftk_approximation(p, rtt, t0):
    # Jin et al. (9) generalises the PFTK approximation; AIMD(1, 1/2) must give it back.
    assert tcp.gaimd_throughput(p, rtt, 1.0, 0.5, t0) == pytest.approx(
        tcp.pftk_throughput_approx(p, rtt, t0), rel=1e-12
    )


@given(st.floats(1e-6, 1.0), betas)
def test_gaimd_td_term_is_tcp_friendly_with_cai_alpha(p, beta):
    # Cai et al. (13): alpha = 3(1-beta)/(1+beta) equates the triple-duplicate term with TCP's.
    a = tcp.aimd_friendly_alpha_beta_kept(beta)
    assert tcp.gaimd_throughput(p, 1.0, a, beta, 0.0) == pytest.approx(
        tcp.pftk_throughput_approx(p, 1.0, 0.0), rel=1e-9
    )


def test_scalar_in_float_out():
    assert isinstance(tcp.mathis_throughput(0.01, 0.1), float)
    assert isinstance(tcp.tfrc_throughput(1000, 0.1, 0.01), float)
    assert math.isfinite(tcp.pftk_throughput(0.5, 0.1, 1.0))
