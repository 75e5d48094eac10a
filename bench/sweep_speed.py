"""`make bench`: a 20-run sweep on two worker processes against one, in the same command.

Runs `ccscope sweep FILE --store S -j N` for N = 1 and N = 2 on the same sweep (each into a
fresh store; -j 1 and -j 2 alternate, so both meet the same load from other jobs; best of
--repeat each), and merges one record into out/bench.json (which bench/speed.py writes first):
the wall-time speed-up of -j 2 over -j 1, with the goal of at least 1.8x (two cores should
almost halve a sweep). bench/speed_page.py shows it in docs/speed.md's table.

Usage: python bench/sweep_speed.py [--repeat N] [--out out/bench.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from speed import CHILD_ENV

ROOT = Path(__file__).resolve().parents[1]
CCSCOPE = str(Path(sys.executable).with_name("ccscope"))

#: Simulated length of each run: about half a second of engine time, so that what a sweep
#: does once (start-up, expanding the tasks, the last run's tail) is a small share, as in a
#: sweep worth running in parallel. At 300 s a run took 0.17 s, and that fixed part, about
#: 0.2 s, decided the ratio.
DURATION_S = 1200

#: 20 runs (5 loss rates × 4 seeds) of 8 TCP flows on a 10 Mb/s, 20-ms dumbbell.
SWEEP = """
seeds = [1, 2, 3, 4]

[base.run]
duration = "{DURATION_S}s"
warmup = "10s"

[base.topology]
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "20ms", queue = { kind = "droptail", limit = "50pkts" } }

[[base.flows]]
source = { kind = "tcp" }
count = 8
start_jitter = "1s"

[axes]
"topology.bottleneck.loss" = [{ kind = "bernoulli", p = 0.0 }, { kind = "bernoulli", p = 0.001 },
                              { kind = "bernoulli", p = 0.002 }, { kind = "bernoulli", p = 0.005 },
                              { kind = "bernoulli", p = 0.01 }]
"""
RUNS = 20
GOAL = 1.8


def sweep_wall(file: Path, jobs: int, store: Path) -> float:
    """Wall time of `ccscope sweep FILE -j jobs` into the fresh store `store`."""
    start = time.perf_counter()
    subprocess.run(
        [CCSCOPE, "sweep", str(file), "--store", str(store), "-j", str(jobs)],
        check=True,
        capture_output=True,
        env=CHILD_ENV,
    )
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="best of N sweeps (default 3)")
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "bench.json")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "sweep.toml"
        file.write_text(SWEEP.replace("{DURATION_S}", str(DURATION_S)))
        walls: dict[int, list[float]] = {1: [], 2: []}
        for i in range(args.repeat):
            for jobs, times in walls.items():
                times.append(sweep_wall(file, jobs, Path(tmp) / f"j{jobs}-{i}.duckdb"))
        one, two = min(walls[1]), min(walls[2])
    speedup = one / two
    # Two workers can only be twice as fast with two cores free: the machine's load over the
    # last minutes says how far from that it was.
    load = os.getloadavg()[1]
    scenario = f"{RUNS} runs of 8 TCP flows, 10 Mb/s, {DURATION_S} s: -j 2 against -j 1"
    row = {
        "group": "sweep",
        "scenario": scenario,
        "metric": "wall-time speed-up",
        "ccscope": speedup,
        "ns2": None,
        "ratio": None,
        "ccscope_peak_rss_mb": None,
        "ns2_peak_rss_mb": None,
        "goal": f">= {GOAL}x",
        "met": speedup >= GOAL,
        "wall_1_s": one,
        "wall_2_s": two,
        "load_avg_5min": load,
        "load_avg_1min": os.getloadavg()[0],
        "cpus": os.cpu_count(),
    }
    rows = json.loads(args.out.read_text()) if args.out.exists() else []
    rows = [r for r in rows if r["group"] != "sweep"] + [row]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=1) + "\n")
    print(
        f"sweep of {RUNS} runs: {one:.2f} s on 1 worker, {two:.2f} s on 2: "
        f"{speedup:.2f}x (goal {GOAL}x; load {load:.1f} on {os.cpu_count()} CPUs) -> {args.out}"
    )


if __name__ == "__main__":
    main()
