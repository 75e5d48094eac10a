"""Copa's equilibrium (Arun & Balakrishnan, "Copa: practical delay-based congestion control
for the Internet", NSDI 2018, §2.1).

Conventions: rates in packets per second, delays in seconds, queues in packets.

Copa steers its rate λ = cwnd/RTTstanding toward the target λt = 1/(δ·dq), dq the queueing
delay. At the target a flow's packets in the queue are λ·dq = 1/δ (Little's law), so n flows at
their targets share one dq, send at equal rates and hold n/δ packets queued; on a link of C
packets/s that they fill, dq = n/(δ·C). The window moves by v/δ packets per round trip about the
target (v = 1 there), so the queue swings about the equilibrium by up to 1/δ per flow.
"""

from __future__ import annotations

import numpy.typing as npt

from ._validate import FloatOrArray, check, out

__all__ = ["copa_check_rows", "copa_queueing_delay", "copa_standing_queue", "copa_target_rate"]


def copa_target_rate(delta: npt.ArrayLike, queueing_delay: npt.ArrayLike) -> FloatOrArray:
    """§2.1: the target rate λt = 1/(δ·dq) packets/s. ``delta`` in (0, 1]; ``queueing_delay``
    dq > 0 s."""
    d = check("delta", delta, gt=0.0, le=1.0)
    q = check("queueing_delay", queueing_delay, gt=0.0)
    return out(1.0 / (d * q))


def copa_standing_queue(flows: npt.ArrayLike, delta: npt.ArrayLike) -> FloatOrArray:
    """§2.1: n flows at their target rates hold n/δ packets in the queue, 1/δ each.
    ``flows`` n ≥ 1; ``delta`` in (0, 1]."""
    n = check("flows", flows, ge=1.0)
    d = check("delta", delta, gt=0.0, le=1.0)
    return out(n / d)


def copa_queueing_delay(
    flows: npt.ArrayLike, delta: npt.ArrayLike, capacity: npt.ArrayLike
) -> FloatOrArray:
    """§2.1: the queueing delay of n flows at their targets filling a link of C packets/s,
    dq = n/(δ·C) s. ``flows`` n ≥ 1; ``delta`` in (0, 1]; ``capacity`` C > 0."""
    c = check("capacity", capacity, gt=0.0)
    return out(copa_standing_queue(flows, delta) / c)


def copa_check_rows(delta: float = 0.5) -> list[dict]:
    """What §2.1 says of Copa(δ), as rows of ``quantity``, ``theory`` and ``source`` (for
    ``ccscope check``)."""
    d = float(check("delta", delta, gt=0.0, le=1.0))
    return [
        {
            "quantity": "packets each flow keeps queued at its target rate",
            "theory": 1.0 / d,
            "source": "Arun & Balakrishnan §2.1 (λt·dq = 1/δ)",
        },
        {
            "quantity": "standing queue of n flows (packets)",
            "theory": f"{1.0 / d:g}·n",
            "source": "Arun & Balakrishnan §2.1",
        },
        {
            "quantity": "swing of each flow's queue about it, per round trip (packets)",
            "theory": 1.0 / d,
            "source": "Arun & Balakrishnan §2.1 (the window moves v/δ a round trip, v = 1)",
        },
    ]
