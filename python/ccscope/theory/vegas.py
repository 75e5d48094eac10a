"""TCP Vegas: Brakmo & Peterson, "TCP Vegas: end to end congestion avoidance on a global
Internet" (IEEE JSAC 13(8), 1995), §3.2, and the equilibrium of Mo, La, Anantharam & Walrand,
"Analysis and comparison of TCP Reno and Vegas" (INFOCOM 1999), whose fluid model
gives the equilibrium.

Conventions: windows and thresholds in packets, times in seconds, rates in packets per second.
α, β and γ count packets a flow keeps queued in the network (Linux ``tcp_vegas.c``: 2, 4, 1).

Vegas compares Expected = cwnd/BaseRTT with Actual = cwnd/RTT once per RTT and steers
Diff = (Expected − Actual)·BaseRTT into [α, β]. With a single FIFO bottleneck of queueing delay
q, a flow sending at rate x has RTT = BaseRTT + q and Diff = x·q: its own packets in the queue.
So in equilibrium every flow keeps between α and β packets queued, and since all flows see the
same q their rates lie in [α/q, β/q] whatever their propagation delays: no RTT bias (Mo et al.
1999). With α = β the equilibrium is unique and the rates are in proportion to the α's.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ._validate import FloatOrArray, check, out, require

__all__ = [
    "vegas_backlog",
    "vegas_check_rows",
    "vegas_diff",
    "vegas_equilibrium_rates",
    "vegas_queue_band",
    "vegas_rate_ratio_bound",
]


def vegas_diff(cwnd: npt.ArrayLike, base_rtt: npt.ArrayLike, rtt: npt.ArrayLike) -> FloatOrArray:
    """Vegas's Diff in packets, Brakmo & Peterson §3.2::

        Diff = (cwnd/BaseRTT − cwnd/RTT)·BaseRTT = cwnd·(RTT − BaseRTT)/RTT

    ``cwnd`` ≥ 0 packets; ``base_rtt`` > 0 s; ``rtt`` ≥ ``base_rtt`` s.
    """
    w = check("cwnd", cwnd, ge=0.0)
    base = check("base_rtt", base_rtt, gt=0.0)
    r = check("rtt", rtt, gt=0.0)
    require(
        np.all(r >= base), f"rtt must be at least base_rtt; got rtt={rtt!r}, base_rtt={base_rtt!r}"
    )
    return out((w / base - w / r) * base)  # Brakmo & Peterson §3.2: Diff = (E − A)·BaseRTT


def vegas_backlog(rate: npt.ArrayLike, queueing_delay: npt.ArrayLike) -> FloatOrArray:
    """A flow's packets in a FIFO queue: x·q (Little's law), which is its Diff when RTT =
    BaseRTT + q and x = cwnd/RTT (Mo et al. 1999). ``rate`` x ≥ 0 packets/s; ``queueing_delay``
    q ≥ 0 s. Returns packets.
    """
    x = check("rate", rate, ge=0.0)
    q = check("queueing_delay", queueing_delay, ge=0.0)
    return out(x * q)  # Mo et al. 1999: Diff_i = x_i·q


def vegas_queue_band(
    flows: npt.ArrayLike, alpha: npt.ArrayLike, beta: npt.ArrayLike
) -> tuple[FloatOrArray, FloatOrArray]:
    """The standing queue of ``flows`` Vegas flows in equilibrium, (n·α, n·β) packets: each
    keeps between α and β of its packets queued (Brakmo & Peterson §3.2; Mo et al. 1999).
    ``flows`` ≥ 1; 0 < ``alpha`` ≤ ``beta`` (packets)."""
    n = check("flows", flows, ge=1.0)
    a = check("alpha", alpha, gt=0.0)
    b = check("beta", beta, gt=0.0)
    require(np.all(a <= b), f"alpha must not exceed beta; got alpha={alpha!r}, beta={beta!r}")
    return out(n * a), out(n * b)


def vegas_rate_ratio_bound(alpha: npt.ArrayLike, beta: npt.ArrayLike) -> FloatOrArray:
    """The largest ratio of two Vegas flows' rates in equilibrium, whatever their RTTs: β/α.
    Every flow's backlog x_i·q is in [α, β] and q is common, so x_i/x_j ≤ β/α (Mo et al. 1999);
    1 when α = β. 0 < ``alpha`` ≤ ``beta``."""
    a = check("alpha", alpha, gt=0.0)
    b = check("beta", beta, gt=0.0)
    require(np.all(a <= b), f"alpha must not exceed beta; got alpha={alpha!r}, beta={beta!r}")
    return out(b / a)  # Mo et al. 1999: α/q ≤ x_i ≤ β/q


def vegas_equilibrium_rates(
    capacity: npt.ArrayLike, alphas: npt.ArrayLike
) -> tuple[np.ndarray, float]:
    """Mo et al.'s (1999) unique equilibrium of Vegas flows with α_i = β_i sharing a bottleneck of
    ``capacity`` C > 0 packets/s that they fill: each keeps x_i·q = α_i, and Σx_i = C, so::

        q = Σα_j / C,    x_i = C·α_i / Σα_j

    whatever the flows' propagation delays. ``alphas``: one α_i > 0 per flow (packets).
    Returns (rates in packets/s, queueing delay q in s).
    """
    c = check("capacity", capacity, gt=0.0)
    a = check("alphas", alphas, gt=0.0)
    require(a.ndim == 1 and a.size >= 1, f"alphas must be a non-empty 1-D array; got {alphas!r}")
    require(c.ndim == 0, f"capacity must be a scalar; got {capacity!r}")
    total = float(a.sum())
    return c * a / total, total / float(c)  # Mo et al. 1999


def vegas_check_rows(alpha: float = 2.0, beta: float = 4.0, gamma: float = 1.0) -> list[dict]:
    """What the theory says of Vegas(α, β) with slow-start threshold γ, as rows of
    ``quantity``, ``theory`` and ``source`` (for ``ccscope check``)."""
    a = float(check("alpha", alpha, gt=0.0))
    b = float(check("beta", beta, gt=0.0))
    g = float(check("gamma", gamma, gt=0.0))
    require(a <= b, f"alpha must not exceed beta; got alpha={alpha!r}, beta={beta!r}")
    return [
        {
            "quantity": "packets each flow keeps queued in equilibrium",
            "theory": f"[{a:g}, {b:g}]",
            "source": "Brakmo & Peterson §3.2; Mo et al. 1999",
        },
        {
            "quantity": "standing queue of n flows (packets)",
            "theory": f"[{a:g}·n, {b:g}·n]",
            "source": "Brakmo & Peterson §3.2; Mo et al. 1999",
        },
        {
            "quantity": "largest ratio of two flows' throughputs, whatever their RTTs",
            "theory": float(vegas_rate_ratio_bound(a, b)),
            "source": "Mo et al. 1999 (1 when α = β)",
        },
        {
            "quantity": "packets queued that end slow start",
            "theory": g,
            "source": "Brakmo & Peterson §3.3",
        },
    ]
