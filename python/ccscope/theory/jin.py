"""Jin, Guo, Matta & Bestavros 2001, "A spectrum of TCP-friendly window-based congestion
control algorithms" (BU-CS TR-2001-015), §2–5 and Appendices A, C, D.

Conventions: *β removed* — on loss ``w ← w − β·w^l`` (AIMD/SIMD: l = 1; IIAD/AIAD: l = 0,
β is then an additive decrease in packets). Windows are in packets and time in RTTs.
``w_max`` is the window just before the last loss and ``w0`` the window right after it
(w0 = (1−β)w_max for l = 1). History-based increase: ``w ← w + α/(w − w0)^k`` per RTT,
equivalently ``w(t) = w0 + c·t^(1/(k+1))`` (eqs. (1)–(3)).

The memory-less AIMD rule α = 3β/(2−β) (eq. (4) at k = 0, l = 1) is
:func:`ccscope.theory.tcp.aimd_friendly_alpha_beta_removed`.

Algorithms accepted by the Table 2/3 helpers: ``"tcp"`` (AIMD with β = 1/2, α = 1;
its β argument must be omitted), ``"aimd"`` (TCP-friendly AIMD(3β/(2−β), β)), ``"simd"``
(k = −1/2, l = 1), ``"iiad"`` (binomial k = 1, l = 0, α = 3β/2) and, for Table 3,
``"aiad"`` (k = l = 0 with history).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from scipy.special import gamma

from ._validate import FloatOrArray, check, out, require

__all__ = [
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
]

_SQRT2 = float(np.sqrt(2.0))


# --------------------------------------------------------------------------------------
# §2–3: control rules and the TCP-friendly α and c
# --------------------------------------------------------------------------------------


def _kl(k: npt.ArrayLike, l: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:  # noqa: E741
    return check("k", k, gt=-1.0), check("l", l, le=1.0)


def _shrink(beta: np.ndarray, w_max: np.ndarray, k: np.ndarray, l_: np.ndarray) -> np.ndarray:
    f = 1.0 - beta * w_max ** (l_ - 1.0) / (k + 2.0)
    require(
        f > 0,
        f"1 - beta*w_max**(l-1)/(k+2) must be > 0 (Jin et al. (4)); got {f!r}",
    )
    return f


def jin_alpha(
    beta: npt.ArrayLike,
    w_max: npt.ArrayLike,
    k: npt.ArrayLike,
    l: npt.ArrayLike,  # noqa: E741
    approx: bool = False,
) -> FloatOrArray:
    """TCP-friendly increase constant α of the history-based rule (3), Jin et al. eq. (4)::

        α = 3 / (2(k+1)(1 − βw_max^(l−1)/(k+2))) · (β/Γ(1/(k+1) + 1))^(k+1) · w_max^(kl+l−1)

    With ``approx=True`` the factor (1 − βw_max^(l−1)/(k+2)) is dropped: eq. (6), valid
    when βw_max^l ≪ w_max (this is what Table 1 uses).

    Parameters
    ----------
    beta:
        Decrease constant (β removed, ``w ← w − βw^l``), 0 < β < 1.
    w_max:
        Window before the last loss, packets, > 0.
    k:
        Increase power, k > −1 (SIMD: −1/2; AIMD: 0).
    l:
        Decrease power, l ≤ 1 (multiplicative: 1).
    approx:
        Use eq. (6) instead of (4).

    Returns
    -------
    α in packets^(k+1) per RTT.
    """
    b = check("beta", beta, gt=0.0, lt=1.0)
    w = check("w_max", w_max, gt=0.0)
    k_, l_ = _kl(k, l)
    shrink = 1.0 if approx else _shrink(b, w, k_, l_)
    g = gamma(1.0 / (k_ + 1.0) + 1.0)
    return out(
        3.0 / (2.0 * (k_ + 1.0) * shrink) * (b / g) ** (k_ + 1.0) * w ** (k_ * l_ + l_ - 1.0)
    )  # Jin et al. (4) / (6)


def jin_c(
    beta: npt.ArrayLike,
    w_max: npt.ArrayLike,
    k: npt.ArrayLike,
    l: npt.ArrayLike,  # noqa: E741
    approx: bool = False,
) -> FloatOrArray:
    """Coefficient c of the increase function w(t) = w0 + c·t^(1/(k+1)), Jin et al. eq. (5)::

        c = (3/(2(1 − βw_max^(l−1)/(k+2))))^(1/(k+1)) · β/Γ(1/(k+1) + 1) · w_max^(l − 1/(k+1))

    ``approx=True`` gives eq. (7). Parameters as in :func:`jin_alpha`.

    Returns
    -------
    c in packets per RTT^(1/(k+1)).
    """
    b = check("beta", beta, gt=0.0, lt=1.0)
    w = check("w_max", w_max, gt=0.0)
    k_, l_ = _kl(k, l)
    shrink = 1.0 if approx else _shrink(b, w, k_, l_)
    u = 1.0 / (k_ + 1.0)
    return out(
        (3.0 / (2.0 * shrink)) ** u * b / gamma(u + 1.0) * w ** (l_ - u)
    )  # Jin et al. (5) / (7)


def jin_simd_alpha(beta: npt.ArrayLike, w_max: npt.ArrayLike, approx: bool = False) -> FloatOrArray:
    """SIMD increase constant, Jin et al. eq. (8)::

        α_SIMD = 3√β / ((1 − 2β/3)·√(2·w_max))      (approx=True: 3√β/√(2·w_max))

    (eq. (4) at k = −1/2, l = 1). 0 < β < 1 (β removed); ``w_max`` > 0 packets.
    Returns packets^(1/2) per RTT.
    """
    b = check("beta", beta, gt=0.0, lt=1.0)
    w = check("w_max", w_max, gt=0.0)
    shrink = 1.0 if approx else 1.0 - 2.0 * b / 3.0
    return out(3.0 * np.sqrt(b) / (shrink * np.sqrt(2.0 * w)))  # Jin et al. (8)


def jin_c_from_alpha(alpha: npt.ArrayLike, k: npt.ArrayLike) -> FloatOrArray:
    """``c = ((k+1)α)^(1/(k+1))``: the increase function (1) equivalent to rule (2)
    (Jin et al. §2, footnote 3). α > 0, k > −1. Returns packets per RTT^(1/(k+1)).
    """
    a = check("alpha", alpha, gt=0.0)
    k_ = check("k", k, gt=-1.0)
    return out(((k_ + 1.0) * a) ** (1.0 / (k_ + 1.0)))


def jin_window(
    t: npt.ArrayLike, w0: npt.ArrayLike, c: npt.ArrayLike, k: npt.ArrayLike
) -> FloatOrArray:
    """Window growth since the last decrease, Jin et al. eq. (1)::

        w(t) = w0 + c·t^u,   u = 1/(k+1)

    ``t`` ≥ 0 RTTs since the window started to increase; ``w0`` ≥ 0 packets; ``c`` > 0;
    ``k`` > −1. Returns packets.
    """
    t_ = check("t", t, ge=0.0)
    w0_ = check("w0", w0, ge=0.0)
    c_ = check("c", c, gt=0.0)
    k_ = check("k", k, gt=-1.0)
    return out(w0_ + c_ * t_ ** (1.0 / (k_ + 1.0)))  # Jin et al. (1)


def jin_window_increment(
    w: npt.ArrayLike, w0: npt.ArrayLike, alpha: npt.ArrayLike, k: npt.ArrayLike
) -> FloatOrArray:
    """Per-RTT increase ``α/(w − w0)^k`` of the history-based rule, Jin et al. eqs. (2)–(3).

    ``w`` ≥ ``w0`` ≥ 0 packets (w > w0 when k > 0); α > 0; k > −1. Returns packets.
    """
    w_ = check("w", w, ge=0.0)
    w0_ = check("w0", w0, ge=0.0)
    a = check("alpha", alpha, gt=0.0)
    k_ = check("k", k, gt=-1.0)
    d = w_ - w0_
    require(d >= 0, f"w must be >= w0; got w={w_!r}, w0={w0_!r}")
    require((k_ <= 0) | (d > 0), f"w must be > w0 when k > 0; got w={w_!r}, w0={w0_!r}")
    return out(a / d**k_)  # Jin et al. (2)


def jin_window_decrement(w: npt.ArrayLike, beta: npt.ArrayLike, l: npt.ArrayLike) -> FloatOrArray:  # noqa: E741
    """Decrease on a loss event ``β·w^l`` (Jin et al. eq. (3); β removed).

    ``w`` > 0 packets; β > 0 (< 1 for l = 1); l ≤ 1. Returns the packets removed.
    """
    w_ = check("w", w, gt=0.0)
    b = check("beta", beta, gt=0.0)
    l_ = check("l", l, le=1.0)
    return out(b * w_**l_)  # Jin et al. (3)


def jin_increase_rule(
    w: npt.ArrayLike,
    w0: npt.ArrayLike,
    w_max: npt.ArrayLike,
    beta: npt.ArrayLike,
    k: npt.ArrayLike,
    l: npt.ArrayLike,  # noqa: E741
    approx: bool = True,
) -> FloatOrArray:
    """TCP-friendly per-RTT increase ``α(β, w_max)/(w − w0)^k`` — the "increase rule"
    column of Jin et al. Table 1 (α from eq. (6), or eq. (4) with ``approx=False``).

    E.g. SIMD (k = −1/2, l = 1): 3√β/√2 · √((w − w0)/w_max). Parameters as in
    :func:`jin_alpha` and :func:`jin_window_increment`. Returns packets.
    """
    return jin_window_increment(w, w0, jin_alpha(beta, w_max, k, l, approx=approx), k)


def jin_increase_function(
    t: npt.ArrayLike,
    w0: npt.ArrayLike,
    w_max: npt.ArrayLike,
    beta: npt.ArrayLike,
    k: npt.ArrayLike,
    l: npt.ArrayLike,  # noqa: E741
    approx: bool = True,
) -> FloatOrArray:
    """TCP-friendly window growth ``w0 + c(β, w_max)·t^(1/(k+1))`` — the "increase
    function" column of Jin et al. Table 1 (c from eq. (7), or (5) with ``approx=False``).

    E.g. SIMD: w0 + 9β/(8w_max)·t². Parameters as in :func:`jin_c` and :func:`jin_window`.
    Returns packets.
    """
    return jin_window(t, w0, jin_c(beta, w_max, k, l, approx=approx), k)


# --------------------------------------------------------------------------------------
# §4.2, Table 2 and Appendix C: convergence to efficiency (T1) and fairness (T2)
# --------------------------------------------------------------------------------------

_TABLE2 = ("tcp", "aimd", "iiad", "simd")
_TABLE3 = ("tcp", "aimd", "iiad", "simd", "aiad")


def _algo(algorithm: str, known: tuple[str, ...]) -> str:
    a = str(algorithm).lower()
    if a not in known:
        raise ValueError(f"algorithm={algorithm!r} is not one of {', '.join(known)}")
    return a


def _beta(algorithm: str, beta: npt.ArrayLike | None) -> np.ndarray:
    """β for ``algorithm``: fixed 1/2 for TCP, (0, 1) for AIMD/SIMD, > 0 packets for
    IIAD/AIAD (additive decrease)."""
    if algorithm == "tcp":
        if beta is not None:
            raise ValueError("beta must be omitted for algorithm='tcp' (TCP uses beta = 1/2)")
        return np.asarray(0.5)
    if beta is None:
        raise ValueError(f"beta is required for algorithm={algorithm!r}")
    if algorithm in ("iiad", "aiad"):
        return check("beta", beta, gt=0.0)
    return check("beta", beta, gt=0.0, lt=1.0)


def _windows(
    w: npt.ArrayLike, w1: npt.ArrayLike, w2: npt.ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    w_ = check("w", w, gt=0.0)
    a = check("w1", w1, ge=0.0)
    b = check("w2", w2, ge=0.0)
    require(a <= b, f"w1 must be <= w2 (Jin et al. App. C); got w1={a!r}, w2={b!r}")
    require(a + b <= w_, f"w1 + w2 must be <= w; got w1+w2={a + b!r}, w={w_!r}")
    require(a + b > 0, "w1 + w2 must be > 0")
    return w_, a, b


def jin_convergence_t1(
    algorithm: str,
    w: npt.ArrayLike,
    w1: npt.ArrayLike,
    w2: npt.ArrayLike,
    beta: npt.ArrayLike | None = None,
) -> FloatOrArray:
    """Time T₁ (RTTs) for two synchronized flows starting at (W₁, W₂) to reach the
    efficiency line w₁ + w₂ = W, Jin et al. Table 2 / Appendix C.1::

        TCP:  (W − W₁ − W₂)/2
        AIMD: (W − W₁ − W₂)(2 − β)/(6β)
        IIAD: (1/(12β))·(((W₂² − W₁²)/W)² − 2(W₁² + W₂²) + W²)
        SIMD: (2/3)(1 − 2β/3)·√(2/(β(1−β)))·√(W₁W₂(W − W₁ − W₂)/(W₁ + W₂))

    Parameters
    ----------
    algorithm:
        ``"tcp"``, ``"aimd"``, ``"iiad"`` or ``"simd"``.
    w:
        Bottleneck capacity W in packets (window sum at the efficiency line), > 0.
    w1, w2:
        Initial windows in packets, 0 ≤ W₁ ≤ W₂, W₁ + W₂ ≤ W.
    beta:
        Decrease parameter (β removed; packets for IIAD); omit for TCP.
    """
    a = _algo(algorithm, _TABLE2)
    b = _beta(a, beta)
    w_, x1, x2 = _windows(w, w1, w2)
    gap = w_ - x1 - x2
    if a == "tcp":
        t1 = gap / 2
    elif a == "aimd":
        t1 = gap * (2 - b) / (6 * b)
    elif a == "iiad":
        t1 = (((x2**2 - x1**2) / w_) ** 2 - 2 * (x1**2 + x2**2) + w_**2) / (12 * b)
    else:
        t1 = (
            2
            / 3
            * (1 - 2 * b / 3)
            * np.sqrt(2 / (b * (1 - b)))
            * np.sqrt(x1 * x2 * gap / (x1 + x2))
        )
    return out(t1)  # Jin et al. Table 2, T1


def jin_convergence_delta(
    algorithm: str, w: npt.ArrayLike, w1: npt.ArrayLike, w2: npt.ArrayLike
) -> FloatOrArray:
    """Window difference Δ (packets) when the efficiency line is first reached, Jin et al.
    Table 2 / Appendix C.1::

        TCP, AIMD: W₂ − W₁
        IIAD:      (W₂² − W₁²)/W
        SIMD:      |(2 − W/(W₁ + W₂))(W₂ − W₁)|

    (Table 2 prints the SIMD entry without the absolute value that Appendix C.1 has.)
    Parameters as in :func:`jin_convergence_t1`.
    """
    a = _algo(algorithm, _TABLE2)
    w_, x1, x2 = _windows(w, w1, w2)
    if a in ("tcp", "aimd"):
        d = x2 - x1
    elif a == "iiad":
        d = (x2**2 - x1**2) / w_
    else:
        d = np.abs((2 - w_ / (x1 + x2)) * (x2 - x1))
    return out(d)  # Jin et al. Table 2, Delta


def jin_epoch_length(
    algorithm: str,
    w: npt.ArrayLike,
    beta: npt.ArrayLike | None = None,
    w1: npt.ArrayLike | None = None,
    w2: npt.ArrayLike | None = None,
) -> FloatOrArray:
    """Congestion-epoch length L (RTTs) of two synchronized flows, Jin et al. App. C.2::

        TCP:  W/4
        AIMD: βW/(2α) = (2 − β)W/6
        SIMD: (2/3)·(1 − 2β/3)/(1 − β)·√(2W₁W₂)
        IIAD: (4/3)·W₁W₂/(W − 2β)

    Parameters
    ----------
    algorithm:
        ``"tcp"``, ``"aimd"``, ``"iiad"`` or ``"simd"``.
    w:
        Capacity W in packets, > 0.
    beta:
        Decrease parameter (β removed; packets for IIAD, 2β < W); omit for TCP.
    w1, w2:
        Windows (packets, > 0) at the start of the epoch, used by SIMD and IIAD; both
        default to the steady state W/2 (then SIMD → √2W/3 and IIAD → W/3 for small β).
    """
    a = _algo(algorithm, _TABLE2)
    b = _beta(a, beta)
    w_ = check("w", w, gt=0.0)
    x1 = w_ / 2 if w1 is None else check("w1", w1, gt=0.0)
    x2 = w_ / 2 if w2 is None else check("w2", w2, gt=0.0)
    if a == "tcp":
        length = w_ / 4
    elif a == "aimd":
        length = (2 - b) * w_ / 6
    elif a == "simd":
        length = 2 / 3 * (1 - 2 * b / 3) / (1 - b) * np.sqrt(2 * x1 * x2)
    else:
        require(w_ > 2 * b, f"w must exceed 2*beta for IIAD; got w={w_!r}, beta={b!r}")
        length = 4 / 3 * x1 * x2 / (w_ - 2 * b)
    return out(length)  # Jin et al. App. C.2


def _fairness_ratio(a: str, b: np.ndarray, w: npt.ArrayLike | None) -> np.ndarray:
    """Per-epoch contraction factor of Δ (Jin et al. App. C.2)."""
    if a == "tcp":
        return np.asarray(0.5)
    if a == "aimd":
        return 1 - b
    if a == "simd":
        return 1 - 2 * check("beta", b, gt=0.0, lt=0.5)
    if w is None:
        raise ValueError("w is required for algorithm='iiad'")
    w_ = check("w", w, gt=0.0)
    require(w_ > 2 * b, f"w must exceed 2*beta for IIAD; got w={w_!r}, beta={b!r}")
    return 1 - 2 * b / w_


def jin_epochs_to_fairness(
    algorithm: str,
    delta: npt.ArrayLike,
    eps: npt.ArrayLike,
    beta: npt.ArrayLike | None = None,
    w: npt.ArrayLike | None = None,
) -> FloatOrArray:
    """Number of congestion epochs T₂ until ``|w₁ − w₂| < ε``, Jin et al. App. C.2::

        TCP: log_{1/2}(ε/Δ)   AIMD: log_{1−β}(ε/Δ)   SIMD: log_{1−2β}(ε/Δ)
        IIAD: ≥ log_{1−2β/W}(ε/Δ)   (a lower bound: IIAD converges more slowly)

    Parameters
    ----------
    algorithm:
        ``"tcp"``, ``"aimd"``, ``"iiad"`` or ``"simd"``.
    delta:
        Initial window difference Δ in packets, > 0.
    eps:
        Target bound ε in packets, > 0 (the result is ≤ 0 when Δ ≤ ε).
    beta:
        Decrease parameter (β removed; SIMD needs β < 1/2; packets for IIAD); omit for
        TCP.
    w:
        Capacity W in packets (IIAD only).
    """
    a = _algo(algorithm, _TABLE2)
    b = _beta(a, beta)
    d = check("delta", delta, gt=0.0)
    e = check("eps", eps, gt=0.0)
    q = _fairness_ratio(a, b, w)
    return out(np.log(e / d) / np.log(q))


def jin_convergence_t2(
    algorithm: str,
    w: npt.ArrayLike,
    delta: npt.ArrayLike,
    eps: npt.ArrayLike,
    beta: npt.ArrayLike | None = None,
) -> FloatOrArray:
    """Convergence time to fairness T₂ in RTTs, Jin et al. Table 2 / end of App. C.2::

        TCP:  (W/4)·log_{1/2}(ε/Δ)
        AIMD: ((2 − β)W/6)·log_{1−β}(ε/Δ)
        IIAD: (W/3)·log_{1−2β/W}(ε/Δ)     (lower bound)
        SIMD: (√2·W/3)·log_{1−2β}(ε/Δ)    (β ≪ 1)

    i.e. :func:`jin_epochs_to_fairness` times the steady-state epoch length.

    Parameters
    ----------
    algorithm:
        ``"tcp"``, ``"aimd"``, ``"iiad"`` or ``"simd"``.
    w:
        Capacity W in packets, > 0.
    delta:
        Window difference Δ in packets at the start of the fairness phase, > 0.
    eps:
        Target bound ε in packets, > 0.
    beta:
        Decrease parameter (β removed; packets for IIAD); omit for TCP.
    """
    a = _algo(algorithm, _TABLE2)
    w_ = check("w", w, gt=0.0)
    epochs = np.asarray(jin_epochs_to_fairness(a, delta, eps, beta, w_ if a == "iiad" else None))
    b = _beta(a, beta)
    length = {
        "tcp": w_ / 4,
        "aimd": (2 - b) * w_ / 6,
        "iiad": w_ / 3,
        "simd": _SQRT2 * w_ / 3,
    }[a]
    return out(length * epochs)  # Jin et al. Table 2, T2


# --------------------------------------------------------------------------------------
# §5, Table 3 and Appendix D: smoothness, aggressiveness, responsiveness
# --------------------------------------------------------------------------------------


def jin_smoothness(
    algorithm: str, beta: npt.ArrayLike | None = None, w: npt.ArrayLike | None = None
) -> FloatOrArray:
    """Coefficient of variation of the window within a congestion epoch (random loss),
    Jin et al. Table 3 / Appendix D.1::

        AIMD:        β/(√6·(1 − β/2))           (printed 0.41β/(1 − β/2))
        IIAD, AIAD:  β/(√6·(W − β/2))           (printed 0.41β/(W − β/2))
        SIMD:        √(8/15)·β/(1 − 2β/3)²      (printed 0.73β/(1 − 2β/3)²)

    The printed constants 0.41 and 0.73 are roundings of 1/√6 and √(8/15) from the
    derivations of Appendix D.1; the exact constants are used here.

    Parameters
    ----------
    algorithm:
        ``"tcp"``, ``"aimd"``, ``"simd"``, ``"iiad"`` or ``"aiad"``.
    beta:
        Decrease parameter (β removed; packets for IIAD/AIAD); omit for TCP.
    w:
        Mean window W in packets (IIAD/AIAD only), > β/2.
    """
    a = _algo(algorithm, _TABLE3)
    b = _beta(a, beta)
    if a in ("tcp", "aimd"):
        cov = b / (np.sqrt(6.0) * (1 - b / 2))
    elif a == "simd":
        cov = np.sqrt(8.0 / 15.0) * b / (1 - 2 * b / 3) ** 2
    else:
        if w is None:
            raise ValueError(f"w is required for algorithm={a!r}")
        w_ = check("w", w, gt=0.0)
        require(w_ > b / 2, f"w must exceed beta/2; got w={w_!r}, beta={b!r}")
        cov = b / (np.sqrt(6.0) * (w_ - b / 2))
    return out(cov)  # Jin et al. Table 3, smoothness


def jin_aggressiveness_time(
    algorithm: str,
    w: npt.ArrayLike,
    m: npt.ArrayLike,
    beta: npt.ArrayLike | None = None,
) -> FloatOrArray:
    """1/aggressiveness: RTTs to grow the window from W to m·W, Jin et al. Table 3 /
    Appendix D.2::

        AIMD: ((m − 1)/β)·(2W/3)
        IIAD: (m² − 1)W²/(3β)
        SIMD: √((m − 1)/β)·(2√2·W/3)
        AIAD: 2(m − 1)W²/(3β)

    OCR note: the SIMD entry of Table 3 is printed as ``√((m−1)/β · 2√2W/3)``. Appendix
    D.2 derives √((m − 1)W/c_SIMD) with c_SIMD ≈ 9β/(8W), i.e. √((m−1)/β)·(2√2/3)·W, and
    only that reading reproduces the 41.5 RTT of Table 5 (W = 11, β = 1/16, m = 2), so the
    root is taken over (m − 1)/β only.

    Parameters
    ----------
    algorithm:
        ``"tcp"``, ``"aimd"``, ``"simd"``, ``"iiad"`` or ``"aiad"``.
    w:
        Window W (packets) before the bandwidth step, > 0.
    m:
        Factor by which the available bandwidth grows, m > 1.
    beta:
        Decrease parameter (β removed; packets for IIAD/AIAD); omit for TCP.
    """
    a = _algo(algorithm, _TABLE3)
    b = _beta(a, beta)
    w_ = check("w", w, gt=0.0)
    m_ = check("m", m, gt=1.0)
    if a in ("tcp", "aimd"):
        t = (m_ - 1) / b * 2 * w_ / 3
    elif a == "iiad":
        t = (m_**2 - 1) * w_**2 / (3 * b)
    elif a == "simd":
        t = np.sqrt((m_ - 1) / b) * 2 * _SQRT2 * w_ / 3
    else:
        t = 2 * (m_ - 1) * w_**2 / (3 * b)
    return out(t)  # Jin et al. Table 3, 1/aggressiveness


def jin_responsiveness_losses(
    algorithm: str,
    m: npt.ArrayLike,
    beta: npt.ArrayLike | None = None,
    w: npt.ArrayLike | None = None,
) -> FloatOrArray:
    """1/responsiveness: loss events needed to shrink the window by a factor m, Jin et al.
    Table 3 / Appendix D.3::

        AIMD, SIMD:  log_{1−β}(1/m)
        IIAD, AIAD:  W(1 − 1/m)/β

    Parameters
    ----------
    algorithm:
        ``"tcp"``, ``"aimd"``, ``"simd"``, ``"iiad"`` or ``"aiad"``.
    m:
        Reduction factor of the available bandwidth, m > 1.
    beta:
        Decrease parameter (β removed; packets for IIAD/AIAD); omit for TCP.
    w:
        Window W (packets) before the step (IIAD/AIAD only), > 0.
    """
    a = _algo(algorithm, _TABLE3)
    b = _beta(a, beta)
    m_ = check("m", m, gt=1.0)
    if a in ("tcp", "aimd", "simd"):
        n = np.log(1 / m_) / np.log(1 - b)
    else:
        if w is None:
            raise ValueError(f"w is required for algorithm={a!r}")
        w_ = check("w", w, gt=0.0)
        n = w_ * (1 - 1 / m_) / b
    return out(n)  # Jin et al. Table 3, 1/responsiveness
