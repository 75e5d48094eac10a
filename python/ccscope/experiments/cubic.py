"""RFC 9438 §5 at packet level (scenarios/cubic-rfc9438.toml): CUBIC's average window against
Figure 6, or in its Reno-friendly region Figure 3 at α_cubic (the larger, as RFC 9438 Tables 1
and 2), for p from 0.01% to 5% on a fat link, under the RFC's deterministic loss (every 1/p-th
packet) and under Bernoulli loss; and the loss rate at which CUBIC leaves the Reno-friendly
region, where the average of the cubic alone (``reno_friendly = 0``) meets that of its
Reno-friendly estimate alone (GAIMD(α_cubic, β_cubic), the AIMD that W_est follows).

The average window is the packets sent per RTT: the sending rate over the measured part of the
run times the mean RTT sample, in 1000-byte packets.
"""

from __future__ import annotations

import numpy as np

from .. import engine, theory
from ..scenario import load, shipped
from .claims import SEEDS as SEED_SPREAD
from .claims import THEORY, Claim

SCENARIO = shipped() / "cubic-rfc9438.toml"

#: RFC 9438's recommended parameters (§4.6, §5.1).
C, BETA = 0.4, 0.7
#: Loss rates from 0.01% to 5%; the quick run keeps two either side of the region's edge
#: (5.48e-4 at 100 ms) and one deep in the Reno-friendly region.
LOSS_RATES = (1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2)
QUICK_LOSS_RATES = (5e-4, 1e-3, 1e-2)
#: Bernoulli runs: seeds 1-10, whose spread is the tolerance of those rows.
SEEDS = tuple(range(1, 11))
#: Run lengths (s), half of them warm-up: after the slow-start overshoot the deterministic
#: model returns to its fixed point slowly (the cubic is flat at W_max), 1200 s is enough from
#: p = 5e-4 up and 3000 s from 1e-4.
FULL_S, QUICK_S = 3000, 1200

#: The three controls: CUBIC as RFC 9438 (fast convergence off for a single flow, §4.7), the
#: cubic alone, and the AIMD of its Reno-friendly estimate W_est (§4.3).
CUBIC = {"name": "cubic", "fast_convergence": 0}
CUBIC_ALONE = {"name": "cubic", "fast_convergence": 0, "reno_friendly": 0}
W_EST = {
    "name": "gaimd",
    "alpha": float(theory.aimd_friendly_alpha_beta_kept(BETA)),
    "beta": BETA,
}


def mean_window(
    p: float, controller: dict, periodic: bool, seed: int = 1, seconds: int = FULL_S
) -> tuple[float, float, float]:
    """The flow's average window (packets per RTT), mean RTT (s) and timeouts at loss rate
    `p`."""
    loss = (
        {"kind": "periodic", "every": round(1 / p)} if periodic else {"kind": "bernoulli", "p": p}
    )
    sc = (
        load(SCENARIO)
        .replace("topology.loss", loss)
        .replace("flows[0].source.controller", controller)
        .replace("run.warmup", f"{seconds // 2}s")
        .replace("run.duration", f"{seconds}s")
        .with_seed(seed)
    )
    f = engine.run(sc).flows.iloc[0]
    window = float(f["send_rate_bps"] * f["mean_rtt_s"] / 8000)
    return window, float(f["mean_rtt_s"]), float(f["timeouts"])


def _published(p: float, rtt: float) -> float:
    return float(theory.cubic_response(p, rtt, C, BETA))


def _epoch_rtts(p: float, rtt: float) -> float:
    """RTTs between two losses at the fixed point of the deterministic model: K/RTT with K
    from Appendix C's Figure 12, or in the Reno-friendly region Figure 3's sawtooth, from
    β·W_max to W_max at α_cubic a round, (1 − β)·W_max/α_cubic = 2·AVG/3 rounds."""
    if theory.cubic_reno_friendly(p, rtt, C, BETA):
        return 2 * _published(p, rtt) / 3
    return (1 / p) / float(theory.cubic_mean_window(p, rtt, C, BETA))  # Figure 9: K/RTT


def _periodic_claim(p: float, seconds: int) -> tuple[Claim, float]:
    measured, rtt, _ = mean_window(p, CUBIC, periodic=True, seconds=seconds)
    published = _published(p, rtt)
    # The model's epoch is its rounds of the cubic (or of W_est's sawtooth); a packet-level
    # epoch also has an RTT to detect the loss (three duplicate ACKs) and one of fast recovery.
    # The 1/p packets between losses are fixed, so the average can differ by at most the
    # share of those two RTTs.
    tol = 2 / _epoch_rtts(p, rtt)
    figure = "3" if theory.cubic_reno_friendly(p, rtt, C, BETA) else "6"
    holds = abs(measured / published - 1) <= tol
    return (
        Claim(
            f"mean window (pkts), every 1/p-th packet lost, p = {p:g}, {seconds} s",
            round(published, 4),
            round(measured, 4),
            f"within {tol:.1%} (2 RTTs of each {_epoch_rtts(p, rtt):.3g}-RTT epoch: "
            "loss detection and recovery)",
            holds,
            ""
            if holds
            else f"Figure {figure}'s fixed point is approached slowly after slow start: "
            f"{measured / published:.3f} of it after {seconds // 2} s",
            source=THEORY + ": the two RTTs of an epoch Figures 3 and 6 leave out",
        ),
        rtt,
    )


def _bernoulli_claim(p: float, seconds: int) -> Claim:
    runs = np.array([mean_window(p, CUBIC, periodic=False, seed=s, seconds=seconds) for s in SEEDS])
    w, rtt, timeouts = runs[:, 0], float(runs[:, 1].mean()), float(runs[:, 2].mean())
    published = _published(p, rtt)
    half = float(_t975(len(w) - 1) * w.std(ddof=1) / np.sqrt(len(w)))
    ratio = w.mean() / published
    holds = abs(w.mean() - published) <= half
    if ratio > 1:
        why = (
            "Figures 3 and 6 hold for deterministic loss (§5, Appendix C); Bernoulli epochs "
            "vary in length, the long ones reach the cubic's convex part, and CUBIC takes the "
            f"larger of W_cubic and W_est in each: {ratio:.3f} of the formula"
        )
    else:
        why = (
            "Figures 3 and 6 count no timeouts (every loss is found by duplicate ACKs); at "
            f"this loss rate a run times out {timeouts:.0f} times on average: {ratio:.3f} of "
            "the formula"
        )
    return Claim(
        f"mean window (pkts), Bernoulli loss p = {p:g}, mean of seeds 1-{len(w)}, {seconds} s",
        round(published, 4),
        round(float(w.mean()), 4),
        f"± {half:.3g} (95% CI of the mean over {len(w)} seeds)",
        holds,
        "" if holds else why,
        source=SEED_SPREAD + f": the 95% CI of the mean over seeds 1-{len(w)}",
        key=f"bernoulli/{p:g}",
    )


def _t975(dof: int) -> float:
    from scipy import stats

    return float(stats.t.ppf(0.975, dof))


def _crossing(ps: tuple[float, ...], ratio: np.ndarray) -> float:
    """Where `ratio` (cubic alone over W_est, decreasing in p) crosses 1, interpolated in
    log-log between the grid's loss rates; NaN if it does not cross."""
    above = np.flatnonzero(ratio[:-1] >= 1) if len(ratio) > 1 else np.array([], int)
    for i in above:
        if ratio[i + 1] < 1:
            lp, lr = np.log(ps[i : i + 2]), np.log(ratio[i : i + 2])
            return float(np.exp(lp[0] - lr[0] * (lp[1] - lp[0]) / (lr[1] - lr[0])))
    return float("nan")


def _region_claim(ps: tuple[float, ...], rtt: float, seconds: int) -> Claim:
    """The loss rate at which CUBIC leaves its Reno-friendly region: measured where the cubic
    alone's average window meets W_est's alone, under deterministic loss."""
    alone = np.array([mean_window(p, CUBIC_ALONE, True, seconds=seconds)[0] for p in ps])
    est = np.array([mean_window(p, W_EST, True, seconds=seconds)[0] for p in ps])
    measured = _crossing(ps, alone / est)
    published = float(theory.cubic_reno_friendly_loss_rate(rtt, C, BETA))
    # Each average is held to the share of an epoch that detection and recovery take (as the
    # rows above); near the edge both epochs are about 35 RTTs. With W_cubic ∝ p^(-3/4) and
    # W_est ∝ p^(-1/2), errors ε_c and ε_e move the crossing by ((1 + ε_c)/(1 + ε_e))^4.
    eps_c = 2 * published * float(theory.cubic_mean_window(published, rtt, C, BETA))
    eps_e = 2 / (2 * float(theory.aimd_mean_window(published, W_EST["alpha"], BETA)) / 3)
    factor = ((1 + eps_c) / (1 - eps_e)) ** 4
    holds = published / factor <= measured <= published * factor
    return Claim(
        f"loss rate above which CUBIC is Reno-friendly (Figure 6 = Figure 3), {seconds} s",
        float(f"{published:.4g}"),
        float(f"{measured:.4g}"),
        f"within ×{factor:.2f} (each average within 2 RTTs per epoch, to the 4th power)",
        holds,
        ""
        if holds
        else f"the averages of the cubic alone ({np.round(alone, 2).tolist()}) and W_est "
        f"({np.round(est, 2).tolist()}) at p = {list(ps)} cross elsewhere",
        source=THEORY + ": the two RTTs per epoch of each average, carried to the crossing",
    )


def rfc9438_claims(quick: bool = False) -> list[Claim]:
    """RFC 9438 §5: the average window under deterministic loss within the share of an epoch
    that loss detection and recovery take; under Bernoulli loss within the seeds' 95% CI (the
    formula assumes deterministic loss: these rows say how far it is); the edge of the
    Reno-friendly region within what those tolerances allow."""
    ps = QUICK_LOSS_RATES if quick else LOSS_RATES
    seconds = QUICK_S if quick else FULL_S
    claims, rtts = [], []
    for p in ps:
        claim, rtt = _periodic_claim(p, seconds)
        claims.append(claim)
        rtts.append(rtt)
    claims += [_bernoulli_claim(p, seconds) for p in ps]
    claims.append(_region_claim(ps, float(np.mean(rtts)), seconds))
    return claims
