"""The run-to-run spread of the ground-truth comparisons `linux-reno`, `linux-cubic` and
`linux-bbr` (ccscope.experiments.linux): the quick cases run R times with Linux's TCP on real
packets (the udp engine) and with ccscope's model of it in the packet engine (seeds 1..R), and
per case and quantity the mean and the standard deviation of one run on each side, relative to
that side's mean. `SPREAD` in ccscope/experiments/linux.py holds these relative σ per case and
quantity; its tolerances are three σ of the difference of two independent runs,
3·sqrt(σ_linux² + σ_model²). Also prints in how many of the R Linux runs the quick claim (one
Linux run against the model's run of seed 1) held at that tolerance.

Real time depends on the machine's load (printed): other jobs widen the real side's spread.
Needs root (network namespaces and TUN devices). Takes R · 20 s of wall time per algorithm.

With --friendliness: the same for `linux-friendliness`'s ratios (R quick runs of 30 s), which
`FRIENDLY_SPREAD` holds. With --emulators: the same for `linux-emulators`, Linux Reno on each
quick case alone through the user-space and the kernel-queue emulator (R runs of each, 20 s a
run), which `EMULATOR_SPREAD` holds.

With --store: Linux's runs also go into the committed store of Linux's side
(ccscope/linuxruns.json, ccscope.experiments.linux.STORE), each path's entry replaced: the
quick cases' R runs, linux-friendliness's R runs of each ratio, or, with --grid, the full grid's
paths, or, with --episodes, one run's drops on linux.EPISODE_PATHS grouped into overflows
(linux.drop_episodes). --grid runs Linux only, the full grid's batches (linux.batches: the
10 Mb/s paths six side by side, the 100 Mb/s ones alone; 60 s each) or those --batches names
(e.g. 0-7), so that a long grid can be split into runs of a few minutes; --list-batches prints
them.

Usage: python bench/linux_spread.py [--runs R] [--cc reno cubic bbr]
       [--friendliness | --emulators | --episodes | --grid [--batches I-J] [--list-batches]]
       [--store]
       [--out out/linux_spread.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

from ccscope.experiments import linux

ROOT = Path(__file__).resolve().parents[1]


def spread(values: dict[str, np.ndarray]) -> tuple[dict[str, float], float]:
    """Each side's standard deviation of one run relative to its mean (0 where every run gave
    0), and the tolerance of a comparison of one run on each side: three standard deviations
    of their difference, 3·sqrt(σ_a² + σ_b²)."""
    rel = {
        side: float(v.std(ddof=1) / abs(v.mean())) if v.mean() else 0.0
        for side, v in values.items()
    }
    return rel, 3 * float(np.hypot(*rel.values()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cc", nargs="+", default=list(linux.CONTROLLER))
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "linux_spread.json")
    parser.add_argument(
        "--friendliness",
        action="store_true",
        help="the spread of linux-friendliness's ratios instead (R quick runs)",
    )
    parser.add_argument(
        "--emulators",
        action="store_true",
        help="the spread of linux-emulators's quantities instead (R runs through each emulator)",
    )
    parser.add_argument(
        "--grid",
        action="store_true",
        help="Linux's side of the full grid instead (one run of each path)",
    )
    parser.add_argument("--batches", help="With --grid: these batches only, I-J (from 0)")
    parser.add_argument(
        "--episodes",
        action="store_true",
        help="Linux's drops grouped into overflows on linux.EPISODE_PATHS instead (one run)",
    )
    parser.add_argument(
        "--list-batches", action="store_true", help="With --grid: list the batches, run none"
    )
    parser.add_argument(
        "--store",
        action="store_true",
        help="Write Linux's runs to ccscope/linuxruns.json (linux.STORE)",
    )
    args = parser.parse_args()
    if args.store and args.emulators:
        parser.error("--store keeps Linux's side of linux-{reno,cubic,bbr,friendliness}")
    if args.friendliness:
        friendliness(args)
        return
    if args.emulators:
        emulators(args)
        return
    if args.grid:
        grid(args)
        return
    if args.episodes:
        episodes(args)
        return
    cases = list(linux.QUICK)
    report: dict = {"runs": args.runs, "load": [], "cc": {}}
    for cc in args.cc:
        runs = {side: [] for side in linux.SIDES}
        for seed in range(1, args.runs + 1):
            for side in linux.SIDES:
                runs[side].append(linux.measure(cases, cc, side, linux.QUICK_RUN, seed))
            report["load"].append(os.getloadavg()[0])
        rows = []
        for k, case in enumerate(cases):
            for metric in linux.METRICS:
                values = {
                    side: np.array([run[k][metric] for run in runs[side]]) for side in linux.SIDES
                }
                mean = {side: float(v.mean()) for side, v in values.items()}
                rel, tol = spread(values)
                # The quick claim compares one Linux run with the model's run of seed 1.
                model = values["model"][0]
                held = sum(abs(model - r) <= tol * abs(r) for r in values["linux"])
                rows.append(
                    {
                        "case": str(case),
                        "metric": metric,
                        "mean": mean,
                        "rel_sd": rel,
                        "tolerance": tol,
                        "held": int(held),
                        "values": {side: v.tolist() for side, v in values.items()},
                    }
                )
                print(
                    f"{cc:5} | {case} | {metric:16} | linux {mean['linux']:.4g} "
                    f"(σ {rel['linux']:.1%}) | model {mean['model']:.4g} (σ {rel['model']:.1%}) "
                    f"| tol {tol:.1%} | held {held}/{args.runs}",
                    flush=True,
                )
        report["cc"][cc] = rows
        for k, case in enumerate(cases):
            if args.store:
                linux_runs = [run[k] for run in runs["linux"]]
                linux.store_runs(
                    "quick",
                    cc,
                    case,
                    linux_runs,
                    report["load"][-args.runs :],
                    linux.QUICK_RUN,
                    command(),
                )
    print(f"load average (1 min) at each run: {', '.join(f'{x:.2f}' for x in report['load'])}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1))


def friendliness(args: argparse.Namespace) -> None:
    """R quick runs of every pair of linux-friendliness: each ratio's mean and relative σ per
    side, and how many single-run comparisons held at 3σ of the difference."""
    runs, load = [], []
    for seed in range(1, args.runs + 1):
        runs.append(linux.friendliness_ratios(True, seed))
        load.append(os.getloadavg()[0])
    rows = []
    for name in linux.SEED_CONTROLS:
        for cc in ("cubic", "reno"):
            values = {s: np.array([r[name, cc, s] for r in runs]) for s in linux.SIDES}
            rel, tol = spread(values)
            # The quick claim compares one Linux run with the model's run of seed 1.
            held = sum(abs(values["model"][0] - r) <= tol * r for r in values["linux"])
            rows.append(
                {
                    "controller": name,
                    "cc": cc,
                    "rel_sd": rel,
                    "held": int(held),
                    "values": {side: v.tolist() for side, v in values.items()},
                }
            )
            print(
                f"{name:18} vs {cc:5} | Linux {values['linux'].mean():.3f} (σ {rel['linux']:.1%}) "
                f"| model {values['model'].mean():.3f} (σ {rel['model']:.1%}) | tol {tol:.1%} "
                f"| held {held}/{args.runs}",
                flush=True,
            )
    print(f"load average (1 min) at each run: {', '.join(f'{x:.2f}' for x in load)}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"runs": args.runs, "load": load, "pairs": rows}, indent=1))
    for name in linux.SEED_CONTROLS:
        for cc in ("cubic", "reno") if args.store else ():
            ratios = [{"ratio": r[name, cc, "linux"]} for r in runs]
            linux.store_runs(
                "friendliness", cc, name, ratios, load, linux.FRIENDLY_RUN[True], command()
            )


def emulators(args: argparse.Namespace) -> None:
    """R runs of Linux Reno on each quick case through each emulator: per case and quantity,
    each emulator's mean and relative σ, and how many single-run comparisons (run i through
    one emulator against run i through the other) held at 3σ of the difference."""
    runs: dict = {e: [] for e in linux.EMULATORS}
    load = []
    for _ in range(args.runs):
        for e in linux.EMULATORS:
            runs[e].append(
                [linux.measure_alone(c, "reno", e, linux.QUICK_RUN) for c in linux.QUICK]
            )
        load.append(os.getloadavg()[0])
    rows = []
    for k, case in enumerate(linux.QUICK):
        for metric in linux.METRICS:
            values = {e: np.array([run[k][metric] for run in runs[e]]) for e in linux.EMULATORS}
            rel, tol = spread(values)
            user, kernel = values["user"], values["kernel"]
            held = int(sum(abs(b - a) <= tol * abs(a) for a, b in zip(user, kernel, strict=True)))
            rows.append(
                {
                    "case": str(case),
                    "metric": metric,
                    "rel_sd": rel,
                    "held": held,
                    "values": {e: v.tolist() for e, v in values.items()},
                }
            )
            print(
                f"{case} | {metric:16} | user {user.mean():.4g} (σ {rel['user']:.2g}) | kernel "
                f"{kernel.mean():.4g} (σ {rel['kernel']:.2g}) | tol {tol:.1%} | held "
                f"{held}/{args.runs}",
                flush=True,
            )
    print(f"load average (1 min) at each run: {', '.join(f'{x:.2f}' for x in load)}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"runs": args.runs, "load": load, "rows": rows}, indent=1))


def grid(args: argparse.Namespace) -> None:
    """One run of Linux on each path of the full grid (or of the --batches named), batch by
    batch; each path's values printed, and stored with --store as its batch ends."""
    groups = linux.batches(linux.full_grid())
    first, last = 0, len(groups) - 1
    if args.batches:
        first, _, end = args.batches.partition("-")
        first, last = int(first), int(end or first)
    for i, group in enumerate(groups):
        if args.list_batches:
            print(f"batch {i}: " + "; ".join(map(str, group)))
            continue
        if not first <= i <= last:
            continue
        for cc in args.cc:
            values = linux.measure(group, cc, "linux", linux.FULL_RUN)
            load = os.getloadavg()[0]
            for case, v in zip(group, values, strict=True):
                print(
                    f"{cc:5} | batch {i} | {case} | "
                    + " | ".join(f"{m} {v[m]:.4g}" for m in linux.METRICS)
                    + f" | load {load:.2f}",
                    flush=True,
                )
                if args.store:
                    linux.store_runs("full", cc, case, [v], [load], linux.FULL_RUN, command())


def episodes(args: argparse.Namespace) -> None:
    """One run of Linux on each of linux.EPISODE_PATHS with the event log: its drops grouped
    into overflows (linux.drop_episodes), beside the model's; stored with --store."""
    for cc in args.cc:
        for cases in linux.EPISODE_PATHS:
            theirs = linux.drop_episodes(cases, cc, "linux")
            load = os.getloadavg()[0]
            mine = linux.drop_episodes(cases, cc, "model")
            for case, a, b in zip(cases, theirs, mine, strict=True):
                print(
                    f"{cc:5} | {case} | "
                    + " | ".join(f"{k} {a[k]:.3g} / {b[k]:.3g}" for k in a)
                    + f" | load {load:.2f}",
                    flush=True,
                )
                if args.store:
                    linux.store_runs(
                        "episodes", cc, case, [a], [load], linux.EPISODE_RUN, command()
                    )


def command() -> str:
    return " ".join(["python", "bench/linux_spread.py", *sys.argv[1:]])


if __name__ == "__main__":
    main()
