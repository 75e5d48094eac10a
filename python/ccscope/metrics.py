"""The papers' metrics over results and traces. Pure functions of numpy arrays.

Rates are bits/s, times seconds. Functions refuse empty or non-finite input with a ValueError
rather than returning NaN.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike


def _values(x: ArrayLike, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    if a.size == 0:
        raise ValueError(f"{name}: needs at least one value")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name}: values must be finite")
    return a


def throughput_bps(delivered_bytes: ArrayLike, seconds: float) -> np.ndarray | float:
    """Bits/s delivered over an interval of `seconds`."""
    if not seconds > 0:
        raise ValueError(f"seconds = {seconds}: must be > 0")
    return np.asarray(delivered_bytes, dtype=float) * 8.0 / seconds


def utilization(busy_seconds: float, seconds: float) -> float:
    """Fraction of time a link spent transmitting."""
    if not seconds > 0:
        raise ValueError(f"seconds = {seconds}: must be > 0")
    return float(busy_seconds) / seconds


def loss_rate(lost: ArrayLike, sent: ArrayLike) -> np.ndarray | float:
    """Lost over sent; 0 where nothing was sent."""
    lost_a = np.asarray(lost, dtype=float)
    sent_a = np.asarray(sent, dtype=float)
    out = np.divide(lost_a, sent_a, out=np.zeros(np.broadcast(lost_a, sent_a).shape),
                    where=sent_a > 0)
    return out if out.ndim else float(out)


def rebin(series: ArrayLike, factor: int) -> np.ndarray:
    """Averages consecutive groups of `factor` samples (a coarser timescale); a partial last
    group is dropped."""
    a = _values(series, "series")
    if factor < 1:
        raise ValueError(f"factor = {factor}: must be >= 1")
    n = a.size // factor
    if n == 0:
        raise ValueError(f"series of {a.size} samples is shorter than one group of {factor}")
    return a[: n * factor].reshape(n, factor).mean(axis=1)


def cov(series: ArrayLike, factor: int = 1) -> float:
    """Coefficient of variation (std / mean) of a rate series, after averaging groups of
    `factor` samples: with samples every Δ, this is the CoV at timescale factor·Δ (Yang et al.'s
    CoV_time with Δ = one RTT; Papadimitriou's with Δ = 150 ms)."""
    a = rebin(series, factor)
    m = a.mean()
    if m <= 0:
        raise ValueError("cov: the series has a non-positive mean")
    return float(a.std() / m)


def jain_index(rates: ArrayLike) -> float:
    """Jain's fairness index (Σx)² / (n Σx²), in [1/n, 1]."""
    x = _values(rates, "rates")
    top = float(np.max(np.abs(x)))
    if top == 0:
        raise ValueError("jain_index: all rates are zero")
    x = x / top  # scale-free; avoids under/overflow of the squares
    return float(np.sum(x) ** 2 / (x.size * np.sum(x * x)))


def min_max_ratio(rates: ArrayLike) -> float:
    """Worst-case fairness min(x) / max(x).

    This is also Loguinov & Radha's max–min fairness of n flows, eq. (9):
    f = min over i ≠ j of x_i / x_j, which is attained at the smallest over the largest rate.
    """
    x = _values(rates, "rates")
    if np.any(x < 0):
        raise ValueError("rates must be non-negative")
    top = float(x.max())
    if top == 0:
        raise ValueError("min_max_ratio: all rates are zero")
    return float(x.min()) / top


max_min_fairness = min_max_ratio


def queue_stats(queue: ArrayLike) -> dict[str, float]:
    """Mean, standard deviation, percentiles and maximum of a sampled queue-length series."""
    q = _values(queue, "queue")
    p50, p95, p99 = np.percentile(q, [50, 95, 99])
    return {
        "mean": float(q.mean()),
        "std": float(q.std()),
        "p50": float(p50),
        "p95": float(p95),
        "p99": float(p99),
        "max": float(q.max()),
        "frac_empty": float(np.mean(q == 0)),
    }
