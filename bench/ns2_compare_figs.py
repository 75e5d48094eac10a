"""Eleven reproductions in ns-2.35 and in ccscope on the same set-up, beside the paper (run by
`make validate`): Yang et al.'s short-term fairness F (Table 1, Figs. 10 and 13), Jin et al.'s
Fig. 20 (Table 6's simulated T2 and T1) and Table 5, Cai et al.'s Figs. 16, 10, 17 and 8-9,
Yang et al.'s ON/OFF loss (§3.3) and queue refill (Fig. 29), RFC 9438's CUBIC and Vegas's
equilibrium.

Each ccscope case runs twice: as the reproduction runs it, and with ns-2.35's rules
(bench/ns2_compare_tcp.py's NS2_RULES, for ns-2.35's Sack1 with its counted pipe and int
ssthresh as bench/ns2_compare_yang.py runs it; ns-2.35's packet sizes on the wire: 40 bytes of
header on every TCP payload, 1032-byte TFRC packets; TFRC as ns-2.35's code, `tfrc-ns2`, rather than
the June 2000 code Yang et al. ran; a DropTail limit one packet lower, as ns-2.35's
drop-tail.cc admits a packet only while `length + 1 < limit_`). ns-2's seeds are its own: the
columns can agree within their spread over seeds, not run for run. The ns-2.35 cell is blank,
with why, where ns-2.35 has no agent for the control (TEAR, SIMD).

- yang-f (bench/ns2_yang_fairness.tcl): 8 flows of one protocol on the §2.2 dumbbell without a
  loss module, 1000 s; F = Jain's index of their per-RTT sending rates averaged over the run,
  the RTT being the flows' (ns-2: propagation, serialization and the bottleneck's mean queue),
  as ccscope.experiments.yang.fairness_of. Mean ± standard deviation over seeds.
- yang-onoff (bench/ns2_yang_onoff.tcl, then bench/ns2_yang_cov.tcl): each protocol's
  CoV_time beside five Pareto ON/OFF sources, then alone under Bernoulli loss at the loss rate
  it saw there (its drops at the bottleneck over its arrivals), as yang.onoff; mean ± sd over
  seeds, and in how many the ON/OFF one is higher; ccscope with ns-2.35's rules only.
- yang-fig29 (bench/ns2_yang_fig29.tcl): yang-fig27-29's RTTs for the eight remaining flows
  of a protocol to refill the queue after the other eight stop, as yang.fig29_refill; over
  seeds 1-10 (--seeds 10); ccscope with ns-2.35's rules only.
- jin-fig20 (bench/ns2_jin_fig20.tcl): the assumed parking lot of
  ccscope.experiments.jin.fig20_scenario; T2 (Exp. 1) and T1 (Exp. 2) by jin.fig20_times, in
  RTTs (ccscope: the senders' srtt; ns-2: the RTT a packet sees, propagation and queues,
  since ns-2's srtt_ counts ticks of 0.1 s); and the pair's windows (W1, W2) over 300-400 s,
  which set where the convergence starts. Median and range over seeds (first-passage times
  have long tails), seeds 1-12 (--seeds 12): with 5 seeds the rule (each median inside the
  other's range) calls two samples of one distribution different 29% of the time, with 12
  1.4% (20 000 pairs of normal samples).
- jin-table5 (bench/ns2_jin_table5.tcl): one flow beside the CBR square wave of
  scenarios/jin-table5-square-wave.toml, Newreno with Table 5's increase and decrease (IIAD
  as ns-2's binomial (k, l) = (1, 0)); 1/aggressiveness (RTTs) from its window every 100 ms,
  as jin.table5_measure, over 1230 s; mean ± sd over seeds 1-10 (--seeds 10). SIMD and
  AIAD(2/3) have no ns-2.35 agent (their increase depends on the window at the last
  decrease).
- cai-fig16 (bench/ns2_cai_fig16.tcl): the media flow's goodput (its packets acknowledged, in
  bits on the wire per second; the claim's throughput counts duplicates too, a few percent
  here) with DTAIMD(0.2,0.875) and with TCP, n mice read as the
  reproduction reads them (60 n arrivals over the 300 s); mean over seeds, and in how many
  seeds DTAIMD is at or above TCP (the paper's claim).
- cai-fig16-start: the same at 1, 5 and 10 mice, each simulator starting a connection both
  ways: with a 40-byte SYN exchange first, then windowInit_ packets (ns-2.35's syn_ and
  delay_growth_ true, its defaults; ccscope's `syn = true`, part of ns-2.35's rules), and with
  windowInit_ packets of data at once (ns-2.35 with both false; ccscope without `syn`): how
  much of the gap between the two simulators the start makes.
- cai-fig10 (bench/ns2_cai_fig10.tcl): Fig. 10's one GAIMD flow, at each (α, β) pair the
  bottleneck's utilization over [5, 30] s at buffers of 2, 5, 10 and 20 packets, beside (24);
  nothing in either simulator is random, so one run each, judged by FIG10_AGREE (the phase
  of a periodic sawtooth within the window) rather than a spread over seeds.
- cai-fig17 (bench/ns2_cai_fig17.tcl): the class-2/class-1 ratio of mean goodputs, TCP
  against DTAIMD(α₂, 0.875) with α₂ from (40) for k = 2, 3, 4 at 12 to 96 flows, as
  cai.fig17_ratio (which takes throughput, duplicates included); mean ± sd over seeds.
- cai-fig8-9 (bench/ns2_cai_fig8.tcl): n TCP and n TAIMD or DTAIMD flows on the 15 Mb/s RED
  link of cai.fig8_scenario, at the n whose windows are below 1/(1 - β): the other class's
  goodput over all flows' mean (Fig. 8) and Jain's index of all flows (Fig. 9), each of
  TAIMD and DTAIMD as mean ± sd over seeds. ns-2.35's TAIMD and DTAIMD: Sack1 with
  bench/ns2_cai_common.tcl.
- cubic (bench/ns2_cubic.tcl): cubic-rfc9438's Bernoulli rows, one Agent/TCP/Linux flow with
  ns-2.35's CUBIC module (Linux 2.6.22's tcp_cubic.c), against ccscope's `cubic-2.6.22` (that
  module in its integers) on TCP/Linux's transport rules (NS2_LINUX_TCP): the mean window
  (packets sent per round trip without a queue, over the second half of 3000 s) at each loss
  rate; over seeds 1-10 (--seeds 10); ccscope with ns-2.35's rules only.
- vegas (bench/ns2_vegas.tcl): vegas-equilibrium's packet-level rows, Agent/TCP/Vegas with
  v_alpha_ 2, v_beta_ 4 (tcp-vegas.cc), and Agent/TCP/Reno in the two-RTT row: each n's mean
  queue per flow (the cell: least and most of them), the largest throughput ratio over n, the
  20-ms flow's throughput over the 100-ms flow's; over seeds 1-10 (--seeds 10); ccscope with
  ns-2.35's rules only.

With --store (full runs only) the ns-2.35 cells, and whether ccscope with ns-2.35's rules
agrees with them (ccscope.ns2column.AGREE_MEANS, AGREE_MEDIANS), go into the validation table's
ns-2.35 column (ccscope/ns2column.json) under the claims' keys: yang-table1's "F/TCP", ...;
yang-onoff's and yang-fig27-29's "TCP", ...; jin-fig20's "exp1/T2/AIMD", "exp2/T1/AIMD", ...;
cai-fig16's "mice/0" ... "mice/10"; cai-fig10's "AIMD(0.2,0.875)", ...; jin-table5's "TCP",
"AIMD(1/10,1/16)", "IIAD(1,2/3)"; cai-fig17's "k2/n12", ...; cai-fig8-9's "n16/throughput",
"n16/jain", ...; cubic-rfc9438's
"bernoulli/P"; vegas-equilibrium's "queue", "spread", "rtt/Vegas", "rtt/Reno". Without
ns-2.35 the store is left as it is. With --store --restamp ccscope's side of each cell is
computed first: a cell whose value is the stored one to the character is stamped with this
model version (ccscope.ns2column.restamp) and ns-2.35 is not rerun for it; any other is
measured afresh, both sides, and stored, as with --store alone.

Usage: python bench/ns2_compare_figs.py
{yang-f,yang-onoff,yang-fig29,jin-fig20,jin-table5,cai-fig16,cai-fig16-start,cai-fig10,
cai-fig17,cai-fig8-9,cubic,vegas}
[--seeds N] [--quick] [--mice N,N,...] [--only KEY,...] [--store [--restamp]]
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from ccscope import engine, metrics, ns2column, theory
from ccscope.experiments import cai, cubic, jin, vegas, yang
from ccscope.scenario import Scenario, load, shipped

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ns2_compare_tcp  # noqa: E402  (bench/ns2_compare_tcp.py: ns-2.35's TCP rules)
import ns2_compare_yang  # noqa: E402  (bench/ns2_compare_yang.py: ns-2.35's Sack1 rules)
from ns2_compare_rate import ns2  # noqa: E402  (runs a bench/ ns-2.35 script, its JSON line)

NS2_TCP = ns2_compare_tcp.NS2_RULES
#: ns-2.35's Agent/TCP/Sack1 (tcp-sack1.cc), the TCP of the Yang, Jin Fig. 20 and Cai set-ups:
#: NS2_TCP with its pipe a counter (`pipe_`) and its int `ssthresh_`, as bench/ns2_compare_yang.py
#: found them. (Vegas's, Reno's, NewReno's and TCP/Linux's agents keep NS2_TCP.)
NS2_SACK1 = ns2_compare_yang.NS2_TCP
#: ns-2.35's cuts with precisionReduce_ false, as bench/ns2_cai_common.tcl runs TAIMD and DTAIMD
#: (tcp.cc slowdown()): whole packets, cut from the whole window, (int)(decrease_num_ *
#: window()), and ssthresh_ at least 2, so that a cut to one packet leaves slow start's +1 next.
NS2_WHOLE_CUTS = {"integer_window": True, "cut_from_whole_window": True, "whole_ssthresh": True}
HEADER = 40  # bytes ns-2.35 adds to a TCP agent's packetSize_ on the wire


def have_ns2() -> bool:
    if shutil.which("ns") is None:
        print("ns-2.35 (`ns`) is not installed (make ns2): the ns-2.35 column is left blank\n")
        return False
    return True


# --- Yang et al.'s F -----------------------------------------------------------------------

YANG_FLOWS, YANG_WARMUP_S = 8, 20.0
#: name: (the reproduction's source, the source with ns-2.35's rules, ns-2 agent arguments or
#: why ns-2.35 cannot run it).
YANG_CASES = {
    "TCP": (
        {"kind": "tcp", "controller": "tcp"},
        {"kind": "tcp", "controller": "tcp", "packet_size": "1040B", **NS2_SACK1},
        ["Sack1"],
    ),
    "GAIMD(0.31,0.875)": (
        {"kind": "tcp", "controller": yang.GAIMD},
        {"kind": "tcp", "controller": yang.GAIMD, "packet_size": "1040B", **NS2_SACK1},
        ["Sack1", "0.31", "0.875"],
    ),
    "TFRC": (
        {"kind": "rate", "controller": "tfrc-2000", "jitter": 0.1},
        {"kind": "rate", "controller": "tfrc-ns2", "packet_size": "1032B"},
        ["TFRC"],
    ),
    "TEAR": ({"kind": "rate", "controller": "tear", "jitter": 0.1}, None, "no TEAR in ns-2.35"),
}


def yang_f_ccscope(source: dict, seed: int, duration_s: float, rules: bool) -> float:
    """F as yang-table1 measures it, or with ns-2.35's DropTail: `length + 1 < limit_`
    (drop-tail.cc) admits one packet fewer than ccscope's limit, which counts waiting
    packets."""
    sc = yang.fairness_scenario(source, seed, duration_s)
    if rules:
        sc["topology"]["bottleneck"]["queue"]["limit"] = "49pkts"
    r = engine.run(sc)
    return yang.fairness_of(r.trace.flows, r.flows)["F"]


def yang_f_ns2(agent: list[str], seed: int, duration_s: float) -> float:
    got = ns2(
        "ns2_yang_fairness.tcl",
        YANG_FLOWS,
        duration_s,
        YANG_WARMUP_S,
        yang.FINE_BIN_S,
        seed,
        *agent,
    )
    sent = np.array(got["sent_per_bin"], dtype=float)  # flows × bins
    bins = sent.shape[1]
    trace = pd.DataFrame(
        {
            "time_s": np.tile(YANG_WARMUP_S + yang.FINE_BIN_S * np.arange(bins), YANG_FLOWS),
            "flow": np.repeat(np.arange(YANG_FLOWS), bins),
            "sent_pkts": sent.ravel(),
        }
    )
    # The flows' RTT: 2 × 50 ms, a 1040-byte packet at the 2.5 Mb/s bottleneck and at two
    # 100 Mb/s links, and the bottleneck's mean queue.
    wire = 1040 * 8
    rtt = 0.1 + wire / 2.5e6 + 2 * wire / 100e6 + got["mean_queue_bytes"] * 8 / 2.5e6
    return yang.fairness_of(trace, None, rtt, YANG_WARMUP_S)["F"]


def mean_sd(values: list[float]) -> str:
    return f"{np.mean(values):.3f} ± {np.std(values, ddof=1):.3f}"


def command() -> str:
    return " ".join(["python", "bench/ns2_compare_figs.py", *sys.argv[1:]])


def store(reproduction: str, key: str, ns2: str, ours: str, agree: bool, compared: str) -> None:
    """One cell of the ns-2.35 column, if --store was given (STORE names its seeds)."""
    if STORE:
        ns2column.store(
            reproduction,
            {key: {"ns2": ns2, "ccscope": ours, "agree": agree, "compared": compared, **STORE}},
            command(),
        )


def settled(reproduction: str, key: str, ours: str) -> bool:
    """With --restamp: whether the stored cell's ccscope side is `ours` to the character (it
    is then stamped with this model version, and ns-2.35 need not run for it). Always False
    otherwise: the caller measures the cell."""
    if not RESTAMP:
        return False
    if ns2column.restamp(reproduction, key, ours, STORE["seeds"], command()):
        print(f"{reproduction} {key}: {ours} as stored: re-stamped", flush=True)
        return True
    was = ns2column.load().get(reproduction, {}).get(key, {}).get("ccscope")
    print(f"{reproduction} {key}: {ours}, stored {was}: measured afresh", flush=True)
    return False


#: With --store: {"seeds": "1-N"}; empty otherwise.
STORE: dict[str, str] = {}
#: With --restamp: [True].
RESTAMP: list[bool] = []


def yang_f(seeds: range, duration_s: float, with_ns2: bool) -> None:
    print("| protocol | paper | ns-2.35 | ccscope, as reproduced | ccscope, ns-2.35 rules |")
    print("|---|---|---|---|---|")
    for name, (source, rules, agent) in YANG_CASES.items():
        like = [yang_f_ccscope(rules, s, duration_s, True) for s in seeds] if rules else []
        shown = mean_sd(like) if like else "—"
        if like and settled("yang-table1", f"F/{name}", shown):
            continue
        runs = []
        if isinstance(agent, str):
            theirs = f"— ({agent})"
        elif with_ns2:
            runs = [yang_f_ns2(agent, s, duration_s) for s in seeds]
            theirs = mean_sd(runs)
        else:
            theirs = ""
        ours = mean_sd([yang_f_ccscope(source, s, duration_s, False) for s in seeds])
        print(f"| {name} | {yang.TABLE1_F[name]:g} | {theirs} | {ours} | {shown} |", flush=True)
        if runs:
            agree = ns2column.agree_means(runs, like)
            store("yang-table1", f"F/{name}", theirs, shown, agree, ns2column.AGREE_MEANS)


# --- Yang et al.'s ON/OFF loss (§3.3) -------------------------------------------------------

ONOFF_SECONDS, ONOFF_WARMUP_S = 1000.0, 10.0


def onoff_ccscope(rules: dict, seed: int) -> tuple[float, float]:
    """yang.onoff's two CoV_time (beside the ON/OFF sources, then alone under Bernoulli loss at
    the loss rate it saw there) with ns-2.35's rules: `rules` as the flow's source, the
    DropTail limit one packet lower (yang_f_ccscope)."""
    sc = load(shipped() / "yang-onoff-loss.toml").with_seed(seed)
    table = sc.replace("flows[0].source", rules).table
    table["topology"]["bottleneck"]["queue"]["limit"] = "49pkts"
    for flow in table["flows"][1:]:
        flow["source"]["packet_size"] = "1000B"  # ns-2's UDP packetSize_: bytes on the wire
    cov_onoff, p, _ = yang._cov_and_loss(type(sc).from_dict(table, sc.file))
    table["flows"] = table["flows"][:1]
    table["topology"]["bottleneck"]["loss"] = {"kind": "bernoulli", "p": p}
    return cov_onoff, yang._cov_and_loss(type(sc).from_dict(table, sc.file))[0]


def onoff_ns2(agent: list[str], seed: int) -> tuple[float, float]:
    """The same in ns-2.35: bench/ns2_yang_onoff.tcl, then bench/ns2_yang_cov.tcl at the loss
    rate the flow saw."""
    got = ns2("ns2_yang_onoff.tcl", ONOFF_SECONDS, ONOFF_WARMUP_S, yang.BIN_S, seed, *agent)
    cov_onoff = metrics.cov(np.array(got["sent_per_bin"], dtype=float))
    alone = ns2(
        "ns2_yang_cov.tcl",
        got["loss_rate"],
        ONOFF_SECONDS,
        ONOFF_WARMUP_S,
        yang.BIN_S,
        seed,
        *agent,
    )
    return cov_onoff, metrics.cov(np.array(alone["sent_per_bin"], dtype=float))


def onoff_cell(runs: list[tuple[float, float]]) -> str:
    onoff, bern = ([r[i] for r in runs] for i in (0, 1))
    higher = sum(a > b for a, b in runs)
    return f"{mean_sd(onoff)} vs {mean_sd(bern)} ({higher}/{len(runs)})"


#: How the ON/OFF cells are judged: each of the two CoV_time.
ONOFF_AGREE = "the ON/OFF and the Bernoulli CoV_time, each: " + ns2column.AGREE_MEANS


def yang_onoff(seeds: range, with_ns2: bool) -> None:
    """yang-onoff: each protocol's CoV_time beside five Pareto ON/OFF sources vs alone under
    Bernoulli loss at the loss rate it saw (mean ± sd over seeds, and in how many seeds the
    ON/OFF one is higher: the paper's claim)."""
    paper = dict.fromkeys(YANG_CASES, "ON/OFF slightly higher")
    yang_rows(
        "yang-onoff", paper, onoff_ccscope, onoff_ns2, onoff_cell, ONOFF_AGREE, seeds, with_ns2
    )


def samples(runs: list) -> list[list[float]]:
    """Each component of tuple-valued runs as a sample of its own, or the runs as one."""
    if isinstance(runs[0], tuple):
        return [list(column) for column in zip(*runs, strict=True)]
    return [runs]


def yang_rows(
    reproduction: str,
    paper: dict[str, str],
    ours: Callable,
    theirs: Callable,
    cell: Callable[[list], str],
    compared: str,
    seeds: range,
    with_ns2: bool,
) -> None:
    """One row and one cell per protocol of YANG_CASES: `ours(rules, seed)` and `theirs(agent,
    seed)` give a value, or a tuple of values each judged alone (all must agree)."""
    print("| protocol | paper | ns-2.35 | ccscope, ns-2.35 rules |")
    print("|---|---|---|---|")
    for name, (_, rules, agent) in YANG_CASES.items():
        if rules is None:
            print(f"| {name} | {paper[name]} | — ({agent}) | — |")
            continue
        like = [ours(rules, s) for s in seeds]
        if settled(reproduction, name, cell(like)):
            continue
        runs = [theirs(agent, s) for s in seeds] if with_ns2 else []
        shown = cell(runs) if runs else ""
        print(f"| {name} | {paper[name]} | {shown} | {cell(like)} |", flush=True)
        if runs:
            pairs = zip(samples(runs), samples(like), strict=True)
            agree = all(ns2column.agree_means(a, b) for a, b in pairs)
            store(reproduction, name, shown, cell(like), agree, compared)


# --- Yang et al.'s Fig. 29 (§5.2) --------------------------------------------------------------

FIG29_SECONDS = 300.0


def fig29_ccscope(rules: dict, seed: int) -> float:
    """yang.fig29_refill's RTTs to refill the queue to its mean level of the 50 s before the
    stop, with ns-2.35's rules: `rules` as every flow's source, the DropTail limit one packet
    lower (yang_f_ccscope)."""
    sc = (
        load(shipped() / "yang-fig29-leave.toml")
        .replace("flows[0].source", rules)
        .replace("flows[1].source", rules)
        .replace("topology.bottleneck.queue.limit", "49pkts")
        .with_seed(seed)
    )
    q = engine.run(sc).trace.queues
    q = q[q["name"] == "bottleneck"]
    return yang.refill_rtts(q["time_s"], q["queue_pkts"])


def fig29_ns2(agent: list[str], seed: int) -> float:
    got = ns2("ns2_yang_fig29.tcl", FIG29_SECONDS, yang.BIN_S, seed, *agent)
    queue = np.array(got["queue_pkts"], dtype=float)
    return yang.refill_rtts(yang.BIN_S * np.arange(len(queue)), queue)


def yang_fig29(seeds: range, with_ns2: bool) -> None:
    """yang-fig27-29: RTTs for each protocol's eight remaining flows to refill the queue after
    the other eight stop, mean ± sd over the seeds."""
    paper = {name: f"{rtts:g} RTTs" for name, rtts in yang.FIG29_RTTS.items()}
    paper["TEAR"] = f"> {paper['TEAR']}"
    yang_rows(
        "yang-fig27-29",
        paper,
        fig29_ccscope,
        fig29_ns2,
        mean_sd,
        ns2column.AGREE_MEANS,
        seeds,
        with_ns2,
    )


# --- Jin et al.'s Fig. 20 --------------------------------------------------------------------

#: name: ns-2 agent arguments (Sack1 [increase_num_ decrease_num_ [k l]]) or why ns-2.35
#: cannot run it. AIMD(1/10, 1/16) removes 1/16 of the window; IIAD(1, 2/3) is ns-2's binomial
#: (k, l) = (1, 0), w -= (1 - decrease_num_) w^0.
JIN_NS2 = {
    "TCP": ["Sack1"],
    "SIMD": "no SIMD in ns-2.35: its increase depends on the window at the last decrease",
    "AIMD": ["Sack1", "0.1", str(15 / 16)],
    "IIAD": ["Sack1", "1", str(1 / 3), "1", "0"],
}
#: Experiment: (c1, c2, x, y in Mb/s), as jin.fig20_scenario.
JIN_EXPERIMENTS = {1: (15, 0, 6, 6), 2: (11, 3, 6, 10)}


def jin_ccscope(experiment: int, name: str, seed: int, rules: bool) -> dict[str, float]:
    if not rules:
        return jin.fig20_measure(experiment, name, seed)
    sc = jin.fig20_scenario(
        experiment, jin.FIG20_CONTROLLERS[name], jin.FIG20_DURATION_S[name], seed
    )
    for flow in sc["flows"]:
        flow["source"] = {
            **flow["source"],
            **NS2_SACK1,
            "packet_size": f"{jin.FIG20_PKT_BYTES + HEADER}B",
        }
    tr = engine.run(sc).trace.flows
    a, b = tr[tr["flow"] == 0], tr[tr["flow"] == 1]
    bits = (jin.FIG20_PKT_BYTES + HEADER) * 8
    return jin.fig20_times(
        a["time_s"].to_numpy(),
        np.c_[a["window_pkts"].to_numpy(), b["window_pkts"].to_numpy()],
        np.c_[
            (a["window_pkts"] * bits / a["rate_bps"]).to_numpy(),
            (b["window_pkts"] * bits / b["rate_bps"]).to_numpy(),
        ],
    )


def jin_ns2(experiment: int, name: str, seed: int) -> dict[str, float]:
    got = ns2(
        "ns2_jin_fig20.tcl",
        *JIN_EXPERIMENTS[experiment],
        jin.FIG20_DURATION_S[name],
        seed,
        *JIN_NS2[name],
    )
    rows = np.array(got["cwnd_rtt"], dtype=float)
    t = got["interval_s"] * np.arange(1, rows.shape[0] + 1)
    return jin.fig20_times(t, rows[:, [0, 2]], rows[:, [1, 3]])


def median_range(values: list[float], digits: int = 0) -> str:
    v = np.array(values, dtype=float)
    return f"{np.median(v):.{digits}f} ({v.min():.{digits}f}–{v.max():.{digits}f})"


def windows(runs: list[dict[str, float]]) -> str:
    return ", ".join(f"{np.median([r[k] for r in runs]):.1f}" for k in ("W1", "W2"))


def jin_fig20(seeds: range, with_ns2: bool, only: tuple[str, ...] = ()) -> None:
    """The table; with `only`, the cells of those keys alone (e.g. "exp2/T1/IIAD")."""
    print(
        "| Exp. | control | quantity | paper | ns-2.35 | ccscope, as reproduced | "
        "ccscope, ns-2.35 rules |"
    )
    print("|---|---|---|---|---|---|---|")
    for experiment, key, column in ((1, "T2", 0), (2, "T1", 1)):
        table6 = jin.TABLE6_EXP1 if experiment == 1 else jin.TABLE6_EXP2
        for name, ns2_agent in JIN_NS2.items():
            if only and f"exp{experiment}/{key}/{name}" not in only:
                continue
            like = [jin_ccscope(experiment, name, s, True) for s in seeds]
            mine = median_range([r[key] for r in like])
            if not isinstance(ns2_agent, str) and settled(
                "jin-fig20", f"exp{experiment}/{key}/{name}", mine
            ):
                continue
            ours = [jin_ccscope(experiment, name, s, False) for s in seeds]
            if isinstance(ns2_agent, str):
                theirs, t_cell, w_cell = None, f"— ({ns2_agent})", "—"
            elif with_ns2:
                theirs = [jin_ns2(experiment, name, s) for s in seeds]
                t_cell, w_cell = median_range([r[key] for r in theirs]), windows(theirs)
            else:
                theirs, t_cell, w_cell = None, "", ""
            if theirs:
                agree = ns2column.agree_medians([r[key] for r in theirs], [r[key] for r in like])
                store(
                    "jin-fig20",
                    f"exp{experiment}/{key}/{name}",
                    t_cell,
                    mine,
                    agree,
                    ns2column.AGREE_MEDIANS,
                )
            start = next(v for k, v in table6.items() if k.startswith(name))
            print(
                f"| {experiment} | {name} | {key} (RTTs) | {jin.FIG20_TABLE6[name][column]:g} | "
                f"{t_cell} | {median_range([r[key] for r in ours])} | {mine} |"
            )
            print(
                f"| {experiment} | {name} | W1, W2 before 400 s (pkts) | "
                f"{start['w1']:g}, {start['w2']:g} | {w_cell} | {windows(ours)} | "
                f"{windows(like)} |",
                flush=True,
            )


# --- Jin et al.'s Table 5: one flow beside a CBR square wave ---------------------------------

#: Table 5's name: ns-2 agent arguments (Newreno [increase_num_ decrease_num_ [k l]], as
#: JIN_NS2) or why ns-2.35 cannot run it.
TABLE5_NS2 = {
    "TCP": ["Newreno"],
    "AIMD(1/10,1/16)": ["Newreno", "0.1", str(15 / 16)],
    "IIAD(1,2/3)": ["Newreno", "1", str(1 / 3), "1", "0"],
    "SIMD(1/16)": JIN_NS2["SIMD"],
    "AIAD(2/3)": "no AIAD(2/3) in ns-2.35: its increase 3β/(2 w_max) depends on the window at "
    "the last decrease (ns-2's binomial increase is fixed)",
}
TABLE5_SECONDS = 1230.0


def table5_ccscope(name: str, seed: int) -> float:
    """1/aggressiveness (RTTs) as jin.table5 measures it, with ns-2.35's rules (the TCP
    flow's 1000-byte payload 1040 bytes on the wire)."""
    controller, params = jin.TABLE5[name][1]
    sc = load(shipped() / "jin-table5-square-wave.toml").with_seed(seed).table
    sc["run"]["duration"] = f"{TABLE5_SECONDS:g}s"
    sc["flows"][0]["source"] = {
        **sc["flows"][0]["source"],
        **NS2_TCP,
        "controller": {"name": controller, **params},
        "packet_size": "1040B",
    }
    tr = engine.run(sc).trace.flows
    w = tr[tr["flow"] == 0]
    return table5_response(w["time_s"].to_numpy(), w["window_pkts"].to_numpy())


def table5_ns2(name: str, seed: int) -> float:
    got = ns2("ns2_jin_table5.tcl", TABLE5_SECONDS, seed, *TABLE5_NS2[name])
    w = np.array(got["cwnd"], dtype=float)
    return table5_response(got["interval_s"] * np.arange(1, w.size + 1), w)


def table5_response(t: np.ndarray, window: np.ndarray) -> float:
    on, off = jin.SQUARE_ON_S, jin.SQUARE_OFF_S
    return metrics.square_wave_response(t, window, on, off, jin.RTT_S)["inv_aggressiveness_rtts"]


def jin_table5(seeds: range, with_ns2: bool) -> None:
    print("| control | paper (95% interval) | ns-2.35 | ccscope, ns-2.35 rules |")
    print("|---|---|---|---|")
    for name, agent in TABLE5_NS2.items():
        lo, hi = jin.TABLE5[name][0]
        if isinstance(agent, str):
            print(f"| {name} | {lo}-{hi} | — ({agent}) | — |", flush=True)
            continue
        like = [table5_ccscope(name, s) for s in seeds]
        if settled("jin-table5", name, mean_sd(like)):
            continue
        theirs = [table5_ns2(name, s) for s in seeds] if with_ns2 else []
        print(f"| {name} | {lo}-{hi} | {mean_sd(theirs) if theirs else ''} | {mean_sd(like)} |")
        if theirs:
            agree = ns2column.agree_means(theirs, like)
            store("jin-table5", name, mean_sd(theirs), mean_sd(like), agree, ns2column.AGREE_MEANS)


# --- Cai et al.'s Fig. 16 --------------------------------------------------------------------

CAI_SECONDS = 300
CAI_QUEUE = int(cai.FIG16_KNOBS["access_queue_pkts"].assumed)
CAI_PER_MOUSE = cai.FIG16_KNOBS["arrivals_per_mouse"].assumed
CAI_MEDIA = {
    "DTAIMD": {"name": "dtaimd", "alpha": 0.2, "beta": 0.875},
    "TCP": {"name": "tcp"},
}


def cai_ccscope(n: int, media: str, seed: int, rules: bool, start: str = "syn") -> float:
    """The media flow's goodput (b/s) with `n` mice, as cai.fig16 runs it, or with
    ns-2.35's rules (DTAIMD cuts as NS2_WHOLE_CUTS, ns-2's precisionReduce_ false; the
    access line's DropTail one packet shorter, as yang_f_ccscope); with the rules, `start`
    "data" starts every flow without the SYN exchange (as cai_ns2's)."""
    table = load(shipped() / "cai-fig16-access.toml").with_seed(seed).table
    table["flows"][0]["source"]["controller"] = CAI_MEDIA[media]
    if n == 0:
        table["flows"] = table["flows"][:2]
    else:
        table["flows"][2]["count"] = max(1, round(n * CAI_PER_MOUSE))
    if rules:
        for i, flow in enumerate(table["flows"]):
            payload = 100 if i == 0 else 1000
            flow["source"] = {**flow["source"], **NS2_SACK1, "packet_size": f"{payload + HEADER}B"}
            flow["source"]["syn"] = start == "syn"
        if media == "DTAIMD":
            table["flows"][0]["source"].update(NS2_WHOLE_CUTS)
        table["topology"]["links"][4]["queue"]["limit"] = f"{CAI_QUEUE - 1}pkts"
    return float(engine.run(table).flows.loc[0, "goodput_bps"])


def cai_ns2(n: int, media: str, seed: int, start: str = "syn") -> float:
    """The media flow's goodput (b/s) in ns-2.35; `start` "data" starts every agent without
    ns-2.35's SYN exchange (bench/ns2_cai_fig16.tcl)."""
    mice = 0 if n == 0 else max(1, round(n * CAI_PER_MOUSE))
    got = ns2("ns2_cai_fig16.tcl", media, mice, CAI_QUEUE, CAI_SECONDS, seed, start)
    return got["acked_pkts"] * got["packet_bytes"] * 8 / CAI_SECONDS


def cai_cell(dtaimd: list[float], tcp: list[float], unit: str = "") -> str:
    above = sum(d >= t for d, t in zip(dtaimd, tcp, strict=True))
    return f"{np.mean(dtaimd) / 1e3:.2f} vs {np.mean(tcp) / 1e3:.2f}{unit} ({above}/{len(tcp)})"


#: How the Cai cells are judged: each media control's mean goodput.
CAI_AGREE = "DTAIMD's and TCP's mean goodputs, each: " + ns2column.AGREE_MEANS


def cai_fig16(seeds: range, mice: tuple[int, ...], with_ns2: bool) -> None:
    print("| mice | paper | ns-2.35 | ccscope, as reproduced | ccscope, ns-2.35 rules |")
    print("|---|---|---|---|---|")
    unit = " kb/s goodput"  # the claim's row is in b/s of throughput
    for n in mice:
        like = {m: [cai_ccscope(n, m, s, True) for s in seeds] for m in CAI_MEDIA}
        if settled("cai-fig16", f"mice/{n}", cai_cell(like["DTAIMD"], like["TCP"], unit)):
            continue
        theirs = {m: [cai_ns2(n, m, s) for s in seeds] for m in CAI_MEDIA} if with_ns2 else {}
        ours = {m: [cai_ccscope(n, m, s, False) for s in seeds] for m in CAI_MEDIA}
        cells = [cai_cell(r["DTAIMD"], r["TCP"]) if r else "" for r in (theirs, ours, like)]
        print(f"| {n} | DTAIMD above TCP | " + " | ".join(cells) + " |", flush=True)
        if theirs:
            agree = all(ns2column.agree_means(theirs[m], like[m]) for m in CAI_MEDIA)
            ns2, mine = (cai_cell(r["DTAIMD"], r["TCP"], unit) for r in (theirs, like))
            store("cai-fig16", f"mice/{n}", ns2, mine, agree, CAI_AGREE)


def cai_fig16_start(seeds: range, mice: tuple[int, ...], with_ns2: bool) -> None:
    """The media flow beside mice, each simulator starting connections with a SYN exchange
    (ns-2.35's syn_ and delay_growth_ true; ccscope's ns-2.35 rules, `syn = true`) and with
    windowInit_ packets of data at once (both false; the rules without `syn`)."""
    print(
        "| mice | ns-2.35 (SYN first) | ccscope, ns-2.35 rules (SYN first) | "
        "ns-2.35, data from the start | ccscope, ns-2.35 rules, data from the start |"
    )
    print("|---|---|---|---|---|")
    for n in mice:
        cells = []
        for start in ("syn", "data"):
            if with_ns2:
                runs = {m: [cai_ns2(n, m, s, start) for s in seeds] for m in CAI_MEDIA}
                cells.append(cai_cell(runs["DTAIMD"], runs["TCP"]))
            else:
                cells.append("")
            runs = {m: [cai_ccscope(n, m, s, True, start) for s in seeds] for m in CAI_MEDIA}
            cells.append(cai_cell(runs["DTAIMD"], runs["TCP"]))
        print(f"| {n} | " + " | ".join(cells) + " |", flush=True)


# --- Cai et al.'s Table I: playback beside TCP elephants and mice ----------------------------

TABLE1_SECONDS, TABLE1_STARTUP_S = 600, 3.0  # as scenarios/cai-table1-playback.toml
TABLE1_MICE = int(cai.TABLE1_KNOBS["mice"].assumed)
#: Claim key: cai.table1_run's number.
TABLE1_KEYS = {
    "dtaimd/interruptions": "dtaimd_interruptions",
    "tcp/interrupted": "tcp_interrupted",
    "queue/share": "share_bigger_queue",
    "rate/ratio": "rate_ratio",
}


def table1_ccscope(seed: int) -> dict[str, float]:
    """cai.table1_run with ns-2.35's rules (1040-byte packets on the wire; DTAIMD's cuts in
    whole packets, as cai_ccscope)."""
    table = load(shipped() / "cai-table1-playback.toml").table
    for i, flow in enumerate(table["flows"]):
        flow["source"] = {**flow["source"], **NS2_SACK1, "packet_size": "1040B"}
        if i == 0:
            flow["source"].update(NS2_WHOLE_CUTS)
    return cai.table1_run(Scenario.from_dict(table), seed)


def playout(t: np.ndarray, delivered: np.ndarray) -> tuple[int, float]:
    """Interruptions and the largest buffer (packets) of ccscope's playback receiver
    (crates/ccscope-core/src/apps/playback.rs: playback from TABLE1_STARTUP_S after the first
    delivery at the session's mean rate, first to last delivery; an underrun freezes it until
    TABLE1_STARTUP_S of playback is buffered again) on deliveries logged every 10 ms (each
    interval's packets counted at its end)."""
    step = np.diff(np.concatenate([[0.0], delivered]))
    when, pkts = t[step > 0], step[step > 0]
    first, last = when[0], when[-1]
    c = pkts.sum() / (last - first)
    buffer, now, started, playing, interruptions, most = 0.0, first, False, False, 0, 0.0
    for at, n in zip(when, pkts, strict=True):
        if not started and first + TABLE1_STARTUP_S <= at:
            started, playing, now = True, True, first + TABLE1_STARTUP_S
        if playing:
            if now + buffer / c <= at:
                buffer, playing = 0.0, False
                interruptions += 1
            else:
                buffer -= c * (at - now)
        now = at
        buffer += n
        most = max(most, buffer)
        if started and not playing and buffer >= c * TABLE1_STARTUP_S:
            playing = True
    return interruptions, most


def table1_ns2(seed: int) -> dict[str, float]:
    """cai.table1_run's numbers from ns-2.35's deliveries (bench/ns2_cai_table1.tcl)."""
    got = ns2("ns2_cai_table1.tcl", TABLE1_MICE, TABLE1_SECONDS, seed)
    acked = np.maximum(np.array(got["ack"], dtype=float), 0.0)  # ack_ 0: the SYN's
    t = got["interval_s"] * np.arange(1, acked.shape[0] + 1)
    played = [playout(t, acked[:, i]) for i in range(acked.shape[1])]
    interruptions = np.array([p[0] for p in played])
    queue = np.array([p[1] for p in played])
    return {
        "dtaimd_interruptions": int(interruptions[0]),
        "tcp_interrupted": int((interruptions[1:] > 0).sum()),
        "share_bigger_queue": float((queue[1:] > queue[0]).mean()),
        "rate_ratio": float(acked[-1, 0] / acked[-1, 1:].mean()),
    }


def cai_table1(seeds: range, with_ns2: bool) -> None:
    print("| quantity | paper | ns-2.35 | ccscope, ns-2.35 rules |")
    print("|---|---|---|---|")
    like = [table1_ccscope(s) for s in seeds]
    cells = {key: mean_sd([r[name] for r in like]) for key, name in TABLE1_KEYS.items()}
    if all(settled("cai-table1", key, cell) for key, cell in cells.items()):
        return
    theirs = [table1_ns2(s) for s in seeds] if with_ns2 else []
    for key, name in TABLE1_KEYS.items():
        shown = mean_sd([r[name] for r in theirs]) if theirs else ""
        print(f"| {key} | {TABLE1_PAPER[key]} | {shown} | {cells[key]} |", flush=True)
        if theirs:
            agree = ns2column.agree_means([r[name] for r in theirs], [r[name] for r in like])
            store("cai-table1", key, shown, cells[key], agree, ns2column.AGREE_MEANS)


#: Table I's values as the claims state them.
TABLE1_PAPER = {
    "dtaimd/interruptions": "0",
    "tcp/interrupted": "5",
    "queue/share": "0.8",
    "rate/ratio": f"{cai.TABLE1_RATE_KBPS['DTAIMD'] / np.mean(cai.TABLE1_RATE_KBPS['TCP']):.3f}",
}


# --- Cai et al.'s Fig. 17: two (α, β) classes --------------------------------------------

FIG17_SECONDS, FIG17_WARMUP_S = 140, 20  # as scenarios/cai-fig17-differentiation.toml


def fig17_alpha2(k: int) -> float:
    return float(theory.cai_weighted_alpha_ratio(k, 0.5, 0.875))


def fig17_ccscope(k: int, n: int, seed: int) -> float:
    """Class 2's mean goodput over class 1's, Fig. 17's set-up as cai.fig17_ratio runs it with
    ns-2.35's rules (1040-byte packets on the wire; DTAIMD's cuts in whole packets, ns-2's
    precisionReduce_ false, as cai_ccscope)."""
    table = load(shipped() / "cai-fig17-differentiation.toml").with_seed(seed).table
    data, media = table["flows"]
    data["count"], media["count"] = n - n // 6, n // 6
    media["source"]["controller"]["alpha"] = fig17_alpha2(k)
    for flow in (data, media):
        flow["source"] = {**flow["source"], **NS2_SACK1, "packet_size": "1040B"}
    media["source"].update(NS2_WHOLE_CUTS)
    goodput = engine.run(table).flows["goodput_bps"].to_numpy()
    return float(goodput[n - n // 6 :].mean() / goodput[: n - n // 6].mean())


def fig17_ns2(k: int, n: int, seed: int) -> float:
    got = ns2(
        "ns2_cai_fig17.tcl",
        n - n // 6,
        n // 6,
        fig17_alpha2(k),
        FIG17_SECONDS,
        FIG17_WARMUP_S,
        seed,
    )
    acked = np.array(got["acked_pkts"], dtype=float)
    return float(acked[n - n // 6 :].mean() / acked[: n - n // 6].mean())


def cai_fig17(seeds: range, with_ns2: bool) -> None:
    print("| k | flows | paper | ns-2.35 | ccscope, ns-2.35 rules |")
    print("|---|---|---|---|---|")
    for k in (2, 3, 4):
        for n in (12, 24, 48, 96):
            like = [fig17_ccscope(k, n, s) for s in seeds]
            if settled("cai-fig17", f"k{k}/n{n}", mean_sd(like)):
                continue
            theirs = [fig17_ns2(k, n, s) for s in seeds] if with_ns2 else []
            shown = mean_sd(theirs) if theirs else ""
            print(f"| {k} | {n} | {k} | {shown} | {mean_sd(like)} |", flush=True)
            if theirs:
                agree = ns2column.agree_means(theirs, like)
                store("cai-fig17", f"k{k}/n{n}", shown, mean_sd(like), agree, FIG17_AGREE)


#: How a Fig. 17 cell is judged: the class-2/class-1 goodput ratio, each seed one run.
FIG17_AGREE = "class 2's over class 1's mean goodput per run: " + ns2column.AGREE_MEANS


# --- Cai et al.'s Figs. 8 and 9: TAIMD and DTAIMD beside TCP at small windows ---------------

FIG8_SECONDS, FIG8_WARMUP_S = 100, 20  # as cai.fig8_scenario
#: The n of fig8-9's rows: those whose windows are below 1/(1 - β) (cai.fig8_9_claims).
FIG8_N = (16, 32, 64)
FIG8_KINDS = ("dtaimd", "taimd")


def fig8_summary(goodput: np.ndarray) -> dict[str, float]:
    """The other class's goodput over the mean of all flows' (TCP the even flows; Fig. 8's
    normalized throughput) and Jain's index of all flows (Fig. 9)."""
    return {"other": goodput[1::2].mean() / goodput.mean(), "jain": metrics.jain_index(goodput)}


def fig8_ccscope(n: int, kind: str, seed: int) -> dict[str, float]:
    """cai.fig8_mix's two numbers with ns-2.35's rules (1040-byte packets on the wire; the
    (D)TAIMD flows' cuts in whole packets, ns-2's precisionReduce_ false, as cai_ccscope), from
    the flows' goodput."""
    sc = cai.fig8_scenario(n, kind, FIG8_SECONDS, FIG8_WARMUP_S, seed)
    for i, flow in enumerate(sc["flows"]):
        flow["source"] = {**flow["source"], **NS2_SACK1, "packet_size": "1040B"}
        if i % 2:
            flow["source"].update(NS2_WHOLE_CUTS)
    return fig8_summary(engine.run(sc).flows["goodput_bps"].to_numpy())


def fig8_ns2(n: int, kind: str, seed: int) -> dict[str, float]:
    got = ns2("ns2_cai_fig8.tcl", n, kind, FIG8_SECONDS, FIG8_WARMUP_S, seed)
    return fig8_summary(np.array(got["acked_pkts"], dtype=float))


def fig8_cell(runs: dict[str, list[dict[str, float]]], what: str) -> str:
    return ", ".join(f"{k.upper()} {mean_sd([r[what] for r in runs[k]])}" for k in FIG8_KINDS)


#: How a Figs. 8-9 cell is judged.
FIG8_AGREE = "DTAIMD's and TAIMD's values over the seeds, each: " + ns2column.AGREE_MEANS


def cai_fig8_9(seeds: range, with_ns2: bool) -> None:
    print("| n | quantity | ns-2.35 | ccscope, ns-2.35 rules |")
    print("|---|---|---|---|")
    for n in FIG8_N:
        like = {k: [fig8_ccscope(n, k, s) for s in seeds] for k in FIG8_KINDS}
        keys = {"other": f"n{n}/throughput", "jain": f"n{n}/jain"}
        if all(settled("cai-fig8-9", keys[w], fig8_cell(like, w)) for w in keys):
            continue
        theirs = {k: [fig8_ns2(n, k, s) for s in seeds] for k in FIG8_KINDS} if with_ns2 else {}
        for what, key in keys.items():
            shown = fig8_cell(theirs, what) if theirs else ""
            print(f"| {n} | {key} | {shown} | {fig8_cell(like, what)} |", flush=True)
            if theirs:
                agree = all(
                    ns2column.agree_means([r[what] for r in theirs[k]], [r[what] for r in like[k]])
                    for k in FIG8_KINDS
                )
                store("cai-fig8-9", key, shown, fig8_cell(like, what), agree, FIG8_AGREE)


# --- Cai et al.'s Fig. 10: one AIMD flow, no random element ---------------------------------

#: Fig. 10's utilization is measured over [5, 30] s (cai.fig10_scenario).
FIG10_WINDOW_S = 25.0
FIG10_WIRE = cai.FIG10_PKT_BYTES + HEADER
#: How a Fig. 10 cell is judged: one run each, nothing random in either, so no seed spread.
FIG10_AGREE = (
    "each buffer's utilization within two sawtooth cycles' share of the 25-s window, times the "
    "utilization's swing, plus four packets: deterministic runs of one periodic sawtooth that "
    "start in different phases differ by at most that (cycle: (1 - β)(r + B)/α rounds of at "
    "most (r + B) packet times; swing: 1 - β(r + B)/r, at least 0)"
)


def fig10_ccscope(alpha: float, beta: float, buffer: int) -> float:
    """Fig. 10's utilization with ns-2.35's rules: 1040-byte packets on the wire (the paper's
    1000-byte MSS and ns-2's 40 bytes of header), the DropTail one packet shorter
    (yang_f_ccscope)."""
    sc = cai.fig10_scenario(alpha, beta, buffer)
    source = sc["flows"][0]["source"]
    sc["flows"][0]["source"] = {**source, **NS2_SACK1, "packet_size": f"{FIG10_WIRE}B"}
    sc["topology"]["bottleneck"]["queue"]["limit"] = f"{buffer - 1}pkts"
    return float(engine.run(sc).bottlenecks.loc[0, "utilization"])


def fig10_ns2(alpha: float, beta: float, buffer: int) -> float:
    got = ns2("ns2_cai_fig10.tcl", alpha, beta, buffer, 30, 30 - FIG10_WINDOW_S)
    return float(got["utilization"])


def fig10_width(alpha: float, beta: float, buffer: int) -> float:
    """:data:`FIG10_AGREE`'s width for one buffer: a T-second mean of a sawtooth of period P
    is off its cycle mean by at most the part cycle's share P/T times the largest departure
    of the utilization from that mean (1 - its trough, the trough being β(r + B)/r of the
    link below r); two runs differ by twice that; a packet at either end of each run's
    window adds four packet times over T."""
    pkt_s = FIG10_WIRE * 8 / cai.FIG10_RATE_BPS
    r = cai.fig10_base_rtt_s() / pkt_s
    peak = r + buffer
    cycle_s = (1 - beta) * peak / alpha * peak * pkt_s
    swing = 1 - min(1.0, beta * peak / r)
    return (2 * cycle_s * swing + 4 * pkt_s) / FIG10_WINDOW_S


def fig10_cell(values: list[float]) -> str:
    return ", ".join(f"{v:.3f}" for v in values) + " (B = 2, 5, 10, 20)"


def cai_fig10(with_ns2: bool) -> None:
    print(
        "| (α, β) | buffer | (24) | ns-2.35 | ccscope, as reproduced | ccscope, ns-2.35 rules | "
        "width |"
    )
    print("|---|---|---|---|---|---|---|")
    table = cai.fig10()
    for a, b in cai.FIG10_PAIRS:
        key = f"AIMD({a:g},{b:g})"
        like = [fig10_ccscope(a, b, n) for n in cai.FIG10_BUFFERS]
        if settled("cai-fig10", key, fig10_cell(like)):
            continue
        theirs = [fig10_ns2(a, b, n) for n in cai.FIG10_BUFFERS] if with_ns2 else []
        widths = [fig10_width(a, b, n) for n in cai.FIG10_BUFFERS]
        rows = table[(table.alpha == a) & (table.beta == b)]
        for i, row in enumerate(rows.itertuples()):
            them = f"{theirs[i]:.4f}" if theirs else ""
            print(
                f"| ({a:g}, {b:g}) | {row.buffer} | {row.eq24:.4f} | {them} | "
                f"{row.measured:.4f} | {like[i]:.4f} | ± {widths[i]:.4f} |",
                flush=True,
            )
        if theirs:
            agree = all(abs(t - m) <= w for t, m, w in zip(theirs, like, widths, strict=True))
            store("cai-fig10", key, fig10_cell(theirs), fig10_cell(like), agree, FIG10_AGREE)


# --- RFC 9438's CUBIC under Bernoulli loss --------------------------------------------------

#: ns-2.35's CUBIC module (tcp/linux/src/tcp_cubic.c, Linux 2.6.22) in its own integers:
#: C = 410/1024 (bic_scale 41), β = 819/1024, no HyStart (Linux 2.6.29 added it); fast
#: convergence off, as bench/ns2_cubic.tcl sets it and RFC 9438 §4.7 advises for a single flow.
NS2_CUBIC = {"name": "cubic-2.6.22", "fast_convergence": 0}
#: RFC 9438's form of the same parameters, for the figures' columns.
NS2_CUBIC_C, NS2_CUBIC_BETA = 410 / 1024, 819 / 1024
#: ns-2.35's TCP/Linux agent's transport (tcp-linux.cc, scoreboard1.cc), on NS2_TCP's start and
#: timer (its initial window 2, SYN, minrto_ 0.2): whole-packet windows (an int snd_cwnd); a
#: hole lost once the highest SACKed packet lies 4 above it (fack_ − (3 + 1)), which begins a
#: recovery at once (FLAG_DATA_LOST); a retransmission lost again once a packet sent after it is
#: SACKed (GetSndNxt() <= fack_); the scoreboard kept over a timeout (MarkLoss, no
#: ClearScoreBoard); a new recovery as soon as the last one ends (the state Open again); the
#: retransmission timer restarted by every ACK (time_processing's renew_timer); RTT samples from
#: the timestamps of every ACK in 1-ms ticks (tcp_tick_ set to 1/JIFFY_RATIO), each ending the
#: backoff (ts_resetRTO_).
NS2_LINUX_TCP = {
    **NS2_TCP,
    "integer_window": True,
    "sack_lost_after": 4,
    "recovery_entry": "lost",
    "lost_retransmissions": "rack",
    "after_timeout": "keep_sacked",
    "recover_margin": 0,
    "rto_restart": "every_ack",
    "rtt_timing": "timestamps",
    "tick": "1ms",
    "rtt_estimator": "ns2",
}
#: bench/ns2_cubic.tcl's round trip without a queue: 2 × (48 + 1 + 1) ms of propagation and a
#: 1040-byte packet and a 40-byte ACK serialized at the two 1 Gb/s links and the 10 Gb/s one.
CUBIC_NS2_RTT_S = 0.1 + (1040 + 40) * 8 * (2 / 1e9 + 1 / 1e10)


#: What `--without integers` runs in place of NS2_CUBIC: RFC 9438's CUBIC in real numbers with
#: the module's C and β, no HyStart, its W_est (linux_friendly) and slow start at cwnd =
#: ssthresh (ssthresh_inclusive, 2.6.22's `snd_cwnd <= snd_ssthresh`).
RFC_CUBIC_AT_NS2 = {
    "name": "cubic",
    "c": NS2_CUBIC_C,
    "beta": NS2_CUBIC_BETA,
    "fast_convergence": 0,
    "hystart": 0,
    "linux_friendly": 1,
    "ssthresh_inclusive": 1,
}


def cubic_ccscope(p: float, seed: int, without: tuple[str, ...] = ()) -> tuple[float, float]:
    """The mean window (packets sent, retransmissions included, per round trip without a
    queue, over the second half of the 3000-s run, as cubic_ns2 counts it) and the share of
    the packets sent again, for ccscope's TCP with NS2_LINUX_TCP's rules running NS2_CUBIC,
    1040 bytes on the wire; `without`: those rules back at NS2_TCP's values (or the source's
    defaults), "integers" for RFC_CUBIC_AT_NS2 in place of NS2_CUBIC."""
    sc = (
        load(cubic.SCENARIO).replace("topology.loss", {"kind": "bernoulli", "p": p}).with_seed(seed)
    )
    rules = {k: v for k, v in NS2_LINUX_TCP.items() if k not in without}
    rules |= {k: NS2_TCP[k] for k in without if k in NS2_TCP}
    table = sc.table
    source = table["flows"][0]["source"]
    table["flows"][0]["source"] = {
        **source,
        **rules,
        "packet_size": f"{1000 + HEADER}B",
        "controller": RFC_CUBIC_AT_NS2 if "integers" in without else NS2_CUBIC,
    }
    f = engine.run(table).flows.iloc[0]
    sent = float(f["sent_pkts"])
    return sent / (cubic.FULL_S / 2) * CUBIC_NS2_RTT_S, float(f["retransmits"]) / sent


def cubic_ns2(p: float, seed: int) -> tuple[float, float]:
    got = ns2("ns2_cubic.tcl", p, cubic.FULL_S, seed)
    sent = got["sent_pkts"]
    return sent / got["seconds"] * CUBIC_NS2_RTT_S, got["resent_pkts"] / sent


def percent(runs: list[tuple[float, float]]) -> str:
    """The mean share of packets sent again over `runs`, in per cent."""
    return f"{100 * np.mean([r[1] for r in runs]):.3f}%"


def cubic_rfc9438(seeds: range, with_ns2: bool, without: tuple[str, ...] = ()) -> None:
    """cubic-rfc9438's Bernoulli rows: the mean window (packets per RTT) at each loss rate,
    mean ± sd over the seeds, beside RFC 9438's Figure 6 (Figure 3 in the Reno-friendly
    region) at ns-2.35's β and C and at the RFC's, and each side's packets sent again over
    packets sent (its realized loss rate: a packet lost is sent again, a retransmission lost
    once more); `without`: ccscope's column only, without those rules (cubic_ccscope)."""
    if without:
        print(f"| p | ccscope, ns-2.35 rules without {', '.join(without)} | resent |")
        print("|---|---|---|")
        for p in cubic.LOSS_RATES:
            like = [cubic_ccscope(p, s, without) for s in seeds]
            print(f"| {p:g} | {mean_sd([r[0] for r in like])} | {percent(like)} |", flush=True)
        return
    print(
        "| p | RFC 9438 (β 0.7, C 0.4) | at ns-2.35's β and C | ns-2.35 | ccscope, ns-2.35 rules "
        "| resent, ns-2.35 | resent, ccscope |"
    )
    print("|---|---|---|---|---|---|---|")
    rtt = CUBIC_NS2_RTT_S
    for p in cubic.LOSS_RATES:
        like = [cubic_ccscope(p, s) for s in seeds]
        ours = mean_sd([r[0] for r in like])
        key = f"bernoulli/{p:g}"
        if settled("cubic-rfc9438", key, ours):
            continue
        theirs = [cubic_ns2(p, s) for s in seeds] if with_ns2 else []
        shown = mean_sd([r[0] for r in theirs]) if theirs else ""
        resent = percent(theirs) if theirs else ""
        rfc = float(theory.cubic_response(p, rtt, cubic.C, cubic.BETA))
        at_ns2 = float(theory.cubic_response(p, rtt, NS2_CUBIC_C, NS2_CUBIC_BETA))
        print(
            f"| {p:g} | {rfc:.1f} | {at_ns2:.1f} | {shown} | {ours} | {resent} | {percent(like)} |",
            flush=True,
        )
        if theirs:
            agree = ns2column.agree_means([r[0] for r in theirs], [r[0] for r in like])
            store("cubic-rfc9438", key, shown, ours, agree, ns2column.AGREE_MEANS)


# --- Vegas's equilibrium ----------------------------------------------------------------

#: vegas-equilibrium's flow counts.
VEGAS_NS = tuple(range(1, 17))


#: ns-2.35's tcp-vegas.cc where ccscope's Vegas (Linux tcp_vegas.c) differs: Diff rounded to
#: whole packets, a round's mean RTT, the +1 spread over the next round's ACKs, an eighth off
#: the window leaving slow start, Diff counted from the packets outstanding and those sent in
#: the round, and its one-packet start.
NS2_VEGAS = {
    "whole_diff": 1,
    "mean_rtt": 1,
    "ack_increase": 1,
    "eighth_exit": 1,
    "sent_diff": 1,
    "data_syn": 1,
}


def vegas_rules(table: dict) -> dict:
    """A Vegas scenario with ns-2.35's rules: NS2_TCP, NS2_VEGAS for the Vegas flows, the
    DropTail limit one packet lower (yang_f_ccscope). Reno's packets are 1040 bytes on the
    wire; Vegas's 1000: tcp-vegas.cc's own output() sends `size_` without TcpAgent::output's
    `headersize()`, so its 1000-byte payloads carry 10 Mb/s on the 10 Mb/s link."""
    for flow in table["flows"]:
        source = {**flow["source"], **NS2_TCP, "packet_size": f"{1000 + HEADER}B"}
        if source["controller"] == "vegas":
            source["controller"] = {"name": "vegas", **NS2_VEGAS}
            source |= {
                "packet_size": "1000B",
                "syn": False,
                "initial_window": 1,
                "rtt_timing": "every_ack",
            }
        flow["source"] = source
    queue = table["topology"]["bottleneck"]["queue"]
    queue["limit"] = f"{int(queue['limit'].removesuffix('pkts')) - 1}pkts"
    return table


def vegas_ccscope_equilibrium(n: int, seed: int) -> dict[str, float]:
    """vegas.packet_equilibrium with ns-2.35's rules, the mean queue to the 6 decimals that
    bench/ns2_vegas.tcl prints ns-2.35's with (both sides are often the same number: a
    difference in the 15th digit is no difference)."""
    sc = load(shipped() / "vegas-equilibrium.toml").replace("flows[0].count", n).with_seed(seed)
    got = vegas.equilibrium_of(engine.run(vegas_rules(sc.table)), n)
    return got | {"per_flow": round(got["per_flow"] * n, 6) / n}


def vegas_ccscope_rtt(controller: str, seed: int) -> float:
    """vegas.rtt_ratio with ns-2.35's rules."""
    sc = load(shipped() / "vegas-rtt-bias.toml").with_seed(seed)
    for i in (0, 1):
        sc = sc.replace(f"flows[{i}].source.controller", controller)
    rate = engine.run(vegas_rules(sc.table)).flows["throughput_bps"]
    return float(rate.iloc[0] / rate.iloc[1])


def vegas_ns2_equilibrium(n: int, seed: int) -> dict[str, float]:
    got = ns2("ns2_vegas.tcl", "equilibrium", n, seed)
    rate = np.array(got["throughput_bps"])
    return {"per_flow": got["mean_queue_pkts"] / n, "ratio": float(rate.max() / rate.min())}


def vegas_ns2_rtt(agent: str, seed: int) -> float:
    rate = ns2("ns2_vegas.tcl", "rtt-bias", agent, seed)["throughput_bps"]
    return rate[0] / rate[1]


def vegas_equilibrium(seeds: range, with_ns2: bool) -> None:
    """vegas-equilibrium's packet-level rows: the mean queue per flow (each n's mean over the
    seeds; the cell is the least and most of them), the largest throughput ratio over n (per
    seed), and the two-RTT throughput ratio under Vegas and Reno (ns-2.35's Agent/TCP/Vegas
    and Agent/TCP/Reno; ccscope with the reproduction's variant = "reno")."""
    print("| quantity | paper | ns-2.35 | ccscope, ns-2.35 rules |")
    print("|---|---|---|---|")
    like = {n: [vegas_ccscope_equilibrium(n, s) for s in seeds] for n in VEGAS_NS}
    per_flow = {n: [r["per_flow"] for r in runs] for n, runs in like.items()}
    spread = [max(like[n][i]["ratio"] for n in VEGAS_NS) for i in range(len(seeds))]
    rtt = {a: [vegas_ccscope_rtt(c, s) for s in seeds] for a, c in VEGAS_RTT.items()}
    mine = {
        "queue": vegas_range(per_flow),
        "spread": mean_sd(spread),
        **{f"rtt/{a}": mean_sd(v) for a, v in rtt.items()},
    }
    todo = [k for k, v in mine.items() if not settled("vegas-equilibrium", k, v)]
    theirs: dict[str, str] = dict.fromkeys(mine, "")
    if with_ns2 and todo:
        runs = {n: [vegas_ns2_equilibrium(n, s) for s in seeds] for n in VEGAS_NS}
        queue = {n: [r["per_flow"] for r in rs] for n, rs in runs.items()}
        widest = [max(runs[n][i]["ratio"] for n in VEGAS_NS) for i in range(len(seeds))]
        ratios = {a: [vegas_ns2_rtt(a, s) for s in seeds] for a in VEGAS_RTT}
        samples = {"spread": (widest, spread), **{f"rtt/{a}": (ratios[a], rtt[a]) for a in rtt}}
        theirs = {"queue": vegas_range(queue), **{k: mean_sd(v[0]) for k, v in samples.items()}}
        agree = {
            "queue": all(ns2column.agree_means(queue[n], per_flow[n]) for n in VEGAS_NS),
            **{k: ns2column.agree_means(*v) for k, v in samples.items()},
        }
        for key in todo:
            compared = VEGAS_QUEUE_AGREE if key == "queue" else ns2column.AGREE_MEANS
            store("vegas-equilibrium", key, theirs[key], mine[key], agree[key], compared)
    alpha, beta = vegas.thresholds()
    paper = {"queue": f"[{alpha:g}, {beta:g}]", "spread": f"≤ {beta / alpha:g}"}
    paper |= {"rtt/Vegas": f"≤ {beta / alpha:g}", "rtt/Reno": f"> {beta / alpha:g}"}
    for key, value in mine.items():
        print(f"| {key} | {paper[key]} | {theirs[key]} | {value} |", flush=True)


#: ns-2.35 agent: ccscope controller, in the two-RTT rows.
VEGAS_RTT = {"Vegas": "vegas", "Reno": "tcp"}
#: How the queue cell is judged.
VEGAS_QUEUE_AGREE = "each n's mean queue per flow over the seeds: " + ns2column.AGREE_MEANS


def vegas_range(per_n: dict[int, list[float]]) -> str:
    """The least and most of each n's mean over the seeds, as the claim's "least–most"."""
    means = [float(np.mean(v)) for v in per_n.values()]
    return f"{min(means):.3f}–{max(means):.3f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "figure",
        choices=(
            "yang-f",
            "yang-onoff",
            "yang-fig29",
            "jin-fig20",
            "jin-table5",
            "cai-fig16",
            "cai-fig16-start",
            "cai-fig10",
            "cai-fig17",
            "cai-fig8-9",
            "cai-table1",
            "cubic",
            "vegas",
        ),
    )
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument(
        "--quick",
        action="store_true",
        help="yang-f 300 s; cai-fig16 n = 0, 5, 10; cai-fig16-start n = 5",
    )
    ap.add_argument(
        "--mice",
        type=lambda text: tuple(int(n) for n in text.split(",")),
        help="cai-fig16: these n only, e.g. 6,7,8 (default 0-10)",
    )
    ap.add_argument(
        "--only",
        type=lambda text: tuple(text.split(",")),
        default=(),
        help="jin-fig20: these cells only, e.g. exp2/T1/IIAD",
    )
    ap.add_argument(
        "--without",
        type=lambda text: tuple(text.split(",")),
        default=(),
        help="cubic: ccscope's column only, without these of NS2_LINUX_TCP's rules (e.g. "
        "rto_restart,sack_lost_after), or 'integers' for RFC 9438's CUBIC",
    )
    ap.add_argument(
        "--store",
        action="store_true",
        help="Write the ns-2.35 cells to ccscope/ns2column.json (full runs only).",
    )
    ap.add_argument(
        "--restamp",
        action="store_true",
        help="With --store: re-stamp the cells whose ccscope side recomputes to the stored "
        "text; measure the others afresh.",
    )
    args = ap.parse_args()
    if args.figure == "cai-fig10":
        args.seeds = 1  # nothing random: one run per case (FIG10_AGREE)
    seeds = range(1, args.seeds + 1)
    with_ns2 = have_ns2()
    if args.store and args.quick:
        ap.error("--store keeps the full runs' cells: drop --quick")
    if args.restamp and not (args.store and with_ns2):
        ap.error("--restamp rewrites the store's cells: give --store, with ns-2.35 installed")
    RESTAMP.extend([True] if args.restamp else [])
    if args.store and with_ns2:
        STORE["seeds"] = f"1-{args.seeds}"
    if args.figure == "yang-f":
        yang_f(seeds, 300.0 if args.quick else 1000.0, with_ns2)
    elif args.figure == "jin-fig20":
        jin_fig20(seeds, with_ns2, args.only)
    elif args.figure == "cai-fig16":
        mice = args.mice or ((0, 5, 10) if args.quick else tuple(range(11)))
        cai_fig16(seeds, mice, with_ns2)
    elif args.figure == "yang-onoff":
        yang_onoff(seeds, with_ns2)
    elif args.figure == "yang-fig29":
        yang_fig29(seeds, with_ns2)
    elif args.figure == "cubic":
        unknown = set(args.without) - set(NS2_LINUX_TCP) - {"integers"}
        if unknown or (args.without and args.store):
            ap.error(
                f"--without {','.join(args.without)}: one or more of "
                f"{', '.join(NS2_LINUX_TCP)}, integers; not with --store"
            )
        cubic_rfc9438(seeds, with_ns2, args.without)
    elif args.figure == "vegas":
        vegas_equilibrium(seeds, with_ns2)
    elif args.figure == "cai-fig10":
        cai_fig10(with_ns2)
    elif args.figure == "jin-table5":
        jin_table5(seeds, with_ns2)
    elif args.figure == "cai-fig17":
        cai_fig17(seeds, with_ns2)
    elif args.figure == "cai-fig8-9":
        cai_fig8_9(seeds, with_ns2)
    elif args.figure == "cai-table1":
        cai_table1(seeds, with_ns2)
    else:
        cai_fig16_start(seeds, (5,) if args.quick else (1, 5, 10), with_ns2)


if __name__ == "__main__":
    main()
