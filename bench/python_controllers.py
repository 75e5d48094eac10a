"""`make bench`: what a controller written in Python costs, against the same controller in Rust,
in the same command.

Runs one TCP SACK flow on a 100 Mb/s, 20-ms dumbbell for 20 simulated seconds (about 250 000
ACKs) twice inside one process: with TCP's own window controller (Rust, the catalogue's `tcp`)
and with the same Reno written as a `ccscope.Controller` (`on_ack` grows the window by 1/cwnd,
or by one in slow start; `on_loss` halves it), alternating, best of --repeat each. The two runs
send the same packets (tests/test_python_controllers.py holds them to it), so the difference
in wall time is what the Python callbacks cost. Merges one record into out/bench.json (which
bench/speed.py writes first): callbacks per second of that difference, against the goal of at
least 500 000 per second on one core, and the slowdown of the whole run.

Usage: python bench/python_controllers.py [--repeat N] [--out out/bench.json]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import ccscope

ROOT = Path(__file__).resolve().parents[1]
GOAL = 500_000

SCENARIO = {
    "run": {"duration": "20s", "seed": 1},
    "topology": {
        "kind": "dumbbell",
        "bottleneck": {
            "rate": "100Mbps",
            "delay": "20ms",
            "queue": {"kind": "droptail", "limit": 550},
        },
    },
    "flows": [{"source": {"kind": "tcp", "controller": "tcp"}}],
}


class PythonReno(ccscope.Controller):
    """TCP's AIMD(1, 1/2) as ccscope's catalogued `tcp` runs it: slow start to the first
    loss, then +1/cwnd per ACK of new data outside recovery; a loss halves (whole packets,
    once per window: losses of packets sent before the last cut are the same event); a
    timeout sets ssthresh to half and the window to one packet."""

    def __init__(self):
        self.window_pkts, self.ssthresh, self.cut_at = 1.0, float("inf"), -1.0
        self.calls = 0

    def on_ack(self, ack):
        self.calls += 1
        if ack.acked_pkts == 0 or ack.in_recovery or ack.rwnd_limited:
            return
        w = self.window_pkts
        self.window_pkts = w + 1.0 if w < self.ssthresh else w + 1.0 / w

    def on_loss(self, loss):
        self.calls += 1
        w = self.window_pkts
        if loss.kind == "timeout":
            self.ssthresh, self.window_pkts = max(w // 2, 2.0), 1.0
        elif loss.sent_at_s >= self.cut_at:
            self.ssthresh = self.window_pkts = max(w // 2, 1.0)
        else:
            return
        self.cut_at = loss.now_s


def timed(table: dict, controllers: dict | None = None) -> tuple[float, ccscope.Result]:
    start = time.perf_counter()
    result = ccscope.run(table, controllers=controllers)
    return time.perf_counter() - start, result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="best of N runs each (default 5)")
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "bench.json")
    args = ap.parse_args()
    python_table = json.loads(json.dumps(SCENARIO))
    python_table["flows"][0]["source"]["controller"] = "python:reno"
    rust, python = [], []
    for _ in range(args.repeat):
        rust.append(timed(SCENARIO)[0])
        t, result = timed(python_table, {"reno": PythonReno})
        python.append(t)
    calls = result.controllers[0].calls
    extra = min(python) - min(rust)
    per_s = calls / extra if extra > 0 else float("inf")
    slowdown = min(python) / min(rust)
    row = {
        "group": "Python controller",
        "scenario": "1 TCP SACK flow, 100 Mb/s, 20 s: Reno as a ccscope.Controller against "
        "the catalogue's Rust `tcp`",
        "metric": "callbacks per second",
        "ccscope": per_s,
        "ns2": None,
        "ratio": None,
        "ccscope_peak_rss_mb": None,
        "ns2_peak_rss_mb": None,
        "goal": f">= {GOAL:,}/s",
        "met": per_s >= GOAL,
        "callbacks": calls,
        "rust_s": min(rust),
        "python_s": min(python),
        "slowdown": slowdown,
        "load_avg_1min": os.getloadavg()[0],
    }
    rows = json.loads(args.out.read_text()) if args.out.exists() else []
    rows = [r for r in rows if r["group"] != row["group"]] + [row]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=1) + "\n")
    print(
        f"Python controller: {calls} callbacks in {min(python):.3f} s against {min(rust):.3f} s "
        f"in Rust: {per_s:,.0f} callbacks/s (goal {GOAL:,}), the run {slowdown:.2f}x slower "
        f"-> {args.out}"
    )


if __name__ == "__main__":
    main()
