"""`make bench`: the user's path after a run: `ccscope report` of a run and of a 100-run sweep,
and what drawing overview.png adds to `ccscope run`, in the same command.

Measures, each the best of --repeat (runs of one kind alternate with the other, so both meet
the same load from other jobs):

- `ccscope report DIR` of the quick start's run directory (`ccscope run
  scenarios/dumbbell-mix.toml`), goal under 2 s of wall time;
- `ccscope report STORE` of a sweep of 100 runs (25 points of a small dumbbell, 4 seeds),
  goal under 5 s;
- `ccscope run scenarios/dumbbell-mix.toml` with and without `--no-plot`: the plot's share of
  the run's wall time, goal under one half (plotting no longer dominates the command), and of
  its CPU time (user + system, which other jobs on the machine do not inflate).

Merges its rows (group "report") into out/bench.json (which bench/speed.py writes first), with
the load average and the number of CPUs beside them; bench/speed_page.py shows them in the
speed page's table (docs/speed.md).

Usage: python bench/report_speed.py [--repeat N] [--out out/bench.json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from speed import CHILD_ENV

ROOT = Path(__file__).resolve().parents[1]
CCSCOPE = str(Path(sys.executable).with_name("ccscope"))
QUICK_START = ROOT / "scenarios" / "dumbbell-mix.toml"

#: 100 runs: 5 rates x 5 TCP flow counts beside one TFRC flow, 4 seeds, 10 s each.
SWEEP = """
seeds = [1, 2, 3, 4]

[base.run]
duration = "10s"
warmup = "2s"

[base.topology]
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "20ms", queue = { kind = "droptail", limit = 50 } }

[[base.flows]]
source = { kind = "tcp" }
count = 2
start_jitter = "1s"

[[base.flows]]
source = { kind = "rate", controller = "tfrc" }

[axes]
"topology.bottleneck.rate" = ["2Mbps", "5Mbps", "10Mbps", "20Mbps", "50Mbps"]
"flows[0].count" = [1, 2, 3, 4, 5]
"""
SWEEP_RUNS = 100

GOAL_RUN_REPORT_S, GOAL_SWEEP_REPORT_S, GOAL_PLOT_SHARE = 2.0, 5.0, 0.5


def timed(*args: str) -> tuple[float, float]:
    """Wall and CPU time (user + system of the child) of `ccscope ARGS`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([CCSCOPE, *args], check=True, capture_output=True, env=CHILD_ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def row(scenario: str, metric: str, value: float, goal: str, met: bool, **extra) -> dict:
    return {
        "group": "report",
        "scenario": scenario,
        "metric": metric,
        "ccscope": value,
        "ns2": None,
        "ratio": None,
        "ccscope_peak_rss_mb": None,
        "ns2_peak_rss_mb": None,
        "goal": goal,
        "met": met,
        **extra,
        "load_avg_1min": os.getloadavg()[0],
        "cpus": os.cpu_count(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="best of N (default 3)")
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "bench.json")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        sweep = t / "sweep.toml"
        sweep.write_text(SWEEP)
        store = t / "s.duckdb"
        subprocess.run(
            [CCSCOPE, "sweep", str(sweep), "--store", str(store), "--no-progress"],
            check=True,
            capture_output=True,
            env=CHILD_ENV,
        )
        plotted, unplotted, run_report, sweep_report = [], [], [], []
        for _ in range(args.repeat):
            plotted.append(timed("run", str(QUICK_START), "-o", str(t / "run"), "-q"))
            unplotted.append(
                timed("run", str(QUICK_START), "-o", str(t / "bare"), "-q", "--no-plot")
            )
            run_report.append(timed("report", str(t / "run"), "-o", str(t / "run.html")))
            sweep_report.append(timed("report", str(store), "-o", str(t / "sweep.html")))
    best = {
        name: (min(w for w, _ in times), min(c for _, c in times))
        for name, times in (
            ("plot", plotted),
            ("bare", unplotted),
            ("run_report", run_report),
            ("sweep_report", sweep_report),
        )
    }
    share_wall = 1 - best["bare"][0] / best["plot"][0]
    share_cpu = 1 - best["bare"][1] / best["plot"][1]
    reports = (
        ("run_report", "the quick start's run (dumbbell-mix.toml)", GOAL_RUN_REPORT_S),
        ("sweep_report", f"a {SWEEP_RUNS}-run sweep store", GOAL_SWEEP_REPORT_S),
    )
    rows = [
        row(
            f"ccscope report of {what}",
            "wall seconds",
            best[key][0],
            f"< {goal:g} s",
            best[key][0] < goal,
            cpu_s=best[key][1],
        )
        for key, what, goal in reports
    ]
    rows.append(
        row(
            "ccscope run of the quick start: overview.png's share",
            "share of the wall time",
            share_wall,
            f"< {GOAL_PLOT_SHARE:g}",
            share_wall < GOAL_PLOT_SHARE,
            plot_wall_s=best["plot"][0],
            bare_wall_s=best["bare"][0],
            plot_cpu_s=best["plot"][1],
            bare_cpu_s=best["bare"][1],
            share_cpu=share_cpu,
        )
    )
    old = json.loads(args.out.read_text()) if args.out.exists() else []
    merged = [r for r in old if r["group"] != "report"] + rows
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(merged, indent=1) + "\n")
    load = os.getloadavg()[0]
    print(
        f"report of a run {best['run_report'][0]:.2f} s (CPU {best['run_report'][1]:.2f} s), "
        f"of a {SWEEP_RUNS}-run sweep {best['sweep_report'][0]:.2f} s "
        f"(CPU {best['sweep_report'][1]:.2f} s); ccscope run {best['plot'][0]:.2f} s with the "
        f"plot, {best['bare'][0]:.2f} s without: the plot is {share_wall:.0%} of the wall time, "
        f"{share_cpu:.0%} of the CPU time (load {load:.1f} on {os.cpu_count()} CPUs) "
        f"-> {args.out}"
    )


if __name__ == "__main__":
    main()
