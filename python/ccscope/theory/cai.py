"""Cai, Shen, Pan & Mark 2005, "Performance analysis of TCP-friendly AIMD algorithms for
multimedia applications" (IEEE Trans. Multimedia 7(2)), §III–IV and the appendix.

Conventions: *β kept* — on a congestion signal ``cwnd ← β·cwnd`` (TCP is AIMD(1, 0.5));
α is the additive increase in packets per RTT. Windows are in packets, time in RTTs, and
the link capacity ``r`` in packets per RTT (the paper's footnote 2). Loss is synchronized:
all flows see the congestion signal when the sum of windows reaches r.

The TCP-friendly rule of eq. (13), α = 3(1−β)/(1+β), is
:func:`ccscope.theory.tcp.aimd_friendly_alpha_beta_kept`; eq. (15), α = 4(1−β²)/3, is
:func:`ccscope.theory.tcp.gaimd_friendly_alpha`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ._validate import FloatOrArray, check, out, require

__all__ = [
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
    "dtaimd_alpha",
]


def _ab(alpha: npt.ArrayLike, beta: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    return check("alpha", alpha, gt=0.0), check("beta", beta, gt=0.0, lt=1.0)


# --------------------------------------------------------------------------------------
# §III-A: one TCP flow and one AIMD flow, multiclass friendliness
# --------------------------------------------------------------------------------------


def cai_aimd_overload_window(
    alpha: npt.ArrayLike, beta: npt.ArrayLike, r: npt.ArrayLike
) -> FloatOrArray:
    """Steady-state AIMD window when the link overflows, Cai et al. eq. (9)::

        W_A(t*) = r·α / (2(1−β) + α)

    One AIMD(α, β) flow (β kept) against one TCP flow on a link of ``r`` packets/RTT.
    Returns packets.
    """
    a, b = _ab(alpha, beta)
    r_ = check("r", r, gt=0.0)
    return out(r_ * a / (2 * (1 - b) + a))  # Cai et al. (9)


def cai_tcp_overload_window(
    alpha: npt.ArrayLike, beta: npt.ArrayLike, r: npt.ArrayLike
) -> FloatOrArray:
    """Steady-state TCP window when the link overflows, Cai et al. eq. (10)::

        W_T(t*) = r·2(1−β) / (2(1−β) + α)

    (α, β) are those of the competing AIMD flow (β kept); ``r`` in packets/RTT.
    Returns packets.
    """
    a, b = _ab(alpha, beta)
    r_ = check("r", r, gt=0.0)
    return out(r_ * 2 * (1 - b) / (2 * (1 - b) + a))  # Cai et al. (10)


def cai_aimd_mean_window(
    alpha: npt.ArrayLike, beta: npt.ArrayLike, r: npt.ArrayLike
) -> FloatOrArray:
    """Average AIMD window in steady state, Cai et al. eq. (11)::

        mean W_A = (1+β)/2 · W_A(t*) = (1+β)αr / (4(1−β) + 2α)

    Parameters as in :func:`cai_aimd_overload_window`. Returns packets.
    """
    a, b = _ab(alpha, beta)
    r_ = check("r", r, gt=0.0)
    return out((1 + b) * a * r_ / (4 * (1 - b) + 2 * a))  # Cai et al. (11)


def cai_tcp_mean_window(
    alpha: npt.ArrayLike, beta: npt.ArrayLike, r: npt.ArrayLike
) -> FloatOrArray:
    """Average TCP window in steady state, Cai et al. eq. (12)::

        mean W_T = (1+0.5)/2 · W_T(t*) = 3(1−β)r / (4(1−β) + 2α)

    Parameters as in :func:`cai_aimd_overload_window`. Returns packets.
    """
    a, b = _ab(alpha, beta)
    r_ = check("r", r, gt=0.0)
    return out(3 * (1 - b) * r_ / (4 * (1 - b) + 2 * a))  # Cai et al. (12)


def cai_friendly_alpha_ratio(beta1: npt.ArrayLike, beta2: npt.ArrayLike) -> FloatOrArray:
    """Ratio α₁/α₂ making AIMD(α₁, β₁) and AIMD(α₂, β₂) friendly, Cai et al. eq. (14)::

        α₁/α₂ = (1+β₂)(1−β₁) / ((1−β₂)(1+β₁))

    β₁, β₂ in (0, 1), β kept. Dimensionless.
    """
    b1 = check("beta1", beta1, gt=0.0, lt=1.0)
    b2 = check("beta2", beta2, gt=0.0, lt=1.0)
    return out((1 + b2) * (1 - b1) / ((1 - b2) * (1 + b1)))  # Cai et al. (14)


def cai_friendliness_constant(alpha: npt.ArrayLike, beta: npt.ArrayLike) -> FloatOrArray:
    """Class invariant ``α(1+β)/(1−β)``, Cai et al. eq. (16).

    Multiclass AIMD flows are pairwise friendly iff this is the same constant for all
    classes; it equals 3 for TCP (α = 1, β = 0.5) and for every pair satisfying (13).
    α > 0 (packets/RTT), 0 < β < 1 (β kept).
    """
    a, b = _ab(alpha, beta)
    return out(a * (1 + b) / (1 - b))  # Cai et al. (16)


# --------------------------------------------------------------------------------------
# §III-B1: effectiveness (link utilisation)
# --------------------------------------------------------------------------------------


def cai_buffer_threshold(
    alpha: npt.ArrayLike, beta: npt.ArrayLike, r: npt.ArrayLike
) -> FloatOrArray:
    """Buffer size B' above which one AIMD flow fully uses the link, Cai et al. (24)::

        B' = (√(α/(2β²) + (1/β − 1)r) − √(α/(2β²)))²

    OCR note: the printed text is ``(√(α/(2β²)) + ((1/β)−1)r − √(α/(2β²)))²`` with the
    extent of the first root lost. We read the first root as covering
    ``α/(2β²) + (1/β − 1)r``: that is the root of (r − β(r+B))² = 2αB, i.e. the B at which
    η_I of (24) reaches 1 (the other reading collapses to ((1/β − 1)r)², which does not
    make η_I = 1).

    α > 0 packets/RTT, 0 < β < 1 (β kept), r > 0 packets/RTT. Returns packets.
    """
    a, b = _ab(alpha, beta)
    r_ = check("r", r, gt=0.0)
    h = a / (2 * b * b)
    return out((np.sqrt(h + (1 / b - 1) * r_) - np.sqrt(h)) ** 2)  # Cai et al. (24)


def cai_single_flow_utilization(
    alpha: npt.ArrayLike, beta: npt.ArrayLike, r: npt.ArrayLike, buffer: npt.ArrayLike
) -> FloatOrArray:
    """Link utilisation of one AIMD flow during stage I (cwnd < r), Cai et al. eq. (24)::

        η_I = (r² − β²(r+B)² + 2αB) / (2r² − 2βr(r+B))   for 0 ≤ B ≤ B'
        η_I = 1                                          otherwise

    (Stage II, cwnd > r, always has utilisation 1.) With B = 0 this is (25).

    Parameters
    ----------
    alpha:
        Additive increase, packets/RTT, > 0.
    beta:
        Multiplicative decrease (β kept), 0 < β < 1.
    r:
        Link capacity in packets per propagation RTT τ₀, > 0.
    buffer:
        Bottleneck buffer B in packets (mean RED queue at loss), ≥ 0.
    """
    a, b = _ab(alpha, beta)
    r_ = check("r", r, gt=0.0)
    bb = check("buffer", buffer, ge=0.0)
    bp = (np.sqrt(a / (2 * b * b) + (1 / b - 1) * r_) - np.sqrt(a / (2 * b * b))) ** 2
    small = bb <= bp
    with np.errstate(divide="ignore", invalid="ignore"):
        eta = (r_**2 - b**2 * (r_ + bb) ** 2 + 2 * a * bb) / (
            2 * r_**2 - 2 * b * r_ * (r_ + bb)
        )  # Cai et al. (24)
    return out(np.where(small, eta, 1.0))


def cai_utilization_no_buffer(beta: npt.ArrayLike) -> FloatOrArray:
    """Link utilisation of one AIMD flow without buffering, Cai et al. eq. (25):
    η = (1+β)/2, 0 < β < 1 (β kept). Also the worst (fully synchronized) case for n flows.
    """
    b = check("beta", beta, gt=0.0, lt=1.0)
    return out((1 + b) / 2)  # Cai et al. (25)


def cai_best_case_utilization(beta: npt.ArrayLike, n: npt.ArrayLike) -> FloatOrArray:
    """Best-case utilisation of n AIMD(α, β) flows with evenly staggered decreases and no
    buffer, Cai et al. eq. (27)::

        η_best = 1 − [(1+β)n/(1−β) + 1]^(−1)

    0 < β < 1 (β kept); n ≥ 1 flows. n = 1 gives (25).
    """
    b = check("beta", beta, gt=0.0, lt=1.0)
    n_ = check("n", n, ge=1.0)
    return out(1 - 1 / ((1 + b) * n_ / (1 - b) + 1))  # Cai et al. (27)


# --------------------------------------------------------------------------------------
# §III-B2: responsiveness (convergence speed)
# --------------------------------------------------------------------------------------


def cai_convergence_speed(
    alpha: npt.ArrayLike, beta: npt.ArrayLike, cycles: npt.ArrayLike
) -> FloatOrArray:
    """Bandwidth-gain speed of a new flow against one same-class flow, Cai et al. (28)::

        c(α, β) = α(1 − βⁿ) / (n(1 − β))

    Parameters
    ----------
    alpha:
        Additive increase, packets/RTT, > 0.
    beta:
        Multiplicative decrease (β kept), 0 < β < 1.
    cycles:
        Number n of decrease/increase cycles, > 0 (real values accepted).

    Returns
    -------
    Speed in packets per RTT² (bandwidth in packets/RTT gained per RTT).
    """
    a, b = _ab(alpha, beta)
    n = check("cycles", cycles, gt=0.0)
    return out(a * (1 - b**n) / (n * (1 - b)))  # Cai et al. (28)


def cai_friendly_convergence_speed(beta: npt.ArrayLike, cycles: npt.ArrayLike) -> FloatOrArray:
    """Convergence speed (28) with the TCP-friendly α of (13), Cai et al. eq. (29)::

        c(β) = 3(1 − βⁿ) / (n(1 + β))

    0 < β < 1 (β kept); ``cycles`` n > 0. Returns packets per RTT².
    """
    b = check("beta", beta, gt=0.0, lt=1.0)
    n = check("cycles", cycles, gt=0.0)
    return out(3 * (1 - b**n) / (n * (1 + b)))  # Cai et al. (29)


def cai_time_to_share_speed(beta: npt.ArrayLike, share: npt.ArrayLike) -> FloatOrArray:
    """Speed at which a new TCP-friendly flow gains a fraction A of the link, Cai et al.
    eq. (30)::

        c(β) = 6A / ((1+β)·log_β(1 − 2A))

    Parameters
    ----------
    beta:
        Multiplicative decrease (β kept), 0 < β < 1.
    share:
        Target share A of the total bandwidth, 0 < A < 0.5.

    Returns
    -------
    Speed in packets per RTT² (independent of the capacity r).
    """
    b = check("beta", beta, gt=0.0, lt=1.0)
    a = check("share", share, gt=0.0, lt=0.5)
    cycles = np.log(1 - 2 * a) / np.log(b)
    return out(6 * a / ((1 + b) * cycles))  # Cai et al. (30)


def _two_class_inputs(
    x0: npt.ArrayLike,
    r: npt.ArrayLike,
    alpha1: npt.ArrayLike,
    beta1: npt.ArrayLike,
    alpha2: npt.ArrayLike,
    beta2: npt.ArrayLike,
) -> tuple[np.ndarray, ...]:
    r_ = check("r", r, gt=0.0)
    x = check("x0", x0, ge=0.0)
    require(x <= r_, f"x0 must be in [0, r]; got x0={x!r}, r={r_!r}")
    a1 = check("alpha1", alpha1, gt=0.0)
    b1 = check("beta1", beta1, gt=0.0, lt=1.0)
    a2 = check("alpha2", alpha2, gt=0.0)
    b2 = check("beta2", beta2, gt=0.0, lt=1.0)
    return x, r_ - x, r_, a1, b1, a2, b2


def cai_two_class_next_point(
    x0: npt.ArrayLike,
    r: npt.ArrayLike,
    alpha1: npt.ArrayLike,
    beta1: npt.ArrayLike,
    alpha2: npt.ArrayLike,
    beta2: npt.ArrayLike,
) -> tuple[FloatOrArray, FloatOrArray]:
    """Windows after one decrease/increase cycle of two AIMD classes, Cai et al. (31)–(32)::

        x₁ = (r − β₂y₀ + (α₂/α₁)β₁x₀) / (1 + α₂/α₁),   y₁ = r − x₁

    Parameters
    ----------
    x0:
        Window of flow F₁ (α₁, β₁) when the trace hits the capacity line, 0 ≤ x₀ ≤ r;
        y₀ = r − x₀ is that of F₂.
    r:
        Capacity in packets per RTT, > 0.
    alpha1, beta1, alpha2, beta2:
        AIMD parameters of the two flows (β kept).

    Returns
    -------
    (x₁, y₁) in packets.
    """
    x, y, r_, a1, b1, a2, b2 = _two_class_inputs(x0, r, alpha1, beta1, alpha2, beta2)
    x1 = (r_ - b2 * y + (a2 / a1) * b1 * x) / (1 + a2 / a1)  # Cai et al. (31)
    return out(x1), out(r_ - x1)  # Cai et al. (32)


def cai_two_class_convergence_speed(
    x0: npt.ArrayLike,
    r: npt.ArrayLike,
    alpha1: npt.ArrayLike,
    beta1: npt.ArrayLike,
    alpha2: npt.ArrayLike,
    beta2: npt.ArrayLike,
) -> FloatOrArray:
    """Bandwidth-gain speed of F₁ during one cycle against another class, Cai et al. (33)::

        c = ((r − β₂y₀ − x₀)α₁ + (β₁ − 1)α₂x₀) / (r − β₂y₀ − β₁x₀),   y₀ = r − x₀

    i.e. (x₁ − x₀) divided by the cycle length (x₁ − β₁x₀)/α₁. Parameters as in
    :func:`cai_two_class_next_point`. Returns packets per RTT² (negative if F₁ loses
    bandwidth).
    """
    x, y, r_, a1, b1, a2, b2 = _two_class_inputs(x0, r, alpha1, beta1, alpha2, beta2)
    return out(
        ((r_ - b2 * y - x) * a1 + (b1 - 1) * a2 * x) / (r_ - b2 * y - b1 * x)
    )  # Cai et al. (33)


# --------------------------------------------------------------------------------------
# §III-C3: DTAIMD
# --------------------------------------------------------------------------------------


def dtaimd_alpha(cwnd: npt.ArrayLike, beta: npt.ArrayLike) -> FloatOrArray:
    """DTAIMD's window-dependent additive increase (Cai et al. §III-C3, pseudo code L1–L6)::

        cwnd ≥ 1/(1−β):      α = 3(1−β)/(1+β)       (regular condition (13))
        cwnd = 1:            α = 1
        1 < cwnd < 1/(1−β):  α = 3/(2·cwnd − 1)     ((13) with effective β' = 1 − 1/cwnd)

    The pseudo code tests L1 (``cwnd ≥ 1/(1−β)``) first, so the boundary belongs to the
    regular branch (both branches agree there). Note that at cwnd = 1 the paper uses α = 1
    (TCP's value), not the limit 3 of 3/(2·cwnd − 1).

    Parameters
    ----------
    cwnd:
        Current congestion window in packets, ≥ 1 (real-valued windows accepted).
    beta:
        Preset multiplicative decrease (β kept), 0 < β < 1.

    Returns
    -------
    α in packets per RTT.
    """
    w = check("cwnd", cwnd, ge=1.0)
    b = check("beta", beta, gt=0.0, lt=1.0)
    regular = 3 * (1 - b) / (1 + b)  # L2
    small = 3 / (2 * w - 1)  # L6
    alpha = np.where(w >= 1 / (1 - b), regular, np.where(w == 1.0, 1.0, small))  # L1-L6
    return out(alpha)


# --------------------------------------------------------------------------------------
# §IV: playback, multirate and service differentiation
# --------------------------------------------------------------------------------------


def cai_max_consumption_rate(beta: npt.ArrayLike, r: npt.ArrayLike) -> FloatOrArray:
    """Largest playback rate without receiver starvation, Cai et al. eq. (34):
    ``C ≤ (1+β)r/2``; returns the bound (1+β)r/2.

    0 < β < 1 (β kept); ``r`` capacity, > 0, in any rate unit (result in the same unit).
    """
    b = check("beta", beta, gt=0.0, lt=1.0)
    r_ = check("r", r, gt=0.0)
    return out((1 + b) * r_ / 2)  # Cai et al. (34)


def cai_min_receiver_buffer(beta: npt.ArrayLike, r: npt.ArrayLike) -> FloatOrArray:
    """Minimum receiver buffer (maximum receiver queue) for playback at C_max, Cai et al.
    §IV-A1 (unnumbered, after (34))::

        [r²(1 − β²) + 6r(1 − β)] / 24

    The paper gives no derivation. The first term equals the filling-phase surplus
    (r − C_max)²/(2α) of a continuous sawtooth when α takes the TCP-friendly value (13),
    so the formula assumes a TCP-friendly flow; the second term is presumably the discrete
    (per-RTT step) correction. 0 < β < 1 (β kept); ``r`` in packets per RTT, > 0.

    Returns
    -------
    Buffer in packets.
    """
    b = check("beta", beta, gt=0.0, lt=1.0)
    r_ = check("r", r, gt=0.0)
    return out((r_**2 * (1 - b**2) + 6 * r_ * (1 - b)) / 24)  # Cai et al. §IV-A1


def cai_sender_queuing_delay(beta: npt.ArrayLike, tau: npt.ArrayLike) -> FloatOrArray:
    """Maximum sender queuing delay of a multirate coder, Cai et al. eq. (35)::

        d_q ≈ τ(1−β)W/(βW) = τ(1/β − 1)

    0 < β < 1 (β kept); ``tau`` ≥ 0 is the coder's reaction delay (seconds, or any time
    unit; the result has the same unit).
    """
    b = check("beta", beta, gt=0.0, lt=1.0)
    t = check("tau", tau, ge=0.0)
    return out(t * (1 / b - 1))  # Cai et al. (35)


def cai_weighted_alpha_ratio(
    weight: npt.ArrayLike, beta1: npt.ArrayLike, beta2: npt.ArrayLike
) -> FloatOrArray:
    """α₂/α₁ giving class 2 ``weight`` k times the throughput of class 1, Cai et al. (40)::

        α₂/α₁ = k²(1+β₁)(1−β₂) / ((1+β₂)(1−β₁))

    ``weight`` k > 0 (the paper uses integers k > 1; k = 1 gives (14)); β₁, β₂ in (0, 1)
    (β kept). Dimensionless.
    """
    k = check("weight", weight, gt=0.0)
    b1 = check("beta1", beta1, gt=0.0, lt=1.0)
    b2 = check("beta2", beta2, gt=0.0, lt=1.0)
    return out(k**2 * (1 + b1) * (1 - b2) / ((1 + b2) * (1 - b1)))  # Cai et al. (40)


# --------------------------------------------------------------------------------------
# Appendix: IIAD
# --------------------------------------------------------------------------------------


def cai_iiad_tcp_window_bounds(
    alpha: npt.ArrayLike, beta: npt.ArrayLike, r: npt.ArrayLike
) -> tuple[FloatOrArray, FloatOrArray, FloatOrArray, FloatOrArray]:
    """Steady-state window ranges of one IIAD flow against one TCP flow, Cai et al.
    appendix (after (A.2))::

        IIAD: ((α−β)r)/(2β+r)  …  (2β² + αr)/(2β+r)
        TCP:  (r² + (2β−α)r − 2β²)/(4β+2r)  …  (r² + (2β−α)r − 2β²)/(2β+r)

    IIAD (A.1)–(A.2): ``W ← W + α/W`` per RTT, ``W ← W − β`` on loss. Transcribed as
    printed. The ranges are self-consistent (IIAD range = β, TCP max = 2·min, the maxima
    sum to r) but are *not* what a continuous fluid solution of (A.1)–(A.2) gives (that
    yields IIAD minimum (αr − αβ − β²)/(α + 2β)); the paper does not show its derivation.

    Parameters
    ----------
    alpha:
        IIAD increase constant, > 0 (packets² per RTT).
    beta:
        IIAD additive decrease in packets, 0 < β < 1.
    r:
        Capacity in packets per RTT, > 0.

    Returns
    -------
    (IIAD min, IIAD max, TCP min, TCP max), in packets.
    """
    a = check("alpha", alpha, gt=0.0)
    b = check("beta", beta, gt=0.0, lt=1.0)
    r_ = check("r", r, gt=0.0)
    tcp_num = r_**2 + (2 * b - a) * r_ - 2 * b**2
    return (
        out((a - b) * r_ / (2 * b + r_)),
        out((2 * b**2 + a * r_) / (2 * b + r_)),
        out(tcp_num / (4 * b + 2 * r_)),
        out(tcp_num / (2 * b + r_)),
    )


def cai_iiad_window_ratio(
    alpha1: npt.ArrayLike,
    beta1: npt.ArrayLike,
    alpha2: npt.ArrayLike,
    beta2: npt.ArrayLike,
    r: npt.ArrayLike,
) -> FloatOrArray:
    """Average-window ratio of two IIAD flows, Cai et al. eq. (A.3)::

        W̄₁/W̄₂ = (α₂β₁² − 2α₁β₂² + 2α₁β₂r − α₁β₁β₂) / (α₁β₂² − 2α₂β₁² + 2α₂β₁r − α₂β₁β₂)

    Equal to 1 for every r only when (α₁, β₁) = (α₂, β₂). α > 0, 0 < β < 1 (additive
    decrease, packets), r > 0 packets/RTT.
    """
    a1 = check("alpha1", alpha1, gt=0.0)
    b1 = check("beta1", beta1, gt=0.0, lt=1.0)
    a2 = check("alpha2", alpha2, gt=0.0)
    b2 = check("beta2", beta2, gt=0.0, lt=1.0)
    r_ = check("r", r, gt=0.0)
    num = a2 * b1**2 - 2 * a1 * b2**2 + 2 * a1 * b2 * r_ - a1 * b1 * b2
    den = a1 * b2**2 - 2 * a2 * b1**2 + 2 * a2 * b1 * r_ - a2 * b1 * b2
    return out(num / den)  # Cai et al. (A.3)
