"""Yang et al.'s Table 1 smoothness (CoV_time at 2% and 20% Bernoulli loss) in ccscope and in
ns-2.35 on the same set-up, beside the printed values (run by `make validate`).

The set-up is yang-table1's (ccscope.experiments.yang.smoothness_scenario: one flow, 2.5 Mb/s,
30 ms, DropTail 50, 10 ms access links, 1000 s after 10 s, bins of 104 ms) and
bench/ns2_yang_cov.tcl's in ns-2.35. CoV_time is the CoV of the packets sent per bin
(retransmissions included) in both. ccscope runs each protocol as the reproduction does, and
with ns-2.35's rules: TCP with bench/ns2_compare_tcp.py's NS2_RULES, Sack1's pipe counter and
integer ssthresh (NS2_TCP below) and ns-2.35's packet sizes on the wire (1040 bytes a TCP
packet, 1032 a TFRC one); TFRC as ns-2.35's code (`tfrc-ns2`) rather than the June 2000 code
Yang et al. ran (`tfrc-2000`). Means and standard deviations over seeds 1-10: at 20% loss a
run's CoV rests on a few idle stretches of up to a minute (the backed-off timer), so five
seeds do not settle it.

Fig. 6's 1% rows (yang-fig6) run on the same set-up. With --store the ns-2.35 cells, and
whether ccscope with ns-2.35's rules agrees with them (ccscope.ns2column.AGREE_MEANS), go into
the validation table's ns-2.35 column (ccscope/ns2column.json) under yang-fig6's and
yang-table1's claim keys ("cov_1/TCP", "cov_20/TFRC", ...); without ns-2.35 the store is
left as it is. With --store --restamp only ccscope's side is recomputed first: a cell whose
recomputed value is the stored one to the character is stamped with this model version
(ccscope.ns2column.restamp) without rerunning ns-2.35; any other is measured afresh, both
sides, and stored, and the script says which.

Usage: python bench/ns2_compare_yang.py [--seeds N] [--store [--restamp]]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from ccscope import metrics, ns2column
from ccscope.experiments import yang

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ns2_compare_tcp  # noqa: E402  (bench/ns2_compare_tcp.py: ns-2.35's TCP rules)

TCL = Path(__file__).resolve().parent / "ns2_yang_cov.tcl"
WARMUP_S, SECONDS = 10.0, 1000.0
#: ns-2.35's TCP rules: bench/ns2_compare_tcp.py's, and two more found on this set-up (GAIMD at
#: 2%, traced against ns-2.35 loss for loss): Sack1's pipe counter (`sack_pipe`) and its
#: integer ssthresh_ (`whole_ssthresh`).
NS2_TCP = {**ns2_compare_tcp.NS2_RULES, "sack_pipe": "counter", "whole_ssthresh": True}
GAIMD = {"name": "gaimd", "alpha": 0.31, "beta": 0.875}
#: name: (the reproduction's source, the source with ns-2.35's rules, ns-2 agent arguments,
#: Table 1's CoV_time at 2% and 20%). Fig. 6's at 1% is yang.FIG6's.
CASES = {
    "TCP": (
        {"kind": "tcp", "controller": "tcp"},
        {"kind": "tcp", "controller": "tcp", "packet_size": "1040B", **NS2_TCP},
        ["Sack1"],
        (0.58, 1.7),
    ),
    "GAIMD(0.31,0.875)": (
        {"kind": "tcp", "controller": GAIMD},
        {"kind": "tcp", "controller": GAIMD, "packet_size": "1040B", **NS2_TCP},
        ["Sack1", "0.31", "0.875"],
        (0.26, 1.7),
    ),
    "TFRC": (
        {"kind": "rate", "controller": "tfrc-2000", "jitter": 0.1},
        {"kind": "rate", "controller": "tfrc-ns2", "packet_size": "1032B"},
        ["TFRC"],
        (0.22, 2.0),
    ),
}


def cov_ccscope(source: dict, p: float, seed: int) -> float:
    return yang.cov_time(source, seed, p)[0]


def cov_ns2(agent: list[str], p: float, seed: int) -> float:
    out = subprocess.run(
        ["ns", str(TCL), str(p), str(SECONDS), str(WARMUP_S), str(yang.BIN_S), str(seed), *agent],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    sent = json.loads(out.stdout.strip().splitlines()[-1])["sent_per_bin"]
    return metrics.cov(np.array(sent, dtype=float))


def cell(values: list[float]) -> str:
    return f"{np.mean(values):.3f} ± {np.std(values, ddof=1):.3f}"


#: Loss rate: (the reproduction whose rows it is, the claim key's prefix).
CLAIMS = {
    0.01: ("yang-fig6", "cov_1"),
    0.02: ("yang-table1", "cov_2"),
    0.2: ("yang-table1", "cov_20"),
}


def span(seeds: range) -> str:
    return f"{seeds[0]}-{seeds[-1]}"


def measure(
    name: str, p: float, seeds: range, like: list[float], command: str | None
) -> list[float]:
    """ns-2.35's CoV_time of (name, p) over `seeds`; with a `command` (--store), stored as a
    cell beside ccscope's `like` runs (ns-2.35's rules)."""
    theirs = [cov_ns2(CASES[name][2], p, s) for s in seeds]
    if command:
        reproduction, prefix = CLAIMS[p]
        ns2column.store(
            reproduction,
            {
                f"{prefix}/{name}": {
                    "ns2": cell(theirs),
                    "ccscope": cell(like),
                    "agree": ns2column.agree_means(theirs, like),
                    "compared": ns2column.AGREE_MEANS,
                    "seeds": span(seeds),
                }
            },
            command,
        )
    return theirs


def restamp(seeds: range, command: str) -> None:
    """--restamp: each cell's ccscope side first; ns-2.35 only for the cells it moved."""
    stored = ns2column.load()
    for name, (_, rules, _, _) in CASES.items():
        for p, (reproduction, prefix) in CLAIMS.items():
            key = f"{prefix}/{name}"
            like = [cov_ccscope(rules, p, s) for s in seeds]
            if ns2column.restamp(reproduction, key, cell(like), span(seeds), command):
                print(f"{reproduction} {key}: {cell(like)} as stored: re-stamped", flush=True)
                continue
            was = stored.get(reproduction, {}).get(key, {}).get("ccscope")
            agree = ns2column.agree_means(measure(name, p, seeds, like, command), like)
            print(
                f"{reproduction} {key}: {cell(like)}, stored {was}: measured afresh "
                f"({'agrees' if agree else 'does not agree'} with ns-2.35)",
                flush=True,
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument(
        "--store", action="store_true", help="Write the ns-2.35 cells to ccscope/ns2column.json."
    )
    ap.add_argument(
        "--restamp",
        action="store_true",
        help="With --store: re-stamp the cells whose ccscope side recomputes to the stored "
        "text; measure the others afresh.",
    )
    args = ap.parse_args()
    seeds = range(1, args.seeds + 1)
    ns2 = shutil.which("ns") is not None
    if args.restamp and not (args.store and ns2):
        ap.error("--restamp rewrites the store's cells: give --store, with ns-2.35 installed")
    if not ns2:
        print("ns-2.35 (`ns`) is not installed (make ns2): the ns-2.35 column is left blank")
    command = " ".join(["python", "bench/ns2_compare_yang.py", *sys.argv[1:]])
    if args.restamp:
        restamp(seeds, command)
        return
    print("| protocol | p | paper | ns-2.35 | ccscope, as reproduced | ccscope, ns-2.35 rules |")
    print("|---|---|---|---|---|---|")
    for name, (source, rules, _, printed) in CASES.items():
        for p, paper in zip((0.01, 0.02, 0.2), (yang.FIG6[name][1], *printed), strict=True):
            like = [cov_ccscope(rules, p, s) for s in seeds]
            theirs = measure(name, p, seeds, like, command if args.store else None) if ns2 else []
            ours = cell([cov_ccscope(source, p, s) for s in seeds])
            shown = cell(theirs) if theirs else ""
            print(f"| {name} | {p:g} | {paper:g} | {shown} | {ours} | {cell(like)} |", flush=True)


if __name__ == "__main__":
    main()
