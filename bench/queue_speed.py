"""`make bench`: what each queue kind costs per packet, against RED, and FQ-CoDel's cost at 10
and 1000 flows.

Runs the `bench_queues` example (crates/ccscope-core/examples/bench_queues.rs: two million
Poisson arrivals of 1000-byte packets offering 110% of a 100 Mb/s link, through one queue served
as a link serves it; the queue's and the link chain's work timed, not the arrivals' drawing),
best of --repeat runs, and merges rows into out/bench.json (which bench/speed.py writes first):
nanoseconds per packet for DropTail, RED, CoDel, FQ-CoDel and PIE at 10 flows, with the goal of
no more than RED's; and FQ-CoDel's at 1000 flows, with the goal of no more than its own at 10.
bench/speed_page.py shows them in docs/speed.md's table.

Usage: python bench/queue_speed.py [--repeat N] [--out out/bench.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from speed import cargo_example, record

ROOT = Path(__file__).resolve().parents[1]
FEW, MANY = 10, 1000


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
        )
    )
    old = json.loads(args.out.read_text()) if args.out.exists() else []
    merged = [r for r in old if r["group"] != "queues"] + rows
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(merged, indent=1) + "\n")
    for r in rows:
        print(f"{r['scenario']}: {r['ccscope']:.1f} ns per packet ({r['goal'] or 'reference'})")


if __name__ == "__main__":
    main()
