"""Loguinov & Radha 2003 in the round model: Fig. 5 (packet-loss scalability of rate-based AIMD
and IIAD), ISCC's constant loss (§V-D, eq. (42)) and the efficiency of binomial controls
(§IV-C, eq. (28), Fig. 4).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from .. import roundmodel, theory
from . import figure
from .claims import (
    PRINTED,
    SEEDS,
    STATEMENT,
    THEORY,
    Claim,
    below,
    seed_tolerance,
    within,
    within_abs,
    within_factor,
)

#: Loguinov & Radha §V-B: "a T1 bottleneck link (i.e., C = 1544 kb/s)".
T1 = "1544kbps"
T1_BPS = 1_544_000.0

#: Fig. 5's three schemes (§V-B): rate-based AIMD(1, 1/2) with λ = MTU/RTT = 5 and 50 kb/s,
#: IIAD(1, 1/2) with MTU/RTT = 10 kb/s.
FIG5 = {
    "AIMD1": ("rate-aimd", {"alpha": 1.0, "beta": 0.5, "mtu_per_rtt": 5e3}),
    "AIMD2": ("rate-aimd", {"alpha": 1.0, "beta": 0.5, "mtu_per_rtt": 50e3}),
    "IIAD": ("rate-binomial", {"k": 1.0, "l": 0.0, "alpha": 1.0, "beta": 0.5, "mtu_per_rtt": 10e3}),
}

#: Loguinov & Radha §V-B, text on Fig. 5: s_100, the "equivalent" exponent
#: (log s_100 / log 100: 100^1.91 = 6755) and p_100.
FIG5_PUBLISHED = {
    "AIMD1": {"s_100": 6755.0, "exponent": 1.91, "p_100": 0.10},
    "AIMD2": {"s_100": 352.0, "exponent": 1.27, "p_100": 0.55},
    "IIAD": {"s_100": 219_889.0, "exponent": 2.67, "p_100": None},
}

#: ISCC(k, 2) with m_I = 20, m_D = 2 (§VI-A; "k = -1.2 was sufficient").
ISCC = {
    "ISCC(-1.5,2)": ("iscc", {"k": -1.5, "l": 2.0, "m_i": 20.0, "m_d": 2.0}),
    "ISCC(-1.2,2)": ("iscc", {"k": -1.2, "l": 2.0, "m_i": 20.0, "m_d": 2.0}),
}


def loss_rate(
    controller: str,
    params: dict,
    n: int,
    steps: int,
    capacity: str = T1,
    oracle: bool = False,
    start_share: float = 0.5,
) -> float:
    """p_n: packets lost over packets sent by n identical flows with synchronized feedback,
    no buffer, after a warm-up of a tenth of the steps; flows start at `start_share` of their
    fair share of the T1."""
    start = T1_BPS / n * start_share
    result = roundmodel.run(
        {
            "run": {"engine": "round", "steps": steps, "warmup_steps": steps // 10},
            "link": {"capacity": capacity, "rtt": "100ms", "capacity_oracle": oracle},
            "flows": [
                {
                    "controller": controller,
                    "params": params,
                    "count": n,
                    "initial_rate": f"{start}bps",
                }
            ],
        }
    )
    return result.loss_rate


def scalability_exponent(n: np.ndarray, s: np.ndarray) -> dict[str, float]:
    """The exponent of s_n = p_n/p_1 ~ n^e: the paper's "equivalent" one, log s_N / log N at the
    largest N, and a least-squares fit of log s_n on log n."""
    n = np.asarray(n, dtype=float)
    s = np.asarray(s, dtype=float)
    return {
        "equivalent": float(np.log(s[-1]) / np.log(n[-1])),
        "fit": float(np.polyfit(np.log(n), np.log(s), 1)[0]),
    }


def fig5_curves(n: list[int] | None = None, steps: int = 200_000) -> pd.DataFrame:
    """Fig. 5's curves in the round model: one row per scheme and n with p_n and
    s_n = p_n/p_1 (the first n is the reference: give 1 first)."""
    n = list(range(1, 101)) if n is None else n
    rows = []
    for scheme, (controller, params) in FIG5.items():
        p = np.array([loss_rate(controller, params, k, steps) for k in n])
        rows += [
            {"scheme": scheme, "n": k, "p": pk, "s": pk / p[0]} for k, pk in zip(n, p, strict=True)
        ]
    return pd.DataFrame(rows)


def fig5(n: list[int] | None = None, steps: int = 200_000) -> pd.DataFrame:
    """Fig. 5 in the round model: one row per scheme with p_1, p_N, s_N and the exponents
    beside the published values (N = the largest n)."""
    curves = fig5_curves(n, steps)
    rows = []
    for scheme, curve in curves.groupby("scheme", sort=False):
        n, p, s = curve["n"].to_numpy(), curve["p"].to_numpy(), curve["s"].to_numpy()
        published = FIG5_PUBLISHED[scheme]
        rows.append(
            {
                "scheme": scheme,
                "p_1": p[0],
                "p_N": p[-1],
                "s_N": s[-1],
                **{f"exponent_{k}": v for k, v in scalability_exponent(n, s).items()},
                "published_s_100": published["s_100"],
                "published_exponent": published["exponent"],
                "published_p_100": published["p_100"],
                "theory_exponent": {"AIMD1": 2.0, "AIMD2": 2.0, "IIAD": 3.0}[scheme],
            }
        )
    return pd.DataFrame(rows)


#: The flow counts of the ISCC table: enough to fit an exponent, few enough to run in seconds.
ISCC_N = (10, 20, 50, 100)


def iscc_table(n: list[int] | None = None, steps: int = 100_000) -> pd.DataFrame:
    """ISCC(−1.5, 2), ISCC(−1.2, 2) with exact C (an oracle) and AIMD1: p_n for each n, the
    fitted exponent of p_n in n, the loss p_1 of a lone flow and eq. (42) beside it (for AIMD:
    none; its exponent is l + 2k + 1 = 2 by (37)).

    (42) is (34) at its worst case, one full increase step C/m_I past C per cycle, over the
    fluid cycle (27); the discrete control overshoots by what its last step happens to take it
    past C, so its p_1 stays below (42)."""
    n = list(ISCC_N) if n is None else n
    rows = []
    schemes = {**ISCC, "AIMD1": FIG5["AIMD1"]}
    for scheme, (controller, params) in schemes.items():
        p = np.array([loss_rate(controller, params, k, steps, oracle=True) for k in n])
        positive = p > 0
        fit = np.polyfit(np.log(np.asarray(n)[positive]), np.log(p[positive]), 1)[0]
        eq42 = (
            theory.iscc_loss(params["k"], params["m_i"], params["m_d"])
            if controller == "iscc"
            else None
        )
        rows.append(
            {
                "scheme": scheme,
                **{f"p_{k}": v for k, v in zip(n, p, strict=True)},
                "exponent_fit": fit,
                "p_1": loss_rate(controller, params, 1, steps, oracle=True),
                "eq42": eq42,
            }
        )
    return pd.DataFrame(rows)


#: Steps in one increase phase of Fig. 4's runs.
FIG4_STEPS = 1000


def efficiency(
    l: float,  # noqa: E741
    n: int,
    k: float = 0.5,
    beta: float = 0.5,
    window: float = 100.0,
    steps_per_cycle: int = FIG4_STEPS,
    cycles: int = 20,
) -> dict[str, float]:
    """Round-model utilization of binomial(k, l) with β = 1/2 on a link of W packets per RTT
    shared by n synchronized flows, beside eq. (28) at U = W/n (Fig. 4).

    Rate-based binomial flows (MTU/RTT = C/W, so the window-domain constants are α and β) do
    not stop at one packet, as (28) assumes for U = W/n < 1. (28) does not depend on α; α is
    chosen so that one increase phase, (26), lasts ``steps_per_cycle`` steps, making the
    discrete steps small against the oscillation. The utilization is the mean over the whole
    cycles after the first quarter (from one loss to the last), and ``bound`` the stepping's
    error against (28) (:func:`efficiency_stepping_bound`)."""
    u = window / n
    z = beta * u ** (l - 1.0)
    phase = u ** (k + 1) * (1 - (1 - z) ** (k + 1)) / (k + 1)  # (26) with λ = R = 1
    alpha = phase / steps_per_cycle
    unit = T1_BPS / window
    steps = cycles * steps_per_cycle
    result = roundmodel.run(
        {
            "run": {"engine": "round", "steps": steps},
            "link": {"capacity": T1, "rtt": "100ms"},
            "flows": [
                {
                    "controller": "rate-binomial",
                    "count": n,
                    "params": {"k": k, "l": l, "alpha": alpha, "beta": beta, "mtu_per_rtt": unit},
                    "initial_rate": f"{unit * u * (1 - z / 2)}bps",
                }
            ],
            "record": {"every": 1},
        }
    )
    series = result.series[result.series["step"] >= steps // 4]
    losses = np.flatnonzero(series["loss_fraction"].to_numpy() > 0)
    e = float(theory.binomial_efficiency(k, l, beta, u))
    return {
        "l": l,
        "n": n,
        "measured": float(series["utilization"].to_numpy()[losses[0] : losses[-1]].mean()),
        "eq28": e,
        "bound": efficiency_stepping_bound(k, z, u, alpha, e),
    }


def efficiency_stepping_bound(k: float, z: float, u: float, alpha: float, e: float) -> float:
    """The relative error, against (28), of a round model that steps a binomial(k, l) flow's
    increase x ← x + αx^(−k) (window units) over whole cycles between L = u(1 − z) and U = u.

    Over a cycle the steps sum x_i = x_i^(k+1)·δ_i/α and count 1 = x_i^k·δ_i/α, with δ_i the
    step from x_i: the mean is a ratio of two left Riemann sums of ∫x^(k+1)dx and ∫x^k dx over
    [L, U], with mesh at most the largest step δ = α·max(L^(−k), U^(−k)). A left sum of an
    increasing function is short of its integral by at most the function's rise times the
    mesh, so each side is off by at most rise·δ/integral. The last step overshoots U by at most
    δ, which moves the cycle's top, and through the decrease (slope 1 − lβx^(l−1) in [0, 1])
    its bottom, by at most δ: the mean by at most δ/(e·U)."""
    low = u * (1 - z)
    delta = alpha * max(low ** (-k), u ** (-k))

    def side(power: float) -> float:
        rise = abs(u**power - low**power)
        integral = (u ** (power + 1) - low ** (power + 1)) / (power + 1)
        return rise * delta / integral

    return side(k + 1) + side(k) + delta / (e * u)


#: Fig. 5's s_100 are printed with their exponents log s_100 / log 100 to 0.01 (§V-B): ± 0.005
#: in the exponent is a factor 100^0.005 = 1.023 in s_100. The round model is deterministic
#: (synchronized feedback, no randomness); over 10 start rates from 5% to 100% of the fair share
#: s_100 moves by at most 0.6% in the runs made here (the AIMDs at 50 000 steps, all three at
#: 200 000), inside that factor.
FIG5_FACTOR = 100**0.005
FIG5_S_SOURCE = (
    PRINTED + ": each s_100's exponent log s_100 / log 100 is printed to 0.01, ± 0.005 of it "
    "is ×1.023 in s_100 (over 10 start rates the model's s_100 moves by at most 0.6%)"
)
FIG5_EXPONENT_SOURCE = (
    PRINTED + ": to 0.01, which rounds the paper's own log s_100 / log 100 by up to 0.005; "
    "the ×1.023 held on s_100 is 0.005 more"
)
FIG5_P100_SOURCE = PRINTED + ": §V-B's p_100 in whole percents (10%, 55%)"

#: Why IIAD's s_100 is not the printed one; formatted with the run's numbers.
WHY_FIG5_IIAD = (
    "the gap is in p_100: IIAD's p_1 = {p1:.3g} is {p1_share:.2f} of (34)'s maximum "
    "overshoot {p1_max:.3g}; the printed s_100 with this p_1 needs p_100 = {need_p100:.3g}, "
    "where the model's is {p100:.3g} (one periodic orbit at C/100, from any start rate), and "
    "with this p_100 needs p_1 = {need_p1:.3g}, above (34)'s maximum, which no phase of the "
    "overshoot reaches; the same stepping gives AIMD2's s_100 within {aimd2:.1%} of the "
    "printed 352 (the printed 2.67, called a least-squares fit, is log s_100 / log 100 of the "
    "printed 219 889, so it is the same number)"
)


def max_overshoot_loss(scheme: str, n: int) -> float:
    """(34)'s loss of Fig. 5's `scheme` with n synchronized flows: the maximum overshoot, one
    whole increase step past C/n, every cycle (the exact first line of (34))."""
    _, params = FIG5[scheme]
    k, l = params.get("k", 0.0), params.get("l", 1.0)  # noqa: E741 (rate AIMD: k = 0, l = 1)
    unit = params["mtu_per_rtt"]
    lam = params["alpha"] * unit ** (k + 1.0)  # Loguinov & Radha (4)
    sigma = params["beta"] * unit ** (1.0 - l)
    return float(theory.binomial_loss_single_flow(k, l, lam, sigma, T1_BPS / n))


def fig5_claims(quick: bool = False) -> list[Claim]:
    """Fig. 5 and §V-B's numbers as claims, each s_100 and exponent to the paper's printed
    precision. Quick: n = 1 and 100 at 50 000 steps, the two AIMDs; full: n = 1…100 at
    200 000 steps, with IIAD and the least-squares exponent, which (37)'s l + 2k + 1 bounds
    from above."""
    table = (fig5([1, 100], steps=50_000) if quick else fig5(steps=200_000)).set_index("scheme")
    claims = []
    for scheme in FIG5:
        if quick and scheme == "IIAD":
            continue
        row, published = table.loc[scheme], FIG5_PUBLISHED[scheme]
        why = ""
        if scheme == "IIAD":
            p1_max = max_overshoot_loss(scheme, 1)
            aimd2 = table.loc["AIMD2"].s_N / FIG5_PUBLISHED["AIMD2"]["s_100"] - 1
            why = WHY_FIG5_IIAD.format(
                p1=row.p_1,
                p1_share=row.p_1 / p1_max,
                p1_max=p1_max,
                need_p100=published["s_100"] * row.p_1,
                p100=row.p_N,
                need_p1=row.p_N / published["s_100"],
                aimd2=abs(aimd2),
            )
        claims.append(
            within_factor(
                f"{scheme}: s_100 = p_100/p_1",
                published["s_100"],
                row.s_N,
                round(FIG5_FACTOR, 3),
                why,
                source=FIG5_S_SOURCE,
            )
        )
        claims.append(
            within_abs(
                f"{scheme}: exponent log s_100 / log 100",
                published["exponent"],
                row.exponent_equivalent,
                0.01,
                why,
                source=FIG5_EXPONENT_SOURCE,
            )
        )
        if published["p_100"] is not None:
            claims.append(
                within_abs(
                    f"{scheme}: p_100",
                    published["p_100"],
                    row.p_N,
                    0.005,
                    source=FIG5_P100_SOURCE,
                )
            )
        if not quick:
            claims.append(
                below(
                    f"{scheme}: fitted exponent of s_n, below l + 2k + 1 (37)",
                    row.theory_exponent,
                    row.exponent_fit,
                    source=THEORY + ": (37) is an order bound, s_n = O(n^(l+2k+1))",
                )
            )
    return claims


#: §VI-A's statements on ISCC's p_n in simulation, which print no exponent: what each claim
#: holds the fitted exponent to, and why.
EQ42_SOURCE = {
    "ISCC(-1.5,2)": STATEMENT + ": §VI-A, k = -1.5 gave 'a slowly decaying function s_n' in "
    "simulation, where (38) gives 0",
    "ISCC(-1.2,2)": STATEMENT + ": §VI-A, 'k = -1.2 was sufficient to maintain constant "
    "packet loss' in simulation, where (37) gives l + 2k + 1 = 0.6: nearer 0 than 0.6",
}


def eq42_claims(quick: bool = False) -> list[Claim]:
    """§V-C/§VI-A: ISCC(k, 2) keeps p_n constant in n where rate AIMD's grows as n^2 (37),
    and a lone ISCC flow knowing C loses at most (42). n = 10, 20, 50, 100 at 50 000 steps
    (quick) or 200 000. The paper prints no exponent for its simulations: ISCC(-1.5,2)'s p_n
    decays (below 0), ISCC(-1.2,2)'s stays constant (nearer 0 than (37)'s 0.6), and AIMD's
    grows as (37)'s n^2 or, with few discrete steps per cycle, subquadratically down to
    linearly (§IV-D): in [1, 2]."""
    table = iscc_table(steps=50_000 if quick else 200_000).set_index("scheme")
    claims = []
    for scheme in ISCC:
        row = table.loc[scheme]
        fit = row.exponent_fit
        if scheme == "ISCC(-1.5,2)":
            published, tolerance, holds = "s_n slowly decaying", "below 0", fit < 0
        else:
            theory_exponent = ISCC[scheme][1]["l"] + 2 * ISCC[scheme][1]["k"] + 1
            published, tolerance = 0.0, f"nearer 0 than (37)'s {theory_exponent:g}"
            holds = abs(fit) < abs(fit - theory_exponent)
        claims.append(
            Claim(
                f"{scheme}: exponent of p_n in n",
                published,
                fit,
                tolerance,
                holds,
                "" if holds else f"unexpected: not {tolerance}",
                source=EQ42_SOURCE[scheme],
            )
        )
        claims.append(
            Claim(
                f"{scheme}: 0 < p_1 <= (42), the worst case of (34)",
                row.eq42,
                row.p_1,
                "in (0, (42)]",
                0 < row.p_1 <= row.eq42,
                "" if 0 < row.p_1 <= row.eq42 else "unexpected: outside (0, (42)]",
                source=THEORY + ": (42) is (34)'s cycle with the largest overshoot; §V-A: the "
                "actual overshoot lies between zero and it",
            )
        )
    fit = table.loc["AIMD1"].exponent_fit
    holds = 1.0 <= fit <= 2.0
    claims.append(
        Claim(
            "AIMD1: exponent of p_n in n, l + 2k + 1 (37)",
            2.0,
            fit,
            "in [1, 2]",
            holds,
            "" if holds else "unexpected: outside [1, 2]",
            source=STATEMENT + ": (37)'s n^2 for small steps; §IV-D: with few discrete steps per "
            "cycle 'subquadratic (often linear)'",
        )
    )
    return claims


def fig4_claims(quick: bool = False) -> list[Claim]:
    """Fig. 4 (k = 1/2, W = 100, β = 1/2): the round model's utilization against the exact
    efficiency (28) at U = W/n, for l = 0, 1/4, 1/2, 3/4, 1; one claim per n, at the l where
    they differ most against the stepping's bound. The same in both modes (seconds)."""
    claims = []
    for n in (1, 50, 150):
        rows = [efficiency(ell, n) for ell in (0.0, 0.25, 0.5, 0.75, 1.0)]
        worst = max(rows, key=lambda r: abs(r["measured"] / r["eq28"] - 1) / r["bound"])
        claims.append(
            within_abs(
                f"n = {n}: utilization, worst l ({worst['l']:g}), against (28)",
                worst["eq28"],
                worst["measured"],
                float(f"{worst['bound'] * worst['eq28']:.2g}"),
                source=THEORY + ": the round model's stepping through (28)'s exact mean, bounded "
                f"from its step (1/{FIG4_STEPS} of an increase phase): "
                f"{worst['bound']:.2g} of (28) (ccscope.experiments.loguinov."
                "efficiency_stepping_bound)",
            )
        )
    return claims


def fig5_figure(quick: bool, path: Path) -> Path:
    """Fig. 5 redrawn: s_n against n (log-log) per scheme, the published s_100 as crosses and
    (37)'s n^(l + 2k + 1) from s_1 = 1 dashed."""
    n = [1, 2, 5, 10, 20, 50, 100] if quick else list(range(1, 101))
    curves = fig5_curves(n, 50_000 if quick else 200_000)
    fig, ax = figure.new((6, 4.5))
    for scheme, curve in curves.groupby("scheme", sort=False):
        (line,) = ax.loglog(curve["n"], curve["s"], marker=".", label=f"{scheme} (ccscope)")
        ax.loglog(
            [100],
            [FIG5_PUBLISHED[scheme]["s_100"]],
            "x",
            ms=10,
            color=line.get_color(),
            label=f"{scheme}: s_100 published",
        )
    grid = np.array([1.0, 100.0])
    for e in (2.0, 3.0):
        ax.loglog(grid, grid**e, "k--", lw=0.6)
    ax.set_xlabel("n (flows)")
    ax.set_ylabel("s_n = p_n / p_1")
    return figure.save(fig, ax, "Loguinov & Radha Fig. 5 (dashed: n^2, n^3 by (37))", path, 7)


# --- Fig. 8 / Table I at packet level: ISCC against rate AIMD on the Cisco path -------------

#: Fig. 6's Cisco path, server -> router -> router -> client, one way 5 + 40 + 5 ms, 1500 B
#: packets, scaled from a T1 to a T3 with every time constant kept: the DropTail queue holds
#: 1159 packets = 311 ms, as 40 packets do at 1.544 Mb/s (scenarios/loguinov-fig8-iscc-t3.toml
#: is the same set-up as a file). On the T1 itself ISCC's small decrease steps need more loss
#: signals than the link can carry (docs/validation.md, "Loguinov Fig. 8 on the T1").
T3_BPS = 44.736e6
FIG8 = {
    "ISCC(-1.5,2)": {"name": "iscc", "k": -1.5, "l": 2, "m_i": 20, "m_d": 2},
    "AIMD(0.19,1/2)": {"name": "rate-aimd", "alpha": 0.19, "beta": 0.5, "mtu_per_rtt": 100000},
}
#: Table I's exponents of p_n in n: ISCC n^0.49, AIMD n^1.31.
FIG8_PUBLISHED = {"ISCC(-1.5,2)": 0.49, "AIMD(0.19,1/2)": 1.31}


#: The bottleneck's rate of each Cisco path (:func:`cisco_path`).
CAPACITY_BPS = {"T1": T1_BPS, "T3": T3_BPS}


def cisco_path(path: str) -> dict:
    """Fig. 6's Cisco path as a custom topology, server -> r1 -> r2 -> client, one way
    5 + 40 + 5 ms with DropTail queues. "T1": 10 Mb/s access links (Fig. 6's Ethernets) and the
    T1 with 40 packets of queue (assumed: the paper does not give it); "T3": the same scaled to
    a T3 behind 100 Mb/s access links, its queue 1159 packets (311 ms, as 40 at 1.544 Mb/s)."""
    access, bottleneck, limit = {"T1": ("10Mbps", T1, 40), "T3": ("100Mbps", "44.736Mbps", 1159)}[
        path
    ]

    def hop(a: str, b: str, rate: str, delay: str, limit: int) -> dict:
        return {
            "from": a,
            "to": b,
            "rate": rate,
            "delay": delay,
            "queue": {"kind": "droptail", "limit": f"{limit}pkts"},
        }

    return {
        "kind": "custom",
        "nodes": ["server", "r1", "r2", "client"],
        "links": [
            hop("server", "r1", access, "5ms", 1000),
            hop("r1", "r2", bottleneck, "40ms", limit),
            hop("r2", "client", access, "5ms", 1000),
        ],
    }


def fig8_scenario(
    controller: dict, n: int, seed: int = 6, path: str = "T3", duration_s: float = 300.0
) -> dict:
    """n flows of `controller` (C estimated from packet bunches of 3) on the Cisco `path`
    (:func:`cisco_path`), each starting at its fair share C/n; a run of `duration_s`, measured
    from 10 s on (the paper measures from 10 s after the last slow start)."""
    return {
        "run": {"duration": f"{duration_s:g}s", "warmup": "10s", "seed": seed},
        "topology": cisco_path(path),
        "flows": [
            {
                "source": {
                    "kind": "rate",
                    "controller": controller,
                    "packet_size": "1500B",
                    "bunch": 3,
                    "jitter": 0.1,
                    "initial_rate": f"{CAPACITY_BPS[path] / n:.0f}bps",
                },
                "count": n,
                "from": "server",
                "to": "client",
            }
        ],
    }


def fig8_exponent(controller: dict, seed: int = 6) -> float:
    """The exponent of the loss rate in n between n = 2 and 32 flows."""
    from ..engine import run

    def loss(n: int) -> float:
        f = run(fig8_scenario(controller, n, seed)).flows
        return f.dropped_pkts.sum() / f.sent_pkts.sum()

    return float(np.log(loss(32) / loss(2)) / np.log(16))


#: The spread of AIMD(0.19,1/2)'s exponent of p_n (n = 2 and 32) over seeds 6-17 on this path:
#: mean 1.36, standard deviation 0.052 (ISCC(-1.5,2): -0.149, 0.004).
FIG8_AIMD_SD = 0.052


def fig8_claims(quick: bool = False) -> list[Claim]:
    """Fig. 8 / Table I on the T3-scaled path: AIMD's loss grows as Table I's n^1.31 within two
    standard deviations of its exponent over seeds; ISCC's does not grow (§VI-A: with k = -1.5
    "a slowly decaying function s_n" in simulation; Table I's n^0.49 is the testbed's) and its
    exponent is below half AIMD's. n = 2 and 32, seed 6 (quick) or seeds 6–8."""
    seeds = (6,) if quick else (6, 7, 8)
    claims = []
    for seed in seeds:
        e = {name: fig8_exponent(c, seed) for name, c in FIG8.items()}
        aimd, iscc = e["AIMD(0.19,1/2)"], e["ISCC(-1.5,2)"]
        claims.append(
            within_abs(
                f"seed {seed}: AIMD(0.19,1/2) exponent of p_n, n = 2…32",
                FIG8_PUBLISHED["AIMD(0.19,1/2)"],
                aimd,
                round(2 * FIG8_AIMD_SD, 2),
                source=SEEDS + ": 2σ of the exponent over seeds 6-17 (σ = 0.052)",
            )
        )
        claims.append(
            Claim(
                f"seed {seed}: ISCC(-1.5,2) exponent of p_n, n = 2…32",
                "s_n slowly decaying",
                iscc,
                "at most 0",
                iscc <= 0,
                "" if iscc <= 0 else "unexpected: ISCC's loss grows with n",
                source=STATEMENT + ": §VI-A, k = -1.5 'slowly decaying' in simulation (Table "
                "I's n^0.49 is the testbed's)",
            )
        )
        a, i = FIG8_PUBLISHED["AIMD(0.19,1/2)"], FIG8_PUBLISHED["ISCC(-1.5,2)"]
        # Both exponents printed to 0.01: ± 0.005 each, carried into their ratio.
        printed = 0.005 / a + i * 0.005 / a**2
        claims.append(
            within_abs(
                f"seed {seed}: ISCC(-1.5,2) exponent over AIMD's",
                i / a,
                iscc / aimd,
                round(printed + seed_tolerance(FIG8_RATIO_SD, 1), 3),
                WHY_FIG8_RATIO,
                source=SEEDS + ": Table I prints n^0.49 and n^1.31 (± 0.005 each); 2σ of the "
                f"difference of two runs' ratio, σ = {FIG8_RATIO_SD:g} over seeds 6-17 (python "
                "bench/seed_spread.py loguinov-fig8 --seeds 12)",
            )
        )
    return claims


#: Standard deviation of one run's ISCC/AIMD exponent ratio over seeds 6-17
#: (`python bench/seed_spread.py loguinov-fig8 --seeds 12`).
FIG8_RATIO_SD = 0.0057

#: Why ISCC's exponent relative to AIMD's is not Table I's.
WHY_FIG8_RATIO = (
    "Table I's exponents are the testbed's; in simulation §VI-A finds ISCC(-1.5,2)'s loss "
    "slowly decaying in n, as here (the row above: its exponent is negative, so the ratio "
    "is), and §VI-C puts the testbed's growth down to delayed and lost feedback, nonuniform "
    "loss and errors in measuring C; the packet engine's packet-bunch estimates of C are "
    "exact (loguinov-fig7's rows)"
)


# --- Fig. 7 at packet level: packet-bunch estimates of the T1's capacity -------------------

#: Fig. 7's flows: AIMD(1, 1/2) with λ = MTU/RTT = 30 kb/s (§VI-A), bunches of 3 packets.
FIG7_AIMD = {"name": "rate-aimd", "mtu_per_rtt": 30e3}


def fig7_scenario(n: int, seed: int = 5, duration_s: float = 120.0) -> dict:
    """Fig. 6's Cisco path as far as it is given (:func:`cisco_path` "T1"): every flow from one
    server over 10 Mb/s to a router, the T1 to a second router and 10 Mb/s to the client,
    1500-byte packets; RTT 100 ms and a 40-packet DropTail T1 queue are assumed. n
    AIMD(1, 1/2) flows sending bunches of 3 from 48 kb/s."""
    return {
        "run": {"duration": f"{duration_s:g}s", "seed": seed},
        "topology": cisco_path("T1"),
        "flows": [
            {
                "source": {
                    "kind": "rate",
                    "controller": FIG7_AIMD,
                    "packet_size": "1500B",
                    "bunch": 3,
                    "jitter": 0.1,
                    "initial_rate": "48kbps",
                },
                "count": n,
                "from": "server",
                "to": "client",
            }
        ],
    }


def capacity_estimates(n: int, seed: int = 5, duration_s: float = 120.0) -> np.ndarray:
    """Every packet-bunch capacity sample (bits/s) of the n flows' receivers in Fig. 7's run."""
    from ..engine import run

    return np.concatenate(list(run(fig7_scenario(n, seed, duration_s)).capacity_samples().values()))


def histogram_peak(samples: np.ndarray, bin_fraction: float = 0.02) -> float:
    """Where a histogram of `samples` peaks, as Loguinov & Radha read the capacity off Fig. 7:
    the mean of the fullest bin, bins `bin_fraction` of the median wide."""
    bins = np.floor(samples / (bin_fraction * float(np.median(samples))))
    values, counts = np.unique(bins, return_counts=True)
    return float(samples[bins == values[np.argmax(counts)]].mean())


#: Why the model's estimates have none of the testbed's spread; formatted with the run's numbers.
WHY_FIG7_SPREAD = (
    "the model cannot have the testbed's noise: a bunch leaves the one server back to back, "
    "so no other flow's packet can enter it on the way, and the T1 spaces its packets by their "
    "transmission time exactly; all {count} estimates lie within a fraction {dev:.1g} of the "
    "T1's rate. The testbed's spread comes from what the model has no part for (the T1's "
    "data-link framing, whose bit stuffing varies with the data, the server's timers and "
    "network card, the routers' processing), so its fraction outside cannot be reproduced here"
)


def fig7_claims(quick: bool = False) -> list[Claim]:
    """Fig. 7 (§VI-A): with 2 flows the histogram's peak within 3% of the paper's 1510 kb/s
    (2.2% below the T1's 1544 kb/s, a gap the paper puts on the T1's framing, which the model
    does not have); the fraction of the estimates more than 10 kb/s (0.66%) from the peak with
    2 flows (paper: 0.5%, "99.5% between 1500 and 1520 kb/s") and more than 7% from C with 32
    flows (paper: 4.5%, "95.5% ... within 7% of 1510 kb/s"), each to its printed precision.
    Seed 5, 120 s (quick: 60 s)."""
    duration = 60.0 if quick else 120.0
    two, many = capacity_estimates(2, 5, duration), capacity_estimates(32, 5, duration)
    peak = histogram_peak(two)
    both = np.concatenate([two, many])
    why = WHY_FIG7_SPREAD.format(count=both.size, dev=float(np.max(np.abs(both / T1_BPS - 1))))
    return [
        within(
            "2 flows: histogram peak (b/s; the T1 carries 1544 kb/s)",
            1510e3,
            peak,
            0.03,
            source=THEORY + ": the T1 framing the model omits, 1544/1510 - 1 = 2.3%, to 3%",
        ),
        within_abs(
            "2 flows: fraction of estimates more than 0.66% from the peak",
            0.005,
            float(np.mean(np.abs(two / peak - 1) > 10 / 1510)),
            0.0005,
            why,
            source=PRINTED + ": 99.5% between 1500 and 1520 kb/s, to 0.1%",
        ),
        within_abs(
            "32 flows: fraction of estimates more than 7% from C",
            0.045,
            float(np.mean(np.abs(many / T1_BPS - 1) > 0.07)),
            0.0005,
            why,
            source=PRINTED + ": 95.5% between 1400 and 1620 kb/s, to 0.1%",
        ),
    ]


# --- Table I's freeze frames: FGS video streamed by each scheme at n = 50 -------------------

#: Table I's schemes with §VI-C's parameters (λ = MTU/RTT fixed at 100 kb/s; TFRC's equation
#: with an MTU of 180 bytes while the packets are 1500 bytes).
TABLE1 = {
    "AIMD(0.19,1/2)": FIG8["AIMD(0.19,1/2)"],
    "SQRT(0.18,1/2)": {
        "name": "rate-binomial",
        "k": 0.5,
        "l": 0.5,
        "alpha": 0.18,
        "beta": 0.5,
        "mtu_per_rtt": 100000,
    },
    "IIAD(0.10,1/2)": {
        "name": "rate-binomial",
        "k": 1,
        "l": 0,
        "alpha": 0.10,
        "beta": 0.5,
        "mtu_per_rtt": 100000,
    },
    "TFRC(180)": {"name": "tfrc", "mtu": 180},
    "ISCC(-1.5,2)": FIG8["ISCC(-1.5,2)"],
}

#: §VI-C: "Under the worst conditions (i.e., n ≈ 50), our data show that the non-scalable
#: protocols maintained a 'frozen' picture between 13% and 68% of the corresponding session",
#: and ISCC(-1.5,2) "recovered all base-layer and all enhancement-layer pictures".
TABLE1_FROZEN = (0.13, 0.68)
#: "None" at the paper's resolution: one frame of a flow's 10-minute session at 10 frames/s.
TABLE1_NONE = 1 / 6000

#: The two paths' scenario files: the T1 of the paper and the same path scaled to a T3 (video
#: scaled along).
TABLE1_PATHS = {"T1": "loguinov-table1-t1.toml", "T3": "loguinov-table1-t3.toml"}


def table1_scenario(scheme: str, path: str, duration_s: float, seed: int):
    """Table I's set-up (scenarios/loguinov-table1-*.toml) on `path` with `scheme`'s
    controller, `duration_s` long."""
    from ..scenario import load, shipped

    return (
        load(shipped() / TABLE1_PATHS[path])
        .replace("flows[0].source.controller", TABLE1[scheme])
        .replace("run.duration", f"{duration_s:g}s")
        .replace("run.seed", seed)
    )


def frozen_tally(result, flows: range | None = None) -> dict[str, float]:
    """The frames and freeze frames (a base layer incomplete at its decoding time) of a run's
    `flows` (all by default), and the packets they sent and lost."""
    media, sent = result.media, result.flows
    if flows is not None:
        media, sent = media[media["flow"].isin(flows)], sent[sent["flow"].isin(flows)]
    return {
        "frames": float(media["frames"].sum()),
        "freeze_frames": float(media["freeze_frames"].sum()),
        "dropped": float(sent["dropped_pkts"].sum()),
        "sent": float(sent["sent_pkts"].sum()),
    }


def frozen_share(scheme: str, path: str, duration_s: float, seed: int) -> dict[str, float]:
    """One run of Table I's set-up: :func:`frozen_tally` of all its flows."""
    from ..engine import run

    return frozen_tally(run(table1_scenario(scheme, path, duration_s, seed)))


def frozen_and_loss(tallies: list[dict[str, float]]) -> dict[str, float]:
    """The share of the frames that froze and the loss rate, pooled over `tallies`."""
    total = {k: sum(t[k] for t in tallies) for k in tallies[0]}
    return {
        "frozen": total["freeze_frames"] / total["frames"],
        "loss": total["dropped"] / total["sent"],
    }


#: The runs of Table I: 60 s of seed 6 (quick) or 600 s (the paper's 10-minute video) of
#: seeds 6-8, with how the claims name them.
TABLE1_RUNS = {True: (60.0, (6,), "60 s, seed 6"), False: (600.0, (6, 7, 8), "600 s, seeds 6-8")}


def table1_frozen(quick: bool = False) -> dict[tuple[str, str], dict[str, float]]:
    """(path, scheme) -> the share of the session frozen and the loss rate, pooled over the
    seeds of :data:`TABLE1_RUNS`."""
    duration, seeds, _ = TABLE1_RUNS[quick]
    out = {}
    for path in TABLE1_PATHS:
        for scheme in TABLE1:
            out[path, scheme] = frozen_and_loss(
                [frozen_share(scheme, path, duration, s) for s in seeds]
            )
    return out


#: Why a claim of Table I's freeze frames does not hold, per path (each names its numbers).
WHY_TABLE1 = {
    "T1": (
        "on the T1 a flow's fair share at n = 50 is 2.6 packets per RTT, and a loss-driven "
        "control stepping once per RTT needs more loss signals than that carries (validation "
        "page, 'Loguinov Fig. 8 on the T1'): the bottleneck loses {loss:.0%} (Table I's p_50: "
        "2.3-44.7%), above the ~15% at which §VI-C's retransmission stops recovering the "
        "base layer"
    ),
    "T3": (
        "on the T3-scaled path each flow has 29 times as many packets per RTT, so loss at "
        "n = 50 stays at {loss:.1%}, far below Table I's p_50 on the T1 (20.9-44.7%), and "
        "retransmission recovers nearly every base layer"
    ),
}
#: TFRC(180) is short of rate rather than of loss recovery, on either path.
WHY_TFRC = {
    "T1": (
        "TFRC(180) loses only {loss:.1%} on the T1 (Table I's p_50: 20.9%), but its rates "
        "spread widely over the 50 flows, and a flow below the ~15 kb/s of send slots the "
        "base layer needs builds a send buffer that holds frames past their decoding time"
    ),
    "T3": (
        "TFRC(180) on the T3-scaled path: its equation rate s/(R·f(p)) with s = 180 B does "
        "not scale with C, so after the start-up losses it climbs back only as its loss "
        "intervals grow and stays below the 406 kb/s base layer's send slots; the send "
        "buffer grows and frames miss their decoding time (loss {loss:.2%})"
    ),
}


def table1_claims(
    path: str,
    runs: str,
    frozen: dict[str, dict[str, float]],
    why: Callable[[str], str] | None = None,
) -> list[Claim]:
    """Table I's freeze-frame claims on `path` from each scheme's share of the session frozen
    and loss rate (`frozen`, by scheme); `runs` names the runs in each quantity, `why(scheme)`
    says why a scheme's claim does not hold (by default :data:`WHY_TABLE1`, :data:`WHY_TFRC`)."""
    low, high = TABLE1_FROZEN
    claims = []
    for scheme in TABLE1:
        got = frozen[scheme]
        quantity = (
            f"Loguinov Table I, {path}, n = 50 ({runs}): {scheme} share of the session frozen"
        )
        reason = (
            why(scheme)
            if why is not None
            else (WHY_TFRC if scheme == "TFRC(180)" else WHY_TABLE1)[path].format(loss=got["loss"])
        )
        if scheme == "ISCC(-1.5,2)":
            claims.append(
                below(
                    quantity,
                    TABLE1_NONE,
                    got["frozen"],
                    reason,
                    published=0.0,
                    source=PRINTED + ": 'none' to one frame of a 600 s session at 10 frames/s",
                )
            )
        else:
            holds = low <= got["frozen"] <= high
            claims.append(
                Claim(
                    quantity,
                    "13-68%",
                    got["frozen"],
                    "in [0.13, 0.68]",
                    holds,
                    "" if holds else reason,
                    source=PRINTED + ": §VI-C's range over the non-scalable schemes",
                )
            )
    iscc = frozen["ISCC(-1.5,2)"]["frozen"]
    others = min(frozen[s]["frozen"] for s in TABLE1 if s != "ISCC(-1.5,2)")
    # Least only means something if another scheme froze at all (more than one frame).
    told = max(frozen[s]["frozen"] for s in TABLE1 if s != "ISCC(-1.5,2)") > TABLE1_NONE
    holds = told and iscc <= others + TABLE1_NONE
    claims.append(
        Claim(
            f"Loguinov Table I, {path}, n = 50 ({runs}): ISCC(-1.5,2) freezes least",
            "none vs 13-68%",
            f"{iscc:.2g} vs at least {others:.2g}",
            "at most the others' + 1/6000, another above 1/6000",
            holds,
            ""
            if holds
            else "unexpected: a non-scalable scheme froze less"
            if told
            else "no scheme froze more than one frame, so none freezes least",
            source=PRINTED + ": 'none' to one frame of a 600 s session at 10 frames/s",
        )
    )
    return claims


def table1(quick: bool = False) -> list[Claim]:
    """Table I's freeze frames (§VI-C) at n = 50 on the T1 and on the T3-scaled path: each
    non-scalable scheme's share of the session frozen within the paper's 13-68%, ISCC(-1.5,2)
    with none and freezing least (both at the paper's resolution, one frame of a flow's
    session: :data:`TABLE1_NONE`)."""
    frozen = table1_frozen(quick)
    runs = TABLE1_RUNS[quick][2]
    return [
        claim
        for path in TABLE1_PATHS
        for claim in table1_claims(path, runs, {scheme: frozen[path, scheme] for scheme in TABLE1})
    ]
