"""Yang, Kim & Lam 2003, "Transient behaviors of TCP-friendly congestion control
protocols" (Computer Networks 41), §3–5, Appendices A–D and Table 1.

Conventions: *β kept* — on a congestion indication ``w ← β·w`` (TCP: β = 1/2; GAIMD:
β = 7/8 with α = 0.31). CoV_time is the coefficient of variation of the per-RTT sending
rate of one flow (smoothness). TFRC and TEAR average the last eight loss intervals /
epochs with the weights of :data:`TFRC_LOSS_INTERVAL_WEIGHTS`.

The GAIMD TCP-friendly rule α = 4(1−β²)/3 is :func:`ccscope.theory.tcp.gaimd_friendly_alpha`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ._validate import FloatOrArray, check, out, require

__all__ = [
    "TFRC_LOSS_INTERVAL_WEIGHTS",
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

#: Weights of the 8 most recent loss intervals (TFRC) or epochs (TEAR), newest first,
#: normalised to sum to 1: (1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2)/6 (RFC 5348 §5.4).
TFRC_LOSS_INTERVAL_WEIGHTS = np.array([1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2]) / 6.0


def _weights(weights: npt.ArrayLike | None) -> np.ndarray:
    if weights is None:
        return TFRC_LOSS_INTERVAL_WEIGHTS
    w = check("weights", weights, ge=0.0)
    require(w.ndim == 1 and w.size >= 1, f"weights must be a non-empty 1-D array; got {w!r}")
    require(np.isclose(w.sum(), 1.0), f"weights must sum to 1; got sum={w.sum()!r}")
    return w


# --------------------------------------------------------------------------------------
# §3: smoothness and fairness
# --------------------------------------------------------------------------------------


def yang_long_term_cov(cov: npt.ArrayLike, epochs: npt.ArrayLike) -> FloatOrArray:
    """CoV of the average rate over n i.i.d. epochs, Yang et al. eq. (2):
    ``CoV[R(n)] ≈ CoV[S]/√n``. ``cov`` ≥ 0; ``epochs`` n ≥ 1.
    """
    c = check("cov", cov, ge=0.0)
    n = check("epochs", epochs, ge=1.0)
    return out(c / np.sqrt(n))  # Yang et al. (2)


def yang_fairness_index(cov: npt.ArrayLike) -> FloatOrArray:
    """Jain fairness index from the CoV of the rates, Yang et al. eq. (3):
    ``F ≈ 1/(1 + CoV²)``. ``cov`` ≥ 0; returns F in (0, 1].
    """
    c = check("cov", cov, ge=0.0)
    return out(1.0 / (1.0 + c**2))  # Yang et al. (3)


def yang_aimd_cov_time(beta: npt.ArrayLike) -> FloatOrArray:
    """Smoothness of AIMD at low loss (Poisson loss arrivals), Yang et al. eq. (4) / (A.25)::

        CoV_time = √((1 − β)/(1 + β))

    β kept, 0 < β < 1 (TCP β = 1/2: 0.58; GAIMD β = 7/8: 0.26). Dimensionless.
    """
    b = check("beta", beta, gt=0.0, lt=1.0)
    return out(np.sqrt((1 - b) / (1 + b)))  # Yang et al. (4)


def yang_aimd_timeout_cov_time(p: npt.ArrayLike, t: npt.ArrayLike) -> FloatOrArray:
    """Smoothness of TCP/GAIMD when timeouts dominate, Yang et al. eq. (7) / (B.2)::

        CoV_time = √((64(t−1) + 32p + 16p² + 8p³ + 4p⁴ + 2p⁵ + p⁶)
                     / (64 − 32p − 16p² − 8p³ − 4p⁴ − 2p⁵ − p⁶))

    From the back-off Markov chain (B.1): a packet is sent in an RTT with probability
    π₁ = Σ p_(2^k)/(2^k t) and CoV = √(1/π₁ − 1). Note: the paper quotes CoV ≈ 1.7
    (and 1.73) for p = 20 %, t = 4, but (B.2) gives 1.87 there.

    Parameters
    ----------
    p:
        Packet loss rate, 0 ≤ p ≤ 1.
    t:
        Ratio of the (initial) timeout to the RTT, t ≥ 1.
    """
    p_ = check("p", p, ge=0.0, le=1.0)
    t_ = check("t", t, ge=1.0)
    s = 32 * p_ + 16 * p_**2 + 8 * p_**3 + 4 * p_**4 + 2 * p_**5 + p_**6
    return out(np.sqrt((64 * (t_ - 1) + s) / (64 - s)))  # Yang et al. (7) / (B.2)


def yang_tfrc_unsmoothed_cov(p: npt.ArrayLike, tail: float = 1e-12) -> FloatOrArray:
    """CoV of TFRC's rate computed from a single loss interval, Yang et al. (C.3)–(C.7).

    Low-loss model: in state i (loss interval of i packets, Bernoulli loss) the rate is
    ∝ √i and the stationary probability is P_i = c·q^i/√i (C.5), q = 1 − p; so
    E[R'] ∝ Σ q^i and E[R'²] ∝ Σ √i·q^i (C.6)–(C.7). Sums are truncated once q^i < ``tail``.

    The paper reports 0.66 … 0.54 for p from 0.5 % to 9 %; this model gives 0.70 at
    0.5 % (0.68 at 1 %) and 0.54 at 9 % (its continuum limit for p → 0 is √(π/2 − 1)).

    Parameters
    ----------
    p:
        Bernoulli packet loss rate, 0 < p < 1.
    tail:
        Truncation threshold for the sums, in (0, 1e-3].
    """
    p_ = check("p", p, gt=0.0, lt=1.0)
    check("tail", tail, gt=0.0, le=1e-3)
    flat = p_.ravel()
    res = np.empty_like(flat)
    for j, pj in enumerate(flat):
        q = 1.0 - pj
        n = int(np.ceil(np.log(tail) / np.log(q))) + 1
        i = np.arange(1, n + 1, dtype=float)
        qi = q**i
        s0 = qi.sum()
        res[j] = np.sqrt((np.sqrt(i) * qi).sum() * (qi / np.sqrt(i)).sum() / s0**2 - 1.0)
    return out(res.reshape(p_.shape))


def yang_tfrc_cov_time(
    cov_unsmoothed: npt.ArrayLike, weights: npt.ArrayLike | None = None
) -> FloatOrArray:
    """Smoothness of TFRC from that of a single loss interval, Yang et al. eq. (C.8)::

        CoV[R] = √(Σ w_i²) · CoV[R']

    Reading: (C.8) is printed as ``(Σ w_i²)·CoV[R']``, without the square root, but the
    paper's own numbers need it: with the TFRC weights √(Σw_i²) = 0.380 maps CoV[R'] =
    0.66/0.54 to the quoted 0.25/0.21, and 2.2/6.4 to 0.8/2.4 (Σ w_i² = 0.144 would give
    0.095/0.078). The root is also what averaging independent intervals gives.

    Parameters
    ----------
    cov_unsmoothed:
        CoV[R'] of the single-interval rate (see :func:`yang_tfrc_unsmoothed_cov`), ≥ 0.
    weights:
        Averaging weights summing to 1; default :data:`TFRC_LOSS_INTERVAL_WEIGHTS`.
    """
    c = check("cov_unsmoothed", cov_unsmoothed, ge=0.0)
    w = _weights(weights)
    return out(np.sqrt(np.sum(w**2)) * c)  # Yang et al. (C.8), see reading above


def yang_tear_variance_factor(weights: npt.ArrayLike | None = None) -> float:
    """Factor relating Var[T_TEAR] to Var[W_i], Yang et al. (D.1)–(D.5) (0.07708).

    TEAR's rate is T = Σ w_i·Y_i with Y_i = W_i/2 + W_(i−1)/4 (D.3), W_i the window at the
    end of epoch i (newest first). For i.i.d. W_i, Var[T] = Var[W]·Σ_j a_j² where a_j is
    the total coefficient of W_j. (The printed (D.4) "Var = Σ w_i Y_i" is garbled; this is
    the computation that reproduces the printed (D.5) value 0.07708.)

    ``weights``: epoch weights summing to 1, newest first (default TFRC's).
    """
    w = _weights(weights)
    a = np.zeros(w.size + 1)
    a[: w.size] += w / 2  # W_i term of Y_i
    a[1:] += w / 4  # W_(i-1) term of Y_i
    return float(np.sum(a**2))  # Yang et al. (D.5)


def yang_tear_cov_time(
    cov_window: npt.ArrayLike, weights: npt.ArrayLike | None = None
) -> FloatOrArray:
    """Smoothness of TEAR, Yang et al. eq. (D.6)::

        CoV_time[T_TEAR] = 0.37 · CoV[W_i]

    The constant is √(0.07708)/(3/4) = 0.370: the standard deviation factor of
    :func:`yang_tear_variance_factor` divided by E[T]/E[W] = Σ w_i·3/4 = 3/4; it is
    computed from ``weights`` rather than hard-coded. With CoV[W_i] = 0.58 this gives the
    0.21 of (D.7) (the paper takes 0.58 from "(A.16)", whose printed form lacks the √ of
    (A.25)).

    Parameters
    ----------
    cov_window:
        CoV of the window sizes at the loss indications, ≥ 0.
    weights:
        Epoch weights summing to 1, newest first (default TFRC's).
    """
    c = check("cov_window", cov_window, ge=0.0)
    factor = np.sqrt(yang_tear_variance_factor(weights)) / 0.75
    return out(factor * c)  # Yang et al. (D.6)


# --------------------------------------------------------------------------------------
# Table 1: responsiveness D (RTTs to halve under one loss per RTT) and aggressiveness I
# --------------------------------------------------------------------------------------


def yang_aimd_responsiveness(beta: npt.ArrayLike) -> FloatOrArray:
    """Responsiveness D of AIMD, Yang et al. §4.1 / Table 1: ``D = log_β(1/2)`` RTTs to
    halve the rate with one loss indication per RTT (TCP: 1; GAIMD β = 7/8: ≈ 5, exactly
    5.19). β kept, 0 < β < 1; the value is real (round up for whole RTTs).
    """
    b = check("beta", beta, gt=0.0, lt=1.0)
    return out(np.log(0.5) / np.log(b))


def yang_tear_responsiveness(weights: npt.ArrayLike | None = None) -> int:
    """Responsiveness D of TEAR, Yang et al. §4.1 / Table 1 (= 5 with TFRC weights).

    Before persistent congestion all history entries equal 3W/4; the j-th consecutive
    congestion indication stores W/2^j as the newest entry. D is the number of
    indications after which the weighted average is at most half the initial 3W/4.

    ``weights``: epoch weights summing to 1, newest first (default TFRC's).
    """
    w = _weights(weights)
    hist = np.full(w.size, 0.75)
    for d in range(1, 64):
        hist = np.concatenate(([0.5**d], hist[:-1]))
        if np.dot(w, hist) <= 0.5 * 0.75:
            return d
    raise ValueError("TEAR rate never halves with these weights")


def yang_aimd_aggressiveness(alpha: npt.ArrayLike) -> FloatOrArray:
    """Aggressiveness I of AIMD, Yang et al. §5.1 / Table 1: the rate grows by α packets
    per RTT per RTT (TCP 1.0, GAIMD 0.31). ``alpha`` > 0 packets/RTT.
    """
    return out(check("alpha", alpha, gt=0.0))


def yang_tear_aggressiveness_bound(weights: npt.ArrayLike | None = None) -> float:
    """Upper bound of TEAR's aggressiveness I, Yang et al. §5.1 / Table 1: the newest epoch
    average grows by 1/2 packet per RTT and has weight w₁, so I ≤ w₁/2 (= 1/12 ≈ 0.08
    packets per RTT per RTT with TFRC weights).
    """
    w = _weights(weights)
    return float(w[0] / 2)
