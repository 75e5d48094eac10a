"""TCP throughput models and TCP-friendly AIMD parameter rules.

* Mathis, Semke, Mahdavi & Ott 1997 square-root law.
* PFTK: Padhye, Firoiu, Towsley & Kurose 1998, full model with timeouts and a maximum
  window, and its closed-form approximation (Cai et al. 2005 eq. (1)).
* The TFRC throughput equation, RFC 5348 §3.1.
* The GAIMD sending-rate formula (Yang & Lam 2000, as printed in Jin et al. 2001 eq. (9)).
* The three TCP-friendly AIMD rules. Beware of the two β conventions:

  - *β removed*: on loss ``w ← w − β·w`` (Loguinov & Radha; Jin et al.);
  - *β kept*:    on loss ``w ← β·w``     (Cai et al.; Yang et al.; Papadimitriou & Zhang).

  ``3β/(2−β)`` (β removed) and ``3(1−β)/(1+β)`` (β kept) are the same rule written in
  the two conventions; ``4(1−β²)/3`` (β kept) is a different rule (Yang & Lam's GAIMD).

Units: ``rtt`` and timeouts in seconds; throughputs are in packets per second unless a
packet size is given, in which case they are in (packet-size unit) per second.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ._validate import FloatOrArray, check, out

__all__ = [
    "aimd_friendly_alpha_beta_kept",
    "aimd_friendly_alpha_beta_removed",
    "gaimd_friendly_alpha",
    "gaimd_throughput",
    "mathis_throughput",
    "pftk_throughput",
    "pftk_throughput_approx",
    "tfrc_throughput",
]

#: Mathis constant for an ACK per packet, sqrt(3/2) ≈ 1.22 (Mathis et al. 1997; Jin et al. §1).
MATHIS_C_NO_DELACK = float(np.sqrt(1.5))
#: Mathis constant with delayed ACKs (b = 2), sqrt(3/4) ≈ 0.87 (Mathis et al. 1997).
MATHIS_C_DELACK = float(np.sqrt(0.75))


# --------------------------------------------------------------------------------------
# TCP-friendly AIMD rules
# --------------------------------------------------------------------------------------


def aimd_friendly_alpha_beta_removed(beta: npt.ArrayLike) -> FloatOrArray:
    """TCP-friendly additive increase ``α = 3β/(2−β)`` for AIMD(α, β).

    Loguinov & Radha 2003, eq. (5); Jin et al. 2001, eq. (4) with k = 0, l = 1 (and
    Table 1, which prints the small-β approximation 3β/2).

    Parameters
    ----------
    beta:
        Multiplicative decrease, *β removed* convention: on loss ``w ← w − β·w``;
        dimensionless, 0 < β < 1 (TCP: β = 1/2 gives α = 1).

    Returns
    -------
    α in packets per RTT.
    """
    b = check("beta", beta, gt=0.0, lt=1.0)
    return out(3.0 * b / (2.0 - b))  # Loguinov & Radha (5)


def aimd_friendly_alpha_beta_kept(beta: npt.ArrayLike) -> FloatOrArray:
    """TCP-friendly additive increase ``α = 3(1−β)/(1+β)`` for AIMD(α, β).

    Cai, Shen, Pan & Mark 2005, eq. (13) (necessary and sufficient condition under
    synchronized loss, no timeouts). Identical to :func:`aimd_friendly_alpha_beta_removed`
    after substituting β_removed = 1 − β_kept.

    Parameters
    ----------
    beta:
        Multiplicative decrease, *β kept* convention: on loss ``w ← β·w``;
        dimensionless, 0 < β < 1 (TCP: β = 1/2 gives α = 1; β = 7/8 gives α = 0.2).

    Returns
    -------
    α in packets per RTT.
    """
    b = check("beta", beta, gt=0.0, lt=1.0)
    return out(3.0 * (1.0 - b) / (1.0 + b))  # Cai et al. (13)


def gaimd_friendly_alpha(beta: npt.ArrayLike) -> FloatOrArray:
    """GAIMD TCP-friendly additive increase ``α = 4(1−β²)/3`` (Yang & Lam 2000).

    Papadimitriou & Zhang 2007, eq. (2); Cai et al. 2005, eq. (15); Yang et al. 2003
    (GAIMD(0.31, 7/8)). Exact when timeouts dominate; β = 7/8 gives 0.3125.

    Parameters
    ----------
    beta:
        Multiplicative decrease, *β kept* convention: on loss ``w ← β·w``;
        dimensionless, 0 < β < 1.

    Returns
    -------
    α in packets per RTT.
    """
    b = check("beta", beta, gt=0.0, lt=1.0)
    return out(4.0 * (1.0 - b * b) / 3.0)  # Papadimitriou & Zhang (2)


# --------------------------------------------------------------------------------------
# Throughput models
# --------------------------------------------------------------------------------------


def mathis_throughput(
    p: npt.ArrayLike,
    rtt: npt.ArrayLike,
    mss: npt.ArrayLike = 1.0,
    c: npt.ArrayLike = MATHIS_C_NO_DELACK,
) -> FloatOrArray:
    """Mathis et al. 1997 square-root law ``B = (MSS/RTT)·C/√p``.

    Periodic loss, no timeouts, unlimited window.

    Parameters
    ----------
    p:
        Loss (indication) probability per packet, 0 < p ≤ 1.
    rtt:
        Round-trip time in seconds, > 0.
    mss:
        Segment size (any unit; 1 gives packets/s), > 0.
    c:
        Constant C > 0: √(3/2) ≈ 1.22 with an ACK per packet (default),
        √(3/4) ≈ 0.87 with delayed ACKs.

    Returns
    -------
    Throughput in ``mss`` units per second.
    """
    p_ = check("p", p, gt=0.0, le=1.0)
    r = check("rtt", rtt, gt=0.0)
    s = check("mss", mss, gt=0.0)
    c_ = check("c", c, gt=0.0)
    return out(s / r * c_ / np.sqrt(p_))


def _pftk_q_hat(p: np.ndarray, w: np.ndarray) -> np.ndarray:
    """PFTK probability that a loss in a window of ``w`` packets is a timeout, Q̂(w)."""
    q = 1.0 - p
    num = (1.0 - q**3) * (1.0 + q**3 * (1.0 - q ** (w - 3.0)))
    den = 1.0 - q**w
    return np.minimum(1.0, num / den)


def pftk_throughput(
    p: npt.ArrayLike,
    rtt: npt.ArrayLike,
    t0: npt.ArrayLike,
    b: npt.ArrayLike = 1.0,
    w_max: npt.ArrayLike = np.inf,
) -> FloatOrArray:
    """Full PFTK model (Padhye et al. 1998) with timeouts and a maximum window.

    As in Padhye et al. 1998 (checked against a secondary reproduction, not the paper)::

        E[W_u] = (2+b)/(3b) + sqrt(8(1−p)/(3bp) + ((2+b)/(3b))²)
        Q̂(w)  = min(1, (1−(1−p)³)(1+(1−p)³(1−(1−p)^(w−3))) / (1−(1−p)^w))
        f(p)   = 1 + p + 2p² + 4p³ + 8p⁴ + 16p⁵ + 32p⁶
        E[W_u] < W_max: B = [(1−p)/p + E[W_u] + Q̂(E[W_u])/(1−p)]
                            / [RTT(b/2·E[W_u] + 1) + Q̂(E[W_u])·T0·f(p)/(1−p)]
        otherwise:      B = [(1−p)/p + W_max + Q̂(W_max)/(1−p)]
                            / [RTT(b/8·W_max + (1−p)/(p·W_max) + 2) + Q̂(W_max)·T0·f(p)/(1−p)]

    Parameters
    ----------
    p:
        Loss-indication probability per packet, 0 < p < 1 (PFTK counts the rest of a
        round as lost after the first loss, so p ≈ loss-event rate).
    rtt:
        Round-trip time in seconds, > 0.
    t0:
        First (un-backed-off) retransmission timeout in seconds, ≥ 0 (0 removes the
        timeout term).
    b:
        Packets acknowledged per ACK, ≥ 1 (1 without delayed ACK, 2 with).
    w_max:
        Maximum (receiver/sender) window in packets, ≥ 1, ``inf`` for no limit.

    Returns
    -------
    Throughput in packets per second.
    """
    p_ = check("p", p, gt=0.0, lt=1.0)
    r = check("rtt", rtt, gt=0.0)
    t0_ = check("t0", t0, ge=0.0)
    b_ = check("b", b, ge=1.0)
    wm = check("w_max", w_max, ge=1.0, allow_inf=True)
    p_, r, t0_, b_, wm = np.broadcast_arrays(p_, r, t0_, b_, wm)
    q = 1.0 - p_
    k = (2.0 + b_) / (3.0 * b_)
    ew = k + np.sqrt(8.0 * q / (3.0 * b_ * p_) + k * k)
    f = 1 + p_ + 2 * p_**2 + 4 * p_**3 + 8 * p_**4 + 16 * p_**5 + 32 * p_**6
    unlimited = ew < wm
    w = np.where(unlimited, ew, wm)
    qh = _pftk_q_hat(p_, w)
    num = q / p_ + w + qh / q
    with np.errstate(divide="ignore", invalid="ignore"):
        rounds_limited = b_ / 8.0 * wm + q / (p_ * wm) + 2.0
    rounds = np.where(unlimited, b_ / 2.0 * ew + 1.0, rounds_limited)
    den = r * rounds + qh * t0_ * f / q
    return out(num / den)


def pftk_throughput_approx(
    p: npt.ArrayLike,
    rtt: npt.ArrayLike,
    t0: npt.ArrayLike,
    b: npt.ArrayLike = 1.0,
    w_max: npt.ArrayLike = np.inf,
) -> FloatOrArray:
    """Approximate PFTK model (Padhye et al. 1998; Cai et al. eq. (1) with b = 1)::

        B ≈ min(W_max/RTT, 1 / (RTT·√(2bp/3) + T0·min(1, 3√(3bp/8))·p·(1 + 32p²)))

    Parameters
    ----------
    p:
        Loss-event probability, 0 < p ≤ 1.
    rtt:
        Round-trip time in seconds, > 0.
    t0:
        Retransmission timeout in seconds, ≥ 0.
    b:
        Packets acknowledged per ACK, ≥ 1.
    w_max:
        Maximum window in packets, ≥ 1 (``inf``: no limit).

    Returns
    -------
    Throughput in packets per second.
    """
    p_ = check("p", p, gt=0.0, le=1.0)
    r = check("rtt", rtt, gt=0.0)
    t0_ = check("t0", t0, ge=0.0)
    b_ = check("b", b, ge=1.0)
    wm = check("w_max", w_max, ge=1.0, allow_inf=True)
    den = r * np.sqrt(2 * b_ * p_ / 3) + t0_ * np.minimum(
        1.0, 3 * np.sqrt(3 * b_ * p_ / 8)
    ) * p_ * (1 + 32 * p_**2)
    return out(np.minimum(wm / r, 1.0 / den))


def tfrc_throughput(
    s: npt.ArrayLike,
    rtt: npt.ArrayLike,
    p: npt.ArrayLike,
    t_rto: npt.ArrayLike | None = None,
    b: npt.ArrayLike = 1.0,
) -> FloatOrArray:
    """TFRC throughput equation, RFC 5348 §3.1::

        X = s / (R·√(2bp/3) + t_RTO·(3·√(3bp/8))·p·(1 + 32p²))

    Note: unlike ns-2's ``formula.h`` (and the PFTK approximation) the RFC does not clip
    ``3√(3bp/8)`` at 1.

    Parameters
    ----------
    s:
        Packet size (bytes, or any unit), > 0.
    rtt:
        Round-trip time R in seconds, > 0.
    p:
        Loss event rate, 0 < p ≤ 1 (the equation is not used when p = 0).
    t_rto:
        Retransmission timeout in seconds, ≥ 0; default 4R as RFC 5348 recommends.
    b:
        Packets acknowledged per TCP ACK, ≥ 1 (RFC 5348: SHOULD be 1).

    Returns
    -------
    Allowed sending rate in ``s`` units per second (bytes/s for s in bytes).
    """
    s_ = check("s", s, gt=0.0)
    r = check("rtt", rtt, gt=0.0)
    p_ = check("p", p, gt=0.0, le=1.0)
    t = 4.0 * r if t_rto is None else check("t_rto", t_rto, ge=0.0)
    b_ = check("b", b, ge=1.0)
    den = r * np.sqrt(2 * b_ * p_ / 3) + t * (3 * np.sqrt(3 * b_ * p_ / 8)) * p_ * (
        1 + 32 * p_**2
    )  # RFC 5348 §3.1
    return out(s_ / den)


def gaimd_throughput(
    p: npt.ArrayLike,
    rtt: npt.ArrayLike,
    alpha: npt.ArrayLike,
    beta: npt.ArrayLike,
    t0: npt.ArrayLike,
    b: npt.ArrayLike = 1.0,
    w_max: npt.ArrayLike = np.inf,
) -> FloatOrArray:
    """GAIMD(α, β) sending rate (Yang & Lam 2000) as printed in Jin et al. 2001 eq. (9)::

        T ≈ min(W_max/RTT, 1 / (RTT·√(2b(1−β)p/(α(1+β)))
                              + T0·min(1, 3√((1−β²)bp/(2α)))·p·(1 + 32p²)))

    Jin et al. write the same formula in the β-removed convention (β_J = 1 − β) and
    without b; the OCR of Jin's eq. (9) shows ``√(2β/(α(2−β)))p`` with p outside the
    root, which would not reduce to TCP's ``√(2p/3)`` at α = 1, β = 1/2; we read p inside
    the root (an assumption). With α = 1, β = 1/2 this is :func:`pftk_throughput_approx`.

    Parameters
    ----------
    p:
        Loss-event probability, 0 < p ≤ 1.
    rtt:
        Round-trip time in seconds, > 0.
    alpha:
        Additive increase in packets per RTT, > 0.
    beta:
        Multiplicative decrease, *β kept* convention (``w ← β·w``), 0 < β < 1.
    t0:
        Retransmission timeout in seconds, ≥ 0.
    b:
        Packets acknowledged per ACK, ≥ 1.
    w_max:
        Maximum window in packets, ≥ 1 (``inf``: no limit).

    Returns
    -------
    Throughput in packets per second.
    """
    p_ = check("p", p, gt=0.0, le=1.0)
    r = check("rtt", rtt, gt=0.0)
    a = check("alpha", alpha, gt=0.0)
    be = check("beta", beta, gt=0.0, lt=1.0)
    t0_ = check("t0", t0, ge=0.0)
    b_ = check("b", b, ge=1.0)
    wm = check("w_max", w_max, ge=1.0, allow_inf=True)
    td = r * np.sqrt(2 * b_ * (1 - be) * p_ / (a * (1 + be)))  # Jin et al. (9)
    to = t0_ * np.minimum(1.0, 3 * np.sqrt((1 - be**2) * b_ * p_ / (2 * a)))
    return out(np.minimum(wm / r, 1.0 / (td + to * p_ * (1 + 32 * p_**2))))
