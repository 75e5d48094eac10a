"""TCP in ccscope and in ns-2.35 on the same scenarios, side by side (run by `make validate`).

1. A fat link with Bernoulli loss (bench/ns2_sack_loss.tcl): 4 bulk flows, 100 Mb/s, 20 ms,
   p = 0.02, 0.05 and 0.2 (where timeouts dominate); SACK (ns-2 Agent/TCP/Sack1), Reno
   (Agent/TCP/Reno) and GAIMD(0.31, 0.875) over SACK (increase_num_ 0.31, decrease_num_ 0.875).
   Per loss: retransmissions and timeouts; throughput from the packets cumulatively
   acknowledged. ns-2's losses are p times the packets it sent (every one crosses the lossy
   link); ccscope counts its own.
2. The anchor dumbbells of bench/anchors.py (8 SACK flows, 10 Mb/s, DropTail at the BDP or
   gentle RED): goodput, drop rate and Jain's index.

Each ccscope case runs twice: with ccscope's defaults, and with ns-2.35's rules where they
differ (`integer_window = false`: precisionReduce_ keeps fractional windows; `initial_window =
2`: windowInit_; `sack_lost_after = 1`: Sack1 retransmits any hole below a SACKed packet;
`recover_margin = 1`: dupack_action()'s `highest_ack_ > recover_`; `rtt_timing = "one_per_rtt"`
and `forget_rtt_above_backoff = 8`: tcp.cc's one timed packet and rtt_backoff(); `syn = true`:
the SYN exchange ns-2.35's agents start with, syn_ and delay_growth_; `after_timeout =
"go_back_n"`: Sack1's go-back-N after a timeout resends what the receiver holds, timeout_).
Numbers are means over seeds 1-3 (ns-2's seeds are its own: the columns agree within seed spread,
not packet for packet).

Usage: python bench/ns2_compare_tcp.py [--seeds N] [--markdown]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

import ccscope
from ccscope import metrics

sys.path.insert(0, str(Path(__file__).resolve().parent))
import anchors  # noqa: E402  (bench/anchors.py: the dumbbell scenario and its ns-2 run)

LOSS_TCL = Path(__file__).resolve().parent / "ns2_sack_loss.tcl"
FLOWS, SECONDS = 4, 200
LOSS_RATES = (0.02, 0.05, 0.2)
#: ns-2.35's TCP rules where ccscope's defaults differ (see the module docstring).
NS2_RULES = {
    "integer_window": False,
    "initial_window": 2,
    "sack_lost_after": 1,
    "recover_margin": 1,
    "rtt_timing": "one_per_rtt",
    "forget_rtt_above_backoff": 8,
    "syn": True,
    "after_timeout": "go_back_n",
}
#: name: (ccscope source, ns-2 agent and its extra arguments).
CASES = {
    "SACK": ({"variant": "sack"}, ["Sack1"]),
    "Reno": ({"variant": "reno"}, ["Reno"]),
    "GAIMD(0.31,0.875)": (
        {"variant": "sack", "controller": {"name": "gaimd", "alpha": 0.31, "beta": 0.875}},
        ["Sack1", "0.31", "0.875"],
    ),
}


def loss_ccscope(source: dict, p: float, seed: int) -> dict:
    f = ccscope.run(
        {
            "run": {"duration": f"{SECONDS}s", "seed": seed},
            "topology": {
                "kind": "dumbbell",
                "access": {"rate": "1Gbps", "delay": "1ms"},
                "bottleneck": {
                    "rate": "100Mbps",
                    "delay": "20ms",
                    "queue": {"kind": "droptail", "limit": "100000pkts"},
                    "loss": {"kind": "bernoulli", "p": p},
                },
            },
            "flows": [{"source": {"kind": "tcp", **source}, "count": FLOWS}],
        }
    ).flows
    return {
        "lost": f["dropped_pkts"].sum(),
        "retransmits": f["retransmits"].sum(),
        "timeouts": f["timeouts"].sum(),
        "acked": f["acked_pkts"].sum(),
    }


def loss_ns2(agent: list[str], p: float, seed: int) -> dict:
    out = subprocess.run(
        ["ns", str(LOSS_TCL), str(FLOWS), str(p), str(SECONDS), str(seed), *agent],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    j = json.loads(out.stdout.strip().splitlines()[-1])
    return {
        "lost": p * j["sent"],
        "retransmits": j["retransmits"],
        "timeouts": j["timeouts"],
        "acked": j["acked"],
    }


def loss_row(runs: list[dict]) -> tuple[float, float, float]:
    """Retransmissions and timeouts per loss, throughput (Mb/s), means over the runs."""
    rx = np.mean([r["retransmits"] / r["lost"] for r in runs])
    to = np.mean([r["timeouts"] / r["lost"] for r in runs])
    mbps = np.mean([r["acked"] * 8000 / SECONDS / 1e6 for r in runs])
    return float(rx), float(to), float(mbps)


def dumbbell_ccscope(queue: str, rules: dict, seed: int) -> dict:
    text = anchors.scenario_toml(8, 10, queue, seed)
    extra = "".join(
        f", {k} = {json.dumps(v).lower()}" for k, v in rules.items() if k != "initial_window"
    )  # the anchor scenario already starts at 2
    r = ccscope.run(ccscope.loads(text.replace("initial_window = 2", "initial_window = 2" + extra)))
    bn = r.bottlenecks.iloc[0]
    goodput = (r.flows.goodput_bps / 1e6).tolist()
    return {
        "goodput": sum(goodput),
        "drop_rate": bn.drops / bn.arrivals,
        "jain": metrics.jain_index(goodput),
    }


def dumbbell_ns2(queue: str, seed: int) -> dict:
    out = subprocess.run(
        ["ns", str(anchors.ANCHOR), "8", "10", "20", queue, str(anchors.SECONDS), str(seed)],
        capture_output=True,
        text=True,
        check=True,
        cwd=anchors.ANCHOR.parent,
    ).stdout
    d = json.loads(out.strip().splitlines()[-1])
    return {
        "goodput": d["sumGoodputMbps"],
        "drop_rate": d["drops"] / d["arrivals"],
        "jain": d["jain"],
    }


def mean(runs: list[dict], key: str) -> float:
    return float(np.mean([r[key] for r in runs]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3, help="seeds 1..N (default 3)")
    ap.add_argument(
        "--markdown", action="store_true", help="one Markdown table (docs/validation.md's)"
    )
    args = ap.parse_args()
    if shutil.which("ns") is None:
        print(
            "ns-2 not found (apt-get install -y ns2): skipping the TCP comparison against ns-2.35"
        )
        return
    seeds = range(1, args.seeds + 1)
    columns = ("ccscope", "ccscope, ns-2 rules", "ns-2.35")
    if args.markdown:
        print(
            "| case | p | ccscope: retransmits / timeouts per loss, Mb/s | ccscope, ns-2 rules "
            "| ns-2.35 |\n| --- | --- | --- | --- | --- |"
        )
    else:
        print(
            f"TCP against ns-2.35, means over seeds 1-{args.seeds}; 'ns-2 rules': "
            + ", ".join(f"{k} = {v}" for k, v in NS2_RULES.items())
        )
        print(
            f"\nfat link, {FLOWS} flows, 100 Mb/s, 20 ms, Bernoulli loss, {SECONDS} s: "
            "retransmits per loss / timeouts per loss / throughput Mb/s"
        )
        print(f"{'case':<19} {'p':>5}  " + "  ".join(f"{c:>25}" for c in columns))
    for name, (source, agent) in CASES.items():
        for p in LOSS_RATES:
            rows = [
                loss_row([loss_ccscope(source, p, s) for s in seeds]),
                loss_row([loss_ccscope({**source, **NS2_RULES}, p, s) for s in seeds]),
                loss_row([loss_ns2(agent, p, s) for s in seeds]),
            ]
            cells = [f"{rx:.3f} / {to:.4f} / {mbps:.3f}" for rx, to, mbps in rows]
            if args.markdown:
                print(f"| {name} | {p:g} | " + " | ".join(cells) + " |")
            else:
                print(f"{name:<19} {p:>5}  " + "  ".join(f"{c:>25}" for c in cells))
    if not args.markdown:
        print(
            f"\ndumbbells of bench/anchors.py, 8 SACK flows, 10 Mb/s, {anchors.SECONDS} s: "
            "goodput Mb/s / drop rate / Jain"
        )
        print(f"{'queue':<25}  " + "  ".join(f"{c:>25}" for c in columns))
    for queue in ("DropTail", "RED"):
        cols = [
            [dumbbell_ccscope(queue, {}, s) for s in seeds],
            [dumbbell_ccscope(queue, NS2_RULES, s) for s in seeds],
            [dumbbell_ns2(queue, s) for s in seeds],
        ]
        cells = [
            f"{mean(c, 'goodput'):.3f} / {mean(c, 'drop_rate'):.4f} / {mean(c, 'jain'):.4f}"
            for c in cols
        ]
        if args.markdown:
            print(
                f"| dumbbell, {queue}: goodput Mb/s / drop rate / Jain | | "
                + " | ".join(cells)
                + " |"
            )
        else:
            print(f"{queue:<25}  " + "  ".join(f"{c:>25}" for c in cells))


if __name__ == "__main__":
    main()
