"""`make bench`: what each queue kind costs per packet, against RED, and FQ-CoDel's cost at 10
and 1000 flows.

Runs the `bench_queues` example (crates/ccscope-core/examples/bench_queues.rs: two million
Poisson arrivals of 1000-byte packets offering 110% of a 100 Mb/s link, through one queue served
as a link serves it; the queue's and the link chain's work timed, not the arrivals' drawing),
best of --repeat runs, and merges rows into out/bench.json (which bench/speed.py writes first):
nanoseconds per packet for DropTail, RED, CoDel, FQ-CoDel and PIE at 10 flows, with the goal of
no more than RED's; and FQ-CoDel's at 1000 flows, with the goal of no more than its own at 10.
Wall time on a shared machine moves with its load; where valgrind is installed, each row also
counts the instructions per packet (`valgrind --tool=cachegrind --cache-sim=no
target/release/examples/bench_queues --repeat 1 --queue KIND FLOWS`: one run, the arrivals'
drawing included, the same for every kind), which do not. bench/speed_page.py shows the rows in
docs/speed.md's table (`--group queues` rewrites only these).

Usage: python bench/queue_speed.py [--repeat N] [--out out/bench.json]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
from pathlib import Path

from speed import cargo_example, record

ROOT = Path(__file__).resolve().parents[1]
FEW, MANY = 10, 1000
EXAMPLE = ROOT / "target" / "release" / "examples" / "bench_queues"


def instructions(kind: str, flows: int) -> float | None:
    """Instructions per packet offered, counted by cachegrind; None without valgrind."""
    if shutil.which("valgrind") is None:
        return None
    run = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
        + [str(EXAMPLE), "--repeat", "1", "--queue", kind, str(flows)],
        check=True,
        capture_output=True,
        text=True,
    )
    packets = json.loads(run.stdout.splitlines()[0])["packets"]
    refs = re.search(r"I\s+refs:\s+([\d,]+)", run.stderr)
    return int(refs[1].replace(",", "")) / packets


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="best of N runs (default 5)")
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "bench.json")
    args = ap.parse_args()
    runs = cargo_example("bench_queues", "--repeat", str(args.repeat), str(FEW), str(MANY))
    few = {r["queue"]: r["ns_per_packet"] for r in runs if r["flows"] == FEW}
    many = next(r["ns_per_packet"] for r in runs if r["flows"] == MANY)
    red = few["red"]
    scenario = f"{FEW} Poisson flows offering 110% of 100 Mb/s, 2 M packets"
    rows = [
        record(
            "queues",
            f"{kind}: {scenario}",
            "ns per packet",
            cost,
            goal=f"<= RED's {red:.1f}" if kind != "red" else "",
            met=cost <= red if kind != "red" else None,
            against=cost / red,
            against_what="RED's",
            instructions_per_packet=instructions(kind, FEW),
        )
        for kind, cost in few.items()
    ]
    rows.append(
        record(
            "queues",
            f"fq_codel: {MANY} Poisson flows, the same load",
            "ns per packet",
            many,
            goal=f"<= its {few['fq_codel']:.1f} at {FEW} flows",
            met=many <= few["fq_codel"],
            against=many / few["fq_codel"],
            against_what=f"its cost at {FEW} flows",
            instructions_per_packet=instructions("fq_codel", MANY),
        )
    )
    old = json.loads(args.out.read_text()) if args.out.exists() else []
    merged = [r for r in old if r["group"] != "queues"] + rows
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(merged, indent=1) + "\n")
    for r in rows:
        counted = r["instructions_per_packet"]
        counts = f", {counted:.1f} instructions" if counted else ""
        goal = r["goal"] or "reference"
        print(f"{r['scenario']}: {r['ccscope']:.1f} ns per packet{counts} ({goal})")


if __name__ == "__main__":
    main()
