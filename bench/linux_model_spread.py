"""The model's side of the ground truth (ccscope.experiments.linux) over seeds, on paths of the
full grid: per path, the mean of each quantity over seeds 1..R of the packet engine's run of the
path alone (:data:`linux.FULL_RUN`), its standard deviation relative to the mean, and the least
and greatest value. (docs/linux_tables.py's grid tables run the 10 Mb/s paths six side by side,
so their seed 1 draws other random numbers than the path's run alone.) No real packets; quick.

A path is FLOWS,MBPS,RTT_MS,BUFFER_BDP,LOSS (e.g. 1,100,100,0.25,0.01). With --cuts, also
seed 1's window cuts after the warm-up (a fall of a fifth or more of the window in one step
of the state trace): per flow, and how many of the first flow's fall within one propagation
round trip of another flow's (whether the flows cut at the same overflows). With --estimate
(BBR), seed 1's timeouts and its bandwidth estimate (the state trace's btlbw_pkts_per_s) over
the link's rate: its maximum before the first timeout and over the whole run.

Usage: python bench/linux_model_spread.py --cc cubic [--runs R] [--cuts] [--estimate]
       PATH [PATH ...]
"""

from __future__ import annotations

import argparse

import numpy as np

from ccscope.experiments import linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cc", required=True, choices=list(linux.CONTROLLER))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cuts", action="store_true", help="seed 1's window cuts per flow")
    parser.add_argument(
        "--estimate", action="store_true", help="BBR: seed 1's bandwidth estimate and timeouts"
    )
    parser.add_argument("paths", nargs="+", metavar="PATH")
    args = parser.parse_args()
    for text in args.paths:
        try:
            flows, rate, rtt, bdp, loss = (float(x) for x in text.split(","))
        except ValueError:
            parser.error(f"PATH '{text}': five numbers FLOWS,MBPS,RTT_MS,BUFFER_BDP,LOSS")
        case = linux.Case(int(flows), rate, rtt, bdp, loss)
        runs = [
            linux.measure([case], args.cc, "model", linux.FULL_RUN, seed)[0]
            for seed in range(1, args.runs + 1)
        ]
        for metric in linux.METRICS:
            v = np.array([r[metric] for r in runs])
            sd = v.std(ddof=1) / v.mean() if len(v) > 1 and v.mean() else 0.0
            shown = linux.SHOWN[metric]
            print(
                f"{args.cc} | {case} | {linux.HEADS[metric]} | mean {shown(v.mean())} "
                f"(σ {sd:.1%}) | {shown(v.min())}-{shown(v.max())}"
            )
        if args.cuts:
            print(f"{args.cc} | {case} | {cuts(case, args.cc)}")
        if args.estimate:
            print(f"{args.cc} | {case} | {estimate(case, args.cc)}")


def seed_one(case: linux.Case, cc: str):
    """Seed 1's run of the model alone on `case`, with its state trace."""
    from ccscope.engine import run

    table, parts = linux.scenario([case], cc, "model", linux.FULL_RUN)
    return run(table, force=True), parts[0]


def estimate(case: linux.Case, cc: str) -> str:
    """Seed 1's timeouts and bandwidth estimate over the link's rate: its maximum before the
    first timeout (a rise of the RTO, which backs off) and over the whole run."""
    result, _ = seed_one(case, cc)
    state = result.trace.state
    bw = state[state["field"] == "btlbw_pkts_per_s"]
    rto = state[state["field"] == "rto_s"].sort_values("time_s")
    backoff = rto["time_s"].to_numpy()[1:][np.diff(rto["value"].to_numpy()) > 0]
    if bw.empty:
        return "no bandwidth estimate in the state trace (BBR only)"
    link = case.rate_mbps * 1e6 / (8 * linux.PACKET_BYTES)
    first = backoff[0] if len(backoff) else np.inf
    before = bw[bw["time_s"] < first]["value"].max() / link
    timeouts = int(result.flows["timeouts"].sum())
    return (
        f"timeouts after the warm-up {timeouts}; bandwidth estimate over the link's rate: "
        f"{before:.2f} at most before the first timeout, {bw['value'].max() / link:.2f} at most "
        "over the run"
    )


def cuts(case: linux.Case, cc: str) -> str:
    """Seed 1's window cuts after the warm-up, per flow, and how many of the first flow's
    come within one propagation round trip of another flow's."""
    result, flows = seed_one(case, cc)
    state = result.trace.state
    state = state[(state["side"] == "sender") & (state["field"] == "cwnd_pkts")]
    times = []
    for flow in flows:
        rows = state[state["flow"] == flow].sort_values("time_s")
        t, w = rows["time_s"].to_numpy(), rows["value"].to_numpy()
        fall = np.flatnonzero(np.diff(w) <= -0.2 * w[:-1]) + 1
        times.append(t[fall][t[fall] >= linux.FULL_RUN["warmup_s"]])
    rtt = case.rtt_ms / 1e3
    together = sum(
        any(len(o) and np.min(np.abs(o - c)) <= rtt for o in times[1:]) for c in times[0]
    )
    return (
        f"window cuts per flow {', '.join(str(len(t)) for t in times)}; of the first flow's, "
        f"{together} within a round trip of another flow's"
    )


if __name__ == "__main__":
    main()
