"""The metrics of a run's totals in plain Python floats: `ccscope run` writes summary.json
without loading numpy. :mod:`ccscope.metrics` (numpy arrays) re-exports the media ones and gives
the same bits for Jain's index and min/max: sums here are added in numpy's order.
"""

from __future__ import annotations

from collections.abc import Sequence


def ratio(part: float, whole: float) -> float:
    """`part` over `whole` as a float, 0 when `whole` is not positive: a loss rate of totals
    (:func:`ccscope.metrics.loss_rate` for one pair)."""
    return float(part) / whole if whole > 0 else 0.0


def video_delivery_index(jitter_free_pkts: float, sent_pkts: float) -> float:
    """Papadimitriou & Zhang's Video Delivery Index (2007 §V): packets that arrived within the
    inter-arrival threshold (75 ms) of the packet before them, over the packets the sender sent;
    at most 1. 0 when nothing was sent."""
    return ratio(jitter_free_pkts, sent_pkts)


def delayed_packet_rate(delayed_pkts: float, delivered_pkts: float) -> float:
    """Papadimitriou & Zhang's delayed-packet rate (2007 §V): the proportion of delivered
    packets that arrived more than the threshold after the packet before them."""
    return ratio(delayed_pkts, delivered_pkts)


def numpy_sum(x: Sequence[float]) -> float:
    """Σx added in the order numpy adds a float64 array (its pairwise summation,
    numpy/_core/src/umath/loops_utils.h.src): one by one below 8 values; up to 128, eight
    running sums over the multiples of 8, combined as a tree, then the rest one by one; above
    128, the two halves (the first a multiple of 8 long) each summed so."""
    n = len(x)
    if n < 8:
        total = 0.0
        for v in x:
            total += v
        return total
    if n <= 128:
        lanes = list(x[:8])
        end = n - n % 8
        for i in range(8, end, 8):
            for j in range(8):
                lanes[j] += x[i + j]
        total = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + (
            (lanes[4] + lanes[5]) + (lanes[6] + lanes[7])
        )
        for v in x[end:]:
            total += v
        return total
    half = n // 2
    half -= half % 8
    return numpy_sum(x[:half]) + numpy_sum(x[half:])


def fairness(x: Sequence[float]) -> dict[str, float]:
    """Jain's index (Σx)² / (n Σx²) and min(x) / max(x) of non-negative finite rates `x`
    (:func:`ccscope.metrics.jain_index`, :func:`ccscope.metrics.min_max_ratio`); both 0 when no
    rate is positive."""
    top = max(x, default=0.0)
    if not top > 0:
        return {"jain": 0.0, "min_max": 0.0}
    scaled = [v / top for v in x]  # scale-free, as metrics.jain_index
    jain = numpy_sum(scaled) ** 2 / (len(scaled) * numpy_sum([v * v for v in scaled]))
    return {"jain": jain, "min_max": min(x) / top}
