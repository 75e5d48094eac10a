"""CUBIC, RFC 9438: the window function, its average window under deterministic loss (§5 and
Appendix C) and the Reno-friendly region.

* Figure 1: ``W_cubic(t) = C·(t − K)³ + W_max``; Figure 2: ``K = ∛((W_max − cwnd_epoch)/C)``.
* Figure 3: the average window of AIMD(α, β), ``√(α(1 + β)/(2(1 − β)p))``; with CUBIC's
  α_cubic = 3(1 − β)/(1 + β) (§4.3, :func:`ccscope.theory.aimd_friendly_alpha_beta_kept`) it is
  Reno's ``√(3/(2p))`` whatever β: the average of CUBIC's Reno-friendly estimate W_est.
* Figure 6: CUBIC's average window when every 1/p-th packet is lost,
  ``(C(3 + β)/(4(1 − β)))^(1/4) · RTT^(3/4) / p^(3/4)`` (Figure 8: ``1.054·(RTT/p)^(3/4)`` at
  C = 0.4, β = 0.7).
* The Reno-friendly region: CUBIC takes the larger of the two (§4.3), as RFC 9438 Tables 1
  and 2 do; Figure 3 is the larger exactly when ``p > C(3 + β)·RTT³/(9(1 − β))``, equating
  Figure 6 with Figure 3 (``p·RTT⁻³`` above ``C(3 + β)/(9(1 − β))``).

β is CUBIC's β_cubic, *β kept*: a reduction sets ``w ← β·w``. Windows are in packets, times
(RTT, K, t) in seconds, p is the fraction of packets lost.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ._validate import BoolOrArray, FloatOrArray, check, out, out_bool, require
from .tcp import aimd_friendly_alpha_beta_kept

__all__ = [
    "aimd_mean_window",
    "cubic_k",
    "cubic_mean_window",
    "cubic_reno_friendly",
    "cubic_reno_friendly_loss_rate",
    "cubic_response",
    "cubic_theory",
    "cubic_window",
]

#: RFC 9438 §5.1: C SHOULD be 0.4 (packets/s³); §4.6: β_cubic SHOULD be 0.7.
C_CUBIC = 0.4
BETA_CUBIC = 0.7


def _c(c: npt.ArrayLike) -> np.ndarray:
    return check("c", c, gt=0.0)


def _beta(beta: npt.ArrayLike) -> np.ndarray:
    return check("beta", beta, gt=0.0, lt=1.0)


def _p(p: npt.ArrayLike) -> np.ndarray:
    return check("p", p, gt=0.0, le=1.0)


def _rtt(rtt: npt.ArrayLike) -> np.ndarray:
    return check("rtt", rtt, gt=0.0)


def cubic_k(
    w_max: npt.ArrayLike, cwnd_epoch: npt.ArrayLike, c: npt.ArrayLike = C_CUBIC
) -> FloatOrArray:
    """K (s), RFC 9438 Figure 2: the time the cubic takes from ``cwnd_epoch`` back to
    ``w_max`` (packets, ``0 < cwnd_epoch ≤ w_max``); C in packets/s³."""
    w, e = check("w_max", w_max, gt=0.0), check("cwnd_epoch", cwnd_epoch, gt=0.0)
    require(e <= w, f"cwnd_epoch must be at most w_max (got {cwnd_epoch!r} > {w_max!r})")
    return out(np.cbrt((w - e) / _c(c)))  # RFC 9438 Figure 2


def cubic_window(
    t: npt.ArrayLike, w_max: npt.ArrayLike, k: npt.ArrayLike, c: npt.ArrayLike = C_CUBIC
) -> FloatOrArray:
    """``W_cubic(t)`` (packets), RFC 9438 Figure 1, ``t`` ≥ 0 seconds into a
    congestion-avoidance stage whose plateau is ``w_max`` (packets), reached at ``k`` (s)."""
    t, w, k = check("t", t, ge=0.0), check("w_max", w_max, gt=0.0), check("k", k, ge=0.0)
    return out(_c(c) * (t - k) ** 3 + w)  # RFC 9438 Figure 1


def aimd_mean_window(p: npt.ArrayLike, alpha: npt.ArrayLike, beta: npt.ArrayLike) -> FloatOrArray:
    """RFC 9438 Figure 3 (after Floyd, Handley & Padhye 2000): the average window (packets) of
    AIMD(α, β), α packets per RTT and β kept, when every 1/p-th packet is lost."""
    p, a, b = _p(p), check("alpha", alpha, gt=0.0), _beta(beta)
    return out(np.sqrt(a * (1 + b) / (2 * (1 - b) * p)))  # RFC 9438 Figure 3


def cubic_mean_window(
    p: npt.ArrayLike,
    rtt: npt.ArrayLike,
    c: npt.ArrayLike = C_CUBIC,
    beta: npt.ArrayLike = BETA_CUBIC,
) -> FloatOrArray:
    """AVG_W_cubic (packets), RFC 9438 Figure 6: CUBIC's average window without the
    Reno-friendly region when every 1/p-th packet is lost, at round-trip time ``rtt`` (s).
    Appendix C derives it at the fixed point of that loss model, where each stage lasts K and
    ends at W_max, summing the cubic over its K/RTT rounds (Figure 11)."""
    p, r, c, b = _p(p), _rtt(rtt), _c(c), _beta(beta)
    return out((c * (3 + b) / (4 * (1 - b))) ** 0.25 * r**0.75 / p**0.75)  # RFC 9438 Figure 6


def cubic_response(
    p: npt.ArrayLike,
    rtt: npt.ArrayLike,
    c: npt.ArrayLike = C_CUBIC,
    beta: npt.ArrayLike = BETA_CUBIC,
) -> FloatOrArray:
    """CUBIC's average window (packets) with its Reno-friendly region: the larger of Figure 6
    and Figure 3 at α_cubic (§4.3), as RFC 9438 Tables 1 and 2 compute it (they take Reno's
    window as RFC 3649's 1.2/√p; Figure 3 at α_cubic gives √(3/2)/√p = 1.2247/√p)."""
    b = _beta(beta)
    reno = aimd_mean_window(p, aimd_friendly_alpha_beta_kept(b), b)  # RFC 9438 §4.3
    return out(np.maximum(cubic_mean_window(p, rtt, c, b), reno))


def cubic_reno_friendly_loss_rate(
    rtt: npt.ArrayLike, c: npt.ArrayLike = C_CUBIC, beta: npt.ArrayLike = BETA_CUBIC
) -> FloatOrArray:
    """The loss rate above which CUBIC is in its Reno-friendly region (W_est's average exceeds
    the cubic's): Figure 6 equals Figure 3 at α_cubic, ``√(3/(2p))``, where
    ``p = C(3 + β)·RTT³/(9(1 − β))`` (5.48e-4 at RTT = 0.1 s, C = 0.4, β = 0.7)."""
    r, c, b = _rtt(rtt), _c(c), _beta(beta)
    # (C(3+β)/(4(1−β)))·RTT³/p³ = 9/(4p²), Figure 6 to the fourth power against Figure 3's.
    return out(c * (3 + b) * r**3 / (9 * (1 - b)))


def cubic_reno_friendly(
    p: npt.ArrayLike,
    rtt: npt.ArrayLike,
    c: npt.ArrayLike = C_CUBIC,
    beta: npt.ArrayLike = BETA_CUBIC,
) -> BoolOrArray:
    """Whether CUBIC at loss rate ``p`` and round-trip time ``rtt`` (s) is in its Reno-friendly
    region: Figure 3 at α_cubic above Figure 6 (:func:`cubic_reno_friendly_loss_rate`)."""
    return out_bool(_p(p) > cubic_reno_friendly_loss_rate(rtt, c, beta))


#: RFC 9438 Tables 1 and 2's loss rates.
TABLE_LOSS_RATES = (1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8)


def cubic_theory(
    c: float = C_CUBIC,
    beta: float = BETA_CUBIC,
    rtt: float = 0.1,
    loss_rates: tuple[float, ...] = TABLE_LOSS_RATES,
) -> dict:
    """What RFC 9438's analysis says of CUBIC(c, β) at round-trip time ``rtt`` (s): α_cubic,
    the loss rate above which it is Reno-friendly, and for each loss rate (RFC 9438 Tables 1
    and 2's by default) the average windows of Figure 6, Figure 3 at α_cubic, CUBIC's (the
    larger) and its region. Plain numbers, for ``ccscope check`` and JSON."""
    alpha = float(aimd_friendly_alpha_beta_kept(beta))
    rows = []
    for p in loss_rates:
        cubic = float(cubic_mean_window(p, rtt, c, beta))
        reno = float(aimd_mean_window(p, alpha, beta))
        rows.append(
            {
                "p": p,
                "cubic_window": cubic,
                "reno_window": reno,
                "window": max(cubic, reno),
                "region": "Reno-friendly" if reno > cubic else "cubic",
            }
        )
    return {
        "c": c,
        "beta": beta,
        "rtt_s": rtt,
        "alpha_cubic": alpha,
        "reno_friendly_above_p": float(cubic_reno_friendly_loss_rate(rtt, c, beta)),
        "windows": rows,
        "source": "RFC 9438 §4.3, §5 (Figures 3, 6), Tables 1-2",
    }
