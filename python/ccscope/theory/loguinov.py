"""Loguinov & Radha 2003, "End-to-end rate-based congestion control: convergence
properties and scalability analysis" (IEEE/ACM ToN 11(4)), §III–V.

Notation (rate-based binomial control, eq. (3)): on no congestion ``r ← r + λ·r^(−k)``,
on congestion ``r ← r − σ·r^l``. The window-based constants (α, β) use the *β removed*
convention (``w ← w − β·w^l``; AIMD(1, 1/2) is TCP). Rates (λ, σ, C, U, x) may be in any
consistent unit (bits/s in the paper); λ then has units rate^(k+1) and σ rate^(1−l).
The control interval R cancels out of every result here.

The TCP-friendly rule of eq. (5), α = 3β/(2−β), is
:func:`ccscope.theory.tcp.aimd_friendly_alpha_beta_removed`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ._validate import (
    BoolOrArray,
    FloatOrArray,
    at_least,
    below,
    check,
    out,
    out_bool,
    require,
)

__all__ = [
    "aimd_loss_single_flow",
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
    "decrease_keeps_fairness",
    "decrease_no_crossover",
    "ideal_scalability_condition",
    "increase_keeps_fairness",
    "increase_no_crossover",
    "iscc_increase_bounded",
    "iscc_lambda",
    "iscc_loss",
    "iscc_sigma",
]


# --------------------------------------------------------------------------------------
# Eq. (3)-(4): binomial control and window/rate conversion
# --------------------------------------------------------------------------------------


def binomial_lambda(
    alpha: npt.ArrayLike, k: npt.ArrayLike, mtu: npt.ArrayLike, rtt: npt.ArrayLike
) -> FloatOrArray:
    """Rate-based increase constant ``λ = α·(MTU/RTT)^(k+1)``, Loguinov & Radha eq. (4).

    Parameters
    ----------
    alpha:
        Window-based increase constant α > 0 (packets^(k+1) per RTT).
    k:
        Increase power (any real; AIMD: 0, IIAD: 1, SQRT: 1/2).
    mtu:
        Packet size in bits, > 0.
    rtt:
        Round-trip time (control interval) in seconds, > 0.

    Returns
    -------
    λ in (bits/s)^(k+1).
    """
    a = check("alpha", alpha, gt=0.0)
    k_ = check("k", k)
    m = check("mtu", mtu, gt=0.0)
    r = check("rtt", rtt, gt=0.0)
    return out(a * (m / r) ** (k_ + 1.0))  # Loguinov & Radha (4)


def binomial_sigma(
    beta: npt.ArrayLike,
    l: npt.ArrayLike,  # noqa: E741
    mtu: npt.ArrayLike,
    rtt: npt.ArrayLike,
) -> FloatOrArray:
    """Rate-based decrease constant ``σ = β·(MTU/RTT)^(1−l)``, Loguinov & Radha eq. (4).

    Parameters
    ----------
    beta:
        Window-based decrease constant β > 0, *β removed* convention
        (``w ← w − β·w^l``).
    l:
        Decrease power (any real; AIMD: 1, IIAD: 0, SQRT: 1/2).
    mtu:
        Packet size in bits, > 0.
    rtt:
        Round-trip time in seconds, > 0.

    Returns
    -------
    σ in (bits/s)^(1−l).
    """
    b = check("beta", beta, gt=0.0)
    l_ = check("l", l)
    m = check("mtu", mtu, gt=0.0)
    r = check("rtt", rtt, gt=0.0)
    return out(b * (m / r) ** (1.0 - l_))  # Loguinov & Radha (4)


def binomial_increase(x: npt.ArrayLike, lam: npt.ArrayLike, k: npt.ArrayLike) -> FloatOrArray:
    """Binomial increase function ``R_I(x) = λ·x^(−k)``, Loguinov & Radha eq. (3).

    Parameters: ``x`` rate > 0; ``lam`` λ > 0 (rate^(k+1)); ``k`` any real.
    Returns the rate increment per control interval.
    """
    x_ = check("x", x, gt=0.0)
    lam_ = check("lam", lam, gt=0.0)
    k_ = check("k", k)
    return out(lam_ * x_ ** (-k_))


def binomial_increase_slope(x: npt.ArrayLike, lam: npt.ArrayLike, k: npt.ArrayLike) -> FloatOrArray:
    """Derivative ``R_I'(x) = −kλ·x^(−(k+1))`` of :func:`binomial_increase` (used in (23)–(24))."""
    x_ = check("x", x, gt=0.0)
    lam_ = check("lam", lam, gt=0.0)
    k_ = check("k", k)
    return out(-k_ * lam_ * x_ ** (-(k_ + 1.0)))


def binomial_decrease(x: npt.ArrayLike, sigma: npt.ArrayLike, l: npt.ArrayLike) -> FloatOrArray:  # noqa: E741
    """Binomial decrease function ``R_D(x) = σ·x^l``, Loguinov & Radha eq. (3).

    Parameters: ``x`` rate > 0; ``sigma`` σ > 0 (rate^(1−l)); ``l`` any real.
    Returns the rate decrement on congestion.
    """
    x_ = check("x", x, gt=0.0)
    s = check("sigma", sigma, gt=0.0)
    l_ = check("l", l)
    return out(s * x_**l_)


def binomial_decrease_slope(
    x: npt.ArrayLike,
    sigma: npt.ArrayLike,
    l: npt.ArrayLike,  # noqa: E741
) -> FloatOrArray:
    """Derivative ``R_D'(x) = lσ·x^(l−1)`` of :func:`binomial_decrease` (used in (23)–(24))."""
    x_ = check("x", x, gt=0.0)
    s = check("sigma", sigma, gt=0.0)
    l_ = check("l", l)
    return out(l_ * s * x_ ** (l_ - 1.0))


# --------------------------------------------------------------------------------------
# §III: conditions for monotonic convergence to fairness
# --------------------------------------------------------------------------------------


def decrease_keeps_fairness(
    x: npt.ArrayLike, r_d: npt.ArrayLike, r_d_slope: npt.ArrayLike
) -> BoolOrArray:
    """Condition (15): ``R_D'(x) ≥ R_D(x)/x`` — a decrease step never lowers fairness.

    Loguinov & Radha eq. (15). Evaluate pointwise; the paper requires it for all x > 0.

    Parameters
    ----------
    x:
        Rate > 0 at which the condition is checked.
    r_d:
        Decrease function value R_D(x) (rate), > 0.
    r_d_slope:
        Its derivative R_D'(x) (dimensionless).
    """
    x_ = check("x", x, gt=0.0)
    rd = check("r_d", r_d, gt=0.0)
    sl = check("r_d_slope", r_d_slope)
    return out_bool(at_least(sl, rd / x_))


def decrease_no_crossover(r_d_slope: npt.ArrayLike) -> BoolOrArray:
    """Condition (19): ``R_D'(x) < 1`` — a decrease step never crosses the fairness line.

    Loguinov & Radha eq. (19). ``r_d_slope`` is R_D'(x) (dimensionless).
    """
    sl = check("r_d_slope", r_d_slope)
    return out_bool(below(sl, 1.0))


def increase_keeps_fairness(
    x: npt.ArrayLike,
    r_i: npt.ArrayLike,
    r_i_slope: npt.ArrayLike,
    strict: bool = False,
) -> BoolOrArray:
    """Condition (21): ``R_I'(x) ≤ R_I(x)/x`` — an increase step never lowers fairness.

    Loguinov & Radha eq. (21); §III-C requires the strict form for convergence
    (``strict=True``).

    Parameters
    ----------
    x:
        Rate > 0.
    r_i:
        Increase function value R_I(x) (rate), > 0.
    r_i_slope:
        Its derivative R_I'(x) (dimensionless).
    strict:
        Use ``<`` instead of ``≤``.
    """
    x_ = check("x", x, gt=0.0)
    ri = check("r_i", r_i, gt=0.0)
    sl = check("r_i_slope", r_i_slope)
    bound = ri / x_
    return out_bool(below(sl, bound) if strict else at_least(bound, sl))


def increase_no_crossover(r_i_slope: npt.ArrayLike) -> BoolOrArray:
    """Condition (22): ``R_I'(x) > −1`` — an increase step never crosses the fairness line.

    Loguinov & Radha eq. (22). ``r_i_slope`` is R_I'(x) (dimensionless).
    """
    sl = check("r_i_slope", r_i_slope)
    return out_bool(below(-1.0, sl))


# --------------------------------------------------------------------------------------
# §IV-C: efficiency
# --------------------------------------------------------------------------------------


def _z(sigma: np.ndarray, u: np.ndarray, l_: np.ndarray, name_u: str) -> np.ndarray:
    z = sigma * u ** (l_ - 1.0)
    require(
        (z > 0) & (z <= 1),
        f"sigma*{name_u}**(l-1) must be in (0, 1] (lower point L = U - sigma*U**l >= 0, "
        f"see Loguinov & Radha (29)); got {z!r}",
    )
    return z


def binomial_efficiency(
    k: npt.ArrayLike,
    l: npt.ArrayLike,  # noqa: E741
    sigma: npt.ArrayLike,
    u: npt.ArrayLike,
) -> FloatOrArray:
    """Exact steady-state link utilisation of a binomial scheme, Loguinov & Radha eq. (28)::

        e = (k+1)(1 − (1 − σU^(l−1))^(k+2)) / ((k+2)(1 − (1 − σU^(l−1))^(k+1)))

    Parameters
    ----------
    k, l:
        Increase and decrease powers; k ∉ {−1, −2}.
    sigma:
        Rate-based decrease constant σ > 0 (rate^(1−l)); in window notation use β and a
        window U.
    u:
        Upper point U > 0 (rate): C for one flow, C/n for n flows.

    Raises ``ValueError`` when σU^(l−1) ∉ (0, 1], i.e. the lower point L = U − σU^l
    would be negative (the "drop-below-zero" regime excluded by (29)).

    Returns
    -------
    Average efficiency e (fraction of the link), dimensionless.
    """
    k_ = check("k", k)
    l_ = check("l", l)
    s = check("sigma", sigma, gt=0.0)
    u_ = check("u", u, gt=0.0)
    require((k_ != -1.0) & (k_ != -2.0), f"k must not be -1 or -2, got {k_!r}")
    z = _z(s, u_, l_, "u")
    require(
        (k_ > -1.0) | (z < 1.0),
        f"for k < -1, sigma*u**(l-1) must be < 1 (L > 0); got k={k_!r}, value={z!r}",
    )
    e = (k_ + 1) * (1 - (1 - z) ** (k_ + 2)) / ((k_ + 2) * (1 - (1 - z) ** (k_ + 1)))
    return out(e)  # Loguinov & Radha (28)


def binomial_max_flows(c: npt.ArrayLike, sigma: npt.ArrayLike, l: npt.ArrayLike) -> FloatOrArray:  # noqa: E741
    """Upper limit on the number of flows for (28) to hold, Loguinov & Radha eq. (29)::

        n < C / σ^(1/(1−l))   (= W / β^(1/(1−l)) in window notation)

    Parameters
    ----------
    c:
        Capacity C (rate) > 0, or window W in packets when ``sigma`` is the window β.
    sigma:
        Decrease constant σ > 0 (or window-based β, *β removed* convention).
    l:
        Decrease power, l < 1.

    Returns
    -------
    The (real-valued) bound on n; n must be strictly below it.
    """
    c_ = check("c", c, gt=0.0)
    s = check("sigma", sigma, gt=0.0)
    l_ = check("l", l, lt=1.0)
    return out(c_ / s ** (1.0 / (1.0 - l_)))  # Loguinov & Radha (29)


def binomial_efficiency_one_term(
    k: npt.ArrayLike,
    l: npt.ArrayLike,  # noqa: E741
    sigma: npt.ArrayLike,
    u: npt.ArrayLike,
) -> FloatOrArray:
    """One-term Taylor approximation of (28), Loguinov & Radha eq. (31): e = 1.

    The paper shows this (used implicitly by Bansal & Balakrishnan) is wrong by up to
    ~31 % for l → 1. Inputs as in :func:`binomial_efficiency`; they are only validated.
    """
    k_ = check("k", k)
    l_ = check("l", l)
    s = check("sigma", sigma, gt=0.0)
    u_ = check("u", u, gt=0.0)
    z = _z(s, u_, l_, "u")
    return out(np.ones(np.broadcast(k_, z).shape))  # Loguinov & Radha (31)


def binomial_efficiency_two_term(
    k: npt.ArrayLike,
    l: npt.ArrayLike,  # noqa: E741
    sigma: npt.ArrayLike,
    u: npt.ArrayLike,
) -> FloatOrArray:
    """Two-term approximation of (28), Loguinov & Radha eq. (32)::

        e = 1 − σU^(l−1) / (2 − kσU^(l−1))

    Exact for AIMD (k = 0, l = 1, σ = β): e = (2 − β)/2. Inputs as in
    :func:`binomial_efficiency`.
    """
    k_ = check("k", k)
    l_ = check("l", l)
    s = check("sigma", sigma, gt=0.0)
    u_ = check("u", u, gt=0.0)
    z = _z(s, u_, l_, "u")
    return out(1.0 - z / (2.0 - k_ * z))  # Loguinov & Radha (32)


def binomial_efficiency_n_flows(
    k: npt.ArrayLike,
    l: npt.ArrayLike,  # noqa: E741
    sigma: npt.ArrayLike,
    c: npt.ArrayLike,
    n: npt.ArrayLike,
) -> FloatOrArray:
    """Two-term efficiency with n flows, Loguinov & Radha eq. (33)::

        e_n = 1 − σC^(l−1) / (2n^(l−1) − kσC^(l−1))

    Reading: the paper prints ``σU^(l−1)`` in (33), where U is the single-flow upper
    point U = C; (33) is (32) evaluated at U = C/n (multiply through by n^(l−1)), and this
    function uses that reading.

    Parameters
    ----------
    k, l:
        Increase and decrease powers.
    sigma:
        Decrease constant σ > 0 (rate^(1−l)).
    c:
        Link capacity C > 0 (rate).
    n:
        Number of flows, ≥ 1 (real values accepted); σ(C/n)^(l−1) must stay ≤ 1, see (29).
    """
    k_ = check("k", k)
    l_ = check("l", l)
    s = check("sigma", sigma, gt=0.0)
    c_ = check("c", c, gt=0.0)
    n_ = check("n", n, ge=1.0)
    _z(s, c_ / n_, l_, "(c/n)")
    zc = s * c_ ** (l_ - 1.0)
    return out(1.0 - zc / (2.0 * n_ ** (l_ - 1.0) - k_ * zc))  # Loguinov & Radha (33)


# --------------------------------------------------------------------------------------
# §IV-D and §V: packet loss and its scalability
# --------------------------------------------------------------------------------------


def binomial_loss_single_flow(
    k: npt.ArrayLike,
    l: npt.ArrayLike,  # noqa: E741
    lam: npt.ArrayLike,
    sigma: npt.ArrayLike,
    c: npt.ArrayLike,
    exact: bool = True,
) -> FloatOrArray:
    """Worst-case (maximum-overshoot) loss rate of one binomial flow, Loguinov & Radha
    eq. (34)::

        p_1 = λ²(k+2) / (C^(2k+2)(1 − (1 − σC^(l−1))^(k+2)) + λ²(k+2))     (exact=True)
            ≈ λ²(k+2) / (C^(2k+2)(1 − (1 − σC^(l−1))^(k+2)))                (exact=False)

    Parameters
    ----------
    k, l:
        Increase and decrease powers, k > −2.
    lam, sigma:
        Rate-based constants λ > 0 (rate^(k+1)) and σ > 0 (rate^(1−l)).
    c:
        Link capacity C > 0 (rate); for n flows pass C/n (or use
        :func:`binomial_loss_n_flows`).
    exact:
        Keep the overshoot term in the denominator (first line of (34)).

    Returns
    -------
    Fraction of sent data lost, dimensionless (exact form is in (0, 1)).
    """
    k_ = check("k", k, gt=-2.0)
    l_ = check("l", l)
    lam_ = check("lam", lam, gt=0.0)
    s = check("sigma", sigma, gt=0.0)
    c_ = check("c", c, gt=0.0)
    z = _z(s, c_, l_, "c")
    over = lam_**2 * (k_ + 2.0)
    sent = c_ ** (2.0 * k_ + 2.0) * (1.0 - (1.0 - z) ** (k_ + 2.0))
    return out(over / (sent + over) if exact else over / sent)  # Loguinov & Radha (34)


def aimd_loss_single_flow(
    lam: npt.ArrayLike, sigma: npt.ArrayLike, c: npt.ArrayLike, exact: bool = True
) -> FloatOrArray:
    """Worst-case loss rate of one rate-based AIMD flow, Loguinov & Radha eq. (35)::

        p_1 = 2λ² / (C²σ(2−σ) + 2λ²)   (exact=True)   ≈ 2λ² / (C²σ(2−σ))

    Parameters
    ----------
    lam:
        Additive increase λ > 0 (rate, per control interval).
    sigma:
        Multiplicative decrease σ (= β, *β removed*), 0 < σ ≤ 1.
    c:
        Capacity C > 0 (same rate unit as λ).
    exact:
        Keep the overshoot term in the denominator.
    """
    lam_ = check("lam", lam, gt=0.0)
    s = check("sigma", sigma, gt=0.0, le=1.0)
    c_ = check("c", c, gt=0.0)
    over = 2.0 * lam_**2
    sent = c_**2 * s * (2.0 - s)
    return out(over / (sent + over) if exact else over / sent)  # Loguinov & Radha (35)


def binomial_loss_n_flows(
    k: npt.ArrayLike,
    l: npt.ArrayLike,  # noqa: E741
    lam: npt.ArrayLike,
    sigma: npt.ArrayLike,
    c: npt.ArrayLike,
    n: npt.ArrayLike,
    exact: bool = False,
) -> FloatOrArray:
    """Loss rate with n synchronized flows, Loguinov & Radha eq. (36)::

        p_n ≈ λ²(k+2)n^(2k+2) / (C^(2k+2)(1 − (1 − σ(C/n)^(l−1))^(k+2)))

    ``exact=False`` (default) is (36) as printed; ``exact=True`` uses the first line of
    (34) with C replaced by C/n (bounded by 1). Parameters as in
    :func:`binomial_loss_single_flow`; ``n`` ≥ 1 flows.
    """
    c_ = check("c", c, gt=0.0)
    n_ = check("n", n, ge=1.0)
    return binomial_loss_single_flow(k, l, lam, sigma, c_ / n_, exact=exact)


def binomial_loss_increase_factor(
    k: npt.ArrayLike,
    l: npt.ArrayLike,  # noqa: E741
    sigma: npt.ArrayLike,
    c: npt.ArrayLike,
    n: npt.ArrayLike,
    two_term: bool = True,
) -> FloatOrArray:
    """Packet-loss increase factor s_n = p_n/p_1, Loguinov & Radha eq. (37)::

        s_n ≈ n^(2k+2)(1 − (1 − σC^(l−1))^(k+2)) / (1 − (1 − σ(C/n)^(l−1))^(k+2))
            ≈ n^(l+2k+1)(2 − (k+1)σC^(l−1)) / (2 − (k+1)σ(C/n)^(l−1))    (two_term=True)
            = O(n^(l+2k+1))

    Parameters
    ----------
    k, l:
        Increase and decrease powers, k > −2.
    sigma:
        Decrease constant σ > 0 (rate^(1−l)).
    c:
        Capacity C > 0 (rate).
    n:
        Number of flows ≥ 1; σ(C/n)^(l−1) ≤ 1 required, see (29).
    two_term:
        Use the two-term Taylor form (second line); otherwise the first line.
    """
    k_ = check("k", k, gt=-2.0)
    l_ = check("l", l)
    s = check("sigma", sigma, gt=0.0)
    c_ = check("c", c, gt=0.0)
    n_ = check("n", n, ge=1.0)
    z1 = _z(s, c_, l_, "c")
    zn = _z(s, c_ / n_, l_, "(c/n)")
    if two_term:
        return out(
            n_ ** (l_ + 2 * k_ + 1) * (2 - (k_ + 1) * z1) / (2 - (k_ + 1) * zn)
        )  # Loguinov & Radha (37), second line
    return out(
        n_ ** (2 * k_ + 2) * (1 - (1 - z1) ** (k_ + 2)) / (1 - (1 - zn) ** (k_ + 2))
    )  # Loguinov & Radha (37), first line


def ideal_scalability_condition(k: npt.ArrayLike, l: npt.ArrayLike) -> BoolOrArray:  # noqa: E741
    """Necessary conditions for ideal (constant) loss scalability, Loguinov & Radha
    eq. (38): ``l + 2k + 1 = 0`` and ``k + l > 0`` (which together imply k < −1, l > 1).

    The equality is tested with an absolute tolerance of 1e-12.
    """
    k_ = check("k", k)
    l_ = check("l", l)
    return out_bool(np.isclose(l_ + 2 * k_ + 1, 0.0, rtol=0.0, atol=1e-12) & (k_ + l_ > 0))


# --------------------------------------------------------------------------------------
# §V-D: ISCC
# --------------------------------------------------------------------------------------


def iscc_sigma(c: npt.ArrayLike, l: npt.ArrayLike, m_d: npt.ArrayLike) -> FloatOrArray:  # noqa: E741
    """ISCC decrease constant ``σ = 1/(m_D·C^(l−1))``, Loguinov & Radha eq. (39).

    Parameters
    ----------
    c:
        (Estimated) bottleneck capacity C(t) > 0 (rate).
    l:
        Decrease power, l > 1.
    m_d:
        Efficiency constant, m_D ≥ l (the decrease step is at most x/m_D).

    Returns
    -------
    σ in rate^(1−l).
    """
    c_ = check("c", c, gt=0.0)
    l_ = check("l", l, gt=1.0)
    m = check("m_d", m_d, gt=0.0)
    require(m >= l_, f"m_d must be >= l (Loguinov & Radha (39)); got m_d={m!r}, l={l_!r}")
    return out(1.0 / (m * c_ ** (l_ - 1.0)))  # Loguinov & Radha (39)


def iscc_lambda(c: npt.ArrayLike, k: npt.ArrayLike, m_i: npt.ArrayLike) -> FloatOrArray:
    """ISCC increase constant ``λ = C^(k+1)/m_I``, Loguinov & Radha eq. (41).

    Parameters
    ----------
    c:
        (Estimated) bottleneck capacity C(t) > 0 (rate).
    k:
        Increase power (ISCC uses k < −1).
    m_i:
        Aggressiveness constant, m_I ≥ 1 (the increase step is at most x/m_I for x ≤ C).

    Returns
    -------
    λ in rate^(k+1).
    """
    c_ = check("c", c, gt=0.0)
    k_ = check("k", k)
    m = check("m_i", m_i, ge=1.0)
    return out(c_ ** (k_ + 1.0) / m)  # Loguinov & Radha (41)


def iscc_increase_bounded(
    x: npt.ArrayLike, lam: npt.ArrayLike, k: npt.ArrayLike, m_i: npt.ArrayLike
) -> BoolOrArray:
    """Condition (40): ``λ·x^(−k) ≤ x/m_I`` — the increase step is at most x/m_I.

    Loguinov & Radha eq. (40). ``x`` rate > 0, ``lam`` λ > 0, ``k`` real, ``m_i`` ≥ 1.
    """
    x_ = check("x", x, gt=0.0)
    lam_ = check("lam", lam, gt=0.0)
    k_ = check("k", k)
    m = check("m_i", m_i, ge=1.0)
    lhs = lam_ * x_ ** (-k_)
    rhs = x_ / m
    return out_bool(at_least(rhs, lhs))


def iscc_loss(k: npt.ArrayLike, m_i: npt.ArrayLike, m_d: npt.ArrayLike) -> FloatOrArray:
    """ISCC worst-case loss rate, independent of n and C, Loguinov & Radha eq. (42)::

        p_1 = (k+2) / (m_I²(1 − (1 − 1/m_D)^(k+2)) + k + 2)

    Obtained by substituting (39) and (41) into the exact (34).

    Parameters
    ----------
    k:
        Increase power, k > −2 (ISCC(−1.5, 2) uses k = −1.5).
    m_i:
        Aggressiveness constant m_I ≥ 1.
    m_d:
        Efficiency constant m_D ≥ 1 (the paper requires m_D ≥ l).
    """
    k_ = check("k", k, gt=-2.0)
    mi = check("m_i", m_i, ge=1.0)
    md = check("m_d", m_d, ge=1.0)
    return out(
        (k_ + 2) / (mi**2 * (1 - (1 - 1 / md) ** (k_ + 2)) + k_ + 2)
    )  # Loguinov & Radha (42)
