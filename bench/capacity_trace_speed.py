"""`make bench`: what a link capacity trace of 10 000 steps costs the packet engine, against the
same run with a constant link, in the same command.

Table traces (written here, not kept) change a 100 Mb/s bottleneck's capacity every 20 ms for
200 s: 10 000 steps, either drawn uniformly between 50 and 150 Mb/s (seed 1; mean 100 Mb/s) or
all of 100 Mb/s (flat: the capacity of the constant link, so the run is the constant one's
packet for packet and only the trace's own cost differs). Runs of 200 s cross them: one CBR
flow of 20 Mb/s (the link idle most of the time: what a step costs while no packet is there
to see it) and four TCP flows (the link busy). Each is timed against the same scenario on a
constant 100 Mb/s link, in turns, best of --repeat CPU times each; the rows give the traced
run's time over the constant one's (goal: at most 1.1; the traced run's time includes reading
the file) and the events of both (equal: a step takes no event). Under the varying trace TCP
flows behave differently (other losses, other events), so that row has no goal: it shows
what a real trace's run costs. Rows merge into
out/bench.json (which bench/speed.py writes first); bench/speed_page.py shows them.

Usage: python bench/capacity_trace_speed.py [--repeat N] [--out out/bench.json]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from speed import record

import ccscope

ROOT = Path(__file__).resolve().parents[1]
STEPS = 10_000


def step_table(path: Path, flat: bool) -> None:
    """10 000 rows, one every 20 ms, rates drawn uniformly in [50, 150] Mb/s (seed 1), or
    all 100 Mb/s when `flat`."""
    rng = random.Random(1)
    rate = (lambda: 100.0) if flat else (lambda: rng.uniform(50, 150))
    rows = [f"{k * 0.02:g}s {rate():.3f}Mbps" for k in range(STEPS)]
    path.write_text("\n".join(rows) + "\n")


def scenario(flows: list[dict], trace: Path | None) -> ccscope.Scenario:
    queue = {"kind": "droptail", "limit": "500pkts"}
    bottleneck = {"rate": "100Mbps", "delay": "20ms", "queue": queue}
    if trace is not None:
        bottleneck["capacity_trace"] = {"file": str(trace), "format": "table"}
    return ccscope.Scenario.from_dict(
        {
            "run": {"duration": "200s", "seed": 1},
            "topology": {"kind": "dumbbell", "bottleneck": bottleneck},
            "flows": flows,
        }
    )


def timed(sc: ccscope.Scenario) -> tuple[float, int]:
    t0 = time.process_time()
    r = ccscope.run(sc, force=True)
    return time.process_time() - t0, r.raw["events"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="best of N runs (default 5)")
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "bench.json")
    args = ap.parse_args()
    cbr = [{"source": {"kind": "cbr", "rate": "20Mbps", "packet_size": "1000B"}}]
    tcp = [{"source": {"kind": "tcp"}, "count": 4}]
    cases = {
        "varying, 1 CBR flow of 20 Mb/s (link idle 80%)": (cbr, False, True),
        "flat, 4 TCP flows (link busy)": (tcp, True, True),
        "varying, 4 TCP flows (link busy)": (tcp, False, False),
    }
    rows = []
    with tempfile.TemporaryDirectory(prefix="ccscope-bench-") as tmp:
        for name, (flows, flat, judged) in cases.items():
            trace = Path(tmp) / f"steps-{flat}.txt"
            step_table(trace, flat)
            pair = {"constant": scenario(flows, None), "traced": scenario(flows, trace)}
            best = {k: float("inf") for k in pair}
            events = {}
            for _ in range(args.repeat):
                for k, sc in pair.items():
                    cpu, events[k] = timed(sc)
                    best[k] = min(best[k], cpu)
            ratio = best["traced"] / best["constant"]
            rows.append(
                record(
                    "capacity trace",
                    f"{STEPS} capacity steps in 200 s on a 100 Mb/s link, {name}",
                    "time traced / constant",
                    ratio,
                    higher_is_better=False,
                    goal="<= 1.1" if judged else "",
                    met=ratio <= 1.1 if judged else None,
                    traced_s=best["traced"],
                    constant_s=best["constant"],
                    traced_events=events["traced"],
                    constant_events=events["constant"],
                )
            )
    old = json.loads(args.out.read_text()) if args.out.exists() else []
    merged = [r for r in old if r["group"] != "capacity trace"] + rows
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(merged, indent=1) + "\n")
    for r in rows:
        print(
            f"{r['scenario']}: {r['ccscope']:.3f} ({r['traced_s']:.3f} s against "
            f"{r['constant_s']:.3f} s; events {r['traced_events']} against "
            f"{r['constant_events']}; load {r['load_avg_1min']:.2f})"
        )


if __name__ == "__main__":
    main()
