"""Rate-based controls against ns-2.35 itself, side by side (`make validate`).

Three set-ups, each run in ccscope and in ns-2.35 (the Debian package `ns2`) over the same
seeds, means over the seeds printed in two columns:

1. TFRC under Bernoulli loss: one `tfrc-ns2` flow over a 10 Mb/s, 50 ms link losing each packet
   with probability p (bench/ns2_tfrc_loss.tcl: Agent/TFRC + Agent/TFRCSink): Mb/s delivered.
2. TFRC + TCP on RED: scenarios/tfrc-tcp-red.toml (4 `tfrc-ns2` + 4 TCP SACK on a 15 Mb/s gentle
   RED dumbbell; bench/ns2_tfrc.tcl): mean TFRC over mean TCP packets delivered, and the
   bottleneck's drop rate.
3. RAP + TCP on RED: the same with `rap` in place of TFRC (bench/ns2_rap.tcl: Agent/RAP), run
   in ccscope with ns-2's receiver settings (`loss_after = 3`, `report_size = "44B"`, rap.cc's
   defaults) and with ccscope's defaults.

Packets are counted, not bytes: ns-2.35 adds headers to its data packets (a TCP packet of
`packetSize_` 1000 takes 1040 bytes on the wire, a TFRC packet 1032: `useHeaders_`,
`headersize_` 32; RAP none), and ccscope's packet size is the size on the wire. So set-up 1
gives ns-2's delivered packets as Mb/s of 1000-byte packets, and in set-ups 2 and 3 ccscope's
TCP and TFRC packets take ns-2's wire sizes (1040 and 1032 bytes).

With `--rap` it prints set-up 3 alone, in more detail, for each of ccscope's RAP settings
(with ccscope's default TCP, and last with all of them and the TCP flows on ns-2.35's rules):
per flow, RAP's and TCP's packets delivered per second, the bottleneck's drop rate and RAP's
back-offs per second (the times its inter-packet gap grew: ccscope's state trace, ns-2's
agent trace of `ipg_`), mean ± standard deviation over the seeds; "by the timer" counts
ccscope's back-offs on the loss timer (`timer_losses`) or, without it, its no-feedback expiries
(each backs off at most once per SRTT); ns-2 does not tell them apart.

Usage: python bench/ns2_compare_rate.py [--rap] [--seeds N] [--seconds S]
Without `ns` on the PATH it says so and prints the ccscope column only.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import ccscope

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ns2_compare_tcp  # noqa: E402  (bench/ns2_compare_tcp.py: ns-2.35's TCP rules)

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
RED = ROOT / "scenarios" / "tfrc-tcp-red.toml"
LOSS_PS = (0.01, 0.05, 0.2)
RAP_NS2 = {"name": "rap", "loss_after": 3}
WARMUP_S = 20


def ns2(script: str, *args) -> dict:
    out = subprocess.run(
        ["ns", str(BENCH / script), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=1800,
        check=True,
    ).stdout
    # The last JSON line: ns-2.35's Linux TCP prints its Tcl commands to stdout on exit.
    return json.loads(next(line for line in reversed(out.splitlines()) if line.startswith("{")))


def loss_ccscope(p: float, seconds: int, seed: int) -> float:
    r = ccscope.run(
        {
            "run": {"duration": f"{seconds}s", "warmup": f"{WARMUP_S}s", "seed": seed},
            "topology": {
                "kind": "dumbbell",
                "access": {"rate": "1Gbps", "delay": "1ms"},
                "bottleneck": {
                    "rate": "10Mbps",
                    "delay": "50ms",
                    "queue": {"kind": "droptail", "limit": "1000pkts"},
                    "loss": {"kind": "bernoulli", "p": p},
                },
            },
            "flows": [{"source": {"kind": "rate", "controller": "tfrc-ns2"}}],
        }
    )
    return float(r.flows["throughput_bps"].iloc[0]) / 1e6


def loss_ns2(p: float, seconds: int, seed: int) -> float:
    d = ns2("ns2_tfrc_loss.tcl", p, seconds, WARMUP_S, seed)
    return d["packets"] * 8000 / (seconds - WARMUP_S) / 1e6


#: ns-2.35's data packets on the wire (bytes): TCP 1000 + 40, TFRC 1000 + 32, RAP 1000.
WIRE = {"tcp": 1040, "tfrc-ns2": 1032, "rap": 1000}


def red_run(
    rate_source: dict, seconds: int, seed: int, state: bool = False, tcp: dict | None = None
) -> dict:
    """Set-up 3 (or 2) in ccscope: per-flow packets per second (the rate flows first), the
    bottleneck's drop rate and the run; `state` traces the control state; `tcp` adds settings
    to the TCP flows' source (ccscope's defaults without)."""
    name = rate_source["controller"]
    name = name if isinstance(name, str) else name["name"]
    sc = ccscope.load(RED).with_seed(seed).replace("run.duration", f"{seconds}s")
    sc = sc.replace("flows[0].source", {**rate_source, "packet_size": f"{WIRE[name]}B"})
    sc = sc.replace("flows[1].source.packet_size", f"{WIRE['tcp']}B")
    for key, value in (tcp or {}).items():
        sc = sc.replace(f"flows[1].source.{key}", value)
    if state:
        sc = sc.replace("trace", {"state": True, "flows": False, "queues": False})
    r = ccscope.run(sc)
    n = sc.table["flows"][0]["count"]
    f = r.flows
    rate = f.throughput_bps[:n] / WIRE[name] / 8
    tcp = f.goodput_bps[n:] / WIRE["tcp"] / 8
    return {
        "n": n,
        "pps": [*rate, *tcp],
        "drop_rate": float(r.bottlenecks.iloc[0].drop_rate),
        "result": r,
    }


def red_ccscope(rate_source: dict, seconds: int, seed: int) -> tuple[float, float]:
    d = red_run(rate_source, seconds, seed)
    n, pps = d["n"], d["pps"]
    return float(mean(pps[:n]) / mean(pps[n:])), d["drop_rate"]


def red_ns2(script: str, seconds: int, seed: int) -> tuple[float, float]:
    d = ns2(script, 4, 15, 20, seconds, WARMUP_S, seed)
    pkts = d["packets"]
    ratio = statistics.mean(pkts[: d["n"]]) / statistics.mean(pkts[d["n"] :])
    return ratio, d["drops"] / d["arrivals"]


#: ccscope's RAP settings in the `--rap` table: ccscope's defaults, ns-2's receiver
#: (`loss_after = 3`, 44-byte ACKs), then ns-2's timers on top, with ccscope's default TCP; and
#: last, all of RAP's ns-2 settings with the TCP flows on ns-2.35's rules too
#: (bench/ns2_compare_tcp.py's NS2_RULES): (name, RAP source, TCP settings).
RAP_NS2_BOTH = {**RAP_NS2, "rtt_timer": 1, "loss_timer": 1}
RAP_SETTINGS = [
    ("ccscope, defaults", {"kind": "rate", "controller": "rap"}, {}),
    (
        "ccscope, ns-2's receiver",
        {"kind": "rate", "controller": RAP_NS2, "report_size": "44B"},
        {},
    ),
    *(
        (
            f"ccscope, ns-2's receiver + {label}",
            {"kind": "rate", "controller": {**RAP_NS2, **timers}, "report_size": "44B"},
            {},
        )
        for label, timers in [
            ("`rtt_timer`", {"rtt_timer": 1}),
            ("`loss_timer`", {"loss_timer": 1}),
            ("both", {"rtt_timer": 1, "loss_timer": 1}),
        ]
    ),
    (
        "ccscope, ns-2's receiver + both, TCP on ns-2's rules",
        {"kind": "rate", "controller": RAP_NS2_BOTH, "report_size": "44B"},
        ns2_compare_tcp.NS2_RULES,
    ),
]


def rap_ccscope(rate_source: dict, seconds: int, seed: int, tcp: dict | None = None) -> dict:
    """One run of set-up 3: means per flow of RAP's and TCP's packets per second, the drop
    rate, RAP's back-offs per second and those on a timer; `tcp` as red_run takes it."""
    d = red_run(rate_source, seconds, seed, state=True, tcp=tcp)
    r, n = d["result"], d["n"]
    backoffs = []
    for i in range(n):
        s = r.trace.state_series(i)
        grew = s["ipg_s"].diff() > 0
        backoffs.append(int(grew[s.index >= r.warmup_s].sum()) / r.measured_s)
    timer = r.flows.get("timer_losses", r.flows["no_feedback_expiries"])[:n] / r.measured_s
    return {
        "rap": mean(d["pps"][:n]),
        "tcp": mean(d["pps"][n:]),
        "drops": d["drop_rate"],
        "backoffs": mean(backoffs),
        "timer": float(timer.mean()),
    }


def rap_ns2(seconds: int, seed: int) -> dict:
    """The same in ns-2.35 (bench/ns2_rap.tcl), back-offs from its trace of each RAP source's
    `ipg_` ("f -t TIME -s ADDR ... -v NEW -o OLD"; the first ACK of every agent but the first
    sets ipg_ = srtt_, which may grow it, before the warm-up ends)."""
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "ipg.tr"
        d = ns2("ns2_rap.tcl", 4, 15, 20, seconds, WARMUP_S, seed, trace)
        grew: dict[str, int] = {}
        for line in trace.read_text().splitlines():
            w = line.split()
            fields = dict(zip(w[1::2], w[2::2], strict=False))
            if "-o" in fields and float(fields["-t"]) >= WARMUP_S:
                up = float(fields["-v"]) > float(fields["-o"])
                grew[fields["-s"]] = grew.get(fields["-s"], 0) + up
    n, pkts, span = d["n"], d["packets"], seconds - WARMUP_S
    return {
        "rap": mean(pkts[:n]) / span,
        "tcp": mean(pkts[n:]) / span,
        "drops": d["drops"] / d["arrivals"],
        "backoffs": sum(grew.values()) / n / span,
        "timer": None,
    }


def spread(xs: list[float], digits: int) -> str:
    """Mean ± standard deviation over the seeds."""
    sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
    return f"{mean(xs):.{digits}f} ± {sd:.{digits}f}"


def rap_table(seeds: range, seconds: int, with_ns2: bool) -> None:
    """The `--rap` table, as markdown."""
    columns = [("rap", "RAP pkt/s", 1), ("tcp", "TCP pkt/s", 1), ("drops", "drop rate", 4)]
    columns += [("backoffs", "back-offs/s", 2), ("timer", "by the timer/s", 2)]
    span = f"seeds {seeds.start}-{seeds.stop - 1}, {seconds} s, measured after {WARMUP_S} s"
    print(f"{span}; per flow, mean ± sd over the seeds\n")
    print("| RAP | " + " | ".join(title for _, title, _ in columns) + " |")
    print("|---|" + "---|" * len(columns))
    runs = [
        (name, lambda s, src=src, tcp=tcp: rap_ccscope(src, seconds, s, tcp))
        for name, src, tcp in RAP_SETTINGS
    ]
    if with_ns2:
        runs.insert(0, ("ns-2.35, Agent/RAP", lambda s: rap_ns2(seconds, s)))
    for name, run in runs:
        got = [run(s) for s in seeds]
        cells = [
            spread([g[key] for g in got], digits) if got[0][key] is not None else "—"
            for key, _, digits in columns
        ]
        print(f"| {name} | " + " | ".join(cells) + " |")


def mean(xs) -> float:
    return statistics.mean(xs)


def rows(seeds: range, seconds: int, with_ns2: bool) -> list[tuple[str, str, float, float | None]]:
    """(set-up, measure, ccscope, ns-2.35 or None), means over `seeds`."""
    out = []
    for p in LOSS_PS:
        ours = mean(loss_ccscope(p, seconds, s) for s in seeds)
        theirs = mean(loss_ns2(p, seconds, s) for s in seeds) if with_ns2 else None
        out.append((f"TFRC, Bernoulli p = {p}", "Mb/s", ours, theirs))
    setups = [
        ("TFRC + TCP on RED", {"kind": "rate", "controller": "tfrc-ns2"}, "ns2_tfrc.tcl"),
        (
            "RAP + TCP on RED, ns-2 settings",
            {"kind": "rate", "controller": RAP_NS2, "report_size": "44B"},
            "ns2_rap.tcl",
        ),
        (
            "RAP + TCP on RED, ccscope defaults",
            {"kind": "rate", "controller": "rap"},
            "ns2_rap.tcl",
        ),
    ]
    for name, source, script in setups:
        ours = [red_ccscope(source, seconds, s) for s in seeds]
        theirs = [red_ns2(script, seconds, s) for s in seeds] if with_ns2 else None
        for i, measure in enumerate(("rate/TCP", "drop rate")):
            out.append(
                (
                    name,
                    measure,
                    mean(x[i] for x in ours),
                    mean(x[i] for x in theirs) if theirs else None,
                )
            )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rap", action="store_true", help="RAP + TCP on RED alone, in detail")
    ap.add_argument("--seeds", type=int, help="seeds 1..N (default 10; with --rap 5)")
    ap.add_argument("--seconds", type=int, default=300, help="simulated seconds (default 300)")
    a = ap.parse_args()
    with_ns2 = shutil.which("ns") is not None
    if not with_ns2:
        print("ns-2 is not installed (make ns2): the ns-2.35 column is skipped")
    if a.rap:
        rap_table(range(1, (a.seeds or 5) + 1), a.seconds, with_ns2)
        return
    a.seeds = a.seeds or 10
    print(f"{a.seeds} seeds, {a.seconds} s, measured after {WARMUP_S} s\n")
    print(f"| {'set-up':<36} | {'measure':<9} | {'ccscope':>8} | {'ns-2.35':>8} | {'ratio':>6} |")
    print(f"|{'-' * 38}|{'-' * 11}|{'-' * 10}|{'-' * 10}|{'-' * 8}|")
    for name, measure, ours, theirs in rows(range(1, a.seeds + 1), a.seconds, with_ns2):
        t = f"{theirs:8.4f}" if theirs is not None else f"{'-':>8}"
        q = f"{ours / theirs:6.3f}" if theirs else f"{'-':>6}"
        print(f"| {name:<36} | {measure:<9} | {ours:8.4f} | {t} | {q} |")


if __name__ == "__main__":
    main()
