"""Papadimitriou & Zhang 2007, "Optimization of AIMD congestion control for media-streaming
applications" (SSVP with adaptive AIMD parameters), §III–IV.

Conventions: *β kept* — on congestion SSVP multiplies its inter-packet gap by 1/β, i.e.
``rate ← β·rate`` (eq. (4)); static SSVP uses (α, β) = (0.31, 0.875). Times in seconds,
capacity ``B`` and packet size ``S`` in any consistent units (bytes/s and bytes), so that
B/S is in packets per second.

The TCP-friendly rule of eq. (2), α = 4(1−β²)/3, is
:func:`ccscope.theory.tcp.gaimd_friendly_alpha`; SSVP-ADP applies it to the β of (20).
"""

from __future__ import annotations

import numpy.typing as npt

from ._validate import FloatOrArray, check, out, require

__all__ = [
    "ssvp_adaptive_beta",
    "ssvp_cliff_packets",
    "ssvp_ipg_after_loss",
    "ssvp_knee_packets",
    "ssvp_optimal_beta",
]


def ssvp_knee_packets(
    rtt0: npt.ArrayLike, capacity: npt.ArrayLike, packet_size: npt.ArrayLike
) -> FloatOrArray:
    """Packets in flight at the knee (link full, empty queue), Papadimitriou & Zhang (12)::

        K_knee = RTT₀·B/S

    ``rtt0`` round-trip propagation delay (s) > 0; ``capacity`` B > 0 (bytes/s);
    ``packet_size`` S > 0 (bytes). Returns packets.
    """
    r = check("rtt0", rtt0, gt=0.0)
    b = check("capacity", capacity, gt=0.0)
    s = check("packet_size", packet_size, gt=0.0)
    return out(r * b / s)  # Papadimitriou & Zhang (12)


def ssvp_cliff_packets(
    rtt0: npt.ArrayLike,
    qdelay_max: npt.ArrayLike,
    capacity: npt.ArrayLike,
    packet_size: npt.ArrayLike,
) -> FloatOrArray:
    """Packets in flight at the cliff (buffer full), Papadimitriou & Zhang eq. (16)::

        K_cliff = (RTT₀ + qdelay_max)·B/S

    ``qdelay_max`` ≥ 0 s is the queuing delay of a full buffer; other parameters as in
    :func:`ssvp_knee_packets`. Returns packets.
    """
    r = check("rtt0", rtt0, gt=0.0)
    q = check("qdelay_max", qdelay_max, ge=0.0)
    b = check("capacity", capacity, gt=0.0)
    s = check("packet_size", packet_size, gt=0.0)
    return out((r + q) * b / s)  # Papadimitriou & Zhang (16)


def ssvp_optimal_beta(
    buffer_pkts: npt.ArrayLike,
    packet_size: npt.ArrayLike,
    rtt0: npt.ArrayLike,
    capacity: npt.ArrayLike,
) -> FloatOrArray:
    """Decrease ratio that drops the system from the cliff to the knee, Papadimitriou &
    Zhang eq. (17)::

        β = K_knee/K_cliff = 1 / (1 + bufSize·S/(RTT₀·B))

    (β = 1/2 when the buffer equals the bandwidth-delay product.)

    Parameters
    ----------
    buffer_pkts:
        Bottleneck buffer in packets, ≥ 0.
    packet_size:
        Average packet length S (bytes), > 0.
    rtt0:
        Round-trip propagation delay (s), > 0.
    capacity:
        Bottleneck capacity B (bytes/s), > 0.

    Returns
    -------
    β (kept fraction), in (0, 1].
    """
    q = check("buffer_pkts", buffer_pkts, ge=0.0)
    s = check("packet_size", packet_size, gt=0.0)
    r = check("rtt0", rtt0, gt=0.0)
    b = check("capacity", capacity, gt=0.0)
    return out(1.0 / (1.0 + q * s / (r * b)))  # Papadimitriou & Zhang (17)


def ssvp_adaptive_beta(rtt_min: npt.ArrayLike, rtt: npt.ArrayLike) -> FloatOrArray:
    """SSVP-ADP's decrease ratio on loss, Papadimitriou & Zhang eq. (20)::

        β = K_knee/K(t) = RTT_min/RTT(t)

    ``rtt_min`` (≈ RTT₀) and ``rtt`` (current RTT, ≈ RTT₀ + qdelay_max at loss) in
    seconds, 0 < rtt_min ≤ rtt. Returns β (kept fraction) in (0, 1].
    """
    lo = check("rtt_min", rtt_min, gt=0.0)
    hi = check("rtt", rtt, gt=0.0)
    require(lo <= hi, f"rtt_min must be <= rtt; got rtt_min={lo!r}, rtt={hi!r}")
    return out(lo / hi)  # Papadimitriou & Zhang (20)


def ssvp_ipg_after_loss(
    ipg: npt.ArrayLike, rtt_min: npt.ArrayLike, rtt: npt.ArrayLike
) -> FloatOrArray:
    """Inter-packet gap after a loss with the adaptive β, Papadimitriou & Zhang eq. (21)::

        IPG_(i+1) = IPG_i·RTT(t)/RTT_min

    ``ipg`` > 0 (s); RTTs as in :func:`ssvp_adaptive_beta`. Returns seconds.
    """
    g = check("ipg", ipg, gt=0.0)
    lo = check("rtt_min", rtt_min, gt=0.0)
    hi = check("rtt", rtt, gt=0.0)
    require(lo <= hi, f"rtt_min must be <= rtt; got rtt_min={lo!r}, rtt={hi!r}")
    return out(g * hi / lo)  # Papadimitriou & Zhang (21)
