"""The papers' metrics over results and traces. Pure functions of numpy arrays.

Rates are bits/s, times seconds. Functions refuse empty or non-finite input with a ValueError
rather than returning NaN.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

# Media metrics of a run's totals, in plain floats (summary.json is written without numpy).
from .plainmetrics import delayed_packet_rate, video_delivery_index  # noqa: F401


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
    out = np.divide(
        lost_a, sent_a, out=np.zeros(np.broadcast(lost_a, sent_a).shape), where=sent_a > 0
    )
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


fairness_index = jain_index
"""Papadimitriou & Zhang's Fairness Index (2007 §V) and Yang et al.'s short-term fairness F
(2003 §3.1.1) are Jain's index of the competing flows' rates."""

worst_case_fairness = min_max_ratio
"""Papadimitriou & Zhang's Worst-Case Fairness (2007 §V): min(x) / max(x)."""


def cov_time(series: ArrayLike, factors: ArrayLike = (1, 2, 5, 10)) -> dict[int, float]:
    """Yang et al.'s smoothness CoV_time (2003 §3.1.1) at several timescales: the CoV of a
    sending-rate series sampled every Δ (one RTT in the paper) after averaging groups of each
    factor, i.e. at timescales factor·Δ. Longer timescales give smaller CoVs (§3.1.1)."""
    return {int(f): cov(series, int(f)) for f in factors}


def short_term_fairness(rates: ArrayLike) -> np.ndarray:
    """Yang et al.'s short-term fairness F (2003 §3.1.1): Jain's index across the competing
    flows in each interval, from a (time × flow) table of rates sampled every RTT. Intervals in
    which no flow sent are skipped."""
    x = np.asarray(rates, dtype=float)
    if x.ndim != 2 or x.size == 0:
        raise ValueError("rates: needs a non-empty (time x flow) table")
    if not np.all(np.isfinite(x)):
        raise ValueError("rates: values must be finite")
    live = x.max(axis=1) > 0
    x = x[live]
    return np.sum(x, axis=1) ** 2 / (x.shape[1] * np.sum(x * x, axis=1))


def loss_cov(lost: ArrayLike, sent: ArrayLike, factor: int = 1) -> float:
    """CoV of the loss fluctuation: the coefficient of variation of the loss rate (lost over
    sent) per interval, after averaging groups of `factor` intervals (Yang et al. 2003 §3.1:
    the loss process a flow sees, Bernoulli versus ON/OFF). Intervals without sending are
    skipped."""
    lost_a = rebin(_values(lost, "lost"), factor) if factor > 1 else _values(lost, "lost")
    sent_a = rebin(_values(sent, "sent"), factor) if factor > 1 else _values(sent, "sent")
    keep = sent_a > 0
    return cov(lost_a[keep] / sent_a[keep])


def _settle(
    t: np.ndarray, w: np.ndarray, since: float, until: float, rising: bool, tolerance: float
) -> float | None:
    """Time from `since` until the window first comes within `tolerance` packets of its
    target, the mean window over the second half of [since, until); None if it never does."""
    span = (t >= since) & (t < until)
    late = span & (t >= (since + until) / 2)
    if not late.any():
        return None
    target = w[late].mean()
    hit = span & ((w >= target - tolerance) if rising else (w <= target + tolerance))
    return float(t[hit][0] - since) if hit.any() else None


def square_wave_response(
    t: ArrayLike,
    window: ArrayLike,
    on_s: float,
    off_s: float,
    rtt_s: float,
    start_s: float = 0.0,
    tolerance: float = 1.0,
) -> dict[str, float]:
    """Jin et al.'s aggressiveness and responsiveness (2001 §5, §6.2.4) of a flow sharing its
    bottleneck with a CBR square wave that is ON for `on_s` and OFF for `off_s` from
    `start_s`: for each OFF period (bandwidth rises), the RTTs the window takes to come within
    `tolerance` packets (one, as the paper) of the new steady-state window (its mean over the
    second half of the period) — 1/aggressiveness; for each ON period (congestion rises), the
    loss events (window reductions) before the window comes within `tolerance` of its new,
    lower steady state — 1/responsiveness. Returns the means over complete periods and their
    counts; raises ValueError when no period settles."""
    tt = _values(t, "t")
    w = _values(window, "window")
    if tt.size != w.size:
        raise ValueError("t and window must have the same length")
    if not (on_s > 0 and off_s > 0 and rtt_s > 0):
        raise ValueError("on_s, off_s and rtt_s must be > 0")
    period = on_s + off_s
    rises, falls = [], []
    k = 0
    while start_s + (k + 1) * period <= tt[-1]:
        on_at = start_s + k * period
        off_at = on_at + on_s
        if k > 0:  # the first ON period starts from the flow's own start-up
            settle = _settle(tt, w, on_at, off_at, rising=False, tolerance=tolerance)
            if settle is not None:
                span = (tt >= on_at) & (tt <= on_at + settle)
                falls.append(float(np.sum(np.diff(w[span]) < 0)))
        settle = _settle(tt, w, off_at, off_at + off_s, rising=True, tolerance=tolerance)
        if settle is not None:
            rises.append(settle / rtt_s)
        k += 1
    if not rises or not falls:
        raise ValueError(
            "square_wave_response: the series holds no complete ON/OFF cycle "
            "after the first in which the window settles"
        )
    return {
        "inv_aggressiveness_rtts": float(np.mean(rises)),
        "inv_responsiveness_losses": float(np.mean(falls)),
        "rises": float(len(rises)),
        "falls": float(len(falls)),
    }
