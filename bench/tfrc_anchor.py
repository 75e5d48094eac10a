"""TFRC against TCP on a shared gentle-RED dumbbell, in ccscope and, when installed, in
ns-2.35 (Agent/TFRC + Agent/TFRCSink, `tcp/tfrc.cc`, `tcp/tfrc-sink.cc`), side by side.

ccscope runs scenarios/tfrc-tcp-red.toml (4 TFRC-ns2 + 4 TCP SACK, 15 Mb/s, 20 ms, 300 s,
measured after 20 s); ns-2 runs bench/ns2_tfrc.tcl on the same set-up. The table gives the
TFRC/TCP throughput ratio (mean TFRC throughput over mean TCP goodput), each flow's Mb/s, the
bottleneck drop rate and its utilization. ns-2's flows are counted in packets delivered (its
TFRC and TCP packets carry 32 and 40 header bytes on the wire).

Usage: python bench/tfrc_anchor.py [--seed N]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
from pathlib import Path

import ccscope

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "tfrc-tcp-red.toml"
TCL = ROOT / "bench" / "ns2_tfrc.tcl"
N, RATE_MBPS, DELAY_MS, SECONDS, WARMUP_S = 4, 15.0, 20, 300, 20


def run_ccscope(seed: int) -> dict:
    text = SCENARIO.read_text().replace("seed = 1", f"seed = {seed}")
    r = ccscope.run(ccscope.loads(text))
    f, link = r.flows, r.bottlenecks.iloc[0]
    return {
        "sim": "ccscope",
        "tfrc": list(f.throughput_bps[:N] / 1e6),
        "tcp": list(f.goodput_bps[N:] / 1e6),
        "drop_rate": float(link.drop_rate),
        "utilization": float(link.utilization),
    }


def run_ns2(seed: int) -> dict:
    args = [N, RATE_MBPS, DELAY_MS, SECONDS, WARMUP_S, seed]
    out = subprocess.run(
        ["ns", str(TCL), *map(str, args)], capture_output=True, text=True, check=True
    ).stdout
    d = json.loads(out.strip().splitlines()[-1])
    # Packets delivered as Mb/s of 1000-byte packets: ns-2's TFRC and TCP packets carry 32 and
    # 40 header bytes on the wire, ccscope's 1000-byte packets none.
    mbps = [k * 8000 / (SECONDS - WARMUP_S) / 1e6 for k in d["packets"]]
    return {
        "sim": "ns-2.35",
        "tfrc": mbps[:N],
        "tcp": mbps[N:],
        "drop_rate": d["drops"] / d["arrivals"],
        "utilization": d["departedBytes"] * 8 / (RATE_MBPS * 1e6 * (SECONDS - WARMUP_S)),
    }


def ratio(row: dict) -> float:
    return (sum(row["tfrc"]) / len(row["tfrc"])) / (sum(row["tcp"]) / len(row["tcp"]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    seed = ap.parse_args().seed
    rows = [run_ccscope(seed)]
    if shutil.which("ns"):
        rows.append(run_ns2(seed))
    else:
        print("ns not installed: ccscope only")
    print(
        f"{'simulator':<10} {'TFRC/TCP':>8} {'drop rate':>9} {'util':>6}  "
        f"{'TFRC Mb/s':<27} TCP Mb/s"
    )
    for row in rows:
        fmt = lambda xs: " ".join(f"{x:.2f}" for x in xs)  # noqa: E731
        print(
            f"{row['sim']:<10} {ratio(row):>8.3f} {row['drop_rate']:>9.4f} "
            f"{row['utilization']:>6.3f}  {fmt(row['tfrc']):<27} {fmt(row['tcp'])}"
        )


if __name__ == "__main__":
    main()
