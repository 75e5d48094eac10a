"""TFRC through RFC 8867 §5.8, the media pause (seed 1, packet engine): the paused flow's
(flow 1's) allowed sending rate when its encoder pauses at 40 s, the lowest it falls to in the
20 s pause, when it sends again after the resumption at 60 s, and what it sends over 60-70 s.
docs/rmcat.md quotes it (RFC 5348 §4.4's rule for a sender idle over a missing-feedback timer).

Usage: python bench/tfrc_pause.py
"""

from __future__ import annotations

from ccscope import engine, rmcat
from ccscope.scenario import Scenario


def main() -> None:
    table = rmcat.scenario("5.8", "tfrc")
    table["trace"]["state"] = True
    r = engine.run(Scenario.from_dict(table))
    st = r.trace.state
    rate = st[(st["flow"] == 1) & (st["side"] == "sender") & (st["field"] == "rate_bps")]
    before = rate[rate["time_s"] < 60.0]
    paused = before[before["time_s"] >= 40.0]
    flows = r.trace.flows
    paused_flow = flows[flows["flow"] == 1]
    resumed = paused_flow[paused_flow["time_s"] >= 60.0]
    first = resumed[resumed["sent_pkts"] > 0]["time_s"].iloc[0]
    sent = resumed[resumed["time_s"] < 70.0]["sent_bytes"].sum() * 8 / 10.0
    print(
        f"allowed rate at 40 s: {before[before['time_s'] < 40.0]['value'].iloc[-1] / 1e3:.1f} kb/s"
    )
    print(f"lowest in the pause:  {paused['value'].min() / 1e3:.1f} kb/s")
    print(f"first send after 60 s (100 ms bin): {first:.1f} s")
    print(f"sent over 60-70 s: {sent / 1e3:.1f} kb/s")


if __name__ == "__main__":
    main()
