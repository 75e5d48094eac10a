"""Yang et al.'s Table 1 smoothness (CoV_time at 2% and 20% Bernoulli loss) and aggressiveness
in ccscope and in ns-2.35 on the same set-up, beside the printed values (run by
`make validate`).

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

Fig. 6's 1% rows (yang-fig6) run on the same set-up, and so do Table 1's aggressiveness I (§5.2's
step from 10% loss to none; yang.aggressiveness_scenario) through bench/ns2_yang_step.tcl, and its
responsiveness D (§4.1's one loss per RTT; yang.responsiveness_scenario) through
bench/ns2_yang_resp.tcl. Nothing in D's runs draws at random (the losses fall on a time grid), so
run N starts the flow at (N - 1) * D_START_STEP_S in both simulators and in all three columns: the
runs differ in the phase of the flow's packets against the grid. With
--store the ns-2.35 cells, and whether ccscope with ns-2.35's rules agrees with them
(ccscope.ns2column.AGREE_MEANS), go into the validation table's ns-2.35 column
(ccscope/ns2column.json) under yang-fig6's and yang-table1's claim keys ("cov_1/TCP",
"cov_20/TFRC", "I/TFRC", "D/TFRC", ...); without ns-2.35 the store is left as it is. With --store
--restamp only ccscope's side is recomputed first: a cell whose recomputed value is the stored one
to the character is stamped with this model version (ccscope.ns2column.restamp) without rerunning
ns-2.35; any other is measured afresh, both sides, and stored, and the script says which.

Usage: python bench/ns2_compare_yang.py [--seeds N] [--store [--restamp]]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from functools import partial
from pathlib import Path

import numpy as np

from ccscope import metrics, ns2column
from ccscope.experiments import yang

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ns2_compare_tcp  # noqa: E402  (bench/ns2_compare_tcp.py: ns-2.35's TCP rules)

TCL = Path(__file__).resolve().parent / "ns2_yang_cov.tcl"
STEP_TCL = Path(__file__).resolve().parent / "ns2_yang_step.tcl"
RESP_TCL = Path(__file__).resolve().parent / "ns2_yang_resp.tcl"
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


def cov_ccscope(p: float, source: dict, seed: int) -> float:
    return yang.cov_time(source, seed, p)[0]


def sent_per_bin(tcl: Path, args: list[str]) -> np.ndarray:
    """The packets sent per bin that an ns-2.35 script of this set-up prints, run with `args`."""
    out = subprocess.run(
        ["ns", str(tcl), *args], capture_output=True, text=True, timeout=600, check=True
    )
    return np.array(json.loads(out.stdout.strip().splitlines()[-1])["sent_per_bin"], float)


def cov_ns2(agent: list[str], p: float, seed: int) -> float:
    args = [str(p), str(SECONDS), str(WARMUP_S), str(yang.BIN_S), str(seed), *agent]
    return metrics.cov(sent_per_bin(TCL, args))


#: bench/ns2_yang_step.tcl's arguments before the seed: yang.aggressiveness_scenario's step.
STEP = [yang.STEP_FROM, yang.STEP_TO, yang.STEP_S, yang.STEP_S + (yang.STEP_RTTS + 2) * yang.BIN_S]


def aggressiveness_ns2(agent: list[str], seed: int) -> float:
    args = [*(f"{a:g}" for a in [*STEP, yang.BIN_S]), str(seed), *agent]
    return yang.aggressiveness_of(sent_per_bin(STEP_TCL, args))


#: bench/ns2_yang_resp.tcl's arguments before the seed: yang.responsiveness_scenario's grids.
RESP = [
    yang.D_LIGHT_S,
    yang.D_LIGHT_RTTS * yang.BIN_S,
    yang.D_STEP_S,
    yang.BIN_S,
    yang.D_STEP_S + yang.D_RTTS * yang.BIN_S,
    yang.BIN_S,
]

#: D's run N starts its flow (N - 1) times this late (s).
D_START_STEP_S = 0.1


def d_start(seed: int) -> float:
    return (seed - 1) * D_START_STEP_S


def responsiveness_ccscope(source: dict, seed: int) -> float:
    return yang.responsiveness(source, seed, d_start(seed))


def responsiveness_ns2(agent: list[str], seed: int) -> float:
    args = [*(f"{a:g}" for a in RESP), str(seed), f"{d_start(seed):g}", *agent]
    return yang.responsiveness_of(sent_per_bin(RESP_TCL, args))


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


def cells():
    """Every stored cell: (reproduction, claim key, protocol, ccscope's value of a (source,
    seed), ns-2.35's value of a seed)."""
    for name, (_, _, agent, _) in CASES.items():
        for p, (reproduction, prefix) in CLAIMS.items():
            value = partial(cov_ccscope, p)
            yield reproduction, f"{prefix}/{name}", name, value, partial(cov_ns2, agent, p)
        theirs = partial(aggressiveness_ns2, agent)
        yield "yang-table1", f"I/{name}", name, yang.aggressiveness, theirs
        theirs = partial(responsiveness_ns2, agent)
        yield "yang-table1", f"D/{name}", name, responsiveness_ccscope, theirs


def measure(
    reproduction: str, key: str, theirs, seeds: range, like: list[float], command: str | None
) -> list[float]:
    """ns-2.35's values of a cell over `seeds`; with a `command` (--store), stored as a cell
    beside ccscope's `like` runs (ns-2.35's rules)."""
    values = [theirs(s) for s in seeds]
    if command:
        ns2column.store(
            reproduction,
            {
                key: {
                    "ns2": cell(values),
                    "ccscope": cell(like),
                    "agree": ns2column.agree_means(values, like),
                    "compared": ns2column.AGREE_MEANS,
                    "seeds": span(seeds),
                }
            },
            command,
        )
    return values


def restamp(seeds: range, command: str) -> None:
    """--restamp: each cell's ccscope side first; ns-2.35 only for the cells it moved."""
    stored = ns2column.load()
    for reproduction, key, name, value, theirs in cells():
        like = [value(CASES[name][1], s) for s in seeds]
        if ns2column.restamp(reproduction, key, cell(like), span(seeds), command):
            print(f"{reproduction} {key}: {cell(like)} as stored: re-stamped", flush=True)
            continue
        was = stored.get(reproduction, {}).get(key, {}).get("ccscope")
        theirs_now = measure(reproduction, key, theirs, seeds, like, command)
        agree = ns2column.agree_means(theirs_now, like)
        print(
            f"{reproduction} {key}: {cell(like)}, stored {was}: measured afresh "
            f"({'agrees' if agree else 'does not agree'} with ns-2.35)",
            flush=True,
        )


#: A cell's claim, as the table names it.
SHOWN = {
    "cov_1": "CoV_time, 1%",
    "cov_2": "CoV_time, 2%",
    "cov_20": "CoV_time, 20%",
    "I": "I",
    "D": "D",
}


def published(key: str, name: str) -> str:
    """The paper's value of a cell: Fig. 6's or Table 1's."""
    metric = key.split("/")[0]
    if metric == "cov_1":
        return f"{yang.FIG6[name][1]:g}"
    if metric == "D":
        lo, hi = yang.TABLE1_D[name]
        return f"{lo}" if lo == hi else f"{lo}–{hi}"
    return f"{yang.TABLE1[name][metric]:g}"


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
    print("| protocol | claim | paper | ns-2.35 | ccscope, reproduced | ccscope, ns-2.35 rules |")
    print("|---|---|---|---|---|---|")
    stored = command if args.store else None
    for reproduction, key, name, value, theirs in cells():
        source, rules = CASES[name][:2]
        like = [value(rules, s) for s in seeds]
        mine = [value(source, s) for s in seeds]
        shown = cell(measure(reproduction, key, theirs, seeds, like, stored)) if ns2 else ""
        print(
            f"| {name} | {SHOWN[key.split('/')[0]]} | {published(key, name)} | {shown} "
            f"| {cell(mine)} "
            f"| {cell(like)} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
