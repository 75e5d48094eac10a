"""DCTCP's steady state: Alizadeh et al., "Data Center TCP (DCTCP)" (SIGCOMM 2010), §3.3 and
§3.4, eqs. (3)–(15).

N long-lived flows with the same RTT share a link of capacity C whose switch marks every packet
that arrives while more than K packets wait. The analysis assumes the flows synchronized: the
queue Q(t) = N·W(t) − C·RTT (3) is a sawtooth, marking starts when each window reaches
W* = (C·RTT + K)/N, and the windows grow one more packet before the marks return. The marked
fraction α then solves α²(1 − α/4) = (2W* + 1)/(W* + 1)² ≈ 2/W* (6), each window falls by
D = (W* + 1)α/2 (7), the queue by A = N·D ≈ ½√(2N(C·RTT + K)) (8) every T_C = D round trips
(9), from Q_max = K + N (10) to Q_min = Q_max − A (11), (12). The queue never empties when
K > C·RTT/7 (13); g < 1.386/√(2(C·RTT + K)) lets α span a period (15).

Conventions (§3.4): C in packets per second, RTT in seconds, K, W*, D, A and the queue in
packets. The approximations of (6) and (8) hold for W* ≫ 1; the analysis fits ns-2 best for
N < 10 (§3.3, Fig. 12: more flows desynchronize and the queue varies less).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ._validate import FloatOrArray, check, out

__all__ = [
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
]

#: Bisection steps for (6): the bracket [0, 1] shrinks below 1e-18.
_STEPS = 60


def _link(capacity, rtt, k, flows):
    return (
        check("capacity", capacity, gt=0.0),
        check("rtt", rtt, gt=0.0),
        check("k", k, ge=0.0),
        check("flows", flows, ge=1.0),
    )


def dctcp_critical_window(
    capacity: npt.ArrayLike, rtt: npt.ArrayLike, k: npt.ArrayLike, flows: npt.ArrayLike
) -> FloatOrArray:
    """W* = (C·RTT + K)/N (Alizadeh et al. §3.3): the window at which the synchronized queue
    reaches K and marking starts. ``capacity`` C > 0 packets/s, ``rtt`` > 0 s, ``k`` ≥ 0
    packets, ``flows`` N ≥ 1. Returns packets."""
    c, r, kk, n = _link(capacity, rtt, k, flows)
    return out((c * r + kk) / n)  # Alizadeh et al. §3.3: W* = (C×RTT + K)/N


def dctcp_alpha(w_star: npt.ArrayLike) -> FloatOrArray:
    """The fraction of packets marked in steady state, solving Alizadeh et al. (6)::

        α²(1 − α/4) = (2W* + 1)/(W* + 1)²

    for α in (0, 1] (the left side rises from 0 to 3/4 there; at W* ≤ 1 every packet is
    marked: α = 1). ``w_star`` > 0 packets."""
    w = check("w_star", w_star, gt=0.0)
    rhs = (2 * w + 1) / (w + 1) ** 2  # Alizadeh et al. (6)
    lo, hi = np.zeros_like(w), np.ones_like(w)
    for _ in range(_STEPS):
        mid = (lo + hi) / 2
        below = mid * mid * (1 - mid / 4) < rhs
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return out(np.where(rhs >= 0.75, 1.0, (lo + hi) / 2))


def dctcp_alpha_approx(w_star: npt.ArrayLike) -> FloatOrArray:
    """α ≈ √(2/W*), Alizadeh et al. (6) for W* ≫ 1 and small α. ``w_star`` > 0 packets."""
    w = check("w_star", w_star, gt=0.0)
    return out(np.sqrt(2 / w))  # Alizadeh et al. (6)


def dctcp_window_amplitude(w_star: npt.ArrayLike) -> FloatOrArray:
    """D = (W* + 1) − (W* + 1)(1 − α/2) = (W* + 1)α/2, Alizadeh et al. (7): how far one
    window falls at a cut, with α from (6). ``w_star`` > 0 packets. Returns packets."""
    w = check("w_star", w_star, gt=0.0)
    return out((w + 1) * np.asarray(dctcp_alpha(w)) / 2)  # Alizadeh et al. (7)


def dctcp_queue_amplitude(
    capacity: npt.ArrayLike, rtt: npt.ArrayLike, k: npt.ArrayLike, flows: npt.ArrayLike
) -> FloatOrArray:
    """The queue's oscillation amplitude A = N·D = N(W* + 1)α/2, Alizadeh et al. (8), with α
    from (6). Parameters as :func:`dctcp_critical_window`. Returns packets."""
    n = check("flows", flows, ge=1.0)
    w = dctcp_critical_window(capacity, rtt, k, flows)
    return out(n * np.asarray(dctcp_window_amplitude(w)))  # Alizadeh et al. (8)


def dctcp_queue_amplitude_approx(
    capacity: npt.ArrayLike, rtt: npt.ArrayLike, k: npt.ArrayLike, flows: npt.ArrayLike
) -> FloatOrArray:
    """A ≈ ½√(2N(C·RTT + K)), Alizadeh et al. (8) with α ≈ √(2/W*). Parameters as
    :func:`dctcp_critical_window`. Returns packets."""
    c, r, kk, n = _link(capacity, rtt, k, flows)
    return out(0.5 * np.sqrt(2 * n * (c * r + kk)))  # Alizadeh et al. (8)


def dctcp_period_rtts(
    capacity: npt.ArrayLike, rtt: npt.ArrayLike, k: npt.ArrayLike, flows: npt.ArrayLike
) -> FloatOrArray:
    """The sawtooth's period T_C = D round trips, Alizadeh et al. (9) (each window grows a
    packet per RTT back to where it was cut), with α from (6). Parameters as
    :func:`dctcp_critical_window`. Returns RTTs."""
    return dctcp_window_amplitude(dctcp_critical_window(capacity, rtt, k, flows))  # (9)


def dctcp_queue_max(k: npt.ArrayLike, flows: npt.ArrayLike) -> FloatOrArray:
    """Q_max = N(W* + 1) − C·RTT = K + N, Alizadeh et al. (10). ``k`` ≥ 0 packets,
    ``flows`` N ≥ 1. Returns packets."""
    kk = check("k", k, ge=0.0)
    n = check("flows", flows, ge=1.0)
    return out(kk + n)  # Alizadeh et al. (10)


def dctcp_queue_min(
    capacity: npt.ArrayLike, rtt: npt.ArrayLike, k: npt.ArrayLike, flows: npt.ArrayLike
) -> FloatOrArray:
    """Q_min = Q_max − A = K + N − ½√(2N(C·RTT + K)), Alizadeh et al. (11), (12); negative
    when the queue would empty (throughput lost). Parameters as :func:`dctcp_critical_window`.
    Returns packets."""
    c, r, kk, n = _link(capacity, rtt, k, flows)
    return out(kk + n - 0.5 * np.sqrt(2 * n * (c * r + kk)))  # Alizadeh et al. (12)


def dctcp_min_threshold(capacity: npt.ArrayLike, rtt: npt.ArrayLike) -> FloatOrArray:
    """The marking threshold above which no N empties the queue: K > C·RTT/7, Alizadeh et al.
    (13) ((12) is least at N = (C·RTT + K)/8, where it is (7K − C·RTT)/8). ``capacity`` C > 0
    packets/s, ``rtt`` > 0 s. Returns packets."""
    c = check("capacity", capacity, gt=0.0)
    r = check("rtt", rtt, gt=0.0)
    return out(c * r / 7)  # Alizadeh et al. (13)


def dctcp_max_gain(capacity: npt.ArrayLike, rtt: npt.ArrayLike, k: npt.ArrayLike) -> FloatOrArray:
    """The largest estimation gain for which α's average spans a sawtooth period at N = 1:
    g < 1.386/√(2(C·RTT + K)), Alizadeh et al. (14), (15). ``capacity`` C > 0 packets/s,
    ``rtt`` > 0 s, ``k`` ≥ 0 packets."""
    c, r, kk, _ = _link(capacity, rtt, k, 1.0)
    return out(1.386 / np.sqrt(2 * (c * r + kk)))  # Alizadeh et al. (15)


def dctcp_check_rows(g: float, capacity: float, rtt: float, k: float, flows: float) -> list[dict]:
    """What the analysis says of DCTCP(g) with ``flows`` flows on a link of ``capacity``
    packets/s and round trip ``rtt`` s marking above ``k`` packets, as rows of ``quantity``,
    ``theory`` and ``source`` (for ``ccscope check``)."""
    gain = float(check("g", g, gt=0.0, le=1.0))
    w = float(dctcp_critical_window(capacity, rtt, k, flows))
    threshold = float(dctcp_min_threshold(capacity, rtt))
    most_g = float(dctcp_max_gain(capacity, rtt, k))
    return [
        {
            "quantity": "W*: window when marking starts (packets)",
            "theory": w,
            "source": "Alizadeh et al. §3.3",
        },
        {
            "quantity": "α: fraction marked",
            "theory": float(dctcp_alpha(w)),
            "source": "Alizadeh et al. (6)",
        },
        {
            "quantity": "A: the queue's oscillation amplitude (packets)",
            "theory": float(dctcp_queue_amplitude(capacity, rtt, k, flows)),
            "source": "Alizadeh et al. (8)",
        },
        {
            "quantity": "T_C: the sawtooth's period (RTTs)",
            "theory": float(dctcp_period_rtts(capacity, rtt, k, flows)),
            "source": "Alizadeh et al. (9)",
        },
        {
            "quantity": "Q_max (packets)",
            "theory": float(dctcp_queue_max(k, flows)),
            "source": "Alizadeh et al. (10)",
        },
        {
            "quantity": "Q_min (packets; below 0 the link idles)",
            "theory": float(dctcp_queue_min(capacity, rtt, k, flows)),
            "source": "Alizadeh et al. (12)",
        },
        {
            "quantity": f"K > C·RTT/7 = {threshold:.4g} for full throughput",
            "theory": "holds" if k > threshold else "does not hold",
            "source": "Alizadeh et al. (13)",
        },
        {
            "quantity": f"g = {gain:g} < {most_g:.4g}",
            "theory": "holds" if gain < most_g else "does not hold",
            "source": "Alizadeh et al. (15)",
        },
    ]
