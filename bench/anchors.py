"""The anchor dumbbell in ccscope and, when installed, in ns-2: speed and fidelity side by side.

Scenario: N TCP SACK bulk flows, 1000-byte packets, a 10 or 100 Mb/s bottleneck with 20 ms
one-way delay, 1 Gb/s 1 ms access links, DropTail at the bandwidth-delay product or gentle RED,
flows starting at random in [0, 1] s, 60 s. ns-2 runs bench/ns2_dumbbell.tcl; ccscope runs the
same scenario with ns-2's TCP and RED defaults (windowInit 2, tick 10 ms, min RTO 200 ms; RED in
byte mode with 500-byte mean packets, automatic thresholds and weight, queue limit 1.5 BDP).

Timings are whole calls: ccscope.run() including building its result tables, and the ns
process including its start-up (about 0.1 s, which weighs on the short 10 Mb/s runs).

Usage: python bench/anchors.py [--repeat N] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import ccscope
from ccscope import metrics

ANCHOR = Path(__file__).resolve().parent / "ns2_dumbbell.tcl"
SECONDS = 60


def bdp_packets(rate_mbps: float) -> int:
    # bench/ns2_dumbbell.tcl: int(bw * 1e6 * rtt / 8000) with rtt = 2 (delay + 2 ms).
    return int(rate_mbps * 1e6 * 2 * (20 + 2) / 1000 / 8000)


def scenario(n: int, rate_mbps: float, queue: str, seed: int = 1) -> ccscope.Scenario:
    return ccscope.loads(scenario_toml(n, rate_mbps, queue, seed))


def scenario_toml(
    n: int, rate_mbps: float, queue: str, seed: int = 1, seconds: int = SECONDS
) -> str:
    """The scenario file: N flows on a RATE_MBPS bottleneck with a DropTail or RED queue."""
    bdp = bdp_packets(rate_mbps)
    if queue == "DropTail":
        q = f'{{ kind = "droptail", limit = "{bdp}pkts" }}'
    else:
        q = (
            f'{{ kind = "red", limit = {int(1.5 * bdp)}, mode = "bytes", '
            'mean_packet_size = "500B" }'
        )
    return f'''
[run]
duration = "{seconds}s"
seed = {seed}
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "{rate_mbps}Mbps", delay = "20ms", queue = {q} }}
access = {{ rate = "1Gbps", delay = "1ms", queue = {{ kind = "droptail", limit = "50pkts" }} }}
[topology.reverse]
rate = "{rate_mbps}Mbps"
delay = "20ms"
queue = {{ kind = "droptail", limit = "50pkts" }}
[[flows]]
source = {{ kind = "tcp", variant = "sack", initial_window = 2 }}
count = {n}
start_jitter = "1s"
'''


def run_ccscope(n: int, rate: float, queue: str, repeat: int) -> dict:
    sc = scenario(n, rate, queue)
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        r = ccscope.run(sc)
        best = min(best, time.perf_counter() - t)
    bn = r.bottlenecks.iloc[0]
    goodput = (r.flows.goodput_bps / 1e6).round(4).tolist()
    return {
        "sim": "ccscope",
        "wall_s": best,
        "departures": int(bn.departures),
        "arrivals": int(bn.arrivals),
        "drops": int(bn.drops),
        "goodput_mbps": goodput,
        "sum_goodput_mbps": sum(goodput),
        "jain": metrics.jain_index(goodput),
        "events": r.events,
    }


def run_ns2(n: int, rate: float, queue: str, repeat: int) -> dict | None:
    if shutil.which("ns") is None or not ANCHOR.exists():
        return None
    best, out = float("inf"), ""
    for _ in range(repeat):
        t = time.perf_counter()
        out = subprocess.run(
            ["ns", str(ANCHOR), str(n), str(rate), "20", queue, str(SECONDS), "1"],
            capture_output=True,
            text=True,
            check=True,
            cwd=ANCHOR.parent,
        ).stdout
        best = min(best, time.perf_counter() - t)
    d = json.loads(out.strip().splitlines()[-1])
    return {
        "sim": "ns-2.35",
        "wall_s": best,
        "departures": d["departures"],
        "arrivals": d["arrivals"],
        "drops": d["drops"],
        "goodput_mbps": d["goodputMbps"],
        "sum_goodput_mbps": d["sumGoodputMbps"],
        "jain": d["jain"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="best of N runs (default 3)")
    ap.add_argument("--json", type=Path, help="also write every row to this file")
    args = ap.parse_args()
    rows = []
    ccscope.run(scenario(1, 10, "DropTail"))  # warm-up: load the extension, first allocations
    if shutil.which("ns") is None:
        print("ns-2 not found (apt-get install -y ns2): ccscope only", file=sys.stderr)
    print(
        "speed: anchor dumbbell, TCP SACK, 60 simulated s, DropTail at the BDP "
        f"(best of {args.repeat})"
    )
    print(f"{'flows':>5} {'Mb/s':>5} {'ccscope pkts/s':>15} {'ns-2 pkts/s':>12} {'ratio':>7}")
    for rate in (10, 100):
        for n in (8, 64):
            ours = run_ccscope(n, rate, "DropTail", args.repeat)
            ns2 = run_ns2(n, rate, "DropTail", args.repeat)
            ours_pps = ours["departures"] / ours["wall_s"]
            line = f"{n:>5} {rate:>5} {ours_pps:>15.3e}"
            if ns2:
                ns2_pps = ns2["departures"] / ns2["wall_s"]
                line += f" {ns2_pps:>12.3e} {ours_pps / ns2_pps:>6.1f}x"
            print(line)
            rows.append({"flows": n, "rate_mbps": rate, "queue": "DropTail", "runs": [ours, ns2]})
    print("\nfidelity: 8 flows, 10 Mb/s (goodput Mb/s per flow, utilization, drop rate, Jain)")
    for queue in ("DropTail", "RED"):
        for res in (run_ccscope(8, 10, queue, 1), run_ns2(8, 10, queue, 1)):
            if res is None:
                continue
            util = res["departures"] * 8000 / (10e6 * SECONDS)
            print(
                f"  {queue:<8} {res['sim']:<8} goodput {res['sum_goodput_mbps']:.3f} "
                f"[{min(res['goodput_mbps']):.3f}..{max(res['goodput_mbps']):.3f}] "
                f"util {util:.4f} drops {res['drops']} "
                f"({res['drops'] / res['arrivals']:.2%}) Jain {res['jain']:.4f}"
            )
            rows.append({"flows": 8, "rate_mbps": 10, "queue": queue, "runs": [res]})
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
