"""Out-of-domain input raises ValueError naming the parameter and the allowed range."""

import numpy as np
import pytest

import ccscope.theory as T


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: T.tfrc_throughput(1000, 0.1, 0.0), "p"),
        (lambda: T.tfrc_throughput(1000, 0.1, 1.5), "p"),
        (lambda: T.tfrc_throughput(1000, -0.1, 0.01), "rtt"),
        (lambda: T.mathis_throughput(np.array([0.01, np.nan]), 0.1), "p"),
        (lambda: T.pftk_throughput(0.01, 0.1, -1.0), "t0"),
        (lambda: T.pftk_throughput(1.0, 0.1, 1.0), "p"),
        (lambda: T.gaimd_friendly_alpha(1.0), "beta"),
        (lambda: T.aimd_friendly_alpha_beta_removed(np.array([0.5, -0.1])), "beta"),
        (lambda: T.binomial_max_flows(100, 0.5, 1.0), "l"),
        (lambda: T.iscc_lambda(1e6, -1.5, 0.5), "m_i"),
        (lambda: T.iscc_sigma(1e6, 2.0, 1.5), "m_d"),
        (lambda: T.cai_time_to_share_speed(0.5, 0.5), "share"),
        (lambda: T.dtaimd_alpha(0.5, 0.875), "cwnd"),
        (lambda: T.jin_alpha(0.1, 10, -1.0, 1.0), "k"),
        (lambda: T.jin_alpha(0.1, 10, 0.0, 1.5), "l"),
        (lambda: T.jin_convergence_t1("simd", 100, 60, 50, 0.1), "w1"),
        (lambda: T.jin_epochs_to_fairness("simd", 10, 1, 0.6), "beta"),
        (lambda: T.yang_aimd_timeout_cov_time(0.2, 0.5), "t"),
        (lambda: T.ssvp_adaptive_beta(0.2, 0.1), "rtt_min"),
    ],
)
def test_out_of_domain_raises_with_parameter_name(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_message_states_value_and_range():
    with pytest.raises(ValueError, match=r"p=0\.0 .*\(0, 1\]"):
        T.tfrc_throughput(1000, 0.1, 0.0)


def test_unknown_algorithm_lists_known_ones():
    with pytest.raises(ValueError, match="tcp, aimd, iiad, simd"):
        T.jin_convergence_t1("cubic", 100, 10, 20, 0.1)


def test_tcp_takes_no_beta():
    with pytest.raises(ValueError, match="beta must be omitted"):
        T.jin_convergence_t2("tcp", 100, 50, 1, beta=0.3)


def test_drop_below_zero_regime_is_rejected():
    # Loguinov & Radha (29): beyond n = C/sigma^(1/(1-l)) formula (28) is invalid.
    with pytest.raises(ValueError, match="29"):
        T.binomial_efficiency(1.0, 0.0, 0.5, 0.4)


def test_arrays_broadcast_and_scalars_stay_scalar():
    out = T.yang_aimd_cov_time(np.array([0.5, 0.875]))
    assert isinstance(out, np.ndarray) and out.shape == (2,)
    assert isinstance(T.yang_aimd_cov_time(0.5), float)
    assert isinstance(T.ideal_scalability_condition(-1.5, 2.0), bool)
    assert T.ideal_scalability_condition(np.array([-1.5, -1.2]), 2.0).dtype == bool
