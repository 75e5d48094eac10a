"""The spread over seeds of the packet-level reproductions' measured values, from which their
tolerances are sized: per group and quantity, the mean and the standard deviation of one run
(ddof = 1) over seeds 1..N (10 unless told). The constants `*_SD` in ccscope/experiments/
(yang.py, jin.py, cai.py, papadimitriou.py) hold these σ and name this command.

A paper prints one run (or a mean over its own runs), and ccscope's measured value is one run
or a mean over k seeds: the two differ by the spread of both, so a tolerance of two standard
deviations of that difference is 2σ·sqrt(1 + 1/k) (:func:`ccscope.experiments.claims.
seed_tolerance`).

Groups: yang-fig6 (CoV_time at 1%), yang-table1 (CoV_time at 2% and 20%), yang-f300 and
yang-f1000 (fairness F in the quick 300-s and the full 1000-s runs), yang-fig29 (refill RTTs),
jin-table5-330 and jin-table5-1230 (1/aggressiveness, quick and full runs), cai-table1 (the
DTAIMD/TCP rate ratio, and the other Table I quantities, whose reasons cite their spread),
cai-fig17 (class-2/class-1 throughput ratios), loguinov-fig8 (the exponents of p_n in n and their
ratio; seeds 6 to N + 5, as loguinov-fig8 starts at 6), papadimitriou-fig3 (CoV of the 150-ms
rate). Four run in real time on real packets, each value relative to the packet engine's on the
same scenario: realnet-accuracy (each flow's throughput and loss rate, 30 s of
scenarios/realnet-two-flows.toml, seeds 1..N) and papadimitriou-fig3-udp (the CoV of the 150-ms
rate, 30 s per protocol, seeds 1..N); realnet-accuracy-quick and loguinov-fig8-udp repeat those
reproductions' quick runs N times at their own seed (the spread is real time's; the latter gives
the real-packet exponents themselves). One process, one run at a time; a real-time group's
spread includes the machine's load, which its use states.

Usage: python bench/seed_spread.py [GROUP ...] [--seeds N]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from ccscope import theory
from ccscope.experiments import cai, jin, loguinov, papadimitriou, realnet, yang
from ccscope.scenario import load, shipped


def _yang_cov(p: float) -> Callable[[int], dict[str, float]]:
    return lambda seed: {
        f"{name} at {p:.0%}": yang.cov_time(source, seed, p)[0]
        for name, (source, _) in yang.FIG6.items()
    }


def _yang_f(duration_s: float) -> Callable[[int], dict[str, float]]:
    return lambda seed: {
        name: yang.fairness(source, seed, duration_s)["F"]
        for name, (source, _) in yang.FIG6.items()
    }


def _jin_table5(duration_s: float) -> Callable[[int], dict[str, float]]:
    return lambda seed: {
        name: jin.table5_measure(controller, params, duration_s, seed)[0]
        for name, (_, (controller, params), _) in jin.TABLE5.items()
    }


def _cai_fig17(seed: int) -> dict[str, float]:
    base = load(shipped() / "cai-fig17-differentiation.toml")
    out = {}
    for k in (2, 3, 4):
        alpha2 = float(theory.cai_weighted_alpha_ratio(k, 0.5, 0.875))
        for n in (12, 24, 48, 96):
            out[f"k = {k}, {n} flows"] = cai.fig17_ratio(base, alpha2, n, seed)[0]
    return out


def _loguinov_fig8(seed: int) -> dict[str, float]:
    # Seeds 6 on, as loguinov-fig8 runs them.
    e = {name: loguinov.fig8_exponent(c, seed + 5) for name, c in loguinov.FIG8.items()}
    return {**e, "ISCC over AIMD": e["ISCC(-1.5,2)"] / e["AIMD(0.19,1/2)"]}


def _realnet_accuracy(seed: int) -> dict[str, float]:
    table = load(shipped() / "realnet-two-flows.toml").with_seed(seed)
    real, sim = (r.flows for r in realnet._both(table.replace("run.duration", "30s").table))
    return {
        f"flow {flow}: {column} real / engine": real.loc[flow, column] / sim.loc[flow, column]
        for flow in (0, 1)
        for column in ("throughput_bps", "loss_rate")
    }


def _fig3_udp(seed: int) -> dict[str, float]:
    return {
        c: papadimitriou.fig3_cov(c, "udp", "30s", seed=seed)[0]
        / papadimitriou.fig3_cov(c, "packet", "30s", seed=seed)[0]
        for c in papadimitriou.FIG3_COV
    }


GROUPS: dict[str, Callable[[int], dict[str, float]]] = {
    "yang-fig6": _yang_cov(0.01),
    "yang-table1": lambda seed: {**_yang_cov(0.02)(seed), **_yang_cov(0.2)(seed)},
    "yang-f300": _yang_f(300.0),
    "yang-f1000": _yang_f(1000.0),
    "yang-fig29": lambda seed: {
        name: yang.fig29_refill(name, seed)[0] for name in ("TCP", "GAIMD(0.31,0.875)", "TFRC")
    },
    "jin-table5-330": _jin_table5(330.0),
    "jin-table5-1230": _jin_table5(1230.0),
    "cai-table1": lambda seed: {
        name.replace("_", " "): float(value)
        for name, value in cai.table1_run(
            load(shipped() / "cai-table1-playback.toml"), seed
        ).items()
    },
    "cai-fig17": _cai_fig17,
    "loguinov-fig8": _loguinov_fig8,
    "papadimitriou-fig3": lambda seed: {
        c: papadimitriou.fig3_cov(c, seed=seed)[0] for c in papadimitriou.FIG3_COV
    },
    "realnet-accuracy": _realnet_accuracy,
    # The quick real-time claims as `ccscope reproduce ID --quick` runs them (at their own seed:
    # the spread is real time's): each quick real-packet value relative to the engine's.
    "realnet-accuracy-quick": lambda seed: {
        c.quantity: c.measured / c.published for c in realnet.accuracy_claims(quick=True)
    },
    "loguinov-fig8-udp": lambda seed: {
        c.quantity: c.measured
        for c in realnet.fig8_udp_claims(quick=True)
        if c.quantity.endswith(realnet.ENGINES[0])
    },
    "papadimitriou-fig3-udp": _fig3_udp,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("groups", nargs="*", default=list(GROUPS), choices=[[], *GROUPS])
    parser.add_argument("--seeds", type=int, default=10)
    args = parser.parse_args()
    for group in args.groups or list(GROUPS):
        start = time.perf_counter()
        runs = [GROUPS[group](seed) for seed in range(1, args.seeds + 1)]
        print(f"\n{group}, seeds 1-{args.seeds} ({time.perf_counter() - start:.0f} s)")
        print("| quantity | mean | σ of one run | min | max |")
        print("|---|---|---|---|---|")
        for quantity in runs[0]:
            v = np.array([run[quantity] for run in runs])
            print(
                f"| {quantity} | {v.mean():.4g} | {v.std(ddof=1):.3g} | {v.min():.4g} | "
                f"{v.max():.4g} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
