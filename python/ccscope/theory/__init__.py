"""Closed-form results of the papers ccscope reproduces, as numpy-vectorised functions.

Every function accepts scalars or arrays (broadcast together), returns a ``float`` for
scalar input and an ndarray otherwise, and raises ``ValueError`` naming the parameter,
value and allowed range for out-of-domain input (never a silent NaN). Predicates return
``bool`` / bool arrays.

Two β conventions coexist; each docstring says which one it uses:
*β removed* (``w ← w − β·w``; Loguinov & Radha, Jin et al.) and *β kept* (``w ← β·w``;
Cai et al., Yang et al., Papadimitriou & Zhang, the TCP models).

Modules
-------
``tcp``
    Mathis; PFTK (full model and approximation); TFRC equation (RFC 5348 §3.1); GAIMD
    throughput (Jin et al. (9)); TCP-friendly α rules 3β/(2−β), 3(1−β)/(1+β), 4(1−β²)/3.
``loguinov``
    Loguinov & Radha 2003: (3)–(4), conditions (15), (19), (21), (22), (38), (40);
    efficiency (28), (29), (31)–(33); loss (34)–(37); ISCC (39), (41), (42).
``cai``
    Cai et al. 2005: (9)–(14), (16), (24), (25), (27), (28)–(33), (34) and the receiver
    buffer, (35), (40), DTAIMD's α rule, IIAD appendix ((A.3)).
``jin``
    Jin et al. 2001: (1)–(8), Table 1 rules, Table 2 (T1, Δ, T2) with App. C epoch
    lengths, Table 3 (smoothness, aggressiveness, responsiveness).
``yang``
    Yang et al. 2003: (2)–(4), (7)/(B.2), TFRC (C.3)–(C.8) and TEAR (D.5)–(D.6) CoV,
    Table 1 responsiveness D and aggressiveness I.
``papadimitriou``
    Papadimitriou & Zhang 2007: (12), (16), (17), (20), (21); (2) is
    ``tcp.gaimd_friendly_alpha``.
``cubic``
    RFC 9438: the window function and K (Figures 1, 2), AIMD's average window (Figure 3),
    CUBIC's under deterministic loss (Figure 6), the Reno-friendly region, Tables 1-2.
``vegas``
    Brakmo & Peterson 1995 §3.2 (Diff); Mo et al. 1999 (fluid model): each flow keeps α to
    β packets queued, the rate-ratio bound β/α, the α = β equilibrium.
``bbr``
    BBR v1 (draft-cardwell-iccrg-bbr-congestion-control-00): the in-flight cap, a lone flow's
    and several flows' queues, ProbeRTT's share; Ware et al. 2019 (9)-(11), BBR's share
    against loss-based flows.
``copa``
    Arun & Balakrishnan 2018 §2.1: the target rate 1/(δ·dq), 1/δ packets queued per flow.
``dctcp``
    Alizadeh et al. 2010 §3.3–3.4: W*, α (6), D (7), A (8), T_C (9), Q_max (10), Q_min (12),
    the threshold guideline (13) and the gain bound (15).
"""

from __future__ import annotations

from .bbr import (
    bbr_check_rows,
    bbr_inflight_cap,
    bbr_probe_queue_bound,
    bbr_probe_rtt_share,
    bbr_shared_queue,
    ware_bbr_share,
    ware_loss_based_share,
    ware_probe_time_share,
)
from .cai import (
    cai_aimd_mean_window,
    cai_aimd_overload_window,
    cai_best_case_utilization,
    cai_buffer_threshold,
    cai_convergence_speed,
    cai_friendliness_constant,
    cai_friendly_alpha_ratio,
    cai_friendly_convergence_speed,
    cai_iiad_tcp_window_bounds,
    cai_iiad_window_ratio,
    cai_max_consumption_rate,
    cai_min_receiver_buffer,
    cai_sender_queuing_delay,
    cai_single_flow_utilization,
    cai_tcp_mean_window,
    cai_tcp_overload_window,
    cai_time_to_share_speed,
    cai_two_class_convergence_speed,
    cai_two_class_next_point,
    cai_utilization_no_buffer,
    cai_weighted_alpha_ratio,
    dtaimd_alpha,
)
from .copa import (
    copa_check_rows,
    copa_queueing_delay,
    copa_standing_queue,
    copa_target_rate,
)
from .cubic import (
    aimd_mean_window,
    cubic_k,
    cubic_mean_window,
    cubic_reno_friendly,
    cubic_reno_friendly_loss_rate,
    cubic_response,
    cubic_theory,
    cubic_window,
)
from .dctcp import (
    dctcp_alpha,
    dctcp_alpha_approx,
    dctcp_check_rows,
    dctcp_critical_window,
    dctcp_max_gain,
    dctcp_min_threshold,
    dctcp_period_rtts,
    dctcp_queue_amplitude,
    dctcp_queue_amplitude_approx,
    dctcp_queue_max,
    dctcp_queue_min,
    dctcp_window_amplitude,
)
from .jin import (
    jin_aggressiveness_time,
    jin_alpha,
    jin_c,
    jin_c_from_alpha,
    jin_convergence_delta,
    jin_convergence_t1,
    jin_convergence_t2,
    jin_epoch_length,
    jin_epochs_to_fairness,
    jin_increase_function,
    jin_increase_rule,
    jin_responsiveness_losses,
    jin_simd_alpha,
    jin_smoothness,
    jin_window,
    jin_window_decrement,
    jin_window_increment,
)
from .loguinov import (
    aimd_loss_single_flow,
    binomial_decrease,
    binomial_decrease_slope,
    binomial_efficiency,
    binomial_efficiency_n_flows,
    binomial_efficiency_one_term,
    binomial_efficiency_two_term,
    binomial_increase,
    binomial_increase_slope,
    binomial_lambda,
    binomial_loss_increase_factor,
    binomial_loss_n_flows,
    binomial_loss_single_flow,
    binomial_max_flows,
    binomial_sigma,
    decrease_keeps_fairness,
    decrease_no_crossover,
    ideal_scalability_condition,
    increase_keeps_fairness,
    increase_no_crossover,
    iscc_increase_bounded,
    iscc_lambda,
    iscc_loss,
    iscc_sigma,
)
from .papadimitriou import (
    ssvp_adaptive_beta,
    ssvp_cliff_packets,
    ssvp_ipg_after_loss,
    ssvp_knee_packets,
    ssvp_optimal_beta,
)
from .tcp import (
    aimd_friendly_alpha_beta_kept,
    aimd_friendly_alpha_beta_removed,
    gaimd_friendly_alpha,
    gaimd_throughput,
    mathis_throughput,
    pftk_throughput,
    pftk_throughput_approx,
    tfrc_throughput,
)
from .vegas import (
    vegas_backlog,
    vegas_check_rows,
    vegas_diff,
    vegas_equilibrium_rates,
    vegas_queue_band,
    vegas_rate_ratio_bound,
)
from .yang import (
    TFRC_LOSS_INTERVAL_WEIGHTS,
    yang_aimd_aggressiveness,
    yang_aimd_cov_time,
    yang_aimd_responsiveness,
    yang_aimd_timeout_cov_time,
    yang_fairness_index,
    yang_long_term_cov,
    yang_tear_aggressiveness_bound,
    yang_tear_cov_time,
    yang_tear_responsiveness,
    yang_tear_variance_factor,
    yang_tfrc_cov_time,
    yang_tfrc_unsmoothed_cov,
)

__all__ = [
    "TFRC_LOSS_INTERVAL_WEIGHTS",
    "aimd_friendly_alpha_beta_kept",
    "aimd_friendly_alpha_beta_removed",
    "aimd_loss_single_flow",
    "aimd_mean_window",
    "bbr_check_rows",
    "bbr_inflight_cap",
    "bbr_probe_queue_bound",
    "bbr_probe_rtt_share",
    "bbr_shared_queue",
    "binomial_decrease",
    "binomial_decrease_slope",
    "binomial_efficiency",
    "binomial_efficiency_n_flows",
    "binomial_efficiency_one_term",
    "binomial_efficiency_two_term",
    "binomial_increase",
    "binomial_increase_slope",
    "binomial_lambda",
    "binomial_loss_increase_factor",
    "binomial_loss_n_flows",
    "binomial_loss_single_flow",
    "binomial_max_flows",
    "binomial_sigma",
    "cai_aimd_mean_window",
    "cai_aimd_overload_window",
    "cai_best_case_utilization",
    "cai_buffer_threshold",
    "cai_convergence_speed",
    "cai_friendliness_constant",
    "cai_friendly_alpha_ratio",
    "cai_friendly_convergence_speed",
    "cai_iiad_tcp_window_bounds",
    "cai_iiad_window_ratio",
    "cai_max_consumption_rate",
    "cai_min_receiver_buffer",
    "cai_sender_queuing_delay",
    "cai_single_flow_utilization",
    "cai_tcp_mean_window",
    "cai_tcp_overload_window",
    "cai_time_to_share_speed",
    "cai_two_class_convergence_speed",
    "cai_two_class_next_point",
    "cai_utilization_no_buffer",
    "cai_weighted_alpha_ratio",
    "copa_check_rows",
    "copa_queueing_delay",
    "copa_standing_queue",
    "copa_target_rate",
    "cubic_k",
    "cubic_mean_window",
    "cubic_reno_friendly",
    "cubic_reno_friendly_loss_rate",
    "cubic_response",
    "cubic_theory",
    "cubic_window",
    "dctcp_alpha",
    "dctcp_alpha_approx",
    "dctcp_check_rows",
    "dctcp_critical_window",
    "dctcp_max_gain",
    "dctcp_min_threshold",
    "dctcp_period_rtts",
    "dctcp_queue_amplitude",
    "dctcp_queue_amplitude_approx",
    "dctcp_queue_max",
    "dctcp_queue_min",
    "dctcp_window_amplitude",
    "decrease_keeps_fairness",
    "decrease_no_crossover",
    "dtaimd_alpha",
    "gaimd_friendly_alpha",
    "gaimd_throughput",
    "ideal_scalability_condition",
    "increase_keeps_fairness",
    "increase_no_crossover",
    "iscc_increase_bounded",
    "iscc_lambda",
    "iscc_loss",
    "iscc_sigma",
    "jin_aggressiveness_time",
    "jin_alpha",
    "jin_c",
    "jin_c_from_alpha",
    "jin_convergence_delta",
    "jin_convergence_t1",
    "jin_convergence_t2",
    "jin_epoch_length",
    "jin_epochs_to_fairness",
    "jin_increase_function",
    "jin_increase_rule",
    "jin_responsiveness_losses",
    "jin_simd_alpha",
    "jin_smoothness",
    "jin_window",
    "jin_window_decrement",
    "jin_window_increment",
    "mathis_throughput",
    "pftk_throughput",
    "pftk_throughput_approx",
    "ssvp_adaptive_beta",
    "ssvp_cliff_packets",
    "ssvp_ipg_after_loss",
    "ssvp_knee_packets",
    "ssvp_optimal_beta",
    "tfrc_throughput",
    "vegas_backlog",
    "vegas_check_rows",
    "vegas_diff",
    "vegas_equilibrium_rates",
    "vegas_queue_band",
    "vegas_rate_ratio_bound",
    "ware_bbr_share",
    "ware_loss_based_share",
    "ware_probe_time_share",
    "yang_aimd_aggressiveness",
    "yang_aimd_cov_time",
    "yang_aimd_responsiveness",
    "yang_aimd_timeout_cov_time",
    "yang_fairness_index",
    "yang_long_term_cov",
    "yang_tear_aggressiveness_bound",
    "yang_tear_cov_time",
    "yang_tear_responsiveness",
    "yang_tear_variance_factor",
    "yang_tfrc_cov_time",
    "yang_tfrc_unsmoothed_cov",
]
