"""ccscope fed ns-2.35's own losses, compared with ns-2.35 packet for packet.

The set-up is Yang et al.'s smoothness run (ccscope.experiments.yang.smoothness_scenario; in
ns-2.35 bench/ns2_yang_trace.tcl): one GAIMD(0.31, 0.875) flow (Sack1) at 2% Bernoulli loss,
ccscope with bench/ns2_compare_yang.py's ns-2.35 rules (NS2_TCP) and 1040 bytes a packet on the
wire. ns-2.35's error model draws one uniform per packet from its own stream, so which packets
it drops, counted in the order they leave the bottleneck's queue, is known once the run is over
(the Tcl script replays the stream). ccscope drops the same ones: a loss schedule whose steps
fall within those packets' serialization (ccscope applies a link's loss when a packet has been
serialized), each at the time ns-2.35's packet left the queue, plus half its serialization,
plus the drift between the two runs (sub-millisecond differences in the ACK path add up to a
few milliseconds a minute), measured from the sends that agreed in the pass before, while the
agreement grows.

Both send sequences are then compared: ns-2.35's packets as they arrive at the end of the
source's access link (its queue trace) and ccscope's there (a capture of `flow0.left`), ns-2's
SYN being packet 0 and its data packet n + 1 ccscope's n. It prints the first packet whose
number differs or whose time differs from the one before's by more than --tolerance, with the
sends around it. ccscope's `rtt_estimator = "ns2"` draws its clock's phase (ns-2's
`boot_time_`) from the run's seed, which ns-2.35 draws from its own: --seeds tries several, and
the longest agreement is the one whose phase falls where ns-2.35's did. --after-timeout
skip_sacked runs RFC 6675's go-back-N after a timeout instead of Sack1's (`after_timeout`).

With --loss-rate N it compares instead the packets sent per 104-ms bin (Yang's CoV_time bins,
from 10 s to 1000 s) over seeds 1-N, each simulator with its own Bernoulli losses, beside each
run's realized loss rate (ns-2.35: the replayed draws of the packets that crossed the
bottleneck; ccscope: the bottleneck's `losses` over its departures), and reads both at the same
loss rate, 2%, by a least-squares line through the runs' (rate, packets per bin).

Usage: python bench/ns2_compare_trace.py [--seed N] [--seconds S] [--rtt-estimator ns2]
       [--after-timeout skip_sacked] [--seeds A-B] [--tolerance MS]
       python bench/ns2_compare_trace.py --loss-rate N
"""

from __future__ import annotations

import argparse
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import ccscope
from ccscope.experiments import yang

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ns2_compare_yang  # noqa: E402  (bench/ns2_compare_yang.py: ns-2.35's TCP rules there)

TCL = Path(__file__).resolve().parent / "ns2_yang_trace.tcl"
P = 0.02
BOTTLENECK_BPS = 2.5e6
CASE = "GAIMD(0.31,0.875)"
#: Most ccscope runs for one seed: the drift is measured again after each.
PASSES = 5


def ns2_run(seed: int, seconds: float, folder: Path) -> None:
    agent = ns2_compare_yang.CASES[CASE][2]
    cmd = ["ns", str(TCL), str(P), str(seconds), str(seed), str(folder), *agent]
    subprocess.run(cmd, check=True, capture_output=True, timeout=1800)


def ns2_sends(folder: Path) -> list[tuple[float, int]]:
    """(time, packet number) of each packet at the end of the source's access link."""
    out = []
    for line in open(folder / "sends.tr"):
        f = line.split()
        if f[0] == "r" and f[4] == "tcp":
            out.append((float(f[1]), int(f[10])))
    return out


def loss_steps(folder: Path, drift) -> list[dict]:
    """A schedule step within the serialization of each packet ns-2.35's error model dropped."""
    lost = set(map(int, (folder / "lost.txt").read_text().split()))
    steps, k = [], 0
    for line in open(folder / "bottleneck.tr"):
        f = line.split()
        if f[0] != "-":
            continue
        if k in lost:
            left = float(f[1])
            at = left + int(f[5]) * 8 / BOTTLENECK_BPS / 2 + drift(left)
            steps.append({"at": f"{round(at * 1e9)}ns", "interval": "1000000s"})
        k += 1
    return steps


def capture(path: Path) -> list[tuple[float, int]]:
    """(time, packet number with ns-2's numbering) of the TCP packets of a pcap-ng file."""
    data, at, out = path.read_bytes(), 0, []
    while at < len(data):
        kind, length = struct.unpack_from("<II", data, at)
        if kind == 6:  # an enhanced packet block
            high, low, captured, size = struct.unpack_from("<IIII", data, at + 12)
            tcp = data[at + 28 + 14 + 20 : at + 28 + captured]
            seq = struct.unpack_from(">I", tcp, 4)[0]
            # A header-only packet is the SYN, ns-2's packet 0.
            number = 0 if size - 14 <= 40 else seq // 1000 + 1
            out.append(((high << 32 | low) * 1e-9, number))
        at += length
    return out


def ccscope_sends(folder: Path, seed: int, seconds: float, rules: dict, drift):
    source = {**ns2_compare_yang.CASES[CASE][1], **rules}
    sc = yang.smoothness_scenario(source, seed, P)
    sc["run"] = {"duration": f"{seconds}s", "seed": seed}
    sc["topology"]["bottleneck"]["loss"] = {"kind": "schedule", "steps": loss_steps(folder, drift)}
    sc["trace"] = {"interval": "1s", "pcap": "flow0.left"}
    r = ccscope.run(sc)
    return capture(Path(r.pcap["flow0.left"]))


def first_difference(ns2: list, ours: list, tolerance: float) -> int:
    """The index of the first send that differs in number, or in time by more than
    `tolerance` from the offset of the send before it."""
    offset = 0.0
    for i, ((t2, n2), (t, n)) in enumerate(zip(ns2, ours, strict=False)):
        if n != n2 or abs(t - t2 - offset) > tolerance:
            return i
        offset = t - t2
    return min(len(ns2), len(ours))


def compare(folder: Path, ns2: list, seed: int, seconds: float, rules: dict, tolerance: float):
    """ccscope's sends and where they first differ from ns-2.35's, the drift measured again
    from each pass while the agreement grows."""
    best, drift = (None, -1), lambda t: 0.0
    for _ in range(PASSES):
        ours = ccscope_sends(folder, seed, seconds, rules, drift)
        i = first_difference(ns2, ours, tolerance)
        if i <= best[1]:
            break
        best = (ours, i)
        times = np.array([t for t, _ in ns2[:i]])
        offsets = np.array([t - t2 for (t2, _), (t, _) in zip(ns2[:i], ours[:i], strict=True)])
        drift = lambda t, x=times, y=offsets: float(np.interp(t, x, y))  # noqa: E731
    return best


def per_bin_and_loss_ns2(seed: int) -> tuple[float, float]:
    """ns-2.35's packets per bin and realized loss rate over one 1000-s run."""
    with tempfile.TemporaryDirectory(prefix="ccscope-trace-") as tmp:
        folder = Path(tmp)
        ns2_run(seed, ns2_compare_yang.SECONDS, folder)
        sends = [t for t, _ in ns2_sends(folder)]
        crossed = sum(1 for line in open(folder / "bottleneck.tr") if line.startswith("-"))
        lost = sum(1 for i in map(int, (folder / "lost.txt").read_text().split()) if i < crossed)
    edges = np.arange(ns2_compare_yang.WARMUP_S, ns2_compare_yang.SECONDS + 1e-9, yang.BIN_S)
    return float(np.histogram(sends, edges)[0].mean()), lost / crossed


def per_bin_and_loss_ccscope(seed: int) -> tuple[float, float]:
    """ccscope's packets per bin and realized loss rate over one 1000-s run."""
    r = ccscope.run(yang.smoothness_scenario(ns2_compare_yang.CASES[CASE][1], seed, P))
    sent = r.trace.flows
    bottleneck = r.links.iloc[0]
    per_bin = sent[sent.time_s >= ns2_compare_yang.WARMUP_S].sent_pkts.mean()
    return float(per_bin), bottleneck.losses / bottleneck.departures


def loss_rate(seeds: range) -> None:
    print(
        f"GAIMD(0.31,0.875) at {P:g}, seeds {seeds[0]}-{seeds[-1]}: packets per bin (s.e.), "
        f"realized loss rate, packets per bin at {P:.3%} on the line (± the residuals' sd / √n)"
    )
    for name, run in (("ns-2.35", per_bin_and_loss_ns2), ("ccscope", per_bin_and_loss_ccscope)):
        per_bin, rate = np.array([run(seed) for seed in seeds]).T
        slope, at = np.polyfit(rate - P, per_bin, 1)
        residual = per_bin - (at + slope * (rate - P))
        n = len(seeds)
        print(
            f"{name:8} {per_bin.mean():.3f} ± {per_bin.std(ddof=1) / np.sqrt(n):.3f}  "
            f"{rate.mean():.4%}  {at:.3f} ± {np.sqrt(residual.var(ddof=2) / n):.3f}",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1, help="ns-2.35's seed (default 1)")
    ap.add_argument("--seconds", type=float, default=200.0)
    ap.add_argument("--rtt-estimator", choices=["rfc6298", "ns2"], default="rfc6298")
    ap.add_argument("--after-timeout", choices=["go_back_n", "skip_sacked"], default="go_back_n")
    ap.add_argument("--seeds", default="1-1", help="ccscope's seeds to try, e.g. 1-20")
    ap.add_argument("--tolerance", type=float, default=1.5, help="ms (default 1.5)")
    ap.add_argument("--loss-rate", type=int, metavar="N", help="packets per bin, seeds 1-N")
    args = ap.parse_args()
    if args.loss_rate is not None and args.loss_rate < 3:
        ap.error(f"--loss-rate {args.loss_rate}: a line through the runs needs at least 3 seeds")
    if shutil.which("ns") is None:
        print("ns-2.35 (`ns`) is not installed (make ns2): nothing to compare")
        return
    if args.loss_rate:
        loss_rate(range(1, args.loss_rate + 1))
        return
    low, high = map(int, args.seeds.split("-"))
    rules = {"rtt_estimator": args.rtt_estimator, "after_timeout": args.after_timeout}
    with tempfile.TemporaryDirectory(prefix="ccscope-trace-") as tmp:
        folder = Path(tmp)
        ns2_run(args.seed, args.seconds, folder)
        ns2 = ns2_sends(folder)
        best = None
        for seed in range(low, high + 1):
            ours, i = compare(folder, ns2, seed, args.seconds, rules, args.tolerance / 1e3)
            print(f"ccscope seed {seed}: the first {i} of {len(ns2)} sends agree", flush=True)
            if best is None or i > best[1]:
                best = (seed, i, ours)
    seed, i, ours = best
    print(f"\nseed {seed}, send #{i}: time and packet number, ns-2.35 | ccscope")
    for j in range(max(0, i - 8), min(i + 6, len(ns2), len(ours))):
        mark = " <" if j == i else ""
        print(
            f"{j:7d}  {ns2[j][0]:11.6f} {ns2[j][1]:6d} | {ours[j][0]:11.6f} {ours[j][1]:6d}{mark}"
        )


if __name__ == "__main__":
    main()
