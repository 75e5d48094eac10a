"""What each of `LINUX_TCP`'s Linux-like settings does to ccscope's model of Linux's TCP: the
quick cases of `linux-reno`, `linux-cubic` and `linux-bbr` (ccscope.experiments.linux) in the
packet engine, seeds 1..R, under three ways of acknowledging and counting growth: an ACK per
packet (growth per ACK, which then equals growth per packet), Linux's delayed ACKs with growth
per ACK (RFC 5681 §3.1, ns-2), delayed ACKs with growth per packet acknowledged (RFC 3465 as
Linux counts), that with the packet that fills a hole acknowledged at once (RFC 5681 §4.2 as
Linux does), that with SACK recovery by Proportional Rate Reduction (RFC 6937 as Linux does),
that with the SACK scoreboard kept over a timeout (as Linux does), and that with lost
retransmissions found by RACK (RFC 8985, as Linux does; what `LINUX_TCP` sets), "kept" naming
the scoreboard kept;
for CUBIC each with RFC 9438 §4.3's α (`linux_friendly = 0`)
and with Linux's (`linux_friendly = 1`, what `LINUX_TCP` sets); for BBR each without and with
Linux's ACK-aggregation allowance (`ack_aggregation = 0` / 1, what `LINUX_TCP` sets). Prints per
case the mean and the standard deviation over the seeds of each quantity the claims compare. No
real packets: the Linux side's numbers are `python bench/linux_spread.py`'s.

Usage: python bench/linux_model_settings.py [--runs R] [--cc reno cubic bbr] [--acking NAME ...]
"""

from __future__ import annotations

import argparse
from unittest import mock

import numpy as np

from ccscope.experiments import linux

#: The ways of acknowledging and counting growth compared, by name.
ACKING = {
    "ACK per packet": {
        "delayed_ack": False,
        "growth": "per_ack",
        "ack_filled_hole": False,
        "prr": False,
        "after_timeout": "skip_sacked",
        "lost_retransmissions": "timeout",
    },
    "delayed ACKs, growth per ACK": {
        "delayed_ack": True,
        "growth": "per_ack",
        "ack_filled_hole": False,
        "prr": False,
        "after_timeout": "skip_sacked",
        "lost_retransmissions": "timeout",
    },
    "delayed ACKs, growth per packet": {
        "delayed_ack": True,
        "growth": "per_packet",
        "ack_filled_hole": False,
        "prr": False,
        "after_timeout": "skip_sacked",
        "lost_retransmissions": "timeout",
    },
    "delayed ACKs, growth per packet, filled hole acknowledged at once": {
        "delayed_ack": True,
        "growth": "per_packet",
        "ack_filled_hole": True,
        "prr": False,
        "after_timeout": "skip_sacked",
        "lost_retransmissions": "timeout",
    },
    "delayed ACKs, growth per packet, filled hole acknowledged at once, PRR": {
        "delayed_ack": True,
        "growth": "per_packet",
        "ack_filled_hole": True,
        "prr": True,
        "after_timeout": "skip_sacked",
        "lost_retransmissions": "timeout",
    },
    "delayed ACKs, growth per packet, filled hole acknowledged at once, PRR, kept": {
        "delayed_ack": True,
        "growth": "per_packet",
        "ack_filled_hole": True,
        "prr": True,
        "after_timeout": "keep_sacked",
        "lost_retransmissions": "timeout",
    },
    "delayed ACKs, growth per packet, filled hole acknowledged at once, PRR, kept, RACK": {
        "delayed_ack": True,
        "growth": "per_packet",
        "ack_filled_hole": True,
        "prr": True,
        "after_timeout": "keep_sacked",
        "lost_retransmissions": "rack",
    },
}

#: The controller's switch between the published rule and Linux's, by algorithm.
SWITCH = {"cubic": "linux_friendly", "bbr": "ack_aggregation"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cc", nargs="+", default=list(linux.CONTROLLER))
    parser.add_argument("--acking", nargs="+", choices=list(ACKING), default=list(ACKING))
    args = parser.parse_args()
    cases = list(linux.QUICK)
    for cc in args.cc:
        switch = SWITCH.get(cc)
        for alpha in (0, 1) if switch else (None,):
            controller = linux.CONTROLLER[cc]
            if alpha is not None:
                controller = {"name": cc, switch: alpha}
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
                label = cc if alpha is None else f"{cc}, {switch} = {alpha}"
                for k, case in enumerate(cases):
                    cells = []
                    for metric in linux.METRICS:
                        v = np.array([run[k][metric] for run in runs])
                        cells.append(f"{metric} {v.mean():.4g} (σ {v.std(ddof=1):.2g})")
                    print(f"{label} | {name} | {case} | " + ", ".join(cells), flush=True)


if __name__ == "__main__":
    main()
