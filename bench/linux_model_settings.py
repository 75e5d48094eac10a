"""What each of `LINUX_TCP`'s Linux-like settings does to ccscope's model of Linux's TCP: the
quick cases of `linux-reno`, `linux-cubic` and `linux-bbr` (ccscope.experiments.linux) in the
packet engine, seeds 1..R, under three ways of acknowledging and counting growth: an ACK per
packet (growth per ACK, which then equals growth per packet), Linux's delayed ACKs with growth
per ACK (RFC 5681 §3.1, ns-2), delayed ACKs with growth per packet acknowledged (RFC 3465 as
Linux counts), that with the packet that fills a hole acknowledged at once (RFC 5681 §4.2 as
Linux does), that with SACK recovery by Proportional Rate Reduction (RFC 6937 as Linux does),
that with the SACK scoreboard kept over a timeout (as Linux does), that with lost
retransmissions found by RACK (RFC 8985, as Linux does), and that with a recovery begun while a
packet found lost is outstanding, on the ACK that ends the last one too (RFC 6675 §5, as Linux
does), and that with RTT samples as TCP timestamps give them (RFC 7323 §4, as Linux times; what
`LINUX_TCP` sets), "kept" naming the scoreboard kept;
for CUBIC each with RFC 9438 §4.3's α (`linux_friendly = 0`)
and with Linux's (`linux_friendly = 1`, what `LINUX_TCP` sets); for BBR each with the draft's
window, with Linux's ACK-aggregation allowance (`ack_aggregation = 1`), with that and Linux's
rounding of the window's target (`quantization = 1`), and with those and Linux's comparison of
RTT samples with the minimum (`strict_min_rtt = 1`, what `LINUX_TCP` sets). Prints per
case the mean and the standard deviation over the seeds of each quantity the claims compare. No
real packets: the Linux side's numbers are `python bench/linux_spread.py`'s.

Usage: python bench/linux_model_settings.py [--runs R] [--cc reno cubic bbr] [--acking NAME ...]
"""

from __future__ import annotations

import argparse
from unittest import mock

import numpy as np

from ccscope.experiments import linux

#: The first way compared: an ACK per packet, growth per ACK, and RFC 6675's recovery.
ACK_PER_PACKET = {
    "delayed_ack": False,
    "growth": "per_ack",
    "ack_filled_hole": False,
    "prr": False,
    "after_timeout": "skip_sacked",
    "lost_retransmissions": "timeout",
    "recovery_entry": "dupacks",
    "rtt_timing": "every_ack",
}

#: Linux's ways, each added to those before it from delayed ACKs with growth per packet on.
LINUX_STEPS = [
    ("filled hole acknowledged at once", {"ack_filled_hole": True}),
    ("PRR", {"prr": True}),
    ("kept", {"after_timeout": "keep_sacked"}),
    ("RACK", {"lost_retransmissions": "rack"}),
    ("recovery while lost", {"recovery_entry": "lost"}),
    ("timestamps", {"rtt_timing": "timestamps"}),
]


def ways() -> dict[str, dict]:
    """The ways of acknowledging, growing and recovering compared, by name."""
    name = "delayed ACKs, growth per packet"
    way = ACK_PER_PACKET | {"delayed_ack": True, "growth": "per_packet"}
    out = {
        "ACK per packet": ACK_PER_PACKET,
        "delayed ACKs, growth per ACK": ACK_PER_PACKET | {"delayed_ack": True},
        name: way,
    }
    for step, change in LINUX_STEPS:
        name, way = f"{name}, {step}", way | change
        out[name] = way
    return out


ACKING = ways()

#: The controller's switches from the published rule to Linux's, by algorithm, turned on one
#: after another.
SWITCHES = {
    "cubic": ["linux_friendly"],
    "bbr": ["ack_aggregation", "quantization", "strict_min_rtt"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cc", nargs="+", default=list(linux.CONTROLLER))
    parser.add_argument("--acking", nargs="+", choices=list(ACKING), default=list(ACKING))
    args = parser.parse_args()
    cases = list(linux.QUICK)
    for cc in args.cc:
        switches = SWITCHES.get(cc, [])
        for on in range(len(switches) + 1):
            controller = (
                {"name": cc} | {s: int(k < on) for k, s in enumerate(switches)}
                if switches
                else linux.CONTROLLER[cc]
            )
            for name in args.acking:
                acking = ACKING[name]
                with (
                    mock.patch.dict(linux.LINUX_TCP, acking),
                    mock.patch.dict(linux.CONTROLLER, {cc: controller}),
                ):
                    runs = [
                        linux.measure(cases, cc, "model", linux.QUICK_RUN, seed)
                        for seed in range(1, args.runs + 1)
                    ]
                label = ", ".join([cc] + [f"{s} = {controller[s]}" for s in switches])
                for k, case in enumerate(cases):
                    cells = []
                    for metric in linux.METRICS:
                        v = np.array([run[k][metric] for run in runs])
                        cells.append(f"{metric} {v.mean():.4g} (σ {v.std(ddof=1):.2g})")
                    print(f"{label} | {name} | {case} | " + ", ".join(cells), flush=True)


if __name__ == "__main__":
    main()
