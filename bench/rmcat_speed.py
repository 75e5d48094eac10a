"""`make bench`: the whole RFC 8867 suite for one controller on the packet engine, on one core.

Runs `ccscope rmcat tfrc -j 1` into a fresh store (every case of ccscope.rmcat.CASES: their
simulated times add up to 1625 s), pinned to one CPU with taskset where it exists, best of
--repeat, and merges one record into out/bench.json (which bench/speed.py writes first): the
wall time of the whole command, start-up, runs, metrics and store included, against the goal
of under 2 minutes. bench/speed_page.py shows it in docs/speed.md's table.

Usage: python bench/rmcat_speed.py [--repeat N] [--out out/bench.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from speed import CHILD_ENV

ROOT = Path(__file__).resolve().parents[1]
CCSCOPE = str(Path(sys.executable).with_name("ccscope"))
CONTROLLER = "tfrc"
GOAL_S = 120.0


def suite_wall(store: Path) -> float:
    """Wall time of `ccscope rmcat CONTROLLER -j 1` into the fresh store `store`, on CPU 0."""
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    start = time.perf_counter()
    subprocess.run(
        [*pin, CCSCOPE, "rmcat", CONTROLLER, "-j", "1", "--store", str(store), "--json"],
        check=True,
        capture_output=True,
        env=CHILD_ENV,
    )
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="best of N suites (default 3)")
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "bench.json")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        wall = min(suite_wall(Path(tmp) / f"s{i}.duckdb") for i in range(args.repeat))
    row = {
        "group": "rmcat",
        "scenario": f"ccscope rmcat {CONTROLLER}: every RFC 8867 case, packet engine, one core",
        "metric": "wall seconds",
        "ccscope": wall,
        "ns2": None,
        "ratio": None,
        "ccscope_peak_rss_mb": None,
        "ns2_peak_rss_mb": None,
        "goal": f"< {GOAL_S:.0f} s",
        "met": wall < GOAL_S,
        "load_avg_1min": os.getloadavg()[0],
    }
    rows = json.loads(args.out.read_text()) if args.out.exists() else []
    rows = [r for r in rows if r["group"] != "rmcat"] + [row]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=1) + "\n")
    print(f"RFC 8867 suite for {CONTROLLER}: {wall:.1f} s on one core (goal < {GOAL_S:.0f} s)")


if __name__ == "__main__":
    main()
