"""Synthetic link capacity traces, in the two formats a link's ``capacity_trace`` reads.

- :func:`step` writes a *table*: one ``time rate`` row per change, the last rate holding.
- :func:`cellular` writes a *mahimahi* trace (Netravali et al., USENIX ATC 2015; the format
  of mahimahi's ``traces/README``): one line per delivery opportunity of one 1500-byte packet,
  the millisecond it falls in, repeated when several fall in one millisecond.

Both are pure functions of their arguments: the files under ``scenarios/traces/`` are what
``ccscope trace step`` and ``ccscope trace cellular`` write with the defaults, byte for byte
(a test checks it). The cellular trace uses only IEEE arithmetic on Python's Mersenne Twister
(no library mathematics), so its bytes do not depend on the platform's ``libm``.
"""

from __future__ import annotations

import random

from .errors import ScenarioError

#: Bytes per delivery opportunity of a mahimahi trace (its traces/README).
MTU_BYTES = 1500

STEP_RATES_MBPS = (24.0, 6.0, 0.0, 12.0)
STEP_HOLD_S = (5.0, 5.0, 0.5, 5.0)


def _mbps(x: float) -> str:
    return f"{x:g}Mbps" if x > 0 else "0bps"


def step(
    rates_mbps: tuple[float, ...] = STEP_RATES_MBPS, hold_s: tuple[float, ...] = STEP_HOLD_S
) -> str:
    """A step pattern as a table: ``rates_mbps[i]`` for ``hold_s[i]`` seconds each, in turn,
    the last rate holding after its time (so it must be above 0). The default steps down from
    24 to 6 Mb/s, goes out for 0.5 s, and comes back at 12 Mb/s."""
    if len(rates_mbps) != len(hold_s) or not rates_mbps:
        raise ScenarioError.at("hold_s", repr(hold_s), "one hold time per rate")
    for i, (r, h) in enumerate(zip(rates_mbps, hold_s, strict=True)):
        if not (r >= 0 and r < float("inf")):
            raise ScenarioError.at(f"rates_mbps[{i}]", repr(r), "a rate of 0 Mb/s or more")
        if not (h > 0 and h < float("inf")):
            raise ScenarioError.at(f"hold_s[{i}]", repr(h), "a time above 0 s")
    if rates_mbps[-1] <= 0:
        raise ScenarioError.at(
            f"rates_mbps[{len(rates_mbps) - 1}]", repr(rates_mbps[-1]), "above 0: it holds forever"
        )
    lines = [
        "# ccscope step capacity trace (ccscope.traces.step): time, rate",
    ]
    t = 0.0
    for r, h in zip(rates_mbps, hold_s, strict=True):
        lines.append(f"{t:g}s, {_mbps(r)}")
        t += h
    return "\n".join(lines) + "\n"


def _normal(rng: random.Random) -> float:
    """A standard normal draw as the sum of twelve uniforms less 6 (Irwin-Hall): mean 0,
    variance 1, arithmetic only."""
    return sum(rng.random() for _ in range(12)) - 6.0


def cellular(
    seed: int = 1,
    duration_s: float = 10.0,
    mean_mbps: float = 8.0,
    sigma_mbps: float = 8.0,
    peak_mbps: float = 36.0,
    outage_escape_per_s: float = 2.0,
) -> str:
    """A variable, cellular-like link as a mahimahi trace of `duration_s` seconds.

    It follows the link model Sprout was designed for (Winstein, Sivaraman & Balakrishnan,
    "Stochastic Forecasts Achieve High Throughput and Low Delay over Cellular Networks", USENIX
    NSDI 2013): deliveries are a Poisson process whose rate λ wanders as Brownian motion, here
    with `sigma_mbps` Mb/s per √s, and sticks at zero once it reaches it (an outage), leaving
    with probability `outage_escape_per_s` per second, back at a quarter of `mean_mbps`. λ is
    kept below `peak_mbps` and pulled toward `mean_mbps` by a tenth of the gap per second, so
    the trace keeps a level. Each millisecond's opportunities are ten Bernoulli draws of
    λ/10 each (a binomial close to the Poisson count). The parameters' defaults are this
    generator's choices, not the paper's measurements."""
    checks = {
        "duration_s": (duration_s, 0.001, 3600.0),
        "mean_mbps": (mean_mbps, 0.012, peak_mbps),
        "sigma_mbps": (sigma_mbps, 0.0, 1e3),
        "peak_mbps": (peak_mbps, mean_mbps, 10 * 12.0),
        "outage_escape_per_s": (outage_escape_per_s, 0.0, 1000.0),
    }
    for name, (value, lo, hi) in checks.items():
        if not (lo <= value <= hi):
            raise ScenarioError.at(name, repr(value), f"between {lo:g} and {hi:g}")
    rng = random.Random(seed)
    per_ms = 1e6 / (8 * MTU_BYTES) / 1000  # opportunities per ms at 1 Mb/s
    lam, peak, mean = mean_mbps, peak_mbps, mean_mbps
    step_sd = sigma_mbps * 0.001**0.5
    lines: list[str] = []
    for ms in range(1, round(duration_s * 1000) + 1):
        if lam <= 0.0:
            lam = 0.0
            if rng.random() < outage_escape_per_s * 0.001:
                lam = mean / 4
        else:
            lam += step_sd * _normal(rng) + 0.1 * (mean - lam) * 0.001
            lam = min(max(lam, 0.0), peak)
        p = lam * per_ms / 10
        n = sum(rng.random() < p for _ in range(10))
        lines.extend([str(ms)] * n)
    if not lines or lines[-1] != str(round(duration_s * 1000)):
        # mahimahi's period is the last timestamp: end the trace at its duration.
        lines.append(str(round(duration_s * 1000)))
    return "\n".join(lines) + "\n"


GENERATORS = {"step": step, "cellular": cellular}
